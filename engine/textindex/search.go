package textindex

import (
	"bytes"
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// maxQueryTerms bounds the terms a query is expanded to, so a pasted essay costs no more than
// a paragraph.
const maxQueryTerms = 96

// boundSlack makes score bounds robust against rounding (a bound computed along a different
// floating-point path than the exact score must never fall below it).
const boundSlack = 1 + 1e-9

// endDoc marks an exhausted cursor; no document may have this id (Apply refuses it).
const endDoc = math.MaxUint64

// Weights of the fallbacks for unknown query terms.
const (
	prefixWeight = 0.6
	fuzzyWeight  = 0.5
	maxFallback  = 8
	maxPrefix    = 4096
)

// qterm is one term of an expanded query.
type qterm struct {
	term   string
	weight float64
	rec    termRec
	lit    int // index of the query word it stands for in searchScratch.lits; -1 for a concept
}

// cursor walks one term's postings during a search. The postings are decoded from the
// term's chunks (or its champion list) into flat arrays, with the chunks' block bounds.
type cursor struct {
	docs  []uint64
	tfs   []uint32
	codes []uint32
	bend  []int32   // per block: end of the block in docs
	bmax  []float64 // per block: bound under the reference normalisation
	pos   int
	doc   uint64  // docs[pos], or endDoc when exhausted
	mult  float64 // query weight × idf × (k1+1)
	wb    int     // first block that may overlap the current window
	wub   float64 // bound on the term's contribution within the current window
	champ bool    // docs holds only the term's champion list
	term  string
	// looked holds rescore's lookups in the full list (champion cursors), by document, for
	// coverage to reuse.
	looked []lookedPosting
}

// lookedPosting is one document's posting of a term, looked up in its full list (found is
// false when the document does not have the term).
type lookedPosting struct {
	doc   uint64
	tf    uint32
	found bool
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
func (c *cursor) seek(d uint64) {
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

func (c *cursor) blockStart(b int) int {
	if b == 0 {
		return 0
	}
	return int(c.bend[b-1])
}

type heapEntry struct {
	score float64
	doc   uint64
}

// searchScratch is per-search working memory, pooled.
type searchScratch struct {
	tz       tokenizer
	buf      []byte
	key      []byte
	terms    []qterm
	lits     []string
	cursors  []cursor
	order    []*cursor
	prefix   []float64
	heap     []heapEntry
	acc      [windowSize]float64
	touched  [windowSize / 64]uint64
	cands    []fallbackCand
	ps       postingScratch
	spans    []chunkSpan // the chunks of spanTerm, for lookupPosting
	spanTerm string
}

// Search returns up to limit documents of st matching query, best first (ties by ascending
// id), skipping documents for which filter (if not nil) returns false. limit <= 0 means
// DefaultLimit. A query with no searchable terms (empty, only stop words or punctuation)
// returns nil. A query term that belongs to a concept group also matches documents with
// other members of the group, and a term unknown to the index matches the terms it prefixes
// or, failing that, those one typo away; such matches score below literal ones. filter is
// called only for documents that would enter the result.
//
// Search reads the index record, the records of the query's terms and their postings (a
// frequent term's champion list in unfiltered searches): a handful of keys, whatever the
// size of the index. It returns ErrNoIndex when st holds no index, ErrMismatch when it was
// built by another analyzer, ErrCorrupt when a record of the query's terms is damaged.
func (e *Engine) Search(st Store, query string, limit int, filter func(id uint64) bool) ([]Hit, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	m, err := e.readMeta(st)
	if err != nil {
		return nil, err
	}
	if m.n == 0 {
		return nil, nil
	}
	s := e.scratch.Get().(*searchScratch)
	s.spanTerm, s.spans = "", s.spans[:0] // they alias another transaction's values
	if err := e.expandQuery(s, st, query); err != nil {
		e.scratch.Put(s)
		return nil, err
	}
	var hits []Hit
	if len(s.terms) > 0 {
		hits, err = e.run(s, st, &m, limit, filter)
	}
	// Not deferred: if filter panics, the half-used accumulator must not be reused.
	e.scratch.Put(s)
	return hits, err
}

// addTerm adds a term to the query, keeping the highest weight of duplicates.
func (s *searchScratch) addTerm(term string, w float64, rec termRec, lit int) {
	for i := range s.terms {
		if s.terms[i].term == term {
			if w > s.terms[i].weight {
				s.terms[i].weight, s.terms[i].lit = w, lit
			}
			return
		}
	}
	if len(s.terms) < maxQueryTerms {
		s.terms = append(s.terms, qterm{term: term, weight: w, rec: rec, lit: lit})
	}
}

// lookupTerm reads a term's record; ok is false when the term is not indexed.
func lookupTerm(st Store, term string) (termRec, bool, error) {
	v := st.Term([]byte(term))
	if v == nil {
		return termRec{}, false, nil
	}
	rec, ok := decodeTerm(v)
	if !ok {
		return termRec{}, false, corruptf("term %q", term)
	}
	return rec, true, nil
}

// expandQuery analyses the query into s.terms.
func (e *Engine) expandQuery(s *searchScratch, st Store, query string) error {
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
	for i, lit := range s.lits {
		rec, ok, err := lookupTerm(st, lit)
		switch {
		case err != nil:
			return err
		case ok:
			s.addTerm(lit, 1, rec, i)
		case e.fuzzy:
			if err := e.fallback(s, st, lit, i); err != nil {
				return err
			}
		}
	}
	for _, lit := range s.lits {
		for _, g := range e.concepts[lit] {
			name := e.cnames[g]
			rec, ok, err := lookupTerm(st, name)
			if err != nil {
				return err
			}
			if ok {
				s.addTerm(name, e.synWeight, rec, -1)
			}
		}
	}
	return nil
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
	term string
	rec  termRec
}

// fallback expands a term the index does not know to the terms it prefixes or, failing
// that, to the terms one edit (insertion, deletion, substitution or transposition) away
// that start with the same byte, most frequent first. It scans the term records in key
// order from the term (prefixes) or from its first byte (typos).
func (e *Engine) fallback(s *searchScratch, st Store, term string, lit int) error {
	if len(term) < 3 {
		return nil
	}
	s.cands = s.cands[:0]
	var bad error
	n := 0
	st.SeekTerms([]byte(term), func(k, v []byte) bool {
		if !bytes.HasPrefix(k, []byte(term)) || n >= maxPrefix {
			return false
		}
		n++
		rec, ok := decodeTerm(v)
		if !ok {
			bad = corruptf("term %q", k)
			return false
		}
		s.cands = append(s.cands, fallbackCand{term: string(k), rec: rec})
		return true
	})
	w := prefixWeight
	if bad == nil && len(s.cands) == 0 && len(term) >= 4 {
		w = fuzzyWeight
		first := term[0]
		st.SeekTerms([]byte{first}, func(k, v []byte) bool {
			if len(k) == 0 || k[0] != first {
				return false
			}
			if d := len(k) - len(term); d >= -1 && d <= 1 && withinOneEdit(term, string(k)) {
				rec, ok := decodeTerm(v)
				if !ok {
					bad = corruptf("term %q", k)
					return false
				}
				s.cands = append(s.cands, fallbackCand{term: string(k), rec: rec})
			}
			return true
		})
	}
	if bad != nil {
		return bad
	}
	slices.SortFunc(s.cands, func(a, b fallbackCand) int {
		return cmp.Or(cmp.Compare(b.rec.df, a.rec.df), cmp.Compare(a.term, b.term))
	})
	for _, c := range s.cands[:min(len(s.cands), maxFallback)] {
		s.addTerm(c.term, w, c.rec, lit)
	}
	return nil
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

// Windows of documents scored together; see run.
const (
	windowShift = 10
	windowSize  = 1 << windowShift
)

// run evaluates the expanded query window by window, with MaxScore pruning on block-max
// bounds, in the manner of Lucene's MaxScoreBulkScorer.
//
// The documents are cut into windows of 1,024 ids. For each window every term gets a bound
// on its contribution there: the largest block bound among its posting blocks that overlap
// the window (usually well below its global bound). With θ the score a document must beat
// to enter the top-k heap, a window whose bounds sum to at most θ is skipped whole.
// Otherwise the terms are ordered by bound and the longest prefix whose bounds sum to at
// most θ is "non-essential": a document having only those terms cannot enter the heap. The
// essential terms are scored term-at-a-time into a small accumulator (a tight loop over
// their postings in the window); each document so reached becomes a candidate, and the
// non-essential lists are only probed for candidates, stopping as soon as the candidate's
// remaining bound falls to θ.
//
// Without a filter, frequent terms are searched through their champion lists (see
// champion.go) and the selected documents rescored exactly; should that select fewer than
// limit documents, the search is run again over the full lists. A filter may reject most
// champions, so filtered searches always use the full lists.
func (e *Engine) run(s *searchScratch, st Store, m *indexMeta, limit int, filter func(uint64) bool) ([]Hit, error) {
	norm := e.buildNorm(m.avg(e.nf))
	scale := e.boundScale(m) * boundSlack
	h, champ, err := e.runOnce(s, st, m, &norm, scale, limit, filter, filter == nil && champRatio*limit <= champMin)
	if err == nil && champ && len(h) < limit {
		h, _, err = e.runOnce(s, st, m, &norm, scale, limit, filter, false)
	}
	if err != nil {
		return nil, err
	}
	out := hits(h)
	if err := e.coverage(s, st, out); err != nil {
		return nil, err
	}
	return out, nil
}

// coverage sets each hit's Coverage from the cursors of the last evaluation: for every
// query word, whether one of its terms occurs in a key field of the document (looked up in
// the full posting list when only a champion list was searched).
func (e *Engine) coverage(s *searchScratch, st Store, hs []Hit) error {
	words := 0
	seen := [2]uint64{}
	for _, qt := range s.terms {
		if qt.lit >= 0 && seen[qt.lit>>6]&(1<<(qt.lit&63)) == 0 {
			seen[qt.lit>>6] |= 1 << (qt.lit & 63)
			words++
		}
	}
	if words == 0 {
		return nil
	}
	key := e.keyFields()
	got := make([][2]uint64, len(hs)) // per hit: the words it covers
	for ci := range s.cursors {       // term by term, so each term's chunks are listed once
		c := &s.cursors[ci]
		lit := s.termLit(c.term)
		if lit < 0 {
			continue
		}
		for i := range hs {
			d := hs[i].ID
			if got[i][lit>>6]&(1<<(lit&63)) != 0 {
				continue
			}
			tf, found := uint32(0), false
			if j, ok := slices.BinarySearch(c.docs, d); ok {
				tf, found = c.tfs[j], true
			} else if c.champ {
				var looked bool
				if tf, found, looked = c.lookedUp(d); !looked { // rescore looked up every hit
					var err error
					if tf, _, found, err = e.lookupPosting(s, st, c.term, d); err != nil {
						return err
					}
				}
			}
			if found && tf&key != 0 {
				got[i][lit>>6] |= 1 << (lit & 63)
			}
		}
	}
	for i := range hs {
		n := bits.OnesCount64(got[i][0]) + bits.OnesCount64(got[i][1])
		hs[i].Coverage = float64(n) / float64(words)
	}
	return nil
}

// keyFields is the mask of the term-frequency bytes of the fields weighted above the
// lowest weight (all of them when every field weighs the same).
func (e *Engine) keyFields() uint32 {
	low := e.weights[0]
	for f := range e.nf {
		low = min(low, e.weights[f])
	}
	var m uint32
	for f := range e.nf {
		if e.weights[f] > low {
			m |= 0xff << (8 * f)
		}
	}
	if m == 0 {
		m = 1<<(8*e.nf) - 1
	}
	return m
}

// termLit returns the query word a searched term stands for (-1 for a concept term).
func (s *searchScratch) termLit(term string) int {
	for _, qt := range s.terms {
		if qt.term == term {
			return qt.lit
		}
	}
	return -1
}

// termRec returns the record of a term of the expanded query.
func (s *searchScratch) termRec(term string) (termRec, bool) {
	for i := range s.terms {
		if s.terms[i].term == term {
			return s.terms[i].rec, true
		}
	}
	return termRec{}, false
}

// lookupPosting finds doc d's posting in term's full list, reading the one block that may
// hold it. The term's chunks are listed once per search and term (s.spanTerm).
func (e *Engine) lookupPosting(s *searchScratch, st Store, term string, d uint64) (tf, code uint32, found bool, err error) {
	if s.spanTerm != term {
		rec, ok := s.termRec(term)
		if !ok {
			var err error
			if rec, ok, err = lookupTerm(st, term); err != nil || !ok {
				return 0, 0, false, err
			}
		}
		s.spans = s.spans[:0]
		forChunks(st, term, &rec, func(first uint64, v []byte) bool {
			s.spans = append(s.spans, chunkSpan{first: first, v: v})
			return true
		})
		s.spanTerm = term
	}
	j, exact := slices.BinarySearchFunc(s.spans, d, func(sp chunkSpan, d uint64) int { return cmp.Compare(sp.first, d) })
	if !exact {
		j--
	}
	if j < 0 {
		return 0, 0, false, nil
	}
	sp := &s.spans[j]
	if !sp.parsed {
		var ok bool
		if sp.ch, ok = parseTermChunk(sp.v, sp.first); !ok {
			return 0, 0, false, corruptf("postings of %q", term)
		}
		sp.parsed = true
	}
	tf, code, found, ok := sp.ch.find(d, e.nf, &s.ps)
	if !ok {
		return 0, 0, false, corruptf("postings of %q", term)
	}
	return tf, code, found, nil
}

// runOnce is one evaluation for run; it returns the heap (in s.heap's storage) and whether
// a champion list was searched.
func (e *Engine) runOnce(s *searchScratch, st Store, m *indexMeta, norm *normTable, scale float64, limit int, filter func(uint64) bool, champ bool) ([]heapEntry, bool, error) {
	cs, used, err := e.cursors(s, st, m, champ)
	if err != nil || len(cs) == 0 {
		return nil, false, err
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

	for {
		first := uint64(endDoc)
		for i := range cs {
			first = min(first, cs[i].doc)
		}
		if first == endDoc {
			break
		}
		lo := first &^ (windowSize - 1)
		hi := lo + windowSize
		if hi < lo { // the last window of the id space
			hi = endDoc
		}
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
		e0 := 0 // ord[e0:] are essential
		for e0 < n && prefix[e0+1] <= theta {
			e0++
		}
		// Essential terms, term-at-a-time.
		for _, c := range ord[e0:] {
			c.seek(lo)
			docs, tfs, codes, mult := c.docs, c.tfs, c.codes, c.mult
			p := c.pos
			for ; p < len(docs) && docs[p] < hi; p++ {
				i := docs[p] - lo
				acc[i] += mult * norm.v(tfs[p], codes[p])
				touched[i>>6] |= 1 << (i & 63)
			}
			c.reset(p)
		}
		// Candidates, in document order.
		for wi := range touched {
			for word := touched[wi]; word != 0; word &= word - 1 {
				i := uint64(wi<<6 | bits.TrailingZeros64(word))
				score := acc[i]
				acc[i] = 0
				d := lo + i
				if full && score+prefix[e0] <= theta {
					continue
				}
				pruned := false
				for j := e0 - 1; j >= 0; j-- {
					if score+prefix[j+1] <= theta {
						pruned = true
						break
					}
					c := ord[j]
					c.seek(d)
					if c.doc == d {
						score += c.mult * norm.v(c.tfs[c.pos], c.codes[c.pos])
					}
				}
				if pruned || (full && score <= theta) {
					continue
				}
				if filter != nil && !filter(d) {
					continue
				}
				if !full {
					h = append(h, heapEntry{score: score, doc: d})
					heapUp(h, len(h)-1)
					if len(h) < limit {
						continue
					}
					full = true
				} else {
					h[0] = heapEntry{score: score, doc: d}
					heapDown(h, 0)
				}
				theta = h[0].score
			}
			touched[wi] = 0
		}
		for _, c := range ord[:e0] {
			c.seek(hi)
		}
	}
	s.heap = h
	s.prefix = prefix
	if used {
		if err := e.rescore(s, st, cs, h, norm); err != nil {
			return nil, false, err
		}
	}
	return h, used, nil
}

// rescore recomputes the scores of the selected documents over the full posting lists of
// the terms searched through champion lists, so that the scores returned are exact even
// where a document's posting of a frequent term was not among its champions. It reads
// only the chunks, and within them the blocks, that hold those documents.
func (e *Engine) rescore(s *searchScratch, st Store, cs []cursor, h []heapEntry, norm *normTable) error {
	for i := range cs {
		c := &cs[i]
		if !c.champ {
			continue
		}
		for k := range h {
			d := h[k].doc
			if _, ok := slices.BinarySearch(c.docs, d); ok {
				continue // already counted
			}
			tf, code, found, err := e.lookupPosting(s, st, c.term, d)
			if err != nil {
				return err
			}
			if found {
				h[k].score += c.mult * norm.v(tf, code)
			}
			c.looked = append(c.looked, lookedPosting{doc: d, tf: tf, found: found})
		}
		slices.SortFunc(c.looked, func(a, b lookedPosting) int { return cmp.Compare(a.doc, b.doc) })
	}
	return nil
}

// lookedUp returns rescore's lookup of document d, if it made one.
func (c *cursor) lookedUp(d uint64) (tf uint32, found, ok bool) {
	j, ok := slices.BinarySearchFunc(c.looked, d, func(p lookedPosting, d uint64) int { return cmp.Compare(p.doc, d) })
	if !ok {
		return 0, false, false
	}
	return c.looked[j].tf, c.looked[j].found, true
}

// chunkSpan is one chunk of a term, parsed on demand.
type chunkSpan struct {
	first  uint64
	v      []byte
	parsed bool
	ch     chunk
}

// windowBound sets c.wub to the bound of the term's contribution to documents in [lo, hi):
// the largest bound of its posting blocks overlapping that range.
func (c *cursor) windowBound(lo, hi uint64, scale float64) {
	b := c.wb
	for b < len(c.bmax) && c.docs[c.bend[b]-1] < lo {
		b++
	}
	c.wb = b
	m := 0.0
	for ; b < len(c.bmax) && c.docs[c.blockStart(b)] < hi; b++ {
		m = max(m, c.bmax[b])
	}
	c.wub = c.mult * m * scale * boundSlack
}

// cursors opens a cursor per query term that has postings; with champ, a frequent term's
// cursor walks its champion list.
func (e *Engine) cursors(s *searchScratch, st Store, m *indexMeta, champ bool) ([]cursor, bool, error) {
	nDocs := float64(m.n)
	cs := s.cursors[:0]
	used := false
	for _, qt := range s.terms {
		df := float64(qt.rec.df)
		idf := math.Log(1 + max(nDocs-df, 0)/(df+0.5) + 0.5/(df+0.5))
		cs = slices.Grow(cs, 1)[:len(cs)+1]
		c := &cs[len(cs)-1]
		*c = cursor{docs: c.docs[:0], tfs: c.tfs[:0], codes: c.codes[:0], bend: c.bend[:0], bmax: c.bmax[:0],
			looked: c.looked[:0], mult: qt.weight * idf * (e.k1 + 1), term: qt.term}
		loaded := false
		if champ && qt.rec.flags&termChampion != 0 {
			s.key = championKey(s.key[:0], qt.term)
			if v := st.Postings(s.key); len(v) > 8 {
				if !e.champs.load(qt.term, v, c) {
					ch, ok := parseChunk(v[8:], 0)
					if !ok || !c.load(&ch, e.nf) {
						return nil, false, corruptf("champion list of %q", qt.term)
					}
					e.champs.store(qt.term, v, c)
				}
				c.champ, loaded, used = true, true, true
			}
		}
		if !loaded {
			bad := false
			forChunks(st, qt.term, &qt.rec, func(first uint64, v []byte) bool {
				ch, ok := parseTermChunk(v, first)
				bad = !ok || !c.load(&ch, e.nf)
				return !bad
			})
			if bad {
				return nil, false, corruptf("postings of %q", qt.term)
			}
		}
		if len(c.docs) == 0 {
			cs = cs[:len(cs)-1]
			continue
		}
		c.reset(0)
	}
	s.cursors = cs
	return cs, used, nil
}

// load appends a chunk's postings and block bounds to the cursor.
func (c *cursor) load(ch *chunk, nf int) bool {
	for b := range ch.nb {
		var ok bool
		if c.docs, c.tfs, c.codes, ok = ch.decodeBlock(b, nf, c.docs, c.tfs, c.codes); !ok {
			return false
		}
		if n := len(c.docs); n > 1 && len(c.bend) > 0 && c.docs[c.bend[len(c.bend)-1]] <= c.docs[c.bend[len(c.bend)-1]-1] {
			return false // chunks out of order
		}
		c.bend = append(c.bend, int32(len(c.docs)))
		c.bmax = append(c.bmax, ch.bound(b))
	}
	return true
}

// hits turns the heap into results, best first.
func hits(h []heapEntry) []Hit {
	out := make([]Hit, len(h))
	for i, he := range h {
		out[i] = Hit{ID: he.doc, Score: he.score}
	}
	slices.SortFunc(out, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// The heap is a min-heap on score; among equal scores the later document is the smaller, so
// earlier documents win ties deterministically. It is hand-written rather than
// container/heap, whose interface methods would box every entry on the hot path.
func heapLess(a, b heapEntry) bool {
	return a.score < b.score || (a.score == b.score && a.doc > b.doc)
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
