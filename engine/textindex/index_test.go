package textindex

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// note is a small vault-like document for ranking tests, written for these tests.
type note struct {
	id                   uint64
	title, summary, body string
	tags                 []string
}

func (n note) fields() []Field {
	return []Field{Title(n.title), Summary(n.summary), Body(n.body), Tags(n.tags...)}
}

var notes = []note{
	{1, "Session management and authentication tokens",
		"Short-lived access tokens with refresh rotation; sessions are invalidated on password change.",
		"Store the refresh token in an httpOnly cookie. Rotate it on every use and revoke the whole family when reuse is detected. Expire idle sessions after 30 minutes.",
		[]string{"security", "backend"}},
	{2, "Retry transient network calls with exponential backoff",
		"Wrap calls to Ollama in a retry loop with jitter and a cap.",
		"Only retry idempotent requests. Use exponential backoff starting at 200ms with full jitter, give up after five attempts and surface the last error to the user.",
		[]string{"resilience", "llm"}},
	{3, "Keep the terminal UI responsive",
		"Never block the Bubble Tea update loop; run long work in commands.",
		"Users notice any frame over 16ms. Move file walking, model calls and diffing into tea.Cmd functions and stream progress back as messages.",
		[]string{"tui", "performance"}},
	{4, "Prefer table-driven tests",
		"Table-driven tests with t.Run subtests keep cases readable.",
		"Name every case, run subtests in parallel where safe, and use require for preconditions and assert for comparisons.",
		[]string{"testing", "go"}},
	{5, "Soft-delete vault nodes instead of removing them",
		"Mark nodes as forgotten and purge them later.",
		"A forgotten node keeps its edges for undo. The purge job removes nodes forgotten for more than 30 days together with their edges.",
		[]string{"vault", "storage"}},
	{6, "Wrap errors with context",
		"fmt.Errorf with %w and a short lowercase context.",
		"Callers branch on sentinel errors with errors.Is. Never log and return the same error; do one or the other.",
		[]string{"go", "errors"}},
	{7, "Cache rendered markdown",
		"Memoize glamour output per width to avoid re-rendering on every frame.",
		"Rendering markdown is slow for long documents. Key the cache on content hash and terminal width and drop entries on theme change.",
		[]string{"tui", "performance"}},
	{8, "Store secrets outside the workspace database",
		"API keys belong in the OS keychain or environment, never in bbolt.",
		"The doctor command warns when a config value looks like a credential. Redact tokens in logs.",
		[]string{"security", "config"}},
	{9, "Translate user-facing strings",
		"Keep messages in catalogs keyed by locale.",
		"Plural rules differ by language; never concatenate translated fragments.",
		[]string{"i18n"}},
	{10, "High-contrast themes for accessibility",
		"Every palette must meet WCAG AA contrast for body text.",
		"Check foreground and background pairs when a theme is built and fall back to the high-contrast palette when a pair fails.",
		[]string{"a11y", "themes"}},
	{11, "Database migrations run in order",
		"Schema version plus an ordered list of migrations in the storage package.",
		"Each migration runs in its own bbolt transaction and bumps the schema version on success; a failed migration leaves the file untouched.",
		[]string{"storage"}},
	{12, "Company record lookup",
		"How the importer resolves a companyId to a record.",
		"The importer reads company_id from legacy files and maps it to the new companyId field before writing.",
		[]string{"importer"}},
	{13, "Café menu parser",
		"Parses menus with accented names like crème brûlée.",
		"Unicode names are normalised before comparison; the parser never panics on malformed input.",
		[]string{"parser"}},
	{14, "Keep pull requests small",
		"Small changes review faster and revert cleanly.",
		"Split refactors from behaviour changes and keep each change under four hundred lines when possible.",
		[]string{"process"}},
}

func newNotesIndex(t *testing.T) *Index {
	t.Helper()
	ix := New(Options{})
	for _, n := range notes {
		ix.Add(n.id, n.fields()...)
	}
	require.Equal(t, len(notes), ix.Len())
	return ix
}

func ids(hits []Hit) []uint64 {
	out := make([]uint64, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestSearchExactTitleRanksFirst(t *testing.T) {
	t.Parallel()
	ix := newNotesIndex(t)
	for _, n := range notes {
		hits := ix.Search(n.title, 5, nil)
		require.NotEmpty(t, hits, n.title)
		assert.Equal(t, n.id, hits[0].ID, "title %q", n.title)
	}
}

func TestSearchParaphrase(t *testing.T) {
	t.Parallel()
	ix := newNotesIndex(t)
	cases := []struct {
		query string
		want  uint64
	}{
		{"how do I keep users logged in securely", 1},
		{"sign-in flow", 1},
		{"resilience when the network fails", 2},
		{"deleting records from the database", 5},
		{"exception handling", 6},
		{"memoization of slow output", 7},
		{"protecting secret keys", 8},
		{"localization", 9},
		{"screen reader and a11y", 10},
		{"unit test assertions", 4},
	}
	for _, c := range cases {
		hits := ix.Search(c.query, 3, nil)
		require.NotEmpty(t, hits, c.query)
		assert.Equal(t, c.want, hits[0].ID, "query %q got %v", c.query, ids(hits))
	}
}

func TestQueryPhraseReplacesHead(t *testing.T) {
	t.Parallel()
	ix := New(Options{})
	ix.Add(1, Body("error logs are rotated daily"))
	ix.Add(2, Body("users stay logged in for a week"))
	hits := ix.Search("stay logged in", 5, nil)
	require.NotEmpty(t, hits)
	assert.Equal(t, uint64(2), hits[0].ID)
	for _, h := range ix.Search("logged in", 5, nil) {
		assert.NotEqual(t, uint64(1), h.ID, "\"logged in\" is about login, not logs")
	}
}

func TestSearchBodyOnlyTerms(t *testing.T) {
	t.Parallel()
	ix := newNotesIndex(t)
	hits := ix.Search("jitter", 5, nil)
	require.NotEmpty(t, hits)
	assert.Equal(t, uint64(2), hits[0].ID)
	hits = ix.Search("keychain", 5, nil)
	require.Len(t, hits, 1)
	assert.Equal(t, uint64(8), hits[0].ID)
}

func TestSearchFieldWeights(t *testing.T) {
	t.Parallel()
	ix := New(Options{})
	ix.Add(1, Title("unrelated words here"), Body("the widget appears in the body once"))
	ix.Add(2, Title("widget"), Body("nothing else of interest in this body text at all"))
	hits := ix.Search("widget", 2, nil)
	require.Len(t, hits, 2)
	assert.Equal(t, uint64(2), hits[0].ID)
	assert.Greater(t, hits[0].Score, hits[1].Score)
}

func TestSearchLiteralBeatsSynonym(t *testing.T) {
	t.Parallel()
	ix := New(Options{})
	ix.Add(1, Body("keep the storage layer thin"))
	ix.Add(2, Body("keep the database layer thin"))
	hits := ix.Search("database", 5, nil)
	require.Len(t, hits, 2)
	assert.Equal(t, []uint64{2, 1}, ids(hits))

	noSyn := New(Options{SynonymWeight: -1})
	noSyn.Add(1, Body("keep the storage layer thin"))
	noSyn.Add(2, Body("keep the database layer thin"))
	assert.Equal(t, []uint64{2}, ids(noSyn.Search("database", 5, nil)))
}

func TestSearchCustomSynonyms(t *testing.T) {
	t.Parallel()
	ix := New(Options{Synonyms: [][]string{{"rehearsal", "branch", "alternative"}}})
	ix.Add(1, Body("compare alternatives side by side"))
	ix.Add(2, Body("the build plan lists tasks"))
	assert.Equal(t, []uint64{1}, ids(ix.Search("rehearsal", 5, nil)))

	only := New(Options{NoDefaultSynonyms: true, Synonyms: [][]string{{"rehearsal", "alternative"}}})
	only.Add(1, Body("the database file"))
	assert.Empty(t, only.Search("db", 5, nil), "default groups are off")
}

func TestSearchIdentifiers(t *testing.T) {
	t.Parallel()
	ix := newNotesIndex(t)
	for _, q := range []string{"companyId", "company_id", "company id", "CompanyID"} {
		hits := ix.Search(q, 3, nil)
		require.NotEmpty(t, hits, q)
		assert.Equal(t, uint64(12), hits[0].ID, q)
	}
}

func TestSearchUnicode(t *testing.T) {
	t.Parallel()
	ix := newNotesIndex(t)
	for _, q := range []string{"cafe", "CAFÉ", "creme brulee"} {
		hits := ix.Search(q, 3, nil)
		require.NotEmpty(t, hits, q)
		assert.Equal(t, uint64(13), hits[0].ID, q)
	}
	ix.Add(99, Title("Привет мир"), Body("日本語 テキスト"))
	assert.Equal(t, []uint64{99}, ids(ix.Search("привет", 3, nil)))
	assert.Equal(t, []uint64{99}, ids(ix.Search("日本語", 3, nil)))
}

func TestSearchFallback(t *testing.T) {
	t.Parallel()
	ix := newNotesIndex(t)
	hits := ix.Search("authentic", 3, nil) // prefix of the stem of "authentication"
	require.NotEmpty(t, hits)
	assert.Equal(t, uint64(1), hits[0].ID)
	hits = ix.Search("mirgations", 3, nil) // transposition
	require.NotEmpty(t, hits)
	assert.Equal(t, uint64(11), hits[0].ID)
	hits = ix.Search("keycahin", 3, nil)
	require.NotEmpty(t, hits)
	assert.Equal(t, uint64(8), hits[0].ID)

	strict := New(Options{NoFuzzy: true})
	for _, n := range notes {
		strict.Add(n.id, n.fields()...)
	}
	assert.Empty(t, strict.Search("keycahin", 3, nil))
}

func TestSearchEmptyAndLimits(t *testing.T) {
	t.Parallel()
	assert.Nil(t, New(Options{}).Search("anything", 10, nil), "empty index")
	ix := newNotesIndex(t)
	for _, q := range []string{"", "   ", "the of and to", "!!! ---", "\xff\xfe"} {
		assert.Nil(t, ix.Search(q, 10, nil), "%q", q)
	}
	assert.Nil(t, ix.Search("zzzqqq xxyyzz", 10, nil), "unknown terms")
	assert.Nil(t, ix.Search("\x00 \x001 \x0012", 10, nil), "concept terms are not reachable")
	all := ix.Search("keep", 100, nil)
	require.Greater(t, len(all), 2)
	assert.Len(t, ix.Search("keep", 2, nil), 2)
	assert.Len(t, ix.Search("keep", 0, nil), min(DefaultLimit, len(all)))
	for i := 1; i < len(all); i++ {
		assert.GreaterOrEqual(t, all[i-1].Score, all[i].Score)
	}
}

func TestSearchFilter(t *testing.T) {
	t.Parallel()
	ix := newNotesIndex(t)
	even := func(id uint64) bool { return id%2 == 0 }
	hits := ix.Search("keep tests small and fast", 20, even)
	require.NotEmpty(t, hits)
	for _, h := range hits {
		assert.Zero(t, h.ID%2, "filtered out id %d returned", h.ID)
	}
	unfiltered := ix.Search("keep tests small and fast", 20, nil)
	var want []uint64
	for _, h := range unfiltered {
		if even(h.ID) {
			want = append(want, h.ID)
		}
	}
	assert.Equal(t, want, ids(hits))
	assert.Empty(t, ix.Search("keep", 10, func(uint64) bool { return false }))
}

func TestRemoveAndUpsert(t *testing.T) {
	t.Parallel()
	ix := newNotesIndex(t)
	require.Equal(t, uint64(2), ix.Search("jitter", 1, nil)[0].ID)
	assert.True(t, ix.Remove(2))
	assert.False(t, ix.Remove(2))
	assert.False(t, ix.Has(2))
	assert.Equal(t, len(notes)-1, ix.Len())
	for _, h := range ix.Search("retry backoff jitter", 20, nil) {
		assert.NotEqual(t, uint64(2), h.ID)
	}

	ix.Upsert(8, Title("Keychain integration"), Body("use the platform credential store"))
	assert.Equal(t, len(notes)-1, ix.Len())
	assert.Empty(t, ix.Search("bbolt doctor redact", 10, func(id uint64) bool { return id == 8 }),
		"old text of an upserted document is gone")
	assert.Equal(t, uint64(8), ix.Search("keychain integration", 1, nil)[0].ID)

	ix.Add(2, Title("Back again"), Body("jitter returns"))
	assert.True(t, ix.Has(2))
	assert.Equal(t, uint64(2), ix.Search("jitter", 1, nil)[0].ID)
}

func TestAddBatchLastWins(t *testing.T) {
	t.Parallel()
	for _, n := range []int{10, batchParallelMin + 10} {
		ix := New(Options{NoFuzzy: true})
		docs := make([]Doc, n)
		for i := range docs {
			docs[i] = Doc{ID: uint64(i % (n - 5)), Fields: []Field{Body(fmt.Sprintf("version%d filler", i))}}
		}
		ix.AddBatch(docs)
		assert.Equal(t, n-5, ix.Len())
		assert.Empty(t, ix.Search("version0", 5, nil), "n=%d: superseded in batch", n)
		assert.Equal(t, []uint64{0}, ids(ix.Search(fmt.Sprintf("version%d", n-5), 5, nil)), "n=%d", n)
	}
}

// corpusDocs generates n documents with the benchmark generator.
func corpusDocs(n int, seed uint64) []Doc {
	g := newGenerator(seed)
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = g.doc(uint64(i + 1))
	}
	return docs
}

// allPostings decodes every posting of term in st.
func allPostings(t testing.TB, e *Engine, st Store, term string) []posting {
	rec, _, err := lookupTerm(st, term)
	require.NoError(t, err, "record of %q", term)
	all, err := e.postingsOf(st, term, &rec, nil)
	require.NoError(t, err, "postings of %q", term)
	return all
}

// bruteForce scores every document for the index's expansion of query, exhaustively, over
// the full posting lists.
func bruteForce(t testing.TB, ix *Index, query string, filter func(uint64) bool) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	e := ix.eng
	s := new(searchScratch)
	require.NoError(t, e.expandQuery(s, &ix.st, query))
	m, err := e.readMeta(&ix.st)
	require.NoError(t, err)
	norm := e.buildNorm(m.avg(e.nf))
	scores := map[uint64]float64{}
	for _, qt := range s.terms {
		ps := allPostings(t, e, &ix.st, qt.term)
		df := float64(len(ps))
		require.Equal(t, qt.rec.df, uint64(len(ps)), "df of %q", qt.term)
		idf := math.Log(1 + (float64(m.n)-df+0.5)/(df+0.5))
		for _, p := range ps {
			scores[p.doc] += qt.weight * idf * (e.k1 + 1) * norm.v(p.tf, p.code)
		}
	}
	var hits []Hit
	for d, sc := range scores {
		if filter == nil || filter(d) {
			hits = append(hits, Hit{ID: d, Score: sc})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	return hits
}

// assertSameTop checks that got is the top of the exhaustive ranking: the same scores, and
// every returned document with its exact score.
func assertSameTop(t *testing.T, want, got []Hit, limit int, msg string) {
	t.Helper()
	want = want[:min(limit, len(want))]
	if !assert.Len(t, got, len(want), msg) {
		return
	}
	exact := map[uint64]float64{}
	for _, h := range want {
		exact[h.ID] = h.Score
	}
	for i := range want {
		assert.InDelta(t, want[i].Score, got[i].Score, 1e-9*want[i].Score, "%s rank %d", msg, i)
		if s, ok := exact[got[i].ID]; ok {
			assert.InDelta(t, s, got[i].Score, 1e-9*s, msg)
		} else {
			// Only a tie with the last kept score may swap documents.
			assert.InDelta(t, want[len(want)-1].Score, got[i].Score, 1e-9*got[i].Score, msg)
		}
	}
}

func TestSearchMatchesExhaustiveScoring(t *testing.T) {
	t.Parallel()
	docs := corpusDocs(4000, 7)
	ix := New(Options{})
	ix.AddBatch(docs)
	for i := uint64(1); i <= 4000; i += 7 {
		ix.Remove(i)
	}
	g := newGenerator(99)
	filter := func(id uint64) bool { return id%3 != 0 }
	for i := range 300 {
		q := g.query()
		for _, limit := range []int{1, 10, 50} {
			f := filter
			if i%2 == 0 {
				f = nil
			}
			want := bruteForce(t, ix, q, f)
			got := ix.Search(q, limit, f)
			assertSameTop(t, want, got, limit, fmt.Sprintf("query %q limit %d", q, limit))
		}
	}
}

func TestBatchAndIncrementalAgree(t *testing.T) {
	t.Parallel()
	docs := corpusDocs(3000, 11)
	batch := New(Options{})
	batch.AddBatch(docs[:2000])
	batch.AddBatch(docs[2000:]) // second parallel batch appends to existing lists
	incr := New(Options{})
	for _, d := range docs {
		incr.Add(d.ID, d.Fields...)
	}
	require.Equal(t, incr.Len(), batch.Len())
	g := newGenerator(5)
	for range 200 {
		q := g.query()
		a, b := batch.Search(q, 10, nil), incr.Search(q, 10, nil)
		require.Len(t, b, len(a), q)
		for i := range a {
			assert.InDelta(t, a[i].Score, b[i].Score, 1e-9*a[i].Score, q)
		}
	}
}

// TestBatchScannerMatchesTokenizer checks the batch path's fused scanner against the general
// tokenizer on awkward text: both must produce identical postings.
func TestBatchScannerMatchesTokenizer(t *testing.T) {
	t.Parallel()
	snippets := []string{
		"Café crème—brûlée", "word—next", "über_Schall", "HTTPServer", "companyId=42", "user_id",
		"__init__", "3D", "x", "I'm logged in", "sign-up", "Straße", "日本語テキスト", "a\u0301b",
		"MAX_RETRY_COUNT", "v2.1.0", "i18n/a11y", strings.Repeat("z", 70), "ÀÉÎ", "naïve—résumé",
		"\xff\xfe broken", "tab\tsep\nline", "Émile's", "soft-deleted", "screen reader",
	}
	rng := rand.New(rand.NewPCG(5, 6))
	docs := make([]Doc, batchParallelMin+50)
	for i := range docs {
		var b strings.Builder
		for range 3 + rng.IntN(12) {
			b.WriteString(snippets[rng.IntN(len(snippets))])
			b.WriteString([]string{" ", "", ". ", "\n"}[rng.IntN(4)])
		}
		docs[i] = Doc{ID: uint64(i), Fields: []Field{Title(snippets[i%len(snippets)]), Body(b.String())}}
	}
	batch, incr := New(Options{}), New(Options{})
	batch.AddBatch(docs)
	for _, d := range docs {
		incr.Add(d.ID, d.Fields...)
	}
	var terms []string
	incr.st.SeekTerms(nil, func(k, v []byte) bool {
		if k[0] != 0xff {
			terms = append(terms, string(k))
		}
		return true
	})
	var batchTerms []string
	batch.st.SeekTerms(nil, func(k, v []byte) bool {
		if k[0] != 0xff {
			batchTerms = append(batchTerms, string(k))
		}
		return true
	})
	require.Equal(t, terms, batchTerms)
	for _, term := range terms {
		assert.Equal(t, allPostings(t, incr.eng, &incr.st, term), allPostings(t, batch.eng, &batch.st, term), "term %q", term)
	}
}

// TestRemovalMatchesFreshIndex: an index after many removals scores exactly like one built
// from the documents that are left.
func TestRemovalMatchesFreshIndex(t *testing.T) {
	t.Parallel()
	docs := corpusDocs(1500, 3)
	ix := New(Options{})
	ix.AddBatch(docs)
	rng := rand.New(rand.NewPCG(1, 2))
	var kept []Doc
	for _, d := range docs {
		if rng.IntN(10) < 6 {
			ix.Remove(d.ID)
		} else {
			kept = append(kept, d)
		}
	}
	fresh := New(Options{})
	fresh.AddBatch(kept)
	require.Equal(t, fresh.Len(), ix.Len())
	g := newGenerator(8)
	for range 200 {
		q := g.query()
		a, b := ix.Search(q, 10, nil), fresh.Search(q, 10, nil)
		require.Len(t, a, len(b), q)
		for i := range a {
			assert.InDelta(t, b[i].Score, a[i].Score, 1e-9*b[i].Score, q)
		}
	}
}

func TestConcurrentSearchAndWrite(t *testing.T) {
	t.Parallel()
	ix := New(Options{})
	ix.AddBatch(corpusDocs(1200, 4))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			g := newGenerator(uint64(100 + w))
			for range 200 {
				hits := ix.Search(g.query(), 10, nil)
				assert.LessOrEqual(t, len(hits), 10)
			}
		})
	}
	wg.Go(func() {
		g := newGenerator(42)
		for i := range 300 {
			id := uint64(2000 + i)
			ix.Add(id, g.doc(id).Fields...)
			if i%3 == 0 {
				ix.Remove(uint64(1 + i))
			}
		}
	})
	wg.Wait()
	assert.Equal(t, 1200+300-100, ix.Len())
}

func TestNewPanicsOnBadOptions(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() {
		New(Options{Fields: []FieldSpec{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}})
	})
	assert.Panics(t, func() { New(Options{Fields: []FieldSpec{{Name: "a"}, {Name: "a"}}}) })
	ix := New(Options{Fields: []FieldSpec{{Name: "text"}}})
	ix.Add(1, Field{Name: "anything", Text: "routed to the only field"})
	assert.Equal(t, []uint64{1}, ids(ix.Search("routed", 5, nil)))
}

func FuzzSearch(f *testing.F) {
	f.Add("Session tokens", "how do I keep users logged in", "companyId user_id", 5)
	f.Add("", "", "", 0)
	f.Add("\xff\xfe", "\x00", "日本語", -1)
	f.Add("retry backoff", "retr", "authen databse", 100)
	f.Fuzz(func(t *testing.T, title, body, query string, limit int) {
		ix := New(Options{})
		for i, n := range notes[:4] {
			ix.Add(uint64(i), n.fields()...)
		}
		ix.Add(100, Title(title), Body(body))
		ix.Add(101, Body(strings.ToUpper(body)), Title(query))
		limit %= 1000
		hits := ix.Search(query, limit, nil)
		want := limit
		if want <= 0 {
			want = DefaultLimit
		}
		if len(hits) > want {
			t.Fatalf("%d hits for limit %d", len(hits), limit)
		}
		for i, h := range hits {
			if !ix.Has(h.ID) || math.IsNaN(h.Score) || math.IsInf(h.Score, 0) || h.Score <= 0 {
				t.Fatalf("bad hit %+v", h)
			}
			if i > 0 && hits[i-1].Score < h.Score {
				t.Fatalf("hits out of order: %+v", hits)
			}
			// A hit covers some of the query, never more than all of it.
			if c, n := ix.Coverage(query, h.ID); c <= 0 || c > float64(n) || math.IsNaN(c) {
				t.Fatalf("coverage %v of %d terms for hit %+v", c, n, h)
			}
		}
		ix.Remove(100)
		for _, h := range ix.Search(query, limit, nil) {
			if h.ID == 100 {
				t.Fatal("removed document returned")
			}
		}
	})
}

// TestPlanInStepsMatchesApply: a batch applied term range by term range, as a bulk load
// does over several transactions, gives the same index as one Apply; until the last step
// the index record is the old one.
func TestPlanInStepsMatchesApply(t *testing.T) {
	t.Parallel()
	docs := corpusDocs(1500, 17)
	one, stepped := New(Options{}), New(Options{})
	one.AddBatch(docs[:500])
	stepped.AddBatch(docs[:500])
	var b Batch
	for _, d := range docs[500:] {
		b.Put(d.ID, nil, d.Fields)
	}
	for _, d := range docs[:100] { // replacements and removals too
		b.Remove(d.ID, d.Fields)
	}
	require.NoError(t, one.eng.Apply(&one.st, &b))
	before, err := stepped.eng.Stats(&stepped.st)
	require.NoError(t, err)
	plan := stepped.eng.Plan(&b)
	steps := 0
	for {
		done, err := plan.Step(&stepped.st, 2000)
		require.NoError(t, err)
		steps++
		if done {
			break
		}
		st, err := stepped.eng.Stats(&stepped.st)
		require.NoError(t, err)
		assert.Equal(t, before, st, "the index record changes with the last step only")
	}
	assert.Greater(t, steps, 5)
	assert.Empty(t, stepped.eng.Compare(&stepped.st, &one.st, 10))
}

func TestHitCoverage(t *testing.T) {
	t.Parallel()
	ix := New(Options{})
	ix.Add(1, Title("alpha beta"), Body("unrelated words"))
	ix.Add(2, Title("alpha"), Body("beta beta beta beta"))
	ix.Add(3, Body("alpha beta"))
	ix.Add(4, Summary("gamma"), Tags("alphabet"))
	cov := map[uint64]float64{}
	for _, h := range ix.Search("alpha beta", 10, nil) {
		cov[h.ID] = h.Coverage
	}
	assert.Equal(t, map[uint64]float64{1: 1, 2: 0.5, 3: 0}, cov, "key fields only; the body does not count")
	for _, h := range ix.Search("alphab gamma", 10, nil) { // a prefix expansion counts for its word
		if h.ID == 4 {
			assert.InDelta(t, 1.0, h.Coverage, 1e-12)
		}
	}
}

// TestRepeatedFieldIsCountedAgain: a field with the same text as the one before it (a node
// without a title has its summary line as its title) gets the postings it would get if it
// were analysed on its own.
func TestRepeatedFieldIsCountedAgain(t *testing.T) {
	t.Parallel()
	text := "Users logged in twice; cachedResults and snake_case keep the HTTPServer happy"
	adjacent, apart := New(Options{}), New(Options{})
	adjacent.Add(1, Title(text), Summary(text), Body("other words"))
	apart.Add(1, Title(text), Body("other words"), Summary(text))
	for _, term := range Analyze(text + " login") {
		assert.Equal(t, allPostings(t, apart.eng, &apart.st, term), allPostings(t, adjacent.eng, &adjacent.st, term), term)
	}
	ma, err := adjacent.eng.readMeta(&adjacent.st)
	require.NoError(t, err)
	mb, err := apart.eng.readMeta(&apart.st)
	require.NoError(t, err)
	assert.Equal(t, mb.totals, ma.totals)
}

// TestStepPrefetchesTermRecords: a step of many terms reads the stored term records of its
// range in one pass; when the range holds many more stored terms than the step writes it
// looks them up one by one instead. Either way the index is the one Apply writes through
// the store's lookups.
func TestStepPrefetchesTermRecords(t *testing.T) {
	t.Parallel()
	// word(i) is a distinct word per i, in the order of i, that the analyzer keeps whole.
	word := func(i int) string {
		const letters = "bcdfghjkmnpqrtvwxz"
		w := []byte("k")
		for range 3 {
			w = append(w, letters[i%len(letters)])
			i /= len(letters)
		}
		slices.Reverse(w[1:])
		return string(w)
	}
	docsOf := func(from, n, stride int) []Doc {
		out := make([]Doc, n)
		for i := range out {
			out[i] = Doc{ID: uint64(from + i), Fields: []Field{Title(word(i * stride))}}
		}
		return out
	}
	for _, c := range []struct {
		name     string
		existing []Doc
		added    []Doc
		wantOK   bool
	}{
		{"bulk load into a small index", corpusDocs(20, 3), docsOf(1000, 1500, 2), true},
		{"small load into a large index", docsOf(1, 4500, 1), docsOf(10000, 1100, 4), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			one, stepped := New(Options{}), New(Options{})
			one.AddBatch(c.existing)
			stepped.AddBatch(c.existing)
			var b Batch
			for _, d := range c.added {
				b.Put(d.ID, nil, d.Fields)
			}
			b.Remove(c.existing[0].ID, c.existing[0].Fields)
			plan := stepped.eng.Plan(&b)
			done, err := plan.Step(&stepped.st, 0)
			require.NoError(t, err)
			require.True(t, done)
			assert.Equal(t, c.wantOK, plan.w.known.ok, "prefetched")
			// The reference: steps of fewer than prefetchMin terms, each term looked up.
			ref := one.eng.Plan(&b)
			for done := false; !done; {
				done, err = ref.Step(&one.st, prefetchMin/2)
				require.NoError(t, err)
				require.False(t, ref.w.known.ok)
			}
			assert.Empty(t, stepped.eng.Compare(&stepped.st, &one.st, 10))
		})
	}
}
