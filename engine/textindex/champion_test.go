package textindex

import (
	"fmt"
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
func usesChampions(ix *Index, q string) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s := new(searchScratch)
	ix.expandQuery(s, q)
	for _, qt := range s.terms {
		if ix.df(qt.id) > champThreshold {
			return true
		}
	}
	return false
}

// frequentTerm returns the indexed word with the most postings.
func frequentTerm(ix *Index) string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	best, df := "", 0
	for id, term := range ix.terms {
		if !isConceptTerm(term) && ix.df(int32(id)) > df {
			best, df = term, ix.df(int32(id))
		}
	}
	return best
}

func TestChampionSearchScoresExact(t *testing.T) {
	t.Parallel()
	ix := champIndex(t)
	g := newGenerator(99)
	queries, found, total := 0, 0, 0
	for range 400 {
		q := g.query()
		if !usesChampions(ix, q) {
			continue
		}
		queries++
		want := bruteForce(ix, q, nil)
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
		assertSameTop(t, bruteForce(ix, q, f), ix.Search(q, 10, f), 10, fmt.Sprintf("filtered %q", q))
	}
	require.Positive(t, queries, "no query reached a champion list")
	assert.GreaterOrEqual(t, float64(found)/float64(total), 0.9, "recall@10 over %d queries", queries)
}

func TestChampionListsFollowWrites(t *testing.T) {
	t.Parallel()
	ix := champIndex(t)
	term := frequentTerm(ix)
	require.True(t, usesChampions(ix, term), "term %q", term)
	before := ix.Search(term, 10, nil) // builds the champion list
	require.NotEmpty(t, before)

	const id = 1 << 40
	ix.Add(id, Title(term), Summary(term), Tags(term), Body(strings.Repeat(term+" ", 3)))
	want := bruteForce(ix, term, nil)
	require.Equal(t, uint64(id), want[0].ID, "the new document should match best")
	got := ix.Search(term, 10, nil)
	require.NotEmpty(t, got)
	assert.Equal(t, uint64(id), got[0].ID, "a new document that matches best must be found")

	require.True(t, ix.Remove(id))
	assert.NotContains(t, ids(ix.Search(term, 10, nil)), uint64(id))
}
