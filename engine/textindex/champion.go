package textindex

import (
	"cmp"
	"slices"
	"sync"
)

// Champion lists (tiered postings, as in Manning, Raghavan & Schütze, "Introduction to
// Information Retrieval", §7.1.3): a term whose posting list is longer than
// champThreshold is searched through its champRatio·limit best postings (at least
// champMin) by their value under the reference normalisation, instead of through all of
// them. Frequent terms have a low idf, so the postings left out contribute little; rare terms
// and small indexes stay exact. The lists are derived lazily, cached, and dropped by every
// write; they are not part of snapshots.
const (
	champThreshold = 4096
	champMin       = 2048
	champRatio     = 8
)

// champCache holds the champion lists of the current index state.
type champCache struct {
	mu    sync.RWMutex
	lists map[int32]*plist
	size  map[int32]int // champion count each list was built for
}

// dropChampions forgets the champion lists; every write calls it under the write lock.
func (ix *Index) dropChampions() {
	ix.champ.mu.Lock()
	ix.champ.lists = nil
	ix.champ.size = nil
	ix.champ.mu.Unlock()
}

// champions returns the posting list to search for term t when r postings are wanted: the
// full list if it is short, else its r best postings in document order, with block bounds.
// It runs under the read lock.
func (ix *Index) champions(t int32, pl *plist, r int) *plist {
	if len(pl.docs) <= champThreshold || r >= len(pl.docs) {
		return pl
	}
	c := &ix.champ
	c.mu.RLock()
	cl, ok := c.lists[t]
	if ok && c.size[t] >= r {
		c.mu.RUnlock()
		return cl
	}
	c.mu.RUnlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.lists[t]; ok && c.size[t] >= r {
		return cl
	}
	cl = ix.buildChampions(pl, r)
	if c.lists == nil {
		c.lists = map[int32]*plist{}
		c.size = map[int32]int{}
	}
	c.lists[t] = cl
	c.size[t] = r
	return cl
}

// buildChampions selects the r postings of pl with the largest reference value.
func (ix *Index) buildChampions(pl *plist, r int) *plist {
	type pv struct {
		i int
		v float64
	}
	all := make([]pv, len(pl.docs))
	for i, d := range pl.docs {
		all[i] = pv{i: i, v: ix.refNorm.v(pl.tfs[i], ix.codes[d])}
	}
	slices.SortFunc(all, func(a, b pv) int { return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.i, b.i)) })
	all = all[:r]
	slices.SortFunc(all, func(a, b pv) int { return cmp.Compare(a.i, b.i) })
	cl := &plist{docs: make([]int32, r), tfs: make([]uint32, r)}
	for j, p := range all {
		cl.docs[j] = pl.docs[p.i]
		cl.tfs[j] = pl.tfs[p.i]
	}
	ix.computeBounds(cl, 0)
	return cl
}
