package agents_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// A run reports its progress after every tool call, and ends at 100.
func TestRunReportsProgress(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Enqueue(
		tc("readFile", map[string]any{"path": "main.go"}),
		tc("writeFile", map[string]any{"path": "ping.go", "content": "package main\n\nfunc ping() string { return \"pong\" }\n"}),
		ollamatest.Text("Added ping.go."),
	)
	r := h.run("Add a ping function.", spec())
	require.Equal(t, agents.RunDone, r.Status)
	evs := h.eventsOf(agents.EventProgress)
	require.Len(t, evs, 2)
	require.NotNil(t, evs[0].Progress)
	assert.Equal(t, 10, evs[0].Progress.Percent, "one read")
	assert.Equal(t, "stage the change", evs[0].Progress.Milestone)
	assert.Equal(t, 50, evs[1].Progress.Percent, "a change staged")
	assert.Contains(t, evs[1].Text, "50% · next: finish the change")
	require.NotNil(t, r.Progress)
	assert.Equal(t, 100, r.Progress.Percent)
}

// Calls that find nothing new make a run stuck: the first time it is told
// what it found (and moves up a tier), the second time it fails as stuck.
func TestARunThatFindsNothingNewIsStuck(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withSettings(func(s *agents.Settings) { s.StuckAfter = 3 }))
	var replies []ollamatest.Reply
	// One new read, then the same file by other spellings: the same output.
	replies = append(replies, tc("readFile", map[string]any{"path": "main.go"}))
	for i := range 8 {
		replies = append(replies, tc("readFile", map[string]any{"path": strings.Repeat("./", i+1) + "main.go"}))
	}
	h.srv.Enqueue(replies...)
	r := h.run("Find where serve is defined.", spec())
	require.Equal(t, agents.RunFailed, r.Status)
	f := r.Outcome.Failure
	require.NotNil(t, f)
	assert.Equal(t, agents.FailStuck, f.Kind)
	assert.Equal(t, "no_progress", f.Cause)
	assert.Contains(t, f.Message, "What this run found so far")
	assert.Contains(t, f.Message, "path main.go")

	// The first time, the model was told and the run moved up a tier.
	esc := h.eventsOf(agents.EventEscalate)
	require.Len(t, esc, 1)
	assert.Contains(t, esc[0].Text, "no progress")
	var told bool
	for _, req := range h.srv.ChatRequests() {
		for _, m := range toolMessages(req) {
			if strings.Contains(m, "Note from nova: your last 3 tool calls found nothing new") {
				told = true
			}
		}
	}
	assert.True(t, told, "the stuck note reached the model")
}

// After compression the findings are carried forward verbatim.
func TestFindingsOutliveCompression(t *testing.T) {
	t.Parallel()
	files := map[string]string{"go.mod": "module example.com/app\n\ngo 1.22\n"}
	for i := range 4 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat(fmt.Sprintf("line of file %d\n", i), 200)
	}
	h := newHarness(t, withFiles(files), withSettings(func(s *agents.Settings) {
		s.CompressAt, s.KeepRecent, s.ToolOutputBudget = 300, 2, 4000
	}))
	h.srv.Enqueue(
		tc("readFile", map[string]any{"path": "f0.txt"}),
		tc("readFile", map[string]any{"path": "f1.txt"}),
		tc("readFile", map[string]any{"path": "f2.txt"}),
		ollamatest.Text("summary of the reads"),
		tc("readFile", map[string]any{"path": "f3.txt"}),
		ollamatest.Text("All four files repeat one line."),
	)
	r := h.run("Describe the files.", spec(func(s *agents.Spec) { s.Tools = []string{"readFile"} }))
	require.Equal(t, agents.RunDone, r.Status, "%+v", r.Outcome.Failure)
	found := false
	for _, req := range h.srv.ChatRequests() {
		if c := allContent(req); strings.Contains(c, "Summary of the earlier steps") && strings.Contains(c, "What this run found so far") {
			found = strings.Contains(c, "path f0.txt")
		}
	}
	assert.True(t, found, "the findings follow the summary")
}

// A critical task that runs out of time hints a larger tier first.
func TestACriticalRunOutOfTimeHintsALargerTier(t *testing.T) {
	t.Parallel()
	for _, critical := range []bool{true, false} {
		h := newHarness(t)
		slow := ollamatest.Text("still thinking")
		slow.Latency = 3 * time.Second
		h.srv.Enqueue(slow)
		r := h.run("Add a ping function.", spec(func(s *agents.Spec) { s.Limits.Timeout = "200ms" }),
			func(o *agents.RunOptions) { o.Critical = critical })
		require.Equal(t, agents.RunFailed, r.Status)
		f := r.Outcome.Failure
		require.NotNil(t, f)
		assert.Equal(t, "run_timeout", f.Cause)
		if critical {
			assert.Equal(t, agents.HintEscalateModel, f.RecoveryHints[0], "critical: a larger tier first")
		} else {
			assert.NotContains(t, f.RecoveryHints, agents.HintEscalateModel)
		}
	}
}
