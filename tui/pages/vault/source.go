package vault

import (
	"context"

	engvault "github.com/nova-dev/nova/engine/vault"
)

// Source is what the Vault page needs from the engine: a subset of
// engine.Workspace's verbs. The page calls it only from tea.Cmds.
type Source interface {
	ListNodes(ctx context.Context, o engvault.ListOptions) (engvault.Page, error)
	SearchNodes(ctx context.Context, query string, o engvault.SearchOptions) ([]engvault.Scored, error)
	GetNode(ctx context.Context, id uint64) (engvault.Node, error)
	NodeNeighbours(ctx context.Context, id uint64) ([]engvault.RelationGroup, error)
	NodeEdges(ctx context.Context, id uint64) ([]engvault.Edge, error)
	TraverseNodes(ctx context.Context, id uint64, o engvault.TraverseOptions) ([]engvault.Step, error)
	ListConflicts(ctx context.Context) ([]engvault.Conflict, error)
	VaultStats(ctx context.Context) (engvault.Stats, error)
	ReinforceNode(ctx context.Context, id uint64) (engvault.Node, error)
	DemoteNode(ctx context.Context, id uint64) (engvault.Node, error)
	ForgetNode(ctx context.Context, id uint64) error
	LinkNodes(ctx context.Context, from, to uint64, rel engvault.Relation, strength float64) (engvault.Edge, error)
	UpdateNode(ctx context.Context, id uint64, p engvault.Patch) (engvault.Node, error)
	WarmVault(ctx context.Context) error
	ListArchived(ctx context.Context) ([]engvault.ArchivedNode, error)
	RestoreNode(ctx context.Context, id uint64) (engvault.RestoreResult, error)
}
