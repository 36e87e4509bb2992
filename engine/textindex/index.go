package textindex

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// MaxFields is the most fields an [Index] can weigh separately: per-field term frequencies
// are packed one byte each into a uint32 per posting.
const MaxFields = 4

// Names of the default fields.
const (
	FieldTitle   = "title"
	FieldSummary = "summary"
	FieldTags    = "tags"
	FieldBody    = "body"
)

// DefaultLimit is the number of hits Search returns when asked for limit <= 0.
const DefaultLimit = 10

// Field is one named piece of a document's text.
type Field struct {
	Name string
	Text string
}

// Title returns a title field.
func Title(text string) Field { return Field{Name: FieldTitle, Text: text} }

// Summary returns a summary field.
func Summary(text string) Field { return Field{Name: FieldSummary, Text: text} }

// Body returns a body field.
func Body(text string) Field { return Field{Name: FieldBody, Text: text} }

// Tags returns a tags field holding the given tags.
func Tags(tags ...string) Field { return Field{Name: FieldTags, Text: strings.Join(tags, " ")} }

// Doc is a document for [Index.AddBatch].
type Doc struct {
	ID     uint64
	Fields []Field
}

// Hit is one search result.
type Hit struct {
	ID    uint64
	Score float64
}

// FieldSpec declares a field and how it is scored. Each field's term frequency is
// length-normalised and saturated on its own (BM25), then the fields are weighted and summed:
// a match in the field is worth up to Weight times a match in a weight-1 field. B (0..1) is
// how strongly the field's length is normalised against its average length; 0 turns that off.
type FieldSpec struct {
	Name   string
	Weight float64
	B      float64
}

// DefaultFields returns the default field specs: title weighted highest, then summary and
// tags, then body.
func DefaultFields() []FieldSpec {
	return []FieldSpec{
		{Name: FieldTitle, Weight: 4, B: 0.5},
		{Name: FieldSummary, Weight: 2, B: 0.6},
		{Name: FieldTags, Weight: 2, B: 0.3},
		{Name: FieldBody, Weight: 1, B: 0.75},
	}
}

// Options configures an [Index]. The zero value is valid.
type Options struct {
	// Fields declares the fields, at most MaxFields; nil means DefaultFields(). Text of a
	// field whose name is not declared is indexed into the last declared field.
	Fields []FieldSpec
	// K1 is BM25's term-frequency saturation; 0 means 1.2.
	K1 float64
	// Synonyms are extra concept groups, added to the built-in programming vocabulary
	// unless NoDefaultSynonyms is set.
	Synonyms          [][]string
	NoDefaultSynonyms bool
	// SynonymWeight scales the score of the concept (synonym group) terms a query term adds;
	// 0 means 0.5, a negative value disables synonyms.
	SynonymWeight float64
	// NoFuzzy disables the fallback for query terms that are not in the index: terms
	// starting with them (prefix) or, failing that, one edit away (typos).
	NoFuzzy bool
}

// Weights of the fallbacks for unknown query terms.
const (
	prefixWeight = 0.6
	fuzzyWeight  = 0.5
	maxFallback  = 8
)

// blockShift sets the posting block size (128) used for block-max bounds.
const (
	blockShift = 7
	blockSize  = 1 << blockShift
)

// plist is the posting list of one term.
type plist struct {
	docs []int32   // ordinals, ascending
	tfs  []uint32  // per-field term frequencies, one byte per field
	bmax []float64 // per block: max posting value (normTable.v) under the reference normalisation
}

// normTable scores postings for given average field lengths.
type normTable struct {
	norm [MaxFields][256]float64 // per field and length code: 1 / (1 - b + b·len/avgLen)
	w    [MaxFields]float64
	k1   float64
}

// v is a posting's value: Σ_f w_f · t_f / (k1 + t_f) over its fields, with t_f the field's
// term frequency times its length normalisation. Each field saturates on its own (BM25 per
// field, weighted and summed) so that a title match counts in full instead of being drowned
// by a long body that mentions the term many times. A term's score in a document is
// query weight × idf × (k1+1) × v.
func (t *normTable) v(tf, code uint32) float64 {
	s := 0.0
	if b := tf & 0xff; b != 0 {
		n := float64(b) * t.norm[0][code&0xff]
		s += t.w[0] * n / (t.k1 + n)
	}
	if b := tf >> 8 & 0xff; b != 0 {
		n := float64(b) * t.norm[1][code>>8&0xff]
		s += t.w[1] * n / (t.k1 + n)
	}
	if b := tf >> 16 & 0xff; b != 0 {
		n := float64(b) * t.norm[2][code>>16&0xff]
		s += t.w[2] * n / (t.k1 + n)
	}
	if b := tf >> 24; b != 0 {
		n := float64(b) * t.norm[3][code>>24]
		s += t.w[3] * n / (t.k1 + n)
	}
	return s
}

// lenDecode maps a length code to a field length: exact below 40, then geometric (≈5 %
// steps) up to about a million tokens.
var lenDecode = func() (t [256]float64) {
	for c := range t {
		if c < 40 {
			t[c] = float64(c)
		} else {
			t[c] = math.Floor(40 * math.Pow(1.048, float64(c-39)))
		}
	}
	return t
}()

// lenCode quantises a field length to a byte.
func lenCode(n uint32) uint32 {
	if n < 40 {
		return n
	}
	lo, hi := 40, 255 // largest c with lenDecode[c] <= n
	for lo < hi {
		m := (lo + hi + 1) / 2
		if lenDecode[m] <= float64(n) {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return uint32(lo)
}

// centry caches the analysis of one surface token.
type centry struct {
	term int32 // -1 for a stop word
	info tokInfo
}

// maxCache bounds the surface-token cache of the single-document path.
const maxCache = 1 << 20

// Index is an in-memory ranked full-text index (BM25 over weighted fields). Use [New]; the zero
// value is not usable. It is safe for concurrent use: searches run in parallel, writes are
// exclusive.
type Index struct {
	mu sync.RWMutex

	// Configuration, immutable after New.
	nf        int
	names     [MaxFields]string
	weights   [MaxFields]float64
	bs        [MaxFields]float64
	k1        float64
	concepts  conceptMap // nil when synonyms are off
	cnames    []string   // concept term of each group
	synWeight float64
	fuzzy     bool

	// Documents, by ordinal.
	ids     []uint64
	codes   []uint32 // packed length codes, one byte per field
	lens    [][MaxFields]uint32
	dead    []uint64 // tombstone bitset
	numDead int
	byID    map[uint64]int32
	totals  [MaxFields]uint64 // sum of live documents' field lengths

	// Terms.
	dict         map[string]int32
	terms        []string
	posts        []plist
	termConcepts [][]int32     // per term: the concept terms it also counts for
	lazy         *lazyPostings // posting lists of a loaded snapshot not decoded yet, or nil

	// Reference normalisation behind the bounds in plist.bmax.
	refAvg  [MaxFields]float64
	refNorm normTable

	// Single-document analysis state (under mu).
	cache   surfaceTable
	tz      tokenizer
	buf     []byte
	touched []int32

	// Lazily derived from the above (see currentNorm and sortedTerms).
	normDirty   atomic.Bool
	normMu      sync.Mutex
	norm        normTable
	normScale   float64
	sortedDirty atomic.Bool
	sortedMu    sync.Mutex
	sorted      []string

	champ champCache // champion lists of frequent terms (see champions)

	scratch sync.Pool
}

// New returns an empty index. It panics if opts declares more than MaxFields fields or a
// field twice: options are the program's constants, not input.
func New(opts Options) *Index {
	fields := opts.Fields
	if fields == nil {
		fields = DefaultFields()
	}
	if len(fields) == 0 || len(fields) > MaxFields {
		panic(fmt.Sprintf("textindex: %d fields declared, want 1..%d", len(fields), MaxFields))
	}
	ix := &Index{
		nf:    len(fields),
		k1:    opts.K1,
		fuzzy: !opts.NoFuzzy,
		byID:  map[uint64]int32{},
		dict:  map[string]int32{},
	}
	for i, f := range fields {
		for j := range i {
			if ix.names[j] == f.Name {
				panic(fmt.Sprintf("textindex: field %q declared twice", f.Name))
			}
		}
		ix.names[i] = f.Name
		ix.weights[i] = f.Weight
		if ix.weights[i] <= 0 {
			ix.weights[i] = 1
		}
		ix.bs[i] = min(max(f.B, 0), 1)
	}
	if ix.k1 <= 0 {
		ix.k1 = 1.2
	}
	ix.synWeight = opts.SynonymWeight
	if ix.synWeight == 0 {
		ix.synWeight = 0.5
	}
	groups := len(defaultSynonyms) + len(opts.Synonyms)
	switch {
	case ix.synWeight < 0:
		groups = 0
	case opts.NoDefaultSynonyms:
		ix.concepts = buildConcepts(opts.Synonyms)
		groups = len(opts.Synonyms)
	case len(opts.Synonyms) > 0:
		ix.concepts = buildConcepts(defaultSynonyms, opts.Synonyms)
	default:
		ix.concepts = defaultConcepts
	}
	for g := range groups {
		ix.cnames = append(ix.cnames, conceptTerm(g))
	}
	ix.normDirty.Store(true)
	ix.sortedDirty.Store(true)
	ix.scratch.New = func() any { return new(searchScratch) }
	return ix
}

// Len returns the number of documents in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.byID)
}

// Has reports whether a document with this id is indexed.
func (ix *Index) Has(id uint64) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.byID[id]
	return ok
}

// Add indexes a document. A document already indexed under id is replaced, so Add and
// [Index.Upsert] are the same operation.
func (ix *Index) Add(id uint64, fields ...Field) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.materialize()
	ix.addLocked(id, fields)
	ix.afterWrite()
}

// Upsert indexes a document, replacing any document with the same id.
func (ix *Index) Upsert(id uint64, fields ...Field) { ix.Add(id, fields...) }

// Remove deletes a document and reports whether it was there.
func (ix *Index) Remove(id uint64) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.materialize()
	ord, ok := ix.byID[id]
	if !ok {
		return false
	}
	ix.removeOrd(ord)
	ix.afterWrite()
	return true
}

// fieldIndex maps a field name to its slot; unknown names go to the last field.
func (ix *Index) fieldIndex(name string) int {
	for i := range ix.nf {
		if ix.names[i] == name {
			return i
		}
	}
	return ix.nf - 1
}

func (ix *Index) isDead(ord int32) bool {
	return ix.dead[ord>>6]&(1<<(uint(ord)&63)) != 0
}

// newOrdinals appends n ordinals' worth of per-document storage and returns the first.
func (ix *Index) newOrdinals(n int) int32 {
	base := len(ix.ids)
	if base+n > math.MaxInt32-1 {
		panic("textindex: too many documents")
	}
	ix.ids = append(ix.ids, make([]uint64, n)...)
	ix.codes = append(ix.codes, make([]uint32, n)...)
	ix.lens = append(ix.lens, make([][MaxFields]uint32, n)...)
	if words := (base + n + 63) / 64; words > len(ix.dead) {
		ix.dead = append(ix.dead, make([]uint64, words-len(ix.dead))...)
	}
	return int32(base)
}

func (ix *Index) removeOrd(ord int32) {
	ix.dead[ord>>6] |= 1 << (uint(ord) & 63)
	ix.numDead++
	delete(ix.byID, ix.ids[ord])
	for f := range ix.nf {
		ix.totals[f] -= uint64(ix.lens[ord][f])
	}
}

// setLens records a document's field lengths.
func (ix *Index) setLens(ord int32, lens [MaxFields]uint32) {
	ix.lens[ord] = lens
	var code uint32
	for f := range ix.nf {
		code |= lenCode(lens[f]) << (8 * f)
		ix.totals[f] += uint64(lens[f])
	}
	ix.codes[ord] = code
}

// termID returns the id of term, creating it if needed.
func (ix *Index) termID(term []byte) int32 {
	if id, ok := ix.dict[string(term)]; ok {
		return id
	}
	return ix.newTerm(string(term))
}

// termIDString is termID for a string key.
func (ix *Index) termIDString(term string) int32 {
	if id, ok := ix.dict[term]; ok {
		return id
	}
	return ix.newTerm(term)
}

func (ix *Index) newTerm(term string) int32 {
	id := int32(len(ix.terms))
	ix.dict[term] = id
	ix.terms = append(ix.terms, term)
	ix.posts = append(ix.posts, plist{})
	ix.termConcepts = append(ix.termConcepts, nil)
	if gs := ix.concepts[term]; len(gs) > 0 {
		cs := make([]int32, len(gs))
		for i, g := range gs {
			cs[i] = ix.termIDString(ix.cnames[g])
		}
		ix.termConcepts[id] = cs
	}
	return id
}

// lookup analyses one surface token through the cache.
func (ix *Index) lookup(tok []byte) centry {
	k := makeTokenKey(tok)
	if e, ok := ix.cache.get(&k); ok {
		return e
	}
	var info tokInfo
	ix.buf, info = normalize(ix.buf, tok)
	e := centry{term: -1, info: info}
	if !info.stop {
		e.term = ix.termID(ix.buf)
	}
	if ix.cache.len() >= maxCache {
		ix.cache.reset()
	}
	ix.cache.put(&k, e)
	return e
}

// bump counts one occurrence of term t (and of its concepts) in field slot shift of document
// ord, the newest one.
func (ix *Index) bump(t, ord int32, shift uint) {
	ix.bumpOne(t, ord, shift)
	for _, c := range ix.termConcepts[t] {
		ix.bumpOne(c, ord, shift)
	}
}

func (ix *Index) bumpOne(t, ord int32, shift uint) {
	pl := &ix.posts[t]
	if n := len(pl.docs); n > 0 && pl.docs[n-1] == ord {
		if pl.tfs[n-1]>>shift&0xff < 0xff {
			pl.tfs[n-1] += 1 << shift
		}
		return
	}
	pl.docs = append(pl.docs, ord)
	pl.tfs = append(pl.tfs, 1<<shift)
	ix.touched = append(ix.touched, t)
}

// addLocked indexes one document through the incremental path.
func (ix *Index) addLocked(id uint64, fields []Field) {
	if old, ok := ix.byID[id]; ok {
		ix.removeOrd(old)
	}
	ord := ix.newOrdinals(1)
	ix.ids[ord] = id
	ix.byID[id] = ord
	var lens [MaxFields]uint32
	ix.touched = ix.touched[:0]
	for _, f := range fields {
		fi := ix.fieldIndex(f.Name)
		shift := uint(8 * fi)
		var ph phraseState
		ix.tz.each(f.Text, func(tok []byte) {
			e := ix.lookup(tok)
			if e.term >= 0 {
				ix.bump(e.term, ord, shift)
				lens[fi]++
			}
			if p := ph.next(e.info); p != "" {
				ix.bump(ix.termID([]byte(p)), ord, shift)
				lens[fi]++
			}
		})
	}
	ix.setLens(ord, lens)
	if ix.driftExceeded() {
		ix.resetBounds()
		return
	}
	code := ix.codes[ord]
	for _, t := range ix.touched {
		pl := &ix.posts[t]
		n := len(pl.docs)
		x := ix.refNorm.v(pl.tfs[n-1], code)
		if b := (n - 1) >> blockShift; b == len(pl.bmax) {
			pl.bmax = append(pl.bmax, x)
		} else {
			pl.bmax[b] = max(pl.bmax[b], x)
		}
	}
}

// afterWrite runs at the end of every write: it compacts when tombstones pile up and marks
// the derived state stale.
func (ix *Index) afterWrite() {
	if ix.numDead >= 64 && ix.numDead*4 >= len(ix.ids) {
		ix.compact()
	}
	ix.normDirty.Store(true)
	ix.sortedDirty.Store(true)
	ix.dropChampions()
}

// avgLens returns the current average field lengths (at least 1, so empty fields are harmless).
func (ix *Index) avgLens() (avg [MaxFields]float64) {
	live := float64(len(ix.byID))
	for f := range ix.nf {
		avg[f] = 1
		if live > 0 {
			avg[f] = max(float64(ix.totals[f])/live, 1)
		}
	}
	return avg
}

func (ix *Index) buildNorm(avg [MaxFields]float64) (t normTable) {
	t.k1 = ix.k1
	for f := range ix.nf {
		b := ix.bs[f]
		t.w[f] = ix.weights[f]
		for c := range t.norm[f] {
			t.norm[f][c] = 1 / (1 - b + b*lenDecode[c]/avg[f])
		}
	}
	return t
}

// boundScale is how much a posting's value under the current normalisation can exceed its
// value under the reference one: a field's length normalisation grows at most in proportion
// to its average length, and saturation t/(k1+t) grows less than its argument.
func (ix *Index) boundScale() float64 {
	avg := ix.avgLens()
	s := 1.0
	for f := range ix.nf {
		if ix.refAvg[f] > 0 {
			s = max(s, avg[f]/ix.refAvg[f])
		} else {
			s = math.Inf(1)
		}
	}
	return s
}

// driftExceeded reports whether the averages moved enough since the bounds were computed to
// make them loose (or, with no reference yet, absent).
func (ix *Index) driftExceeded() bool {
	avg := ix.avgLens()
	for f := range ix.nf {
		r := ix.refAvg[f]
		if r == 0 || avg[f] > r*1.1 || avg[f] < r/1.25 {
			return true
		}
	}
	return false
}

// resetBounds takes the current averages as the reference and recomputes every block bound.
func (ix *Index) resetBounds() {
	ix.dropChampions()
	ix.refAvg = ix.avgLens()
	ix.refNorm = ix.buildNorm(ix.refAvg)
	parallelFor(len(ix.posts), 256, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			ix.computeBounds(&ix.posts[t], 0)
		}
	})
}

// computeBounds recomputes a posting list's block bounds from block first on.
func (ix *Index) computeBounds(pl *plist, first int) {
	nb := (len(pl.docs) + blockSize - 1) >> blockShift
	if cap(pl.bmax) < nb {
		nb2 := make([]float64, nb)
		copy(nb2, pl.bmax[:min(len(pl.bmax), first)])
		pl.bmax = nb2
	}
	pl.bmax = pl.bmax[:nb]
	for b := first; b < nb; b++ {
		lo, hi := b<<blockShift, min((b+1)<<blockShift, len(pl.docs))
		m := 0.0
		for i := lo; i < hi; i++ {
			m = max(m, ix.refNorm.v(pl.tfs[i], ix.codes[pl.docs[i]]))
		}
		pl.bmax[b] = m
	}
}

// compact drops tombstoned documents and terms left without postings, renumbering ordinals.
func (ix *Index) compact() {
	ix.dropChampions()
	remap := make([]int32, len(ix.ids))
	live := int32(0)
	for ord := range ix.ids {
		if ix.isDead(int32(ord)) {
			remap[ord] = -1
			continue
		}
		remap[ord] = live
		ix.ids[live] = ix.ids[ord]
		ix.codes[live] = ix.codes[ord]
		ix.lens[live] = ix.lens[ord]
		ix.byID[ix.ids[live]] = live
		live++
	}
	ix.ids = ix.ids[:live:live]
	ix.codes = ix.codes[:live:live]
	ix.lens = ix.lens[:live:live]
	ix.dead = make([]uint64, (live+63)/64)
	ix.numDead = 0
	parallelFor(len(ix.posts), 256, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			pl := &ix.posts[t]
			n := 0
			for i, d := range pl.docs {
				if nd := remap[d]; nd >= 0 {
					pl.docs[n] = nd
					pl.tfs[n] = pl.tfs[i]
					n++
				}
			}
			pl.docs, pl.tfs = pl.docs[:n], pl.tfs[:n]
		}
	})
	n := int32(0)
	newID := make([]int32, len(ix.posts))
	for t := range ix.posts {
		if len(ix.posts[t].docs) == 0 {
			delete(ix.dict, ix.terms[t])
			newID[t] = -1
			continue
		}
		newID[t] = n
		ix.posts[n] = ix.posts[t]
		ix.terms[n] = ix.terms[t]
		ix.termConcepts[n] = ix.termConcepts[t]
		ix.dict[ix.terms[n]] = n
		n++
	}
	clear(ix.posts[n:])
	clear(ix.terms[n:])
	clear(ix.termConcepts[n:])
	ix.posts, ix.terms, ix.termConcepts = ix.posts[:n], ix.terms[:n], ix.termConcepts[:n]
	for _, cs := range ix.termConcepts {
		for i, c := range cs {
			cs[i] = newID[c] // a concept has every document of its members: it survives them
		}
	}
	ix.cache.reset()
	ix.resetBounds()
}

// parallelFor runs fn over [0, n) in chunks of grain on all processors.
func parallelFor(n, grain int, fn func(lo, hi int)) {
	workers := min(maxProcs(), (n+grain-1)/grain)
	if workers <= 1 {
		fn(0, n)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(grain))) - grain
				if lo >= n {
					return
				}
				fn(lo, min(lo+grain, n))
			}
		})
	}
	wg.Wait()
}

func maxProcs() int { return runtime.GOMAXPROCS(0) }
