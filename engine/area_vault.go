package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/internal/safefile"
)

// VaultVerbs are the verbs of the taste vault (graph memory): nodes, edges, search, export, archive.
type VaultVerbs interface {
	// LearnNode adds a node the way builds learn: an equivalent node is
	// reinforced instead, a full tier evicts, contradictions are linked.
	LearnNode(ctx context.Context, n vault.Node) (vault.LearnResult, error)
	// UpdateNode changes the fields set in the patch.
	UpdateNode(ctx context.Context, id uint64, p vault.Patch) (vault.Node, error)
	// GetNode returns one node with its body.
	//rpc:idempotent
	GetNode(ctx context.Context, id uint64) (vault.Node, error)
	// GetNodes returns the nodes of ids that exist, in the order given.
	//rpc:idempotent
	GetNodes(ctx context.Context, ids []uint64, withBody bool) ([]vault.Node, error)
	// ListNodes returns one page of nodes (without bodies). Page through a
	// large vault with Offset and Limit (the CLI pages by 1,000).
	//rpc:idempotent
	ListNodes(ctx context.Context, o vault.ListOptions) (vault.Page, error)
	// SearchNodes ranks nodes for a free-text query, best first.
	//rpc:idempotent
	SearchNodes(ctx context.Context, query string, o vault.SearchOptions) ([]vault.Scored, error)
	// NodeNeighbours returns a node's edges grouped by relation, out and in.
	//rpc:idempotent
	NodeNeighbours(ctx context.Context, id uint64) ([]vault.RelationGroup, error)
	// NodeEdges returns every edge touching a node.
	//rpc:idempotent
	NodeEdges(ctx context.Context, id uint64) ([]vault.Edge, error)
	// GetEdge returns one edge.
	//rpc:idempotent
	GetEdge(ctx context.Context, id uint64) (vault.Edge, error)
	// TraverseNodes walks the graph breadth first from a node.
	//rpc:idempotent
	TraverseNodes(ctx context.Context, id uint64, o vault.TraverseOptions) ([]vault.Step, error)
	// LinkNodes adds an edge from → to.
	LinkNodes(ctx context.Context, from, to uint64, rel vault.Relation, strength float64) (vault.Edge, error)
	// UnlinkEdge removes an edge.
	UnlinkEdge(ctx context.Context, edgeID uint64) error
	// ReinforceNode raises a node's confidence by 0.05.
	ReinforceNode(ctx context.Context, id uint64) (vault.Node, error)
	// DemoteNode lowers a node's confidence by 0.1.
	DemoteNode(ctx context.Context, id uint64) (vault.Node, error)
	// ForgetNode removes a node and its edges.
	ForgetNode(ctx context.Context, id uint64) error
	// ListConflicts returns the pairs of nodes joined by a contradicts edge.
	//rpc:idempotent
	ListConflicts(ctx context.Context) ([]vault.Conflict, error)
	// VaultStats counts nodes, edges, types, tags and conflicts.
	//rpc:idempotent
	VaultStats(ctx context.Context) (vault.Stats, error)
	// ListTags returns the tags with their node counts.
	//rpc:idempotent
	ListTags(ctx context.Context) ([]vault.TagCount, error)
	// ExportVault writes every node and edge as JSONL to path (a temporary
	// file renamed into place: a failed export leaves no partial file).
	ExportVault(ctx context.Context, path string) (vault.ExportStats, error)
	// ImportVault reads a JSONL export from path: the whole file or nothing.
	ImportVault(ctx context.Context, path string) (vault.ImportReport, error)
	// VaultContext previews the vault block a prompt for a task would get.
	//rpc:idempotent
	VaultContext(ctx context.Context, req VaultContextRequest) (vault.VaultContext, error)
	// WarmVault starts building the search index in the background.
	//rpc:idempotent
	WarmVault(ctx context.Context) error
	// VaultCapacity reports the node count against the tier's cap (tier,
	// cap, nodes, free, archived).
	//rpc:idempotent
	VaultCapacity(ctx context.Context) (vault.Capacity, error)
	// ListArchived lists the nodes the tier cap moved to the archive (with
	// their edges), newest first.
	//rpc:idempotent
	ListArchived(ctx context.Context) ([]vault.ArchivedNode, error)
	// GetArchived returns one archived node with its body and edges.
	//rpc:idempotent
	GetArchived(ctx context.Context, id uint64) (vault.ArchivedNode, error)
	// RestoreNode brings an archived node back with its id and the edges
	// whose other end exists. It is a user write: over the tier cap it is
	// refused (vault.ErrOverCap) and nothing changes.
	RestoreNode(ctx context.Context, id uint64) (vault.RestoreResult, error)
}

// vaultArea implements VaultVerbs over the workspace's services.
type vaultArea struct{ *core }

var _ VaultVerbs = vaultArea{}

// LearnNode implements VaultVerbs.
func (l vaultArea) LearnNode(ctx context.Context, n vault.Node) (vault.LearnResult, error) {
	return l.Vault().Learn(ctx, n)
}

// UpdateNode implements VaultVerbs.
func (l vaultArea) UpdateNode(ctx context.Context, id uint64, p vault.Patch) (vault.Node, error) {
	return l.Vault().Update(ctx, id, p)
}

// GetNode implements VaultVerbs.
func (l vaultArea) GetNode(ctx context.Context, id uint64) (vault.Node, error) {
	return l.Vault().Get(ctx, id)
}

// GetNodes implements VaultVerbs.
func (l vaultArea) GetNodes(ctx context.Context, ids []uint64, withBody bool) ([]vault.Node, error) {
	return l.Vault().GetMany(ctx, ids, withBody)
}

// ListNodes implements VaultVerbs.
func (l vaultArea) ListNodes(ctx context.Context, o vault.ListOptions) (vault.Page, error) {
	return l.Vault().List(ctx, o)
}

// SearchNodes implements VaultVerbs.
func (l vaultArea) SearchNodes(ctx context.Context, query string, o vault.SearchOptions) ([]vault.Scored, error) {
	return l.Vault().Search(ctx, query, o)
}

// NodeNeighbours implements VaultVerbs.
func (l vaultArea) NodeNeighbours(ctx context.Context, id uint64) ([]vault.RelationGroup, error) {
	return l.Vault().Neighbours(ctx, id)
}

// NodeEdges implements VaultVerbs.
func (l vaultArea) NodeEdges(ctx context.Context, id uint64) ([]vault.Edge, error) {
	return l.Vault().Edges(ctx, id)
}

// GetEdge implements VaultVerbs.
func (l vaultArea) GetEdge(ctx context.Context, id uint64) (vault.Edge, error) {
	return l.Vault().Edge(ctx, id)
}

// TraverseNodes implements VaultVerbs.
func (l vaultArea) TraverseNodes(ctx context.Context, id uint64, o vault.TraverseOptions) ([]vault.Step, error) {
	return l.Vault().Traverse(ctx, id, o)
}

// LinkNodes implements VaultVerbs.
func (l vaultArea) LinkNodes(ctx context.Context, from, to uint64, rel vault.Relation, strength float64) (vault.Edge, error) {
	return l.Vault().Link(ctx, from, to, rel, strength)
}

// UnlinkEdge implements VaultVerbs.
func (l vaultArea) UnlinkEdge(ctx context.Context, edgeID uint64) error {
	return l.Vault().Unlink(ctx, edgeID)
}

// ReinforceNode implements VaultVerbs.
func (l vaultArea) ReinforceNode(ctx context.Context, id uint64) (vault.Node, error) {
	return l.Vault().Reinforce(ctx, id)
}

// DemoteNode implements VaultVerbs.
func (l vaultArea) DemoteNode(ctx context.Context, id uint64) (vault.Node, error) {
	return l.Vault().Demote(ctx, id)
}

// ForgetNode implements VaultVerbs.
func (l vaultArea) ForgetNode(ctx context.Context, id uint64) error {
	return l.Vault().Remove(ctx, id)
}

// ListConflicts implements VaultVerbs.
func (l vaultArea) ListConflicts(ctx context.Context) ([]vault.Conflict, error) {
	return l.Vault().Conflicts(ctx)
}

// VaultStats implements VaultVerbs.
func (l vaultArea) VaultStats(ctx context.Context) (vault.Stats, error) {
	return l.Vault().Stats(ctx)
}

// ListTags implements VaultVerbs.
func (l vaultArea) ListTags(ctx context.Context) ([]vault.TagCount, error) {
	return l.Vault().Tags(ctx)
}

// ExportVault implements VaultVerbs: the JSONL goes to a temporary file next
// to path, renamed into place when complete.
func (l vaultArea) ExportVault(ctx context.Context, path string) (vault.ExportStats, error) {
	if !filepath.IsAbs(path) {
		return vault.ExportStats{}, fmt.Errorf("export %s: %w", path, ErrRelativePath)
	}
	var st vault.ExportStats
	err := writeReplacing(path, ".nova-export-*", func(w io.Writer) (err error) {
		st, err = l.Vault().Export(ctx, w)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("export %s: %w", path, err)
	}
	return st, nil
}

// writeReplacing writes a file through write into a temporary file next to
// path (named by pattern), renamed into place when complete: a failed write
// leaves no partial file.
func writeReplacing(path, pattern string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// ImportVault implements VaultVerbs.
func (l vaultArea) ImportVault(ctx context.Context, path string) (vault.ImportReport, error) {
	if !filepath.IsAbs(path) {
		return vault.ImportReport{}, fmt.Errorf("import %s: %w", path, ErrRelativePath)
	}
	// A named pipe, a device (a link to /dev/zero) or a directory is
	// refused before a byte is read: an open of a FIFO would wait for a
	// writer, a device would stream forever.
	f, err := safefile.Open(path)
	if err != nil {
		return vault.ImportReport{}, fmt.Errorf("import: %w", err)
	}
	defer func() { _ = f.Close() }()
	return l.Vault().Import(ctx, f)
}

// VaultContext implements VaultVerbs.
func (l vaultArea) VaultContext(ctx context.Context, req VaultContextRequest) (vault.VaultContext, error) {
	budget := req.Budget
	if budget <= 0 {
		budget = l.Config().Budgets.PromptTokens
	}
	return l.Vault().BuildVaultContext(ctx, req.Task, req.Agent, req.Tier, budget)
}

// WarmVault implements VaultVerbs.
func (l vaultArea) WarmVault(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.Vault().Warm()
	return nil
}

// VaultCapacity implements VaultVerbs.
func (l vaultArea) VaultCapacity(ctx context.Context) (vault.Capacity, error) {
	return l.Vault().Capacity(ctx)
}

// ListArchived implements VaultVerbs.
func (l vaultArea) ListArchived(ctx context.Context) ([]vault.ArchivedNode, error) {
	return l.Vault().Archived(ctx)
}

// GetArchived implements VaultVerbs.
func (l vaultArea) GetArchived(ctx context.Context, id uint64) (vault.ArchivedNode, error) {
	return l.Vault().ArchivedNodeByID(ctx, id)
}

// RestoreNode implements VaultVerbs.
func (l vaultArea) RestoreNode(ctx context.Context, id uint64) (vault.RestoreResult, error) {
	return l.Vault().Restore(ctx, id)
}
