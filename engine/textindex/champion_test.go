package textindex

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// champIndex returns an index large enough for some terms to have champion lists.
func champIndex(t *testing.T) *Index {
	t.Helper()
	ix := New(Options{})
	ix.AddBatch(corpusDocs(12_000, 7))
	return ix
}

// usesChampions reports whether an unfiltered search for q goes through a champion list.
func usesChampions(t *testing.T, ix *Index, q string) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s := new(searchScratch)
	require.NoError(t, ix.eng.expandQuery(s, &ix.st, q))
	for _, qt := range s.terms {
		if qt.rec.flags&termChampion != 0 {
			return true
		}
	}
	return false
}

// frequentTerm returns the indexed word with the most postings.
func frequentTerm(ix *Index) string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	best, df := "", uint64(0)
	ix.st.SeekTerms(nil, func(k, v []byte) bool {
		if rec, ok := decodeTerm(v); ok && k[0] != 0 && rec.df > df {
			best, df = string(k), rec.df
		}
		return true
	})
	return best
}

// champions decodes term's stored champion list.
func champions(t *testing.T, ix *Index, term string) (float64, []posting) {
	t.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	v := ix.st.Postings(championKey(nil, term))
	require.NotNil(t, v, "champion list of %q", term)
	ch, ok := parseChunk(v[8:], 0)
	require.True(t, ok)
	list, ok := ch.decodePostings(ix.eng.nf, nil)
	require.True(t, ok)
	return math.Float64frombits(binary.LittleEndian.Uint64(v)), list
}

// assertChampionInvariant checks that term's champion list holds every posting whose
// reference value reaches its floor, and at least champMin postings.
func assertChampionInvariant(t *testing.T, ix *Index, term string) {
	t.Helper()
	floor, list := champions(t, ix, term)
	ix.mu.RLock()
	m, err := ix.eng.readMeta(&ix.st)
	require.NoError(t, err)
	ref := ix.eng.buildNorm(m.refAvg)
	all := allPostings(t, ix.eng, &ix.st, term)
	ix.mu.RUnlock()
	assert.GreaterOrEqual(t, len(list), champMin, "term %q", term)
	in := map[uint64]posting{}
	for _, p := range list {
		in[p.doc] = p
		assert.GreaterOrEqual(t, ref.v(p.tf, p.code), floor, "member below the floor")
	}
	for _, p := range all {
		if ref.v(p.tf, p.code) > floor {
			got, ok := in[p.doc]
			if assert.True(t, ok, "posting of %d above the floor is missing from %q's champions", p.doc, term) {
				assert.Equal(t, p, got)
			}
		}
	}
}

func TestChampionSearchScoresExact(t *testing.T) {
	t.Parallel()
	ix := champIndex(t)
	g := newGenerator(99)
	queries, found, total := 0, 0, 0
	for range 400 {
		q := g.query()
		if !usesChampions(t, ix, q) {
			continue
		}
		queries++
		want := bruteForce(t, ix, q, nil)
		got := ix.Search(q, 10, nil)
		require.NotEmpty(t, want, q)
		require.Len(t, got, min(10, len(want)), q)
		exact := map[uint64]float64{}
		for _, h := range want {
			exact[h.ID] = h.Score
		}
		assert.InDelta(t, want[0].Score, got[0].Score, 1e-9*want[0].Score, "best score for %q", q)
		top := map[uint64]bool{}
		for _, h := range want[:len(got)] {
			top[h.ID] = true
		}
		for _, h := range got {
			assert.InDelta(t, exact[h.ID], h.Score, 1e-9*h.Score, "score of %d for %q", h.ID, q)
			if top[h.ID] {
				found++
			}
		}
		total += len(got)
		// Filtered searches stay exact.
		f := func(id uint64) bool { return id%3 != 0 }
		assertSameTop(t, bruteForce(t, ix, q, f), ix.Search(q, 10, f), 10, fmt.Sprintf("filtered %q", q))
	}
	require.Positive(t, queries, "no query reached a champion list")
	assert.GreaterOrEqual(t, float64(found)/float64(total), 0.9, "recall@10 over %d queries", queries)
}

func TestChampionListsFollowWrites(t *testing.T) {
	t.Parallel()
	ix := champIndex(t)
	term := frequentTerm(ix)
	require.True(t, usesChampions(t, ix, term), "term %q", term)
	assertChampionInvariant(t, ix, term)

	const id = 1 << 40
	ix.Add(id, Title(term), Summary(term), Tags(term), Body(strings.Repeat(term+" ", 3)))
	want := bruteForce(t, ix, term, nil)
	require.Equal(t, uint64(id), want[0].ID, "the new document should match best")
	got := ix.Search(term, 10, nil)
	require.NotEmpty(t, got)
	assert.Equal(t, uint64(id), got[0].ID, "a new document that matches best must be found")
	assertChampionInvariant(t, ix, term)

	require.True(t, ix.Remove(id))
	assert.NotContains(t, ids(ix.Search(term, 10, nil)), uint64(id))
	assertChampionInvariant(t, ix, term)

	// Many writes, removals and replacements: the lists stay complete above their floor
	// (they are reselected when they run low), without any search rebuilding them.
	g := newGenerator(3)
	rng := rand.New(rand.NewPCG(8, 9))
	short := func(d Doc) Doc { // without the body: quicker, and the lists are the same terms'
		d.Fields = slices.DeleteFunc(d.Fields, func(f Field) bool { return f.Name == FieldBody })
		return d
	}
	for i := range 900 {
		switch rng.IntN(3) {
		case 0:
			ix.Remove(uint64(1 + rng.IntN(12_000)))
		case 1:
			d := short(g.doc(uint64(1 + rng.IntN(12_000))))
			ix.Add(d.ID, append(d.Fields, Tags(term))...)
		default:
			d := short(g.doc(uint64(20_000 + i)))
			ix.Add(d.ID, append(d.Fields, Tags(term))...)
		}
	}
	assertChampionInvariant(t, ix, term)
}

func TestSelectTop(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 17, 100, 5000} {
		for _, k := range []int{0, 1, 3, n / 2, n - 1, n, n + 3} {
			if k < 0 {
				continue
			}
			vals := make([]valued, n)
			for i := range vals {
				vals[i] = valued{v: float64(rng.IntN(50)), i: int32(i)} // many ties
			}
			want := slices.Clone(vals)
			slices.SortFunc(want, func(a, b valued) int {
				return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.i, b.i))
			})
			got := slices.Clone(selectTop(vals, k))
			slices.SortFunc(got, func(a, b valued) int {
				return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.i, b.i))
			})
			assert.Equal(t, want[:min(k, n)], got, "n=%d k=%d", n, k)
		}
	}
}

// TestRandomWritesMatchFreshIndex: whatever the order of writes (ids out of order, so
// chunks are inserted into, split and re-keyed; removals and replacements), the stored
// index equals one built afresh from the documents that are left, posting for posting
// (champion lists under churn: TestChampionListsFollowWrites).
func TestRandomWritesMatchFreshIndex(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	g := newGenerator(21)
	ix := New(Options{})
	live := map[uint64]Doc{}
	// Short documents (no body), with a term in every one, so that its list is long enough
	// for chunks to split.
	common := func(d Doc) Doc {
		d.Fields = slices.DeleteFunc(d.Fields, func(f Field) bool { return f.Name == FieldBody })
		d.Fields = append(d.Fields, Tags("omnipresent"))
		return d
	}
	for i := range 3000 {
		id := uint64(1 + rng.IntN(3_000))
		switch {
		case i%50 == 0:
			batch := make([]Doc, 40)
			for j := range batch {
				batch[j] = common(g.doc(uint64(1 + rng.IntN(3_000))))
				live[batch[j].ID] = batch[j]
			}
			ix.AddBatch(batch)
		case rng.IntN(6) == 0:
			ix.Remove(id)
			delete(live, id)
		default:
			d := common(g.doc(id))
			ix.Add(d.ID, d.Fields...)
			live[id] = d
		}
	}
	fresh := New(Options{})
	var docs []Doc
	for _, d := range live {
		docs = append(docs, d)
	}
	fresh.AddBatch(docs)
	require.Equal(t, len(live), ix.Len())
	assert.Empty(t, ix.eng.Compare(&ix.st, &fresh.st, 20))
	rec, ok, err := lookupTerm(&ix.st, "omnipresent")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, uint64(len(live)), rec.df)
	chunks := 0
	forChunks(&ix.st, "omnipresent", &rec, func(uint64, []byte) bool { chunks++; return true })
	assert.Greater(t, chunks, len(live)/maxChunk, "long lists are split into chunks")
}

// A search through champion lists gives each hit the coverage a search of the full lists
// gives it (coverage reuses rescore's lookups in the full lists).
func TestChampionSearchCoverageExact(t *testing.T) {
	t.Parallel()
	ix := champIndex(t)
	g := newGenerator(17)
	all := func(uint64) bool { return true } // a filter: the full lists are searched
	queries, compared := 0, 0
	for range 300 {
		q := g.query()
		if !usesChampions(t, ix, q) {
			continue
		}
		queries++
		full := map[uint64]float64{}
		for _, h := range ix.Search(q, 60, all) {
			full[h.ID] = h.Coverage
		}
		for _, h := range ix.Search(q, 60, nil) {
			if want, ok := full[h.ID]; ok {
				assert.InDelta(t, want, h.Coverage, 1e-12, "coverage of %d for %q", h.ID, q)
				compared++
			}
		}
	}
	require.Positive(t, queries, "no query reached a champion list")
	require.Positive(t, compared)
}

// Decoded champion lists are reused while their stored bytes are the same, and never after
// a write changed them: every search gives what a search without the cache gives.
func TestChampionCacheExact(t *testing.T) {
	t.Parallel()
	ix := champIndex(t)
	term := frequentTerm(ix)
	require.True(t, usesChampions(t, ix, term))
	uncached := func(q string) []Hit {
		ix.mu.Lock()
		saved := ix.eng.champs.m
		ix.eng.champs.m = nil
		ix.mu.Unlock()
		defer func() {
			ix.mu.Lock()
			ix.eng.champs.m = saved
			ix.mu.Unlock()
		}()
		return ix.Search(q, 40, nil)
	}
	g := newGenerator(5)
	for i := range 60 {
		q := term + " " + g.query()
		first := ix.Search(q, 40, nil)
		ix.eng.champs.mu.Lock()
		_, cached := ix.eng.champs.m[term]
		ix.eng.champs.mu.Unlock()
		require.True(t, cached, "the champion list of %q is kept", term)
		assert.Equal(t, first, ix.Search(q, 40, nil), "a search from the cache, %q", q)
		if i%10 == 0 { // a write that puts a document at the top of the term's list
			id := uint64(1<<40 + i)
			ix.Add(id, Title(term), Summary(term), Tags(term), Body(strings.Repeat(term+" ", 3)))
			assert.Contains(t, ids(ix.Search(term, 10, nil)), id, "the write reached the champion list")
			assert.Equal(t, uncached(q), ix.Search(q, 40, nil), "after a write, %q", q)
		}
	}
}
