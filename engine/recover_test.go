package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

// Opening a workspace for writing completes an apply that a crash
// interrupted: the state a kill -9 leaves (the apply record in state
// "applying", one of two files written, the changeset pending) is made
// here by hand, then the next Open finishes it.
func TestOpenCompletesAnInterruptedApply(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("A original\n"), 0o644))
	ws, err := engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil), NoSync: true})
	require.NoError(t, err)
	d := ws.Changes().NewDraft(changes.Meta{Agent: "MARS"})
	id, err := d.Put(ctx, "a.txt", []byte("A proposed\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "b.txt", []byte("B proposed\n"))
	require.NoError(t, err)
	rec := changes.Applied{ChangesetID: id, State: changes.JournalApplying, StartedAt: time.Now(), Files: []changes.AppliedFile{
		{Path: "a.txt", Op: changes.OpModify, Before: []byte("A original\n"), BeforeHash: tools.SHA256([]byte("A original\n")),
			AfterHash: tools.SHA256([]byte("A proposed\n"))},
		{Path: "b.txt", Op: changes.OpCreate, BeforeHash: changes.Absent, AfterHash: tools.SHA256([]byte("B proposed\n"))},
	}}
	require.NoError(t, ws.DB().Update(func(tx *bolt.Tx) error {
		return storage.Codec[changes.Applied]{Version: 1}.Put(tx.Bucket(storage.BucketApplyJournal), storage.Key(id), rec)
	}))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("A proposed\n"), 0o644)) // written, then killed
	require.NoError(t, ws.Close())

	ro, err := engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil), ReadOnly: true})
	require.NoError(t, err)
	got, err := ro.RecoveredApplies()
	require.NoError(t, err)
	assert.Empty(t, got, "a read-only open changes nothing")
	require.NoError(t, ro.Close())

	ws, err = engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil), NoSync: true})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	got, err = ws.RecoveredApplies()
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, changes.StatusApplied, got[0].Status)
	assert.Equal(t, []string{"a.txt"}, got[0].AlreadyWritten)
	assert.Equal(t, []string{"b.txt"}, got[0].Completed)
	b, err := os.ReadFile(filepath.Join(root, "b.txt"))
	require.NoError(t, err)
	assert.Equal(t, "B proposed\n", string(b))
	cs, err := ws.Changes().Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusApplied, cs.Status)

	// The surfaces are told once.
	taken, err := ws.TakeRecoveredApplies(ctx)
	require.NoError(t, err)
	require.Len(t, taken.Applies, 1)
	assert.Equal(t, id, taken.Applies[0].ID)
	assert.Empty(t, taken.Problem)
	again, err := ws.TakeRecoveredApplies(ctx)
	require.NoError(t, err)
	assert.Empty(t, again.Applies, "reported once")
	assert.NotNil(t, again.Applies, "an empty list, not null")
}
