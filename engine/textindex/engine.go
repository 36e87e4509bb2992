package textindex

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"slices"
	"sync"
)

// Engine is an index's configuration (fields, weights, analyzer, synonyms): it writes
// documents into a [Store] ([Engine.Apply]) and searches a Store ([Engine.Search]). It holds
// no documents, so one Engine serves any number of stores; it is safe for concurrent use.
type Engine struct {
	nf        int
	names     [MaxFields]string
	weights   [MaxFields]float64
	bs        [MaxFields]float64
	k1        float64
	concepts  conceptMap // nil when synonyms are off
	cnames    []string   // concept term of each group
	synWeight float64
	fuzzy     bool
	fp        uint64 // fingerprint of all of the above and of the analyzer

	scratch sync.Pool // *searchScratch
	champs  champCache
}

// NewEngine returns the engine for opts. It panics if opts declares more than MaxFields
// fields or a field twice: options are the program's constants, not input.
func NewEngine(opts Options) *Engine {
	fields := opts.Fields
	if fields == nil {
		fields = DefaultFields()
	}
	if len(fields) == 0 || len(fields) > MaxFields {
		panic(fmt.Sprintf("textindex: %d fields declared, want 1..%d", len(fields), MaxFields))
	}
	e := &Engine{nf: len(fields), k1: opts.K1, fuzzy: !opts.NoFuzzy}
	for i, f := range fields {
		for j := range i {
			if e.names[j] == f.Name {
				panic(fmt.Sprintf("textindex: field %q declared twice", f.Name))
			}
		}
		e.names[i] = f.Name
		e.weights[i] = f.Weight
		if e.weights[i] <= 0 {
			e.weights[i] = 1
		}
		e.bs[i] = min(max(f.B, 0), 1)
	}
	if e.k1 <= 0 {
		e.k1 = 1.2
	}
	e.synWeight = opts.SynonymWeight
	if e.synWeight == 0 {
		e.synWeight = 0.5
	}
	groups := len(defaultSynonyms) + len(opts.Synonyms)
	switch {
	case e.synWeight < 0:
		groups = 0
	case opts.NoDefaultSynonyms:
		e.concepts = buildConcepts(opts.Synonyms)
		groups = len(opts.Synonyms)
	case len(opts.Synonyms) > 0:
		e.concepts = buildConcepts(defaultSynonyms, opts.Synonyms)
	default:
		e.concepts = defaultConcepts
	}
	for g := range groups {
		e.cnames = append(e.cnames, conceptTerm(g))
	}
	e.fp = e.fingerprint()
	e.scratch.New = func() any { return new(searchScratch) }
	return e
}

// analyzerProbe exercises the analyzer (stop words, stemming, identifiers, folding, phrases),
// so that a change in analysis changes the fingerprint and old indexes are rebuilt.
const analyzerProbe = "The users were logged in; cachedResults and snake_case_name, café " +
	"indices running stopped authentication authorization optimizations happiness quickly " +
	"HTTPServer parseJSON2Yaml i18n ütf résumé children data statuses signing up"

// storageFormat is mixed into the fingerprint: bump it when the stored layout changes.
const storageFormat = 2

// fingerprint hashes everything besides the documents that determines the index's content:
// the field specs, k1, the concept groups, the analyzer's behaviour and the storage format.
func (e *Engine) fingerprint() uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(x uint64) {
		binary.LittleEndian.PutUint64(b[:], x)
		_, _ = h.Write(b[:])
	}
	put(storageFormat)
	put(uint64(e.nf))
	for f := range e.nf {
		_, _ = h.Write([]byte(e.names[f]))
		put(math.Float64bits(e.weights[f]))
		put(math.Float64bits(e.bs[f]))
	}
	put(math.Float64bits(e.k1))
	put(uint64(len(e.cnames)))
	keys := make([]string, 0, len(e.concepts))
	for k := range e.concepts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		_, _ = h.Write([]byte(k))
		put(uint64(len(e.concepts[k])))
		for _, g := range e.concepts[k] {
			put(uint64(g))
		}
	}
	for _, t := range Analyze(analyzerProbe) {
		_, _ = h.Write([]byte(t))
		put(0)
	}
	return h.Sum64()
}

// fieldIndex maps a field name to its slot; unknown names go to the last field.
func (e *Engine) fieldIndex(name string) int {
	for i := range e.nf {
		if e.names[i] == name {
			return i
		}
	}
	return e.nf - 1
}

// buildNorm returns the normalisation table for the given average field lengths.
func (e *Engine) buildNorm(avg [MaxFields]float64) (t normTable) {
	t.k1 = e.k1
	for f := range e.nf {
		b := e.bs[f]
		t.w[f] = e.weights[f]
		for c := range t.norm[f] {
			t.norm[f][c] = 1 / (1 - b + b*lenDecode[c]/avg[f])
		}
	}
	return t
}

// boundScale is how much a posting's value under the current normalisation can exceed its
// value under the reference one: a field's length normalisation grows at most in proportion
// to its average length, and saturation t/(k1+t) grows less than its argument.
func (e *Engine) boundScale(m *indexMeta) float64 {
	avg := m.avg(e.nf)
	s := 1.0
	for f := range e.nf {
		if m.refAvg[f] > 0 {
			s = max(s, avg[f]/m.refAvg[f])
		} else {
			s = math.Inf(1)
		}
	}
	return s
}

// drifted reports whether the averages moved enough since the reference was taken to make
// the stored bounds loose (or, with no reference yet, absent).
func (e *Engine) drifted(m *indexMeta) bool {
	avg := m.avg(e.nf)
	for f := range e.nf {
		r := m.refAvg[f]
		if r == 0 || avg[f] > r*1.1 || avg[f] < r/1.25 {
			return true
		}
	}
	return false
}

// readMeta reads the index record; ErrNoIndex when there is none.
func (e *Engine) readMeta(st Store) (indexMeta, error) {
	b := st.Term(metaKey)
	if b == nil {
		return indexMeta{}, ErrNoIndex
	}
	m, err := decodeMeta(b, e.nf)
	if err != nil {
		return m, err
	}
	if m.fp != e.fp {
		return m, fmt.Errorf("%w (fingerprint)", ErrMismatch)
	}
	return m, nil
}

// Stats describes a persisted index.
type Stats struct {
	// Docs is the number of documents indexed.
	Docs int `json:"docs"`
}

// Stats reads the index record of st; ErrNoIndex when st holds no index, ErrMismatch when
// it was built by another analyzer or with other options.
func (e *Engine) Stats(st Store) (Stats, error) {
	m, err := e.readMeta(st)
	if err != nil {
		return Stats{}, err
	}
	return Stats{Docs: int(m.n)}, nil
}

// Init writes an empty index into st (a no-op when st already holds a current one), so that
// searches of an empty collection find an index.
func (e *Engine) Init(st WriteStore) error {
	if _, err := e.readMeta(st); err == nil {
		return nil
	}
	m := indexMeta{fp: e.fp}
	return st.PutTerm(metaKey, m.encode(e.nf))
}

func maxProcs() int { return runtime.GOMAXPROCS(0) }
