package remote_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/engine/vault"
)

// wireGolden lists the wire method names served before engine.Workspace
// was split into area interfaces (engine/area_*.go): the names an old
// client of the socket calls. Names are only ever added to the wire, so
// the list is not updated when a verb is added.
const wireGolden = "testdata/wire_methods.golden"

// TestOldClientsStillServed: every method an older nova's client calls is
// still served under the same name by today's owner, and today's generated
// client calls nothing else under a new name for an old verb.
func TestOldClientsStillServed(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(wireGolden)
	require.NoError(t, err)
	old := strings.Fields(string(data))
	require.Greater(t, len(old), 100)
	srv, err := rpc.NewServer[engine.Workspace](openLocal(t), rpc.ServerOptions{})
	require.NoError(t, err)
	served := srv.Methods()
	for _, name := range old {
		assert.Contains(t, served, name, "an old client calls %s: the wire name must stay", name)
	}
	for _, sk := range srv.Skipped() {
		assert.Equal(t, "Close", sk.Name, "only Close stays in the owner: %s", sk.Reason)
	}
}

// TestOldClientRoundTrip calls the owner the way an older client does, by
// wire name with positional JSON arguments and no generated code, across
// several areas, and compares with the in-process answers.
func TestOldClientRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	local := openLocal(t)
	c := serveClient(t, local)

	var learned vault.LearnResult
	require.NoError(t, c.Call(ctx, "LearnNode", []any{vault.Node{Type: vault.Pattern, Title: "wire names stay", Content: "old clients call verbs by their wire names"}},
		[]any{&learned}, rpc.CallOptions{}))
	require.NotZero(t, learned.Node.ID)

	var got vault.Node
	require.NoError(t, c.Call(ctx, "GetNode", []any{learned.Node.ID}, []any{&got}, rpc.CallOptions{Idempotent: true}))
	want, err := local.GetNode(ctx, learned.Node.ID)
	require.NoError(t, err)
	assert.Equal(t, asJSON(t, want), asJSON(t, got))

	var stats vault.Stats
	require.NoError(t, c.Call(ctx, "VaultStats", nil, []any{&stats}, rpc.CallOptions{Idempotent: true}))
	assert.Equal(t, 1, stats.Nodes)

	var sum engine.Summary
	require.NoError(t, c.Call(ctx, "Summary", nil, []any{&sum}, rpc.CallOptions{Idempotent: true}))
	assert.Equal(t, 1, sum.VaultNodes)

	var wf engine.WorkflowList
	require.NoError(t, c.Call(ctx, "ListWorkflows", nil, []any{&wf}, rpc.CallOptions{}))
	lw, err := local.ListWorkflows(ctx)
	require.NoError(t, err)
	assert.Equal(t, asJSON(t, lw), asJSON(t, wf))

	var builds []map[string]any
	require.NoError(t, c.Call(ctx, "ListBuilds", nil, []any{&builds}, rpc.CallOptions{Idempotent: true}))
	assert.Empty(t, builds)

	err = c.Call(ctx, "GetNode", []any{uint64(999)}, []any{&got}, rpc.CallOptions{Idempotent: true})
	require.ErrorIs(t, err, vault.ErrNotFound)
}
