package textindex

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randomPostings(rng *rand.Rand, base uint64, n int) []posting {
	ps := make([]posting, 0, n)
	d := base
	for range n {
		d += uint64(1 + rng.IntN(3))
		var tf, code uint32
		for f := range MaxFields {
			if rng.IntN(3) == 0 || (f == MaxFields-1 && tf == 0) {
				tf |= uint32(1+rng.IntN(255)) << (8 * f)
				code |= uint32(rng.IntN(256)) << (8 * f)
			}
		}
		ps = append(ps, posting{doc: d, tf: tf, code: code})
	}
	return ps
}

func testRef() normTable {
	e := NewEngine(Options{})
	return e.buildNorm([MaxFields]float64{5, 20, 2, 100})
}

func TestChunkRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	ref := testRef()
	for _, n := range []int{1, 5, 127, 128, 129, 300, maxChunk} {
		base := uint64(rng.IntN(1000)) << 12
		ps := randomPostings(rng, base, n)
		base = ps[0].doc
		b := encodeChunk(nil, base, ps, &ref)
		ch, ok := parseTermChunk(b, base)
		require.True(t, ok, "n=%d", n)
		got, ok := ch.decodePostings(MaxFields, nil)
		require.True(t, ok)
		assert.Equal(t, ps, got, "n=%d", n)
		for i, p := range ps {
			if i%17 != 0 {
				continue
			}
			var sc postingScratch
			tf, code, found, ok := ch.find(p.doc, MaxFields, &sc)
			require.True(t, ok)
			assert.True(t, found)
			assert.Equal(t, p.tf, tf)
			assert.Equal(t, p.code, code)
			if i+1 < len(ps) && ps[i+1].doc > p.doc+1 {
				_, _, found, ok = ch.find(p.doc+1, MaxFields, &sc)
				require.True(t, ok)
				assert.False(t, found, "a document between two postings")
			}
		}
		for b := range ch.nb {
			lo, hi := b<<blockShift, min((b+1)<<blockShift, n)
			m := 0.0
			for _, p := range ps[lo:hi] {
				m = max(m, ref.v(p.tf, p.code))
			}
			assert.InDelta(t, m, ch.bound(b), 0, "bound of block %d", b)
		}
	}
}

// TestAppendChunkMatchesEncode: appending to a chunk gives the very bytes of encoding the
// whole list at once.
func TestAppendChunkMatchesEncode(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	ref := testRef()
	for _, sizes := range [][2]int{{1, 1}, {127, 1}, {128, 1}, {100, 200}, {1, 400}, {256, 128}} {
		all := randomPostings(rng, 0, sizes[0]+sizes[1])
		head, tail := all[:sizes[0]], all[sizes[0]:]
		ch, ok := parseChunk(encodeChunk(nil, 0, head, &ref), 0)
		require.True(t, ok)
		assert.Equal(t, encodeChunk(nil, 0, all, &ref), appendChunk(&ch, tail, &ref), "sizes %v", sizes)
	}
}

func TestChunkMalformed(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	ref := testRef()
	ps := randomPostings(rng, 0, 300)
	good := encodeChunk(nil, 0, ps, &ref)
	for _, b := range [][]byte{nil, {}, {chunkVersion}, {9, 1, 0}, good[:len(good)-1], append(append([]byte{}, good...), 0)} {
		_, ok := parseChunk(b, 0)
		assert.False(t, ok, "%x", b)
	}
	// Flipping bytes never panics and never yields docs out of order.
	for i := range 2000 {
		b := append([]byte{}, good...)
		b[rng.IntN(len(b))] ^= byte(1 + i%255)
		ch, ok := parseChunk(b, 0)
		if !ok {
			continue
		}
		got, ok := ch.decodePostings(MaxFields, nil)
		if ok {
			for j := 1; j < len(got); j++ {
				require.Greater(t, got[j].doc, got[j-1].doc)
			}
		}
	}
}

func FuzzChunk(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	ref := testRef()
	f.Add(encodeChunk(nil, 4096, randomPostings(rng, 4096, 200), &ref), uint64(4096))
	f.Add([]byte{chunkVersion, 1}, uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, base uint64) {
		ch, ok := parseChunk(b, base)
		if !ok {
			return
		}
		got, ok := ch.decodePostings(MaxFields, nil)
		if !ok {
			return
		}
		for j := range got {
			if got[j].doc < base || (j > 0 && got[j].doc <= got[j-1].doc) || got[j].tf == 0 {
				t.Fatalf("bad posting %+v", got[j])
			}
		}
		// find agrees with a full decode on a chunk that decodes, present or not.
		var sc postingScratch
		for _, j := range []int{0, len(got) / 2, len(got) - 1} {
			for _, d := range []uint64{got[j].doc, got[j].doc + 1} {
				want, in := slices.BinarySearchFunc(got, d, func(p posting, d uint64) int { return cmp.Compare(p.doc, d) })
				tf, code, found, ok := ch.find(d, MaxFields, &sc)
				if !ok || found != in || (in && (tf != got[want].tf || code != got[want].code)) {
					t.Fatalf("find(%d) = %d %d %v %v; decoded %+v", d, tf, code, found, ok, got)
				}
			}
		}
	})
}

// TestSearchCorruptStore: a damaged record of the query's terms gives ErrCorrupt, never a
// panic or a wrong answer; records of other terms do not matter.
func TestSearchCorruptStore(t *testing.T) {
	t.Parallel()
	ix := newNotesIndex(t)
	e := ix.eng
	var st MemStore
	ix.st.SeekTerms(nil, func(k, v []byte) bool { _ = st.PutTerm(k, v); return true })
	ix.st.SeekPostings(nil, func(k, v []byte) bool { _ = st.PutPostings(k, v); return true })
	hits, err := e.Search(&st, "backoff", 5, nil)
	require.NoError(t, err)
	require.NotEmpty(t, hits)

	// The term's postings as an index without inline lists keeps them: found the same.
	rec, ok, err := lookupTerm(&st, "backoff")
	require.NoError(t, err)
	require.True(t, ok)
	require.NotNil(t, rec.inline, "a rare term's list is in its record")
	require.NoError(t, st.PutPostings(chunkKey(nil, "backoff", rec.last), slices.Clone(rec.inline)))
	rec.setInline(0, nil)
	require.NoError(t, st.PutTerm([]byte("backoff"), rec.encode()))
	again, err := e.Search(&st, "backoff", 5, nil)
	require.NoError(t, err)
	assert.Equal(t, hits, again)

	require.NoError(t, st.PutPostings(chunkKey(nil, "backoff", rec.last), []byte{chunkVersion, 3, 1, 2}))
	_, err = e.Search(&st, "backoff", 5, nil)
	assert.ErrorIs(t, err, ErrCorrupt)
	// A damaged inline list.
	tok, ok, err := lookupTerm(&st, Analyze("markdown")[0])
	require.NoError(t, err)
	require.True(t, ok)
	require.NotNil(t, tok.inline)
	tok.inline = slices.Clone(tok.inline[:len(tok.inline)-1]) // cut short
	require.NoError(t, st.PutTerm([]byte(Analyze("markdown")[0]), tok.encode()))
	_, err = e.Search(&st, "markdown", 5, nil)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = e.Search(&st, "session tokens", 5, nil)
	assert.NoError(t, err, "other terms are unaffected")

	require.NoError(t, st.PutTerm([]byte(Analyze("jitter")[0]), []byte{termVersion}))
	_, err = e.Search(&st, "jitter", 5, nil)
	assert.ErrorIs(t, err, ErrCorrupt)

	var b Batch
	b.Put(99, nil, []Field{Body("backoff again")})
	assert.ErrorIs(t, e.Apply(&st, &b), ErrCorrupt, "a write touching the damaged term is refused")

	require.NoError(t, st.PutTerm(metaKey, []byte{metaVersion + 1}))
	_, err = e.Search(&st, "session", 5, nil)
	assert.ErrorIs(t, err, ErrMismatch)
	_, err = e.Search(&MemStore{}, "session", 5, nil)
	assert.ErrorIs(t, err, ErrNoIndex)
}

// Regression: the knowledge layer keys user-file facts with the top bit set (1<<63 | n).
// A posting delta of 2^60 or more used to lose its top bits beside the field mask: a
// search missed those documents and adding a lower id after them panicked on a chunk it
// took for corrupt.
func TestIDsUsingTheTopBitsAreIndexed(t *testing.T) {
	t.Parallel()
	const user = 1 << 63
	ix := New(Options{})
	ix.Add(user|1, Summary("retry the flaky upload"))
	ix.Add(1, Summary("retry with backoff"))
	ix.Add(2, Summary("retry budget per task"))
	ix.AddBatch([]Doc{{ID: user | 7, Fields: []Field{Summary("retry after a timeout")}}, {ID: 1 << 61, Fields: []Field{Summary("retry twice")}}})
	var ids []uint64
	for _, h := range ix.Search("retry", 10, nil) {
		ids = append(ids, h.ID)
	}
	assert.ElementsMatch(t, []uint64{1, 2, 1 << 61, user | 1, user | 7}, ids)
	require.True(t, ix.Remove(user|1))
	ix.Add(user|1, Summary("upload once"))
	hits := ix.Search("upload", 10, nil)
	require.Len(t, hits, 1)
	assert.Equal(t, uint64(user|1), hits[0].ID)
	assert.Len(t, ix.Search("retry", 10, nil), 4)
}

// fieldMask's bit trick gives the mask of the fields with a non-zero frequency.
func TestFieldMask(t *testing.T) {
	t.Parallel()
	want := func(tf uint32) uint64 {
		var m uint64
		for f := range MaxFields {
			if tf>>(8*f)&0xff != 0 {
				m |= 1 << f
			}
		}
		return m
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 1 << 16 {
		tf := rng.Uint32()
		// Each byte zero, one or any value, so that every mask occurs.
		for f := range MaxFields {
			switch (i >> (2 * f)) & 3 {
			case 0:
				tf &^= 0xff << (8 * f)
			case 1:
				tf = tf&^(0xff<<(8*f)) | 1<<(8*f)
			case 2:
				tf |= 0x80 << (8 * f)
			}
		}
		require.Equal(t, want(tf), fieldMask(tf), "%08x", tf)
	}
}
