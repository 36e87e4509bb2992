package importer

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine/vault"
)

// distinctLib writes n pattern files different enough not to be duplicates.
func distinctLib(tb testing.TB, n int) string {
	tb.Helper()
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("%02d-area/pattern-%04d.md", i%7, i)] = pattern(
			fmt.Sprintf("Pattern %d about topic %x", i, i*7919),
			fmt.Sprintf("Rule %d: %s keeps %s apart from %s.", i, word(i), word(i*3+1), word(i*5+2)))
	}
	return writeLib(tb, files)
}

func word(i int) string {
	ws := []string{"caching", "retries", "logging", "schemas", "tokens", "queues", "widgets", "budgets", "locks",
		"handlers", "errors", "contexts", "fixtures", "deploys", "metrics", "tenants", "sessions", "paging"}
	return fmt.Sprintf("%s-%d", ws[i%len(ws)], i)
}

// Regression (issue 10): on the free tier an import over the cap succeeded.
// Now it is refused with nothing written, and the dry run says the same.
func TestImportOverTheCapIsRefusedWithNothingWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, Config{})
	_, err := e.v.AddBatch(ctx, func() []vault.Node {
		ns := make([]vault.Node, 480)
		for i := range ns {
			ns[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("already here %d", i)}
		}
		return ns
	}())
	require.NoError(t, err)
	dir := distinctLib(t, 30)
	before := e.snapshot(t)

	dry, err := e.im.Import(ctx, DirSource(dir), Options{DryRun: true, NoDedup: true})
	require.ErrorIs(t, err, vault.ErrOverCap, "a dry run reports the refusal")
	require.NotNil(t, dry.OverCap)
	assert.Equal(t, 510, dry.OverCap.Would)
	assert.Equal(t, 30, dry.New, "the report is there beside the error")

	_, err = e.im.Import(ctx, DirSource(dir), Options{NoDedup: true})
	require.ErrorIs(t, err, vault.ErrOverCap)
	for _, want := range []string{"free tier", "500", "510", "tier: premium", "NOVA_TIER=premium"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.Equal(t, before, e.snapshot(t), "nothing was written")
	batches, err := e.im.Batches(ctx)
	require.NoError(t, err)
	assert.Empty(t, batches)

	// Within the cap the same import goes through.
	small := distinctLib(t, 20)
	res, err := e.im.Import(ctx, DirSource(small), Options{NoDedup: true})
	require.NoError(t, err)
	assert.Equal(t, 20, res.NodesAdded)
}

// Regression (issue 10): `nova init` re-imported starter patterns the user
// had forgotten. A forgotten node leaves a tombstone the import honours.
func TestForgottenStarterPatternStaysForgotten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, Config{})
	sub, err := fsSub(nova.Defaults, ".nova/patterns")
	require.NoError(t, err)
	src := FSSource("embedded:.nova/patterns", sub)
	first, err := e.im.Import(ctx, src, Options{User: StarterUser})
	require.NoError(t, err)
	require.NotZero(t, first.NodesAdded)
	var victim NodeReport
	for _, n := range first.Nodes {
		if n.Action == ActionNew && n.ParentSource == "" {
			victim = n
			break
		}
	}
	require.NotZero(t, victim.ID)
	require.NoError(t, e.v.Remove(ctx, victim.ID), "the user forgets one starter pattern")
	nodesBefore := e.stats(t).Nodes

	again, err := e.im.Import(ctx, src, Options{User: StarterUser})
	require.NoError(t, err)
	rep := reportsBySource(again)[victim.SourceFile]
	assert.Equal(t, ActionSkipped, rep.Action)
	assert.Contains(t, rep.Reason, "forgotten")
	assert.Equal(t, 1, again.Forgotten)
	assert.Zero(t, again.NodesAdded)
	assert.Zero(t, again.Batch, "nothing to write")
	assert.Equal(t, nodesBefore, e.stats(t).Nodes)

	// The dry run agrees.
	dry, err := e.im.Import(ctx, src, Options{User: StarterUser, DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, ActionSkipped, reportsBySource(dry)[victim.SourceFile].Action)
}

// A node the tier cap archived is not imported twice; the batch that added
// it is shown as partial, never as intact; undo removes it from the archive.
func TestArchivedImportNodesAndBatchState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, Config{})
	dir := distinctLib(t, 10)
	res, err := e.im.Import(ctx, DirSource(dir), Options{NoDedup: true, BaseConfidence: 0.3})
	require.NoError(t, err)
	require.Equal(t, 10, res.NodesAdded)
	fill := make([]vault.Node, 490)
	for i := range fill {
		fill[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("filler %d", i), Confidence: 0.95}
	}
	_, err = e.v.AddBatch(ctx, fill)
	require.NoError(t, err)

	// A build learns at a confidence above the imported nodes: one is archived.
	rs, err := e.v.LearnAs(ctx, vault.ByLearning, vault.Node{Type: vault.Strategy, Content: "learned lesson", Confidence: 0.9})
	require.NoError(t, err)
	require.Len(t, rs[0].Evicted, 1)
	archived := rs[0].Evicted[0]

	b, err := e.im.Batch(ctx, res.Batch)
	require.NoError(t, err)
	assert.Equal(t, BatchPartial, b.State, "not shown as intact")
	assert.Equal(t, 9, b.Present)
	assert.Equal(t, 1, b.Archived)
	list, err := e.im.Batches(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, BatchPartial, list[0].State)

	again, err := e.im.Import(ctx, DirSource(dir), Options{NoDedup: true, BaseConfidence: 0.3})
	require.NoError(t, err)
	assert.Equal(t, 1, again.Archived, "the archived file is not imported a second time")
	assert.Zero(t, again.NodesAdded)

	u, err := e.im.Undo(ctx, res.Batch)
	require.NoError(t, err)
	assert.Equal(t, 9, u.NodesRemoved)
	assert.Equal(t, 1, u.ArchivedRemoved)
	_, err = e.v.ArchivedNodeByID(ctx, archived)
	assert.ErrorIs(t, err, vault.ErrNotFound, "undo takes the batch's archived node with it")
	b, err = e.im.Batch(ctx, res.Batch)
	require.NoError(t, err)
	assert.Equal(t, BatchUndone, b.State)
}
