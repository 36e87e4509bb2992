package vault_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

// equivDump is a generated import file of n nodes (titles, bodies, tags, escapes and
// non-ASCII text in some), edges between them, and lines that replace nodes 1–3 of the
// vault it is imported into; written with encoding/json in the field order of Export.
func equivDump(t *testing.T, n int) []byte {
	t.Helper()
	nodes := vaulttest.Nodes(n, 11, vaulttest.Options{})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	type line struct {
		Kind string `json:"kind"`
		vault.Node
	}
	for i, nd := range nodes {
		nd.ID = uint64(i + 1)
		switch i % 7 {
		case 1:
			nd.Content += " — naïve <café> & \"quotes\"\tand\nlines"
		case 2:
			nd.Meta = map[string]string{"category": "c" + fmt.Sprint(i%5), "é": "x<y"}
		case 3:
			nd.Language = "go"
		}
		require.NoError(t, enc.Encode(line{Kind: "node", Node: nd}))
	}
	for i := 1; i <= n/10; i++ {
		fmt.Fprintf(&buf, `{"kind":"edge","id":%d,"from":%d,"to":%d,"relation":"supports","strength":0.%d}`+"\n", i, i, i*3%n+1+boolInt(i*3%n+1 == i), i%9+1)
	}
	return buf.Bytes()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rawVault returns every key and value of the vault's buckets but the change counter.
func rawVault(t *testing.T, db *storage.DB) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{storage.BucketVaultNodes, storage.BucketVaultBodies, storage.BucketVaultEdges,
			storage.BucketVaultIndex, storage.BucketVaultCounts, storage.BucketVaultTerms, storage.BucketVaultPostings, storage.BucketVaultJournal} {
			m := map[string]string{}
			b := tx.Bucket(name)
			require.NotNil(t, b, "bucket %s", name)
			require.NoError(t, b.ForEach(func(k, v []byte) error {
				if string(k) != "~rev" {
					m[string(k)] = string(v)
				}
				return nil
			}))
			out[string(name)] = m
		}
		return nil
	}))
	return out
}

// TestChunkedImportWritesWhatOneTransactionWrites: a large import (chunks, the core
// entries deferred, the full-text index applied term range by term range) leaves every
// record, index entry, counter and posting exactly as one transaction does, and searches
// answer the same.
func TestChunkedImportWritesWhatOneTransactionWrites(t *testing.T) {
	t.Parallel()
	file := equivDump(t, 3000)
	setup := func(t *testing.T, chunk int) *testEnv {
		e := newEnv(t, withTier(vault.TierPremium))
		for i := range 3 {
			e.add(vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("existing note %d about retries", i), Tags: []string{"old"}})
		}
		vault.SetImportChunk(e.v, chunk)
		return e
	}
	one := setup(t, 1_000_000)
	want, err := one.v.Import(t.Context(), bytes.NewReader(file))
	require.NoError(t, err)
	assert.Equal(t, 3, want.Replaced)
	one.verify()
	// Chunks analysed by one worker, then by several (from 512 documents).
	for _, chunk := range []int{256, 1024} {
		t.Run(fmt.Sprint("chunk", chunk), func(t *testing.T) {
			t.Parallel()
			chunked := setup(t, chunk)
			got, err := chunked.v.Import(t.Context(), bytes.NewReader(file))
			require.NoError(t, err)
			assert.Equal(t, want, got)
			sameVault(t, one, chunked)
		})
	}
}

// sameVault checks that chunked holds exactly what one holds.
func sameVault(t *testing.T, one, chunked *testEnv) {
	t.Helper()
	wantRaw, gotRaw := rawVault(t, one.db), rawVault(t, chunked.db)
	for name, w := range wantRaw {
		assert.Len(t, gotRaw[name], len(w), "bucket %s", name)
		diff := 0
		for k, v := range w {
			if gotRaw[name][k] != v && diff < 5 {
				diff++
				t.Errorf("bucket %s key %q differs", name, k)
			}
		}
	}
	assert.Empty(t, gotRaw[string(storage.BucketVaultJournal)], "the journal is empty")

	for _, q := range vaulttest.Queries(20, 5) {
		w, err := one.v.Search(t.Context(), q, vault.SearchOptions{Limit: 20})
		require.NoError(t, err)
		g, err := chunked.v.Search(t.Context(), q, vault.SearchOptions{Limit: 20})
		require.NoError(t, err)
		assert.Equal(t, w, g, "query %q", q)
	}
	ws, err := one.v.Stats(t.Context())
	require.NoError(t, err)
	gs, err := chunked.v.Stats(t.Context())
	require.NoError(t, err)
	ws.Revision = gs.Revision
	assert.Equal(t, ws, gs)
	chunked.verify()
}
