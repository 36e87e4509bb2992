//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs the command in its own process group, so that a
// timeout kills what it started too (go test's test binaries, npm's node).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
