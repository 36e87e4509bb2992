package importer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// env is an importer over a real bbolt file in a temp dir.
type env struct {
	db *storage.DB
	v  *vault.Vault
	im *Importer
}

func newEnv(tb testing.TB, cfg Config) *env {
	tb.Helper()
	db, err := storage.Open(filepath.Join(tb.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = db.Close() })
	v := vault.New(db, vault.Options{})
	tb.Cleanup(func() { _ = v.Close() })
	return &env{db: db, v: v, im: New(db, v, cfg)}
}

// stats is what the vault holds, for exact before/after comparisons.
type stats struct {
	Nodes, Edges int
	ByRelation   map[string]int
}

func (e *env) stats(tb testing.TB) stats {
	tb.Helper()
	st, err := e.v.Stats(context.Background())
	require.NoError(tb, err)
	rel := map[string]int{}
	for k, v := range st.ByRelation {
		if v > 0 {
			rel[k] = v
		}
	}
	return stats{Nodes: st.Nodes, Edges: st.Edges, ByRelation: rel}
}

// snapshot hashes every key and value of the vault and import buckets, so a test can prove
// that nothing was written.
func (e *env) snapshot(tb testing.TB) string {
	return e.hashBuckets(tb, hashOpts{seq: true, rev: true}, storage.BucketVaultNodes, storage.BucketVaultEdges,
		storage.BucketVaultIndex, storage.BucketVaultBodies, storage.BucketImports, storage.BucketImportFiles,
		storage.BucketSettings)
}

// hashOpts says what hashBuckets covers beside the keys and values.
type hashOpts struct {
	seq bool // each bucket's id sequence
	rev bool // the vault index's revision counter (~rev), which counts transactions
}

// hashBuckets hashes every key and value of the buckets named (a missing bucket is left out).
func (e *env) hashBuckets(tb testing.TB, o hashOpts, names ...[]byte) string {
	tb.Helper()
	h := sha256.New()
	err := e.db.View(func(tx *bolt.Tx) error {
		for _, name := range names {
			b := tx.Bucket(name)
			if b == nil {
				continue
			}
			fmt.Fprintf(h, "%s\n", name)
			if o.seq {
				fmt.Fprintf(h, "seq=%d\n", b.Sequence())
			}
			_ = b.ForEach(func(k, v []byte) error {
				if !o.rev && string(k) == "~rev" {
					return nil
				}
				h.Write(k)
				h.Write([]byte{0})
				h.Write(v)
				h.Write([]byte{1})
				return nil
			})
		}
		return nil
	})
	require.NoError(tb, err)
	return hex.EncodeToString(h.Sum(nil))
}

// nodeDump is every node with body and every edge, for exact comparisons after undo.
func (e *env) nodeDump(tb testing.TB) string {
	tb.Helper()
	var buf bytes.Buffer
	err := e.v.WithReadTx(context.Background(), func(r *vault.ReadTx) error {
		r.ForEachNode(func(n vault.Node) bool {
			full, err := r.Get(n.ID, true)
			require.NoError(tb, err)
			fmt.Fprintf(&buf, "%d %s %q %q %q %v %s %v %v %s|%s\n", full.ID, full.Type, full.Title, full.Content, full.Body,
				full.Confidence, full.Source, full.Tags, full.Meta, full.CreatedAt.Format(time.RFC3339Nano), full.UpdatedAt.Format(time.RFC3339Nano))
			for _, ed := range r.Edges(n.ID) {
				if ed.From == n.ID {
					fmt.Fprintf(&buf, "  edge %d %d→%d %s\n", ed.ID, ed.From, ed.To, ed.Relation)
				}
			}
			return true
		})
		return nil
	})
	require.NoError(tb, err)
	return buf.String()
}

// writeLib writes files (slash paths → content) under a new temp dir and returns it.
func writeLib(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	writeFiles(tb, dir, files)
	return dir
}

func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(tb, os.WriteFile(p, []byte(content), 0o644))
	}
}

// findCorpus locates ../shared/corpus/nova26/bistrolens-knowledge from the repository root.
func findCorpus() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "corpus", "nova26", "bistrolens-knowledge")
	if st, err := os.Stat(c); err != nil || !st.IsDir() {
		return "", false
	}
	return c, true
}

func corpusDir(tb testing.TB) string {
	tb.Helper()
	c, ok := findCorpus()
	if !ok {
		tb.Skip("corpus ../shared/corpus/nova26/bistrolens-knowledge not present")
	}
	return c
}

// pattern writes a small pattern file for nova's tests (text written for these tests).
func pattern(title, intro string, extra ...string) string {
	s := "# " + title + "\n\n" + intro + "\n\n## Usage\n\n```go\nfunc example() {}\n```\n"
	for _, e := range extra {
		s += "\n" + e + "\n"
	}
	return s
}

// reportsBySource indexes a result's reports.
func reportsBySource(r Result) map[string]NodeReport {
	m := map[string]NodeReport{}
	for _, n := range r.Nodes {
		m[n.SourceFile] = n
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func fsSub(fsys fs.FS, dir string) (fs.FS, error) { return fs.Sub(fsys, dir) }

func listFS(tb testing.TB, fsys fs.FS) []string {
	tb.Helper()
	var out []string
	require.NoError(tb, fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	}))
	return out
}
