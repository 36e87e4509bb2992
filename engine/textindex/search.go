package textindex

import (
	"cmp"
	"math"
	"math/bits"
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
	docs []int32
	tfs  []uint32
	bmax []float64
	pos  int
	doc  int32   // docs[pos], or endDoc when exhausted
	mult float64 // query weight × idf × (k1+1)
	wb   int     // first block that may overlap the current window
	wub  float64 // bound on the term's contribution within the current window
	full *plist  // the whole posting list when docs holds only its champions, else nil
}

func (c *cursor) reset(pos int) {
	c.pos = pos
	if pos < len(c.docs) {
		c.doc = c.docs[pos]
	} else {
		c.doc = endDoc
	}
}

// seek moves to the first posting with a document >= d, galloping from the current one.
func (c *cursor) seek(d int32) {
	if c.doc >= d {
		return
	}
	docs, pos := c.docs, c.pos
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
	c.reset(l)
}

// blockLast returns the last document of block b.
func (c *cursor) blockLast(b int) int32 {
	return c.docs[min((b+1)<<blockShift, len(c.docs))-1]
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
	order   []*cursor
	prefix  []float64
	heap    []heapEntry
	acc     [windowSize]float64
	touched [windowSize / 64]uint64
	cands   []fallbackCand
}

// Search returns up to limit documents matching query, best first (ties by ascending id),
// skipping documents for which filter (if not nil) returns false. limit <= 0 means
// DefaultLimit. A query with no searchable terms (empty, only stop words or punctuation)
// returns nil. A query term that belongs to a concept group also matches documents with
// other members of the group, and a term unknown to the index matches the terms it prefixes
// or, failing that, those one typo away; such matches score below literal ones. filter is
// called only for documents that would enter the result, under the index's read lock, so it
// must not call the index's write methods.
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
	ix.expandQuery(s, query)
	var hits []Hit
	if len(s.terms) > 0 {
		hits = ix.run(s, limit, filter)
	}
	// Not deferred: if filter panics, the half-used accumulator must not be reused.
	ix.scratch.Put(s)
	return hits
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
	headAt := -1 // index in s.lits of a term the previous token added
	s.tz.each(query, func(tok []byte) {
		if len(s.lits) >= maxQueryTerms {
			return
		}
		var info tokInfo
		s.buf, info = normalize(s.buf, tok)
		added := -1
		if !info.stop {
			n := len(s.lits)
			if s.lits = appendUnique(s.lits, s.buf); len(s.lits) > n {
				added = n
			}
		}
		if p := ph.next(info); p != "" {
			// "logged in" asks about login, not about logging: the phrase replaces its head
			// (documents keep both, so this loses no match).
			if headAt >= 0 {
				s.lits[headAt] = p
			} else {
				s.lits = appendUnique(s.lits, []byte(p))
			}
		}
		headAt = added
	})
	for _, lit := range s.lits {
		if id, ok := ix.dict[lit]; ok {
			s.addTerm(id, 1)
		} else if ix.fuzzy {
			ix.fallback(s, lit)
		}
	}
	for _, lit := range s.lits {
		for _, g := range ix.concepts[lit] {
			if id, ok := ix.dict[ix.cnames[g]]; ok {
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
	return fallbackCand{id: id, df: ix.df(id)}
}

// withinOneEdit reports whether a and b differ by at most one insertion, deletion,
// substitution or transposition of adjacent bytes. It runs in linear time: a general edit
// distance (agnivade/levenshtein is in go.mod, but only as a linter's dependency, and this
// package sticks to the standard library) would be quadratic for a yes/no answer at
// distance one.
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
			ix.sorted = ix.sorted[:0]
			for _, t := range ix.terms {
				if !isConceptTerm(t) {
					ix.sorted = append(ix.sorted, t)
				}
			}
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

// Windows of documents scored together; see run.
const (
	windowShift = 10
	windowSize  = 1 << windowShift
)

// run evaluates the expanded query window by window, with MaxScore pruning on block-max
// bounds, in the manner of Lucene's MaxScoreBulkScorer.
//
// The documents are cut into windows of 1,024 ordinals. For each window every term gets a
// bound on its contribution there: the largest block bound among its posting blocks that
// overlap the window (usually well below its global bound). With θ the score a document must
// beat to enter the top-k heap, a window whose bounds sum to at most θ is skipped whole.
// Otherwise the terms are ordered by bound and the longest prefix whose bounds sum to at
// most θ is "non-essential": a document having only those terms cannot enter the heap. The
// essential terms are scored term-at-a-time into a small accumulator (a tight loop over
// their postings in the window); each document so reached becomes a candidate, and the
// non-essential lists are only probed for candidates, stopping as soon as the candidate's
// remaining bound falls to θ.
//
// Without a filter, frequent terms are searched through their champion lists (see
// champions) and the selected documents rescored exactly; should that select fewer than
// limit documents, the search is run again over the full lists. A filter may reject most
// champions, so filtered searches always use the full lists.
func (ix *Index) run(s *searchScratch, limit int, filter func(uint64) bool) []Hit {
	h, champ := ix.runOnce(s, limit, filter, filter == nil)
	if champ && len(h) < limit {
		h, _ = ix.runOnce(s, limit, filter, false)
	}
	return ix.hits(h)
}

// runOnce is one evaluation for run; it returns the heap (in s.heap's storage) and whether
// a champion list was searched.
func (ix *Index) runOnce(s *searchScratch, limit int, filter func(uint64) bool, champ bool) ([]heapEntry, bool) {
	norm, scale := ix.currentNorm()
	cs, used := ix.cursors(s, limit, champ)
	if len(cs) == 0 {
		return nil, false
	}
	n := len(cs)
	ord := s.order[:0]
	for i := range cs {
		ord = append(ord, &cs[i])
	}
	s.order = ord
	prefix := s.prefix[:0]
	acc := &s.acc
	touched := &s.touched
	h := s.heap[:0]
	full := false
	theta := 0.0
	codes := ix.codes

	for {
		first := int32(endDoc)
		for i := range cs {
			first = min(first, cs[i].doc)
		}
		if first == endDoc {
			break
		}
		lo := first &^ (windowSize - 1)
		hi := lo + windowSize
		// Window bounds.
		total := 0.0
		for _, c := range ord {
			c.windowBound(lo, hi, scale)
			total += c.wub
		}
		if full && total <= theta {
			for i := range cs {
				cs[i].seek(hi)
			}
			continue
		}
		slices.SortFunc(ord, func(a, b *cursor) int { return cmp.Compare(a.wub, b.wub) })
		prefix = append(prefix[:0], 0)
		for i, c := range ord {
			prefix = append(prefix, prefix[i]+c.wub)
		}
		e := 0 // ord[e:] are essential
		for e < n && prefix[e+1] <= theta {
			e++
		}
		// Essential terms, term-at-a-time.
		for _, c := range ord[e:] {
			c.seek(lo)
			docs, tfs, mult := c.docs, c.tfs, c.mult
			p := c.pos
			for ; p < len(docs) && docs[p] < hi; p++ {
				d := docs[p]
				i := d - lo
				acc[i] += mult * norm.v(tfs[p], codes[d])
				touched[i>>6] |= 1 << (i & 63)
			}
			c.reset(p)
		}
		// Candidates, in document order.
		for wi := range touched {
			for word := touched[wi]; word != 0; word &= word - 1 {
				i := int32(wi<<6 | bits.TrailingZeros64(word))
				score := acc[i]
				acc[i] = 0
				d := lo + i
				if ix.isDead(d) || (full && score+prefix[e] <= theta) {
					continue
				}
				code := codes[d]
				pruned := false
				for j := e - 1; j >= 0; j-- {
					if score+prefix[j+1] <= theta {
						pruned = true
						break
					}
					c := ord[j]
					c.seek(d)
					if c.doc == d {
						score += c.mult * norm.v(c.tfs[c.pos], code)
					}
				}
				if pruned || (full && score <= theta) {
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
			}
			touched[wi] = 0
		}
		for _, c := range ord[:e] {
			c.seek(hi)
		}
	}
	s.heap = h
	s.prefix = prefix
	if used {
		ix.rescore(cs, h, norm)
	}
	return h, used
}

// rescore recomputes the scores of the selected documents over the full posting lists of
// the terms searched through champion lists, so that the scores returned are exact even
// where a document's postings of a frequent term were not among its champions.
func (ix *Index) rescore(cs []cursor, h []heapEntry, norm *normTable) {
	for i := range cs {
		c := &cs[i]
		if c.full == nil {
			continue
		}
		for k := range h {
			d := h[k].ord
			if _, ok := slices.BinarySearch(c.docs, d); ok {
				continue // already counted
			}
			if j, ok := slices.BinarySearch(c.full.docs, d); ok {
				h[k].score += c.mult * norm.v(c.full.tfs[j], ix.codes[d])
			}
		}
	}
}

// windowBound sets c.wub to the bound of the term's contribution to documents in [lo, hi):
// the largest bound of its posting blocks overlapping that range.
func (c *cursor) windowBound(lo, hi int32, scale float64) {
	b := c.wb
	for b < len(c.bmax) && c.blockLast(b) < lo {
		b++
	}
	c.wb = b
	m := 0.0
	for ; b < len(c.bmax) && c.docs[b<<blockShift] < hi; b++ {
		m = max(m, c.bmax[b])
	}
	c.wub = c.mult * m * scale * boundSlack
}

// cursors opens a cursor per query term that has postings; a frequent term's cursor walks
// its champion list (see champions).
func (ix *Index) cursors(s *searchScratch, limit int, champ bool) ([]cursor, bool) {
	k1 := ix.k1
	nDocs := float64(len(ix.ids))
	cs := s.cursors[:0]
	used := false
	for _, qt := range s.terms {
		pl := ix.postings(qt.id)
		df := float64(len(pl.docs))
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (nDocs-df+0.5)/(df+0.5))
		mult := qt.weight * idf * (k1 + 1)
		c := cursor{docs: pl.docs, tfs: pl.tfs, bmax: pl.bmax, mult: mult}
		if champ {
			if cl := ix.champions(qt.id, pl, max(champMin, champRatio*limit)); cl != pl {
				c = cursor{docs: cl.docs, tfs: cl.tfs, bmax: cl.bmax, mult: mult, full: pl}
				used = true
			}
		}
		c.reset(0)
		cs = append(cs, c)
	}
	s.cursors = cs
	return cs, used
}

// hits turns the heap into results, best first.
func (ix *Index) hits(h []heapEntry) []Hit {
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
// earlier documents win ties deterministically. It is hand-written rather than
// container/heap, whose interface methods would box every entry on the hot path.
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
