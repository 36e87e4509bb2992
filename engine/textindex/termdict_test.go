package textindex

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzTermDictSorted: the radix sort of sorted gives the terms in the order of their bytes,
// as a comparison sort of them does (terms sharing their first eight bytes, terms shorter
// than eight bytes that differ only by trailing NULs, empty terms).
func FuzzTermDictSorted(f *testing.F) {
	f.Add([]byte("b a ab abcdefgh abcdefghi abcdefgh\x00 a\x00  zz\xff"), byte(' '))
	f.Add([]byte("commonprefix1,commonprefix0,commonpr,commonp,\x00\x00,\x00"), byte(','))
	f.Fuzz(func(t *testing.T, data []byte, sep byte) {
		d := newTermDict()
		var want []string
		for _, term := range bytes.Split(data, []byte{sep}) {
			if _, ok := d.find(term); !ok {
				want = append(want, string(term))
			}
			d.addBytes(term)
		}
		slices.Sort(want)
		var got []string
		for _, id := range d.sorted() {
			got = append(got, d.str(id))
		}
		if !slices.Equal(want, got) {
			t.Fatalf("sorted %q, want %q", got, want)
		}
	})
}

// TestRadixSortPrefixes: the radix sort orders by prefix and keeps equal prefixes in their
// order, whatever digits the prefixes share.
func TestRadixSortPrefixes(t *testing.T) {
	t.Parallel()
	var keys []prefixKey
	for i, pre := range []uint64{5, 1 << 63, 0, 5, 1<<40 | 3, 1 << 40, ^uint64(0), 0, 1 << 11, 1<<11 - 1} {
		keys = append(keys, prefixKey{pre, int32(i)})
	}
	want := slices.Clone(keys)
	slices.SortStableFunc(want, func(x, y prefixKey) int {
		switch {
		case x.pre < y.pre:
			return -1
		case x.pre > y.pre:
			return 1
		}
		return 0
	})
	assert.Equal(t, want, radixSortPrefixes(slices.Clone(keys), make([]prefixKey, len(keys))))
	same := []prefixKey{{7, 2}, {7, 0}, {7, 1}} // every digit shared: no pass
	assert.Equal(t, same, radixSortPrefixes(slices.Clone(same), make([]prefixKey, 3)))
}
