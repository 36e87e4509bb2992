package textindex

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// maxQueryTerms bounds the terms a query is expanded to, so a pasted essay costs no more than
// a paragraph.
const maxQueryTerms = 96

// boundSlack makes score bounds robust against rounding (a bound computed along a different
// floating-point path than the exact score must never fall below it).
const boundSlack = 1 + 1e-9

const endDoc = math.MaxInt32

// qterm is one term of an expanded query.
type qterm struct {
	id     int32
	weight float64
}

// cursor walks one posting list during a search.
type cursor struct {
	docs  []int32
	tfs   []uint32
	bmax  []float64
	pos   int
	mult  float64 // query weight × idf × (k1+1)
	ub    float64 // bound on the term's contribution to any document
	blk   int     // block whose bound is cached in blkUB, -1 for none
	blkUB float64
}

func (c *cursor) doc() int32 {
	if c.pos < len(c.docs) {
		return c.docs[c.pos]
	}
	return endDoc
}

// seek moves to the first posting with a document >= d, galloping from the current one.
func (c *cursor) seek(d int32) {
	docs, pos := c.docs, c.pos
	if pos >= len(docs) || docs[pos] >= d {
		return
	}
	lo, step := pos, 1
	hi := pos + 1
	for hi < len(docs) && docs[hi] < d {
		lo = hi
		step <<= 1
		hi = lo + step
	}
	hi = min(hi, len(docs))
	l := lo + 1
	for l < hi {
		m := int(uint(l+hi) >> 1)
		if docs[m] < d {
			l = m + 1
		} else {
			hi = m
		}
	}
	c.pos = l
}

// blockBound returns the bound of the current block and its last document.
func (c *cursor) blockBound(k1, scale float64) (float64, int32) {
	b := c.pos >> blockShift
	if b != c.blk {
		x := c.bmax[b] * scale
		c.blk, c.blkUB = b, c.mult*x/(k1+x)*boundSlack
	}
	return c.blkUB, c.docs[min((b+1)<<blockShift, len(c.docs))-1]
}

type heapEntry struct {
	score float64
	ord   int32
}

// searchScratch is per-search working memory, pooled.
type searchScratch struct {
	tz      tokenizer
	buf     []byte
	terms   []qterm
	lits    []string
	cursors []cursor
	prefix  []float64
	heap    []heapEntry
	cands   []fallbackCand
}

// Search returns up to limit documents matching query, best first (ties by ascending id),
// skipping documents for which filter (if not nil) returns false. limit <= 0 means
// DefaultLimit. A query with no searchable terms (empty, only stop words or punctuation)
// returns nil. Query terms are expanded with synonyms and, when unknown to the index, with
// the terms they prefix or are one typo away from; expansions score below literal matches.
// filter is called only for documents that would enter the result, under the index's read
// lock, so it must not call back into the index's write methods.
func (ix *Index) Search(query string, limit int, filter func(id uint64) bool) []Hit {
	if limit <= 0 {
		limit = DefaultLimit
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if len(ix.byID) == 0 {
		return nil
	}
	s := ix.scratch.Get().(*searchScratch)
	defer ix.scratch.Put(s)
	ix.expandQuery(s, query)
	if len(s.terms) == 0 {
		return nil
	}
	return ix.run(s, limit, filter)
}

// addTerm adds a term to the query, keeping the highest weight of duplicates.
func (s *searchScratch) addTerm(id int32, w float64) {
	for i := range s.terms {
		if s.terms[i].id == id {
			s.terms[i].weight = max(s.terms[i].weight, w)
			return
		}
	}
	if len(s.terms) < maxQueryTerms {
		s.terms = append(s.terms, qterm{id: id, weight: w})
	}
}

// expandQuery analyses the query into s.terms.
func (ix *Index) expandQuery(s *searchScratch, query string) {
	s.terms = s.terms[:0]
	s.lits = s.lits[:0]
	var ph phraseState
	s.tz.each(query, func(tok []byte) {
		if len(s.lits) >= maxQueryTerms {
			return
		}
		var info tokInfo
		s.buf, info = normalize(s.buf, tok)
		if !info.stop {
			s.lits = appendUnique(s.lits, s.buf)
		}
		if p := ph.next(info); p != "" {
			s.lits = appendUnique(s.lits, []byte(p))
		}
	})
	for _, lit := range s.lits {
		if id, ok := ix.dict[lit]; ok {
			s.addTerm(id, 1)
		} else if ix.fuzzy {
			ix.fallback(s, lit)
		}
	}
	if ix.syn == nil {
		return
	}
	for _, lit := range s.lits {
		for _, u := range ix.syn[lit] {
			if id, ok := ix.dict[u]; ok {
				s.addTerm(id, ix.synWeight)
			}
		}
	}
}

func appendUnique(list []string, term []byte) []string {
	for _, t := range list {
		if t == string(term) {
			return list
		}
	}
	return append(list, string(term))
}

type fallbackCand struct {
	id int32
	df int
}

// fallback expands a term the index does not know to the terms it prefixes or, failing
// that, to the terms one edit (insertion, deletion, substitution or transposition) away.
func (ix *Index) fallback(s *searchScratch, term string) {
	if len(term) < 3 {
		return
	}
	sorted := ix.sortedTerms()
	s.cands = s.cands[:0]
	i, _ := slices.BinarySearch(sorted, term)
	for j := i; j < len(sorted) && j < i+4096 && strings.HasPrefix(sorted[j], term); j++ {
		s.cands = append(s.cands, ix.fallbackCand(sorted[j]))
	}
	w := prefixWeight
	if len(s.cands) == 0 && len(term) >= 4 {
		w = fuzzyWeight
		lo, _ := slices.BinarySearch(sorted, term[:1])
		hi := len(sorted)
		if term[0] < 0xff {
			hi, _ = slices.BinarySearch(sorted, string([]byte{term[0] + 1}))
		}
		for _, t := range sorted[lo:hi] {
			if withinOneEdit(term, t) {
				s.cands = append(s.cands, ix.fallbackCand(t))
			}
		}
	}
	slices.SortFunc(s.cands, func(a, b fallbackCand) int {
		return cmp.Or(cmp.Compare(b.df, a.df), cmp.Compare(a.id, b.id))
	})
	for _, c := range s.cands[:min(len(s.cands), maxFallback)] {
		s.addTerm(c.id, w)
	}
}

func (ix *Index) fallbackCand(term string) fallbackCand {
	id := ix.dict[term]
	return fallbackCand{id: id, df: len(ix.posts[id].docs)}
}

// withinOneEdit reports whether a and b differ by at most one insertion, deletion,
// substitution or transposition of adjacent bytes. It runs in linear time.
func withinOneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(a) {
		return true // equal, or b has one extra byte at the end
	}
	if len(a) != len(b) {
		return a[i:] == b[i+1:] // one insertion
	}
	if a[i+1:] == b[i+1:] {
		return true // one substitution
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// sortedTerms returns the dictionary sorted, rebuilding it after writes. It is called under
// the read lock; sortedMu serialises concurrent rebuilds.
func (ix *Index) sortedTerms() []string {
	if ix.sortedDirty.Load() {
		ix.sortedMu.Lock()
		if ix.sortedDirty.Load() {
			ix.sorted = append(ix.sorted[:0], ix.terms...)
			slices.Sort(ix.sorted)
			ix.sortedDirty.Store(false)
		}
		ix.sortedMu.Unlock()
	}
	return ix.sorted
}

// currentNorm returns the normalisation table for the current average lengths and the
// factor by which bounds computed under the reference table must be scaled.
func (ix *Index) currentNorm() (*normTable, float64) {
	if ix.normDirty.Load() {
		ix.normMu.Lock()
		if ix.normDirty.Load() {
			ix.norm = ix.buildNorm(ix.avgLens())
			ix.normScale = ix.boundScale() * boundSlack
			ix.normDirty.Store(false)
		}
		ix.normMu.Unlock()
	}
	return &ix.norm, ix.normScale
}

// run evaluates the expanded query document-at-a-time with MaxScore and block-max skipping.
//
// Terms are ordered by their score bound. Once the top-k heap is full with threshold θ, the
// longest prefix of terms whose bounds sum to at most θ is "non-essential": a document that
// contains only those terms cannot enter the heap, so candidates come from the essential
// lists only and non-essential lists are merely probed. Before scoring a candidate, the
// block bounds of the essential lists can rule out a whole window of documents at once.
func (ix *Index) run(s *searchScratch, limit int, filter func(uint64) bool) []Hit {
	norm, scale := ix.currentNorm()
	k1 := ix.k1
	nDocs := float64(len(ix.ids))
	cs := s.cursors[:0]
	for _, qt := range s.terms {
		pl := &ix.posts[qt.id]
		df := float64(len(pl.docs))
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (nDocs-df+0.5)/(df+0.5))
		mult := qt.weight * idf * (k1 + 1)
		x := pl.max * scale
		cs = append(cs, cursor{
			docs: pl.docs, tfs: pl.tfs, bmax: pl.bmax, mult: mult,
			ub: mult * x / (k1 + x) * boundSlack, blk: -1,
		})
	}
	s.cursors = cs
	if len(cs) == 0 {
		return nil
	}
	slices.SortFunc(cs, func(a, b cursor) int { return cmp.Compare(a.ub, b.ub) })
	n := len(cs)
	prefix := append(s.prefix[:0], 0)
	for i := range cs {
		prefix = append(prefix, prefix[i]+cs[i].ub)
	}
	s.prefix = prefix

	h := s.heap[:0]
	full := false
	theta := 0.0
	e := 0 // cs[e:] are essential
	codes := ix.codes
outer:
	for {
		d := int32(endDoc)
		for i := e; i < n; i++ {
			d = min(d, cs[i].doc())
		}
		if d == endDoc {
			break
		}
		if full {
			bound, w := prefix[e], int32(endDoc)
			for i := e; i < n; i++ {
				c := &cs[i]
				if c.pos < len(c.docs) {
					ub, last := c.blockBound(k1, scale)
					bound += ub
					w = min(w, last)
				}
			}
			if bound <= theta {
				for i := e; i < n; i++ {
					cs[i].seek(w + 1)
				}
				continue
			}
		}
		score := 0.0
		code := codes[d]
		for i := e; i < n; i++ {
			c := &cs[i]
			if c.pos < len(c.docs) && c.docs[c.pos] == d {
				x := norm.x(c.tfs[c.pos], code)
				score += c.mult * x / (k1 + x)
				c.pos++
			}
		}
		if ix.isDead(d) {
			continue
		}
		for i := e - 1; i >= 0; i-- {
			if score+prefix[i+1] <= theta {
				continue outer
			}
			c := &cs[i]
			c.seek(d)
			if c.pos < len(c.docs) && c.docs[c.pos] == d {
				x := norm.x(c.tfs[c.pos], code)
				score += c.mult * x / (k1 + x)
			}
		}
		if full && score <= theta {
			continue
		}
		if filter != nil && !filter(ix.ids[d]) {
			continue
		}
		if !full {
			h = append(h, heapEntry{score: score, ord: d})
			heapUp(h, len(h)-1)
			if len(h) < limit {
				continue
			}
			full = true
		} else {
			h[0] = heapEntry{score: score, ord: d}
			heapDown(h, 0)
		}
		theta = h[0].score
		for e < n && prefix[e+1] <= theta {
			e++
		}
		if e == n {
			break
		}
	}
	s.heap = h
	hits := make([]Hit, len(h))
	for i, he := range h {
		hits[i] = Hit{ID: ix.ids[he.ord], Score: he.score}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
	})
	return hits
}

// The heap is a min-heap on score; among equal scores the later document is the smaller, so
// earlier documents win ties deterministically.
func heapLess(a, b heapEntry) bool {
	return a.score < b.score || (a.score == b.score && a.ord > b.ord)
}

func heapUp(h []heapEntry, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !heapLess(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func heapDown(h []heapEntry, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && heapLess(h[r], h[l]) {
			m = r
		}
		if !heapLess(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
