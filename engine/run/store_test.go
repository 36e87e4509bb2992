package run_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/storage"
)

func openDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func put(t *testing.T, db *storage.DB, recs ...run.Record) {
	t.Helper()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for _, r := range recs {
			if err := run.Put(tx, r); err != nil {
				return err
			}
		}
		return nil
	}))
}

func TestPutKeepsCreatedAndParentAndAdoptSetsIt(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := t.Context()
	created := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	b := run.Key{Kind: run.KindBuild, ID: 3}
	w := run.Key{Kind: run.KindWorkflow, ID: 1}
	put(t, db, run.Record{Kind: b.Kind, ID: b.ID, Status: run.Pending, Title: "step", Created: created})
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		require.NoError(t, run.Adopt(tx, run.Key{Kind: run.KindBuild, ID: 99}, w), "a child not indexed is left alone")
		return run.Adopt(tx, b, w)
	}))
	put(t, db, run.Record{Kind: b.Kind, ID: b.ID, Status: run.Running, Title: "step"})
	r, err := run.NewIndex(db).Get(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, run.Running, r.Status)
	assert.Equal(t, created, r.Created.UTC(), "a zero Created keeps the stored one")
	assert.Equal(t, w, r.Parent, "a zero Parent keeps the adopted one")
	assert.False(t, r.Updated.IsZero())
	_, err = run.NewIndex(db).Get(ctx, w)
	require.ErrorIs(t, err, run.ErrNoRecord)
}

func TestInterruptOnOpenAndResumable(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := t.Context()
	put(t, db,
		run.Record{Kind: run.KindBuild, ID: 1, Status: run.Running, Title: "api"},
		run.Record{Kind: run.KindBuild, ID: 2, Status: run.Waiting, Title: "led", Parent: run.Key{Kind: run.KindGoal, ID: 1}},
		run.Record{Kind: run.KindBuild, ID: 3, Status: run.Done, Title: "old"},
		run.Record{Kind: run.KindGoal, ID: 1, Status: run.Running, Title: "goal"},
		run.Record{Kind: run.KindWorkflow, ID: 1, Status: run.Paused, Title: "review"},
		run.Record{Kind: run.KindChat, ID: 1, Status: run.Failed, Title: "chat"},
	)
	x := run.NewIndex(db)
	changed, err := x.Interrupt(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, []run.Key{{Kind: run.KindBuild, ID: 1}, {Kind: run.KindBuild, ID: 2}, {Kind: run.KindGoal, ID: 1}}, changed)
	again, err := x.Interrupt(ctx)
	require.NoError(t, err)
	assert.Empty(t, again, "a second open finds nothing to change")
	r, err := x.Get(ctx, run.Key{Kind: run.KindBuild, ID: 2})
	require.NoError(t, err)
	assert.Equal(t, run.Interrupted, r.Status)
	assert.Contains(t, r.Reason, "interrupted")

	reg := run.NewRegistry()
	c, err := reg.Claim(run.Key{Kind: run.KindWorkflow, ID: 1})
	require.NoError(t, err)
	todo, err := x.Resumable(ctx, reg)
	require.NoError(t, err)
	var keys []run.Key
	for _, r := range todo {
		keys = append(keys, r.Key())
	}
	assert.Equal(t, []run.Key{{Kind: run.KindGoal, ID: 1}, {Kind: run.KindBuild, ID: 1}}, keys,
		"runs first; the led build is its goal run's; active, done and failed runs are not resumed")
	reg.Release(c)
	todo, err = x.Resumable(ctx, reg, run.KindWorkflow)
	require.NoError(t, err)
	require.Len(t, todo, 1)
	assert.Equal(t, run.Paused, todo[0].Seen(false))

	builds, err := x.List(ctx, run.KindBuild)
	require.NoError(t, err)
	require.Len(t, builds, 3)
	assert.Equal(t, uint64(3), builds[0].ID, "newest first")
}

func TestRecordSeenIsOnOpenUnlessActive(t *testing.T) {
	t.Parallel()
	r := run.Record{Status: run.Running}
	assert.Equal(t, run.Running, r.Seen(true))
	assert.Equal(t, run.Interrupted, r.Seen(false))
}
