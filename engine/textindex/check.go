package textindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Compare reports how the index in got differs from the one in want, which is usually
// built afresh from the same documents: the index record (documents, field lengths), the
// terms and their document frequencies, and every posting. Block bounds and champion
// lists depend on the history of writes and are checked for consistency only: a bound
// never below its block's values, and a champion list holding every posting of its term
// above its floor. It returns at most limit differences.
func (e *Engine) Compare(got, want Store, limit int) []string {
	var out []string
	report := func(format string, args ...any) bool {
		if len(out) < limit {
			out = append(out, fmt.Sprintf(format, args...))
		}
		return len(out) < limit
	}
	mg, err := e.readMeta(got)
	if err != nil {
		report("index record: %v", err)
		return out
	}
	mw, err := e.readMeta(want)
	if err != nil {
		report("reference index record: %v", err)
		return out
	}
	if mg.n != mw.n || mg.totals != mw.totals {
		report("index record: %d documents, field lengths %v; want %d, %v", mg.n, mg.totals[:e.nf], mw.n, mw.totals[:e.nf])
	}
	terms := func(st Store) []string {
		var ts []string
		st.SeekTerms(nil, func(k, _ []byte) bool {
			if !bytes.Equal(k, metaKey) {
				ts = append(ts, string(k))
			}
			return true
		})
		return ts
	}
	tg, tw := terms(got), terms(want)
	for _, t := range tw {
		if _, ok := slices.BinarySearch(tg, t); !ok && !report("term %q is missing", t) {
			return out
		}
	}
	ref := e.buildNorm(mg.refAvg)
	for _, t := range tg {
		if _, ok := slices.BinarySearch(tw, t); !ok {
			if !report("term %q should not be indexed", t) {
				return out
			}
			continue
		}
		rg, okg := decodeTerm(got.Term([]byte(t)))
		rw, _ := decodeTerm(want.Term([]byte(t)))
		pg, lastg, errg := e.postingsLast(got, t, &rg, &ref)
		pw, _ := e.postingsOf(want, t, &rw, nil)
		switch {
		case !okg:
			report("term %q: record does not decode", t)
		case rg.inline != nil && hasChunks(got, t):
			report("term %q: its postings are both in its record and in the postings space", t)
		case errg != nil:
			report("term %q: %v", t, errg)
		case rg.df != rw.df || rg.df != uint64(len(pg)):
			report("term %q: document frequency %d (%d postings), want %d", t, rg.df, len(pg), rw.df)
		case !slices.Equal(pg, pw):
			report("term %q: postings differ", t)
		case rg.last != lastg:
			report("term %q: last chunk recorded at %d, found at %d", t, rg.last, lastg)
		default:
			if msg := e.checkChampions(got, t, rg, pg, &ref); msg != "" {
				report("term %q: %s", t, msg)
			}
		}
		if len(out) >= limit {
			return out
		}
	}
	return out
}

// hasChunks reports whether term has a chunk in the postings space.
func hasChunks(st Store, term string) bool {
	found := false
	forChunks(st, term, &termRec{}, func(uint64, []byte) bool { found = true; return false })
	return found
}

// postingsOf decodes every posting of term, whose record is rec; with ref, it also checks
// the block bounds.
func (e *Engine) postingsOf(st Store, term string, rec *termRec, ref *normTable) ([]posting, error) {
	all, _, err := e.postingsLast(st, term, rec, ref)
	return all, err
}

// postingsLast is postingsOf that also returns the first document of the last chunk.
func (e *Engine) postingsLast(st Store, term string, rec *termRec, ref *normTable) ([]posting, uint64, error) {
	var all []posting
	var bad error
	last := uint64(0)
	forChunks(st, term, rec, func(first uint64, v []byte) bool {
		last = first
		ch, ok := parseTermChunk(v, first)
		start := len(all)
		if ok {
			all, ok = ch.decodePostings(e.nf, all)
		}
		if !ok {
			bad = fmt.Errorf("chunk at %d does not decode", first)
			return false
		}
		if start > 0 && all[start].doc <= all[start-1].doc {
			bad = fmt.Errorf("chunk at %d overlaps the previous one", first)
			return false
		}
		if ref != nil {
			for b := range ch.nb {
				for _, p := range all[start+b<<blockShift : start+b<<blockShift+ch.blockLen(b)] {
					if ref.v(p.tf, p.code) > ch.bound(b)*boundSlack {
						bad = fmt.Errorf("chunk at %d: block %d's bound is below document %d's value", first, b, p.doc)
						return false
					}
				}
			}
		}
		return true
	})
	return all, last, bad
}

// checkChampions checks term's champion list against its postings.
func (e *Engine) checkChampions(st Store, term string, rec termRec, all []posting, ref *normTable) string {
	v := st.Postings(championKey(nil, term))
	has := rec.flags&termChampion != 0
	switch {
	case rec.df > champThreshold && (!has || v == nil):
		return "champion list missing"
	case rec.df <= champThreshold && (has || v != nil):
		return "champion list should not exist"
	case !has:
		return ""
	}
	if len(v) < 8 {
		return "champion list does not decode"
	}
	floor := math.Float64frombits(binary.LittleEndian.Uint64(v))
	ch, ok := parseChunk(v[8:], 0)
	var list []posting
	if ok {
		list, ok = ch.decodePostings(e.nf, nil)
	}
	if !ok {
		return "champion list does not decode"
	}
	if len(list) < champMin {
		return fmt.Sprintf("champion list holds %d postings, fewer than %d", len(list), champMin)
	}
	i := 0
	for _, p := range all {
		for i < len(list) && list[i].doc < p.doc {
			i++
		}
		in := i < len(list) && list[i] == p
		if ref.v(p.tf, p.code) > floor && !in {
			return fmt.Sprintf("champion list lacks document %d above its floor", p.doc)
		}
	}
	return ""
}
