package changes_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/changes"
)

// Issue 32: a changeset whose files were already on disk in their proposed
// form when it was applied (its apply wrote nothing) still has an apply
// record: its revert gives back what the files were staged over, and never
// says it was applied by an older nova.
func TestRevertOfAnApplyThatWroteNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	d := f.store.NewDraft(changes.Meta{Agent: "MARS", Task: "edit a"})
	id, err := d.Put(ctx, "a.txt", []byte("A changed\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "b.txt", []byte("B new\n"))
	require.NoError(t, err)
	// Something else wrote the proposal first (a rehearsal, the user).
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "a.txt"), []byte("A changed\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "b.txt"), []byte("B new\n"), 0o644))
	rep, err := f.store.Apply(ctx, id, changes.ApplyOptions{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"a.txt", "b.txt"}, rep.Applied)

	rv, err := f.store.Revert(ctx, id, changes.RevertOptions{})
	require.NoError(t, err, "not refused as applied by an older nova")
	assert.Equal(t, "A original\n", f.read(t, "a.txt"))
	assert.NoFileExists(t, filepath.Join(f.root, "b.txt"))
	assert.Equal(t, []string{"a.txt"}, rv.Restored)
	assert.Equal(t, []string{"b.txt"}, rv.Removed)
}

// Issue 32: --force reports a file it overwrote once, in the revert's
// words: a created file changed since the apply is removed, its reason is
// "modified since the apply", never the apply's "modified on disk".
func TestForcedRevertReportsEachFileOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	id := applied(t, f)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "new/b.txt"), []byte("B new, then mine\n"), 0o644))
	rep, err := f.store.Revert(ctx, id, changes.RevertOptions{Force: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"new/b.txt"}, rep.Removed)
	require.Len(t, rep.Overwritten, 1)
	assert.Equal(t, changes.Conflict{Path: "new/b.txt", Reason: "modified since the apply"}, rep.Overwritten[0])
}

// Issue 32: a change reverted and brought back (its revert reverted) is
// undone by reverting the last link; asking to revert the original points
// there, not at the first revert.
func TestRevertOfARevertedChangePointsToTheLastLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	id := applied(t, f)
	r1, err := f.store.Revert(ctx, id, changes.RevertOptions{})
	require.NoError(t, err)
	_, err = f.store.Revert(ctx, id, changes.RevertOptions{})
	require.ErrorIs(t, err, changes.ErrReverted)
	assert.Contains(t, err.Error(), "revert "+itoa(r1.Revert.ID)+" to bring the change back")

	r2, err := f.store.Revert(ctx, r1.Revert.ID, changes.RevertOptions{})
	require.NoError(t, err)
	assert.Equal(t, "A changed\n", f.read(t, "a.txt"), "the change is back")
	_, err = f.store.Revert(ctx, id, changes.RevertOptions{})
	require.ErrorIs(t, err, changes.ErrReverted)
	assert.Contains(t, err.Error(), "brought back by changeset "+itoa(r2.Revert.ID))
	assert.Contains(t, err.Error(), "revert "+itoa(r2.Revert.ID)+" to undo the change again")

	r3, err := f.store.Revert(ctx, r2.Revert.ID, changes.RevertOptions{})
	require.NoError(t, err)
	_, err = f.store.Revert(ctx, id, changes.RevertOptions{})
	assert.Contains(t, err.Error(), "undone again by changeset "+itoa(r3.Revert.ID))
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
