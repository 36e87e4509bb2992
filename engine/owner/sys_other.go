//go:build !unix

package owner

import (
	"io/fs"
	"os/exec"
)

func fileUID(fs.FileInfo) (int, bool) { return 0, false }

func detach(*exec.Cmd) {}

// alive cannot tell here: a hand-over marker is trusted until it expires.
func alive(int) bool { return true }
