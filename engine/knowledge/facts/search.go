package facts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/secrets"
	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// Recency tilts a search toward new or toward proven facts.
type Recency string

// Recency preferences (the seed's search option).
const (
	RecencyAny         Recency = "any"
	RecencyRecent      Recency = "prefer_recent"
	RecencyEstablished Recency = "prefer_established"
)

// ParseRecency reads a recency preference ("" is any).
func ParseRecency(s string) (Recency, error) {
	switch r := Recency(strings.ToLower(strings.TrimSpace(s))); r {
	case "", RecencyAny:
		return RecencyAny, nil
	case RecencyRecent, RecencyEstablished:
		return r, nil
	}
	return "", fmt.Errorf("%w: recency %q (want prefer_recent, prefer_established or any)", ErrInvalid, clip(s, 40))
}

// Search defaults (the seed's).
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 200
)

// SearchOptions tune a search. The zero value searches every scope with the
// seed's defaults: 20 results, minimum confidence 0, invalidated facts
// hidden, any recency.
type SearchOptions struct {
	// Scope is where the search stands: it sees that scope and the broader
	// ones, never narrower ones (zero: every scope).
	Scope Scope `json:"scope,omitzero"`
	// Build is the build an agent-scope search runs in (its facts are seen).
	Build string `json:"build,omitempty"`
	// Limit defaults to 20.
	Limit         int     `json:"limit,omitempty"`
	MinConfidence float64 `json:"minConfidence,omitempty"`
	// IncludeInvalidated also returns superseded, invalidated and archived
	// facts.
	IncludeInvalidated bool    `json:"includeInvalidated,omitempty"`
	Recency            Recency `json:"recency,omitempty"`
}

// Scored is a search result.
type Scored struct {
	Fact
	// Score is 0–1: text relevance (relative to the best hit) weighed by
	// confidence and the recency preference.
	Score float64 `json:"score"`
	// Coverage is how much of the query the fact contains, 0–1 on an
	// absolute scale (textindex.CoverageShare: a fact is held to its own
	// distinct terms, at most CoverageTerms).
	Coverage float64 `json:"coverage"`
	// Calibrated is the score for rankings that merge sources: coverage ×
	// (½ + ½ relevance) with the same confidence and recency weights, so the
	// best of weak matches no longer looks perfect.
	Calibrated float64 `json:"calibrated"`
}

// CoverageTerms: a fact containing this many distinct query terms covers a
// longer query fully.
const CoverageTerms = 8

// SearchResult holds the ranked facts and what could not be searched.
type SearchResult struct {
	Facts    []Scored `json:"facts"`
	Warnings []string `json:"warnings,omitempty"`
}

// Search ranks facts for a text with nova's text index (BM25 over content
// and tags, with the code-aware analyzer and synonyms) among those visible
// at opts.Scope. An unusable user-level file is a warning, never an error:
// workspace scopes keep working.
func (s *Service) Search(ctx context.Context, query string, o SearchOptions) (SearchResult, error) {
	if strings.TrimSpace(query) == "" {
		return SearchResult{}, fmt.Errorf("%w: the search text is empty", ErrInvalid)
	}
	if err := checkConfidence(o.MinConfidence); err != nil {
		return SearchResult{}, err
	}
	if o.Recency == "" {
		o.Recency = RecencyAny
	}
	if _, err := ParseRecency(string(o.Recency)); err != nil {
		return SearchResult{}, err
	}
	if o.Limit <= 0 {
		o.Limit = DefaultSearchLimit
	}
	o.Limit = min(o.Limit, MaxSearchLimit)
	warn, err := s.ensure(ctx)
	if err != nil {
		return SearchResult{}, err
	}
	chain := Chain(o.Scope, o.Build)
	now := s.now()
	s.mu.RLock()
	defer s.mu.RUnlock()
	filter := func(id uint64) bool {
		f, ok := s.mem.facts[id]
		return ok && Visible(f.Scope, chain) && f.Confidence >= o.MinConfidence &&
			(o.IncludeInvalidated || f.Status == StatusValid)
	}
	hits := s.mem.ix.Search(query, max(o.Limit*4, 40), filter)
	problem := ProblemLike(query)
	type cand struct {
		Scored
		key uint64  // the fact's index id
		rel float64 // text relevance relative to the best hit
	}
	cands := make([]cand, 0, len(hits))
	if len(hits) > 0 && hits[0].Score > 0 {
		top := hits[0].Score
		for _, h := range hits {
			f := s.mem.facts[h.ID]
			rel := h.Score / top
			w := (0.55 + 0.45*f.Confidence) * recencyFactor(f, o.Recency, now)
			if problem && f.Category == CategoryTroubleshooting {
				w = min(w*TroubleshootingBoost, 1)
			}
			cands = append(cands, cand{Scored: Scored{Fact: f, Score: round6(rel * w)}, key: h.ID, rel: rel})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Score != cands[j].Score {
			return cands[i].Score > cands[j].Score
		}
		if a, b := cands[i].Category.rank(), cands[j].Category.rank(); a != b {
			return a < b
		}
		return cands[i].ID < cands[j].ID
	})
	if len(cands) > o.Limit {
		cands = cands[:o.Limit]
	}
	// Coverage only for what is returned (it analyses each fact's text).
	out := make([]Scored, 0, len(cands))
	for _, c := range cands {
		covered, terms := s.mem.ix.Coverage(query, c.key)
		cov := textindex.CoverageShare(covered, terms, textindex.DistinctTerms(c.Content+" "+strings.Join(c.Tags, " ")), CoverageTerms)
		w := (0.55 + 0.45*c.Confidence) * recencyFactor(c.Fact, o.Recency, now)
		c.Coverage, c.Calibrated = round6(cov), round6(cov*(0.5+0.5*c.rel)*w)
		// Facts written before facts were redacted on write may hold a
		// secret; what a search serves never does.
		c.Content = secrets.Redact(c.Content)
		out = append(out, c.Scored)
	}
	return SearchResult{Facts: out, Warnings: warn}, nil
}

// TroubleshootingBoost weighs troubleshooting entries up for a query that
// reads like a problem.
const TroubleshootingBoost = 1.25

// problemWords mark a query that describes a problem.
var problemWords = []string{"error", "fail", "panic", "exception", "cannot", "can't", "unable", "undefined",
	"not found", "denied", "broken", "crash", "timeout", "timed out", "refused", "missing", "invalid"}

// ProblemLike reports whether a query reads like a problem (an error
// message, a failure): troubleshooting entries come first for it.
func ProblemLike(query string) bool {
	q := strings.ToLower(query)
	for _, w := range problemWords {
		if strings.Contains(q, w) {
			return true
		}
	}
	return false
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// recencyFactor weighs a fact by age: prefer_recent favours facts from the
// last weeks, prefer_established older facts that helped.
func recencyFactor(f Fact, r Recency, now time.Time) float64 {
	age := now.Sub(f.ValidFrom).Hours() / 24
	fresh := math.Exp(-math.Max(age, 0) / 30)
	switch r {
	case RecencyRecent:
		return 0.6 + 0.4*fresh
	case RecencyEstablished:
		return 0.6 + 0.25*(1-fresh) + 0.15*math.Min(1, float64(f.Helpful)/5)
	}
	return 1
}

// ensure brings the in-memory snapshot up to date: the workspace part when
// its change counter moved (another process wrote), the user part when the
// user file changed on disk. It returns warnings about the user file.
func (s *Service) ensure(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rev uint64
	if err := s.db.View(func(tx *bolt.Tx) error { rev = readRev(tx); return nil }); err != nil {
		return nil, fmt.Errorf("read facts: %w", err)
	}
	st := s.user.stamp()
	now := time.Now()
	// File times are coarse (a few ms on some file systems): a file written
	// just now may change again without its stamp changing, so it is
	// re-read until its stamp is older than that.
	recent := st.ok && now.Sub(st.mod) < 2*time.Second
	s.mu.RLock()
	fresh := s.mem.ready && s.mem.wsRev == rev &&
		(s.mem.userStamp == st && !recent && s.mem.userErr == nil || s.mem.userErr != nil && now.Sub(s.mem.userTried) < userRetry)
	warn := userWarning(s.mem.userErr)
	s.mu.RUnlock()
	if fresh {
		return warn, nil
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.mem.ready {
		s.mem.facts = map[uint64]Fact{}
	}
	rebuild := s.mem.ix == nil
	if !s.mem.ready || s.mem.wsRev != rev {
		var all []Fact
		if err := s.db.View(func(tx *bolt.Tx) error {
			rev = readRev(tx)
			all, _ = allFacts(tx, false)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("read facts: %w", err)
		}
		for k := range s.mem.facts {
			if k&userBit == 0 {
				delete(s.mem.facts, k)
			}
		}
		for _, f := range all {
			id, _ := parseID(f.ID)
			s.mem.facts[memKey(id)] = f
		}
		s.mem.wsRev = rev
		s.mem.rebuilds++
		rebuild = true
	}
	if !s.mem.ready || s.mem.userStamp != st || recent || s.mem.userErr != nil && now.Sub(s.mem.userTried) >= userRetry {
		var all []Fact
		err := s.user.do(true, func(db *storage.DB) error {
			st = s.user.stamp()
			return db.View(func(tx *bolt.Tx) error { all, _ = allFacts(tx, true); return nil })
		})
		switch {
		case err == nil || errors.Is(err, errNoUserFile) || s.user.path == "":
			s.mem.userErr, s.mem.userStamp = nil, st
			s.replaceUserLocked(all, rebuild)
		default:
			// Keep the last good user facts (if any) and say so.
			s.mem.userErr, s.mem.userTried = err, now
		}
	}
	if rebuild {
		docs := make([]textindex.Doc, 0, len(s.mem.facts))
		for k, f := range s.mem.facts {
			docs = append(docs, textindex.Doc{ID: k, Fields: factFields(f)})
		}
		sort.Slice(docs, func(i, j int) bool { return docs[i].ID < docs[j].ID })
		s.mem.ix = textindex.New(textindex.Options{})
		s.mem.ix.AddBatch(docs)
	}
	s.mem.ready = true
	return userWarning(s.mem.userErr), nil
}

// replaceUserLocked swaps in the user file's facts; unless the whole index
// is about to be rebuilt, only what changed is re-indexed.
func (s *Service) replaceUserLocked(all []Fact, rebuild bool) {
	keep := make(map[uint64]bool, len(all))
	for _, f := range all {
		id, _ := parseID(f.ID)
		k := memKey(id)
		keep[k] = true
		old, had := s.mem.facts[k]
		s.mem.facts[k] = f
		if !rebuild && (!had || !sameText(old, f)) {
			s.mem.ix.Upsert(k, factFields(f)...)
		}
	}
	for k := range s.mem.facts {
		if k&userBit != 0 && !keep[k] {
			delete(s.mem.facts, k)
			if !rebuild {
				s.mem.ix.Remove(k)
			}
		}
	}
}

// sameText compares what the index reads.
func sameText(a, b Fact) bool {
	return a.Content == b.Content && strings.Join(a.Tags, "\x00") == strings.Join(b.Tags, "\x00")
}

func userWarning(err error) []string {
	if err == nil {
		return nil
	}
	return []string{"user-level facts left out: " + strings.TrimPrefix(err.Error(), ErrUserUnavailable.Error()+": ")}
}
