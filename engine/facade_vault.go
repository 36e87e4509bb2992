package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/internal/safefile"
)

// Vault and wisdom verbs of the Workspace facade: thin delegations to the
// taste vault (engine/vault.go builds it).

// LearnNode implements Workspace.
func (l *Local) LearnNode(ctx context.Context, n vault.Node) (vault.LearnResult, error) {
	return l.Vault().Learn(ctx, n)
}

// UpdateNode implements Workspace.
func (l *Local) UpdateNode(ctx context.Context, id uint64, p vault.Patch) (vault.Node, error) {
	return l.Vault().Update(ctx, id, p)
}

// GetNode implements Workspace.
func (l *Local) GetNode(ctx context.Context, id uint64) (vault.Node, error) {
	return l.Vault().Get(ctx, id)
}

// GetNodes implements Workspace.
func (l *Local) GetNodes(ctx context.Context, ids []uint64, withBody bool) ([]vault.Node, error) {
	return l.Vault().GetMany(ctx, ids, withBody)
}

// ListNodes implements Workspace.
func (l *Local) ListNodes(ctx context.Context, o vault.ListOptions) (vault.Page, error) {
	return l.Vault().List(ctx, o)
}

// SearchNodes implements Workspace.
func (l *Local) SearchNodes(ctx context.Context, query string, o vault.SearchOptions) ([]vault.Scored, error) {
	return l.Vault().Search(ctx, query, o)
}

// NodeNeighbours implements Workspace.
func (l *Local) NodeNeighbours(ctx context.Context, id uint64) ([]vault.RelationGroup, error) {
	return l.Vault().Neighbours(ctx, id)
}

// NodeEdges implements Workspace.
func (l *Local) NodeEdges(ctx context.Context, id uint64) ([]vault.Edge, error) {
	return l.Vault().Edges(ctx, id)
}

// GetEdge implements Workspace.
func (l *Local) GetEdge(ctx context.Context, id uint64) (vault.Edge, error) {
	return l.Vault().Edge(ctx, id)
}

// TraverseNodes implements Workspace.
func (l *Local) TraverseNodes(ctx context.Context, id uint64, o vault.TraverseOptions) ([]vault.Step, error) {
	return l.Vault().Traverse(ctx, id, o)
}

// LinkNodes implements Workspace.
func (l *Local) LinkNodes(ctx context.Context, from, to uint64, rel vault.Relation, strength float64) (vault.Edge, error) {
	return l.Vault().Link(ctx, from, to, rel, strength)
}

// UnlinkEdge implements Workspace.
func (l *Local) UnlinkEdge(ctx context.Context, edgeID uint64) error {
	return l.Vault().Unlink(ctx, edgeID)
}

// ReinforceNode implements Workspace.
func (l *Local) ReinforceNode(ctx context.Context, id uint64) (vault.Node, error) {
	return l.Vault().Reinforce(ctx, id)
}

// DemoteNode implements Workspace.
func (l *Local) DemoteNode(ctx context.Context, id uint64) (vault.Node, error) {
	return l.Vault().Demote(ctx, id)
}

// ForgetNode implements Workspace.
func (l *Local) ForgetNode(ctx context.Context, id uint64) error {
	return l.Vault().Remove(ctx, id)
}

// ListConflicts implements Workspace.
func (l *Local) ListConflicts(ctx context.Context) ([]vault.Conflict, error) {
	return l.Vault().Conflicts(ctx)
}

// VaultStats implements Workspace.
func (l *Local) VaultStats(ctx context.Context) (vault.Stats, error) {
	return l.Vault().Stats(ctx)
}

// ListTags implements Workspace.
func (l *Local) ListTags(ctx context.Context) ([]vault.TagCount, error) {
	return l.Vault().Tags(ctx)
}

// ExportVault implements Workspace: the JSONL goes to a temporary file next
// to path, renamed into place when complete.
func (l *Local) ExportVault(ctx context.Context, path string) (vault.ExportStats, error) {
	if !filepath.IsAbs(path) {
		return vault.ExportStats{}, fmt.Errorf("export %s: %w", path, ErrRelativePath)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".nova-export-*")
	if err != nil {
		return vault.ExportStats{}, fmt.Errorf("export: %w", err)
	}
	st, err := l.Vault().Export(ctx, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return st, fmt.Errorf("export %s: %w", path, err)
	}
	return st, nil
}

// ImportVault implements Workspace.
func (l *Local) ImportVault(ctx context.Context, path string) (vault.ImportReport, error) {
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

// VaultContext implements Workspace.
func (l *Local) VaultContext(ctx context.Context, req VaultContextRequest) (vault.VaultContext, error) {
	budget := req.Budget
	if budget <= 0 {
		budget = l.Config().Budgets.PromptTokens
	}
	return l.Vault().BuildVaultContext(ctx, req.Task, req.Agent, req.Tier, budget)
}

// WarmVault implements Workspace.
func (l *Local) WarmVault(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.Vault().Warm()
	return nil
}

// ListWisdom implements Workspace.
func (l *Local) ListWisdom(ctx context.Context, status vault.WisdomStatus) ([]vault.WisdomPattern, error) {
	return l.Wisdom().List(ctx, status)
}

// PromoteWisdom implements Workspace.
func (l *Local) PromoteWisdom(ctx context.Context, nodeID uint64) (vault.PromoteResult, error) {
	return l.Wisdom().Promote(ctx, nodeID)
}

// EndorseWisdom implements Workspace.
func (l *Local) EndorseWisdom(ctx context.Context, id uint64) (vault.WisdomPattern, error) {
	return l.Wisdom().Endorse(ctx, id)
}

// ReportWisdomHarm implements Workspace.
func (l *Local) ReportWisdomHarm(ctx context.Context, id uint64, reason string) (vault.WisdomPattern, error) {
	return l.Wisdom().ReportHarm(ctx, id, reason)
}

// WisdomStats implements Workspace.
func (l *Local) WisdomStats(ctx context.Context) (vault.WisdomStats, error) {
	return l.Wisdom().Stats(ctx)
}

// WisdomCandidates implements Workspace.
func (l *Local) WisdomCandidates(ctx context.Context) ([]vault.Node, error) {
	return l.Wisdom().Candidates(ctx)
}

// CollectWisdom implements Workspace.
func (l *Local) CollectWisdom(ctx context.Context) (vault.CollectReport, error) {
	return l.Wisdom().Collect(ctx)
}

// SetWisdomOptIn implements Workspace.
func (l *Local) SetWisdomOptIn(ctx context.Context, on bool) error {
	return l.Wisdom().SetOptIn(ctx, on)
}

// WisdomKey implements Workspace.
func (l *Local) WisdomKey(ctx context.Context) (string, error) { return l.Wisdom().PublicKey(ctx) }

// TrustWisdomKey implements Workspace.
func (l *Local) TrustWisdomKey(ctx context.Context, key, note string) (vault.TrustedKey, error) {
	return l.Wisdom().Trust(ctx, key, note)
}

// UntrustWisdomKey implements Workspace.
func (l *Local) UntrustWisdomKey(ctx context.Context, key string) error {
	return l.Wisdom().Untrust(ctx, key)
}

// TrustedWisdomKeys implements Workspace.
func (l *Local) TrustedWisdomKeys(ctx context.Context) ([]vault.TrustedKey, error) {
	return l.Wisdom().TrustedKeys(ctx)
}

// ExportWisdom implements Workspace.
func (l *Local) ExportWisdom(ctx context.Context, path string) (vault.Bundle, error) {
	if !filepath.IsAbs(path) {
		return vault.Bundle{}, fmt.Errorf("wisdom export %s: %w", path, ErrRelativePath)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".nova-wisdom-*")
	if err != nil {
		return vault.Bundle{}, fmt.Errorf("wisdom export: %w", err)
	}
	b, err := l.Wisdom().ExportBundle(ctx, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return b, fmt.Errorf("wisdom export %s: %w", path, err)
	}
	return b, nil
}

// ImportWisdom implements Workspace.
func (l *Local) ImportWisdom(ctx context.Context, path string) (vault.BundleImport, error) {
	if !filepath.IsAbs(path) {
		return vault.BundleImport{}, fmt.Errorf("wisdom import %s: %w", path, ErrRelativePath)
	}
	f, err := os.Open(path)
	if err != nil {
		return vault.BundleImport{}, fmt.Errorf("wisdom import: %w", err)
	}
	defer func() { _ = f.Close() }()
	res, err := l.Wisdom().ImportBundle(ctx, f)
	if err != nil {
		return res, fmt.Errorf("wisdom import %s: %w", path, err)
	}
	return res, nil
}

// ListWisdomBundles implements Workspace.
func (l *Local) ListWisdomBundles(ctx context.Context) ([]vault.BundleImport, error) {
	bs, err := l.Wisdom().Bundles(ctx)
	slices.SortStableFunc(bs, func(a, b vault.BundleImport) int { return b.ImportedAt.Compare(a.ImportedAt) })
	return bs, err
}

// VaultCapacity implements Workspace.
func (l *Local) VaultCapacity(ctx context.Context) (vault.Capacity, error) {
	return l.Vault().Capacity(ctx)
}

// ListArchived implements Workspace.
func (l *Local) ListArchived(ctx context.Context) ([]vault.ArchivedNode, error) {
	return l.Vault().Archived(ctx)
}

// GetArchived implements Workspace.
func (l *Local) GetArchived(ctx context.Context, id uint64) (vault.ArchivedNode, error) {
	return l.Vault().ArchivedNodeByID(ctx, id)
}

// RestoreNode implements Workspace.
func (l *Local) RestoreNode(ctx context.Context, id uint64) (vault.RestoreResult, error) {
	return l.Vault().Restore(ctx, id)
}
