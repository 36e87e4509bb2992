package ace_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/ace"
)

var benchWords = strings.Fields("database migration index schema query handler route endpoint test fixture " +
	"component layout style theme token cache latency error wrap context goroutine channel mutex " +
	"config build deploy docker login password session cookie parser lexer token stream buffer file path")

func benchPlaybook(b *testing.B, n int) *env {
	e := newEnv(b)
	rng := rand.New(rand.NewPCG(1, 2))
	ds := make([]ace.Delta, n)
	for i := range ds {
		words := make([]string, 8+rng.IntN(10))
		for j := range words {
			words[j] = benchWords[rng.IntN(len(benchWords))]
		}
		ds[i] = ace.Delta{Op: ace.OpAdd, Content: fmt.Sprintf("rule %d: %s", i, strings.Join(words, " ")),
			Confidence: 0.5 + rng.Float64()/2, Tags: []string{benchWords[rng.IntN(len(benchWords))]}}
	}
	_, _, err := e.m.UpdatePlaybook(ctx(), "MARS", ds, "bench")
	require.NoError(b, err)
	return e
}

// BenchmarkGetActiveRules ranks a 500-rule playbook for a task (bbolt read,
// decode, scoring, sort).
func BenchmarkGetActiveRules(b *testing.B) {
	e := benchPlaybook(b, 500)
	task := "Add a database migration and an index for the orders query handler"
	b.ReportAllocs()
	for b.Loop() {
		rules, err := e.m.GetActiveRules(ctx(), "MARS", task, 10)
		if err != nil || len(rules) != 10 {
			b.Fatal(err, len(rules))
		}
	}
}

// BenchmarkGenerate renders the block for a 2,000-token prompt budget.
func BenchmarkGenerate(b *testing.B) {
	e := benchPlaybook(b, 500)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.m.Generate(ctx(), "MARS", "Fix the login session cookie handler", ace.Budget(20000)); err != nil {
			b.Fatal(err)
		}
	}
}
