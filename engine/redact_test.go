package engine_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// Issue 26, finding 1: the lead's free-text reasoning repeated a token it
// had read into the `--json` progress of a goal run (and into the stored
// turns and the board's note). Every event is redacted as it is published.
func TestGoalRunJSONProgressCarriesNoSecrets(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "")
	const token = "ghp_R8sT2vW4xY6zA1bC3dE5fG7hJ9kL0mN2pQ4r"
	const password = "Tk4wQz81Lm"
	s := &leadScript{decisions: []string{
		decision(t, map[string]any{"action": "delegate", "agent": "MARS",
			"reasoning": "The README says the deploy token is " + token + "; MARS writes the deploy note.",
			"task":      "Write a short deploy note. Text only."}),
		decision(t, map[string]any{"action": "complete", "reasoning": "Done; the staging password is " + password + " as the note says.",
			"summary": "the deploy note is written"}),
	}}
	s.agent = func(string, bool) ollamatest.Reply { return ollamatest.Text("Deploy note: run make deploy.") }
	srv.SetHandler(s.handle)
	ctx := t.Context()
	events := ws.Subscribe(ctx)
	r, err := ws.CreateGoalRun(ctx, "write the deploy note", engine.GoalRunOptions{})
	require.NoError(t, err)
	got, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{Approvals: engine.ApproveNone})
	require.NoError(t, err)
	require.Equal(t, goal.StatusCompleted, got.Status, got.Reason)

	var lines []string
	timeout := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-events:
			line, err := json.Marshal(ev) // what `nova run --json` prints
			require.NoError(t, err)
			lines = append(lines, string(line))
			done = ev.Topic == engine.TopicGoal && ev.Type == engine.EventDone
		case <-timeout:
			t.Fatalf("no end event after %d events", len(lines))
		}
	}
	sawDecision := false
	for _, l := range lines {
		assert.NotContains(t, l, token)
		assert.NotContains(t, l, password)
		if strings.Contains(l, `"leadDecision"`) && strings.Contains(l, `\u003credacted\u003e`) {
			sawDecision = true
		}
	}
	assert.True(t, sawDecision, "the decision event still reads, with the token redacted")

	d, err := ws.GetGoalRun(ctx, r.ID)
	require.NoError(t, err)
	stored, err := json.Marshal(d)
	require.NoError(t, err)
	assert.NotContains(t, string(stored), token, "the stored turns and the board's note are redacted too")
	assert.NotContains(t, string(stored), password)
}
