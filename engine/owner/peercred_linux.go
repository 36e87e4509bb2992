package owner

import (
	"fmt"
	"net"
	"syscall"
)

// peerCred reads the peer's credentials with SO_PEERCRED.
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
		u, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err != nil {
			credErr = err
			return
		}
		c = cred{uid: int(u.Uid), pid: int(u.Pid)}
	})
	if err == nil {
		err = credErr
	}
	if err != nil {
		return cred{}, fmt.Errorf("peer credentials: %w", err)
	}
	return c, nil
}
