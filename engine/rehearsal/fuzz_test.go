package rehearsal

import (
	"encoding/json"
	"testing"

	"github.com/nova-dev/nova/engine/llm"
)

// FuzzBranchReply feeds arbitrary model output through the same path a
// branch reply takes (schema validation, decoding, nova's own checks): it
// must never panic, and an accepted branch keeps every path inside the root.
func FuzzBranchReply(f *testing.F) {
	f.Add(`{"description":"d","files":[{"path":"a.go","proposedContent":"package a\n"}],"agentNotes":"ok"}`)
	f.Add(`{"description":"d","files":[{"path":"../x","proposedContent":""}],"agentNotes":""}`)
	f.Add(`{"description":"d","files":[],"agentNotes":""}`)
	f.Add("```json\n{\"description\":1}\n```")
	f.Add(`not json at all`)
	f.Add(`{"description":"d","files":[{"path":"a/../../b","proposedContent":"\xff"}],"agentNotes":""}`)
	sch, err := llm.CompileSchema([]byte(branchSchema))
	if err != nil {
		f.Fatal(err)
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, reply string) {
		doc, err := llm.ValidateJSON(reply, sch)
		if err != nil {
			return
		}
		var p proposal
		if json.Unmarshal(doc, &p) != nil {
			return
		}
		files, err := validate(root, p)
		if err != nil {
			return
		}
		for _, fl := range files {
			if fl.Path == "" || fl.Path[0] == '/' || fl.Path == ".." || len(fl.Path) > 2 && fl.Path[:3] == "../" {
				t.Fatalf("accepted path %q", fl.Path)
			}
		}
	})
}

// FuzzBranchRef: Session.Branch never panics on user input.
func FuzzBranchRef(f *testing.F) {
	for _, s := range []string{"1", "2", "r1-minimal", "", "0", "99999999999999999999", "-1"} {
		f.Add(s)
	}
	ss := Session{Branches: []Branch{{ID: "r1-minimal"}, {ID: "r1-idiomatic"}}}
	f.Fuzz(func(t *testing.T, ref string) {
		b, ok := ss.Branch(ref)
		if ok && b.ID == "" {
			t.Fatal("found an empty branch")
		}
	})
}
