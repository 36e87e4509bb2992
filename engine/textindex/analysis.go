package textindex

import (
	"unicode/utf8"
)

// batchParallelMin is the batch size from which analysis runs on all processors.
const batchParallelMin = 512

// batchWorker analyses a contiguous chunk of a batch with its own term dictionary. Its
// postings go to a flat stream, document by document (sequential writes); scattering them
// into per-term lists is deferred to one tight pass once every list's size is known (see
// analyzeDocs).
type batchWorker struct {
	e      *Engine
	base   int32 // batch position of the chunk's first document
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

	// Current document and field.
	ord   int32
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
	if gs := w.e.concepts[s]; len(gs) > 0 {
		cs := make([]int32, len(gs))
		for i, g := range gs {
			name := w.e.cnames[g]
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
