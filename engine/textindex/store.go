package textindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Store is where a persisted index lives: two ordered key-value spaces, the terms (one
// record per term, plus the index record) and the postings (chunks and champion lists). The
// vault keeps them in two bbolt buckets, so the index is written in the same transactions
// as the documents and read a few keys at a time; [MemStore] keeps them in memory.
//
// Values a Store returns may alias its memory: they are valid until the next write or the
// end of the transaction, and the index copies what it keeps. Values passed to Put are not
// modified afterwards (bbolt holds on to them until the commit).
type Store interface {
	// Term and Postings return the value at k, nil if there is none.
	Term(k []byte) []byte
	Postings(k []byte) []byte
	// SeekTerms and SeekPostings call fn with every key >= from and its value, in key
	// order, until fn returns false.
	SeekTerms(from []byte, fn func(k, v []byte) bool)
	SeekPostings(from []byte, fn func(k, v []byte) bool)
}

// WriteStore is a Store that can be written. A Put copies its key (the writer reuses key
// buffers, as bbolt's Put allows); the value is the store's from then on.
type WriteStore interface {
	Store
	PutTerm(k, v []byte) error
	DeleteTerm(k []byte) error
	PutPostings(k, v []byte) error
	DeletePostings(k []byte) error
}

// Errors of a persisted index.
var (
	// ErrCorrupt means a record of the index could not be decoded.
	ErrCorrupt = errors.New("textindex: index record is corrupt")
	// ErrMismatch means the index was written with other options or by another analyzer
	// (an older or newer nova): it must be rebuilt from the documents.
	ErrMismatch = errors.New("textindex: index was built with other options or another analyzer")
	// ErrNoIndex means the store holds no index yet.
	ErrNoIndex = errors.New("textindex: no index in the store")
)

// metaKey holds the index record in the terms space. No term can sort there: terms are
// valid UTF-8 or a concept term (starting with 0x00), and 0xff never occurs in UTF-8.
var metaKey = []byte{0xff, 'm', 'e', 't', 'a'}

// MetaKey returns the key of the index record in the terms space: deleting it makes the
// store hold no index (ErrNoIndex), so that it is rebuilt.
func MetaKey() []byte { return slices.Clone(metaKey) }

const (
	// metaVersion is the version of the index record this binary writes. Version 2 says
	// that term records may hold their posting list inline (termInline): a nova that knows
	// only version 1 sees ErrMismatch and rebuilds the index rather than misreading it.
	// Version 1 records (an index written before inline lists) are read as they are: such
	// an index has every posting list in the postings space, which this binary reads too.
	metaVersion    = 2
	minMetaVersion = 1
	termVersion    = 1
	// termChampion marks a term that has a champion list.
	termChampion = 1
	// termInline marks a term whose one chunk is stored in its record (see termRec).
	termInline = 2
	// termFlags are the flags a term record may carry.
	termFlags = termChampion | termInline
)

// inlineMax is the largest chunk a term record holds inline: a term whose posting list is
// one chunk of at most inlineMax bytes keeps it in its record instead of a key of its own
// in the postings space. One posting takes 25–27 bytes (the 20-byte block entry, the
// header, the posting), each further one 3–5; on an import of 10,000 generated markdown
// files (bench/gen) 88.7 % of the terms have one chunk of at most 32 bytes, 95.6 % one of
// at most 64 and 96.6 % one of at most 128. 64 takes nearly all of them while keeping term
// records small for the scans that read many (prefix and typo fallbacks, the writer's
// prefetch): the import then writes one key per term instead of two.
const inlineMax = 64

// indexMeta is the index record: what scoring needs besides the postings.
//
//	version byte, fingerprint (uint64 LE), nf byte, live documents (uvarint),
//	nf × sum of the live documents' field lengths (uvarint),
//	nf × reference average field length (float64 LE): the normalisation behind every
//	stored bound and champion value; it moves only when the averages drift (see drift)
type indexMeta struct {
	ver    byte // the version read (encode writes metaVersion)
	fp     uint64
	n      uint64
	totals [MaxFields]uint64
	refAvg [MaxFields]float64
}

func (m *indexMeta) encode(nf int) []byte {
	b := make([]byte, 0, 16+nf*18)
	b = append(b, metaVersion)
	b = binary.LittleEndian.AppendUint64(b, m.fp)
	b = append(b, byte(nf))
	b = binary.AppendUvarint(b, m.n)
	for f := range nf {
		b = binary.AppendUvarint(b, m.totals[f])
	}
	for f := range nf {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.refAvg[f]))
	}
	return b
}

func decodeMeta(b []byte, nf int) (indexMeta, error) {
	var m indexMeta
	if len(b) < 10 || b[0] < minMetaVersion || b[0] > metaVersion {
		return m, fmt.Errorf("%w: index record version", ErrMismatch)
	}
	m.ver = b[0]
	m.fp = binary.LittleEndian.Uint64(b[1:])
	if int(b[9]) != nf {
		return m, fmt.Errorf("%w: %d fields, want %d", ErrMismatch, b[9], nf)
	}
	p := 10
	uv := func() uint64 {
		x, k := binary.Uvarint(b[p:])
		if k <= 0 {
			p = -1
			return 0
		}
		p += k
		return x
	}
	m.n = uv()
	for f := 0; f < nf && p >= 0; f++ {
		m.totals[f] = uv()
	}
	if p < 0 || len(b)-p != 8*nf {
		return m, fmt.Errorf("%w: index record", ErrCorrupt)
	}
	for f := range nf {
		a := math.Float64frombits(binary.LittleEndian.Uint64(b[p:]))
		if !(a == 0 || (a >= 1 && a <= math.MaxUint32)) {
			return m, fmt.Errorf("%w: reference average", ErrCorrupt)
		}
		m.refAvg[f] = a
		p += 8
	}
	return m, nil
}

// avg returns the current average field lengths (at least 1, so empty fields are harmless).
func (m *indexMeta) avg(nf int) (avg [MaxFields]float64) {
	for f := range nf {
		avg[f] = 1
		if m.n > 0 {
			avg[f] = max(float64(m.totals[f])/float64(m.n), 1)
		}
	}
	return avg
}

// termRec is a term's record: version byte, document frequency (uvarint), flags byte,
// first document of the term's last chunk (uvarint), so that appending a new document
// reads one chunk; with termInline, the rest of the record is the term's only chunk (the
// chunk value, see chunk.go, of at most inlineMax bytes), which then has no key in the
// postings space.
type termRec struct {
	df     uint64
	flags  byte
	last   uint64
	inline []byte // the inline chunk (flags&termInline); aliases the record's bytes
}

func (r termRec) encode() []byte { return r.appendTo(make([]byte, 0, r.size())) }

// size is an upper bound of the record's encoded length.
func (r termRec) size() int { return 2 + 2*binary.MaxVarintLen64 + len(r.inline) }

func (r termRec) appendTo(b []byte) []byte {
	b = append(b, termVersion)
	b = binary.AppendUvarint(b, r.df)
	b = append(b, r.flags)
	b = binary.AppendUvarint(b, r.last)
	return append(b, r.inline...)
}

// setInline makes v (a chunk starting at document first) the term's only chunk, in its
// record; v == nil clears that (the term's chunks are in the postings space).
func (r *termRec) setInline(first uint64, v []byte) {
	r.inline = v
	if v == nil {
		r.flags &^= termInline
		return
	}
	r.flags |= termInline
	r.last = first
}

// decodeTerm decodes a term record. An inline chunk is checked as far as its header, block
// table (parseChunk) and first posting's document, and must hold exactly the term's df
// postings; readers decode its postings as they decode a chunk of the postings space.
func decodeTerm(b []byte) (termRec, bool) {
	if len(b) < 4 || b[0] != termVersion {
		return termRec{}, false
	}
	df, k := binary.Uvarint(b[1:])
	if k <= 0 || df == 0 || 1+k >= len(b) {
		return termRec{}, false
	}
	p := 1 + k
	flags := b[p]
	last, k := binary.Uvarint(b[p+1:])
	if k <= 0 || flags&^termFlags != 0 {
		return termRec{}, false
	}
	r := termRec{df: df, flags: flags, last: last}
	rest := b[p+1+k:]
	if flags&termInline == 0 {
		return r, len(rest) == 0
	}
	if flags&termChampion != 0 { // a champion term has thousands of postings
		return termRec{}, false
	}
	c, ok := parseTermChunk(rest, last)
	// The first posting is document last: a delta of 0 beside a field mask, one byte.
	if !ok || uint64(c.n) != df || c.body[0] == 0 || c.body[0] >= 16 {
		return termRec{}, false
	}
	r.inline = rest
	return r, true
}

// MemStore is an in-memory [WriteStore], for the in-memory [Index] and for a process that
// cannot write the persisted index. The zero value is ready to use; it is not safe for
// concurrent use.
type MemStore struct {
	terms, postings memSpace
}

// memSpace is one ordered key space: a map, and its keys in sorted pages (a two-level
// B+tree: writes and seeks cost O(log n + page), whatever their mix).
type memSpace struct {
	m     map[string][]byte
	pages [][]string // each sorted, non-empty; pages in order
}

const memPage = 256

func (s *memSpace) get(k []byte) []byte { return s.m[string(k)] }

// page returns the index of the page where key belongs.
func (s *memSpace) page(key string) int {
	i, _ := slices.BinarySearchFunc(s.pages, key, func(p []string, k string) int { return strings.Compare(p[0], k) })
	if i == len(s.pages) || s.pages[i][0] != key {
		i--
	}
	return max(i, 0)
}

func (s *memSpace) put(k, v []byte) {
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	if _, ok := s.m[string(k)]; !ok {
		key := string(k)
		if len(s.pages) == 0 {
			s.pages = [][]string{{key}}
		} else {
			i := s.page(key)
			p := s.pages[i]
			j, _ := slices.BinarySearch(p, key)
			p = slices.Insert(p, j, key)
			if len(p) > 2*memPage {
				half := append([]string(nil), p[memPage:]...)
				p = p[:memPage:memPage]
				s.pages = slices.Insert(s.pages, i+1, half)
			}
			s.pages[i] = p
		}
	}
	s.m[string(k)] = v
}

func (s *memSpace) del(k []byte) {
	if _, ok := s.m[string(k)]; !ok {
		return
	}
	delete(s.m, string(k))
	i := s.page(string(k))
	p := s.pages[i]
	if j, found := slices.BinarySearch(p, string(k)); found {
		p = slices.Delete(p, j, j+1)
	}
	if len(p) == 0 {
		s.pages = slices.Delete(s.pages, i, i+1)
	} else {
		s.pages[i] = p
	}
}

func (s *memSpace) seek(from []byte, fn func(k, v []byte) bool) {
	if len(s.pages) == 0 {
		return
	}
	i := s.page(string(from))
	j, _ := slices.BinarySearch(s.pages[i], string(from))
	for ; i < len(s.pages); i, j = i+1, 0 {
		for _, k := range s.pages[i][j:] {
			if !fn([]byte(k), s.m[k]) {
				return
			}
		}
	}
}

func (s *memSpace) size() (n int) {
	for k, v := range s.m {
		n += len(k) + len(v)
	}
	return n
}

// Term implements Store.
func (s *MemStore) Term(k []byte) []byte { return s.terms.get(k) }

// Postings implements Store.
func (s *MemStore) Postings(k []byte) []byte { return s.postings.get(k) }

// SeekTerms implements Store.
func (s *MemStore) SeekTerms(from []byte, fn func(k, v []byte) bool) { s.terms.seek(from, fn) }

// SeekPostings implements Store.
func (s *MemStore) SeekPostings(from []byte, fn func(k, v []byte) bool) { s.postings.seek(from, fn) }

// PutTerm implements WriteStore.
func (s *MemStore) PutTerm(k, v []byte) error { s.terms.put(k, v); return nil }

// DeleteTerm implements WriteStore.
func (s *MemStore) DeleteTerm(k []byte) error { s.terms.del(k); return nil }

// PutPostings implements WriteStore.
func (s *MemStore) PutPostings(k, v []byte) error { s.postings.put(k, v); return nil }

// DeletePostings implements WriteStore.
func (s *MemStore) DeletePostings(k []byte) error { s.postings.del(k); return nil }

// Freeze is a no-op kept for callers that publish a store to concurrent readers: reads
// (Seek*) never write, so a store may be read concurrently between writes.
func (s *MemStore) Freeze() {}

// Size returns the bytes of keys and values held.
func (s *MemStore) Size() int { return s.terms.size() + s.postings.size() }

// termOf returns the term of a postings key and, for a chunk (else a champion list), its
// first document.
func termOf(k []byte) (string, uint64, bool) {
	if n := len(k); n >= 10 && k[n-9] == 0 {
		return string(k[:n-9]), binary.BigEndian.Uint64(k[n-8:]), true
	}
	return strings.TrimSuffix(string(k), "\x01"), 0, false
}
