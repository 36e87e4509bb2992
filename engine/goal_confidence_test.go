package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// An unsure lead asks the user before acting; the next run's lead reads
// each specialist's record on tasks like its goal.
func TestGoalRunAsksWhenTheLeadIsUnsureAndCarriesRecords(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "")
	s := &leadScript{decisions: []string{
		decision(t, map[string]any{"action": "delegate", "reasoning": "EARTH writes specs, but this may be code.", "agent": "EARTH",
			"task": "Describe the health endpoint's response format.", "confidence": 0.1}),
		decision(t, map[string]any{"action": "delegate", "reasoning": "The user agreed.", "agent": "EARTH",
			"task": "Describe the health endpoint's response format.", "confidence": 90}),
		decision(t, map[string]any{"action": "complete", "reasoning": "Described.", "summary": "The format is described.", "confidence": 0.95}),
	}}
	s.agent = func(string, bool) ollamatest.Reply {
		return ollamatest.Text("The health endpoint answers 200 with a JSON body {\"status\":\"ok\"}.")
	}
	srv.SetHandler(s.handle)
	ctx := t.Context()
	r, err := ws.CreateGoalRun(ctx, "describe the health endpoint response", engine.GoalRunOptions{})
	require.NoError(t, err)
	got, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	require.Equal(t, goal.StatusPaused, got.Status, got.Reason)
	assert.Contains(t, got.Question, "I am unsure (confidence 0.10) whether to delegate to EARTH")
	d, err := ws.GetGoalRun(ctx, r.ID)
	require.NoError(t, err)
	require.Len(t, d.Turns, 1)
	assert.Empty(t, d.Turns[0].TaskID, "nothing was delegated before the user answered")
	require.NotEmpty(t, d.Turns[0].Notes)
	assert.Contains(t, d.Turns[0].Notes[0], "below orchestrator.minConfidence 0.30")

	_, err = ws.AnswerGoalRun(ctx, r.ID, "yes, go ahead")
	require.NoError(t, err)
	got, err = ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	require.Equal(t, goal.StatusCompleted, got.Status, got.Reason)
	d, err = ws.GetGoalRun(ctx, r.ID)
	require.NoError(t, err)
	require.Len(t, d.Turns, 3)
	assert.Contains(t, d.Turns[1].Notes, "confidence: read 90 as 0.90 (a value from 0 to 1)")
	assert.NotEmpty(t, d.Turns[1].TaskID, "the confident delegation ran")

	// A second run on a like goal: the lead reads EARTH's record.
	s.mu.Lock()
	s.decisions = []string{decision(t, map[string]any{"action": "complete", "reasoning": "r", "summary": "ok"})}
	s.mu.Unlock()
	r2, err := ws.CreateGoalRun(ctx, "describe the health endpoint errors", engine.GoalRunOptions{})
	require.NoError(t, err)
	_, err = ws.RunGoal(ctx, r2.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	prompts := s.leadPrompts()
	last := prompts[len(prompts)-1]
	assert.Contains(t, last, "- EARTH: ")
	assert.Contains(t, last, "record: 1 done, 0 failed, 1.0 attempts on average; on tasks like this goal 1 of 1 done")
}
