package board_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/board"
)

func TestParseHandoff(t *testing.T) {
	t.Parallel()
	answer := "Added internal/health/health.go with GET /healthz.\n\n" +
		"## Handoff\n" +
		"summary: the handler answers 200 ok;\n" +
		"it is registered in main.go\n" +
		"constraints: do not change cmd/main.go; keep the JSON body {\"status\":\"ok\"}\n" +
		"- use net/http only\n" +
		"**next:** SATURN (tests)\n" +
		"questions: none\n" +
		"artifacts: a3, a4\n"
	h, body, ok := board.ParseHandoff(answer)
	require.True(t, ok)
	assert.Equal(t, "Added internal/health/health.go with GET /healthz.", body)
	assert.Equal(t, "the handler answers 200 ok; it is registered in main.go", h.Summary)
	assert.Equal(t, []string{"do not change cmd/main.go", `keep the JSON body {"status":"ok"}`, "use net/http only"}, h.Constraints)
	assert.Equal(t, "SATURN", h.Next)
	assert.Empty(t, h.Questions)
	assert.Equal(t, []uint64{3, 4}, h.Artifacts)
	assert.True(t, h.Written)
	// The verifier reads the body and the summary, not the constraints.
	assert.NotContains(t, board.Body(answer), "do not change cmd/main.go")
	assert.Contains(t, board.Body(answer), "registered in main.go")
}

func TestParseHandoffMalformed(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"no handoff":       "just an answer",
		"empty":            "",
		"header only":      "answer\nHandoff:",
		"unknown keys":     "Handoff:\nfoo: bar\nbaz",
		"binary":           "Handoff:\n\x00\xff\xfe summary: \x01",
		"huge":             "Handoff:\nsummary: " + strings.Repeat("é", 100000) + "\nconstraints: " + strings.Repeat("x;", 5000),
		"colon soup":       "Handoff:\n:::\nsummary::\nnext: : :\n",
		"handoff in prose": "I will write the handoff now and then stop.",
	}
	for name, in := range cases {
		h, body, ok := board.ParseHandoff(in)
		if !ok {
			assert.Equal(t, in, body, name)
			continue
		}
		assert.LessOrEqual(t, utf8.RuneCountInString(h.Summary), 600, name)
		assert.LessOrEqual(t, len(h.Constraints), 8, name)
		assert.True(t, utf8.ValidString(h.Summary), name)
	}
	h, _, ok := board.ParseHandoff("answer\nHandoff:\nthe only line")
	require.True(t, ok)
	assert.Equal(t, "the only line", h.Summary, "text before any key is the summary")
}

func TestDeriveHandoff(t *testing.T) {
	t.Parallel()
	h := board.DeriveHandoff("\n```go\npackage x\n```\nWrote the spec in docs/health.md.\nIt has five criteria.\n\nDetails follow.")
	assert.Equal(t, "Wrote the spec in docs/health.md. It has five criteria.", h.Summary)
	assert.False(t, h.Written)
	assert.NotNil(t, h.Constraints)
}

func FuzzParseHandoff(f *testing.F) {
	f.Add("done\nHandoff:\nsummary: x\nconstraints: a; b\nnext: MARS\nquestions: q")
	f.Add("## Handoff\n- summary: y\n- constraints:\n- one\n- two")
	f.Add("**Handoff:**\nartifacts: a1 a2,a3")
	f.Add("Handoff")
	f.Fuzz(func(t *testing.T, in string) {
		h, body, ok := board.ParseHandoff(in)
		if !ok {
			if body != in {
				t.Fatalf("no handoff but the body changed")
			}
			return
		}
		if len(body) > len(in) {
			t.Fatalf("body longer than the input")
		}
		if utf8.RuneCountInString(h.Summary) > 600 || len(h.Constraints) > 8 || len(h.Questions) > 5 {
			t.Fatalf("bounds: %+v", h)
		}
		if !utf8.ValidString(h.Summary) || !utf8.ValidString(h.Next) {
			t.Fatalf("invalid UTF-8")
		}
		_ = board.Body(in)
	})
}
