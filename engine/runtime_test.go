package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

func openWithFake(t *testing.T, config string) (*engine.Local, *ollamatest.Server, string) {
	t.Helper()
	root := newWorkspace(t)
	if config != "" {
		require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), []byte(config), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644))
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()}), NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	return ws, srv, root
}

// collect gathers events of a topic until the terminal one of a run.
func collect(t *testing.T, ch <-chan engine.Event, until func(engine.Event) bool) []engine.Event {
	t.Helper()
	var out []engine.Event
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev)
			if until(ev) {
				return out
			}
		case <-deadline:
			t.Fatalf("timed out; got %d events", len(out))
		}
	}
}

func TestRunAgentPublishesEventsAndStagesChanges(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "")
	srv.Enqueue(
		ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "health.go", "content": "package main\n"})),
		ollamatest.Text("Added health.go."),
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := ws.Subscribe(ctx)

	res, err := ws.RunAgent(ctx, "mars", "add a health check", engine.RunOptions{Op: "op-1"})
	require.NoError(t, err)
	require.True(t, res.Outcome.OK, "%+v", res.Outcome.Failure)
	require.NotZero(t, res.ChangesetID)
	runID := strconv.FormatUint(res.ID, 10)

	evs := collect(t, ch, func(ev engine.Event) bool { return ev.Type == engine.EventDone })
	var sawChanges, sawTool bool
	for _, ev := range evs {
		switch ev.Topic {
		case engine.TopicAgent:
			assert.Equal(t, runID, ev.RunID)
			assert.Equal(t, "op-1", ev.Op, "every event of the run carries the caller's op")
			if p := ev.Agent; p != nil && p.Type == agents.EventToolCall {
				sawTool = true
				assert.Equal(t, engine.EventLog, ev.Type)
				assert.Contains(t, ev.Text, "writeFile")
			}
		case engine.TopicChanges:
			sawChanges = true
			assert.Equal(t, engine.EventChanged, ev.Type)
		}
	}
	assert.True(t, sawTool)
	assert.True(t, sawChanges)
	last := evs[len(evs)-1]
	assert.Equal(t, engine.EventDone, last.Type)
	require.NotNil(t, last.Agent)
	require.NotNil(t, last.Agent.Run)
	// The terminal event comes after the commit: the stored run is final.
	stored, err := ws.Runs().Get(ctx, res.ID)
	require.NoError(t, err)
	assert.Equal(t, agents.RunDone, stored.Status)
	replay, err := ws.RunEvents(ctx, res.ID)
	require.NoError(t, err)
	require.NotEmpty(t, replay)
	assert.Equal(t, agents.EventDone, replay[len(replay)-1].Type)

	sum, err := ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, sum.PendingApprovals, "a pending changeset waits for approval")

	_, err = ws.Changes().Apply(ctx, res.ChangesetID, changes.ApplyOptions{})
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "health.go"))
	require.NoError(t, err)
	assert.Equal(t, "package main\n", string(data))
	sum, err = ws.Summary(ctx)
	require.NoError(t, err)
	assert.Zero(t, sum.PendingApprovals)
}

func TestRunAgentApprovalThroughEvents(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/echo"); err != nil {
		t.Skip("needs /bin/echo")
	}
	ws, srv, _ := openWithFake(t, "autonomy: 2\ncommands:\n  allow: [echo]\n")
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				return ollamatest.Text("observed: " + m.Content)
			}
		}
		return ollamatest.ToolCalls(ollamatest.Call("runCommand", map[string]any{"command": "echo approved-run"}))
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := ws.Subscribe(ctx)
	// The TUI's part: answer the needsApproval event.
	go func() {
		for ev := range ch {
			if ev.Type == engine.EventNeedsApproval {
				req := ev.Approval
				if !assert.NotNil(t, req) {
					return
				}
				assert.Equal(t, "echo approved-run", req.Command)
				pending, err := ws.PendingApprovals(ctx)
				assert.NoError(t, err)
				assert.Len(t, pending, 1)
				assert.NoError(t, ws.AnswerApproval(ctx, req.ID, true))
				return
			}
		}
	}()
	res, err := ws.RunAgent(ctx, "MARS", "run echo", engine.RunOptions{})
	require.NoError(t, err)
	require.True(t, res.Outcome.OK)
	assert.Contains(t, res.Outcome.Result, "approved-run")
	assert.ErrorIs(t, ws.AnswerApproval(ctx, "nope", true), engine.ErrNoSuchApproval)
}

func TestRunAgentErrors(t *testing.T) {
	t.Parallel()
	ws, _, root := openWithFake(t, "")
	ctx := context.Background()
	_, err := ws.RunAgent(ctx, "NOPE", "x", engine.RunOptions{})
	assert.ErrorIs(t, err, agents.ErrUnknownAgent)
	_, err = ws.RunAgent(ctx, "MARS", "x", engine.RunOptions{Tier: "embed"})
	assert.Error(t, err)

	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "agents", "MARS.yaml"), []byte("schema: kb.specialist/1\nid: MARS\nrole: [\n"), 0o644))
	roster, errs := ws.Agents()
	assert.NotEmpty(t, errs, "load errors are kept")
	assert.False(t, roster.Has("MARS"))
	assert.True(t, roster.Has("VENUS"))
	_, err = ws.RunAgent(ctx, "MARS", "x", engine.RunOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "MARS.yaml")
}
