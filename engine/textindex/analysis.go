package textindex

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"unicode/utf8"
)

// batchParallelMin is the batch size from which analysis runs on all processors.
const batchParallelMin = 512

// cacheKeep is the number of surface tokens from which a worker's cache, at the end of an
// Add, keeps only the tokens of that Add: a bulk load of generated or code-heavy text meets
// a long tail of words seen once, which would otherwise grow the caches for the whole load.
const cacheKeep = 24 << 10

// batchWorker analyses a contiguous range of a batch's documents. A Plan keeps its workers
// across Adds: their surface caches (which map a surface token straight to the plan's term
// id), stream buffers and per-term arrays are reused, so a term the plan has seen costs no
// allocation and, once cached, no normalisation. The plan's dictionary is read, never
// written, while the workers run; the terms a worker meets for the first time get ids of
// its own (from the plan's term count up), which the merge after the workers turns into
// plan ids (see Plan.analyze).
//
// Its postings go to a flat stream, document by document (sequential writes); scattering
// them into per-term lists is deferred to one tight pass once every list's size is known.
type batchWorker struct {
	e     *Engine
	p     *Plan
	base  int32 // batch position of the range's first document
	tz    tokenizer
	buf   []byte
	cache surfaceTable // surface token → plan term id (worker id while the Add runs)

	// Ids below g0 (the plan's term count when the Add started) are plan ids; the others are
	// the Add's new terms, newDict's id-g0.
	g0       int32
	newDict  *termDict
	newConc  map[int32][]int32 // concept ids of the new terms that have concepts, by id-g0
	lastNew  int               // the number of new terms of the last Add, and their bytes
	lastSize int
	gmap     []int32 // after the merge: new term → plan id

	ids     []idState // by id
	cbits   []uint64  // by id: whether the term has concepts (plan.conc, newConc)
	touched []int32   // ids met in the Add
	stamp   int32     // of the current document: its index in the range + 1
	// conceptLen is the length of the longest term that has concepts: a longer new term
	// (most of a bulk load's) is not looked up in the engine's concepts.
	conceptLen int

	stTerm []int32
	stTF   []uint32
	docEnd []int32 // per document of the range: end of its postings in the stream

	// Current document and field.
	fi    int
	shift uint
	ph    phraseState
	lens  [MaxFields]uint32
	emit  func(tok []byte)
	// field holds the terms of the field just analysed, so that a field with the same text
	// (a node without a title has its summary line as its title) is counted again without
	// being analysed again.
	field []int32
	// capBuf holds a lowercased capitalised word, with the slack packToken wants.
	capBuf [maxTokenLen + 16]byte
}

// idState is what a worker knows of a term, by id (one array of them, so that counting an
// occurrence touches one cache line). While the documents are analysed, last is the stamp of
// the last document the term occurred in (0: not met in the Add) and slot its posting of that
// document in the stream; then last is the term's number of postings (so still not 0 for a
// term of the Add) and slot the bytes of its postings, then the scatter's cursor.
type idState struct{ last, slot int32 }

func newBatchWorker(p *Plan) *batchWorker {
	w := &batchWorker{e: p.e, p: p}
	w.emit = func(tok []byte) { w.take(w.lookup(tok)) }
	for t := range p.e.concepts {
		w.conceptLen = max(w.conceptLen, len(t))
	}
	return w
}

// begin prepares the worker for an Add whose plan knows g0 terms.
func (w *batchWorker) begin(g0 int32) {
	w.g0 = g0
	w.ids = make([]idState, g0, int(g0)+w.lastNew+w.lastNew/4+1024)
	w.cbits = append(w.cbits[:0], w.p.cbits...) // ids that were new terms of the last Add are plan ids now
	for int(g0) > 64*len(w.cbits) {
		w.cbits = append(w.cbits, 0)
	}
	w.stamp = 0
	w.newDict = newTermDictFor(w.p.dict.seed, w.lastNew+w.lastNew/4, w.lastSize+w.lastSize/4) // about the last Add's
}

// grow makes the per-id arrays n long at least.
func (w *batchWorker) grow(n int) {
	if n <= len(w.ids) {
		return
	}
	if n > cap(w.ids) {
		w.ids = append(make([]idState, 0, max(n+n/2, 1024)), w.ids...)
	}
	w.ids = w.ids[:n] // zero beyond len: ids are made fresh for every Add
}

// termID returns the id of term. Both dictionaries hash with the same seed, so its hash is
// computed once.
func (w *batchWorker) termID(term []byte) int32 {
	h := w.p.dict.hash(term)
	if id, ok := w.p.dict.findHashed(h, term); ok {
		return id
	}
	if id, ok := w.newDict.findHashed(h, term); ok {
		return w.g0 + id
	}
	return w.newTerm(h, term)
}

// newTerm numbers term, of hash h, which neither dictionary holds.
func (w *batchWorker) newTerm(h uint64, term []byte) int32 {
	id := w.g0 + w.newDict.pushHashed(h, term)
	w.grow(int(id) + 1)
	if int(id)>>6 == len(w.cbits) {
		w.cbits = append(w.cbits, 0) // ids come one by one
	}
	if len(term) > w.conceptLen {
		return id // longer than every term that has concepts
	}
	if gs := w.e.concepts[string(term)]; len(gs) > 0 {
		cs := make([]int32, len(gs))
		for i, g := range gs {
			name := w.e.cnames[g]
			c, ok := w.p.dict.findString(name)
			if !ok {
				if c, ok = w.newDict.findString(name); ok {
					c += w.g0
				} else {
					b := []byte(name)
					c = w.newTerm(w.newDict.hash(b), b)
				}
			}
			cs[i] = c
		}
		if w.newConc == nil {
			w.newConc = map[int32][]int32{}
		}
		w.newConc[id-w.g0] = cs
		w.cbits[id>>6] |= 1 << (id & 63)
	}
	return id
}

func (w *batchWorker) lookup(tok []byte) centry {
	k := makeTokenKey(tok)
	if e, ok := w.cache.get(&k); ok {
		return e
	}
	var info tokInfo
	w.buf, info = normalize(w.buf, tok)
	e := centry{term: -1, info: info}
	if !info.stop {
		e.term = w.termID(w.buf)
	}
	w.cache.put(&k, e)
	return e
}

// addTerm counts one occurrence of term t, and of its concepts, in the current field.
func (w *batchWorker) addTerm(t int32) {
	w.add(t)
	if w.cbits[t>>6]&(1<<(t&63)) == 0 {
		return
	}
	var cs []int32
	if t < w.g0 {
		cs = w.p.conc[t] // read only while the workers run
	} else {
		cs = w.newConc[t-w.g0]
	}
	for _, c := range cs {
		w.add(c)
	}
}

// add counts one occurrence of term t in the current field of the current document.
func (w *batchWorker) add(t int32) {
	st := &w.ids[t]
	if st.last == w.stamp {
		if w.stTF[st.slot]>>w.shift&0xff < 0xff {
			w.stTF[st.slot] += 1 << w.shift
		}
		return
	}
	if st.last == 0 {
		w.touched = append(w.touched, t)
	}
	st.last = w.stamp
	st.slot = int32(len(w.stTerm))
	w.stTerm = append(w.stTerm, t)
	w.stTF = append(w.stTF, 1<<w.shift)
}

// take records one analysed token of the current field.
func (w *batchWorker) take(e centry) {
	if e.term >= 0 {
		w.addTerm(e.term)
		w.lens[w.fi]++
		w.field = append(w.field, e.term)
	}
	if p := w.ph.next(e.info); p != "" {
		w.buf = append(w.buf[:0], p...)
		t := w.termID(w.buf)
		w.addTerm(t)
		w.lens[w.fi]++
		w.field = append(w.field, t)
	}
}

// analyze runs the first pass over docs, writing only its own documents' slots of a, then
// sizes each term's encoded postings (in slot).
func (w *batchWorker) analyze(docs []adoc, a *analysis) {
	e := w.e
	size := 0
	for _, d := range docs {
		for _, f := range d.fields {
			size += len(f.Text)
		}
	}
	w.stTerm = make([]int32, 0, size/12+16) // about one posting per 12 bytes of text
	w.stTF = make([]uint32, 0, size/12+16)
	w.docEnd = make([]int32, len(docs))
	for i, d := range docs {
		w.stamp++
		w.lens = [MaxFields]uint32{}
		for j, f := range d.fields {
			w.fi = e.fieldIndex(f.Name)
			w.shift = uint(8 * w.fi)
			if j > 0 && f.Text == d.fields[j-1].Text {
				for _, t := range w.field { // same text as the previous field: same terms
					w.addTerm(t)
				}
				w.lens[w.fi] += uint32(len(w.field))
				continue
			}
			w.ph = phraseState{}
			w.field = w.field[:0]
			w.scan(f.Text)
		}
		var code uint32
		for f := range e.nf {
			code |= lenCode(w.lens[f]) << (8 * f)
		}
		a.lens[int(w.base)+i] = w.lens
		a.codes[int(w.base)+i] = code
		w.docEnd[i] = int32(len(w.stTerm))
	}
	// Size every term's postings (see postingLen).
	for _, t := range w.touched {
		w.ids[t].slot, w.ids[t].last = 0, 0 // last counts the postings from here on
	}
	s := 0
	for i, end := range w.docEnd {
		pos := uint64(w.base) + uint64(i)
		for ; s < int(end); s++ {
			st := &w.ids[w.stTerm[s]]
			st.slot += int32(postingLen(pos, w.stTF[s], e.nf))
			st.last++
		}
	}
}

// A plan holds its postings until the index phase, per added batch and term, as bytes:
// uvarint(number of postings), then per posting uvarint(batch position << nf | field mask),
// then for every field in the mask, lowest first, its term frequency (1–255). A posting of a
// batch of a thousand documents with the term in one field is three bytes.

func postingLen(pos uint64, tf uint32, nf int) int {
	mask := fieldMask(tf)
	n := bits.OnesCount64(mask) + 1
	for v := pos<<nf | mask; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

func appendPosting(dst []byte, pos uint64, tf uint32, nf int) []byte {
	mask := fieldMask(tf)
	dst = binary.AppendUvarint(dst, pos<<nf|mask)
	for f := mask; f != 0; f &= f - 1 {
		dst = append(dst, byte(tf>>(8*bits.TrailingZeros64(f))))
	}
	return dst
}

// nextPosting decodes the posting at the start of b (written by appendPosting) and returns
// the rest of b.
func nextPosting(b []byte, nf int) (pos uint64, tf uint32, rest []byte) {
	v, n := binary.Uvarint(b)
	b = b[n:]
	mask := v & (1<<nf - 1)
	for f := mask; f != 0; f &= f - 1 {
		tf |= uint32(b[0]) << (8 * bits.TrailingZeros64(f))
		b = b[1:]
	}
	return v >> nf, tf, b
}

// pendingPostings returns the postings b holds (see above), and their count.
func pendingPostings(b []byte) (int, []byte) {
	n, k := binary.Uvarint(b)
	return int(n), b[k:]
}

// analysis is the result of analysing a batch: per document its length codes and field
// lengths, per term (in gids, plan ids) its postings in batch order.
type analysis struct {
	codes []uint32
	lens  [][MaxFields]uint32
	gids  []int32
	start []int32 // per term: its postings are post[start[t]:start[t+1]]
	post  []byte
}

// analyze analyses docs (large batches on all processors, with the fused scanner and the
// plan's workers) and groups the postings by term, adding the batch's new terms to the
// plan's dictionary.
func (p *Plan) analyze(docs []adoc) *analysis {
	e := p.e
	a := &analysis{codes: make([]uint32, len(docs)), lens: make([][MaxFields]uint32, len(docs))}
	nw := 1
	if len(docs) >= batchParallelMin {
		nw = max(1, min(maxProcs(), len(docs)/256))
	}
	for len(p.workers) < nw {
		p.workers = append(p.workers, newBatchWorker(p))
	}
	workers := p.workers[:nw]
	g0 := int32(p.dict.len())
	var wg sync.WaitGroup
	for k, w := range workers {
		lo, hi := k*len(docs)/nw, (k+1)*len(docs)/nw
		w.base = int32(lo)
		w.begin(g0)
		if nw == 1 {
			w.analyze(docs[lo:hi], a)
			break
		}
		wg.Go(func() { w.analyze(docs[lo:hi], a) })
	}
	wg.Wait()

	// The workers' new terms join the plan's dictionary (in worker order, so the same input
	// gives the same ids).
	// No worker's new term is in the plan's dictionary (which nobody wrote while they ran):
	// a term is only looked up in the earlier workers' new terms, which are few.
	for k, w := range workers {
		w.gmap = w.gmap[:0]
		for i := range w.newDict.len() {
			term := w.newDict.get(int32(i))
			h := p.dict.hash(term)
			g := int32(-1)
			for _, o := range workers[:k] {
				if j, ok := o.newDict.findHashed(h, term); ok {
					g = o.gmap[j]
					break
				}
			}
			if g < 0 {
				g = p.dict.pushHashed(h, term)
			}
			w.gmap = append(w.gmap, g)
		}
	}
	for _, w := range workers {
		for i, cs := range w.newConc {
			g := w.gmap[i]
			if cs == nil || p.conc[g] != nil {
				continue
			}
			gs := make([]int32, len(cs))
			for j, c := range cs {
				gs[j] = w.plan(c)
			}
			p.conc[g] = gs
			for int(g)>>6 >= len(p.cbits) {
				p.cbits = append(p.cbits, 0)
			}
			p.cbits[g>>6] |= 1 << (g & 63)
		}
	}

	// The batch's terms, and the bytes of each one's postings. Term i's postings occupy
	// [start[i], start[i+1]); each worker's cursor for a term starts after the earlier
	// workers' postings of it, so postings stay in batch order.
	pidx := make([]int32, p.dict.len()) // plan id → 1 + its index in a.gids
	most := 0                           // the batch's terms are at most the workers' terms
	for _, w := range workers {
		most += len(w.touched)
	}
	a.gids = make([]int32, 0, most)
	size, count := make([]int32, 0, most), make([]int32, 0, most)
	for _, w := range workers {
		for _, t := range w.touched {
			g := w.plan(t)
			if pidx[g] == 0 {
				a.gids = append(a.gids, g)
				size = append(size, 0)
				count = append(count, 0)
				pidx[g] = int32(len(a.gids))
			}
			size[pidx[g]-1] += w.ids[t].slot
			count[pidx[g]-1] += w.ids[t].last
		}
	}
	a.start = make([]int32, len(a.gids)+1)
	var head [binary.MaxVarintLen32]byte
	for i, n := range size {
		h := int32(len(binary.AppendUvarint(head[:0], uint64(count[i]))))
		a.start[i+1] = a.start[i] + h + n
		size[i] = a.start[i] + h // from here on, the next free byte of term i
	}
	for _, w := range workers {
		for _, t := range w.touched {
			i := pidx[w.plan(t)] - 1
			n := w.ids[t].slot
			w.ids[t].slot = size[i] // the worker's cursor
			size[i] += n
		}
	}
	a.post = make([]byte, a.start[len(a.gids)])
	for i, n := range count {
		binary.AppendUvarint(a.post[a.start[i]:a.start[i]], uint64(n))
	}
	scatter := func(w *batchWorker) {
		s := 0
		for i, end := range w.docEnd {
			pos := uint64(w.base) + uint64(i)
			for ; s < int(end); s++ {
				st := &w.ids[w.stTerm[s]]
				st.slot += int32(len(appendPosting(a.post[st.slot:st.slot], pos, w.stTF[s], e.nf)))
			}
		}
	}
	if nw == 1 {
		scatter(workers[0])
	} else {
		for _, w := range workers {
			wg.Go(func() { scatter(w) })
		}
		wg.Wait()
	}
	for _, w := range workers {
		w.end()
	}
	return a
}

// plan returns the plan id of worker id t, once the Add's terms are merged.
func (w *batchWorker) plan(t int32) int32 {
	if t >= w.g0 {
		return w.gmap[t-w.g0]
	}
	return t
}

// end closes an Add: the cache's entries get plan ids (and, when it is large, it keeps only
// the tokens of this Add), and the per-term counts go back to zero.
func (w *batchWorker) end() {
	prune := w.cache.used > w.p.keep
	w.cache.update(func(v *centry) bool {
		if v.term < 0 {
			return true
		}
		keep := !prune || w.ids[v.term].last != 0
		v.term = w.plan(v.term)
		return keep
	})
	// What is by id or by document goes: only the cache is kept from Add to Add (a bulk
	// load's other phases should not pay for the workers in memory).
	w.ids, w.touched, w.stTerm, w.stTF, w.docEnd, w.field = nil, nil, nil, nil, nil, nil
	w.lastNew, w.lastSize = w.newDict.len(), len(w.newDict.text)
	w.newDict, w.newConc, w.gmap = nil, nil, nil
}

// scan is tokenizer.each fused with the surface cache for the common case, a run of ASCII
// lowercase letters and digits that is already cached: it is looked up in place, with no
// copy and no callback. Everything else takes the general path.
func (w *batchWorker) scan(s string) {
	n := len(s)
	for i := 0; i < n; {
		cl := byteClass[s[i]]
		if cl == clsSep {
			i++
			continue
		}
		if cl == clsUpper {
			// A capitalised word (sentence start, title): lowercase it into a buffer.
			j := i + 1
			for j < n && (byteClass[s[j]] == clsLower || byteClass[s[j]] == clsDigit) {
				j++
			}
			if l := j - i; (j == n || byteClass[s[j]] == clsSep) && l <= maxTokenLen {
				if l >= 2 {
					tok := append(w.capBuf[:0], s[i]+('a'-'A'))
					tok = append(tok, s[i+1:j]...)
					w.take(w.lookup(tok))
				}
				i = j
				continue
			}
		}
		if cl != clsLower && cl != clsDigit {
			// Let the general tokenizer take the whole run.
			start := i
			ascii := true
			for i < n && (byteClass[s[i]] != clsSep || s[i] >= utf8.RuneSelf) {
				if s[i] < utf8.RuneSelf {
					i++
					continue
				}
				ascii = false
				r, size := utf8.DecodeRuneInString(s[i:])
				if runeClass(r) == clsSep {
					break
				}
				i += size
			}
			if i == start { // a non-ASCII separator
				_, size := utf8.DecodeRuneInString(s[i:])
				i += size
				continue
			}
			w.general(s[start:i], ascii)
			continue
		}
		start := i
		for i < n && (byteClass[s[i]] == clsLower || byteClass[s[i]] == clsDigit) {
			i++
		}
		if i < n && byteClass[s[i]] != clsSep {
			// The run goes on with capitals, underscores or non-ASCII: general path.
			ascii := true
			for i < n && (byteClass[s[i]] != clsSep || s[i] >= utf8.RuneSelf) {
				if s[i] < utf8.RuneSelf {
					i++
					continue
				}
				ascii = false
				r, size := utf8.DecodeRuneInString(s[i:])
				if runeClass(r) == clsSep {
					break
				}
				i += size
			}
			w.general(s[start:i], ascii)
			continue
		}
		if l := i - start; l >= 2 && l <= maxTokenLen {
			if e, ok := w.cache.getAt(s, start, i); ok {
				w.take(e)
			} else {
				w.tz.each(s[start:i], w.emit)
			}
		}
	}
}

// general analyses a run of letters, digits and underscores that is not all lowercase: one
// identifier, which an ASCII run is (see tokenizer.each).
func (w *batchWorker) general(run string, ascii bool) {
	if ascii {
		w.tz.splitASCII(run, w.emit)
		return
	}
	w.tz.each(run, w.emit)
}
