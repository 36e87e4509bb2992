package importer

import (
	"context"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine/textindex"
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

// TestAllQueryWordsOutrankOne is the ranking flaw, on the shipped starter library:
// a short node without a title that holds every word of the query must rank above nodes
// whose title and summary hold only one of them, however much their bodies mention it.
func TestAllQueryWordsOutrankOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	ctx := context.Background()
	sub, err := fs.Sub(nova.Defaults, ".nova/patterns")
	require.NoError(t, err)
	res, err := e.im.Import(ctx, FSSource("embedded:.nova/patterns", sub), Options{User: StarterUser})
	require.NoError(t, err)
	require.Positive(t, res.Loaded)
	added, err := e.v.Learn(ctx, vault.Node{Type: vault.Pattern, Content: "Table driven tests keep cases readable"})
	require.NoError(t, err)
	require.True(t, added.Created)

	hits, err := e.v.Search(ctx, "table tests", vault.SearchOptions{Limit: 10, NoEmbeddings: true})
	require.NoError(t, err)
	words := func(n vault.Node) int {
		have := map[string]bool{}
		for _, w := range textindex.Analyze(n.Title + " " + n.Content) {
			have[w] = true
		}
		k := 0
		for _, w := range textindex.Analyze("table tests") {
			if have[w] {
				k++
			}
		}
		return k
	}
	rank := -1
	for i, h := range hits {
		if h.ID == added.Node.ID {
			rank = i
		}
	}
	require.GreaterOrEqual(t, rank, 0, "the new node is found")
	oneWord := 0
	for i, h := range hits {
		if words(h.Node) == 1 {
			oneWord++
			assert.Less(t, rank, i, "%q (one query word in its title and summary) ranks above the node holding both", h.Title)
		}
	}
	require.Positive(t, oneWord, "the library has nodes about one of the words")
}
