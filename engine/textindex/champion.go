package textindex

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
)

// Champion lists (tiered postings, as in Manning, Raghavan & Schütze, "Introduction to
// Information Retrieval", §7.1.3): a term whose posting list is longer than
// champThreshold is searched, in unfiltered searches asking for at most champMin/champRatio
// results, through a list of its best postings by their value under the reference
// normalisation, instead of through all of them. Frequent terms have a low idf, so the
// postings left out contribute little; rare terms and small indexes stay exact, and the
// documents selected are rescored over the full lists (see rescore).
//
// The lists are persisted (postings key term 0x01: the selection floor as float64 LE, then
// a chunk with base 0) and kept current by every write, so no search ever sorts a posting
// list: Apply removes the documents that leave the term and inserts every new posting
// whose value reaches the floor. Since the list then holds every posting above the floor
// and the floor was the champKeep-th best value when the list was selected, the list
// contains the champMin best postings as long as it holds at least champMin of them. When
// it falls below that, grows past champMax, or the reference normalisation moves, the list
// is selected again from the full posting list, in linear time (quickselect).
const (
	champThreshold = 4096
	champMin       = 2048
	champKeep      = 2560
	champMax       = 4 * champMin
	champRatio     = 8
)

// champions keeps term's champion list in step with the postings just written (w.adds,
// and w.gone: the docs whose posting left or changed).
func (w *writer) champions(term string, rec *termRec) error {
	st := w.st
	w.ckey = championKey(w.ckey[:0], term) // the stores copy keys
	key := w.ckey
	if rec.df <= champThreshold {
		if rec.flags&termChampion != 0 {
			rec.flags &^= termChampion
			return st.DeletePostings(key)
		}
		return nil
	}
	if rec.flags&termChampion == 0 {
		rec.flags |= termChampion
		return w.selectChampions(term, rec, key)
	}
	v := w.st.Postings(key)
	if len(v) < 8 {
		return w.selectChampions(term, rec, key)
	}
	floor := math.Float64frombits(binary.LittleEndian.Uint64(v))
	var keep []posting
	for _, p := range w.adds {
		if w.ref.v(p.tf, p.code) >= floor {
			keep = append(keep, p)
		}
	}
	if len(w.gone) == 0 && len(keep) == 0 {
		return nil // nothing reaches the list
	}
	ch, ok := parseChunk(v[8:], 0)
	if !ok || !(floor >= 0) {
		return w.selectChampions(term, rec, key)
	}
	if len(w.gone) == 0 && keep[0].doc > ch.last(ch.nb-1) {
		if ch.n+len(keep) > champMax {
			return w.selectChampions(term, rec, key)
		}
		out := binary.LittleEndian.AppendUint64(make([]byte, 0, 8), math.Float64bits(floor))
		return st.PutPostings(key, append(out, appendChunk(&ch, keep, &w.ref)...))
	}
	list, ok := ch.decodePostings(w.e.nf, nil)
	if !ok {
		return w.selectChampions(term, rec, key)
	}
	if len(w.gone) > 0 {
		gone := w.gone
		slices.Sort(gone)
		list = slices.DeleteFunc(list, func(p posting) bool {
			_, found := slices.BinarySearch(gone, p.doc)
			return found
		})
	}
	if len(keep) > 0 {
		list = append(list, keep...)
		slices.SortFunc(list, func(a, b posting) int { return cmp.Compare(a.doc, b.doc) })
	}
	if len(list) < champMin || len(list) > champMax {
		return w.selectChampions(term, rec, key)
	}
	return st.PutPostings(key, encodeChampions(floor, list, &w.ref))
}

func encodeChampions(floor float64, list []posting, ref *normTable) []byte {
	b := binary.LittleEndian.AppendUint64(make([]byte, 0, 16+4*len(list)), math.Float64bits(floor))
	return encodeChunk(b, 0, list, ref)
}

// selectChampions selects term's champKeep best postings from its full list (w.adds for a
// new term, else read back from the store; rec is the term's record as written) and stores
// them.
func (w *writer) selectChampions(term string, rec *termRec, key []byte) error {
	all := w.adds
	if !w.whole {
		var err error
		if all, err = w.readAll(term, rec); err != nil {
			return err
		}
	}
	if len(all) <= champThreshold {
		return w.st.DeletePostings(key)
	}
	vals := slices.Grow(w.vals[:0], len(all))[:len(all)]
	w.vals = vals
	for i, p := range all {
		vals[i] = valued{v: w.ref.v(p.tf, p.code), i: int32(i)}
	}
	top := selectTop(vals, champKeep)
	// The selected positions in a bitset, read back in order: all is in document order, so
	// this lists the champions by document without sorting them (a sort by document was
	// most of the selection's cost in a bulk load).
	floor := math.Inf(1)
	sel := slices.Grow(w.sel[:0], (len(all)+63)/64)[:(len(all)+63)/64]
	clear(sel)
	w.sel = sel
	for _, x := range top {
		floor = min(floor, x.v)
		sel[x.i>>6] |= 1 << (x.i & 63)
	}
	list := make([]posting, 0, len(top))
	for wi, word := range sel {
		for ; word != 0; word &= word - 1 {
			list = append(list, all[wi<<6|bits.TrailingZeros64(word)])
		}
	}
	return w.st.PutPostings(key, encodeChampions(floor, list, &w.ref))
}

// readAll decodes every posting of term, whose record is rec.
func (w *writer) readAll(term string, rec *termRec) ([]posting, error) {
	all := w.all[:0]
	defer func() { w.all = all[:0] }()
	bad := false
	forChunks(w.st, term, rec, func(first uint64, v []byte) bool {
		ch, ok := parseTermChunk(v, first)
		if ok {
			all, ok = ch.decodePostings(w.e.nf, all)
		}
		bad = !ok
		return ok
	})
	if bad {
		return nil, corruptf("postings of %q", term)
	}
	return all, nil
}

// valued is a posting's value and position, for selection.
type valued struct {
	v float64
	i int32
}

// better orders by value, highest first, then by position (the older document wins ties).
func better(a, b valued) bool { return a.v > b.v || (a.v == b.v && a.i < b.i) }

// selectTop returns the k best of vals (in no particular order), reordering vals: a
// quickselect with median-of-three pivots, linear on average. A full sort would cost
// O(n log n) per selection; this is what used to dominate a busy vault's write path.
func selectTop(vals []valued, k int) []valued {
	if k >= len(vals) {
		return vals
	}
	lo, hi := 0, len(vals) // the k-th best lies in vals[lo:hi]
	for hi-lo > 16 {
		m := lo + (hi-lo)/2
		// Median of three to the middle, as pivot.
		if better(vals[m], vals[lo]) {
			vals[m], vals[lo] = vals[lo], vals[m]
		}
		if better(vals[hi-1], vals[lo]) {
			vals[hi-1], vals[lo] = vals[lo], vals[hi-1]
		}
		if better(vals[hi-1], vals[m]) {
			vals[hi-1], vals[m] = vals[m], vals[hi-1]
		}
		pivot := vals[m]
		// Three-way partition: [lo,lt) better than pivot, [lt,gt) equal, [gt,hi) worse.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch {
			case better(vals[i], pivot):
				vals[lt], vals[i] = vals[i], vals[lt]
				lt++
				i++
			case better(pivot, vals[i]):
				gt--
				vals[i], vals[gt] = vals[gt], vals[i]
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k < gt:
			return vals[:k]
		default:
			lo = gt
		}
	}
	slices.SortFunc(vals[lo:hi], func(a, b valued) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return vals[:k]
}

// rebound rewrites every chunk's block bounds (inline chunks included) and every champion
// list under the current reference normalisation (w.ref), after it moved. It reads and
// writes in rounds, so that no write happens during an iteration.
func (w *writer) rebound() error {
	st, nf := w.st, w.e.nf
	type entry struct {
		key []byte
		ps  []posting
		rec termRec
	}
	var champs []string
	from := []byte{}
	for {
		var round []entry
		var bad error
		more := false
		st.SeekPostings(from, func(k, v []byte) bool {
			if len(round) == 512 {
				from, more = slices.Clone(k), true
				return false
			}
			term, c, isChunk := termOf(k)
			if !isChunk {
				champs = append(champs, term)
				return true
			}
			ch, ok := parseTermChunk(v, c)
			var ps []posting
			if ok {
				ps, ok = ch.decodePostings(nf, nil)
			}
			if !ok {
				bad = corruptf("postings of %q", term)
				return false
			}
			round = append(round, entry{key: slices.Clone(k), ps: ps})
			return true
		})
		if bad != nil {
			return bad
		}
		for _, en := range round {
			_, c, _ := termOf(en.key)
			if err := st.PutPostings(en.key, encodeChunk(nil, c, en.ps, &w.ref)); err != nil {
				return err
			}
		}
		if !more {
			break
		}
	}
	// The inline chunks: the bounds have a fixed size, so each stays inline.
	from = []byte{}
	for {
		var round []entry
		var bad error
		more := false
		st.SeekTerms(from, func(k, v []byte) bool {
			if bytes.Equal(k, metaKey) {
				return true
			}
			if len(round) == 512 {
				from, more = slices.Clone(k), true
				return false
			}
			rec, ok := decodeTerm(v)
			if !ok || rec.inline == nil {
				return true // a damaged record is reported by the writes and searches that read it
			}
			ch, _ := parseTermChunk(rec.inline, rec.last)
			ps, ok := ch.decodePostings(nf, nil)
			if !ok {
				bad = corruptf("postings of %q", k)
				return false
			}
			rec.inline = nil // it aliases the store's value
			round = append(round, entry{key: slices.Clone(k), ps: ps, rec: rec})
			return true
		})
		if bad != nil {
			return bad
		}
		for _, en := range round {
			en.rec.setInline(en.rec.last, encodeChunk(nil, en.rec.last, en.ps, &w.ref))
			if err := st.PutTerm(en.key, en.rec.encode()); err != nil {
				return err
			}
		}
		if !more {
			break
		}
	}
	for _, term := range champs {
		rec, _, err := lookupTerm(st, term)
		if err != nil {
			return err
		}
		if err := w.selectChampions(term, &rec, championKey(nil, term)); err != nil {
			return err
		}
	}
	return nil
}
