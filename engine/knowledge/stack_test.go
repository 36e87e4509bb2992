package knowledge_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/docs/docstest"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// Issue 32: in a Go project that depends on uniseg, "grapheme cluster
// width" finds uniseg's docs first: docs of the project's own dependencies
// weigh more, and a pattern about another stack (TypeScript) weighs less.
func TestProjectDependenciesDocsWeighMore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	search := func(stack workspace.Stack) knowledge.Result {
		root := t.TempDir()
		db, err := storage.Open(filepath.Join(root, ".nova", "nova.db"), storage.Options{NoSync: true})
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		v := vault.New(db, vault.Options{UserID: "local", Tier: "premium"})
		t.Cleanup(func() { _ = v.Close() })
		srv := docstest.New(t, docstest.Options{})
		d := docs.New(db, docs.Options{Root: root, BaseURL: srv.URL(), Getenv: func(string) string { return "" }})
		_, err = v.Add(ctx, vault.Node{Type: vault.Pattern, Title: "Measure text width before truncating labels",
			Content: "Measure the grapheme cluster width of a label with Intl.Segmenter before truncating it, so that emoji are never cut.",
			Tags:    []string{"typescript", "i18n"}, Language: "typescript", Confidence: 0.9, HelpfulCount: 4})
		require.NoError(t, err)
		require.NoError(t, d.Cache().Put(ctx, docs.Key{Source: "local", Library: "github.com/rivo/uniseg", Topic: ""}, docs.Entry{
			Source: "local", Library: "github.com/rivo/uniseg", Title: "uniseg",
			Content:   "Package uniseg implements Unicode text segmentation: grapheme clusters, words, sentences, and the width of a grapheme cluster on a monospace display.",
			FetchedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}))
		svc := knowledge.New(knowledge.Options{Vault: func() knowledge.VaultSearcher { return v }, Docs: d,
			SourceTimeout: time.Second, Dependencies: stack.Dependencies, Foreign: stack.Foreign})
		res, err := svc.Search(ctx, "grapheme cluster width", knowledge.SearchOptions{})
		require.NoError(t, err)
		require.Len(t, res.Hits, 2, "%+v", res.Hits)
		return res
	}
	plain := search(workspace.Stack{})
	assert.Equal(t, "vault", plain.Hits[0].Source, "without the project's stack the pattern wins: %+v", plain.Hits)

	goProject := workspace.Stack{Languages: []string{"go"}, Dependencies: []string{"github.com/rivo/uniseg"}}
	res := search(goProject)
	assert.Equal(t, "docs", res.Hits[0].Source, "%+v", res.Hits)
	assert.Contains(t, res.Hits[0].Ref, "uniseg")
	docScore := func(r knowledge.Result) float64 {
		for _, h := range r.Hits {
			if h.Source == "docs" {
				return h.Score
			}
		}
		return 0
	}
	assert.Greater(t, docScore(res), docScore(plain), "a dependency's docs weigh more")
}
