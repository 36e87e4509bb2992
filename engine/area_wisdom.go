package engine

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/internal/safefile"
)

// WisdomVerbs are the verbs of global wisdom: patterns shared between workspaces, bundles and trusted keys.
type WisdomVerbs interface {
	// ListWisdom returns the wisdom patterns (of one status, "" = all).
	//rpc:idempotent
	ListWisdom(ctx context.Context, status vault.WisdomStatus) ([]vault.WisdomPattern, error)
	// PromoteWisdom shares a vault node as a wisdom pattern.
	PromoteWisdom(ctx context.Context, nodeID uint64) (vault.PromoteResult, error)
	// EndorseWisdom backs a pattern as the workspace identity (other
	// people's backing arrives only in their bundles, ImportWisdom).
	EndorseWisdom(ctx context.Context, id uint64) (vault.WisdomPattern, error)
	// ReportWisdomHarm reports, as the workspace identity, that a pattern
	// did harm.
	ReportWisdomHarm(ctx context.Context, id uint64, reason string) (vault.WisdomPattern, error)
	// WisdomStats counts patterns by status, backers and harm reports.
	//rpc:idempotent
	WisdomStats(ctx context.Context) (vault.WisdomStats, error)
	// WisdomCandidates lists the nodes Collect would promote.
	//rpc:idempotent
	WisdomCandidates(ctx context.Context) ([]vault.Node, error)
	// CollectWisdom promotes every eligible node.
	CollectWisdom(ctx context.Context) (vault.CollectReport, error)
	// SetWisdomOptIn records whether the workspace identity shares.
	SetWisdomOptIn(ctx context.Context, on bool) error
	// ExportWisdom writes a wisdom bundle to path (the patterns the
	// workspace identity backs or reported, under its pseudonymous author
	// id; written to a temporary file renamed into place).
	ExportWisdom(ctx context.Context, path string) (vault.Bundle, error)
	// ImportWisdom reads another author's bundle from path: its author backs
	// (or reports) each pattern it carries; the same bundle counts once.
	ImportWisdom(ctx context.Context, path string) (vault.BundleImport, error)
	// ListWisdomBundles lists the bundles imported so far, newest first.
	//rpc:idempotent
	ListWisdomBundles(ctx context.Context) ([]vault.BundleImport, error)
	// WisdomKey is the workspace's public signing key (made on first use):
	// what another user passes to `nova wisdom trust`.
	WisdomKey(ctx context.Context) (string, error)
	// TrustWisdomKey trusts a public key: backing in bundles it signed counts
	// towards activation (those imported before included).
	TrustWisdomKey(ctx context.Context, key, note string) (vault.TrustedKey, error)
	// UntrustWisdomKey stops trusting a key (ErrNotFound when it was not).
	UntrustWisdomKey(ctx context.Context, key string) error
	// TrustedWisdomKeys lists the workspace's own key and the keys it trusts.
	//rpc:idempotent
	TrustedWisdomKeys(ctx context.Context) ([]vault.TrustedKey, error)
}

// wisdomArea implements WisdomVerbs over the workspace's services.
type wisdomArea struct{ *core }

var _ WisdomVerbs = wisdomArea{}

// ListWisdom implements WisdomVerbs.
func (l wisdomArea) ListWisdom(ctx context.Context, status vault.WisdomStatus) ([]vault.WisdomPattern, error) {
	return l.Wisdom().List(ctx, status)
}

// PromoteWisdom implements WisdomVerbs.
func (l wisdomArea) PromoteWisdom(ctx context.Context, nodeID uint64) (vault.PromoteResult, error) {
	return l.Wisdom().Promote(ctx, nodeID)
}

// EndorseWisdom implements WisdomVerbs.
func (l wisdomArea) EndorseWisdom(ctx context.Context, id uint64) (vault.WisdomPattern, error) {
	return l.Wisdom().Endorse(ctx, id)
}

// ReportWisdomHarm implements WisdomVerbs.
func (l wisdomArea) ReportWisdomHarm(ctx context.Context, id uint64, reason string) (vault.WisdomPattern, error) {
	return l.Wisdom().ReportHarm(ctx, id, reason)
}

// WisdomStats implements WisdomVerbs.
func (l wisdomArea) WisdomStats(ctx context.Context) (vault.WisdomStats, error) {
	return l.Wisdom().Stats(ctx)
}

// WisdomCandidates implements WisdomVerbs.
func (l wisdomArea) WisdomCandidates(ctx context.Context) ([]vault.Node, error) {
	return l.Wisdom().Candidates(ctx)
}

// CollectWisdom implements WisdomVerbs.
func (l wisdomArea) CollectWisdom(ctx context.Context) (vault.CollectReport, error) {
	return l.Wisdom().Collect(ctx)
}

// SetWisdomOptIn implements WisdomVerbs.
func (l wisdomArea) SetWisdomOptIn(ctx context.Context, on bool) error {
	return l.Wisdom().SetOptIn(ctx, on)
}

// WisdomKey implements WisdomVerbs.
func (l wisdomArea) WisdomKey(ctx context.Context) (string, error) { return l.Wisdom().PublicKey(ctx) }

// TrustWisdomKey implements WisdomVerbs.
func (l wisdomArea) TrustWisdomKey(ctx context.Context, key, note string) (vault.TrustedKey, error) {
	return l.Wisdom().Trust(ctx, key, note)
}

// UntrustWisdomKey implements WisdomVerbs.
func (l wisdomArea) UntrustWisdomKey(ctx context.Context, key string) error {
	return l.Wisdom().Untrust(ctx, key)
}

// TrustedWisdomKeys implements WisdomVerbs.
func (l wisdomArea) TrustedWisdomKeys(ctx context.Context) ([]vault.TrustedKey, error) {
	return l.Wisdom().TrustedKeys(ctx)
}

// ExportWisdom implements WisdomVerbs.
func (l wisdomArea) ExportWisdom(ctx context.Context, path string) (vault.Bundle, error) {
	if !filepath.IsAbs(path) {
		return vault.Bundle{}, fmt.Errorf("wisdom export %s: %w", path, ErrRelativePath)
	}
	var b vault.Bundle
	err := writeReplacing(path, ".nova-wisdom-*", func(w io.Writer) (err error) {
		b, err = l.Wisdom().ExportBundle(ctx, w)
		return err
	})
	if err != nil {
		return b, fmt.Errorf("wisdom export %s: %w", path, err)
	}
	return b, nil
}

// ImportWisdom implements WisdomVerbs.
func (l wisdomArea) ImportWisdom(ctx context.Context, path string) (vault.BundleImport, error) {
	if !filepath.IsAbs(path) {
		return vault.BundleImport{}, fmt.Errorf("wisdom import %s: %w", path, ErrRelativePath)
	}
	// Read as user files are (internal/safefile): a FIFO or a device is
	// refused before a byte is read.
	f, err := safefile.Open(path)
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

// ListWisdomBundles implements WisdomVerbs.
func (l wisdomArea) ListWisdomBundles(ctx context.Context) ([]vault.BundleImport, error) {
	bs, err := l.Wisdom().Bundles(ctx)
	slices.SortStableFunc(bs, func(a, b vault.BundleImport) int { return b.ImportedAt.Compare(a.ImportedAt) })
	return bs, err
}
