package goal_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/llm"
)

func check() goal.Check {
	return goal.Check{
		Lead:   "SUN",
		Agents: []string{"SUN", "EARTH", "MARS", "implementer"},
		Board: board.Board{Key: "run:1",
			Artifacts: []board.ArtifactRef{{ID: 1, Type: board.TypeOutput, By: "EARTH", Task: "t1"}, {ID: 2, Type: board.TypeFile, By: "MARS", Task: "t2"}},
			Blockers:  []board.Blocker{{ID: "b1", Text: "which port?", By: "MARS", Task: "t2"}}},
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		d      goal.Decision
		reject string
	}{
		{"no action", goal.Decision{Reasoning: "r"}, "has no action"},
		{"unknown action", goal.Decision{Action: "dance"}, `action "dance" is not one of`},
		{"no agent", goal.Decision{Action: "delegate", Task: "x"}, "delegate needs an agent"},
		{"unknown agent", goal.Decision{Action: "delegate", Agent: "PLUTOX", Task: "x"}, `no agent "PLUTOX" on the team`},
		{"the lead itself", goal.Decision{Action: "delegate", Agent: "sun", Task: "x"}, "SUN is the lead"},
		{"empty task", goal.Decision{Action: "delegate", Agent: "MARS", Task: " \n "}, "delegate needs a task"},
		{"1 MB task", goal.Decision{Action: "delegate", Agent: "MARS", Task: strings.Repeat("x", 1<<20)}, "the task is 1048576 characters"},
		{"unknown artifact", goal.Decision{Action: "delegate", Agent: "MARS", Task: "x", IncludeArtifacts: []string{"a7"}}, "a7 is not on this run's board (its artifacts: a1, a2)"},
		{"blocked artifact", goal.Decision{Action: "delegate", Agent: "MARS", Task: "x", IncludeArtifacts: []string{"a2"}}, "open blocker b1"},
		{"complete without summary", goal.Decision{Action: "complete"}, "complete needs a summary"},
		{"escalate without question", goal.Decision{Action: "escalate"}, "escalate needs a question"},
	}
	for _, c := range cases {
		_, err := goal.Validate(c.d, check())
		require.Error(t, err, c.name)
		assert.True(t, goal.IsRejected(err), c.name)
		assert.Contains(t, err.Error(), c.reject, c.name)
	}

	v, err := goal.Validate(goal.Decision{Action: " Delegate ", Agent: "mars", Task: " write it ", IncludeArtifacts: []string{"a1", "#1", "a2"},
		ResolveBlockers: []string{"B1"}}, check())
	require.NoError(t, err)
	assert.Equal(t, goal.ActionDelegate, v.Action)
	assert.Equal(t, "MARS", v.Agent, "the roster's spelling")
	assert.Equal(t, "write it", v.Task)
	assert.Equal(t, []uint64{1, 2}, v.Include, "a2's blocker is resolved by the same decision; duplicates go")

	c := check()
	c.Artifact = func(id uint64) (board.Artifact, error) {
		return board.Artifact{ArtifactRef: board.ArtifactRef{ID: id, Task: "t0"}, Board: "run:1"}, nil
	}
	v, err = goal.Validate(goal.Decision{Action: "delegate", Agent: "EARTH", Task: "x", IncludeArtifacts: []string{"a77"}}, c)
	require.NoError(t, err, "an older artifact no longer listed on the board still counts")
	assert.Equal(t, []uint64{77}, v.Include)
}

// A decision that is valid but carries junk in an optional field is taken
// with that junk left out and noted, not rejected.
func TestValidate_IgnoresJunkInOptionalFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		d       goal.Decision
		note    string
		include []uint64
	}{
		{"unknown blocker", goal.Decision{Action: "complete", Summary: "s", ResolveBlockers: []string{"b9"}},
			`resolveBlockers: ignored "b9", which is not an open blocker (open: b1)`, nil},
		{"bad artifact id", goal.Decision{Action: "delegate", Agent: "MARS", Task: "x", IncludeArtifacts: []string{"zz", "a1"}},
			`includeArtifacts: ignored "zz", which is not an artifact id (like a3)`, []uint64{1}},
	}
	for _, c := range cases {
		v, err := goal.Validate(c.d, check())
		require.NoError(t, err, c.name)
		assert.Equal(t, []string{c.note}, v.Notes, c.name)
		assert.Equal(t, c.include, v.Include, c.name)
		assert.Empty(t, v.ResolveBlockers, c.name)
	}
	v, err := goal.Validate(goal.Decision{Action: "delegate", Agent: "MARS", Task: "x", ResolveBlockers: []string{"b9", "B1"}, IncludeArtifacts: []string{"a2", "#x"}}, check())
	require.NoError(t, err, "the open blocker it names still resolves a2's")
	assert.Equal(t, []string{"b1"}, v.ResolveBlockers)
	assert.Equal(t, []string{"a2"}, v.IncludeArtifacts)
	assert.Len(t, v.Notes, 2)
}

// The schema the lead answers against compiles and accepts a decision.
func TestDecisionSchema(t *testing.T) {
	t.Parallel()
	sch, err := llm.CompileSchema(goal.DecisionSchema)
	require.NoError(t, err)
	_, err = llm.ValidateJSON(`{"action":"delegate","reasoning":"r","agent":"MARS","task":"t","includeArtifacts":["a1"]}`, sch)
	require.NoError(t, err)
	_, err = llm.ValidateJSON(`{}`, sch)
	require.ErrorIs(t, err, llm.ErrInvalidOutput, "an empty decision is not a decision")
	_, err = llm.ValidateJSON(`{"action":"sleep","reasoning":"r"}`, sch)
	require.ErrorIs(t, err, llm.ErrInvalidOutput)
}

func TestOutcomeLine(t *testing.T) {
	t.Parallel()
	o := goal.Outcome{Status: "blocked", Verdict: "failed", Kind: "workFailed", Reason: "verdict gate failed",
		Problems: []string{"[claim] x.go: not staged"}, Hints: []string{"change_strategy", "switch_specialist"}, Suggested: "SATURN",
		Handoff: &board.Handoff{Summary: "tried", Constraints: []string{"keep the API"}, Artifacts: []uint64{3}}}
	line := o.Line()
	for _, want := range []string{"blocked, verdict failed (workFailed)", "why: verdict gate failed", "evidence: [claim] x.go",
		"hints: change_strategy, switch_specialist", "suggested agent: SATURN", "handoff: tried", "constraints: keep the API", "artifacts: a3"} {
		assert.Contains(t, line, want)
	}
	done := goal.Outcome{Status: "done", Verdict: "passed", ChangesetID: 4}
	assert.Equal(t, "done, verdict passed; changeset 4 staged", done.Line())

	// The failed run's hypothesis reaches the lead, next to its hints.
	o.Hypothesis = "no write permission on out/r.md: the file or its directory is not writable for nova"
	assert.Contains(t, o.Line(), "likely cause: no write permission on out/r.md")
	done.Hypothesis = "stale"
	assert.NotContains(t, done.Line(), "likely cause", "a done task has none to report")
}

// Whatever JSON the lead sends, decoding and validating it never panics, and
// an accepted delegation always names a roster agent other than the lead and
// a bounded task.
func FuzzValidateDecision(f *testing.F) {
	f.Add(`{"action":"delegate","reasoning":"r","agent":"MARS","task":"write it","includeArtifacts":["a1"]}`)
	f.Add(`{"action":"complete","summary":"s","resolveBlockers":["b1"]}`)
	f.Add(`{"action":"escalate","question":"?"}`)
	f.Add(`{"action":"delegate","agent":"SUN","task":"\u0000"}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, in string) {
		var d goal.Decision
		if json.Unmarshal([]byte(in), &d) != nil {
			return
		}
		v, err := goal.Validate(d, check())
		if err != nil {
			if !goal.IsRejected(err) {
				t.Fatalf("not a rejection: %v", err)
			}
			return
		}
		if v.Action == goal.ActionDelegate {
			if v.Agent == "" || strings.EqualFold(v.Agent, "SUN") || len([]rune(v.Task)) > goal.MaxTaskChars || strings.TrimSpace(v.Task) == "" {
				t.Fatalf("accepted a bad delegation: %+v", v)
			}
		}
	})
}

func TestValidateReadsConfidence(t *testing.T) {
	t.Parallel()
	c := check()
	c.MinConfidence = 0.5
	f := func(v float64) *float64 { return &v }
	v, err := goal.Validate(goal.Decision{Action: "delegate", Agent: "MARS", Task: "write it", Confidence: f(0.2), Reasoning: "maybe MARS"}, c)
	require.NoError(t, err)
	assert.Equal(t, goal.ActionEscalate, v.Action, "an unsure delegation asks the user")
	assert.Contains(t, v.Question, "delegate to MARS: write it")
	assert.Contains(t, v.Question, "maybe MARS")
	assert.Empty(t, v.Agent)

	v, err = goal.Validate(goal.Decision{Action: "complete", Summary: "s", Confidence: f(0.4)}, c)
	require.NoError(t, err)
	assert.Equal(t, goal.ActionEscalate, v.Action)
	assert.Contains(t, v.Question, "whether to complete the goal")

	v, err = goal.Validate(goal.Decision{Action: "escalate", Question: "q?", Confidence: f(0.1)}, c)
	require.NoError(t, err)
	assert.Equal(t, "q?", v.Question, "a question stays a question")

	v, err = goal.Validate(goal.Decision{Action: "delegate", Agent: "MARS", Task: "t", Confidence: f(-3)}, c)
	require.NoError(t, err)
	assert.Equal(t, goal.ActionDelegate, v.Action, "junk confidence is ignored, not obeyed")
	assert.Nil(t, v.Confidence)
	assert.Contains(t, v.Notes[0], "ignored -3")

	c.MinConfidence = 0
	v, err = goal.Validate(goal.Decision{Action: "delegate", Agent: "MARS", Task: "t", Confidence: f(0)}, c)
	require.NoError(t, err)
	assert.Equal(t, goal.ActionDelegate, v.Action, "a threshold of 0 never asks")
}
