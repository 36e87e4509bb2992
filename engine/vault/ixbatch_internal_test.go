package vault

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// TestIxBatchWritesWhatIndexAddWrites: entries deferred in an ixBatch (grouped, and edge ends
// kept as numbers) end up as the same vault_idx keys as Index.Add writes one by one, for
// edges whose node ids hold zero and 0xff bytes, repeated entries and other indexes mixed in.
func TestIxBatchWritesWhatIndexAddWrites(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	type ent struct {
		ix    storage.Index
		value string
		id    uint64
	}
	var es []ent
	for i := range 400 {
		node := uint64(r.IntN(50))
		if i%7 == 0 {
			node = 0xff00ff00ff00 + uint64(r.IntN(3))
		}
		e := &Edge{ID: uint64(r.IntN(1000) + 1), From: node, To: uint64(r.IntN(1 << 20)), Relation: Supports}
		for _, en := range edgeEntries(e) {
			es = append(es, ent{en.ix, en.value, e.ID})
		}
		es = append(es, ent{ixType, "pattern", uint64(i)}, ent{ixConf, confValue(r.Float64()), uint64(i)})
	}
	es = append(es, es[:30]...) // the same entries again
	keys := func(fill func(tx *bolt.Tx) error) []string {
		db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
		require.NoError(t, err)
		defer db.Close()
		require.NoError(t, db.Update(fill))
		var out []string
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			return tx.Bucket(storage.BucketVaultIndex).ForEach(func(k, _ []byte) error {
				out = append(out, string(k))
				return nil
			})
		}))
		return out
	}
	want := keys(func(tx *bolt.Tx) error {
		for _, e := range es {
			if err := e.ix.Add(tx, e.value, e.id); err != nil {
				return err
			}
		}
		return nil
	})
	got := keys(func(tx *bolt.Tx) error {
		var b ixBatch
		for _, e := range es {
			b.add(e.ix, e.value, e.id)
		}
		require.NotEmpty(t, b.ends)
		return b.flush(tx)
	})
	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
}
