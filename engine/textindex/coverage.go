package textindex

import "slices"

// Coverage says how much of query the document id contains, on an absolute scale that does
// not depend on the other documents (a Search score is only comparable within one index and
// is usually read relative to the best hit, so a weak best hit still looks perfect). Each
// distinct query term, analysed as Search analyses it, counts 1 when the document has it,
// the synonym weight (0.5 by default) when it only has another member of the term's concept
// group, and the prefix or typo weight (0.6, 0.5) when a term unknown to the index only
// matches through those fallbacks. covered is that sum, terms the number of distinct query
// terms; 0, 0 for an empty query or an unknown document. It reads one block of each
// expanded term's posting list.
//
// Unlike [Hit.Coverage] (the share of the query's words in a hit's key fields, any field
// here) it weighs fallbacks and synonyms, and it is asked about any document.
func (ix *Index) Coverage(query string, id uint64) (covered float64, terms int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if _, ok := ix.docs[id]; !ok {
		return 0, 0
	}
	covered, terms, err := ix.eng.Coverage(&ix.st, query, id)
	if err != nil {
		return 0, 0 // a MemStore holds only what this engine wrote
	}
	return covered, terms
}

// Coverage is [Index.Coverage] over st, for a document id st holds.
func (e *Engine) Coverage(st Store, query string, id uint64) (covered float64, terms int, err error) {
	s := e.scratch.Get().(*searchScratch)
	defer e.scratch.Put(s)
	s.spanTerm, s.spans = "", s.spans[:0] // they alias another transaction's values
	if err := e.expandQuery(s, st, query); err != nil {
		return 0, 0, err
	}
	has := func(term string) (bool, error) {
		_, _, found, err := e.lookupPosting(s, st, term, id)
		return found, err
	}
	for i, lit := range s.lits {
		best := 0.0
		for _, qt := range s.terms {
			if qt.lit != i || qt.weight <= best {
				continue
			}
			ok, err := has(qt.term)
			if err != nil {
				return 0, 0, err
			}
			if ok {
				best = qt.weight
			}
		}
		if best < e.synWeight {
			for _, g := range e.concepts[lit] {
				ok, err := has(e.cnames[g])
				if err != nil {
					return 0, 0, err
				}
				if ok {
					best = e.synWeight
					break
				}
			}
		}
		covered += best
	}
	return covered, len(s.lits), nil
}

// CoverageShare turns a Coverage into a 0–1 share: covered over the query's terms, where a
// document is held to at most docTerms of them (its own distinct terms, when > 0: a
// one-line note cannot contain a paragraph-long query) and to at most atMost (when > 0: a
// long document containing that many query terms covers a long query fully).
func CoverageShare(covered float64, terms, docTerms, atMost int) float64 {
	n := terms
	if docTerms > 0 {
		n = min(n, docTerms)
	}
	if atMost > 0 {
		n = min(n, atMost)
	}
	if n <= 0 || covered <= 0 {
		return 0
	}
	return min(1, covered/float64(n))
}

// DistinctTerms counts the distinct index terms of text (as Analyze gives them).
func DistinctTerms(text string) int {
	terms := Analyze(text)
	slices.Sort(terms)
	return len(slices.Compact(terms))
}
