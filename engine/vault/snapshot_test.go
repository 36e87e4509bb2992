package vault_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

// snapshotKey mirrors the key documented in storage/doc.go.
const snapshotKey = "~textindex"

func searchAll(t *testing.T, v *vault.Vault, qs []string) [][]vault.Scored {
	t.Helper()
	out := make([][]vault.Scored, len(qs))
	for i, q := range qs {
		hits, err := v.Search(t.Context(), q, vault.SearchOptions{Limit: 10, NoEmbeddings: true})
		require.NoError(t, err)
		out[i] = hits
	}
	filtered, err := v.Search(t.Context(), qs[0], vault.SearchOptions{Limit: 10, Type: vault.Pattern, Tag: vaulttest.Tags[0]})
	require.NoError(t, err)
	return append(out, filtered)
}

func rawSnapshot(t *testing.T, db *storage.DB) []byte {
	t.Helper()
	var data []byte
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(storage.BucketVaultIndex).Get([]byte(snapshotKey)); v != nil {
			data = append([]byte{}, v...)
		}
		return nil
	}))
	return data
}

func filledEnv(t *testing.T, n int) *testEnv {
	t.Helper()
	e := newEnv(t, withTier(vault.TierPremium))
	require.NoError(t, vaulttest.Fill(t.Context(), e.v, n, 21, vaulttest.Options{BodyShare: 0.4}))
	return e
}

func TestIndexSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	e := filledEnv(t, 1500)
	ctx := t.Context()
	qs := vaulttest.Queries(60, 4)
	require.NoError(t, e.v.WaitIndex(ctx))
	assert.False(t, e.v.IndexInfo().FromSnapshot)
	want := searchAll(t, e.v, qs)

	// Close of a writable handle saves the snapshot; the next open loads it.
	e.reopen(false, withTier(vault.TierPremium))
	require.NotEmpty(t, rawSnapshot(t, e.db))
	require.NoError(t, e.v.WaitIndex(ctx))
	info := e.v.IndexInfo()
	assert.True(t, info.FromSnapshot)
	assert.Equal(t, 1500, info.Docs)
	assert.Equal(t, want, searchAll(t, e.v, qs))

	// Read-only handles load it too, and never write it.
	e.reopen(true, withTier(vault.TierPremium))
	require.NoError(t, e.v.WaitIndex(ctx))
	assert.True(t, e.v.IndexInfo().FromSnapshot)
	assert.Equal(t, want, searchAll(t, e.v, qs))
	e.verify()
}

func TestIndexSnapshotFollowsWrites(t *testing.T) {
	t.Parallel()
	e := filledEnv(t, 800)
	ctx := t.Context()
	qs := vaulttest.Queries(40, 8)
	require.NoError(t, e.v.WaitIndex(ctx))
	e.reopen(false, withTier(vault.TierPremium))
	require.NoError(t, e.v.WaitIndex(ctx))
	require.True(t, e.v.IndexInfo().FromSnapshot)

	// Writes on a loaded index: the saved snapshot carries them.
	a := e.add(vault.Node{Type: vault.Pattern, Title: "zebrafish snapshot marker", Content: "Always persist the zebrafish index."})
	b := e.add(vault.Node{Type: vault.Strategy, Content: "Prefer quokka-shaped retries for flaky zebrafish calls."})
	e.link(a.ID, b.ID, vault.Supports) // an edge-only write bumps the revision too
	require.NoError(t, e.v.Remove(ctx, 5))
	// Saving compacts the removed node away (as the index does by itself once
	// removals pile up), which shifts document frequencies: compare after it.
	e.v.SaveIndexSnapshot()
	want := searchAll(t, e.v, append(qs, "zebrafish quokka"))
	e.reopen(false, withTier(vault.TierPremium))
	require.NoError(t, e.v.WaitIndex(ctx))
	assert.True(t, e.v.IndexInfo().FromSnapshot)
	assert.Equal(t, want, searchAll(t, e.v, append(qs, "zebrafish quokka")))

	// A write while the index is not built makes the snapshot stale: rebuilt.
	e.reopen(false, withTier(vault.TierPremium))
	e.add(vault.Node{Type: vault.Decision, Content: "Use the narwhal protocol for zebrafish sync."})
	e.reopen(true, withTier(vault.TierPremium))
	require.NoError(t, e.v.WaitIndex(ctx))
	assert.False(t, e.v.IndexInfo().FromSnapshot)
	hits, err := e.v.Search(ctx, "narwhal", vault.SearchOptions{NoEmbeddings: true})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Contains(t, hits[0].Content, "narwhal")
}

func TestIndexSnapshotCorruptFallsBack(t *testing.T) {
	t.Parallel()
	e := filledEnv(t, 500)
	ctx := t.Context()
	qs := vaulttest.Queries(30, 2)
	require.NoError(t, e.v.WaitIndex(ctx))
	want := searchAll(t, e.v, qs)
	e.reopen(false, withTier(vault.TierPremium))
	good := rawSnapshot(t, e.db)
	require.NotEmpty(t, good)

	for _, bad := range [][]byte{
		good[:len(good)/2],                // truncated, current revision
		append(good[:13:13], "junk"...),   // header only
		flip(good, len(good)-len(good)/3), // damaged index bytes
		flip(good, 20),                    // damaged meta
	} {
		require.NoError(t, e.v.Close()) // saves its own index first, if it has one
		require.NoError(t, e.db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(storage.BucketVaultIndex).Put([]byte(snapshotKey), bad)
		}))
		e.reopen(false, withTier(vault.TierPremium))
		require.NoError(t, e.v.WaitIndex(ctx))
		assert.False(t, e.v.IndexInfo().FromSnapshot)
		assert.Equal(t, want, searchAll(t, e.v, qs))
	}
	// The rebuilt index was saved over the corrupt snapshot at Close.
	e.reopen(false, withTier(vault.TierPremium))
	require.NoError(t, e.v.WaitIndex(ctx))
	assert.True(t, e.v.IndexInfo().FromSnapshot)
	e.verify()
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 0x41
	return c
}

// BenchmarkOpenSnapshot100k: open + index ready from a fresh snapshot on 100k
// nodes (target < 1 s; the rebuild is BenchmarkOpenRebuild100k).
func BenchmarkOpenSnapshot100k(b *testing.B) {
	path := copyDB(b, benchDB(b, 100_000, 0.4)) // the shared file stays without a snapshot
	ctx := context.Background()
	ensureSnapshot(b, path)
	cpu := processCPU()
	for b.Loop() {
		db, err := storage.Open(path, storage.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		v := vault.New(db, vault.Options{})
		if err := v.WaitIndex(ctx); err != nil {
			b.Fatal(err)
		}
		if info := v.IndexInfo(); info.Docs != 100_000 || !info.FromSnapshot {
			b.Fatalf("index %+v, want 100000 docs from the snapshot", info)
		}
		_ = v.Close()
		_ = db.Close()
	}
	reportCPU(b, cpu)
}

// BenchmarkSaveSnapshot100k: Close of a writable handle whose index is newer
// than the stored snapshot.
func BenchmarkSaveSnapshot100k(b *testing.B) {
	path := copyDB(b, benchDB(b, 100_000, 0.4))
	ctx := context.Background()
	db, err := storage.Open(path, storage.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	v := vault.New(db, vault.Options{Tier: vault.TierPremium})
	if err := v.WaitIndex(ctx); err != nil {
		b.Fatal(err)
	}
	cpu := processCPU()
	for b.Loop() {
		b.StopTimer()
		if _, err := v.Add(ctx, vault.Node{Type: vault.Pattern, Content: "bump the revision"}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		v.SaveIndexSnapshot()
	}
	reportCPU(b, cpu)
	_ = v.Close()
}

// copyDB copies a benchmark database into the benchmark's temporary directory.
func copyDB(b *testing.B, path string) string {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	dst := filepath.Join(b.TempDir(), "copy.db")
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		b.Fatal(err)
	}
	return dst
}

// ensureSnapshot saves the index snapshot of the database at path (a
// writable open, a build, Close).
func ensureSnapshot(b *testing.B, path string) {
	b.Helper()
	db, err := storage.Open(path, storage.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	v := vault.New(db, vault.Options{Tier: vault.TierPremium})
	if err := v.WaitIndex(context.Background()); err != nil {
		b.Fatal(err)
	}
	_ = v.Close()
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
}
