package engine

import (
	"context"
	"errors"

	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// KnowledgeVerbs are the verbs of knowledge: cached docs, facts and the one search over them and the vault.
type KnowledgeVerbs interface {
	// FetchDocs finds documentation for a library and optional topic: the
	// project's own dependencies at their exact versions first (Go module
	// cache, node_modules; offline), then the cache, then Context7. Nothing
	// found is a report (Available false, Source "none", the fallback text,
	// Warning the cause), not an error; docs.ErrInvalid for an empty or
	// oversized name.
	FetchDocs(ctx context.Context, library, topic string, o docs.FetchOptions) (docs.Result, error)
	// DocsList lists the cached docs (all, or one library's), newest first.
	//rpc:idempotent
	DocsList(ctx context.Context, library string) ([]docs.EntryInfo, error)
	// DocsClear removes one library's cached docs, or all of them with "",
	// and returns how many entries went.
	DocsClear(ctx context.Context, library string) (int, error)
	// DocsRemove removes one cached entry by its ref ("docs:SOURCE:LIB#TOPIC").
	DocsRemove(ctx context.Context, ref string) error
	// DocsStats summarises the docs cache (entries, stale, bytes, by source).
	//rpc:idempotent
	DocsStats(ctx context.Context) (docs.Stats, error)
	// AddFact records a fact (default scope workspace, source user);
	// facts.ErrInvalid for bad input, facts.ErrUserUnavailable when a
	// user-scope fact cannot reach the user-level file.
	AddFact(ctx context.Context, in facts.NewFact) (facts.Fact, error)
	// SearchFacts ranks the facts visible at o.Scope (zero: every scope);
	// warnings say when the user-level file was left out.
	//rpc:idempotent
	SearchFacts(ctx context.Context, query string, o facts.SearchOptions) (facts.SearchResult, error)
	// ListFacts lists facts of one scope (zero: all), broadest scope first,
	// newest first.
	//rpc:idempotent
	ListFacts(ctx context.Context, o facts.ListOptions) (facts.ListResult, error)
	// CorrectFact closes a fact with a reason and, with a replacement text,
	// records the linked replacement; nothing is overwritten or deleted
	// (facts.ErrNotFound, facts.ErrAlreadyInvalidated).
	CorrectFact(ctx context.Context, id, reason, replacement string) (facts.Correction, error)
	// FactHistory is the newest facts.DefaultHistoryLimit entries of a
	// fact's correction chain, oldest first.
	//rpc:idempotent
	FactHistory(ctx context.Context, id string) ([]facts.Fact, error)
	// FactHistoryPage pages a fact's correction chain from its newest end
	// (o.Limit entries, older than o.Before) and says whether older entries
	// exist. `nova facts history ID --limit N --before ID`.
	//rpc:idempotent
	FactHistoryPage(ctx context.Context, id string, o facts.HistoryOptions) (facts.HistoryPage, error)
	// PromoteFact moves a fact to a broader scope, closing the original with
	// a link to the copy.
	PromoteFact(ctx context.Context, id string, to facts.Scope) (facts.Correction, error)
	// ReaffirmFact says a fact still holds: restored from the archive, its
	// review flag cleared.
	ReaffirmFact(ctx context.Context, id string) (facts.Fact, error)
	// MarkFact records the user's word on whether a fact helped (`nova
	// facts helpful|unhelpful ID`): one use, like a task's outcome; an
	// entry that keeps not helping is archived.
	MarkFact(ctx context.Context, id string, helpful bool) (facts.Fact, error)
	// SweepFacts archives unhelpful and unused facts and flags those naming
	// changed files (it also runs after every build).
	SweepFacts(ctx context.Context) (facts.SweepReport, error)
	// SearchKnowledge is the one search over the vault, facts and cached or
	// local docs, merged into one ranking; a failing source is a warning,
	// never hides the others.
	//rpc:idempotent
	SearchKnowledge(ctx context.Context, query string, limit int) (knowledge.Result, error)
	// KnowledgeItem opens a knowledge reference ("fact:f3", "vault:12",
	// "docs:…"): what a provenance link or a search hit shows.
	//rpc:idempotent
	KnowledgeItem(ctx context.Context, ref string) (knowledge.Item, error)
}

// knowledgeArea implements KnowledgeVerbs over the workspace's services.
type knowledgeArea struct{ *core }

var _ KnowledgeVerbs = knowledgeArea{}

// FetchDocs finds documentation for a library (and topic): local docs at
// the project's exact versions first, then the cache, then Context7. The
// result always carries text to show. Nothing found is a report, not an
// error: Available false, Source "none", Content the fallback sentence and
// Warning the cause (so a remote caller loses nothing). The error wraps
// docs.ErrInvalid for bad usage (empty or oversized name) or is ctx's.
// `nova docs fetch LIB [TOPIC]`.
func (l knowledgeArea) FetchDocs(ctx context.Context, library, topic string, o docs.FetchOptions) (docs.Result, error) {
	r, err := l.Knowledge().Docs().Fetch(ctx, library, topic, o)
	if r.Source == docs.FromNetwork || r.Source == docs.FromLocal {
		l.knowledgeChanged("docs")
	}
	if errors.Is(err, docs.ErrUnavailable) && ctx.Err() == nil {
		if r.Warning == "" {
			r.Warning = err.Error()
		}
		return r, nil
	}
	return r, err
}

// DocsList lists the cached docs (all, or one library's), newest first.
// `nova docs list`.
func (l knowledgeArea) DocsList(ctx context.Context, library string) ([]docs.EntryInfo, error) {
	return l.Knowledge().Docs().Cache().List(ctx, library)
}

// DocsClear removes a library's cached docs, or all of them, and returns
// how many entries went. `nova docs clear [LIB]`.
func (l knowledgeArea) DocsClear(ctx context.Context, library string) (int, error) {
	n, err := l.Knowledge().Docs().Cache().Clear(ctx, library)
	if err == nil && n > 0 {
		l.knowledgeChanged("docs")
	}
	return n, err
}

// DocsRemove deletes one cached entry by its reference (the Knowledge
// screen's per-entry clear); storage.ErrNotFound when it is gone.
func (l knowledgeArea) DocsRemove(ctx context.Context, ref string) error {
	err := l.Knowledge().Docs().Cache().Remove(ctx, ref)
	if err == nil {
		l.knowledgeChanged("docs")
	}
	return err
}

// DocsStats summarises the docs cache. `nova docs stats`.
func (l knowledgeArea) DocsStats(ctx context.Context) (docs.Stats, error) {
	return l.Knowledge().Docs().Cache().Stats(ctx)
}

// AddFact records a fact (default scope workspace, source user, confidence
// 0.9). Bad input wraps facts.ErrInvalid (exit 2); a user-scope fact when
// the user-level file is unusable wraps facts.ErrUserUnavailable.
// `nova facts add`.
func (l knowledgeArea) AddFact(ctx context.Context, in facts.NewFact) (facts.Fact, error) {
	f, err := l.Knowledge().Facts().Add(ctx, in)
	if err == nil {
		l.knowledgeChanged("facts")
	}
	return f, err
}

// SearchFacts ranks facts visible at o.Scope (zero: every scope).
// `nova facts search`.
func (l knowledgeArea) SearchFacts(ctx context.Context, query string, o facts.SearchOptions) (facts.SearchResult, error) {
	return l.Knowledge().Facts().Search(ctx, query, o)
}

// ListFacts lists facts of one scope (zero: all), broadest scope first,
// newest first. `nova facts list`.
func (l knowledgeArea) ListFacts(ctx context.Context, o facts.ListOptions) (facts.ListResult, error) {
	return l.Knowledge().Facts().List(ctx, o)
}

// CorrectFact closes a fact with a reason and, with a replacement text,
// records the linked replacement (the user's correction: any scope).
// `nova facts correct ID --reason R [--replace TEXT]`.
func (l knowledgeArea) CorrectFact(ctx context.Context, id, reason, replacement string) (facts.Correction, error) {
	c, err := l.Knowledge().Facts().Correct(ctx, id, reason, replacement, facts.Source{Type: facts.SourceUser})
	if err == nil {
		l.knowledgeChanged("facts")
	}
	return c, err
}

// FactHistory is the newest facts.DefaultHistoryLimit entries of a fact's
// correction chain, oldest first (FactHistoryPage pages and says whether
// older entries exist).
func (l knowledgeArea) FactHistory(ctx context.Context, id string) ([]facts.Fact, error) {
	return l.Knowledge().Facts().History(ctx, id)
}

// FactHistoryPage is one page of a fact's correction chain, oldest first,
// with whether older entries exist. `nova facts history ID --limit --before`.
func (l knowledgeArea) FactHistoryPage(ctx context.Context, id string, o facts.HistoryOptions) (facts.HistoryPage, error) {
	return l.Knowledge().Facts().HistoryPage(ctx, id, o)
}

// PromoteFact moves a fact to a broader scope (a build's lesson to the
// workspace, a workspace fact to the user), closing the original with a
// link. `nova facts promote ID [--to S]`.
func (l knowledgeArea) PromoteFact(ctx context.Context, id string, to facts.Scope) (facts.Correction, error) {
	c, err := l.Knowledge().Facts().Promote(ctx, id, to)
	if err == nil {
		l.knowledgeChanged("facts")
	}
	return c, err
}

// MarkFact records whether a fact helped, in the user's words.
func (l knowledgeArea) MarkFact(ctx context.Context, id string, helpful bool) (facts.Fact, error) {
	f, err := l.Knowledge().Facts().Mark(ctx, id, helpful)
	if err == nil {
		l.knowledgeChanged("facts")
	}
	return f, err
}

// ReaffirmFact says a fact still holds: out of the archive, review flag
// cleared. (TUI: restore / keep.)
func (l knowledgeArea) ReaffirmFact(ctx context.Context, id string) (facts.Fact, error) {
	f, err := l.Knowledge().Facts().Reaffirm(ctx, id)
	if err == nil {
		l.knowledgeChanged("facts")
	}
	return f, err
}

// SweepFacts archives unhelpful and unused facts and flags facts naming
// changed files (it also runs after every build).
func (l knowledgeArea) SweepFacts(ctx context.Context) (facts.SweepReport, error) {
	rep, err := l.Knowledge().Facts().Sweep(ctx)
	if err == nil && len(rep.Archived)+len(rep.Flagged) > 0 {
		l.knowledgeChanged("facts")
	}
	return rep, err
}

// SearchKnowledge is the one search over the vault, facts and cached/local
// docs: hits {source, title, snippet, score, ref} best first, and warnings
// for sources that failed. `nova knowledge search Q [--limit N]`.
func (l knowledgeArea) SearchKnowledge(ctx context.Context, query string, limit int) (knowledge.Result, error) {
	return l.Knowledge().Search(ctx, query, knowledge.SearchOptions{Limit: limit})
}

// KnowledgeItem opens a knowledge reference ("fact:f3", "vault:12",
// "docs:…"): what a provenance link shows.
func (l knowledgeArea) KnowledgeItem(ctx context.Context, ref string) (knowledge.Item, error) {
	return l.Knowledge().Resolve(ctx, ref)
}
