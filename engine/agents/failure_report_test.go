package agents

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHypothesis(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		f        Failure
		lastText string
		want     string
	}{
		{"the model's own reason", Failure{Kind: FailStuck},
			"I read main.go twice.\n```go\nreturn nil // cannot fail\n```\nI cannot find where the router is built because main.go only calls run(). Next I would look.",
			"I cannot find where the router is built because main.go only calls run()."},
		{"permission, with the path", Failure{Kind: FailToolError, Message: "3 tool calls in a row failed; last: open out/report.md: permission denied"}, "",
			"no write permission on out/report.md: the file or its directory is not writable for nova"},
		{"permission, no path", Failure{Kind: FailToolError, Message: "EACCES"}, "Done.",
			"no write permission: a file or directory the agent used is not writable for nova"},
		{"server down", Failure{Kind: FailToolError, Cause: "ollama_unreachable", Message: "dial tcp: refused"}, "",
			"the model server is not running or not reachable"},
		{"steps", Failure{Kind: FailTimeout, Cause: "max_steps"}, "Let me look at the next file.",
			"the task needs more steps than the agent's limit, or the agent went round in circles"},
		{"stuck", Failure{Kind: FailStuck}, "", "the agent repeated itself without making progress"},
		{"missing file", Failure{Kind: FailUnknown, Message: "open x.go: no such file or directory"}, "",
			"a file or command the agent used does not exist where it looked"},
		{"unknown", Failure{Kind: FailUnknown, Message: "boom. more"}, "", "unclear; the run stopped with: boom."},
		{"nothing at all", Failure{}, "", "unclear: the run stopped without saying why"},
	}
	for _, c := range cases {
		f := c.f
		assert.Equal(t, c.want, Hypothesis(&f, c.lastText), c.name)
	}
	assert.Empty(t, Hypothesis(nil, "because"))
	long := "It failed because " + strings.Repeat("x", 1000)
	assert.Len(t, []rune(Hypothesis(&Failure{}, long)), maxHypothesis)
}

func TestHintNotes(t *testing.T) {
	t.Parallel()
	f := &Failure{Kind: FailToolError, Message: "open out/report.md: permission denied",
		RecoveryHints: []RecoveryHint{HintAskUser, HintChangeStrategy, HintRetry, HintEscalateModel, HintSwitchSpecialist}}
	assert.Equal(t, []HintNote{
		{HintAskUser, "no write permission → run chmod +w out/report.md (or fix its owner), then run it again"},
		{HintChangeStrategy, "write somewhere the agent may write, or leave that file out of the task"},
		{HintRetry, "run it again as it is: a busy model server or a flaky command may pass the second time"},
		{HintEscalateModel, "a larger model may follow the task better (tiers go small → medium → large)"},
		{HintSwitchSpecialist, "give the task to a specialist whose tools fit it"},
	}, HintNotes(f))
	f = &Failure{Kind: FailTimeout, Cause: "max_steps", SuggestedAgent: "MARS", RecoveryHints: []RecoveryHint{HintChangeStrategy, HintSwitchSpecialist}}
	notes := HintNotes(f)
	assert.Equal(t, "split the task into smaller steps, or name the files to start from", notes[0].Note)
	assert.Equal(t, "give the task to MARS, whose tools fit it", notes[1].Note)
	assert.Nil(t, HintNotes(nil))
	assert.Nil(t, HintNotes(&Failure{}))
}

// A malformed model text (invalid UTF-8, unclosed fences, only
// punctuation) gives a hypothesis, never a panic.
func TestHypothesisMalformed(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"\xff\xfe because \xff", "```\nbecause", "...", "?!.", strings.Repeat("\n", 100), "because"} {
		got := Hypothesis(&Failure{Kind: FailUnknown, Message: "\xff"}, text)
		assert.NotEmpty(t, got, "%q", text)
		assert.True(t, utf8Valid(got), "%q", got)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

func FuzzHypothesis(f *testing.F) {
	f.Add("I could not write it because the disk is full.", "open a: permission denied", "max_steps")
	f.Add("```\ncannot\n```", "", "")
	f.Fuzz(func(t *testing.T, text, msg, cause string) {
		fl := &Failure{Kind: FailToolError, Message: msg, Cause: cause, RecoveryHints: []RecoveryHint{HintAskUser, HintChangeStrategy}}
		if h := Hypothesis(fl, text); h == "" || len([]rune(h)) > maxHypothesis {
			t.Fatalf("hypothesis %q", h)
		}
		if n := HintNotes(fl); len(n) != 2 {
			t.Fatalf("notes %v", n)
		}
	})
}
