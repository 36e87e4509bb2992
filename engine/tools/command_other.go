//go:build !unix

package tools

import "os/exec"

// setProcessGroup is a no-op where process groups are not available; the
// command itself is still killed on timeout.
func setProcessGroup(*exec.Cmd) {}
