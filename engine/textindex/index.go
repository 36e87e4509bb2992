package textindex

import (
	"math"
	"strings"
	"sync"
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
	// Coverage is the share of the query's words (each with its prefix or typo expansions)
	// that the document holds in a key field, one weighted above the lowest (with the
	// default fields: title, summary or tags, not only the body). A ranker can prefer a
	// document about every word of the query to one that mentions some of them at length.
	Coverage float64
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

// Index is an in-memory ranked full-text index: an [Engine] over a [MemStore], plus the
// documents' text (removing a document removes the postings of its text). Use [New]; the
// zero value is not usable. It is safe for concurrent use: searches run in parallel, writes
// are exclusive. The vault keeps its index in bbolt through the Engine directly; Index serves
// tests and callers that index a few thousand documents in memory.
type Index struct {
	mu   sync.RWMutex
	eng  *Engine
	st   MemStore
	docs map[uint64][]Field
}

// New returns an empty index. It panics if opts declares more than MaxFields fields or a
// field twice: options are the program's constants, not input.
func New(opts Options) *Index {
	return &Index{eng: NewEngine(opts), docs: map[uint64][]Field{}}
}

// Engine returns the index's engine.
func (ix *Index) Engine() *Engine { return ix.eng }

// Len returns the number of documents in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.docs)
}

// Has reports whether a document with this id is indexed.
func (ix *Index) Has(id uint64) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.docs[id]
	return ok
}

// Add indexes a document. A document already indexed under id is replaced, so Add and
// [Index.Upsert] are the same operation. The id math.MaxUint64 is reserved and ignored.
func (ix *Index) Add(id uint64, fields ...Field) { ix.AddBatch([]Doc{{ID: id, Fields: fields}}) }

// Upsert indexes a document, replacing any document with the same id.
func (ix *Index) Upsert(id uint64, fields ...Field) { ix.Add(id, fields...) }

// AddBatch indexes many documents at once; a document whose id is already indexed is
// replaced, and within the batch the last document with a given id wins. Large batches are
// analysed on all processors.
func (ix *Index) AddBatch(docs []Doc) {
	if len(docs) == 0 {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var b Batch
	for _, d := range docs {
		if d.ID == endDoc {
			continue
		}
		fields := d.Fields
		if fields == nil {
			fields = []Field{}
		}
		b.Put(d.ID, ix.docs[d.ID], fields)
		ix.docs[d.ID] = fields
	}
	ix.apply(&b)
}

// Remove deletes a document and reports whether it was there.
func (ix *Index) Remove(id uint64) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old, ok := ix.docs[id]
	if !ok {
		return false
	}
	var b Batch
	b.Remove(id, old)
	delete(ix.docs, id)
	ix.apply(&b)
	return true
}

func (ix *Index) apply(b *Batch) {
	if err := ix.eng.Apply(&ix.st, b); err != nil {
		// A MemStore holds only what this engine wrote: an error is a bug.
		panic(err)
	}
	ix.st.Freeze()
}

// Search returns up to limit documents matching query, best first (see [Engine.Search]).
// filter is called under the index's read lock, so it must not call the index's write
// methods.
func (ix *Index) Search(query string, limit int, filter func(id uint64) bool) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	hits, err := ix.eng.Search(&ix.st, query, limit, filter)
	if err != nil {
		return nil // an empty index has no record yet
	}
	return hits
}
