package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
)

func TestRehearsalsThroughFacade(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "calc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "calc", "calc.go"), []byte("package calc\n"), 0o644))
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"),
		ollamatest.WithHandler(rehearsaltest.Handler(rehearsaltest.Three(), 0, nil)))
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true,
		Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL(), "NOVA_TIER": "premium"})})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := ws.Subscribe(ctx)

	ss, err := ws.Rehearsals().Rehearse(ctx, rehearsal.Request{
		Task: prd.Task{ID: "T1", Title: "Totals", Description: "Add a Total function (schema change)", Agent: "MARS"}})
	require.NoError(t, err)
	assert.Equal(t, rehearsal.StatusPending, ss.Status)
	sum, err := ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, sum.Rehearsals)
	assert.Equal(t, 1, sum.PendingApprovals, "a waiting rehearsal is a pending approval")

	var got engine.Event
	for ev := range events {
		if ev.Topic == engine.TopicRehearsal {
			got = ev
			break
		}
	}
	assert.Equal(t, engine.EventNeedsApproval, got.Type)
	assert.Equal(t, "T1", got.TaskID)
	assert.Equal(t, string(rehearsal.StatusPending), got.Status)

	_, err = ws.Rehearsals().Approve(ctx, ss.ID, "1", rehearsal.ApproveOptions{})
	require.NoError(t, err)
	sum, err = ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, sum.PendingApprovals)
}
