//go:build !linux

package tools

import "os/exec"

func sandboxProbe(p SandboxPolicy) SandboxStatus {
	if p.Off {
		return SandboxStatus{Detail: "off (commands.sandbox: off)"}
	}
	return SandboxStatus{Detail: "not available: nova confines commands with Landlock, which only Linux has"}
}

func startSandboxed(cmd *exec.Cmd, _ SandboxPolicy, _ []string) error { return cmd.Start() }

type netMode uint8
