package vault_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// lateOps is a chunked import's work through ImportSteps: nodes with tags and statements
// (core entries) in three steps, the last of which replaces a node it added (new
// tags) and removes another (the full-text plan takes no change of an earlier step), then
// the full-text index.
// lateNode is node k of lateOps: a statement (a core entry) and two tags.
func lateNode(k int) vault.Node {
	return vault.Node{Type: vault.Pattern, Title: fmt.Sprint("note ", k),
		Content: fmt.Sprintf("Always check the retry budget of service %d", k),
		Tags:    []string{fmt.Sprint("t", k%7), fmt.Sprint("u", k%13)}}
}

// lateEdits is lateOps' last step's change to nodes it added: one replaced (new tags),
// one removed.
func lateEdits(tx *vault.ImportTx, ids []uint64) error {
	if _, err := tx.Replace(vault.Node{ID: ids[83], Type: vault.Pattern, Title: "note 83 again",
		Content: "Never retry a payment twice", Tags: []string{"payments"}}); err != nil {
		return err
	}
	return tx.Remove(ids[85])
}

func lateOps(t *testing.T, s *vault.ImportSteps) {
	t.Helper()
	var ids []uint64
	for step := range 3 {
		require.NoError(t, s.Step(func(tx *vault.ImportTx) error {
			for i := range 40 {
				n, err := tx.Add(lateNode(step*40 + i))
				if err != nil {
					return err
				}
				ids = append(ids, n.ID)
			}
			if step == 2 {
				if err := lateEdits(tx, ids); err != nil {
					return err
				}
			}
			_, _, err := tx.Link(ids[0], ids[len(ids)-1], vault.Supports, 0)
			return err
		}))
	}
	for done := false; !done; {
		var err error
		done, err = s.IndexStep(0, func(*vault.ImportTx, bool) error { return nil })
		require.NoError(t, err)
	}
}

// TestImportStepsWriteTagAndCoreEntriesOnce: the tag and core entries a chunked import
// defers to its index phase are exactly those the same writes in one transaction leave,
// including for nodes a step replaces or removes; the vault verifies.
func TestImportStepsWriteTagAndCoreEntriesOnce(t *testing.T) {
	t.Parallel()
	steps := newEnv(t, withTier(vault.TierPremium))
	require.NoError(t, steps.v.WithImportSteps(t.Context(), func(s *vault.ImportSteps) error {
		lateOps(t, s)
		return nil
	}))
	one := newEnv(t, withTier(vault.TierPremium))
	require.NoError(t, one.v.WithImportSteps(t.Context(), func(s *vault.ImportSteps) error {
		return s.Once(func(tx *vault.ImportTx) error {
			// The same writes in one transaction (the steps' sequence of calls).
			var ids []uint64
			for k := range 120 {
				n, err := tx.Add(lateNode(k))
				if err != nil {
					return err
				}
				ids = append(ids, n.ID)
				if k == 39 || k == 79 {
					if _, _, err := tx.Link(ids[0], ids[len(ids)-1], vault.Supports, 0); err != nil {
						return err
					}
				}
			}
			if err := lateEdits(tx, ids); err != nil {
				return err
			}
			_, _, err := tx.Link(ids[0], ids[len(ids)-1], vault.Supports, 0)
			return err
		})
	}))
	w, g := rawVault(t, one.db), rawVault(t, steps.db)
	assert.Equal(t, w["vault_idx"], g["vault_idx"])
	assert.Equal(t, w["vault_counts"], g["vault_counts"])
	steps.verify()
	hits, err := steps.v.ByTag(t.Context(), "payments", 0)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "note 83 again", hits[0].Title)
}

// TestImportStepsRolledBackLeaveNoLateEntry: steps whose tag and core entries are still
// deferred, then rolled back (removing their nodes, as the importer's abandon does): no
// entry of theirs is left, before or after the next write.
func TestImportStepsRolledBackLeaveNoLateEntry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierPremium))
	e.add(vault.Node{Type: vault.Pattern, Content: "Keep the retry budget small", Tags: []string{"t1"}})
	before := rawVault(t, e.db)["vault_idx"]
	boom := errors.New("boom")
	err := e.v.WithImportSteps(t.Context(), func(s *vault.ImportSteps) error {
		var ids []uint64
		for range 2 {
			require.NoError(t, s.Step(func(tx *vault.ImportTx) error {
				for k := range 30 {
					n, err := tx.Add(vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("Always log retry %d", k), Tags: []string{fmt.Sprint("t", k%4)}})
					if err != nil {
						return err
					}
					ids = append(ids, n.ID)
				}
				return nil
			}))
		}
		require.NoError(t, s.Unindexed(func(tx *vault.ImportTx) error {
			for _, id := range ids {
				if err := tx.Remove(id); err != nil {
					return err
				}
			}
			return nil
		}))
		return boom
	})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, before, rawVault(t, e.db)["vault_idx"])
	e.add(vault.Node{Type: vault.Pattern, Content: "Another note", Tags: []string{"t2"}})
	e.verify()
	hits, err := e.v.ByTag(context.Background(), "t1", 0)
	require.NoError(t, err)
	assert.Len(t, hits, 1, "only the note written before the import")
}
