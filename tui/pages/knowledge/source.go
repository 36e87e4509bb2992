package knowledge

import (
	"context"

	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// Source is what the Knowledge page needs from the engine: a subset of
// engine.Workspace's verbs. The page calls it only from tea.Cmds.
type Source interface {
	SearchKnowledge(ctx context.Context, query string, limit int) (knowledge.Result, error)
	KnowledgeItem(ctx context.Context, ref string) (knowledge.Item, error)
	ListFacts(ctx context.Context, o facts.ListOptions) (facts.ListResult, error)
	FactHistory(ctx context.Context, id string) ([]facts.Fact, error)
	AddFact(ctx context.Context, in facts.NewFact) (facts.Fact, error)
	CorrectFact(ctx context.Context, id, reason, replacement string) (facts.Correction, error)
	PromoteFact(ctx context.Context, id string, to facts.Scope) (facts.Correction, error)
	ReaffirmFact(ctx context.Context, id string) (facts.Fact, error)
	DocsList(ctx context.Context, library string) ([]docs.EntryInfo, error)
	DocsStats(ctx context.Context) (docs.Stats, error)
	DocsClear(ctx context.Context, library string) (int, error)
	DocsRemove(ctx context.Context, ref string) error
	FetchDocs(ctx context.Context, library, topic string, o docs.FetchOptions) (docs.Result, error)
}
