package workflow

import (
	"io/fs"
	"testing"

	nova "github.com/nova-dev/nova"
)

// BenchmarkMatches matches a request against the five shipped workflows
// (`nova workflow match`, and the orchestrator's first look at a goal).
func BenchmarkMatches(b *testing.B) {
	sub, err := fs.Sub(nova.Defaults, ".nova/workflows")
	if err != nil {
		b.Fatal(err)
	}
	lib, errs := Load(sub, "", Env{})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	ws := lib.List()
	b.ReportAllocs()
	for b.Loop() {
		if ms := Matches("please add tests for internal/parser/parse.go and its errors", ws); len(ms) == 0 {
			b.Fatal("no match")
		}
	}
}

// BenchmarkLoadShipped parses and validates the five shipped workflows
// (done on every `workflow list/run/match`).
func BenchmarkLoadShipped(b *testing.B) {
	sub, err := fs.Sub(nova.Defaults, ".nova/workflows")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := Load(sub, "", Env{}); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
