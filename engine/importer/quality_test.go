package importer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
)

// Retrieval quality of the vault's search over the real BistroLens library, as
// `nova import` loads it, on the paraphrased query set shared with the peer
// benchmark (bench/peers). The floors are the figures measured before the
// speed work of issue 16 (Recall@5 0.764, MRR 0.696): a change to the index
// or the ranking must not lower them.
const (
	qualityFloorRecall = 0.76
	qualityFloorMRR    = 0.69
)

func corpusQuality(t testing.TB) vaulttest.Quality {
	root := corpusDir(t)
	e := newEnv(t, Config{})
	ctx := context.Background()
	_, err := e.im.Import(ctx, DirSource(root), Options{})
	require.NoError(t, err)
	return vaulttest.Score(func(q string) []string {
		hits, err := e.v.Search(ctx, q, vault.SearchOptions{Limit: 10, NoEmbeddings: true})
		require.NoError(t, err)
		var srcs []string
		for _, h := range hits {
			srcs = append(srcs, h.Source)
		}
		return srcs
	})
}

func TestParaphraseQuality(t *testing.T) {
	t.Parallel()
	q := corpusQuality(t)
	t.Logf("Recall@5 %.3f, MRR %.3f over %d paraphrased queries", q.RecallAt5, q.MRR, len(vaulttest.Paraphrases))
	assert.GreaterOrEqual(t, q.RecallAt5, qualityFloorRecall)
	assert.GreaterOrEqual(t, q.MRR, qualityFloorMRR)
}
