package vault_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// Issue 11: importing a node with id 2^64−1 made the counter wrap; the next
// `vault add` got #0, then #1 replaced starter node #1 and inherited its
// edges. Ids beyond 2^53 are refused on import, with the line.
func TestImportRefusesIDsBeyondTheMaximum(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	starter, err := e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "starter node"})
	require.NoError(t, err)
	for _, line := range []string{
		`{"kind":"node","id":18446744073709551615,"type":"Decision","content":"max id"}`,
		fmt.Sprintf(`{"kind":"node","id":%d,"type":"Decision","content":"just past"}`, uint64(storage.MaxID)+1),
		fmt.Sprintf(`{"kind":"node","id":%d,"type":"Decision","content":"the last id nova issues"}`, uint64(storage.MaxID)),
		fmt.Sprintf(`{"kind":"node","id":%d,"type":"Decision","content":"just past the import range"}`, uint64(storage.MaxImportID)+1),
		`{"kind":"edge","id":18446744073709551615,"from":1,"to":2,"relation":"supports"}`,
	} {
		_, err := e.v.Import(t.Context(), strings.NewReader(line+"\n"))
		require.Error(t, err, line)
		assert.Contains(t, err.Error(), "line 1")
		assert.Contains(t, err.Error(), "larger than 4503599627370496")
	}
	n, err := e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "after the refused imports"})
	require.NoError(t, err)
	assert.Equal(t, starter.ID+1, n.ID)
	got, err := e.v.Get(t.Context(), starter.ID)
	require.NoError(t, err)
	assert.Equal(t, "starter node", got.Content, "the starter node is untouched")
}

// The largest id an import may carry is accepted and leaves ids to issue;
// an exhausted counter refuses instead of wrapping.
func TestCounterNeverWraps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "one"})
	require.NoError(t, err)
	line := fmt.Sprintf(`{"kind":"node","id":%d,"type":"Decision","content":"the last id"}`, uint64(storage.MaxImportID))
	_, err = e.v.Import(t.Context(), strings.NewReader(line+"\n"))
	require.NoError(t, err)
	n, err := e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "after the last import id"})
	require.NoError(t, err)
	assert.Equal(t, uint64(storage.MaxImportID)+1, n.ID)
	require.NoError(t, e.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(storage.BucketVaultNodes).SetSequence(uint64(storage.MaxID))
	}))
	_, err = e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "no id left"})
	require.Error(t, err)
	assert.ErrorIs(t, err, storage.ErrCounter)
	all, err := e.v.Get(t.Context(), 1)
	require.NoError(t, err)
	assert.Equal(t, "one", all.Content, "node #1 was not replaced")

	// A counter set to 2^64−1 by hand (an older nova) wraps neither.
	require.NoError(t, e.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(storage.BucketVaultEdges).SetSequence(^uint64(0))
	}))
	require.NoError(t, e.db.Update(func(tx *bolt.Tx) error {
		id, err := storage.NextID(tx.Bucket(storage.BucketVaultEdges))
		assert.Zero(t, id)
		if !errors.Is(err, storage.ErrCounter) {
			t.Errorf("want ErrCounter, got %v", err)
		}
		return nil
	}))
}

// `db check` reports a counter below the largest id (the state the wrap
// left behind), instead of "consistent".
func TestCheckReportsACounterBelowTheLargestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for range 3 {
		_, err := e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "n"})
		require.NoError(t, err)
	}
	assert.Empty(t, e.db.Check())
	require.NoError(t, e.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(storage.BucketVaultNodes).SetSequence(0)
	}))
	problems := e.db.Check()
	require.Len(t, problems, 1)
	assert.ErrorIs(t, problems[0], storage.ErrCounter)
	assert.Contains(t, problems[0].Error(), "vault_nodes")
	assert.Contains(t, problems[0].Error(), "largest id is 3")
}

// Issue 26: an older nova imported a node with id 2^53; every later
// `vault add` failed with "id counter problem", even after that node was
// forgotten. The next open repairs the counter.
func TestCounterPastItsRangeIsRepairedOnOpen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first, err := e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "one"})
	require.NoError(t, err)
	// What the old import left: a record at 2^53 and the counter with it.
	require.NoError(t, e.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(storage.BucketVaultNodes).SetSequence(uint64(storage.MaxID))
	}))
	_, err = e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "blocked"})
	require.ErrorIs(t, err, storage.ErrCounter, "the state the finding describes")
	require.NoError(t, e.v.Close())
	require.NoError(t, e.db.Close())

	db, err := storage.Open(e.path, storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	v := vault.New(db, e.options())
	t.Cleanup(func() { _ = v.Close() })
	n, err := v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "after the repair"})
	require.NoError(t, err)
	assert.Equal(t, first.ID+1, n.ID, "the counter is back at the largest id a record holds")
	assert.Empty(t, db.Check())
}

// A counter repaired below a record's id never reissues that id.
func TestNextIDSkipsTakenIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	require.NoError(t, e.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketVaultEdges)
		for _, id := range []uint64{1, 2, 3} {
			if err := b.Put(storage.Key(id), []byte("x")); err != nil {
				return err
			}
		}
		require.NoError(t, b.SetSequence(0))
		id, err := storage.NextID(b)
		require.NoError(t, err)
		assert.Equal(t, uint64(4), id)
		return nil
	}))
}
