package rehearsal

import (
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/prd"
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

func buildReq(id string, n int) build.RehearsalRequest {
	return build.RehearsalRequest{Task: prd.Task{ID: id, Title: "t", Description: "add totals"}, Agent: "MARS", Branches: n}
}
