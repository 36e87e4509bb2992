package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/vault"
)

// Regression (issue 10): evictions were reported one line per node. The
// tier cap's archive moves are reported once per write, as a count.
func TestArchivedNodesAreReportedOnceAsACount(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := t.Context()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	v := ws.Vault()
	nodes := make([]vault.Node, 498)
	for i := range nodes {
		nodes[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("sturdy rule %d", i), Confidence: 0.95}
	}
	_, err = v.AddBatch(ctx, nodes)
	require.NoError(t, err)
	for i := range 2 {
		_, err := v.Add(ctx, vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("weak rule %d", i), Confidence: 0.1})
		require.NoError(t, err)
	}

	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	events := ws.Subscribe(sub)
	_, err = v.LearnAs(ctx, vault.ByLearning,
		vault.Node{Type: vault.Mistake, Content: "lesson one", Confidence: 0.9},
		vault.Node{Type: vault.Mistake, Content: "lesson two", Confidence: 0.9},
		vault.Node{Type: vault.Mistake, Content: "lesson three", Confidence: 0.9})
	require.NoError(t, err)

	var archived, notStored []engine.Event
	deadline := time.After(5 * time.Second)
	for len(archived) == 0 || len(notStored) == 0 {
		select {
		case ev := <-events:
			switch ev.Type {
			case engine.EventNodesArchived:
				archived = append(archived, ev)
			case engine.EventNodesNotStored:
				notStored = append(notStored, ev)
			}
		case <-deadline:
			t.Fatalf("missing events: archived %d, not stored %d", len(archived), len(notStored))
		}
	}
	require.Len(t, archived, 1, "one event for the write")
	assert.Equal(t, 2, archived[0].Done, "two nodes were less confident")
	assert.Contains(t, archived[0].Text, "vault archive list")
	assert.Equal(t, 1, notStored[0].Done, "the third lesson found no room")
	assert.Equal(t, "nodesArchived", string(engine.EventNodesArchived), "lowerCamelCase noun")
}
