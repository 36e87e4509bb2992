package importer

import (
	"context"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/patterns"
	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/engine/vault"
)

// corpusFacts are computed from the corpus files independently of the importer.
type corpusFacts struct {
	all, meta []string
	docs      map[string]patterns.Doc // parsed, by path
	failed    []string
	dups      map[string]string // duplicate → the earlier file it duplicates (exact Jaccard)
	category  map[string]string // by path: folder without its numeric prefix
	typeLine  map[string]bool   // the file states its type (front matter or **Type:**)
}

var (
	metaName   = regexp.MustCompile(`(?i)^(readme\.md|index\.md|kiro-.*\.md|extraction-.*\.md)$`)
	typeMarker = regexp.MustCompile(`(?mi)^(\*\*type:\*\*|type:)`)
	numPrefix  = regexp.MustCompile(`^[0-9]+[-_ ]*`)
)

func computeFacts(t *testing.T, root string, threshold float64) corpusFacts {
	t.Helper()
	f := corpusFacts{docs: map[string]patterns.Doc{}, dups: map[string]string{}, category: map[string]string{}, typeLine: map[string]bool{}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		rel = filepath.ToSlash(rel)
		f.all = append(f.all, rel)
		if metaName.MatchString(d.Name()) {
			f.meta = append(f.meta, rel)
			return nil
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		doc, perr := patterns.Parse(rel, data, patterns.ParseOptions{})
		if perr != nil {
			f.failed = append(f.failed, rel)
			return nil
		}
		f.docs[rel] = doc
		dir := path.Dir(rel)
		if dir == "." {
			f.category[rel] = "general"
		} else {
			f.category[rel] = strings.ToLower(numPrefix.ReplaceAllString(path.Base(dir), ""))
		}
		f.typeLine[rel] = typeMarker.Match(data)
		return nil
	})
	require.NoError(t, err)
	sort.Strings(f.all)
	// Exact Jaccard over word 3-shingles of title + body; the first file in path order wins.
	paths := sortedKeys(f.docs)
	sets := make([]map[string]struct{}, len(paths))
	for i, p := range paths {
		d := f.docs[p]
		sets[i] = textindex.WordShingles(d.Title+"\n"+d.Body, 3)
	}
	for j := range paths {
		for i := range j {
			if _, dup := f.dups[paths[i]]; dup {
				continue
			}
			if textindex.JaccardSets(sets[i], sets[j]) >= threshold {
				f.dups[paths[j]] = paths[i]
				break
			}
		}
	}
	return f
}

func TestImportRealCorpus(t *testing.T) {
	t.Parallel()
	root := corpusDir(t)
	e := newEnv(t, Config{})
	facts := computeFacts(t, root, DefaultDedupThreshold)
	require.NotEmpty(t, facts.all)
	loaded := len(facts.docs) - len(facts.dups)

	// Dry run first: same counts, nothing written.
	before := e.snapshot(t)
	dry, err := e.im.Import(context.Background(), DirSource(root), Options{DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, before, e.snapshot(t), "a dry run writes nothing")
	assert.Zero(t, dry.Batch)

	res, err := e.im.Import(context.Background(), DirSource(root), Options{})
	require.NoError(t, err)
	t.Logf("corpus: %d files, %d loaded, %d skipped (%d meta, %d duplicates), %d errors, %d nodes, %d edges",
		res.Files, res.Loaded, res.Skipped, res.Meta, res.Duplicates, res.Errors, res.NodesAdded, res.EdgesAdded)

	for _, r := range []Result{dry, res} {
		assert.Equal(t, len(facts.all), r.Files)
		assert.Equal(t, loaded, r.Loaded)
		assert.Equal(t, len(facts.meta)+len(facts.dups), r.Skipped)
		assert.Equal(t, len(facts.meta), r.Meta)
		assert.Equal(t, len(facts.dups), r.Duplicates)
		assert.Equal(t, len(facts.failed), r.Errors)
		assert.Len(t, r.ErrorDetails, len(facts.failed))
		assert.Equal(t, r.Files, r.Loaded+r.Skipped+r.Errors)
	}
	assert.Equal(t, dry.NodesAdded, res.NodesAdded, "the dry run predicts the import")
	assert.Equal(t, dry.EdgesAdded, res.EdgesAdded)
	assert.NotZero(t, res.Batch)

	// One node per loaded file, mapped as the issue says.
	st := e.stats(t)
	assert.Equal(t, loaded, st.Nodes)
	reps := reportsBySource(res)
	perCat := map[string]int{}
	for p, doc := range facts.docs {
		rep, ok := reps[p]
		require.True(t, ok, p)
		if dupOf, isDup := facts.dups[p]; isDup {
			assert.Equal(t, ActionDuplicate, rep.Action, p)
			assert.Equal(t, dupOf, rep.DuplicateOf, p)
			continue
		}
		require.Equal(t, ActionNew, rep.Action, p)
		perCat[facts.category[p]]++
		n, err := e.v.Get(context.Background(), rep.ID)
		require.NoError(t, err, p)
		assert.Equal(t, p, n.Source)
		assert.Equal(t, patterns.DefaultUser, n.UserID)
		assert.True(t, n.IsGlobal)
		assert.Equal(t, strings.TrimSpace(doc.Body), n.Body, "%s: the full body is kept", p)
		assert.Equal(t, facts.category[p], n.Meta[MetaCategory], p)
		assert.NotEmpty(t, n.Meta[MetaLibrary], "%s: the node names the library it came from", p)
		assert.Equal(t, doc.Language, n.Language, p)
		if !facts.typeLine[p] {
			assert.Equal(t, patterns.TypeForCategory(facts.category[p]), string(n.Type), p)
		}
		want := math.Min(0.99, 0.85+float64(doc.Reusability)*0.01)
		if strings.Contains(facts.category[p], "adaptation") {
			want = 0.95
		}
		assert.InDelta(t, want, n.Confidence, 1e-9, p)
		assert.Equal(t, len(doc.CodeExamples), rep.CodeExamples, p)
	}
	for _, m := range facts.meta {
		assert.Equal(t, ActionSkipped, reps[m].Action, m)
	}
	// Category chains: n-1 supports edges per category.
	wantSupports := 0
	for _, n := range perCat {
		wantSupports += n - 1
	}
	assert.Equal(t, wantSupports, st.ByRelation[string(vault.Supports)])
	assert.Equal(t, wantSupports, st.Edges)

	// Re-import: a no-op.
	snap := e.snapshot(t)
	again, err := e.im.Import(context.Background(), DirSource(root), Options{})
	require.NoError(t, err)
	assert.Zero(t, again.Batch)
	assert.Zero(t, again.Loaded)
	assert.Equal(t, loaded, again.Unchanged)
	assert.Equal(t, snap, e.snapshot(t), "re-importing an unchanged library writes nothing")

	// Undo: back to an empty vault.
	u, err := e.im.Undo(context.Background(), res.Batch)
	require.NoError(t, err)
	assert.Equal(t, loaded, u.NodesRemoved)
	assert.Equal(t, stats{ByRelation: map[string]int{}}, e.stats(t))
}

func TestImportRealCorpusSplit(t *testing.T) {
	t.Parallel()
	root := corpusDir(t)
	e := newEnv(t, Config{})
	res, err := e.im.Import(context.Background(), DirSource(root), Options{Split: true})
	require.NoError(t, err)
	// Sections are counted from the parser's split, file by file.
	sp, err := patterns.Scan(context.Background(), root, patterns.ScanOptions{Parse: patterns.ParseOptions{Split: true}})
	require.NoError(t, err)
	sections := 0
	for _, d := range sp.Docs {
		if reportsBySource(res)[d.SourceFile].Action == ActionNew {
			sections += len(d.Sections)
		}
	}
	require.Positive(t, sections, "the corpus has multi-pattern files")
	st := e.stats(t)
	assert.Equal(t, res.Loaded+sections, st.Nodes)
	assert.Equal(t, sections, st.ByRelation[string(vault.Refines)])
	for _, n := range res.Nodes {
		if n.ParentSource == "" || n.Action != ActionNew {
			continue
		}
		parent := reportsBySource(res)[n.ParentSource]
		edges, err := e.v.Edges(context.Background(), n.ID)
		require.NoError(t, err)
		found := false
		for _, ed := range edges {
			if ed.From == n.ID && ed.To == parent.ID && ed.Relation == vault.Refines {
				found = true
			}
		}
		assert.True(t, found, "%s refines %s", n.SourceFile, n.ParentSource)
	}
}
