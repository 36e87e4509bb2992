package engine_test

import (
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
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

// The token budget is split by role: a role whose share is spent takes no
// more delegations, and the lead's own share stops the run.
func TestGoalRunSplitsItsBudgetByRole(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "orchestrator:\n  maxTokens: 10000\n  budgetShares: {lead: 40, research: 30, implement: 60}\n")
	s := &leadScript{decisions: []string{
		decision(t, map[string]any{"action": "delegate", "reasoning": "Find it first.", "agent": "researcher", "task": "Where is serve defined?"}),
		decision(t, map[string]any{"action": "delegate", "reasoning": "Again.", "agent": "researcher", "task": "Where is main defined?"}),
		decision(t, map[string]any{"action": "complete", "reasoning": "Known.", "summary": "serve is in main.go."}),
	}}
	s.agent = func(string, bool) ollamatest.Reply {
		r := ollamatest.Text("serve is defined in main.go.")
		r.PromptTokens, r.EvalTokens = 3200, 100 // more than the research share of 3000
		return r
	}
	srv.SetHandler(s.handle)
	ctx := t.Context()
	r, err := ws.CreateGoalRun(ctx, "find serve", engine.GoalRunOptions{})
	require.NoError(t, err)
	got, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	require.Equal(t, goal.StatusCompleted, got.Status, got.Reason)
	assert.Equal(t, 3300, got.RoleTokens[goal.RoleResearch])
	d, err := ws.GetGoalRun(ctx, r.ID)
	require.NoError(t, err)
	require.Len(t, d.Turns, 3)
	assert.Equal(t, goal.TurnRejected, d.Turns[1].Kind)
	assert.Contains(t, d.Turns[1].Rejected, "the research share of the token budget is spent (3300 of 3000 tokens, orchestrator.budgetShares.research)")

	// The lead's share: 40% of 10000 tokens, spent by its own turns.
	s.mu.Lock()
	s.decisions = nil
	s.mu.Unlock()
	srv.SetHandler(func(n int, req api.ChatRequest) ollamatest.Reply {
		r := s.handle(n, req)
		if strings.Contains(req.Messages[0].Content, "the lead of a team") {
			r.PromptTokens = 5000
		}
		return r
	})
	r2, err := ws.CreateGoalRun(ctx, "anything", engine.GoalRunOptions{})
	require.NoError(t, err)
	s.mu.Lock()
	s.decisions = []string{decision(t, map[string]any{"action": "delegate", "reasoning": "r", "agent": "researcher", "task": "Look."})}
	s.mu.Unlock()
	got, err = ws.RunGoal(ctx, r2.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusStopped, got.Status)
	assert.Contains(t, got.Reason, "the lead used its share of the token budget")
}
