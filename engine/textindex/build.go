package textindex

import (
	"slices"
	"sync"
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
	if len(docs) < batchParallelMin {
		for _, d := range docs {
			ix.addLocked(d.ID, d.Fields)
		}
	} else {
		ix.addParallel(docs)
	}
	ix.afterWrite()
}

// batchWorker analyses a contiguous chunk of a batch with its own term dictionary into its
// own posting lists (ordinals are global, so the chunks' lists only need concatenating).
type batchWorker struct {
	ix     *Index
	base   int32 // ordinal of the chunk's first document
	tz     tokenizer
	buf    []byte
	cache  surfaceTable
	dict   map[string]int32
	terms  []string
	lists  []localList
	totals [MaxFields]uint64
}

type localList struct {
	docs []int32
	tfs  []uint32
}

func (w *batchWorker) termID(term []byte) int32 {
	if id, ok := w.dict[string(term)]; ok {
		return id
	}
	id := int32(len(w.terms))
	s := string(term)
	w.dict[s] = id
	w.terms = append(w.terms, s)
	w.lists = append(w.lists, localList{})
	return id
}

func (w *batchWorker) lookup(tok []byte) centry {
	h := hashToken(tok)
	if e, ok := w.cache.get(tok, h); ok {
		return e
	}
	var info tokInfo
	w.buf, info = normalize(w.buf, tok)
	e := centry{term: -1, info: info}
	if !info.stop {
		e.term = w.termID(w.buf)
	}
	w.cache.put(tok, h, e)
	return e
}

// add counts one occurrence of term t in field slot shift of document ord.
func (w *batchWorker) add(t, ord int32, shift uint) {
	l := &w.lists[t]
	if n := len(l.docs); n > 0 && l.docs[n-1] == ord {
		if l.tfs[n-1]>>shift&0xff < 0xff {
			l.tfs[n-1] += 1 << shift
		}
		return
	}
	l.docs = append(l.docs, ord)
	l.tfs = append(l.tfs, 1<<shift)
}

// analyze indexes docs into the worker's lists. It writes only the chunk's own per-document
// slots of the index and reads nothing that changes meanwhile.
func (w *batchWorker) analyze(docs []Doc) {
	ix := w.ix
	for i, d := range docs {
		ord := w.base + int32(i)
		if ix.isDead(ord) { // superseded by a later document of the same batch
			continue
		}
		var lens [MaxFields]uint32
		for _, f := range d.Fields {
			fi := ix.fieldIndex(f.Name)
			shift := uint(8 * fi)
			var ph phraseState
			w.tz.each(f.Text, func(tok []byte) {
				e := w.lookup(tok)
				if e.term >= 0 {
					w.add(e.term, ord, shift)
					lens[fi]++
				}
				if p := ph.next(e.info); p != "" {
					w.buf = append(w.buf[:0], p...)
					w.add(w.termID(w.buf), ord, shift)
					lens[fi]++
				}
			})
		}
		var code uint32
		for f := range ix.nf {
			code |= lenCode(lens[f]) << (8 * f)
			w.totals[f] += uint64(lens[f])
		}
		ix.lens[ord] = lens
		ix.codes[ord] = code
	}
}

// addParallel is AddBatch for large batches: analyse chunks in parallel, each into its own
// lists, then merge the dictionaries and concatenate every term's chunk lists in chunk order
// into one exactly sized allocation.
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

	// Merge the dictionaries: parts[g] lists the chunk lists of global term g, in chunk order.
	type part struct{ k, lt int32 }
	parts := map[int32][]part{}
	var touched []int32
	for k, w := range workers {
		for f := range ix.nf {
			ix.totals[f] += w.totals[f]
		}
		for lt, term := range w.terms {
			if len(w.lists[lt].docs) == 0 {
				continue
			}
			g := ix.termIDString(term)
			if _, ok := parts[g]; !ok {
				touched = append(touched, g)
			}
			parts[g] = append(parts[g], part{int32(k), int32(lt)})
		}
	}
	oldLen := make([]int, len(touched))
	fresh := 0
	for i, g := range touched {
		oldLen[i] = len(ix.posts[g].docs)
		if oldLen[i] == 0 {
			for _, p := range parts[g] {
				fresh += len(workers[p.k].lists[p.lt].docs)
			}
		}
	}
	// Carve fresh lists out of one arena, then copy in parallel.
	docArena := make([]int32, fresh)
	tfArena := make([]uint32, fresh)
	for i, g := range touched {
		n := oldLen[i]
		for _, p := range parts[g] {
			n += len(workers[p.k].lists[p.lt].docs)
		}
		pl := &ix.posts[g]
		if oldLen[i] == 0 {
			pl.docs, docArena = docArena[:0:n], docArena[n:]
			pl.tfs, tfArena = tfArena[:0:n], tfArena[n:]
		} else {
			pl.docs = slices.Grow(pl.docs, n-oldLen[i])
			pl.tfs = slices.Grow(pl.tfs, n-oldLen[i])
		}
	}
	parallelFor(len(touched), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pl := &ix.posts[touched[i]]
			for _, p := range parts[touched[i]] {
				l := &workers[p.k].lists[p.lt]
				pl.docs = append(pl.docs, l.docs...)
				pl.tfs = append(pl.tfs, l.tfs...)
				*l = localList{}
			}
		}
	})

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

// termIDString is termID for a string key.
func (ix *Index) termIDString(term string) int32 {
	if id, ok := ix.dict[term]; ok {
		return id
	}
	id := int32(len(ix.terms))
	ix.dict[term] = id
	ix.terms = append(ix.terms, term)
	ix.posts = append(ix.posts, plist{})
	return id
}
