//go:build unix

package lsp

import (
	"os/exec"
	"syscall"
)

// setGroup starts the server in a process group of its own, so that
// killing it also ends the processes it started (tsserver under
// typescript-language-server).
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
