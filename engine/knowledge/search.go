package knowledge

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/vault"
)

// Sources of a knowledge search.
const (
	SourceVault = "vault"
	SourceFacts = "facts"
	SourceDocs  = "docs"
)

// AllSources lists the sources in their tie-break order.
var AllSources = []string{SourceFacts, SourceVault, SourceDocs}

// ErrInvalid marks a bad search (empty text, unknown source): bad usage.
var ErrInvalid = errors.New("invalid knowledge request")

// Hit is one result of a knowledge search.
type Hit struct {
	// Source is "vault", "facts" or "docs".
	Source  string `json:"source"`
	Title   string `json:"title"`
	Snippet string `json:"snippet"`
	// Score is 0–1, comparable across sources.
	Score float64 `json:"score"`
	// Ref identifies the item: "vault:12", "fact:f3", "docs:SOURCE:LIB#TOPIC".
	Ref string `json:"ref"`
}

// SourceStatus says how one source fared in a search.
type SourceStatus struct {
	Name  string `json:"name"`
	Hits  int    `json:"hits"`
	Error string `json:"error,omitempty"`
	// DurationMs is how long the source took, in milliseconds.
	DurationMs float64 `json:"durationMs"`
}

// Result is a knowledge search's answer: the merged hits, best first, and
// what went wrong with a source (a failing source never hides the others).
type Result struct {
	Query    string         `json:"query"`
	Hits     []Hit          `json:"hits"`
	Sources  []SourceStatus `json:"sources"`
	Warnings []string       `json:"warnings,omitempty"`
}

// SearchOptions tune a knowledge search.
type SearchOptions struct {
	// Limit is the most hits (default 10, at most 100).
	Limit int
	// Sources restricts the sources (nil: all).
	Sources []string
	// Scope and Build place the facts search (zero: every scope).
	Scope facts.Scope
	Build string
	// VaultTypes restricts vault hits to these node types (nil: all).
	VaultTypes []vault.NodeType
	// ExcludeVault drops these vault nodes (already in the prompt).
	ExcludeVault []uint64
}

// Weights that put the sources' 0–1 scores on one scale: a fact is a
// checked statement, a vault node is blended with its confidence already,
// a doc passage is relevant text without a confidence.
const (
	docsWeight = 0.8
	// depDocsWeight weighs docs of one of the project's own dependencies
	// (Options.Dependencies): the library the code imports is the one
	// whose docs answer its questions.
	depDocsWeight = 1.0
	// foreignWeight weighs a vault node about another stack (a TypeScript
	// pattern in a Go project: Options.Foreign).
	foreignWeight = 0.5
)

// isDependency reports whether a docs library (a Go package path, an npm
// package) is one of deps or a package inside one of them.
func isDependency(library string, deps []string) bool {
	for _, d := range deps {
		if library == d || strings.HasPrefix(library, d+"/") {
			return true
		}
	}
	return false
}

// MinCoverage: a fact or doc containing less of the query than this share
// (on an absolute scale, see textindex.CoverageShare) is not a hit, and the
// others are scored by coverage × (½ + ½ relevance). Each source's relevance is
// relative to its own best match, so without it the best of weak matches
// looked perfect and outranked literal matches from other sources (and
// reached build prompts).
const MinCoverage = docs.MinCoverage

// Search runs the vault, facts and docs searches in parallel (each bounded
// by the service's source timeout) and merges them into one ranking.
func (s *Service) Search(ctx context.Context, query string, o SearchOptions) (Result, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return Result{}, fmt.Errorf("%w: the search text is empty", ErrInvalid)
	}
	if o.Limit <= 0 {
		o.Limit = 10
	}
	o.Limit = min(o.Limit, 100)
	want := map[string]bool{}
	if o.Sources == nil {
		o.Sources = AllSources
	}
	for _, src := range o.Sources {
		src = strings.ToLower(strings.TrimSpace(src))
		switch src {
		case SourceVault, SourceFacts, SourceDocs:
			want[src] = true
		default:
			return Result{}, fmt.Errorf("%w: unknown source %q (want vault, facts or docs)", ErrInvalid, src)
		}
	}
	type part struct {
		hits []Hit
		warn []string
		st   SourceStatus
	}
	searchers := map[string]func(context.Context) ([]Hit, []string, error){
		SourceVault: func(ctx context.Context) ([]Hit, []string, error) { return s.searchVault(ctx, query, o) },
		SourceFacts: func(ctx context.Context) ([]Hit, []string, error) { return s.searchFacts(ctx, query, o) },
		SourceDocs:  func(ctx context.Context) ([]Hit, []string, error) { return s.searchDocs(ctx, query, o) },
	}
	results := make([]part, len(AllSources))
	run := func(i int, name string) {
		sctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		start := time.Now()
		hits, warn, err := safely(sctx, searchers[name])
		st := SourceStatus{Name: name, Hits: len(hits), DurationMs: float64(time.Since(start).Microseconds()) / 1000}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				err = fmt.Errorf("did not answer within %s", s.timeout)
			}
			st.Error = err.Error()
		}
		results[i] = part{hits: hits, warn: warn, st: st}
	}
	// The sources run side by side; the last one on this goroutine (one
	// hand-off less on a busy machine).
	var wg sync.WaitGroup
	last := -1
	for i, name := range AllSources {
		if want[name] {
			last = i
		}
	}
	for i, name := range AllSources {
		if !want[name] || i == last {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(i, name)
		}()
	}
	if last >= 0 {
		run(last, AllSources[last])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	out := Result{Query: query, Hits: []Hit{}, Sources: []SourceStatus{}}
	for i, name := range AllSources {
		if !want[name] {
			continue
		}
		p := results[i]
		out.Hits = append(out.Hits, p.hits...)
		out.Sources = append(out.Sources, p.st)
		out.Warnings = append(out.Warnings, p.warn...)
		if p.st.Error != "" {
			out.Warnings = append(out.Warnings, name+" search failed: "+p.st.Error)
		}
	}
	rank := map[string]int{SourceFacts: 0, SourceVault: 1, SourceDocs: 2}
	sort.SliceStable(out.Hits, func(i, j int) bool {
		a, b := out.Hits[i], out.Hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Source != b.Source {
			return rank[a.Source] < rank[b.Source]
		}
		return a.Ref < b.Ref
	})
	if len(out.Hits) > o.Limit {
		out.Hits = out.Hits[:o.Limit]
	}
	return out, nil
}

// safely runs one source, turning a panic into an error.
func safely(ctx context.Context, fn func(context.Context) ([]Hit, []string, error)) (hits []Hit, warn []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			hits, err = nil, fmt.Errorf("crashed: %v", r)
		}
	}()
	return fn(ctx)
}

func (s *Service) searchVault(ctx context.Context, query string, o SearchOptions) ([]Hit, []string, error) {
	v := s.vault()
	if v == nil {
		return nil, nil, nil
	}
	exclude := make(map[uint64]bool, len(o.ExcludeVault))
	for _, id := range o.ExcludeVault {
		exclude[id] = true
	}
	ask := o.Limit + len(exclude)
	if len(o.VaultTypes) > 0 {
		ask *= 3
	}
	// The vault drops the excluded nodes and other types itself, after ranking the same
	// ask nodes, without reading them (the filter below is kept for any other searcher).
	nodes, err := v.Search(ctx, query, vault.SearchOptions{Limit: ask, NoEmbeddings: true,
		ResultTypes: o.VaultTypes, Exclude: o.ExcludeVault})
	if err != nil {
		return nil, nil, err
	}
	out := make([]Hit, 0, len(nodes))
	for _, n := range nodes {
		if exclude[n.ID] || (len(o.VaultTypes) > 0 && !containsType(o.VaultTypes, n.Type)) {
			continue
		}
		title := n.Title
		if title == "" {
			title = firstLine(n.Content, 80)
		}
		score := n.Score
		if s.foreign != nil && s.foreign(n.Language, n.Tags) {
			score *= foreignWeight
		}
		out = append(out, Hit{Source: SourceVault, Title: fmt.Sprintf("%s (%s)", title, vaultLabel(n.Node)),
			Snippet: docs.Snippet(n.Content, query, 300), Score: clamp01(score),
			Ref: "vault:" + strconv.FormatUint(n.ID, 10)})
	}
	return out, nil, nil
}

// vaultLabel says where a vault hit comes from: a pattern imported from a
// library names the library; the rest are the team's taste vault.
func vaultLabel(n vault.Node) string {
	kind := strings.ToLower(string(n.Type))
	switch {
	case n.Meta[importer.MetaLibrary] != "":
		return kind + " from library " + n.Meta[importer.MetaLibrary]
	case n.Meta[importer.MetaImportUser] != "" || n.Meta[importer.MetaContentHash] != "":
		return "imported " + kind
	}
	return "taste vault " + kind
}

func containsType(ts []vault.NodeType, t vault.NodeType) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func (s *Service) searchFacts(ctx context.Context, query string, o SearchOptions) ([]Hit, []string, error) {
	if s.facts == nil {
		return nil, nil, nil
	}
	res, err := s.facts.Search(ctx, query, facts.SearchOptions{Scope: o.Scope, Build: o.Build, Limit: o.Limit})
	if err != nil {
		return nil, nil, err
	}
	out := make([]Hit, 0, len(res.Facts))
	for _, f := range res.Facts {
		if f.Coverage < MinCoverage {
			continue
		}
		title := firstLine(f.Content, 80) + " (" + f.Scope.String() + ")"
		if f.Problem != "" {
			title = firstLine(f.Problem, 80) + " (" + string(f.Category) + ", " + f.Scope.String() + ")"
		}
		out = append(out, Hit{Source: SourceFacts, Title: title,
			Snippet: docs.Snippet(f.Text(), query, 300), Score: clamp01(f.Calibrated), Ref: "fact:" + f.ID})
	}
	return out, res.Warnings, nil
}

func (s *Service) searchDocs(ctx context.Context, query string, o SearchOptions) ([]Hit, []string, error) {
	if s.docs == nil {
		return nil, nil, nil
	}
	hits, err := s.docs.Cache().Search(ctx, query, o.Limit)
	if err != nil {
		return nil, nil, err
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		title := h.Title
		if title == "" {
			title = h.Library
		}
		if h.Version != "" && !strings.Contains(title, h.Version) {
			title += " " + h.Version
		}
		weight := docsWeight
		if isDependency(h.Library, s.deps) {
			weight = depDocsWeight
		}
		out = append(out, Hit{Source: SourceDocs, Title: title, Snippet: h.Snippet, Score: clamp01(h.Score * weight),
			Ref: h.Key.Ref()})
	}
	return out, nil, nil
}

func clamp01(x float64) float64 {
	switch {
	case x < 0 || x != x:
		return 0
	case x > 1:
		return 1
	}
	return float64(int64(x*1e6+0.5)) / 1e6
}

// firstLine is the first line of s, cut to n runes.
func firstLine(s string, n int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	line = strings.Join(strings.Fields(line), " ")
	r := []rune(line)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return line
}
