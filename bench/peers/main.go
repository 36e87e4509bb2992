// Command peers compares nova's vault search with bleve v2 (BM25 scoring) on the same
// documents, side by side in one run (`make bench-peers`):
//
//   - speed: the generated 100k-node vault of the speed benchmarks (vaulttest.Flat), loaded
//     into nova as `nova vault import` loads it and into a bleve index; then, for each engine,
//     open + first query (a fresh open each time), warm query latency p50/p95, the peak Go
//     heap while serving (open and 1,000 queries), and the index size on disk;
//   - quality: the BistroLens pattern library (../shared/corpus/nova26/bistrolens-knowledge)
//     imported as `nova import` does, the same nodes indexed in bleve, scored on the
//     paraphrased query set (vaulttest.Paraphrases) with Recall@5 and MRR.
//
// It is a separate module so that bleve never enters nova's module graph.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

func main() {
	n := flag.Int("n", 100_000, "generated nodes")
	opens := flag.Int("opens", 15, "open + first query repetitions per engine")
	queries := flag.Int("queries", 1000, "warm queries per engine")
	corpus := flag.String("corpus", "../../../shared/corpus/nova26/bistrolens-knowledge", "the BistroLens pattern library")
	flag.Parse()
	dir, err := os.MkdirTemp("", "nova-peers")
	check(err)
	defer func() { _ = os.RemoveAll(dir) }()

	fmt.Printf("load: %d generated nodes (vaulttest.Flat), GOMAXPROCS %d\n", *n, runtime.GOMAXPROCS(0))
	nodes := vaulttest.Flat(*n, 16)
	var jsonl bytes.Buffer
	check(vaulttest.WriteJSONL(&jsonl, nodes))
	qs := vaulttest.Queries(*queries, 5)

	novaPath := filepath.Join(dir, "nova.db")
	novaLoad := measure(func() { loadNova(novaPath, jsonl.Bytes()) })
	blevePath := filepath.Join(dir, "bleve")
	bleveLoad := measure(func() { loadBleve(blevePath, nodes) })
	jsonl = bytes.Buffer{}
	nodes = nil

	novaOpen, novaWarm, novaHeap := serveNova(novaPath, qs, *opens)
	bleveOpen, bleveWarm, bleveHeap := serveBleve(blevePath, qs, *opens)
	novaFTS, novaFile := novaSizes(novaPath)
	bleveSize := dirSize(blevePath)

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\t nova\t bleve v2 (BM25)\t nova/bleve\t")
	row := func(name string, a, b float64, unit string) {
		fmt.Fprintf(w, "%s\t %.2f %s\t %.2f %s\t %.2f\t\n", name, a, unit, b, unit, a/b)
	}
	row("load: CPU", novaLoad.cpu.Seconds(), bleveLoad.cpu.Seconds(), "s")
	row("load: peak heap", mib(novaLoad.peak), mib(bleveLoad.peak), "MiB")
	row("open + first query: wall p50", ms(p(novaOpen.wall, 0.5)), ms(p(bleveOpen.wall, 0.5)), "ms")
	row("open + first query: CPU p50", ms(p(novaOpen.cpu, 0.5)), ms(p(bleveOpen.cpu, 0.5)), "ms")
	row("warm query: p50", ms(p(novaWarm, 0.5)), ms(p(bleveWarm, 0.5)), "ms")
	row("warm query: p95", ms(p(novaWarm, 0.95)), ms(p(bleveWarm, 0.95)), "ms")
	row("serving: peak heap", mib(novaHeap), mib(bleveHeap), "MiB")
	row("index on disk", mib(novaFTS), mib(bleveSize), "MiB")
	fmt.Fprintf(w, "nova's whole database file\t %.2f MiB\t \t \t\n", mib(novaFile))
	check(w.Flush())

	if _, err := os.Stat(*corpus); err != nil {
		fmt.Printf("\nquality: skipped (%s not found)\n", *corpus)
		return
	}
	nq, bq := quality(dir, *corpus)
	fmt.Printf("\nquality: %d paraphrased queries over the BistroLens library\n", len(vaulttest.Paraphrases))
	w = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\t nova\t bleve v2 (BM25)\t")
	fmt.Fprintf(w, "Recall@5\t %.3f\t %.3f\t\n", nq.RecallAt5, bq.RecallAt5)
	fmt.Fprintf(w, "MRR\t %.3f\t %.3f\t\n", nq.MRR, bq.MRR)
	check(w.Flush())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

// ---- measurement

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type cost struct {
	wall, cpu time.Duration
	peak      uint64 // Go heap in use, bytes
}

// measure runs fn and reports its wall and process CPU time and the peak Go heap (objects)
// while it ran, sampled every millisecond.
func measure(fn func()) cost {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			metrics.Read(sample)
			mu.Lock()
			peak = max(peak, sample[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	c0, t0 := processCPU(), time.Now()
	fn()
	c := cost{wall: time.Since(t0), cpu: processCPU() - c0}
	close(done)
	wg.Wait()
	c.peak = peak
	return c
}

type samples struct{ wall, cpu []time.Duration }

func p(s []time.Duration, q float64) time.Duration {
	s = slices.Sorted(slices.Values(s))
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mib(n uint64) float64       { return float64(n) / (1 << 20) }

func dirSize(dir string) uint64 {
	var n uint64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += uint64(fi.Size())
			}
		}
		return nil
	})
	return n
}

// ---- nova

func loadNova(path string, jsonl []byte) {
	db, err := storage.Open(path, storage.Options{})
	check(err)
	v := vault.New(db, vault.Options{Tier: vault.TierPremium})
	_, err = v.Import(context.Background(), bytes.NewReader(jsonl))
	check(err)
	check(v.Close())
	check(db.Close())
}

func openNova(path string) (*storage.DB, *vault.Vault) {
	db, err := storage.Open(path, storage.Options{ReadOnly: true})
	check(err)
	return db, vault.New(db, vault.Options{Tier: vault.TierPremium})
}

func searchNova(v *vault.Vault, q string, limit int) []vault.Scored {
	hits, err := v.Search(context.Background(), q, vault.SearchOptions{Limit: limit, NoEmbeddings: true})
	check(err)
	return hits
}

func serveNova(path string, qs []string, opens int) (samples, []time.Duration, uint64) {
	var open samples
	var warm []time.Duration
	c := measure(func() {
		for i := range opens {
			c0, t0 := processCPU(), time.Now()
			db, v := openNova(path)
			searchNova(v, qs[i], 10)
			open.wall, open.cpu = append(open.wall, time.Since(t0)), append(open.cpu, processCPU()-c0)
			check(v.Close())
			check(db.Close())
		}
		db, v := openNova(path)
		defer func() { _ = v.Close(); _ = db.Close() }()
		for _, q := range qs {
			searchNova(v, q, 10)
		}
		for _, q := range qs {
			t0 := time.Now()
			searchNova(v, q, 10)
			warm = append(warm, time.Since(t0))
		}
	})
	return open, warm, c.peak
}

// novaSizes returns the bytes of the full-text index's buckets (pages allocated) and of the
// whole database file.
func novaSizes(path string) (fts, file uint64) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	check(err)
	defer func() { _ = db.Close() }()
	check(db.View(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{storage.BucketVaultTerms, storage.BucketVaultPostings} {
			s := tx.Bucket(name).Stats()
			fts += uint64(s.BranchAlloc + s.LeafAlloc)
		}
		return nil
	}))
	fi, err := os.Stat(path)
	check(err)
	return fts, uint64(fi.Size())
}

// ---- bleve

// bleveDoc is a node as bleve indexes it: the same text fields as nova's index.
type bleveDoc struct {
	Title   string `json:"title"`
	Content string `json:"content"`
	Tags    string `json:"tags"`
	Body    string `json:"body"`
	Source  string `json:"source"`
}

func docOf(n vault.Node) bleveDoc {
	return bleveDoc{Title: n.Title, Content: n.Content, Tags: strings.Join(n.Tags, " "), Body: n.Body, Source: n.Source}
}

// bleveMapping uses BM25 and the English analyzer (stemming, stop words) on every text
// field, as nova analyses its fields.
func bleveMapping() mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.DefaultAnalyzer = en.AnalyzerName
	doc := bleve.NewDocumentMapping()
	for _, f := range []string{"title", "content", "tags", "body"} {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.Store = false
		fm.IncludeInAll = false
		doc.AddFieldMappingsAt(f, fm)
	}
	src := bleve.NewKeywordFieldMapping()
	src.Index = false
	src.IncludeInAll = false
	doc.AddFieldMappingsAt("source", src)
	m.DefaultMapping = doc
	return m
}

func loadBleve(path string, nodes []vault.Node) {
	ix, err := bleve.New(path, bleveMapping())
	check(err)
	b := ix.NewBatch()
	for i, n := range nodes {
		check(b.Index(strconv.Itoa(i+1), docOf(n)))
		if b.Size() == 1000 {
			check(ix.Batch(b))
			b = ix.NewBatch()
		}
	}
	check(ix.Batch(b))
	check(ix.Close())
}

// bleveQuery matches the query in every field with nova's field weights as boosts.
func bleveQuery(q string) query.Query {
	var qs []query.Query
	for _, f := range []struct {
		name  string
		boost float64
	}{{"title", 4}, {"content", 2}, {"tags", 2}, {"body", 1}} {
		m := bleve.NewMatchQuery(q)
		m.SetField(f.name)
		m.SetBoost(f.boost)
		qs = append(qs, m)
	}
	return bleve.NewDisjunctionQuery(qs...)
}

func searchBleve(ix bleve.Index, q string, limit int) *bleve.SearchResult {
	req := bleve.NewSearchRequestOptions(bleveQuery(q), limit, 0, false)
	res, err := ix.Search(req)
	check(err)
	return res
}

func serveBleve(path string, qs []string, opens int) (samples, []time.Duration, uint64) {
	var open samples
	var warm []time.Duration
	c := measure(func() {
		for i := range opens {
			c0, t0 := processCPU(), time.Now()
			ix, err := bleve.Open(path)
			check(err)
			searchBleve(ix, qs[i], 10)
			open.wall, open.cpu = append(open.wall, time.Since(t0)), append(open.cpu, processCPU()-c0)
			check(ix.Close())
		}
		ix, err := bleve.Open(path)
		check(err)
		defer func() { _ = ix.Close() }()
		for _, q := range qs {
			searchBleve(ix, q, 10)
		}
		for _, q := range qs {
			t0 := time.Now()
			searchBleve(ix, q, 10)
			warm = append(warm, time.Since(t0))
		}
	})
	return open, warm, c.peak
}

// ---- quality

// quality imports the library into a nova vault as `nova import` does, indexes the same
// nodes in bleve, and scores both on the paraphrase set.
func quality(dir, corpus string) (nq, bq vaulttest.Quality) {
	db, err := storage.Open(filepath.Join(dir, "quality.db"), storage.Options{NoSync: true})
	check(err)
	defer func() { _ = db.Close() }()
	v := vault.New(db, vault.Options{})
	defer func() { _ = v.Close() }()
	ctx := context.Background()
	_, err = importer.New(db, v, importer.Config{}).Import(ctx, importer.DirSource(corpus), importer.Options{})
	check(err)
	var nodes []vault.Node
	check(v.WithReadTx(ctx, func(r *vault.ReadTx) error {
		r.ForEachNode(func(n vault.Node) bool {
			if n.HasBody {
				n.Body = r.Body(n.ID)
			}
			nodes = append(nodes, n)
			return true
		})
		return nil
	}))
	nq = vaulttest.Score(func(q string) []string {
		var out []string
		for _, h := range searchNova(v, q, 10) {
			out = append(out, h.Source)
		}
		return out
	})
	ix, err := bleve.New(filepath.Join(dir, "quality.bleve"), bleveMapping())
	check(err)
	defer func() { _ = ix.Close() }()
	bySource := map[string]string{}
	b := ix.NewBatch()
	for _, n := range nodes {
		id := strconv.FormatUint(n.ID, 10)
		bySource[id] = n.Source
		check(b.Index(id, docOf(n)))
	}
	check(ix.Batch(b))
	bq = vaulttest.Score(func(q string) []string {
		var out []string
		for _, h := range searchBleve(ix, q, 10).Hits {
			out = append(out, bySource[h.ID])
		}
		return out
	})
	return nq, bq
}
