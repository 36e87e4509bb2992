package textindex

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Coverage is absolute: the only document matching one of two query terms
// is the best Search hit, but covers half of the query.
func TestCoverageCountsQueryTermsTheDocumentHas(t *testing.T) {
	t.Parallel()
	ix := New(Options{})
	ix.Add(1, Title("React hooks"), Body("useState returns a value and a setter; useEffect runs after render."))
	ix.Add(2, Title("Release checklist"), Body("Cut releases from the release branch after review."))
	ix.Add(3, Title("Defect triage"), Body("Every defect gets a test."))

	hits := ix.Search("release hooks", 10, nil)
	assert.Len(t, hits, 2)

	cases := []struct {
		query   string
		id      uint64
		covered float64
		terms   int
	}{
		{"release hooks", 1, 1, 2},         // hooks only
		{"release hooks", 2, 1, 2},         // release only
		{"react hooks useEffect", 1, 5, 5}, // useEffect is also use + effect
		{"the release branch", 2, 2, 2},    // "the" is a stop word
		{"bug", 3, 0.5, 1},                 // only through its concept group (defect)
		{"relea", 2, prefixWeight, 1},      // a prefix of an indexed term
		{"checklsit", 2, fuzzyWeight, 1},   // one typo away
		{"kubernetes", 1, 0, 1},            // nothing
		{"", 1, 0, 0},                      // no terms
		{"release", 99, 0, 0},              // unknown document
	}
	for _, c := range cases {
		covered, terms := ix.Coverage(c.query, c.id)
		assert.InDelta(t, c.covered, covered, 1e-9, "%q in %d", c.query, c.id)
		assert.Equal(t, c.terms, terms, "%q in %d", c.query, c.id)
	}

	assert.True(t, ix.Remove(2))
	covered, terms := ix.Coverage("release", 2)
	assert.Zero(t, covered, "a removed document covers nothing")
	assert.Zero(t, terms)
}

func TestCoverageShare(t *testing.T) {
	t.Parallel()
	assert.InDelta(t, 0.5, CoverageShare(1, 2, 0, 8), 1e-9, "one of two query terms")
	assert.InDelta(t, 1, CoverageShare(3, 20, 3, 8), 1e-9, "a three-term note wholly inside a long query")
	assert.InDelta(t, 0.5, CoverageShare(4, 20, 0, 8), 1e-9, "a long doc with 4 of a long query's terms")
	assert.InDelta(t, 1, CoverageShare(9, 20, 0, 8), 1e-9, "capped at 1")
	assert.Zero(t, CoverageShare(0, 2, 0, 8))
	assert.Zero(t, CoverageShare(1, 0, 0, 8), "no query terms")
	assert.Equal(t, 3, DistinctTerms("Releases are cut from release branches"))
}
