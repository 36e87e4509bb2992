package rehearsal

import (
	"os"
	"os/exec"
	"strconv"
)

func osSymlink(target, link string) error { return os.Symlink(target, link) }

func lookPath(name string) (string, error) { return exec.LookPath(name) }

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func proposalOf(path, content string) proposal {
	var p proposal
	p.Files = append(p.Files, struct {
		Path            string `json:"path"`
		ProposedContent string `json:"proposedContent"`
	}{path, content})
	return p
}
