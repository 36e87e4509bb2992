package textindex

import (
	"slices"
	"sync"
	"unicode/utf8"
)

// batchParallelMin is the batch size from which AddBatch analyses documents in parallel and
// lays out posting lists in one pass; smaller batches go through the incremental path.
const batchParallelMin = 1024

// AddBatch indexes many documents at once; a document whose id is already indexed is
// replaced, and within the batch the last document with a given id wins. Large batches are
// analysed on all processors: this is the path for rebuilding an index when a vault opens.
func (ix *Index) AddBatch(docs []Doc) {
	if len(docs) == 0 {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.materialize()
	if len(docs) < batchParallelMin {
		for _, d := range docs {
			ix.addLocked(d.ID, d.Fields)
		}
	} else {
		ix.addParallel(docs)
	}
	ix.afterWrite()
}

// batchWorker analyses a contiguous chunk of a batch with its own term dictionary. Its
// postings go to a flat stream, document by document (sequential writes); scattering them
// into per-term lists is deferred to one tight pass once every list's size is known.
type batchWorker struct {
	ix     *Index
	base   int32 // ordinal of the chunk's first document
	tz     tokenizer
	buf    []byte
	cache  surfaceTable
	dict   map[string]int32
	terms  []string
	concpt [][]int32 // per term: its concept terms
	df     []int32
	last   []int32 // per term: ordinal+1 of the last document it occurred in
	slot   []int32 // per term: stream position of that posting
	stTerm []int32
	stTF   []uint32
	docEnd []int32 // per document of the chunk: end of its postings in the stream
	totals [MaxFields]uint64

	// Current document and field.
	ord   int32
	fi    int
	shift uint
	ph    phraseState
	lens  [MaxFields]uint32
	emit  func(tok []byte)
	// capBuf holds a lowercased capitalised word, with the slack packToken wants.
	capBuf [maxTokenLen + 16]byte
}

func (w *batchWorker) termID(term []byte) int32 {
	if id, ok := w.dict[string(term)]; ok {
		return id
	}
	return w.newTerm(string(term))
}

func (w *batchWorker) newTerm(s string) int32 {
	id := int32(len(w.terms))
	w.dict[s] = id
	w.terms = append(w.terms, s)
	w.concpt = append(w.concpt, nil)
	w.df = append(w.df, 0)
	w.last = append(w.last, 0)
	w.slot = append(w.slot, 0)
	if gs := w.ix.concepts[s]; len(gs) > 0 {
		cs := make([]int32, len(gs))
		for i, g := range gs {
			name := w.ix.cnames[g]
			c, ok := w.dict[name]
			if !ok {
				c = w.newTerm(name)
			}
			cs[i] = c
		}
		w.concpt[id] = cs
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
	w.add(t, w.ord, w.shift)
	for _, c := range w.concpt[t] {
		w.add(c, w.ord, w.shift)
	}
}

// add counts one occurrence of term t in field slot shift of document ord.
func (w *batchWorker) add(t, ord int32, shift uint) {
	if w.last[t] == ord+1 {
		s := w.slot[t]
		if w.stTF[s]>>shift&0xff < 0xff {
			w.stTF[s] += 1 << shift
		}
		return
	}
	w.last[t] = ord + 1
	w.slot[t] = int32(len(w.stTerm))
	w.stTerm = append(w.stTerm, t)
	w.stTF = append(w.stTF, 1<<shift)
	w.df[t]++
}

// take records one analysed token of the current field.
func (w *batchWorker) take(e centry) {
	if e.term >= 0 {
		w.addTerm(e.term)
		w.lens[w.fi]++
	}
	if p := w.ph.next(e.info); p != "" {
		w.buf = append(w.buf[:0], p...)
		w.addTerm(w.termID(w.buf))
		w.lens[w.fi]++
	}
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
			for i < n && (byteClass[s[i]] != clsSep || s[i] >= utf8.RuneSelf) {
				if s[i] < utf8.RuneSelf {
					i++
					continue
				}
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
			w.tz.each(s[start:i], w.emit)
			continue
		}
		start := i
		for i < n && (byteClass[s[i]] == clsLower || byteClass[s[i]] == clsDigit) {
			i++
		}
		if i < n && byteClass[s[i]] != clsSep {
			// The run goes on with capitals, underscores or non-ASCII: general path.
			for i < n && (byteClass[s[i]] != clsSep || s[i] >= utf8.RuneSelf) {
				if s[i] < utf8.RuneSelf {
					i++
					continue
				}
				r, size := utf8.DecodeRuneInString(s[i:])
				if runeClass(r) == clsSep {
					break
				}
				i += size
			}
			w.tz.each(s[start:i], w.emit)
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

// analyze runs the first pass over docs. It writes only the chunk's own per-document slots of
// the index and reads nothing that changes meanwhile.
func (w *batchWorker) analyze(docs []Doc) {
	ix := w.ix
	size := 0
	for _, d := range docs {
		for _, f := range d.Fields {
			size += len(f.Text)
		}
	}
	w.stTerm = make([]int32, 0, size/12+16) // about one posting per 12 bytes of text
	w.stTF = make([]uint32, 0, size/12+16)
	w.docEnd = make([]int32, len(docs))
	w.emit = func(tok []byte) { w.take(w.lookup(tok)) }
	for i, d := range docs {
		w.ord = w.base + int32(i)
		if ix.isDead(w.ord) { // superseded by a later document of the same batch
			w.docEnd[i] = int32(len(w.stTerm))
			continue
		}
		w.lens = [MaxFields]uint32{}
		for _, f := range d.Fields {
			w.fi = ix.fieldIndex(f.Name)
			w.shift = uint(8 * w.fi)
			w.ph = phraseState{}
			w.scan(f.Text)
		}
		var code uint32
		for f := range ix.nf {
			code |= lenCode(w.lens[f]) << (8 * f)
			w.totals[f] += uint64(w.lens[f])
		}
		ix.lens[w.ord] = w.lens
		ix.codes[w.ord] = code
		w.docEnd[i] = int32(len(w.stTerm))
	}
}

// addParallel is AddBatch for large batches: analyse chunks in parallel, merge the chunk
// dictionaries, lay out every term's new postings contiguously in one arena, let each chunk
// scatter its stream into its own disjoint ranges in parallel, and finally attach the arena
// ranges to the lists (appending where a list already had postings).
func (ix *Index) addParallel(docs []Doc) {
	base := ix.newOrdinals(len(docs))
	for i, d := range docs {
		ord := base + int32(i)
		if old, ok := ix.byID[d.ID]; ok {
			ix.removeOrd(old)
		}
		ix.ids[ord] = d.ID
		ix.byID[d.ID] = ord
	}

	nw := max(1, min(maxProcs(), len(docs)/256))
	workers := make([]*batchWorker, nw)
	var wg sync.WaitGroup
	for k := range nw {
		lo, hi := k*len(docs)/nw, (k+1)*len(docs)/nw
		w := &batchWorker{ix: ix, base: base + int32(lo), dict: make(map[string]int32, 4096)}
		workers[k] = w
		wg.Go(func() { w.analyze(docs[lo:hi]) })
	}
	wg.Wait()

	// Merge the dictionaries and count each term's new postings.
	gids := make([][]int32, nw)
	for k, w := range workers {
		for f := range ix.nf {
			ix.totals[f] += w.totals[f]
		}
		gids[k] = make([]int32, len(w.terms))
		for lt, term := range w.terms {
			gids[k][lt] = ix.termIDString(term)
		}
	}
	count := make([]int32, len(ix.posts))
	for k, w := range workers {
		for lt, g := range gids[k] {
			count[g] += w.df[lt]
		}
	}
	// Arena layout: term g's new postings occupy [start[g], start[g]+count[g]); each chunk's
	// cursor for a term starts after the earlier chunks' postings of that term.
	start := make([]int32, len(ix.posts))
	total := int32(0)
	var touched []int32
	for g, c := range count {
		if c > 0 {
			start[g] = total
			total += c
			touched = append(touched, int32(g))
		}
	}
	cursors := make([][]int32, nw)
	next := slices.Clone(start)
	for k, w := range workers {
		cur := make([]int32, len(w.terms))
		for lt, g := range gids[k] {
			cur[lt] = next[g]
			next[g] += w.df[lt]
		}
		cursors[k] = cur
	}
	docArena := make([]int32, total)
	tfArena := make([]uint32, total)
	for k, w := range workers {
		wg.Go(func() {
			cur := cursors[k]
			start := int32(0)
			for i, end := range w.docEnd {
				ord := w.base + int32(i)
				for s := start; s < end; s++ {
					lt := w.stTerm[s]
					p := cur[lt]
					cur[lt]++
					docArena[p] = ord
					tfArena[p] = w.stTF[s]
				}
				start = end
			}
		})
	}
	wg.Wait()
	for k := range workers {
		workers[k] = nil // let the streams go before the lists are finished
	}

	oldLen := make([]int, len(touched))
	for i, g := range touched {
		pl := &ix.posts[g]
		oldLen[i] = len(pl.docs)
		lo, hi := start[g], start[g]+count[g]
		if oldLen[i] == 0 {
			pl.docs, pl.tfs = docArena[lo:hi:hi], tfArena[lo:hi:hi]
		} else {
			pl.docs = append(pl.docs, docArena[lo:hi]...)
			pl.tfs = append(pl.tfs, tfArena[lo:hi]...)
		}
	}

	if ix.driftExceeded() {
		ix.resetBounds()
		return
	}
	parallelFor(len(touched), 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ix.computeBounds(&ix.posts[touched[i]], oldLen[i]>>blockShift)
		}
	})
}
