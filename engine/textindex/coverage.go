package textindex

import "slices"

// Coverage says how much of query the document id contains, on an absolute scale that does
// not depend on the other documents (a Search score is only comparable within one index and
// is usually read relative to the best hit, so a weak best hit still looks perfect). Each
// distinct query term, analysed as Search analyses it, counts 1 when the document has it,
// the synonym weight (0.5 by default) when it only has another member of the term's concept
// group, and the prefix or typo weight (0.6, 0.5) when a term unknown to the index only
// matches through those fallbacks. covered is that sum, terms the number of distinct query
// terms; 0, 0 for an empty query or an unknown document. It costs one binary search per
// query term in the term's posting list.
func (ix *Index) Coverage(query string, id uint64) (covered float64, terms int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	ord, ok := ix.byID[id]
	if !ok || ix.isDead(ord) {
		return 0, 0
	}
	s := ix.scratch.Get().(*searchScratch)
	ix.expandQuery(s, query)
	terms = len(s.lits)
	for _, lit := range s.lits {
		best := 0.0
		if t, ok := ix.dict[lit]; ok {
			if ix.hasPosting(t, ord) {
				best = 1
			}
		} else if ix.fuzzy {
			s.terms = s.terms[:0]
			ix.fallback(s, lit)
			for _, q := range s.terms {
				if q.weight > best && ix.hasPosting(q.id, ord) {
					best = q.weight
				}
			}
		}
		if best < ix.synWeight {
			for _, g := range ix.concepts[lit] {
				if t, ok := ix.dict[ix.cnames[g]]; ok && ix.hasPosting(t, ord) {
					best = ix.synWeight
					break
				}
			}
		}
		covered += best
	}
	ix.scratch.Put(s)
	return covered, terms
}

// hasPosting reports whether term t occurs in the document at ord.
func (ix *Index) hasPosting(t int32, ord int32) bool {
	_, found := slices.BinarySearch(ix.postings(t).docs, ord)
	return found
}
