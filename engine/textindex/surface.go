package textindex

import "encoding/binary"

// surfaceTable caches the analysis of surface tokens (the lowercase words as they appear) so
// that stop-word checks, stemming and dictionary look-ups run once per distinct word rather
// than once per occurrence. It is an open-addressing table rather than a Go map because it is
// probed once per token while building (tens of millions of times for a large vault) and
// hashing the bytes in place, without a string header, roughly halves that cost.
type surfaceTable struct {
	slots   []surfaceSlot // power-of-two length, linear probing
	entries []surfaceEntry
}

type surfaceSlot struct {
	tag uint32 // high half of the hash; 0 with idx 0 means empty
	idx uint32 // 1 + index into entries
}

type surfaceEntry struct {
	key  string
	hash uint64
	val  centry
}

// hashToken is a fast non-cryptographic hash of a short byte string (eight bytes at a time,
// multiply–xorshift mixing).
func hashToken(b []byte) uint64 {
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	for len(b) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
		b = b[8:]
	}
	var t uint64
	for i, c := range b {
		t |= uint64(c) << (8 * i)
	}
	h = (h ^ t) * 0x94d049bb133111eb
	return h ^ h>>29
}

// get returns the cached analysis of tok, whose hash is h.
func (t *surfaceTable) get(tok []byte, h uint64) (centry, bool) {
	if len(t.slots) == 0 {
		return centry{}, false
	}
	mask := uint64(len(t.slots) - 1)
	tag := uint32(h >> 32)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.idx == 0 {
			return centry{}, false
		}
		if s.tag == tag {
			if e := &t.entries[s.idx-1]; e.key == string(tok) {
				return e.val, true
			}
		}
	}
}

// put adds tok (not present) with hash h.
func (t *surfaceTable) put(tok []byte, h uint64, v centry) {
	if 2*(len(t.entries)+1) > len(t.slots) {
		t.grow()
	}
	t.entries = append(t.entries, surfaceEntry{key: string(tok), hash: h, val: v})
	t.insert(h, uint32(len(t.entries)))
}

func (t *surfaceTable) insert(h uint64, idx uint32) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].idx != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = surfaceSlot{tag: uint32(h >> 32), idx: idx}
}

func (t *surfaceTable) grow() {
	t.slots = make([]surfaceSlot, max(1024, 2*len(t.slots)))
	for i := range t.entries {
		t.insert(t.entries[i].hash, uint32(i+1))
	}
}

func (t *surfaceTable) len() int { return len(t.entries) }

func (t *surfaceTable) reset() {
	t.slots = nil
	t.entries = nil
}
