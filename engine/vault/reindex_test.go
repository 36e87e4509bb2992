package vault_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// A write that changes a node's confidence moves its confidence entry and leaves its other
// index entries in place: filters by type, tag and confidence find it as before.
func TestReinforceKeepsIndexEntries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	n := e.add(vault.Node{Type: vault.Pattern, Content: "guard every write with a journal entry", Tags: []string{"journal", "writes"}, Confidence: 0.5})
	e.add(vault.Node{Type: vault.Mistake, Content: "a journal entry was forgotten", Tags: []string{"journal"}, Confidence: 0.9})
	got, err := e.v.Reinforce(ctx, n.ID)
	require.NoError(t, err)
	assert.Greater(t, got.Confidence, 0.5)
	e.verify()
	hits, err := e.v.Search(ctx, "journal entry", vault.SearchOptions{Type: vault.Pattern, Tag: "writes", MinConfidence: got.Confidence})
	require.NoError(t, err)
	assert.Equal(t, []uint64{n.ID}, scoredIDs(hits))
	hits, err = e.v.Search(ctx, "journal entry", vault.SearchOptions{MinConfidence: got.Confidence + 0.01})
	require.NoError(t, err)
	assert.NotContains(t, scoredIDs(hits), n.ID)
}

// An index entry that went missing (damage) is put back by the next write of its node, as
// when every entry was rewritten.
func TestNodeWriteRepairsMissingIndexEntry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	n := e.add(vault.Node{Type: vault.Decision, Content: "keep the schema tree in one file", Tags: []string{"schema"}, Confidence: 0.6})
	require.NoError(t, e.db.Bolt().Update(func(tx *bolt.Tx) error {
		key := append([]byte("tag\x00schema\x00"), storage.Key(n.ID)...)
		require.NotNil(t, tx.Bucket(storage.BucketVaultIndex).Get(key), "the tag entry's layout changed")
		return tx.Bucket(storage.BucketVaultIndex).Delete(key)
	}))
	problems, err := e.v.Verify(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, problems)
	_, err = e.v.Reinforce(ctx, n.ID)
	require.NoError(t, err)
	e.verify()
	hits, err := e.v.Search(ctx, "schema tree", vault.SearchOptions{Tag: "schema"})
	require.NoError(t, err)
	assert.Equal(t, []uint64{n.ID}, scoredIDs(hits))
}

// ResultTypes and Exclude give what a caller filtering the unfiltered results itself keeps,
// in the same order.
func TestSearchResultFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	types := []vault.NodeType{vault.Pattern, vault.Mistake, vault.Decision, vault.Preference}
	var all []uint64
	for i := range 60 {
		n := e.add(vault.Node{Type: types[i%len(types)], Content: fmt.Sprintf("retry the flaky upload step %d with a backoff of %d seconds", i, i%7),
			Confidence: 0.3 + float64(i%5)/10})
		all = append(all, n.ID)
	}
	exclude := []uint64{all[0], all[5], all[8], all[13]}
	for _, limit := range []int{5, 12, 30, 100} {
		plain, err := e.v.Search(ctx, "flaky upload backoff", vault.SearchOptions{Limit: limit, NoEmbeddings: true})
		require.NoError(t, err)
		var want []uint64
		for _, h := range plain {
			if !slices.Contains(exclude, h.ID) && (h.Type == vault.Pattern || h.Type == vault.Decision) {
				want = append(want, h.ID)
			}
		}
		got, err := e.v.Search(ctx, "flaky upload backoff", vault.SearchOptions{Limit: limit, NoEmbeddings: true,
			ResultTypes: []vault.NodeType{vault.Pattern, vault.Decision}, Exclude: exclude})
		require.NoError(t, err)
		require.NotEmpty(t, want)
		assert.Equal(t, want, scoredIDs(got), "limit %d", limit)
	}
}
