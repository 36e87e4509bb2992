package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

func TestWorkspaceVaultPublishesAfterCommit(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := t.Context()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(map[string]string{"NOVA_TIER": "premium"})})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	v := ws.Vault()
	require.Same(t, v, ws.Vault(), "one vault per workspace")
	assert.Same(t, v.Wisdom(), ws.Wisdom())
	assert.Equal(t, vault.TierPremium, v.Options().Tier, "the tier comes from the config and environment")
	assert.Zero(t, v.IndexInfo().Docs, "an empty vault indexes nothing")

	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	events := ws.Subscribe(sub)
	n, err := v.Add(ctx, vault.Node{Type: vault.Pattern, Content: "Stage writes in a changeset"})
	require.NoError(t, err)
	select {
	case ev := <-events:
		assert.Equal(t, engine.EventChanged, ev.Type)
		assert.Equal(t, engine.TopicVault, ev.Topic)
		assert.Equal(t, "add", ev.Text)
		sum, err := ws.Summary(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, sum.VaultNodes, "the write is committed when the event arrives")
	case <-time.After(5 * time.Second):
		t.Fatal("no vault event")
	}
	_, err = v.Wisdom().Promote(ctx, n.ID)
	require.ErrorIs(t, err, vault.ErrNotEligible)
	require.NoError(t, v.Wisdom().SetOptIn(ctx, true))
	select {
	case ev := <-events:
		assert.Equal(t, "wisdom.optin", ev.Text)
	case <-time.After(5 * time.Second):
		t.Fatal("no wisdom event")
	}
}

func TestWorkspaceVaultReadOnly(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := t.Context()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	_, err = ws.Vault().Add(ctx, vault.Node{Type: vault.Decision, Content: "Use bbolt for state", Tags: []string{"storage"}})
	require.NoError(t, err)
	require.NoError(t, ws.Close())

	ro, err := engine.Open(ctx, engine.Options{Root: root, ReadOnly: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ro.Close() }()
	p, err := ro.Vault().List(ctx, vault.ListOptions{Tag: "storage"})
	require.NoError(t, err)
	assert.Equal(t, 1, p.Total)
	hits, err := ro.Vault().Search(ctx, "state storage", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Len(t, hits, 1)
	_, err = ro.Vault().Add(ctx, vault.Node{Type: vault.Pattern, Content: "x"})
	assert.ErrorIs(t, err, storage.ErrReadOnly)
}

func TestWorkspaceVaultUsesConfiguredEmbeddings(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	srv := ollamatest.New(t, ollamatest.WithModels("nomic-embed-text"))
	ctx := t.Context()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	v := ws.Vault()
	assert.Equal(t, "nomic-embed-text", v.Options().EmbedModel)
	_, err = v.Add(ctx, vault.Node{Type: vault.Pattern, Content: "Stream model output token by token"})
	require.NoError(t, err)
	hits, err := v.GetRelevantPatterns(ctx, "stream tokens", 3)
	require.NoError(t, err)
	assert.Len(t, hits, 1)
	assert.Equal(t, 1, srv.Count("/api/embed"))
}

func TestWorkspaceVaultProjectTermsAreSanitized(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "bistroshop")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/acme/ledgerkit\n\ngo 1.26\n"), 0o644))
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	ws, err := engine.Open(t.Context(), engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	terms := ws.Vault().Options().ProjectTerms
	assert.Contains(t, terms, "bistroshop")
	assert.Contains(t, terms, "ledgerkit")
	clean := vault.Sanitize(vault.Node{Content: "BistroShop uses ledgerkit for invoices"}, terms...)
	assert.NotContains(t, strings.ToLower(clean.Content), "bistroshop")
	assert.NotContains(t, clean.Content, "ledgerkit")
}
