package facts_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// Racing writes of one process must keep the in-memory snapshot in step
// with the file: before the fix, two writes could reach the snapshot in the
// other order than they committed, after which every later write was left
// out of the snapshot and every search re-read the whole file (issue 26,
// finding 6).
func TestRacingCorrectionsKeepTheSnapshotInStep(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	_, err := fx.s.Search(ctx, "widget", facts.SearchOptions{})
	require.NoError(t, err)
	require.Equal(t, 1, facts.Rebuilds(fx.s), "the first search reads the file once")

	// Three episodes: 40 facts, then three racing corrections of each (one
	// wins) and racing additions, then a search.
	const episodes, perEpisode = 3, 40
	for ep := range episodes {
		var ids []string
		for i := range perEpisode {
			ids = append(ids, add(t, fx, fmt.Sprintf("fact %d.%d about the widget cache", ep, i), facts.Workspace()).ID)
		}
		var wg sync.WaitGroup
		for _, id := range ids {
			for range 3 {
				wg.Go(func() { _, _ = fx.s.Correct(ctx, id, "outdated", "corrected "+id+" gadget", facts.Source{}) })
			}
			wg.Go(func() { _, _ = fx.s.Add(ctx, facts.NewFact{Content: "racing addition " + id}) })
		}
		wg.Wait()
		_, err := fx.s.Search(ctx, "gadget", facts.SearchOptions{})
		require.NoError(t, err)
	}
	for i := range 20 {
		_, err := fx.s.Add(ctx, facts.NewFact{Content: fmt.Sprintf("later fact %d sprocket", i)})
		require.NoError(t, err)
		res, err := fx.s.Search(ctx, "sprocket", facts.SearchOptions{Limit: 50})
		require.NoError(t, err)
		assert.Len(t, res.Facts, i+1)
	}
	list, err := fx.s.List(ctx, facts.ListOptions{IncludeInvalidated: true})
	require.NoError(t, err)
	assert.Len(t, list.Facts, episodes*perEpisode*3+20, "every fact, old and new, is in the snapshot")
	assert.Equal(t, 1, facts.Rebuilds(fx.s), "writes of this process never make a search re-read the file")
}
