package importer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

// Chunked imports (Apply with more files than Config.ChunkFiles): same results as one
// transaction, and an interrupted one leaves a batch that undo removes exactly.

// fixedClock makes two imports of the same files byte-for-byte comparable.
func fixedClock() time.Time { return time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC) }

// newChunkEnv is an env with a fixed clock, chunks of chunk files (0: the default) and hook
// after every chunked transaction.
func newChunkEnv(tb testing.TB, tier string, chunk int, hook func(int) error) *env {
	tb.Helper()
	db, err := storage.Open(filepath.Join(tb.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = db.Close() })
	v := vault.New(db, vault.Options{Tier: tier, Now: fixedClock})
	tb.Cleanup(func() { _ = v.Close() })
	return &env{db: db, v: v, im: New(db, v, Config{ChunkFiles: chunk, chunkHook: hook, Now: fixedClock})}
}

// records hashes the buckets an import writes (nodes, bodies, edges, batches, file records)
// without the vault's revision counter, which counts transactions.
func (e *env) records(tb testing.TB) string { return e.recordsSeq(tb, true) }

// recordsSeq is records, with the buckets' id sequences when seq is set (a rolled back
// chunked import leaves them advanced: ids are never handed out twice).
func (e *env) recordsSeq(tb testing.TB, seq bool) string {
	return e.hashBuckets(tb, hashOpts{seq: seq}, storage.BucketVaultNodes, storage.BucketVaultEdges,
		storage.BucketVaultBodies, storage.BucketImports, storage.BucketImportFiles)
}

// index hashes the vault's secondary index (without its revision counter, which counts
// transactions) and its counters.
func (e *env) index(tb testing.TB) string {
	return e.indexOf(tb, storage.BucketVaultIndex, storage.BucketVaultCounts)
}

// indexOf is index for the buckets named (a rolled back import leaves counters at 0).
func (e *env) indexOf(tb testing.TB, buckets ...[]byte) string {
	return e.hashBuckets(tb, hashOpts{}, buckets...)
}

// searches runs queries and lists the hits (id and score) of each.
func (e *env) searches(tb testing.TB, queries ...string) []string {
	tb.Helper()
	var out []string
	for _, q := range queries {
		hits, err := e.v.Search(ctx, q, vault.SearchOptions{Limit: 8, NoEmbeddings: true})
		require.NoError(tb, err)
		var b strings.Builder
		fmt.Fprintf(&b, "%s:", q)
		for _, h := range hits {
			fmt.Fprintf(&b, " %d=%.6f", h.ID, h.Score)
		}
		out = append(out, b.String())
	}
	return out
}

var corpusQueries = []string{"form validation", "auth session token", "convex mutation", "accessible buttons", "rate limit", "loading state"}

func sameResult(tb testing.TB, want, got Result) {
	tb.Helper()
	want.TookMs, got.TookMs = 0, 0
	assert.Equal(tb, want, got)
}

// copyTree copies the *.md tree of src into dst.
func copyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	require.NoError(tb, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, raw, 0o644)
	}))
}

func TestChunkedImportMatchesOneTransaction(t *testing.T) {
	t.Parallel()
	corpus := corpusDir(t)
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprintf("split=%v", split), func(t *testing.T) {
			t.Parallel()
			lib := t.TempDir()
			copyTree(t, corpus, lib)
			one := newChunkEnv(t, vault.TierPremium, 0, nil)
			chunked := newChunkEnv(t, vault.TierPremium, 7, nil)
			// The chains and file records in groups of about 5 records per transaction.
			chunked.im.cfg.threadBudget = 5
			opts := Options{Split: split}

			r1, err := one.im.Import(ctx, DirSource(lib), opts)
			require.NoError(t, err)
			r2, err := chunked.im.Import(ctx, DirSource(lib), opts)
			require.NoError(t, err)
			require.Greater(t, r2.Loaded, 7*3, "the corpus takes several chunks")
			sameResult(t, r1, r2)
			assert.Equal(t, one.records(t), chunked.records(t), "same nodes, bodies, edges, batch and file records")
			assert.Equal(t, one.index(t), chunked.index(t), "same index entries and counters")
			assert.Equal(t, one.nodeDump(t), chunked.nodeDump(t))
			assert.Equal(t, one.searches(t, corpusQueries...), chunked.searches(t, corpusQueries...))

			// A second batch that changes files, adds some and leaves the rest: updates,
			// re-threaded chains and (split) removed sections go through the chunks too.
			n := 0
			require.NoError(t, filepath.WalkDir(lib, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
					return err
				}
				n++
				switch n % 3 {
				case 0:
					raw, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					// Keep the first section only: split nodes of the others go.
					text := string(raw)
					if i := strings.Index(text, "\n## "); i > 0 {
						if j := strings.Index(text[i+4:], "\n## "); j > 0 {
							text = text[:i+4+j]
						}
					}
					return os.WriteFile(p, []byte(text+"\n\nRevised for the second import.\n"), 0o644)
				case 1:
					return os.WriteFile(strings.TrimSuffix(p, ".md")+"-extra.md",
						[]byte(pattern(fmt.Sprintf("Extra Pattern %d", n), fmt.Sprintf("An extra pattern number %d written for the chunked import test, with words of its own: %s.", n, strings.Repeat("word", n%7+1)))), 0o644)
				}
				return nil
			}))
			r1, err = one.im.Import(ctx, DirSource(lib), opts)
			require.NoError(t, err)
			r2, err = chunked.im.Import(ctx, DirSource(lib), opts)
			require.NoError(t, err)
			require.Positive(t, r2.Updated)
			require.Positive(t, r2.New)
			sameResult(t, r1, r2)
			assert.Equal(t, one.records(t), chunked.records(t))
			assert.Equal(t, one.index(t), chunked.index(t))
			assert.Equal(t, one.nodeDump(t), chunked.nodeDump(t))
			assert.Equal(t, one.searches(t, corpusQueries...), chunked.searches(t, corpusQueries...))

			// Undo of a chunked batch restores exactly what was there.
			for _, e := range []*env{one, chunked} {
				_, err := e.im.Undo(ctx, r2.Batch)
				require.NoError(t, err)
			}
			assert.Equal(t, one.records(t), chunked.records(t))
			assert.Equal(t, one.index(t), chunked.index(t))
			assert.Equal(t, one.searches(t, corpusQueries...), chunked.searches(t, corpusQueries...))
		})
	}
}

// genLib writes n generated pattern files.
func genLib(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	require.NoError(tb, vaulttest.WriteLibrary(dir, n))
	return dir
}

func TestInterruptedChunkedImport(t *testing.T) {
	t.Parallel()
	lib := genLib(t, 60)
	// The transactions of a 60-file import in chunks of 20: three chunks, then the
	// full-text index in one range (0, 1, 2 are chunks, 3 the index).
	for _, tc := range []struct {
		name  string
		crash int
	}{
		{"after the first chunk", 0},
		{"after the last chunk, before the index", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clean := newChunkEnv(t, vault.TierPremium, 20, nil)
			want, err := clean.im.Import(ctx, DirSource(lib), Options{})
			require.NoError(t, err)
			// The last query finds the two nodes written by hand, whose scores move if the
			// index's document counts drift.
			queries := []string{"thumio", "crithefound poushom", "password restore", "pull requests reviewer"}

			e := newChunkEnv(t, vault.TierPremium, 20, func(c int) error {
				if c == tc.crash {
					return errSimulatedCrash
				}
				return nil
			})
			manual, err := e.v.Add(ctx, vault.Node{Type: vault.Preference, Content: "Prefer small pull requests over big ones"})
			require.NoError(t, err)
			_, err = e.v.Add(ctx, vault.Node{Type: vault.Strategy, Content: "Every pull request gets a reviewer who knows the code it changes, and pull requests wait for that reviewer"})
			require.NoError(t, err)
			before, beforeDump := e.records(t), e.nodeDump(t)
			beforeIx := e.indexOf(t, storage.BucketVaultIndex)
			beforeSearch := e.searches(t, queries...)
			require.Contains(t, beforeSearch[3], fmt.Sprintf(" %d=", manual.ID))

			_, err = e.im.Import(ctx, DirSource(lib), Options{})
			require.ErrorIs(t, err, errSimulatedCrash)
			list, err := e.im.Batches(ctx)
			require.NoError(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, BatchInterrupted, list[0].State, "a batch the process left half written reads as interrupted")
			assert.Equal(t, 20*(tc.crash+1), list[0].Present, "its record lists exactly what is committed")
			assert.Equal(t, beforeSearch, e.searches(t, queries...), "the full-text index holds nothing of it")

			// `nova import undo` removes exactly what it wrote.
			undo, err := e.im.Undo(ctx, list[0].ID)
			require.NoError(t, err)
			assert.Equal(t, 20*(tc.crash+1), undo.NodesRemoved)
			assert.Equal(t, beforeDump, e.nodeDump(t))
			assert.Equal(t, beforeIx, e.indexOf(t, storage.BucketVaultIndex), "no index entry of it is left")
			assert.Equal(t, beforeSearch, e.searches(t, queries...))
			_, err = e.v.Get(ctx, manual.ID)
			require.NoError(t, err)

			// Crash again; this time the next import rolls the half batch back first and
			// imports everything, as a clean import does.
			e.im.cfg.chunkHook = func(c int) error {
				if c == tc.crash {
					return errSimulatedCrash
				}
				return nil
			}
			_, err = e.im.Import(ctx, DirSource(lib), Options{})
			require.ErrorIs(t, err, errSimulatedCrash)
			e.im.cfg.chunkHook = nil
			got, err := e.im.Import(ctx, DirSource(lib), Options{})
			require.NoError(t, err)
			require.NotEmpty(t, got.Warnings)
			assert.Contains(t, got.Warnings[0], fmt.Sprintf("was interrupted; its %d nodes were removed", 20*(tc.crash+1)))
			assert.Equal(t, want.Loaded, got.Loaded)
			assert.Equal(t, want.NodesAdded, got.NodesAdded)
			assert.Equal(t, want.EdgesAdded, got.EdgesAdded)
			list, err = e.im.Batches(ctx)
			require.NoError(t, err)
			require.Len(t, list, 2, "the rolled back batch is gone; the undone one stays listed")
			assert.Equal(t, BatchActive, list[0].State)
			assert.Equal(t, BatchUndone, list[1].State)
			assert.NotEqual(t, before, e.records(t))
			for _, q := range queries {
				hits, err := e.v.Search(ctx, q, vault.SearchOptions{NoEmbeddings: true})
				require.NoError(t, err)
				assert.NotEmpty(t, hits, "the completed import is searchable: %s", q)
			}
		})
	}
}

func TestInterruptedIndexPhaseIsUndoneAndTheIndexRebuilt(t *testing.T) {
	t.Parallel()
	lib := genLib(t, 60)
	e := newChunkEnv(t, vault.TierPremium, 20, nil)
	manual, err := e.v.Add(ctx, vault.Node{Type: vault.Preference, Content: "Prefer small pull requests over big ones"})
	require.NoError(t, err)
	beforeDump, beforeIx := e.nodeDump(t), e.indexOf(t, storage.BucketVaultIndex)

	// A budget of one posting per range: the index phase takes many transactions; the
	// process dies after the first range (chunks 0–2, range 3).
	e.im.cfg.indexBudget = 1
	e.im.cfg.chunkHook = func(c int) error {
		if c == 3 {
			return errSimulatedCrash
		}
		return nil
	}
	_, err = e.im.Import(ctx, DirSource(lib), Options{})
	require.ErrorIs(t, err, errSimulatedCrash)
	list, err := e.im.Batches(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, BatchInterrupted, list[0].State)
	assert.True(t, list[0].Indexing)

	_, err = e.im.Undo(ctx, list[0].ID)
	require.NoError(t, err)
	assert.Equal(t, beforeDump, e.nodeDump(t))
	assert.Equal(t, beforeIx, e.indexOf(t, storage.BucketVaultIndex))
	// The half-written index was built again from the nodes left.
	hits, err := e.v.Search(ctx, "small pull requests", vault.SearchOptions{NoEmbeddings: true})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, manual.ID, hits[0].ID)
	hits, err = e.v.Search(ctx, "thumio", vault.SearchOptions{NoEmbeddings: true})
	require.NoError(t, err)
	assert.Empty(t, hits, "nothing of the undone import is found")
}

func TestFailedOrCancelledChunkRollsTheImportBack(t *testing.T) {
	t.Parallel()
	lib := genLib(t, 50)
	boom := errors.New("disk on fire")
	for name, stop := range map[string]func(cancel func()) error{
		"error":  func(func()) error { return boom },
		"cancel": func(cancel func()) error { cancel(); return nil },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newChunkEnv(t, vault.TierPremium, 20, nil)
			before, beforeDump := e.recordsSeq(t, false), e.nodeDump(t)
			beforeIx := e.indexOf(t, storage.BucketVaultIndex)
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			e.im.cfg.chunkHook = func(c int) error {
				if c == 1 {
					return stop(cancel)
				}
				return nil
			}
			_, err := e.im.Import(cctx, DirSource(lib), Options{})
			require.Error(t, err)
			if name == "error" {
				require.ErrorIs(t, err, boom)
			} else {
				require.ErrorIs(t, err, context.Canceled)
			}
			assert.Equal(t, before, e.recordsSeq(t, false), "the committed chunks were rolled back, the batch record too")
			assert.Equal(t, beforeDump, e.nodeDump(t))
			assert.Equal(t, beforeIx, e.indexOf(t, storage.BucketVaultIndex))
			list, err := e.im.Batches(ctx)
			require.NoError(t, err)
			assert.Empty(t, list)
		})
	}
}

func TestChunkedImportOverTheCapIsRefusedUpFront(t *testing.T) {
	t.Parallel()
	lib := genLib(t, 520) // the free tier keeps 500 nodes
	e := newChunkEnv(t, vault.TierFree, 100, func(int) error {
		t.Error("no transaction may commit")
		return nil
	})
	before := e.records(t)
	dry, err := e.im.Import(ctx, DirSource(lib), Options{DryRun: true})
	var ce *vault.CapError
	require.ErrorAs(t, err, &ce)
	assert.NotNil(t, dry.OverCap, "the dry run reports overCap")
	_, err = e.im.Import(ctx, DirSource(lib), Options{})
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, before, e.records(t), "nothing was written")
}

func TestChunkedImportThreadsTheChainsInSeveralTransactions(t *testing.T) {
	t.Parallel()
	lib := genLib(t, 60)
	clean := newChunkEnv(t, vault.TierPremium, 20, nil)
	want, err := clean.im.Import(ctx, DirSource(lib), Options{})
	require.NoError(t, err)

	// 60 files in chunks of 20, chains and records 10 at a time: chunks 0–2 (the last also
	// threads the first group), then the other groups, then the index.
	var txs int
	counted := newChunkEnv(t, vault.TierPremium, 20, func(int) error { txs++; return nil })
	counted.im.cfg.threadBudget = 10
	counted.im.cfg.threadAtEnd = true // the chains wait for the last chunk
	got, err := counted.im.Import(ctx, DirSource(lib), Options{})
	require.NoError(t, err)
	sameResult(t, want, got)
	assert.Equal(t, clean.records(t), counted.records(t), "same nodes, edges, batch and file records")
	require.Greater(t, txs, 3+1, "the threading took transactions of its own")

	for _, crash := range []int{2, 3, txs - 2} {
		t.Run(fmt.Sprintf("crash after transaction %d", crash), func(t *testing.T) {
			t.Parallel()
			e := newChunkEnv(t, vault.TierPremium, 20, func(c int) error {
				if c == crash {
					return errSimulatedCrash
				}
				return nil
			})
			e.im.cfg.threadBudget = 10
			e.im.cfg.threadAtEnd = true
			beforeDump := e.nodeDump(t)
			_, err := e.im.Import(ctx, DirSource(lib), Options{})
			require.ErrorIs(t, err, errSimulatedCrash)
			list, err := e.im.Batches(ctx)
			require.NoError(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, BatchInterrupted, list[0].State)
			assert.Equal(t, 60, list[0].Present)
			_, err = e.im.Undo(ctx, list[0].ID)
			require.NoError(t, err)
			assert.Equal(t, beforeDump, e.nodeDump(t), "undo removes exactly what was committed")
			require.NoError(t, e.db.View(func(tx *bolt.Tx) error {
				n := 0
				if b := tx.Bucket(storage.BucketImportFiles); b != nil {
					n = b.Stats().KeyN
				}
				assert.Zero(t, n, "undo removed the file records it wrote")
				return nil
			}))
			hits, err := e.v.Search(ctx, "thumio", vault.SearchOptions{NoEmbeddings: true})
			require.NoError(t, err)
			assert.Empty(t, hits)

			// The next import after a second crash rolls it back and imports everything.
			_, err = e.im.Import(ctx, DirSource(lib), Options{})
			require.ErrorIs(t, err, errSimulatedCrash)
			e.im.cfg.chunkHook = nil
			got, err := e.im.Import(ctx, DirSource(lib), Options{})
			require.NoError(t, err)
			require.NotEmpty(t, got.Warnings)
			assert.Equal(t, want.NodesAdded, got.NodesAdded)
			assert.Equal(t, want.EdgesAdded, got.EdgesAdded)
		})
	}

	t.Run("an error in a threading transaction rolls the import back", func(t *testing.T) {
		t.Parallel()
		boom := errors.New("disk on fire")
		e := newChunkEnv(t, vault.TierPremium, 20, func(c int) error {
			if c == 3 {
				return boom
			}
			return nil
		})
		e.im.cfg.threadBudget = 10
		e.im.cfg.threadAtEnd = true
		before, beforeDump := e.recordsSeq(t, false), e.nodeDump(t)
		_, err := e.im.Import(ctx, DirSource(lib), Options{})
		require.ErrorIs(t, err, boom)
		assert.Equal(t, before, e.recordsSeq(t, false), "the committed transactions were rolled back, the batch record too")
		assert.Equal(t, beforeDump, e.nodeDump(t))
	})
}

// TestChunkedImportThreadsEachChainWithItsLastChunk: without sections, a chunked import
// threads a category's chain and writes its file records in the transaction that writes the
// category's last file: no transactions of their own, the same records as one transaction,
// and an import interrupted after a chunk is undone exactly (its records included).
func TestChunkedImportThreadsEachChainWithItsLastChunk(t *testing.T) {
	t.Parallel()
	// Six categories of ten files, one folder each (genLib spreads its categories over
	// the whole library: none is complete before the last chunk).
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("%02d-cat%d/p%02d.md", i/10, i/10, i)] = pattern(fmt.Sprintf("Pattern %d of %d", i, i/10),
			fmt.Sprintf("Pattern number %d explains thumio case %d with words %s.", i, i*7, strings.Repeat("crithefound ", i%5+1)))
	}
	lib := writeLib(t, files)
	one := newChunkEnv(t, vault.TierPremium, 0, nil)
	want, err := one.im.Import(ctx, DirSource(lib), Options{})
	require.NoError(t, err)

	var txs int
	counted := newChunkEnv(t, vault.TierPremium, 20, func(int) error { txs++; return nil })
	got, err := counted.im.Import(ctx, DirSource(lib), Options{})
	require.NoError(t, err)
	sameResult(t, want, got)
	assert.Equal(t, one.records(t), counted.records(t), "same nodes, edges, batch and file records")
	assert.Equal(t, one.index(t), counted.index(t))
	require.Equal(t, 60, got.Loaded)
	assert.Equal(t, 3+1, txs, "three chunks and the index: the chains took no transaction of their own")

	// A second import that changes files and adds some in every folder: stale chain edges
	// are removed and new ones drawn chunk by chunk, as in one transaction; undo likewise.
	changed := map[string]string{}
	for i := range 60 {
		switch i % 3 {
		case 0:
			changed[fmt.Sprintf("%02d-cat%d/p%02d.md", i/10, i/10, i)] = pattern(fmt.Sprintf("Pattern %d of %d, revised", i, i/10),
				fmt.Sprintf("Revised pattern %d about poushom case %d.", i, i*11))
		case 1:
			changed[fmt.Sprintf("%02d-cat%d/p%02d-extra.md", i/10, i/10, i)] = pattern(fmt.Sprintf("Extra %d", i),
				fmt.Sprintf("An extra pattern %d with words of its own: %s.", i, strings.Repeat("thumio ", i%4+1)))
		}
	}
	lib2 := t.TempDir() // the subtests below import lib as it is
	copyTree(t, lib, lib2)
	writeFiles(t, lib2, changed)
	r1, err := one.im.Import(ctx, DirSource(lib2), Options{})
	require.NoError(t, err)
	r2, err := counted.im.Import(ctx, DirSource(lib2), Options{})
	require.NoError(t, err)
	require.Positive(t, r2.Updated)
	require.Positive(t, r2.EdgesRemoved, "stale chain edges were replaced")
	sameResult(t, r1, r2)
	assert.Equal(t, one.records(t), counted.records(t))
	assert.Equal(t, one.index(t), counted.index(t))
	assert.Equal(t, one.nodeDump(t), counted.nodeDump(t))
	for _, e := range []*env{one, counted} {
		_, err := e.im.Undo(ctx, r2.Batch)
		require.NoError(t, err)
	}
	assert.Equal(t, one.records(t), counted.records(t))
	assert.Equal(t, one.nodeDump(t), counted.nodeDump(t))

	for _, crash := range []int{0, 1} {
		t.Run(fmt.Sprintf("crash after chunk %d", crash), func(t *testing.T) {
			t.Parallel()
			e := newChunkEnv(t, vault.TierPremium, 20, func(c int) error {
				if c == crash {
					return errSimulatedCrash
				}
				return nil
			})
			beforeDump, beforeIx := e.nodeDump(t), e.indexOf(t, storage.BucketVaultIndex)
			_, err := e.im.Import(ctx, DirSource(lib), Options{})
			require.ErrorIs(t, err, errSimulatedCrash)
			records := func() int {
				n := 0
				require.NoError(t, e.db.View(func(tx *bolt.Tx) error {
					n = tx.Bucket(storage.BucketImportFiles).Stats().KeyN
					return nil
				}))
				return n
			}
			committed := records()
			assert.Positive(t, committed, "the chunk wrote the records of the categories it completed")
			assert.Less(t, committed, 20*(crash+1)+1)
			list, err := e.im.Batches(ctx)
			require.NoError(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, BatchInterrupted, list[0].State)
			assert.Len(t, list[0].Files, committed, "the pending record lists exactly the records committed")
			_, err = e.im.Undo(ctx, list[0].ID)
			require.NoError(t, err)
			assert.Equal(t, beforeDump, e.nodeDump(t), "undo removes exactly what was committed")
			assert.Equal(t, beforeIx, e.indexOf(t, storage.BucketVaultIndex))
			assert.Zero(t, records(), "undo removed the file records it wrote")

			e.im.cfg.chunkHook = nil
			again, err := e.im.Import(ctx, DirSource(lib), Options{})
			require.NoError(t, err)
			assert.Equal(t, want.NodesAdded, again.NodesAdded)
			assert.Equal(t, want.EdgesAdded, again.EdgesAdded)
		})
	}
}
