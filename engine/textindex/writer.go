package textindex

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// Batch collects document changes for [Engine.Apply]. For every document it needs the text
// the store indexes now (nil when the document is not indexed), since removing a document
// means removing the postings of exactly that text. Several changes to one document
// coalesce: the first one says what the store holds, the last one what it will hold. The
// zero value is ready to use.
type Batch struct {
	ops   map[uint64]*docOp
	order []uint64
}

type docOp struct {
	cur  []Field // indexed now; nil if not indexed
	next []Field // indexed after the batch; nil if removed
}

// Put records that document id, indexed now with the fields old (nil if it is not indexed),
// is to be indexed with fields.
func (b *Batch) Put(id uint64, old, fields []Field) {
	if fields == nil {
		fields = []Field{}
	}
	b.op(id, old).next = fields
}

// Remove records that document id, indexed now with the fields old, is to be removed.
func (b *Batch) Remove(id uint64, old []Field) { b.op(id, old).next = nil }

// Len returns the number of documents the batch changes.
func (b *Batch) Len() int { return len(b.order) }

// Reset empties the batch.
func (b *Batch) Reset() { *b = Batch{} }

func (b *Batch) op(id uint64, old []Field) *docOp {
	if b.ops == nil {
		b.ops = map[uint64]*docOp{}
	}
	o, ok := b.ops[id]
	if !ok {
		if old != nil && len(old) == 0 {
			old = []Field{} // indexed with no text
		}
		o = &docOp{cur: old}
		b.ops[id] = o
		b.order = append(b.order, id)
	}
	return o
}

// sameText reports whether two field lists index the same way.
func sameText(a, b []Field) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// adoc is a document to analyse: its postings are added, or removed when remove is set.
type adoc struct {
	id     uint64
	fields []Field
	remove bool
}

// Apply writes the batch into st: postings, document frequencies, champion lists and the
// index record, in one pass over the terms the batch touches (in key order, which suits
// bbolt). A store without an index gets one. st must be written by this engine's options
// (else ErrMismatch); a record that cannot be decoded stops the write with ErrCorrupt.
func (e *Engine) Apply(st WriteStore, b *Batch) error {
	_, err := e.Plan(b).Step(st, 0)
	return err
}

// Plan is a set of document changes analysed up front, to be applied over several
// transactions (see Step): a bulk load writes each range of terms once, in its own
// transaction, instead of rewriting the whole index in every transaction of a chunked load.
// Batches are analysed as they are added, so their text need not be kept.
type Plan struct {
	e       *Engine
	parts   []planPart
	seen    map[uint64]struct{} // ids of the parts added so far
	dict    *termDict           // term ↔ global id
	conc    map[int32][]int32   // global id → its concepts' ids
	cbits   []uint64            // by global id: whether conc has it
	workers []*batchWorker      // the analysis state kept from Add to Add
	keep    int                 // cacheKeep (a test makes it small)
	// champsFromStore makes the writer read a new term's postings back to choose its
	// champions (a test's reference).
	champsFromStore bool
	dn              int64            // documents added minus removed
	dtot            [MaxFields]int64 // field lengths added minus removed
	order           []int32          // global terms in key order (at the first Step)
	where           [][3]int32       // per term, in key order: (part, start, end of its postings in the part's post), from whereAt
	whereAt         []int32
	pending         []int32 // per term, in key order: its postings in all parts
	ordered         bool    // each part's documents come before the next part's (see index)
	sink            byte    // what touch read (kept, so that the reads are not optimised away)
	next            int     // next term of order to apply
	started         bool
	meta            indexMeta
	reset           bool
	w               *writer
}

// planPart is one added batch: what Step needs of its documents, by batch position (one
// flat array: Step reads it at every posting, in no order that suits a cache), and its
// analysis.
type planPart struct {
	docs []planDoc
	a    *analysis // its gids: local term → global id
}

// planDoc is a document of a plan: its id, length codes and whether it is removed.
type planDoc struct {
	id   uint64
	code uint32
	rm   bool
}

// Plan analyses the batch (on all processors when it is large) for Step.
func (e *Engine) Plan(b *Batch) *Plan {
	p := e.NewPlan()
	_ = p.Add(b) // a fresh plan has seen no id
	return p
}

// NewPlan returns an empty plan; Add batches to it, then Step.
func (e *Engine) NewPlan() *Plan {
	return &Plan{e: e, seen: map[uint64]struct{}{}, dict: newTermDict(), conc: map[int32][]int32{}, keep: cacheKeep}
}

// Add analyses a batch into the plan. The batches of a plan must change disjoint sets of
// documents (ErrOverlap otherwise), and may not be added after the first Step.
func (p *Plan) Add(b *Batch) error {
	if p.started {
		return errors.New("textindex: plan already applied")
	}
	docs := make([]adoc, 0, 2*len(b.order))
	for _, id := range b.order {
		if _, dup := p.seen[id]; dup {
			return fmt.Errorf("%w: document %d", ErrOverlap, id)
		}
	}
	for _, id := range b.order {
		p.seen[id] = struct{}{}
		o := b.ops[id]
		if sameText(o.cur, o.next) {
			continue
		}
		if o.cur != nil {
			docs = append(docs, adoc{id: id, fields: o.cur, remove: true})
		}
		if o.next != nil {
			docs = append(docs, adoc{id: id, fields: o.next})
		}
	}
	if len(docs) == 0 {
		return nil
	}
	// By id, each removal before the addition of the same id, so that every term's postings
	// come out in id order.
	slices.SortStableFunc(docs, func(x, y adoc) int {
		return cmp.Or(cmp.Compare(x.id, y.id), cmpBool(!x.remove, !y.remove))
	})
	a := p.analyze(docs)
	for i := range docs {
		sign := int64(1)
		if docs[i].remove {
			sign = -1
		}
		p.dn += sign
		for f := range p.e.nf {
			p.dtot[f] += sign * int64(a.lens[i][f])
		}
		docs[i].fields = nil // the analysis holds what Step needs
	}
	a.lens = nil
	part := planPart{docs: make([]planDoc, len(docs)), a: a}
	for i := range docs {
		part.docs[i] = planDoc{id: docs[i].id, code: a.codes[i], rm: docs[i].remove}
	}
	a.codes = nil
	p.parts = append(p.parts, part)
	return nil
}

// ErrOverlap means two batches of a plan change the same document.
var ErrOverlap = errors.New("textindex: batches of a plan overlap")

// index orders the terms and finds, for each, the parts holding it.
func (p *Plan) index() {
	nt := p.dict.len()
	p.order = p.dict.sorted()
	// where is laid out in key order (by rank, not by global id), so that Step reads it
	// front to back.
	rank := make([]int32, nt)
	for r, g := range p.order {
		rank[g] = int32(r)
	}
	p.whereAt = make([]int32, nt+1)
	for _, part := range p.parts {
		for _, g := range part.a.gids {
			p.whereAt[rank[g]+1]++
		}
	}
	for r := range nt {
		p.whereAt[r+1] += p.whereAt[r]
	}
	p.where = make([][3]int32, p.whereAt[nt])
	next := slices.Clone(p.whereAt)
	// The postings of each term, counted here, where each part's are read in order, for the
	// steps' budgets (prefetch): counting them in key order read every term's postings
	// twice, from all over memory.
	p.pending = make([]int32, nt)
	for k, part := range p.parts {
		a := part.a
		for lt, g := range a.gids {
			r := rank[g]
			p.where[next[r]] = [3]int32{int32(k), a.start[lt], a.start[lt+1]}
			next[r]++
			n, _ := pendingPostings(a.post[a.start[lt]:a.start[lt+1]])
			p.pending[r] += int32(n)
		}
	}
	// A term's postings are gathered part by part: when the parts' ids do not interleave (a
	// bulk load's chunks take ascending ids) they come out in document order and Step need
	// not check every term's.
	p.ordered = true
	for k := 1; k < len(p.parts); k++ {
		prev, cur := p.parts[k-1].docs, p.parts[k].docs
		if prev[len(prev)-1].id >= cur[0].id {
			p.ordered = false
		}
	}
	p.dict.seal()
	p.seen, p.conc, p.cbits, p.workers = nil, nil, nil, nil
	for k := range p.parts {
		p.parts[k].a.gids = nil
	}
}

// Step applies the plan's next terms to st, until about budget postings are written
// (budget <= 0: all of them), and reports whether the plan is complete: the last step
// also writes the index record (documents, field lengths), so that until then searches
// score with the counts of before. The steps must follow each other with no other write
// to the index in between.
func (p *Plan) Step(st WriteStore, budget int) (done bool, err error) {
	e := p.e
	if len(p.parts) == 0 {
		return true, nil
	}
	if !p.started {
		m, err := e.readMeta(st)
		empty := false
		switch {
		case errors.Is(err, ErrNoIndex):
			m, empty = indexMeta{fp: e.fp}, true
		case err != nil:
			return false, err
		}
		if err == nil && m.ver < metaVersion {
			// An index written before inline posting lists: its record says so from the
			// first transaction on, so that an older nova opening the file between two
			// steps rebuilds the index instead of misreading the records written inline.
			if err := st.PutTerm(metaKey, m.encode(e.nf)); err != nil {
				return false, err
			}
		}
		empty = empty || m.n == 0
		m.n = uint64(max(int64(m.n)+p.dn, 0))
		for f := range e.nf {
			m.totals[f] = uint64(max(int64(m.totals[f])+p.dtot[f], 0))
		}
		if e.drifted(&m) {
			m.refAvg = m.avg(e.nf)
			p.reset = !empty
		}
		p.meta, p.started = m, true
		p.w = &writer{e: e, ref: e.buildNorm(m.refAvg), fromStore: p.champsFromStore}
		p.index()
		if p.reset {
			// The postings already stored get bounds under the new reference first; the
			// plan's own are then written under it (a bulk load into a small index
			// rewrites the small index, not its own postings).
			p.w.st = st
			if err := p.w.rebound(); err != nil {
				return false, err
			}
		}
	}
	w := p.w
	w.st = st
	w.prefetch(p, budget)
	work := 0
	touched := p.next
	for p.next < len(p.order) && (budget <= 0 || work < budget) {
		if p.next >= touched {
			touched = p.touch(p.next, touchAhead)
		}
		g := p.order[p.next]
		w.adds, w.removes = w.adds[:0], w.removes[:0]
		for _, wh := range p.where[p.whereAt[p.next]:p.whereAt[p.next+1]] {
			part := &p.parts[wh[0]]
			_, b := pendingPostings(part.a.post[wh[1]:wh[2]])
			for len(b) > 0 {
				var pos uint64
				var tf uint32
				pos, tf, b = nextPosting(b, e.nf)
				d := &part.docs[pos]
				if d.rm {
					w.removes = append(w.removes, d.id)
					continue
				}
				w.adds = append(w.adds, posting{doc: d.id, tf: tf, code: d.code & byteMask(tf)})
			}
		}
		if !p.ordered { // parts may interleave
			if !slices.IsSortedFunc(w.adds, func(x, y posting) int { return cmp.Compare(x.doc, y.doc) }) {
				slices.SortFunc(w.adds, func(x, y posting) int { return cmp.Compare(x.doc, y.doc) })
			}
			if !slices.IsSorted(w.removes) {
				slices.Sort(w.removes)
			}
		}
		if err := w.term(p.dict.view(g)); err != nil {
			return false, err
		}
		work += len(w.adds) + len(w.removes) + 1
		p.next++
	}
	if p.next < len(p.order) {
		return false, nil
	}
	if err := st.PutTerm(metaKey, p.meta.encode(e.nf)); err != nil {
		return false, err
	}
	p.parts, p.pending = nil, nil
	return true, nil
}

// touchAhead is how many terms' postings Step reads ahead (see touch).
const touchAhead = 16

// touch reads the first byte of the postings and of the key of the terms from..from+n,
// and returns where it stopped. Step visits the terms in key order, and their postings
// and keys lie all over memory (in each part's order of first occurrence): one term at a
// time, each read waited for its cache miss; read back to back here, the misses overlap.
func (p *Plan) touch(from, n int) int {
	end := min(from+n, len(p.order))
	var x byte
	for t := from; t < end; t++ {
		for _, wh := range p.where[p.whereAt[t]:p.whereAt[t+1]] {
			x += p.parts[wh[0]].a.post[wh[1]]
		}
		if k := p.dict.view(p.order[t]); k != "" {
			x += k[0]
		}
	}
	p.sink += x
	return end
}

// Merge adds the changes of o to b, as if they had been recorded in b after its own.
func (b *Batch) Merge(o *Batch) {
	for _, id := range o.order {
		op := o.ops[id]
		b.op(id, op.cur).next = op.next
	}
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// byteMask has 0xff in the bytes where tf is non-zero.
func byteMask(tf uint32) uint32 {
	var m uint32
	for s := 0; s < 32; s += 8 {
		if tf>>s&0xff != 0 {
			m |= 0xff << s
		}
	}
	return m
}

// writer applies one batch's postings term by term.
type writer struct {
	e       *Engine
	st      WriteStore
	ref     normTable
	adds    []posting // the current term's new postings, by doc
	removes []uint64  // the current term's removed docs, ascending
	old     []posting
	merged  []posting
	gone    []uint64   // docs whose posting left or changed, for the champion list
	all     []posting  // reused by readAll
	outs    []outChunk // reused by rewrite
	slab    []byte     // term records are carved from it (see record)
	slabs   int        // slabs made so far (each twice the last, up to slabSize)
	cbuf    []byte     // a new term's chunk, while it may go inline (see putNew)
	vals    []valued   // reused by selectChampions
	sel     []uint64   // reused by selectChampions
	key     []byte
	pkey    []byte // a chunk key being put or deleted (the stores copy keys)
	ckey    []byte // the current term's champion key
	tkey    []byte // the current term's key
	// whole says that adds are every posting of the current term (a new term), so that its
	// champions are chosen from them rather than from the postings just stored; fromStore
	// (for a test) turns that off.
	whole, fromStore bool
	known            knownTerms // the stored records of the step's terms, when prefetched
}

// knownTerms holds the term records stored in the key range of a step, read in one cursor
// pass before the step writes (see prefetch), in key order.
type knownTerms struct {
	ok   bool // the range was read whole: a term not in keys has no record
	keys []string
	vals [][]byte
	at   int
}

// lookup returns the stored record of term (nil if none); terms come in key order.
func (k *knownTerms) lookup(term string) []byte {
	for k.at < len(k.keys) && k.keys[k.at] < term {
		k.at++
	}
	if k.at < len(k.keys) && k.keys[k.at] == term {
		return k.vals[k.at]
	}
	return nil
}

// prefetchMin is the number of terms from which a step reads the stored records of its
// key range in one cursor pass instead of looking each term up (a bulk load's step writes
// tens of thousands of terms: one seek from the root each was ~3 % of an import).
const prefetchMin = 1024

// prefetch reads the stored term records in the key range of the terms the step will
// write (the same budget rule as Step's loop). It gives up, leaving lookups to the store,
// when the range holds many more stored terms than the step writes (a small bulk load
// into a large index).
func (w *writer) prefetch(p *Plan, budget int) {
	w.known = knownTerms{keys: w.known.keys[:0], vals: w.known.vals[:0]}
	end, work := p.next, 0
	for end < len(p.order) && (budget <= 0 || work < budget) {
		work += int(p.pending[end]) + 1
		end++
	}
	n := end - p.next
	if n < prefetchMin {
		return
	}
	first, last := p.dict.view(p.order[p.next]), p.dict.view(p.order[end-1])
	limit := 2*n + 64
	complete := true
	w.st.SeekTerms([]byte(first), func(k, v []byte) bool {
		if string(k) > last {
			return false
		}
		if len(w.known.keys) == limit {
			complete = false
			return false
		}
		w.known.keys = append(w.known.keys, string(k))
		w.known.vals = append(w.known.vals, slices.Clone(v))
		return true
	})
	w.known.ok = complete
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// term applies w.adds and w.removes to one term.
func (w *writer) term(term string) error {
	st := w.st
	w.tkey = append(w.tkey[:0], term...) // the stores copy keys (bbolt's Put does)
	var rec termRec
	var v []byte
	if w.known.ok {
		v = w.known.lookup(term)
	} else {
		v = st.Term(w.tkey)
	}
	if v != nil {
		var ok bool
		if rec, ok = decodeTerm(v); !ok {
			return corruptf("term %q", term)
		}
	}
	w.gone = w.gone[:0]
	w.whole = false
	var err error
	switch appended, ok := w.appendLast(term, &rec); {
	case ok:
		err = appended
	case rec.df == 0 && len(w.adds) > 0:
		err = w.putNew(term, w.adds, &rec) // a new term has no chunks to look for
		rec.df = uint64(len(w.adds))
		w.whole = !w.fromStore
	default:
		err = w.rewrite(term, &rec)
	}
	if err != nil {
		return err
	}
	err = w.champions(term, &rec)
	w.whole = false // the other callers of selectChampions read the store
	if err != nil {
		return err
	}
	if rec.df == 0 {
		return st.DeleteTerm(w.tkey)
	}
	return st.PutTerm(w.tkey, w.record(&rec))
}

// slabSize is the largest buffer term records are carved from; a writer's first slab is
// firstSlab bytes and each next one twice the last.
const (
	slabSize  = 64 << 10
	firstSlab = 512
)

// record returns rec's encoding, carved from a slab: a store keeps a value it was given
// until the commit (bbolt) or for good (MemStore), so each record gets bytes of its own,
// but a bulk load writes a record per term (136,000 in an import of 10,000 files), and
// one allocation per record was a measurable share of the writes.
func (w *writer) record(rec *termRec) []byte {
	w.room(rec.size())
	start := len(w.slab)
	w.slab = rec.appendTo(w.slab)
	return w.slab[start:len(w.slab):len(w.slab)]
}

// keep returns a copy of v that the store may keep, carved from the slab as records are.
func (w *writer) keep(v []byte) []byte {
	if len(v) > slabSize/8 {
		return slices.Clone(v)
	}
	w.room(len(v))
	start := len(w.slab)
	w.slab = append(w.slab, v...)
	return w.slab[start:len(w.slab):len(w.slab)]
}

// room makes room for n more bytes in the slab (a new slab: the bytes handed out are the
// stores' from then on).
//
// Slabs start small and double: a MemStore keeps every record for good, so a slab stays
// alive as long as one record carved from it does. With a 64 KiB slab from the first
// record, every small write (one fact: a few dozen bytes of records) pinned 64 KiB for as
// long as the index lived: the owner grew by ~65 KB per fact write (issue 26, finding 6).
// Doubling keeps a small write's slabs within twice its bytes and a bulk load's slabs at
// 64 KiB after a few.
func (w *writer) room(n int) {
	if cap(w.slab)-len(w.slab) < n {
		size := min(firstSlab<<min(w.slabs, 8), slabSize)
		w.slabs++
		w.slab = make([]byte, 0, max(size, n))
	}
}

// appendLast is the common write: documents newer than every posting of the term, nothing
// removed. It appends them to the term's last chunk without decoding it, and starts new
// chunks when it is full. ok is false when the batch is not of that kind.
func (w *writer) appendLast(term string, rec *termRec) (err error, ok bool) {
	adds := w.adds
	if rec.df == 0 || len(w.removes) > 0 || len(adds) == 0 {
		return nil, false
	}
	w.key = chunkKey(w.key[:0], term, rec.last)
	v := rec.inline
	if v == nil {
		if v = w.st.Postings(w.key); v == nil {
			return nil, false
		}
	}
	ch, ok := parseTermChunk(v, rec.last)
	if !ok {
		return corruptf("postings of %q", term), true
	}
	if adds[0].doc <= ch.last(ch.nb-1) {
		return nil, false
	}
	only := uint64(ch.n) == rec.df // the last chunk is the term's only one
	rec.df += uint64(len(adds))
	out := v
	if room := maxChunk - ch.n; room > 0 {
		take := min(room, len(adds))
		out = appendChunk(&ch, adds[:take], &w.ref)
		adds = adds[take:]
	}
	if only && len(adds) == 0 && len(out) <= inlineMax {
		if rec.inline == nil { // a list written by an older nova: it moves into the record
			if err := w.st.DeletePostings(w.key); err != nil {
				return err, true
			}
		}
		rec.setInline(rec.last, out)
		return nil, true
	}
	if rec.inline != nil || len(out) != len(v) {
		if err := w.st.PutPostings(slices.Clone(w.key), out); err != nil {
			return err, true
		}
	}
	rec.setInline(0, nil)
	return w.putPieces(term, adds, rec), true
}

// putPieces stores ps (ascending, after every other posting of the term) as new chunks of
// up to maxChunk postings, the last of them becoming the term's last chunk.
func (w *writer) putPieces(term string, ps []posting, rec *termRec) error {
	for len(ps) > 0 {
		piece := ps[:min(len(ps), maxChunk)]
		ps = ps[len(piece):]
		first := piece[0].doc
		w.pkey = chunkKey(w.pkey[:0], term, first)
		if err := w.st.PutPostings(w.pkey, encodeChunk(nil, first, piece, &w.ref)); err != nil {
			return err
		}
		rec.last = max(rec.last, first)
	}
	return nil
}

// putNew stores the postings of a term that has none: in its record when they make one
// small chunk, else as chunks of the postings space.
func (w *writer) putNew(term string, ps []posting, rec *termRec) error {
	rec.setInline(0, nil)
	rec.last = 0
	if len(ps) > maxChunk {
		return w.putPieces(term, ps, rec)
	}
	first := ps[0].doc
	if len(ps) > inlinePostings {
		rec.last = first
		w.pkey = chunkKey(w.pkey[:0], term, first)
		return w.st.PutPostings(w.pkey, encodeChunk(nil, first, ps, &w.ref))
	}
	// Encoded in a scratch buffer: a chunk that goes inline is copied into the record.
	v := encodeChunk(w.cbuf[:0], first, ps, &w.ref)
	w.cbuf = v[:0]
	if len(v) <= inlineMax {
		rec.setInline(first, v)
		return nil
	}
	rec.last = first
	w.pkey = chunkKey(w.pkey[:0], term, first)
	return w.st.PutPostings(w.pkey, w.keep(v))
}

// inlinePostings is the most postings a chunk of inlineMax bytes can hold (a first one of
// at least 25 bytes, then at least 3 bytes each).
const inlinePostings = 1 + (inlineMax-25)/3

// outChunk is a chunk rewrite stores once it knows where the term's chunks go; stored
// says its key holds a chunk now (its first document did not change).
type outChunk struct {
	first  uint64
	v      []byte
	stored bool
}

// rewrite is the general write: every chunk whose range holds an added or removed document
// is decoded, merged and stored again (split in halves when it overflows, under a new key
// when its first document changed); the other chunks are not touched. A term left with one
// chunk of at most inlineMax bytes gets it in its record; any other goes to the postings
// space (see the layout rule in the package doc).
func (w *writer) rewrite(term string, rec *termRec) error {
	st := w.st
	type span struct {
		first uint64
		v     []byte
	}
	var spans []span
	wasInline := rec.inline != nil
	forChunks(st, term, rec, func(first uint64, v []byte) bool {
		spans = append(spans, span{first, v})
		return true
	})
	adds, removes := w.adds, w.removes
	if len(spans) == 0 {
		if len(adds) == 0 {
			return nil // nothing indexed, nothing to add: removals of unknown docs
		}
		rec.df, rec.last = uint64(len(adds)), 0
		return w.putNew(term, adds, rec)
	}
	// Chunk i takes the documents in [spans[i].first, spans[i+1].first); chunk 0 also those
	// before its first.
	owner := func(d uint64) int {
		i, _ := slices.BinarySearchFunc(spans, d, func(s span, d uint64) int { return cmp.Compare(s.first, d) })
		if i < len(spans) && spans[i].first == d {
			return i
		}
		return max(i-1, 0)
	}
	outs := w.outs[:0]
	untouched := -1 // a chunk not rewritten (the last one seen)
	nUntouched := 0
	for i := 0; i < len(spans); {
		// The ops of the chunks up to and including i.
		na, nr := 0, 0
		for na < len(adds) && owner(adds[na].doc) <= i {
			na++
		}
		for nr < len(removes) && owner(removes[nr]) <= i {
			nr++
		}
		if na == 0 && nr == 0 {
			untouched = i
			nUntouched++
			i++
			continue
		}
		sp := spans[i]
		ch, ok := parseTermChunk(sp.v, sp.first)
		w.old = w.old[:0]
		if ok {
			w.old, ok = ch.decodePostings(w.e.nf, w.old)
		}
		if !ok {
			return corruptf("postings of %q", term)
		}
		w.merge(adds[:na], removes[:nr])
		rec.df = rec.df + uint64(len(w.merged)) - uint64(len(w.old))
		adds, removes = adds[na:], removes[nr:]
		i++
		pieces := w.merged
		keep := !wasInline && len(pieces) > 0 && pieces[0].doc == sp.first
		if !keep && !wasInline {
			w.pkey = chunkKey(w.pkey[:0], term, sp.first)
			if err := st.DeletePostings(w.pkey); err != nil {
				return err
			}
		}
		step := len(pieces)
		if step > maxChunk {
			step = maxChunk / 2 // split in halves: later inserts in the middle find room
		}
		for p := 0; p < len(pieces); p += step {
			piece := pieces[p:min(p+step, len(pieces))]
			first := piece[0].doc
			outs = append(outs, outChunk{first: first, v: encodeChunk(nil, first, piece, &w.ref), stored: keep && p == 0})
		}
	}
	w.outs = outs[:0]
	switch {
	case len(outs) == 1 && nUntouched == 0 && len(outs[0].v) <= inlineMax:
		if outs[0].stored {
			w.pkey = chunkKey(w.pkey[:0], term, outs[0].first)
			if err := st.DeletePostings(w.pkey); err != nil {
				return err
			}
		}
		rec.setInline(outs[0].first, outs[0].v)
		return nil
	case len(outs) == 0 && nUntouched == 1 && len(spans[untouched].v) <= inlineMax:
		// The term's other chunks are gone: the one left moves into the record.
		sp := spans[untouched]
		v := slices.Clone(sp.v) // it aliases the store's value, deleted next
		w.pkey = chunkKey(w.pkey[:0], term, sp.first)
		if err := st.DeletePostings(w.pkey); err != nil {
			return err
		}
		rec.setInline(sp.first, v)
		return nil
	}
	last := uint64(0)
	if untouched >= 0 {
		last = spans[untouched].first
	}
	for _, o := range outs {
		w.pkey = chunkKey(w.pkey[:0], term, o.first)
		if err := st.PutPostings(w.pkey, o.v); err != nil {
			return err
		}
		last = max(last, o.first)
	}
	rec.setInline(0, nil)
	rec.last = last
	return nil
}

// merge sets w.merged to w.old without the removed docs, with the added postings (which
// replace postings of the same doc), and records in w.gone the docs whose posting left
// or changed.
func (w *writer) merge(adds []posting, removes []uint64) {
	w.merged = w.merged[:0]
	i, j, r := 0, 0, 0
	for i < len(w.old) || j < len(adds) {
		switch {
		case j == len(adds) || (i < len(w.old) && w.old[i].doc < adds[j].doc):
			d := w.old[i].doc
			for r < len(removes) && removes[r] < d {
				r++
			}
			if r < len(removes) && removes[r] == d {
				w.gone = append(w.gone, d)
			} else {
				w.merged = append(w.merged, w.old[i])
			}
			i++
		case i == len(w.old) || adds[j].doc < w.old[i].doc:
			w.merged = append(w.merged, adds[j])
			j++
		default: // same doc: the addition replaces it
			w.gone = append(w.gone, w.old[i].doc)
			w.merged = append(w.merged, adds[j])
			i++
			j++
		}
	}
}

// Has reports whether the batch changes document id.
func (b *Batch) Has(id uint64) bool {
	_, ok := b.ops[id]
	return ok
}
