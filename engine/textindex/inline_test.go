package textindex

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// boltTestStore is a Store over two bbolt buckets, as the vault keeps it (engine/vault's
// boltStore; this package does not import the vault).
type boltTestStore struct{ terms, postings *bolt.Bucket }

func (s boltTestStore) Term(k []byte) []byte     { return s.terms.Get(k) }
func (s boltTestStore) Postings(k []byte) []byte { return s.postings.Get(k) }
func (s boltTestStore) SeekTerms(from []byte, fn func(k, v []byte) bool) {
	c := s.terms.Cursor()
	for k, v := c.Seek(from); k != nil && fn(k, v); k, v = c.Next() {
	}
}

func (s boltTestStore) SeekPostings(from []byte, fn func(k, v []byte) bool) {
	c := s.postings.Cursor()
	for k, v := c.Seek(from); k != nil && fn(k, v); k, v = c.Next() {
	}
}
func (s boltTestStore) PutTerm(k, v []byte) error     { return s.terms.Put(k, v) }
func (s boltTestStore) DeleteTerm(k []byte) error     { return s.terms.Delete(k) }
func (s boltTestStore) PutPostings(k, v []byte) error { return s.postings.Put(k, v) }
func (s boltTestStore) DeletePostings(k []byte) error { return s.postings.Delete(k) }

// boltIndex is an index in a real bbolt file, with the documents it holds.
type boltIndex struct {
	db   *bolt.DB
	eng  *Engine
	docs map[uint64][]Field
}

func newBoltIndex(t *testing.T, e *Engine) *boltIndex {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "ix.db"), 0o600, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for _, n := range []string{"terms", "postings"} {
			if _, err := tx.CreateBucket([]byte(n)); err != nil {
				return err
			}
		}
		return e.Init(boltOf(tx))
	}))
	return &boltIndex{db: db, eng: e, docs: map[uint64][]Field{}}
}

func boltOf(tx *bolt.Tx) boltTestStore {
	return boltTestStore{terms: tx.Bucket([]byte("terms")), postings: tx.Bucket([]byte("postings"))}
}

// apply writes docs (nil fields: remove) in one transaction.
func (bi *boltIndex) apply(t *testing.T, docs map[uint64][]Field) {
	t.Helper()
	var b Batch
	for _, id := range slices.Sorted(maps.Keys(docs)) {
		if docs[id] == nil {
			b.Remove(id, bi.docs[id])
			delete(bi.docs, id)
			continue
		}
		b.Put(id, bi.docs[id], docs[id])
		bi.docs[id] = docs[id]
	}
	require.NoError(t, bi.db.Update(func(tx *bolt.Tx) error { return bi.eng.Apply(boltOf(tx), &b) }))
}

func (bi *boltIndex) view(t *testing.T, fn func(st Store)) {
	t.Helper()
	require.NoError(t, bi.db.View(func(tx *bolt.Tx) error { fn(boltOf(tx)); return nil }))
}

// termShape says where a term's postings are: "inline", "postings" (with the number of
// chunks) or "none".
func termShape(t *testing.T, st Store, term string) string {
	t.Helper()
	rec, ok, err := lookupTerm(st, term)
	require.NoError(t, err)
	n := 0
	forChunks(st, term, &termRec{}, func(uint64, []byte) bool { n++; return true })
	switch {
	case !ok:
		require.Zero(t, n, "postings of %q without a record", term)
		return "none"
	case rec.inline != nil:
		require.Zero(t, n, "postings of %q inline and in the postings space", term)
		return "inline"
	}
	return fmt.Sprintf("postings×%d", n)
}

// assertSameIndex checks that the bbolt index, an in-memory index written by the same
// writes and one built afresh from the documents left hold the same postings and answer
// every query alike.
func assertSameIndex(t *testing.T, bi *boltIndex, mem *Index, queries []string) {
	t.Helper()
	fresh := New(Options{})
	var docs []Doc
	for _, id := range slices.Sorted(maps.Keys(bi.docs)) {
		docs = append(docs, Doc{ID: id, Fields: bi.docs[id]})
	}
	fresh.AddBatch(docs)
	bi.view(t, func(st Store) {
		assert.Empty(t, bi.eng.Compare(st, &fresh.st, 10), "bbolt index against a fresh one")
		assert.Empty(t, bi.eng.Compare(st, &mem.st, 10), "bbolt index against the in-memory one")
		for _, q := range queries {
			got, err := bi.eng.Search(st, q, 10, nil)
			require.NoError(t, err, q)
			assert.Equal(t, mem.Search(q, 10, nil), got, "bbolt and in-memory: %q", q)
			want := fresh.Search(q, 10, nil)
			require.Len(t, got, len(want), q)
			for i := range got {
				assert.Equal(t, want[i].ID, got[i].ID, q)
				assert.InDelta(t, want[i].Score, got[i].Score, 1e-9*want[i].Score, q)
				assert.InDelta(t, want[i].Coverage, got[i].Coverage, 1e-12, q)
			}
			for _, h := range got {
				c1, n1, err := bi.eng.Coverage(st, q, h.ID)
				require.NoError(t, err)
				c2, n2 := mem.Coverage(q, h.ID)
				assert.Equal(t, [2]float64{c2, float64(n2)}, [2]float64{c1, float64(n1)}, q)
			}
		}
	})
}

// TestInlineListsFollowWrites: in a real bbolt file, a term's list lives in its record
// while it is one small chunk, moves to the postings space when it grows past inlineMax or
// into a second chunk, and comes back when removals leave one small chunk; after every
// write the index equals the in-memory one written alike and one built afresh.
func TestInlineListsFollowWrites(t *testing.T) {
	t.Parallel()
	e := NewEngine(Options{})
	bi := newBoltIndex(t, e)
	mem := New(Options{})
	g := newGenerator(41)
	write := func(docs map[uint64][]Field) {
		t.Helper()
		bi.apply(t, docs)
		for id, fs := range docs {
			if fs == nil {
				mem.Remove(id)
			} else {
				mem.Add(id, fs...)
			}
		}
	}
	doc := func(id uint64, extra string) []Field {
		d := g.doc(id)
		return append(d.Fields, Tags(extra))
	}
	queries := []string{"zephyrine", "zephyrine retries", "quasarbolt", "zephyr", "zephyrien", "cache"}
	queries = append(queries, g.query(), g.query(), g.query())
	shape := func(term string) (s string) {
		bi.view(t, func(st Store) { s = termShape(t, st, Analyze(term)[0]) })
		return s
	}

	// A rare term: inline.
	write(map[uint64][]Field{100: doc(100, "zephyrine"), 200: doc(200, "quasarbolt")})
	assert.Equal(t, "inline", shape("zephyrine"))
	assertSameIndex(t, bi, mem, queries)

	// Older documents (a rewrite of the chunk) and newer ones (appended) until the chunk
	// passes inlineMax: it moves to the postings space.
	ids := []uint64{50, 300, 20, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200}
	grown := -1
	for i, id := range ids {
		write(map[uint64][]Field{id: doc(id, "zephyrine")})
		if shape("zephyrine") != "inline" {
			grown = i
			break
		}
		assertSameIndex(t, bi, mem, queries)
	}
	require.Positive(t, grown, "the list outgrows its record")
	assert.Equal(t, "postings×1", shape("zephyrine"))
	assertSameIndex(t, bi, mem, queries)

	// Past one chunk.
	batch := map[uint64][]Field{}
	for id := uint64(2000); id < 2000+maxChunk+10; id++ {
		batch[id] = doc(id, "zephyrine")
	}
	write(batch)
	assert.Equal(t, "postings×2", shape("zephyrine"))
	assertSameIndex(t, bi, mem, queries)

	// Removals leave one chunk, then one small enough for the record.
	batch = map[uint64][]Field{}
	for id := uint64(2000); id < 2000+maxChunk+10; id++ {
		batch[id] = nil
	}
	write(batch)
	assert.Equal(t, "postings×1", shape("zephyrine"))
	assertSameIndex(t, bi, mem, queries)
	batch = map[uint64][]Field{}
	for _, id := range ids[1 : grown+1] {
		batch[id] = nil
	}
	write(batch)
	assert.Equal(t, "inline", shape("zephyrine"))
	assertSameIndex(t, bi, mem, queries)

	// Its last documents removed: the term is gone.
	write(map[uint64][]Field{100: nil, ids[0]: nil})
	assert.Equal(t, "none", shape("zephyrine"))
	assert.Equal(t, "inline", shape("quasarbolt"))
	assertSameIndex(t, bi, mem, queries)
}

// TestInlineRandomWritesMatchFreshIndex: random adds, replacements and removals (ids in
// any order) over few documents per term, in bbolt: the index equals a fresh one after
// every round, and its layout is the rule's (a term is inline exactly when it has one
// chunk of at most inlineMax bytes).
func TestInlineRandomWritesMatchFreshIndex(t *testing.T) {
	t.Parallel()
	e := NewEngine(Options{})
	bi := newBoltIndex(t, e)
	mem := New(Options{})
	rng := rand.New(rand.NewPCG(3, 4))
	g := newGenerator(5)
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
	for round := range 30 {
		batch := map[uint64][]Field{}
		for range 1 + rng.IntN(40) {
			id := uint64(1 + rng.IntN(400))
			if _, ok := bi.docs[id]; ok && rng.IntN(3) == 0 {
				batch[id] = nil
				continue
			}
			var tags []string
			for range 1 + rng.IntN(3) {
				tags = append(tags, fmt.Sprintf("%s%d", words[rng.IntN(len(words))], rng.IntN(30)))
			}
			d := g.doc(id)
			batch[id] = append(d.Fields, Tags(tags...))
		}
		bi.apply(t, batch)
		for id, fs := range batch {
			if fs == nil {
				mem.Remove(id)
			} else {
				mem.Add(id, fs...)
			}
		}
		queries := []string{"alpha3 bravo7", "charlie12", "delta", "echo1 foxtrot2 golf3", g.query()}
		assertSameIndex(t, bi, mem, queries)
		bi.view(t, func(st Store) { assertLayoutRule(t, st, round) })
	}
}

// assertLayoutRule checks that every term is inline exactly when its list is one chunk of
// at most inlineMax bytes.
func assertLayoutRule(t *testing.T, st Store, round int) {
	t.Helper()
	st.SeekTerms(nil, func(k, v []byte) bool {
		if bytes.Equal(k, metaKey) {
			return true
		}
		rec, ok := decodeTerm(v)
		require.True(t, ok, "term %q", k)
		var sizes []int
		forChunks(st, string(k), &rec, func(_ uint64, v []byte) bool { sizes = append(sizes, len(v)); return true })
		small := len(sizes) == 1 && sizes[0] <= inlineMax
		assert.Equal(t, small, rec.inline != nil, "round %d: term %q with chunks of %v bytes", round, k, sizes)
		return true
	})
}

// toVersion1 rewrites st as an index written before inline lists: every inline list moved
// to the postings space and an index record of version 1.
func toVersion1(t *testing.T, st WriteStore) {
	t.Helper()
	type moved struct {
		term string
		rec  termRec
	}
	var ms []moved
	st.SeekTerms(nil, func(k, v []byte) bool {
		if bytes.Equal(k, metaKey) {
			return true
		}
		rec, ok := decodeTerm(v)
		require.True(t, ok)
		if rec.inline != nil {
			rec.inline = slices.Clone(rec.inline)
			ms = append(ms, moved{string(k), rec})
		}
		return true
	})
	for _, m := range ms {
		require.NoError(t, st.PutPostings(chunkKey(nil, m.term, m.rec.last), m.rec.inline))
		m.rec.setInline(0, nil)
		require.NoError(t, st.PutTerm([]byte(m.term), m.rec.encode()))
	}
	meta := slices.Clone(st.Term(metaKey))
	meta[0] = 1
	require.NoError(t, st.PutTerm(metaKey, meta))
}

// TestVersion1IndexKeepsWorking: an index written before inline lists (every list in the
// postings space, index record version 1) is searched as it is, with no rebuild; the next
// write marks the record version 2 and moves the small lists it touches into their
// records, leaving the others where they are, and the index still equals a fresh one.
func TestVersion1IndexKeepsWorking(t *testing.T) {
	t.Parallel()
	e := NewEngine(Options{})
	bi := newBoltIndex(t, e)
	mem := New(Options{})
	docs := corpusDocs(300, 9)
	batch := map[uint64][]Field{}
	for _, d := range docs {
		batch[d.ID] = d.Fields
		mem.Add(d.ID, d.Fields...)
	}
	bi.apply(t, batch)
	g := newGenerator(9)
	var queries []string
	for range 20 {
		queries = append(queries, g.query())
	}
	require.NoError(t, bi.db.Update(func(tx *bolt.Tx) error { toVersion1(t, boltOf(tx)); return nil }))
	bi.view(t, func(st Store) {
		m, err := e.readMeta(st)
		require.NoError(t, err)
		assert.Equal(t, byte(1), m.ver)
		n := 0
		st.SeekTerms(nil, func(k, v []byte) bool {
			if rec, ok := decodeTerm(v); ok && rec.inline != nil {
				n++
			}
			return true
		})
		require.Zero(t, n, "no list is inline in a version 1 index")
	})
	assertSameIndex(t, bi, mem, queries)

	// One new document with a new term and a term every document has.
	extra := []Field{Title("Kestrelwing retry guide"), Body("kestrelwing " + strings.Join(Analyze(docs[0].Fields[0].Text), " "))}
	bi.apply(t, map[uint64][]Field{5000: extra})
	mem.Add(5000, extra...)
	bi.view(t, func(st Store) {
		m, err := e.readMeta(st)
		require.NoError(t, err)
		assert.Equal(t, byte(metaVersion), m.ver)
		assert.Equal(t, "inline", termShape(t, st, Analyze("kestrelwing")[0]))
		untouched := 0
		st.SeekTerms(nil, func(k, v []byte) bool {
			if rec, ok := decodeTerm(v); ok && rec.inline == nil && !bytes.Equal(k, metaKey) {
				untouched++
			}
			return true
		})
		assert.Positive(t, untouched, "lists the write did not touch stay in the postings space")
	})
	assertSameIndex(t, bi, mem, append(queries, "kestrelwing"))
	// Removing documents rewrites their terms' chunks: small ones move into the records.
	bi.apply(t, map[uint64][]Field{docs[0].ID: nil, docs[1].ID: nil})
	mem.Remove(docs[0].ID)
	mem.Remove(docs[1].ID)
	assertSameIndex(t, bi, mem, queries)
}

// TestVersion1IndexStepsMarkTheRecordFirst: a plan applied over several transactions to a
// version 1 index marks the index record version 2 in its first step, before it writes
// any list inline, and keeps its counts until the last step.
func TestVersion1IndexStepsMarkTheRecordFirst(t *testing.T) {
	t.Parallel()
	e := NewEngine(Options{})
	bi := newBoltIndex(t, e)
	docs := corpusDocs(200, 10)
	batch := map[uint64][]Field{}
	for _, d := range docs[:100] {
		batch[d.ID] = d.Fields
	}
	bi.apply(t, batch)
	require.NoError(t, bi.db.Update(func(tx *bolt.Tx) error { toVersion1(t, boltOf(tx)); return nil }))
	var b Batch
	for _, d := range docs[100:] {
		b.Put(d.ID, nil, d.Fields)
	}
	p := e.Plan(&b)
	steps := 0
	for done := false; !done; steps++ {
		require.NoError(t, bi.db.Update(func(tx *bolt.Tx) error {
			var err error
			done, err = p.Step(boltOf(tx), 300)
			return err
		}))
		bi.view(t, func(st Store) {
			m, err := e.readMeta(st)
			require.NoError(t, err)
			assert.Equal(t, byte(metaVersion), m.ver, "after step %d", steps)
			if !done {
				assert.Equal(t, uint64(100), m.n, "the counts of before until the last step")
			}
		})
	}
	require.Greater(t, steps, 2)
	mem := New(Options{})
	for _, d := range docs {
		bi.docs[d.ID] = d.Fields
		mem.Add(d.ID, d.Fields...)
	}
	assertSameIndex(t, bi, mem, []string{newGenerator(1).query(), newGenerator(2).query()})
}

// TestInlineListsRebound: when the average field lengths drift, the bounds of the lists in
// term records are rewritten under the new reference as those of the postings space are.
func TestInlineListsRebound(t *testing.T) {
	t.Parallel()
	e := NewEngine(Options{})
	bi := newBoltIndex(t, e)
	mem := New(Options{})
	short := map[uint64][]Field{}
	for id := uint64(1); id <= 50; id++ {
		short[id] = []Field{Title(fmt.Sprintf("note %d rare%d", id, id)), Body("short body")}
		mem.Add(id, short[id]...)
	}
	bi.apply(t, short)
	var ref0 [MaxFields]float64
	bi.view(t, func(st Store) {
		m, err := e.readMeta(st)
		require.NoError(t, err)
		ref0 = m.refAvg
		assert.Equal(t, "inline", termShape(t, st, Analyze("rare7")[0]))
	})
	long := map[uint64][]Field{}
	g := newGenerator(77)
	for id := uint64(51); id <= 120; id++ {
		d := g.doc(id)
		long[id] = d.Fields
		mem.Add(id, d.Fields...)
	}
	bi.apply(t, long)
	bi.view(t, func(st Store) {
		m, err := e.readMeta(st)
		require.NoError(t, err)
		require.NotEqual(t, ref0, m.refAvg, "the reference moved")
		assert.Equal(t, "inline", termShape(t, st, Analyze("rare7")[0]))
	})
	// Compare checks every block bound against its postings under the current reference.
	assertSameIndex(t, bi, mem, []string{"rare7 note", "short body", "rare12"})
}

// termRecords are valid records of every shape, for the malformed-input test and the
// fuzz target's seeds.
func termRecords() [][]byte {
	ref := testRef()
	one := encodeChunk(nil, 7, []posting{{doc: 7, tf: 1, code: 3}}, &ref)
	three := encodeChunk(nil, 1<<40, []posting{{doc: 1 << 40, tf: 0x0102, code: 0x0405}, {doc: 1<<40 + 9, tf: 1 << 24, code: 9 << 24}, {doc: 1 << 62, tf: 3, code: 1}}, &ref)
	return [][]byte{
		termRec{df: 1, last: 7}.encode(),
		termRec{df: 9000, flags: termChampion, last: 1 << 20}.encode(),
		termRec{df: 1, flags: termInline, last: 7, inline: one}.encode(),
		termRec{df: 3, flags: termInline, last: 1 << 40, inline: three}.encode(),
	}
}

// TestTermRecordMalformed: damaged term records do not decode, and a search or a write of
// their term reports ErrCorrupt.
func TestTermRecordMalformed(t *testing.T) {
	t.Parallel()
	recs := termRecords()
	for _, b := range recs {
		rec, ok := decodeTerm(b)
		require.True(t, ok, "%x", b)
		assert.Equal(t, b, rec.encode())
	}
	inl := recs[2]
	ref := testRef()
	two := encodeChunk(nil, 7, []posting{{doc: 7, tf: 1, code: 3}, {doc: 8, tf: 1, code: 3}}, &ref)
	bad := [][]byte{
		nil, {}, {termVersion}, {termVersion, 1, 0}, {2, 1, 0, 7},
		{termVersion, 0, 0, 7},             // no documents
		{termVersion, 1, 0x80, 7},          // unknown flag
		append(slices.Clone(recs[0]), 0),   // trailing bytes, not inline
		{termVersion, 1, termInline, 7},    // inline, no chunk
		{termVersion, 1, termInline, 7, 1}, // inline, a cut chunk
		inl[:len(inl)-1],                   // inline, cut short
		append(slices.Clone(inl), 0),       // inline, a trailing byte
		termRec{df: 2, flags: termInline, last: 7, inline: recs[2][4:]}.encode(), // df is not the chunk's count
		termRec{df: 1, flags: termInline | termChampion, last: 7, inline: recs[2][4:]}.encode(),
		{termVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	}
	// Records that decode, whose postings do not (found when a reader decodes them).
	badPostings := [][]byte{
		termRec{df: 2, flags: termInline, last: 8, inline: two}.encode(), // the chunk does not start at last
		termRec{df: 2, flags: termInline, last: 7, inline: append(two[:len(two)-3:len(two)-3], 0x21, 1, 3)}.encode(),
	}
	for _, b := range badPostings {
		_, ok := decodeTerm(b)
		require.True(t, ok, "%x", b)
	}
	e := NewEngine(Options{})
	for i, b := range append(bad, badPostings...) {
		if i < len(bad) {
			_, ok := decodeTerm(b)
			assert.False(t, ok, "%x", b)
		}
		if len(b) == 0 {
			continue // a key's value is never empty (Term returns nil for no record)
		}
		st := &MemStore{}
		ix := New(Options{})
		ix.Add(1, Title("zebra"), Body("zebra crossing"))
		ix.st.SeekTerms(nil, func(k, v []byte) bool { _ = st.PutTerm(k, v); return true })
		ix.st.SeekPostings(nil, func(k, v []byte) bool { _ = st.PutPostings(k, v); return true })
		require.NoError(t, st.PutTerm([]byte(Analyze("zebra")[0]), b))
		_, err := e.Search(st, "zebra", 5, nil)
		assert.ErrorIs(t, err, ErrCorrupt, "%x", b)
		var wb Batch
		wb.Put(2, nil, []Field{Body("zebra")})
		assert.ErrorIs(t, e.Apply(st, &wb), ErrCorrupt, "%x", b)
	}
}

// FuzzTermRecord: any bytes as a term record decode or are refused, never panic; a record
// that decodes encodes back to a record that decodes the same, and a search over it answers
// or reports ErrCorrupt.
func FuzzTermRecord(f *testing.F) {
	for _, b := range termRecords() {
		f.Add(b)
	}
	e := NewEngine(Options{})
	ix := New(Options{})
	ix.Add(7, Title("zebra"), Body("zebra crossing"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, ok := decodeTerm(b)
		if ok { // encodes back to the same record (uvarints may have been written longer)
			again, ok := decodeTerm(rec.encode())
			require.True(t, ok)
			require.Equal(t, rec, again)
			if rec.inline != nil {
				ch, ok := parseTermChunk(rec.inline, rec.last)
				require.True(t, ok)
				_, _ = ch.decodePostings(MaxFields, nil)
			}
		}
		if len(b) == 0 {
			return
		}
		st := &MemStore{}
		ix.st.SeekTerms(nil, func(k, v []byte) bool { _ = st.PutTerm(k, v); return true })
		ix.st.SeekPostings(nil, func(k, v []byte) bool { _ = st.PutPostings(k, v); return true })
		require.NoError(t, st.PutTerm([]byte(Analyze("zebra")[0]), slices.Clone(b)))
		if _, err := e.Search(st, "zebra crossing", 5, nil); err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
		}
		if _, _, err := e.Coverage(st, "zebra", 7); err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
		}
	})
}

// TestOrderedPartsMatchOneBatch: a plan whose parts take ascending ids (a bulk load's
// chunks) skips the per-term order check and writes the same bytes as one batch; parts
// that interleave take the checked path.
func TestOrderedPartsMatchOneBatch(t *testing.T) {
	t.Parallel()
	e := NewEngine(Options{})
	rng := rand.New(rand.NewPCG(13, 14))
	for _, interleave := range []bool{false, true} {
		plan := e.NewPlan()
		var all Batch
		for k := range 6 {
			var b Batch
			for i := range 40 {
				id := uint64(1 + 40*k + i)
				if interleave {
					id = uint64(1 + 6*i + k)
				}
				b.Put(id, nil, planFields(rng))
			}
			require.NoError(t, plan.Add(&b))
			all.Merge(&b)
		}
		var many, one MemStore
		for done := false; !done; {
			var err error
			done, err = plan.Step(&many, 500)
			require.NoError(t, err)
		}
		assert.Equal(t, !interleave, plan.ordered)
		require.NoError(t, e.Apply(&one, &all))
		manyTerms, manyPostings := storeBytes(&many)
		oneTerms, onePostings := storeBytes(&one)
		assert.Equal(t, oneTerms, manyTerms, "interleave %v", interleave)
		assert.Equal(t, onePostings, manyPostings, "interleave %v", interleave)
	}
}
