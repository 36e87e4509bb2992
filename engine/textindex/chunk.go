package textindex

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
)

// Posting lists are stored in chunks of at most maxChunk postings: each chunk is one value
// of the postings space, keyed term 0x00 first-doc (8 bytes, big-endian), so that keys
// sort by term and then by document, and a rare term is one small value while a frequent
// one is a run of them (a rare term's one small chunk is kept in its term record instead,
// see termRec and inlineMax). New documents (the highest ids) are appended to a term's last
// chunk, found through the term record; any other change rewrites only the chunks whose
// range it falls in, splitting one that overflows. A search reads the chunks of its terms,
// or a frequent term's champion list (see champion.go), never the whole index.
//
// Chunk value (also the body of a champion list, with base 0):
//
//	version byte (chunkVersion)
//	count uvarint
//	block table: per block of up to 128 postings, 20 bytes:
//	    last doc (uint64 LE), end offset of the block in the posting bytes (uint32 LE),
//	    bound (float64 LE): the largest posting value of the block under the index's
//	    reference normalisation (see normTable.v and indexMeta.refAvg)
//	posting bytes: per posting uvarint((doc - next) << 4 | field mask), where next is the
//	    previous posting's doc + 1 (the chunk's first doc, from the key, for the first
//	    posting of the chunk, whose delta is then 0); a delta of 2^60 or more (ids that
//	    use the top bits, such as the knowledge layer's user-file facts) is written as a
//	    0 byte, then uvarint(delta), then the field mask byte,
//	    then for every field in the mask, lowest first, its term frequency (1–255) and the
//	    length code of the field (see lenCode)
//
// The block table lets a reader skip to the block holding a document (rescoring, see
// rescore) and bound a block's contribution without decoding it (MaxScore, see run).
const (
	maxChunk     = 512
	chunkVersion = 1
	blockShift   = 7
	blockSize    = 1 << blockShift
	blockEntry   = 20
)

// bigDelta is the first delta that does not fit beside the field mask in one uvarint.
const bigDelta = 1 << 60

// appendHead appends a posting's head: its doc delta and field mask (see the format above).
func appendHead(dst []byte, delta, mask uint64) []byte {
	if delta < bigDelta {
		return binary.AppendUvarint(dst, delta<<4|mask)
	}
	dst = append(dst, 0)
	dst = binary.AppendUvarint(dst, delta)
	return append(dst, byte(mask))
}

// posting is one document's entry in a term's posting list: per-field term frequencies
// and, for the fields where the term occurs, the field's length code, one byte per field.
type posting struct {
	doc  uint64
	tf   uint32
	code uint32
}

// fieldMask returns the mask of the fields where tf is non-zero: each byte's bits are
// folded into its lowest bit, and the multiplication gathers bits 0, 8, 16 and 24 into
// bits 24–27 (no two partial products meet, so there are no carries). It runs for every
// posting a write encodes; the loop over the fields it replaces was ~1 % of an import.
func fieldMask(tf uint32) uint64 {
	x := tf | tf>>4
	x |= x >> 2
	x |= x >> 1
	return uint64(x&0x01010101) * 0x01020408 >> 24 & 0xf
}

// encodeChunk appends the encoding of ps (ascending, distinct docs, all >= base) to dst,
// with block bounds computed under ref.
func encodeChunk(dst []byte, base uint64, ps []posting, ref *normTable) []byte {
	nb := (len(ps) + blockSize - 1) >> blockShift
	// Most postings take four bytes or less (one field): room for them up front.
	dst = slices.Grow(dst, 1+binary.MaxVarintLen64+nb*blockEntry+4*len(ps))
	dst = append(dst, chunkVersion)
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	table := len(dst)
	dst = append(dst, make([]byte, nb*blockEntry)...)
	body := len(dst)
	next := base
	for b := range nb {
		lo, hi := b<<blockShift, min((b+1)<<blockShift, len(ps))
		m := 0.0
		for _, p := range ps[lo:hi] {
			mask := fieldMask(p.tf)
			dst = appendHead(dst, p.doc-next, mask)
			for f := mask; f != 0; f &= f - 1 {
				s := 8 * bits.TrailingZeros64(f)
				dst = append(dst, byte(p.tf>>s), byte(p.code>>s))
			}
			next = p.doc + 1
			m = max(m, ref.v(p.tf, p.code))
		}
		e := dst[table+b*blockEntry:]
		binary.LittleEndian.PutUint64(e, ps[hi-1].doc)
		binary.LittleEndian.PutUint32(e[8:], uint32(len(dst)-body))
		binary.LittleEndian.PutUint64(e[12:], math.Float64bits(m))
	}
	return dst
}

// chunk is a parsed chunk value; it aliases the value's bytes.
type chunk struct {
	base  uint64 // the first posting's doc is at least base
	exact bool   // the first posting's doc is base (a term's chunk, keyed by it)
	n     int
	nb    int
	table []byte
	body  []byte
}

// parseChunk checks a chunk's header and block table. A false result means the value is
// malformed.
func parseChunk(b []byte, base uint64) (chunk, bool) {
	if len(b) < 2 || b[0] != chunkVersion {
		return chunk{}, false
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n == 0 || n > uint64(len(b)) || (base > 0 && n > maxChunk) {
		return chunk{}, false
	}
	p := 1 + k
	nb := int((n + blockSize - 1) >> blockShift)
	if nb > (len(b)-p)/blockEntry {
		return chunk{}, false
	}
	c := chunk{base: base, n: int(n), nb: nb, table: b[p : p+nb*blockEntry], body: b[p+nb*blockEntry:]}
	prevEnd, prevLast := 0, uint64(0)
	for i := range nb {
		end, last := c.end(i), c.last(i)
		if end <= prevEnd || end > len(c.body) || (i > 0 && last <= prevLast) || last < base || !(c.bound(i) >= 0) {
			return chunk{}, false
		}
		prevEnd, prevLast = end, last
	}
	if prevEnd != len(c.body) {
		return chunk{}, false
	}
	return c, true
}

func (c *chunk) last(i int) uint64 { return binary.LittleEndian.Uint64(c.table[i*blockEntry:]) }
func (c *chunk) end(i int) int {
	return int(binary.LittleEndian.Uint32(c.table[i*blockEntry+8:]))
}
func (c *chunk) bound(i int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(c.table[i*blockEntry+12:]))
}

// blockLen is the number of postings of block i.
func (c *chunk) blockLen(i int) int { return min(blockSize, c.n-i<<blockShift) }

// decodeBlock appends block i's postings to the three slices; ok is false when the block is
// malformed (nothing is appended then).
func (c *chunk) decodeBlock(i int, nf int, docs []uint64, tfs, codes []uint32) ([]uint64, []uint32, []uint32, bool) {
	start, next := 0, c.base
	if i > 0 {
		start, next = c.end(i-1), c.last(i-1)+1
	}
	b := c.body[start:c.end(i)]
	n0 := len(docs)
	fields := uint64(1)<<nf - 1
	p := 0
	for range c.blockLen(i) {
		if p >= len(b) {
			return docs[:n0], tfs[:n0], codes[:n0], false
		}
		x := uint64(b[p])
		if x < 0x80 { // the common one-byte case, inline
			p++
		} else {
			v, k := binary.Uvarint(b[p:])
			if k <= 0 {
				return docs[:n0], tfs[:n0], codes[:n0], false
			}
			x, p = v, p+k
		}
		mask, delta := x&15, x>>4
		if x == 0 { // escape: a delta too large to share a uvarint with the mask
			v, k := binary.Uvarint(b[p:])
			if k <= 0 || p+k >= len(b) || v < bigDelta {
				return docs[:n0], tfs[:n0], codes[:n0], false
			}
			delta, mask, p = v, uint64(b[p+k]), p+k+1
		}
		d := next + delta
		if mask == 0 || mask&^fields != 0 || d < next || p+2*bits.OnesCount64(mask) > len(b) {
			return docs[:n0], tfs[:n0], codes[:n0], false
		}
		var tf, code uint32
		for f := mask; f != 0; f &= f - 1 {
			s := 8 * bits.TrailingZeros64(f)
			if b[p] == 0 {
				return docs[:n0], tfs[:n0], codes[:n0], false
			}
			tf |= uint32(b[p]) << s
			code |= uint32(b[p+1]) << s
			p += 2
		}
		if c.exact && i == 0 && len(docs) == n0 && d != c.base {
			return docs[:n0], tfs[:n0], codes[:n0], false
		}
		docs = append(docs, d)
		tfs = append(tfs, tf)
		codes = append(codes, code)
		next = d + 1
	}
	if p != len(b) || docs[len(docs)-1] != c.last(i) {
		return docs[:n0], tfs[:n0], codes[:n0], false
	}
	return docs, tfs, codes, true
}

// decodePostings decodes every posting of c into ps.
func (c *chunk) decodePostings(nf int, ps []posting) ([]posting, bool) {
	var docs []uint64
	var tfs, codes []uint32
	for i := range c.nb {
		var ok bool
		docs, tfs, codes, ok = c.decodeBlock(i, nf, docs[:0], tfs[:0], codes[:0])
		if !ok {
			return ps, false
		}
		for j, d := range docs {
			ps = append(ps, posting{doc: d, tf: tfs[j], code: codes[j]})
		}
	}
	return ps, true
}

// find returns the posting of doc d in c, if any. It walks the one block that may hold d
// only as far as d, without storing the postings it passes: rescoring and coverage look up
// a few documents in many long lists, and decoding whole blocks was most of their cost. The
// postings walked are checked as decodeBlock checks them (ok is false when they are
// malformed); the rest of the block is not read.
func (c *chunk) find(d uint64, nf int, _ *postingScratch) (tf, code uint32, found, ok bool) {
	lo, hi := 0, c.nb
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.last(m) < d {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == c.nb {
		return 0, 0, false, true
	}
	start, next := 0, c.base
	if lo > 0 {
		start, next = c.end(lo-1), c.last(lo-1)+1
	}
	b := c.body[start:c.end(lo)]
	fields := uint64(1)<<nf - 1
	p := 0
	for j := range c.blockLen(lo) {
		if p >= len(b) {
			return 0, 0, false, false
		}
		x := uint64(b[p])
		if x < 0x80 {
			p++
		} else {
			v, k := binary.Uvarint(b[p:])
			if k <= 0 {
				return 0, 0, false, false
			}
			x, p = v, p+k
		}
		mask, delta := x&15, x>>4
		if x == 0 { // escape: a delta too large to share a uvarint with the mask
			v, k := binary.Uvarint(b[p:])
			if k <= 0 || p+k >= len(b) || v < bigDelta {
				return 0, 0, false, false
			}
			delta, mask, p = v, uint64(b[p+k]), p+k+1
		}
		doc := next + delta
		if mask == 0 || mask&^fields != 0 || doc < next || p+2*bits.OnesCount64(mask) > len(b) {
			return 0, 0, false, false
		}
		if c.exact && lo == 0 && j == 0 && doc != c.base {
			return 0, 0, false, false
		}
		if doc > d {
			return 0, 0, false, true
		}
		if doc < d {
			p += 2 * bits.OnesCount64(mask)
			next = doc + 1
			continue
		}
		for f := mask; f != 0; f &= f - 1 {
			s := 8 * bits.TrailingZeros64(f)
			if b[p] == 0 {
				return 0, 0, false, false
			}
			tf |= uint32(b[p]) << s
			code |= uint32(b[p+1]) << s
			p += 2
		}
		return tf, code, true, true
	}
	return 0, 0, false, false // the block table says d is in this block, its postings do not
}

// postingScratch is reusable decoding space. Lookups walk a chunk's
// postings in place, so it holds nothing today; it stays in the signatures
// as the place for it.
type postingScratch struct{}

// chunkKey returns the postings key of term's chunk starting at document first.
func chunkKey(dst []byte, term string, first uint64) []byte {
	dst = append(dst, term...)
	dst = append(dst, 0)
	return binary.BigEndian.AppendUint64(dst, first)
}

// forChunks calls fn with the first doc and value of each of term's chunks, in order,
// until fn returns false: the chunk in its record rec when it has one (termInline), else
// those of the postings space.
func forChunks(st Store, term string, rec *termRec, fn func(first uint64, v []byte) bool) {
	if rec.inline != nil {
		fn(rec.last, rec.inline)
		return
	}
	prefix := chunkPrefix(nil, term)
	st.SeekPostings(prefix, func(k, v []byte) bool {
		if len(k) != len(prefix)+8 || !bytes.HasPrefix(k, prefix) {
			return false
		}
		return fn(binary.BigEndian.Uint64(k[len(prefix):]), v)
	})
}

// parseTermChunk parses a term's chunk starting at first; decoding then also checks that
// its first posting is that document.
func parseTermChunk(v []byte, first uint64) (chunk, bool) {
	c, ok := parseChunk(v, first)
	c.exact = true
	return c, ok
}

// championKey returns the postings key of term's champion list.
func championKey(dst []byte, term string) []byte {
	dst = append(dst, term...)
	return append(dst, 1)
}

// chunkPrefix returns the prefix shared by the keys of term's chunks.
func chunkPrefix(dst []byte, term string) []byte {
	dst = append(dst, term...)
	return append(dst, 0)
}

// appendChunk returns the encoding of c's postings followed by adds (ascending docs, all
// after c's last): the common write, a new document with the highest id, costs a copy of
// the chunk's bytes instead of decoding and re-encoding every posting. The last block is
// continued while it has room; its bound only grows.
func appendChunk(c *chunk, adds []posting, ref *normTable) []byte {
	n := c.n + len(adds)
	nb := (n + blockSize - 1) >> blockShift
	out := make([]byte, 0, 1+binary.MaxVarintLen64+nb*blockEntry+len(c.body)+len(adds)*8)
	out = append(out, chunkVersion)
	out = binary.AppendUvarint(out, uint64(n))
	table := len(out)
	out = append(out, c.table...)
	out = append(out, make([]byte, nb*blockEntry-len(c.table))...)
	body := len(out)
	out = append(out, c.body...)
	b := c.nb - 1
	inBlock := c.blockLen(b)
	next := c.last(b) + 1
	m := c.bound(b)
	for _, p := range adds {
		if inBlock == blockSize {
			b++
			inBlock, m = 0, 0
		}
		mask := fieldMask(p.tf)
		out = appendHead(out, p.doc-next, mask)
		for f := mask; f != 0; f &= f - 1 {
			s := 8 * bits.TrailingZeros64(f)
			out = append(out, byte(p.tf>>s), byte(p.code>>s))
		}
		next = p.doc + 1
		m = max(m, ref.v(p.tf, p.code))
		inBlock++
		e := out[table+b*blockEntry:]
		binary.LittleEndian.PutUint64(e, p.doc)
		binary.LittleEndian.PutUint32(e[8:], uint32(len(out)-body))
		binary.LittleEndian.PutUint64(e[12:], math.Float64bits(m))
	}
	return out
}
