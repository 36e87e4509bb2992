// Package editor starts the user's text editor on a file, as git and
// lazygit do: $VISUAL, else $EDITOR, else vi. The variable may hold
// arguments ("code --wait", "emacs -nw"): it is run through the shell on
// systems that have one, with the file as its last argument.
package editor

import (
	"os/exec"
	"runtime"
	"strings"
)

// Name is the editor getenv chooses.
func Name(getenv func(string) string) string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(getenv(v)); e != "" {
			return e
		}
	}
	if runtime.GOOS == "windows" {
		return "notepad"
	}
	return "vi"
}

// Command is the command that opens path in the editor getenv chooses. The
// caller wires its standard streams (a terminal) and runs it.
func Command(getenv func(string) string, path string) *exec.Cmd {
	ed := Name(getenv)
	if runtime.GOOS == "windows" {
		f := strings.Fields(ed)
		return exec.Command(f[0], append(f[1:], path)...) //nolint:gosec // the user's own editor
	}
	// As git does: the variable is shell words, the file is "$@".
	return exec.Command("sh", "-c", ed+` "$@"`, ed, path) //nolint:gosec // the user's own editor
}
