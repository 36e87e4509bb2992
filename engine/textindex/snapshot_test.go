package textindex

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snapshotQueries returns n generated queries, every third one with a type filter.
func snapshotQueries(n int) []benchQuery {
	g := newGenerator(777)
	qs := make([]benchQuery, n)
	for i := range qs {
		qs[i].text = g.query()
		if i%3 == 2 {
			want := uint64(i % len(genTypes))
			qs[i].filter = func(id uint64) bool { return id%uint64(len(genTypes)) == want }
		}
	}
	return qs
}

func assertSameSearches(t *testing.T, want, got *Index, qs []benchQuery) {
	t.Helper()
	for _, q := range qs {
		a := want.Search(q.text, 10, q.filter)
		b := got.Search(q.text, 10, q.filter)
		require.Equal(t, a, b, "query %q", q.text) // bit-identical scores, same order
	}
}

// snapshotIndex builds an index through both write paths, with removals and
// replacements, so that it holds tombstones.
func snapshotIndex(t *testing.T) (*Index, []Doc) {
	t.Helper()
	docs := corpusDocs(3000, 11)
	ix := New(Options{})
	ix.AddBatch(docs[:2500])
	for _, d := range docs[2500:] {
		ix.Add(d.ID, d.Fields...)
	}
	for id := uint64(0); id < 3000; id += 97 {
		ix.Remove(id)
	}
	for i := 5; i < 3000; i += 211 {
		d := docs[(i*7)%3000]
		ix.Add(docs[i].ID, d.Fields...) // replaced with other text
	}
	return ix, docs
}

func TestSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	ix, docs := snapshotIndex(t)
	var buf bytes.Buffer
	n, err := ix.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	got, err := ReadFrom(bytes.NewReader(buf.Bytes()), Options{})
	require.NoError(t, err)
	assert.Equal(t, ix.Len(), got.Len())
	qs := snapshotQueries(400)
	assertSameSearches(t, ix, got, qs)

	// Both keep following writes identically.
	for i := 0; i < 200; i++ {
		d := docs[(i*13)%len(docs)]
		id := uint64(10_000 + i)
		ix.Add(id, d.Fields...)
		got.Add(id, d.Fields...)
		ix.Remove(uint64(i * 5))
		got.Remove(uint64(i * 5))
	}
	assertSameSearches(t, ix, got, qs)

	// A second generation round-trips too (and writing is deterministic).
	var b1, b2 bytes.Buffer
	_, err = ix.WriteTo(&b1)
	require.NoError(t, err)
	_, err = got.WriteTo(&b2)
	require.NoError(t, err)
	assert.Equal(t, b1.Bytes(), b2.Bytes())
}

func TestSnapshotEmptyIndex(t *testing.T) {
	t.Parallel()
	data := New(Options{}).AppendSnapshot(nil)
	ix, err := Load(data, Options{})
	require.NoError(t, err)
	assert.Equal(t, 0, ix.Len())
	assert.Empty(t, ix.Search("anything", 5, nil))
	ix.Add(1, Title("cache invalidation"))
	assert.Len(t, ix.Search("cache", 5, nil), 1)
}

func TestSnapshotOptionsMismatch(t *testing.T) {
	t.Parallel()
	ix := New(Options{})
	ix.AddBatch(corpusDocs(50, 3))
	data := ix.AppendSnapshot(nil)
	_, err := Load(data, Options{K1: 2})
	require.ErrorIs(t, err, ErrSnapshotMismatch)
	_, err = Load(data, Options{Synonyms: [][]string{{"foo", "bar"}}})
	require.ErrorIs(t, err, ErrSnapshotMismatch)
	_, err = Load(data, Options{Fields: []FieldSpec{{Name: "x", Weight: 1}}})
	require.ErrorIs(t, err, ErrSnapshotMismatch)
	bad := bytes.Clone(data)
	bad[len(snapshotMagic)] = snapshotVersion + 1
	_, err = Load(bad, Options{})
	require.ErrorIs(t, err, ErrSnapshotMismatch)
}

func TestSnapshotCorrupt(t *testing.T) {
	t.Parallel()
	ix := New(Options{})
	ix.AddBatch(corpusDocs(200, 5))
	data := ix.AppendSnapshot(nil)
	for _, n := range []int{0, 3, 5, 12, 40, len(data) / 2, len(data) - 5, len(data) - 1} {
		_, err := Load(data[:n], Options{})
		require.ErrorIs(t, err, ErrBadSnapshot, "truncated to %d", n)
	}
	for i := 0; i < len(data); i += 1 + len(data)/300 {
		bad := bytes.Clone(data)
		bad[i] ^= 0x5a
		_, err := Load(bad, Options{})
		require.Error(t, err, "byte %d flipped", i)
	}
	// With the checksum fixed up, the structural checks must still catch damage.
	for i := len(snapshotMagic) + 1 + 8; i < len(data)-4; i += 1 + len(data)/500 {
		bad := bytes.Clone(data)
		bad[i] ^= 0xff
		fixCRC(bad)
		got, err := Load(bad, Options{})
		if err == nil {
			got.Search("cache database error", 5, nil) // whatever it decoded must be searchable
		}
	}
}

func fixCRC(b []byte) {
	if len(b) >= 4 {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crcTable))
	}
}

func FuzzReadFrom(f *testing.F) {
	ix := New(Options{})
	ix.AddBatch(corpusDocs(20, 9))
	ix.Remove(3)
	data := ix.AppendSnapshot(nil)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add(New(Options{}).AppendSnapshot(nil))
	f.Add([]byte("NVTX\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, in := range [][]byte{b, func() []byte { c := bytes.Clone(b); fixCRC(c); return c }()} {
			got, err := ReadFrom(bytes.NewReader(in), Options{})
			if err != nil {
				continue
			}
			got.Search("cache database error testing", 5, nil)
			got.Search("zzq", 5, nil)
			got.Add(99, Title("added after load"), Body("cache"))
			got.Remove(1)
			got.AppendSnapshot(nil)
		}
	})
}

// BenchmarkSnapshotLoad100k decodes a snapshot of the 100k benchmark index (target < 150 ms).
func BenchmarkSnapshotLoad100k(b *testing.B) {
	ix := benchIndex(100_000)
	data := ix.AppendSnapshot(nil)
	postings := 0
	for _, pl := range ix.posts {
		postings += len(pl.docs)
	}
	b.SetBytes(int64(len(data)))
	cpu := processCPU()
	for b.Loop() {
		if _, err := Load(data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(len(data))/(1<<20), "MB")
	b.ReportMetric(float64(postings)/1e6, "Mpostings")
	b.ReportMetric(float64(len(ix.terms)), "terms")
}

// BenchmarkSnapshotWrite100k encodes the 100k benchmark index.
func BenchmarkSnapshotWrite100k(b *testing.B) {
	ix := benchIndex(100_000)
	var buf []byte
	cpu := processCPU()
	for b.Loop() {
		buf = ix.AppendSnapshot(buf[:0])
	}
	reportCPU(b, cpu)
}

// BenchmarkSnapshotLoadAll100k decodes a snapshot and every posting list (what the first
// write to a loaded index pays).
func BenchmarkSnapshotLoadAll100k(b *testing.B) {
	data := benchIndex(100_000).AppendSnapshot(nil)
	b.SetBytes(int64(len(data)))
	cpu := processCPU()
	for b.Loop() {
		ix, err := Load(data, Options{})
		if err != nil {
			b.Fatal(err)
		}
		ix.mu.Lock()
		ix.materialize()
		ix.mu.Unlock()
	}
	reportCPU(b, cpu)
}

func TestSnapshotConcurrentLazySearch(t *testing.T) {
	t.Parallel()
	ix, _ := snapshotIndex(t)
	data := ix.AppendSnapshot(nil)
	qs := snapshotQueries(120)
	want := make([][]Hit, len(qs))
	for i, q := range qs {
		want[i] = ix.Search(q.text, 10, q.filter)
	}
	// Concurrent searches decode the lists they need.
	got, err := Load(data, Options{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w % 2; i < len(qs); i += 2 {
				assert.Equal(t, want[i], got.Search(qs[i].text, 10, qs[i].filter))
			}
		})
	}
	wg.Wait()
	// And alongside a write, which decodes the rest.
	got, err = Load(data, Options{})
	require.NoError(t, err)
	for w := range 3 {
		wg.Go(func() {
			for i := w; i < len(qs); i += 3 {
				got.Search(qs[i].text, 10, qs[i].filter)
			}
		})
	}
	got.Add(1_000_000, Title("written while lazy lists are decoded"))
	wg.Wait()
	assert.Len(t, got.Search("written while lazy", 1, nil), 1)
	assert.Equal(t, ix.Len()+1, got.Len())
}
