package textindex

import "encoding/binary"

// surfaceTable caches the analysis of surface tokens (lowercase words as they appear) so that
// stop-word checks, stemming and dictionary look-ups run once per distinct word rather than
// once per occurrence. It is an open-addressing table rather than a Go map because it is
// probed once per token while building (tens of millions of times for a large vault): the
// first 16 bytes of the key and the value live in the slot itself, so a hit costs one
// cache line and two integer comparisons, with no string header to follow.
type surfaceTable struct {
	slots []surfaceSlot // power-of-two length, linear probing
	used  int
	long  []string // full keys of tokens longer than 16 bytes
}

type surfaceSlot struct {
	k0, k1 uint64 // first 16 bytes of the token, little-endian, zero-padded
	n      uint8  // token length; 0 marks an empty slot
	val    centry
	long   int32 // for tokens longer than 16 bytes: 1 + index into long
}

// packToken returns the first 16 bytes of b as two little-endian words, zero-padded. When
// cap(b) >= 16 (the tokenizer guarantees it) it loads whole words and masks them.
func packToken(b []byte) (k0, k1 uint64) {
	n := len(b)
	if n >= 16 {
		return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	}
	if cap(b) >= 16 {
		w := b[:16]
		k0, k1 = binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
		if n < 8 {
			return k0 & (1<<(8*n) - 1), 0
		}
		return k0, k1 & (1<<(8*(n-8)) - 1)
	}
	for i, c := range b {
		if i < 8 {
			k0 |= uint64(c) << (8 * i)
		} else {
			k1 |= uint64(c) << (8 * (i - 8))
		}
	}
	return k0, k1
}

// tokenKey is a token prepared for a table look-up.
type tokenKey struct {
	k0, k1, hash uint64
	tok          []byte
}

func makeTokenKey(tok []byte) tokenKey {
	k0, k1 := packToken(tok)
	h := k0*0x9e3779b97f4a7c15 ^ k1*0xc2b2ae3d27d4eb4f ^ uint64(len(tok))
	if len(tok) > 16 {
		for _, c := range tok[16:] {
			h = (h ^ uint64(c)) * 0x100000001b3
		}
	}
	return tokenKey{k0: k0, k1: k1, hash: finishHash(h), tok: tok}
}

func finishHash(h uint64) uint64 {
	h ^= h >> 32
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

// load64 reads s[i:i+8] as a little-endian word (the compiler merges the byte loads).
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// getAt looks up the token s[start:end] in place, without copying it. It handles tokens of
// at most 16 bytes with 16 readable bytes from start, and reports ok=false otherwise or when
// the token is not cached.
func (t *surfaceTable) getAt(s string, start, end int) (centry, bool) {
	n := end - start
	if n > 16 || start+16 > len(s) || len(t.slots) == 0 {
		return centry{}, false
	}
	k0, k1 := load64(s, start), load64(s, start+8)
	if n < 8 {
		k0, k1 = k0&(1<<(8*n)-1), 0
	} else {
		k1 &= 1<<(8*(n-8)) - 1
	}
	h := finishHash(k0*0x9e3779b97f4a7c15 ^ k1*0xc2b2ae3d27d4eb4f ^ uint64(n))
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.n == 0 {
			return centry{}, false
		}
		if int(sl.n) == n && sl.k0 == k0 && sl.k1 == k1 {
			return sl.val, true
		}
	}
}

func (t *surfaceTable) matches(s *surfaceSlot, k *tokenKey) bool {
	return int(s.n) == len(k.tok) && s.k0 == k.k0 && s.k1 == k.k1 &&
		(s.long == 0 || t.long[s.long-1] == string(k.tok))
}

// get returns the cached analysis of a token.
func (t *surfaceTable) get(k *tokenKey) (centry, bool) {
	if len(t.slots) == 0 {
		return centry{}, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := k.hash & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.n == 0 {
			return centry{}, false
		}
		if t.matches(s, k) {
			return s.val, true
		}
	}
}

// put adds a token that is not in the table. Tokens must be 1..255 bytes long.
func (t *surfaceTable) put(k *tokenKey, v centry) {
	if 2*(t.used+1) > len(t.slots) {
		t.grow()
	}
	s := surfaceSlot{k0: k.k0, k1: k.k1, n: uint8(len(k.tok)), val: v}
	if len(k.tok) > 16 {
		t.long = append(t.long, string(k.tok))
		s.long = int32(len(t.long))
	}
	t.insert(k.hash, s)
	t.used++
}

func (t *surfaceTable) insert(h uint64, s surfaceSlot) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].n != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

func (t *surfaceTable) grow() {
	old := t.slots
	t.slots = make([]surfaceSlot, max(1024, 2*len(old)))
	var buf [maxTokenLen]byte
	for i := range old {
		s := &old[i]
		if s.n == 0 {
			continue
		}
		var tok []byte
		if s.long != 0 {
			tok = append(buf[:0], t.long[s.long-1]...)
		} else {
			binary.LittleEndian.PutUint64(buf[:], s.k0)
			binary.LittleEndian.PutUint64(buf[8:], s.k1)
			tok = buf[:s.n]
		}
		t.insert(makeTokenKey(tok).hash, *s)
	}
}

// update calls fn with every cached value, which fn may change; the tokens for which it
// returns false leave the table, which is rearranged in place.
func (t *surfaceTable) update(fn func(v *centry) bool) {
	if t.used == 0 {
		return
	}
	// A slot empty before the removals: no probe sequence runs through it.
	e := 0
	for t.slots[e].n != 0 {
		e++
	}
	dropped := 0
	for i := range t.slots {
		s := &t.slots[i]
		if s.n != 0 && !fn(&s.val) {
			s.n = 0
			dropped++
		}
	}
	if dropped == 0 {
		return
	}
	t.used -= dropped
	// Linear probing cannot just empty slots: every entry is taken out and put back, in
	// table order from e. An entry put back lands at or before its old slot, and the entries
	// between its home slot and it are already in place, so every probe sequence is unbroken
	// when the pass ends.
	long := t.long
	t.long = nil
	var buf [maxTokenLen]byte
	mask := len(t.slots) - 1
	for k := 1; k < len(t.slots); k++ {
		i := (e + k) & mask
		s := t.slots[i]
		if s.n == 0 {
			continue
		}
		t.slots[i].n = 0
		var tok []byte
		if s.long != 0 {
			tok = append(buf[:0], long[s.long-1]...)
			t.long = append(t.long, long[s.long-1])
			s.long = int32(len(t.long))
		} else {
			binary.LittleEndian.PutUint64(buf[:], s.k0)
			binary.LittleEndian.PutUint64(buf[8:], s.k1)
			tok = buf[:s.n]
		}
		t.insert(makeTokenKey(tok).hash, s)
	}
}
