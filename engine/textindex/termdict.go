package textindex

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"unsafe"
)

// termDict numbers the terms of a Plan (0, 1, 2, … in the order they are added). A bulk load
// meets a hundred thousand terms and more, held until its index phase: a Go map of strings
// and a slice of them cost about 60 bytes a term beyond the term's bytes (string headers,
// one allocation per string, map slots), this about 13: the terms' bytes back to back, and
// an open-addressing table of ids with a fragment of each term's hash. It is safe for
// concurrent readers while nobody adds.
type termDict struct {
	seed  maphash.Seed
	text  []byte   // every term's bytes, in id order
	ends  []uint32 // per id: the end of its bytes in text (it starts where the previous ends)
	slots []uint64 // h<<32 | id+1 (0: empty) at h's slot or after, h the top half of the term's
	// hash; power-of-two length, at most half full
	// filter, when the table is large (filterMinSlots), is a Bloom filter of the terms
	// (see filterBits): a term the dictionary does not hold (a bulk load's new terms, most
	// of its look-ups) is nearly always told by one read of it, which stays in the cache,
	// instead of a probe of the table, which at a hundred thousand terms and more does not.
	filter []uint64
}

// filterMinSlots is the table size from which a dictionary keeps its filter: one slot array
// of 512 KB and more no longer stays in the processor's cache.
const filterMinSlots = 64 << 10

func newTermDict() *termDict { return &termDict{seed: maphash.MakeSeed()} }

// newTermDictFor returns a dictionary with room for n terms of size bytes in all, hashing
// with seed (a worker's dictionary of new terms hashes as the plan's does, so that a term's
// hash is computed once for both).
func newTermDictFor(seed maphash.Seed, n, size int) *termDict {
	d := &termDict{seed: seed}
	d.text = make([]byte, 0, size)
	d.ends = make([]uint32, 0, n)
	slots := 1024
	for slots < 2*n {
		slots *= 2
	}
	d.slots = make([]uint64, slots)
	d.makeFilter()
	return d
}

// hash returns the hash of term that find and push take.
func (d *termDict) hash(term []byte) uint64 { return maphash.Bytes(d.seed, term) }

// filterBits returns the filter word of a slot value (or of a hash's top half h<<32) and the
// two bits it sets there: the word from the bits of h the table's slot comes from, the bits
// from its top twelve bits.
func (d *termDict) filterBits(s uint64) (word uint64, bits uint64) {
	h := s >> 32
	return h & uint64(len(d.filter)-1), 1<<(h>>20&63) | 1<<(h>>26)
}

// makeFilter builds the filter from the table, when the table is large enough for one.
func (d *termDict) makeFilter() {
	if len(d.slots) < filterMinSlots {
		d.filter = nil
		return
	}
	d.filter = make([]uint64, len(d.slots)/16) // 4 bits a slot: 8 and more a term
	for _, s := range d.slots {
		if s != 0 {
			w, b := d.filterBits(s)
			d.filter[w] |= b
		}
	}
}

// len returns the number of terms.
func (d *termDict) len() int { return len(d.ends) }

// get returns the bytes of term id (valid until the next add).
func (d *termDict) get(id int32) []byte {
	start := uint32(0)
	if id > 0 {
		start = d.ends[id-1]
	}
	return d.text[start:d.ends[id]]
}

// str returns term id as a string.
func (d *termDict) str(id int32) string { return string(d.get(id)) }

// view returns term id as a string that shares the dictionary's bytes, without a copy: the
// bytes of a term are never written again (a growing text moves to a new array and leaves
// the old one as it was). The index phase views every term of a bulk load (130k string
// allocations in a 10,000-file import otherwise).
func (d *termDict) view(id int32) string {
	b := d.get(id)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// find returns the id of term.
func (d *termDict) find(term []byte) (int32, bool) {
	if len(d.slots) == 0 {
		return 0, false
	}
	return d.findHashed(d.hash(term), term)
}

// findHashed is find for a term of hash h (d.hash(term)).
func (d *termDict) findHashed(h uint64, term []byte) (int32, bool) {
	if len(d.slots) == 0 {
		return 0, false
	}
	if d.filter != nil {
		if w, b := d.filterBits(h); d.filter[w]&b != b {
			return 0, false
		}
	}
	h >>= 32
	mask := uint64(len(d.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := d.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>32 == h {
			if id := int32(uint32(s)) - 1; bytes.Equal(d.get(id), term) {
				return id, true
			}
		}
	}
}

// findString is find for a string term. Its bytes are viewed, not copied (findHashed
// only reads them): this runs for every word of a bulk load.
func (d *termDict) findString(term string) (int32, bool) {
	return d.findHashed(maphash.String(d.seed, term), unsafe.Slice(unsafe.StringData(term), len(term)))
}

// add returns the id of term, numbering it if it is new.
func (d *termDict) add(term string) int32 {
	h := maphash.String(d.seed, term)
	if id, ok := d.findHashed(h, unsafe.Slice(unsafe.StringData(term), len(term))); ok {
		return id
	}
	return push(d, h, term)
}

// addBytes is add for a term in bytes, which the dictionary copies.
func (d *termDict) addBytes(term []byte) int32 {
	if id, ok := d.find(term); ok {
		return id
	}
	return push(d, maphash.Bytes(d.seed, term), term)
}

// pushHashed numbers term, of hash h (d.hash(term)), which the dictionary does not hold.
func (d *termDict) pushHashed(h uint64, term []byte) int32 { return push(d, h, term) }

// push numbers a new term of hash h.
func push[T string | []byte](d *termDict, h uint64, term T) int32 {
	if 2*(len(d.ends)+1) > len(d.slots) {
		d.grow()
	}
	id := int32(len(d.ends))
	d.text = append(d.text, term...)
	d.ends = append(d.ends, uint32(len(d.text)))
	d.insert(h>>32<<32 | uint64(id+1))
	if d.filter != nil {
		w, b := d.filterBits(h)
		d.filter[w] |= b
	}
	return id
}

func (d *termDict) insert(s uint64) {
	mask := uint64(len(d.slots) - 1)
	i := s >> 32 & mask
	for d.slots[i] != 0 {
		i = (i + 1) & mask
	}
	d.slots[i] = s
}

func (d *termDict) grow() {
	old := d.slots
	d.slots = make([]uint64, max(1024, 2*len(old)))
	for _, s := range old {
		if s != 0 {
			d.insert(s)
		}
	}
	d.makeFilter()
}

// seal drops the table: the dictionary then only gives terms by id.
func (d *termDict) seal() { d.slots, d.filter = nil, nil }

// sorted returns the ids in the order of their terms' bytes. The terms are ordered by their
// first eight bytes (big-endian, zero-padded: the same order) with a radix sort, and only
// the runs that share those bytes are compared as whole terms: a bulk load's index phase
// sorts a hundred thousand terms and more, which a comparison sort did in about twenty
// comparisons each.
func (d *termDict) sorted() []int32 {
	keys := make([]prefixKey, d.len())
	for i := range keys {
		keys[i] = prefixKey{prefixAt(d.get(int32(i)), 0), int32(i)}
	}
	keys = radixSortPrefixes(keys, make([]prefixKey, len(keys)))
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].pre == keys[i].pre {
			j++
		}
		if j-i > 1 {
			// Terms that share their first eight bytes (compounds of one word, often) by
			// their next eight, then whole.
			g := keys[i:j]
			for k := range g {
				g[k].pre = prefixAt(d.get(g[k].id), 8)
			}
			slices.SortFunc(g, func(x, y prefixKey) int {
				if c := cmp.Compare(x.pre, y.pre); c != 0 {
					return c
				}
				return bytes.Compare(d.get(x.id), d.get(y.id))
			})
		}
		i = j
	}
	out := make([]int32, len(keys))
	for i, k := range keys {
		out[i] = k.id
	}
	return out
}

// prefixAt returns the eight bytes of b from at, big-endian and zero-padded: terms in the
// order of these (when the bytes before at are the same) are in the order of their bytes.
func prefixAt(b []byte, at int) uint64 {
	var w [8]byte
	if at < len(b) {
		copy(w[:], b[at:])
	}
	return binary.BigEndian.Uint64(w[:])
}

// prefixKey is a term's first eight bytes, big-endian and zero-padded, and its id.
type prefixKey struct {
	pre uint64
	id  int32
}

// radixDigit is the width in bits of a digit of radixSortPrefixes.
const radixDigit = 11

// radixSortPrefixes sorts keys by pre (a stable least-significant-digit radix sort, which
// leaves keys of equal pre in their order), with tmp as much room; it returns the sorted
// slice, keys or tmp. A digit that all keys share costs no pass.
func radixSortPrefixes(keys, tmp []prefixKey) []prefixKey {
	var count [1 << radixDigit]int
	for shift := 0; shift < 64; shift += radixDigit {
		clear(count[:])
		for _, k := range keys {
			count[k.pre>>shift&(1<<radixDigit-1)]++
		}
		if len(keys) > 0 && count[keys[0].pre>>shift&(1<<radixDigit-1)] == len(keys) {
			continue
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range keys {
			digit := k.pre >> shift & (1<<radixDigit - 1)
			tmp[count[digit]] = k
			count[digit]++
		}
		keys, tmp = tmp, keys
	}
	return keys
}
