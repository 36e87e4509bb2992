package knowledge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/untrusted"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
)

// The knowledge block a build prompt carries is pinned on a generated vault, queried as a
// build task queries it (the vault nodes of its vault context excluded): speed work on the
// vault source (filters applied inside the vault search) must leave every block identical.
// The golden file was written by the code before that work.
func TestHookBlockUnchangedOnFixture(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, options{})
	ctx := t.Context()
	require.NoError(t, vaulttest.Fill(ctx, fx.vault, 3000, 7, vaulttest.Options{}))
	var sb strings.Builder
	for i, q := range vaulttest.Queries(24, 3) {
		vc, err := fx.vault.BuildVaultContext(ctx, q, "MARS", vault.TierPremium, 8192)
		require.NoError(t, err)
		block, ids, err := fx.svc.Hits(ctx, build.KnowledgeQuery{BuildID: "1", TaskID: fmt.Sprint(i), Agent: "MARS", Text: q, ExcludeVault: vc.NodeIDs}, 2000)
		require.NoError(t, err)
		fmt.Fprintf(&sb, "== %d %q\n%s\nids %v\n", i, q, block, ids)
	}
	assert.Contains(t, sb.String(), "[vault:", "the fixture injects vault patterns")
	// The untrusted block's id is drawn per process.
	golden.RequireEqual(t, strings.ReplaceAll(sb.String(), untrusted.Nonce(), "NONCE")) // testdata/<test>.golden; -update rewrites it
}
