package workflow

import (
	"io/fs"
	"testing"

	nova "github.com/nova-dev/nova"
)

// FuzzParse feeds arbitrary bytes to the workflow parser: it never panics,
// and a workflow it accepts validates cleanly again.
func FuzzParse(f *testing.F) {
	sub, err := fs.Sub(nova.Defaults, ".nova/workflows")
	if err != nil {
		f.Fatal(err)
	}
	entries, _ := fs.ReadDir(sub, ".")
	for _, e := range entries {
		if data, err := fs.ReadFile(sub, e.Name()); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(base + "  - {id: a, agent: MARS, task: \"{{ b.output }}\"}\n  - {id: b, agent: MARS, task: \"{{ a.output }}\"}\n"))
	f.Add([]byte("a: &a [x]\nsteps: [*a]\n"))
	f.Add([]byte(base + "  - {id: a, agent: MARS, task: t, checks: [\"go test ./...\", \"\"]}\n  - {id: b, agent: MARS, task: t, checks: {x: 1}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, errs := Parse("fuzz.yaml", data, Env{})
		if len(errs) > 0 {
			return
		}
		if again := Validate(w, Env{}); len(again) > 0 {
			t.Fatalf("accepted workflow fails validation: %v", again)
		}
		_ = Matches("add tests for x", []Workflow{w})
	})
}

// FuzzMatches feeds arbitrary request text to the matcher.
func FuzzMatches(f *testing.F) {
	for _, s := range []string{"add tests for x.go", "fix the bug: it crashes", "", "   ", "review\x00", "ÄÖÜ refactor"} {
		f.Add(s)
	}
	ws := []Workflow{{ID: "add-test", Name: "Add tests", Triggers: []string{"add tests"}}, {ID: "fix-bug", Name: "Fix a bug", Triggers: []string{"fix the bug"}}}
	f.Fuzz(func(t *testing.T, text string) {
		for _, m := range Matches(text, ws) {
			if m.Score < MinScore {
				t.Fatalf("match below the threshold: %+v", m)
			}
		}
	})
}
