package promptfit_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/promptfit"
)

var est = promptfit.Estimator{Factor: 1}

func block(tag string, tokens int) string {
	return "<" + tag + ">\n" + strings.Repeat("word ", tokens*4/5) + "\n</" + tag + ">"
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	assert.Equal(t, promptfit.Vault, promptfit.KindOf("  <taste_vault_context>\nx"))
	assert.Equal(t, promptfit.Playbook, promptfit.KindOf(`<playbook_context agent="MARS">`))
	assert.Equal(t, promptfit.Dependencies, promptfit.KindOf("<dependency_artifacts>\n"))
	assert.Equal(t, promptfit.Knowledge, promptfit.KindOf("<knowledge_context>"))
	assert.Equal(t, promptfit.Other, promptfit.KindOf("## Context\nplain"))
}

func TestCutKeepsTheStartAndSaysSo(t *testing.T) {
	t.Parallel()
	s := "first line\n" + strings.Repeat("more words here\n", 500)
	out := promptfit.Cut(s, 200, est, "task")
	assert.LessOrEqual(t, est.Tokens(out), 200)
	assert.True(t, strings.HasPrefix(out, "first line\n"))
	assert.Contains(t, out, "task cut to fit the model's context")
	assert.Equal(t, "short", promptfit.Cut("short", 200, est, "task"), "what fits is untouched")
	assert.Empty(t, promptfit.Cut(s, 10, est, "task"), "no room for more than the marker")
}

func TestCutRespectsTheFactor(t *testing.T) {
	t.Parallel()
	e := promptfit.Estimator{Factor: 2}
	out := promptfit.Cut(strings.Repeat("x", 8000), 500, e, "task")
	assert.LessOrEqual(t, e.Tokens(out), 500)
	assert.Greater(t, e.Tokens(out), 400)
}

func TestFitBlocksTrimsInPriorityOrder(t *testing.T) {
	t.Parallel()
	blocks := []string{
		block("dependency_artifacts", 400),
		block("taste_vault_context", 400),
		block("playbook_context", 400),
		block("knowledge_context", 400),
		"## Context\n" + strings.Repeat("fixed ", 100),
	}
	total := 0
	for _, b := range blocks {
		total += est.Tokens(b)
	}
	// Room for all but ~600 tokens: knowledge goes first, then vault shrinks.
	fitted, trims := promptfit.FitBlocks(blocks, nil, total-600, est)
	require.Len(t, fitted, len(blocks), "one entry per block, empty when dropped")
	assert.Empty(t, fitted[3], "knowledge dropped")
	kept := promptfit.NonEmpty(fitted)
	require.NotEmpty(t, trims)
	assert.Equal(t, promptfit.Knowledge, trims[0].Kind)
	assert.Zero(t, trims[0].To, "knowledge dropped whole")
	assert.Equal(t, promptfit.Vault, trims[1].Kind)
	sum := 0
	for _, b := range kept {
		sum += est.Tokens(b)
	}
	assert.LessOrEqual(t, sum, total-600)
	assert.Contains(t, kept[len(kept)-1], "## Context", "blocks of no known kind are never trimmed")
	assert.Contains(t, kept[0], "<dependency_artifacts>", "dependencies are kept while others can give")
}

func TestFitBlocksNothingToDo(t *testing.T) {
	t.Parallel()
	blocks := []string{block("taste_vault_context", 50)}
	kept, trims := promptfit.FitBlocks(blocks, nil, 1000, est)
	assert.Equal(t, blocks, kept)
	assert.Empty(t, trims)
}

func TestTooLargeErrorSaysWhatToChange(t *testing.T) {
	t.Parallel()
	err := &promptfit.TooLargeError{Fixed: 900, Budget: 512, Window: "1536 tokens (nova-tight's context length)", Reserve: 1024, What: "agent tester's prompt"}
	assert.Contains(t, err.Error(), "ollama.numCtx")
	assert.Contains(t, err.Error(), "budgets.replyReserve")
	none := &promptfit.TooLargeError{Budget: 0, Window: "1024 tokens (ollama.numCtx)", Reserve: 1024, What: "x"}
	assert.Contains(t, none.Error(), "no room for any prompt")
}

func FuzzCut(f *testing.F) {
	f.Add("hello\nworld", 5, 1.0)
	f.Add(strings.Repeat("é", 100), 60, 2.5)
	f.Fuzz(func(t *testing.T, s string, tokens int, factor float64) {
		if tokens > 1<<20 || tokens < -1<<20 || factor > 10 || factor != factor {
			return
		}
		e := promptfit.Estimator{Factor: factor}
		out := promptfit.Cut(s, tokens, e, "task")
		if out != s && e.Tokens(out) > max(tokens, 0) {
			t.Fatalf("cut to %d tokens gave %d", tokens, e.Tokens(out))
		}
	})
}
