package textindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// Snapshot format (all integers little-endian or unsigned varints):
//
//	magic "NVTX", version byte
//	fingerprint  uint64: options, concept groups and analyzer (see fingerprint)
//	nf           byte
//	refAvg       nf × float64 bits: the reference averages behind the block bounds
//	nDocs, nTerms, nPostings, termBytes  uvarints
//	ids          nDocs zigzag varints, delta to the previous id
//	lens         nDocs × nf uvarints (field lengths)
//	term lengths nTerms uvarints, then the termBytes bytes of all terms, in id order
//	sorted       count uvarint, then the ids of the non-concept terms in byte order, uvarints
//	postings     per term: count uvarint, byte length uvarint, then per posting
//	             uvarint((ordinal - previous - 1) << 4 | field mask) and one byte per field
//	             in the mask (the term frequency), then the block bounds as float64 bits
//	crc          uint32, CRC-32C of everything before
//
// Tombstones are compacted away before writing, so ordinals are dense. The reloaded index is
// the same state as the written one (same term ids, ordinals, bounds and averages), so it
// returns the same hits with bit-identical scores.
const (
	snapshotMagic   = "NVTX"
	snapshotVersion = 1
)

// Snapshot errors; ReadFrom and Load wrap one of them.
var (
	// ErrBadSnapshot means the snapshot is truncated or corrupt.
	ErrBadSnapshot = errors.New("textindex: invalid index snapshot")
	// ErrSnapshotMismatch means the snapshot was written by another format version, with
	// other options, or by a different analyzer: it must be rebuilt.
	ErrSnapshotMismatch = errors.New("textindex: index snapshot does not match this version or options")
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// analyzerProbe exercises the analyzer (stop words, stemming, identifiers, folding, phrases),
// so that a change in analysis changes the fingerprint and old snapshots are rebuilt.
const analyzerProbe = "The users were logged in; cachedResults and snake_case_name, café " +
	"indices running stopped authentication authorization optimizations happiness quickly " +
	"HTTPServer parseJSON2Yaml i18n ütf résumé children data statuses signing up"

// fingerprint hashes everything besides the documents that determines the index's content:
// the field specs, k1, the concept groups and the analyzer's behaviour.
func (ix *Index) fingerprint() uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(x uint64) {
		binary.LittleEndian.PutUint64(b[:], x)
		_, _ = h.Write(b[:])
	}
	put(uint64(ix.nf))
	for f := range ix.nf {
		_, _ = h.Write([]byte(ix.names[f]))
		put(math.Float64bits(ix.weights[f]))
		put(math.Float64bits(ix.bs[f]))
	}
	put(math.Float64bits(ix.k1))
	put(uint64(len(ix.cnames)))
	keys := make([]string, 0, len(ix.concepts))
	for k := range ix.concepts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		_, _ = h.Write([]byte(k))
		put(uint64(len(ix.concepts[k])))
		for _, g := range ix.concepts[k] {
			put(uint64(g))
		}
	}
	for _, t := range Analyze(analyzerProbe) {
		_, _ = h.Write([]byte(t))
		put(0)
	}
	return h.Sum64()
}

// WriteTo writes a snapshot of the index to w (see [ReadFrom]). It first compacts away
// removed documents, as the index does by itself once they pile up; that changes document
// counts behind the scores exactly as that compaction would, and the index then searches
// exactly as the reloaded snapshot does. Writes wait while it runs; searches do not.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(ix.AppendSnapshot(nil))
	return int64(n), err
}

// AppendSnapshot appends a snapshot of the index to dst, as [Index.WriteTo] writes it.
func (ix *Index) AppendSnapshot(dst []byte) []byte {
	for {
		ix.mu.Lock()
		ix.materialize()
		if ix.numDead > 0 {
			ix.compact()
			ix.normDirty.Store(true)
			ix.sortedDirty.Store(true)
		}
		ix.mu.Unlock()
		// Encoded under the read lock, so searches go on; a write that removed documents
		// in between sends it round again.
		ix.mu.RLock()
		if ix.numDead == 0 && ix.lazy == nil {
			dst = ix.appendSnapshotLocked(dst)
			ix.mu.RUnlock()
			return dst
		}
		ix.mu.RUnlock()
	}
}

func (ix *Index) appendSnapshotLocked(dst []byte) []byte {
	sorted := ix.sortedTerms()

	start := len(dst)
	dst = append(dst, snapshotMagic...)
	dst = append(dst, snapshotVersion)
	dst = binary.LittleEndian.AppendUint64(dst, ix.fingerprint())
	dst = append(dst, byte(ix.nf))
	for f := range ix.nf {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(ix.refAvg[f]))
	}
	nPost := 0
	termBytes := 0
	for t := range ix.posts {
		nPost += len(ix.posts[t].docs)
		termBytes += len(ix.terms[t])
	}
	dst = binary.AppendUvarint(dst, uint64(len(ix.ids)))
	dst = binary.AppendUvarint(dst, uint64(len(ix.terms)))
	dst = binary.AppendUvarint(dst, uint64(nPost))
	dst = binary.AppendUvarint(dst, uint64(termBytes))
	prev := uint64(0)
	for _, id := range ix.ids {
		dst = binary.AppendVarint(dst, int64(id-prev))
		prev = id
	}
	for ord := range ix.ids {
		for f := range ix.nf {
			dst = binary.AppendUvarint(dst, uint64(ix.lens[ord][f]))
		}
	}
	for _, t := range ix.terms {
		dst = binary.AppendUvarint(dst, uint64(len(t)))
	}
	for _, t := range ix.terms {
		dst = append(dst, t...)
	}
	dst = binary.AppendUvarint(dst, uint64(len(sorted)))
	for _, t := range sorted {
		dst = binary.AppendUvarint(dst, uint64(ix.dict[t]))
	}
	var body []byte
	for t := range ix.posts {
		pl := &ix.posts[t]
		body = body[:0]
		prev := int32(-1)
		for i, d := range pl.docs {
			tf := pl.tfs[i]
			var mask uint64
			for f := range ix.nf {
				if tf>>(8*f)&0xff != 0 {
					mask |= 1 << f
				}
			}
			body = binary.AppendUvarint(body, uint64(d-prev-1)<<4|mask)
			for f := range ix.nf {
				if c := byte(tf >> (8 * f)); c != 0 {
					body = append(body, c)
				}
			}
			prev = d
		}
		for _, m := range pl.bmax {
			body = binary.LittleEndian.AppendUint64(body, math.Float64bits(m))
		}
		dst = binary.AppendUvarint(dst, uint64(len(pl.docs)))
		dst = binary.AppendUvarint(dst, uint64(len(body)))
		dst = append(dst, body...)
	}
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], crcTable))
}

// ReadFrom reads a snapshot written by [Index.WriteTo] into a new index with options opts,
// which must be the options of the written index (else [ErrSnapshotMismatch]). A truncated
// or corrupt snapshot returns an error wrapping [ErrBadSnapshot]; it never panics.
func ReadFrom(r io.Reader, opts Options) (*Index, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read index snapshot: %w", err)
	}
	return Load(data, opts)
}

// snapReader decodes the snapshot; the first error sticks and later reads return zeros.
type snapReader struct {
	b   []byte
	off int
	err error
}

func (r *snapReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d", ErrBadSnapshot, what, r.off)
	}
}

func (r *snapReader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.off += n
	return x
}

func (r *snapReader) varint(what string) int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.off += n
	return x
}

// count reads a count of items that take at least minBytes each in the rest of the input.
func (r *snapReader) count(what string, minBytes int) int {
	x := r.uvarint(what)
	if r.err == nil && x > uint64(len(r.b)-r.off)/uint64(max(minBytes, 1)) {
		r.fail(what + " too large")
		return 0
	}
	return int(x)
}

func (r *snapReader) bytes(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail(what)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *snapReader) u64(what string) uint64 {
	s := r.bytes(8, what)
	if s == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(s)
}

// termSpan locates one term's postings in the input.
type termSpan struct {
	off, size int // byte range of the postings and bounds
	n         int // postings
}

// Load decodes a snapshot (see [ReadFrom]). It does not keep data. The header, documents
// and dictionary are decoded and checked at once, the posting lists (covered by the
// checksum) on first use; a list that turns out malformed then reads as empty.
func Load(data []byte, opts Options) (*Index, error) {
	ix := New(opts)
	if len(data) < len(snapshotMagic)+1+4 || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return nil, fmt.Errorf("%w: no snapshot header", ErrBadSnapshot)
	}
	if v := data[len(snapshotMagic)]; v != snapshotVersion {
		return nil, fmt.Errorf("%w: format version %d, want %d", ErrSnapshotMismatch, v, snapshotVersion)
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrBadSnapshot)
	}
	r := &snapReader{b: body, off: len(snapshotMagic) + 1}
	if fp := r.u64("fingerprint"); r.err == nil && fp != ix.fingerprint() {
		return nil, fmt.Errorf("%w: written with other options or another analyzer", ErrSnapshotMismatch)
	}
	if nf := r.bytes(1, "field count"); r.err == nil && int(nf[0]) != ix.nf {
		return nil, fmt.Errorf("%w: %d fields, want %d", ErrSnapshotMismatch, nf[0], ix.nf)
	}
	for f := range ix.nf {
		a := math.Float64frombits(r.u64("averages"))
		if r.err == nil && a != 0 && !(a >= 1 && a <= math.MaxUint32) {
			r.fail("average field length")
		}
		ix.refAvg[f] = a
	}
	nDocs := r.count("document count", 1+ix.nf)
	nTerms := r.count("term count", 3)
	nPost := r.count("posting count", 2)
	termBytes := r.count("term bytes", 1)
	if r.err != nil {
		return nil, r.err
	}
	if nDocs >= math.MaxInt32 {
		return nil, fmt.Errorf("%w: too many documents", ErrBadSnapshot)
	}

	// Documents.
	ix.ids = make([]uint64, nDocs)
	ix.codes = make([]uint32, nDocs)
	ix.lens = make([][MaxFields]uint32, nDocs)
	ix.dead = make([]uint64, (nDocs+63)/64)
	ix.byID = make(map[uint64]int32, nDocs)
	prev := uint64(0)
	for ord := range nDocs {
		prev += uint64(r.varint("document id"))
		ix.ids[ord] = prev
		ix.byID[prev] = int32(ord)
	}
	if r.err == nil && len(ix.byID) != nDocs {
		r.fail("duplicate document id")
	}
	for ord := range nDocs {
		var code uint32
		for f := range ix.nf {
			n := r.uvarint("field length")
			if n > math.MaxUint32 {
				r.fail("field length")
			}
			ix.lens[ord][f] = uint32(n)
			ix.totals[f] += n
			code |= lenCode(uint32(n)) << (8 * f)
		}
		ix.codes[ord] = code
	}

	// Terms.
	tlens := make([]int, nTerms)
	sum := 0
	for t := range nTerms {
		n := int(r.uvarint("term length"))
		if r.err == nil && (n == 0 || n > termBytes-sum) {
			r.fail("term length")
		}
		tlens[t] = n
		sum += n
	}
	if r.err == nil && sum != termBytes {
		r.fail("term bytes")
	}
	all := string(r.bytes(termBytes, "terms"))
	if r.err != nil {
		return nil, r.err
	}
	ix.terms = make([]string, nTerms)
	ix.dict = make(map[string]int32, nTerms)
	pos := 0
	for t, n := range tlens {
		s := all[pos : pos+n]
		pos += n
		ix.terms[t] = s
		ix.dict[s] = int32(t)
	}
	if len(ix.dict) != nTerms {
		return nil, fmt.Errorf("%w: duplicate term", ErrBadSnapshot)
	}
	ix.termConcepts = make([][]int32, nTerms)
	for t, s := range ix.terms {
		gs := ix.concepts[s]
		if len(gs) == 0 {
			continue
		}
		cs := make([]int32, len(gs))
		for i, g := range gs {
			c, ok := ix.dict[ix.cnames[g]]
			if !ok {
				return nil, fmt.Errorf("%w: concept term of %q missing", ErrSnapshotMismatch, s)
			}
			cs[i] = c
		}
		ix.termConcepts[t] = cs
	}
	nSorted := r.count("sorted terms", 1)
	sorted := make([]string, nSorted)
	concepts := 0
	for _, s := range ix.terms {
		if isConceptTerm(s) {
			concepts++
		}
	}
	if r.err == nil && nSorted != nTerms-concepts {
		r.fail("sorted term count")
	}
	for i := range sorted {
		t := r.uvarint("sorted term")
		if r.err != nil {
			break
		}
		if t >= uint64(nTerms) || isConceptTerm(ix.terms[t]) || (i > 0 && ix.terms[t] <= sorted[i-1]) {
			r.fail("sorted term order")
			break
		}
		sorted[i] = ix.terms[t]
	}
	if r.err != nil {
		return nil, r.err
	}

	// Postings: locate every term's range; the lists themselves are decoded on first use.
	spans := make([]termSpan, nTerms)
	at := 0
	for t := range spans {
		n := r.count("posting list length", 1)
		size := r.count("posting list size", 1)
		off := r.off
		r.bytes(size, "posting list")
		if r.err != nil {
			return nil, r.err
		}
		if n > nDocs || n > nPost-at {
			return nil, fmt.Errorf("%w: posting list length of term %d", ErrBadSnapshot, t)
		}
		spans[t] = termSpan{off: off, size: size, n: n}
		at += n
	}
	if at != nPost || r.off != len(body) {
		return nil, fmt.Errorf("%w: posting count or trailing bytes", ErrBadSnapshot)
	}
	// The posting lists are decoded on first use (see lazyPostings): a process that loads
	// an index to answer a few queries touches a handful of lists. The checksum above
	// already covers them.
	ix.posts = make([]plist, nTerms)
	if nTerms > 0 {
		data := slices.Clone(body[spans[0].off:])
		base := spans[0].off
		for t := range spans {
			spans[t].off -= base
		}
		ix.lazy = &lazyPostings{data: data, spans: spans, nf: ix.nf, nDocs: int32(nDocs),
			ready: make([]atomic.Bool, nTerms)}
	}
	ix.refNorm = ix.buildNorm(ix.refAvg)
	ix.sorted = sorted
	ix.sortedDirty.Store(false)
	return ix, nil
}

// decodePostings decodes one term's postings into docs and tfs (of the posting count) and
// returns its block bounds; ok is false when the bytes are malformed.
func decodePostings(b []byte, docs []int32, tfs []uint32, nf int, nDocs int32) (bmax []float64, ok bool) {
	p := 0
	prev := int64(-1)
	fieldMask := uint64(1)<<nf - 1
	tfs = tfs[:len(docs)]
	for i := range docs {
		if p >= len(b) {
			return nil, false
		}
		x := uint64(b[p])
		if x < 0x80 { // the common one-byte case, inline
			p++
		} else {
			v, n := binary.Uvarint(b[p:])
			if n <= 0 {
				return nil, false
			}
			x, p = v, p+n
		}
		mask := x & 15
		d := prev + 1 + int64(x>>4)
		if mask == 0 || mask > fieldMask || d >= int64(nDocs) {
			return nil, false
		}
		var tf uint32
		if mask&(mask-1) == 0 { // one field, the usual case
			if p >= len(b) || b[p] == 0 {
				return nil, false
			}
			tf = uint32(b[p]) << (8 * bits.TrailingZeros64(mask))
			p++
		} else {
			for m := mask; m != 0; m &= m - 1 {
				if p >= len(b) || b[p] == 0 {
					return nil, false
				}
				tf |= uint32(b[p]) << (8 * bits.TrailingZeros64(m))
				p++
			}
		}
		docs[i] = int32(d)
		tfs[i] = tf
		prev = d
	}
	nb := (len(docs) + blockSize - 1) >> blockShift
	if len(b)-p != 8*nb {
		return nil, false
	}
	bmax = make([]float64, nb)
	for k := range bmax {
		m := math.Float64frombits(binary.LittleEndian.Uint64(b[p:]))
		if !(m >= 0) {
			return nil, false
		}
		bmax[k] = m
		p += 8
	}
	return bmax, true
}

// lazyPostings holds the encoded posting lists of a loaded snapshot until they are used.
// Searches decode the lists they need (under the index's read lock, serialised by mu);
// every write decodes all that are left first (materialize), so write paths never see it.
type lazyPostings struct {
	mu    sync.Mutex
	data  []byte
	spans []termSpan
	nf    int
	nDocs int32
	ready []atomic.Bool // per term: decoded into ix.posts
}

// postings returns term t's posting list, decoding it if needed. Callers hold ix.mu (read
// or write).
func (ix *Index) postings(t int32) *plist {
	if lz := ix.lazy; lz != nil && !lz.ready[t].Load() {
		lz.mu.Lock()
		if !lz.ready[t].Load() {
			lz.decode(ix, int(t))
		}
		lz.mu.Unlock()
	}
	return &ix.posts[t]
}

// df returns the number of postings of term t without decoding them.
func (ix *Index) df(t int32) int {
	if lz := ix.lazy; lz != nil && !lz.ready[t].Load() {
		return lz.spans[t].n
	}
	return len(ix.posts[t].docs)
}

func (lz *lazyPostings) decode(ix *Index, t int) {
	sp := &lz.spans[t]
	docs := make([]int32, sp.n)
	tfs := make([]uint32, sp.n)
	bmax, ok := decodePostings(lz.data[sp.off:sp.off+sp.size], docs, tfs, lz.nf, lz.nDocs)
	if ok {
		ix.posts[t] = plist{docs: docs, tfs: tfs, bmax: bmax}
	} else {
		ix.posts[t] = plist{}
	}
	lz.ready[t].Store(true)
}

// materialize decodes every posting list still encoded. Callers hold ix.mu for writing.
func (ix *Index) materialize() {
	lz := ix.lazy
	if lz == nil {
		return
	}
	parallelFor(len(lz.spans), 16, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			if !lz.ready[t].Load() {
				lz.decode(ix, t)
			}
		}
	})
	ix.lazy = nil
}
