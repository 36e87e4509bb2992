package knowledge_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/vault"
)

// Knowledge hits say where a vault pattern comes from: an imported
// library by its name, the team's own taste vault as such.
func TestVaultHitsNameTheirLibraryOrTheTasteVault(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, options{})
	ctx := t.Context()
	_, err := fx.vault.Add(ctx, vault.Node{Type: vault.Pattern, Title: "Retry with jitter", Content: "Retry idempotent requests with exponential backoff and jitter",
		Confidence: 0.8, Meta: map[string]string{importer.MetaLibrary: "nova26-patterns", importer.MetaContentHash: "ab"}})
	require.NoError(t, err)
	_, err = fx.vault.Add(ctx, vault.Node{Type: vault.Pattern, Title: "Backoff in our client", Content: "Our HTTP client retries requests with backoff twice",
		Confidence: 0.8})
	require.NoError(t, err)
	res, err := fx.svc.Search(ctx, "retry requests backoff", knowledge.SearchOptions{Limit: 5})
	require.NoError(t, err)
	var titles []string
	for _, h := range res.Hits {
		if h.Source == knowledge.SourceVault {
			titles = append(titles, h.Title)
		}
	}
	joined := strings.Join(titles, "\n")
	assert.Contains(t, joined, "Retry with jitter (pattern from library nova26-patterns)")
	assert.Contains(t, joined, "Backoff in our client (taste vault pattern)")
}
