package owner

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerCred reads the peer's credentials with LOCAL_PEERCRED and
// LOCAL_PEERPID.
func peerCred(conn net.Conn) (cred, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return cred{}, errNoPeerCred
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return cred{}, fmt.Errorf("peer credentials: %w", err)
	}
	var c cred
	var credErr error
	err = raw.Control(func(fd uintptr) {
		x, err := unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err != nil {
			credErr = err
			return
		}
		c.uid = int(x.Uid)
		if pid, err := unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID); err == nil {
			c.pid = pid
		}
	})
	if err == nil {
		err = credErr
	}
	if err != nil {
		return cred{}, fmt.Errorf("peer credentials: %w", err)
	}
	return c, nil
}
