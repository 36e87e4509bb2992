//go:build unix

package owner

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
)

// fileUID is the owner of a file.
func fileUID(fi fs.FileInfo) (int, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}

// detach starts cmd in its own session: the terminal closing (SIGHUP) or
// Ctrl-C in the old owner's terminal does not reach the new owner.
func detach(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

// alive reports whether a process with that pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
