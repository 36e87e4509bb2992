package vault_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
)

// The vault context a build prompt carries, and the ranking the knowledge
// layer's vault source reads (a wide, embedding-free search), are pinned on a
// generated fixture: speed work on candidate ranking (which fields are decoded,
// how the writes after a task are grouped) must leave every prompt identical.
// The golden file was written by the code before that work.
func TestPromptContextUnchangedOnFixture(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	v := vault.New(vaulttest.OpenDB(t), vault.Options{UserID: "local", Tier: vault.TierPremium})
	t.Cleanup(func() { _ = v.Close() })
	require.NoError(t, vaulttest.Fill(ctx, v, 3000, 7, vaulttest.Options{}))
	var sb strings.Builder
	for i, q := range vaulttest.Queries(24, 3) {
		vc, err := v.BuildVaultContext(ctx, q, "coder", vault.TierPremium, 8192)
		require.NoError(t, err)
		fmt.Fprintf(&sb, "== %d %q\n%s\nnodes %v wisdom %v tokens %d\n", i, q, vc.Text, vc.NodeIDs, vc.WisdomIDs, vc.Tokens)
		hits, err := v.Search(ctx, q, vault.SearchOptions{Limit: 60, NoEmbeddings: true})
		require.NoError(t, err)
		for _, h := range hits {
			fmt.Fprintf(&sb, "%d %s %.6f %.6f\n", h.ID, h.Type, h.Score, h.Relevance)
		}
	}
	require.NotEmpty(t, sb.String())
	assert.Contains(t, sb.String(), "<taste_vault_context>", "the fixture injects vault context")
	golden.RequireEqual(t, sb.String()) // testdata/<test>.golden; -update rewrites it
}
