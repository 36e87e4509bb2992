package vault_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/vault"
)

// seedRetrieval adds a small, varied vault.
func seedRetrieval(e *testEnv) map[string]vault.Node {
	nodes := map[string]vault.Node{}
	seed := []struct {
		key string
		n   vault.Node
	}{
		{"session", vault.Node{Type: vault.Decision, Title: "Cookie sessions", Content: "Keep the session in an httpOnly cookie",
			Body: "Users stay logged in across reloads because the login token lives in a cookie the browser sends itself."}},
		{"retry", vault.Node{Type: vault.Pattern, Content: "Retry transient network failures with exponential backoff",
			Body: "Jitter prevents thundering herds; give up after five attempts."}},
		{"zod", vault.Node{Type: vault.Pattern, Content: "Validate request bodies with a Zod schema", Tags: []string{"typescript", "validation"}}},
		{"tests", vault.Node{Type: vault.Strategy, Content: "Write table-driven tests for parsers", Tags: []string{"go", "testing"},
			Body: "Each case names the input and the expected error; t.Run gives each its own line in the output."}},
		{"mistake", vault.Node{Type: vault.Mistake, Content: "Logged the password in plain text during signup", Confidence: 0.9}},
	}
	for _, s := range seed {
		nodes[s.key] = e.add(s.n)
	}
	return nodes
}

func TestSearchFindsParaphrasesThroughBodyAndSynonyms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := seedRetrieval(e)
	cases := map[string]string{
		"keep users signed in after refresh":     "session", // body + synonym (signin ~ login ~ session)
		"how many attempts before giving up":     "retry",   // body only: attempts, giving
		"parse errors unit test cases":           "tests",   // body: "case", "error", test
		"request validation schema":              "zod",     // title/content/tags
		"passwords written to logs as plaintext": "mistake", // stemming: passwords, logs
		"jitter thundering herd":                 "retry",   // words found only in a body
		"cookie":                                 "session", // exact
		"cookies":                                "session", // stemming
		"cookei":                                 "session", // a typo
		"backof":                                 "retry",   // a prefix
	}
	for q, want := range cases {
		hits, err := e.v.GetRelevantPatterns(t.Context(), q, 3)
		require.NoError(t, err, q)
		require.NotEmpty(t, hits, q)
		assert.Equal(t, n[want].ID, hits[0].ID, "query %q", q)
		assert.Positive(t, hits[0].Score, q)
		assert.LessOrEqual(t, hits[0].Score, 1.0, q)
	}
}

func TestSearchNeedsKeywordOverlap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seedRetrieval(e)
	for _, q := range []string{"", "   ", "the of and", "kubernetes helm chart"} {
		hits, err := e.v.Search(t.Context(), q, vault.SearchOptions{})
		require.NoError(t, err, q)
		assert.Empty(t, hits, "query %q shares no term with any node", q)
	}
}

func TestSearchBlendsConfidenceAndHelpfulness(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	low := e.add(vault.Node{Type: vault.Pattern, Content: "Batch database writes in one transaction", Confidence: 0.3})
	high := e.add(vault.Node{Type: vault.Pattern, Content: "Batch database writes in one transaction!", Confidence: 0.95})
	hits, err := e.v.Search(t.Context(), "batch database writes", vault.SearchOptions{})
	require.NoError(t, err)
	require.Len(t, hits, 2)
	assert.Equal(t, []uint64{high.ID, low.ID}, scoredIDs(hits), "equal relevance: confidence decides")
	assert.Greater(t, hits[0].Score, hits[1].Score)
	assert.InDelta(t, hits[0].Relevance, hits[1].Relevance, 1e-9)

	for range 20 {
		_, err = e.v.IncrementHelpful(t.Context(), low.ID)
		require.NoError(t, err)
	}
	_, err = e.v.Update(t.Context(), low.ID, vault.Patch{Confidence: vault.Ptr(0.95)})
	require.NoError(t, err)
	hits, err = e.v.Search(t.Context(), "batch database writes", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, low.ID, hits[0].ID, "same confidence: the helpful one wins")
}

func TestSearchFiltersAndLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 12 {
		e.add(vault.Node{Type: vault.NodeTypes()[i%5], Content: "logging guidance number " + strings.Repeat("x", i),
			Tags: []string{[]string{"ops", "dev"}[i%2]}, Confidence: 0.5 + float64(i)/30})
	}
	hits, err := e.v.Search(t.Context(), "logging guidance", vault.SearchOptions{Limit: 4})
	require.NoError(t, err)
	assert.Len(t, hits, 4)
	hits, err = e.v.Search(t.Context(), "logging guidance", vault.SearchOptions{Limit: 50, Type: vault.Mistake})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	for _, h := range hits {
		assert.Equal(t, vault.Mistake, h.Type)
	}
	hits, err = e.v.Search(t.Context(), "logging guidance", vault.SearchOptions{Limit: 50, Tag: "#OPS", MinConfidence: 0.8})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	for _, h := range hits {
		assert.Contains(t, h.Tags, "ops")
		assert.GreaterOrEqual(t, h.Confidence, 0.8)
	}
	_, err = e.v.Search(t.Context(), "x", vault.SearchOptions{Type: "Essay"})
	assert.ErrorIs(t, err, vault.ErrInvalid)
	_, err = e.v.Search(t.Context(), "x", vault.SearchOptions{MinConfidence: 3})
	assert.ErrorIs(t, err, vault.ErrInvalid)
}

func TestSearchFollowsWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	require.NoError(t, e.v.WaitIndex(t.Context()))
	n := e.add(vault.Node{Type: vault.Pattern, Content: "Pin dependency versions"})
	hits, err := e.v.Search(t.Context(), "pin versions", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{n.ID}, scoredIDs(hits))
	_, err = e.v.Update(t.Context(), n.ID, vault.Patch{Content: vault.Ptr("Vendor the modules"), Body: vault.Ptr("reproducible builds offline")})
	require.NoError(t, err)
	hits, err = e.v.Search(t.Context(), "pin versions", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Empty(t, hits, "the old text is gone from the index")
	hits, err = e.v.Search(t.Context(), "reproducible offline", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{n.ID}, scoredIDs(hits))
	_, err = e.v.Demote(t.Context(), n.ID)
	require.NoError(t, err)
	hits, err = e.v.Search(t.Context(), "reproducible offline", vault.SearchOptions{})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.InDelta(t, 0.6, hits[0].Confidence, 1e-9, "listed nodes are current")
	require.NoError(t, e.v.Remove(t.Context(), n.ID))
	hits, err = e.v.Search(t.Context(), "reproducible offline", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Empty(t, hits)
}

func embedVault(t *testing.T, srv *ollamatest.Server, timeout time.Duration) *testEnv {
	t.Helper()
	c, err := llm.New(llm.Config{Host: srv.URL(), Retries: -1})
	require.NoError(t, err)
	return newEnv(t, func(o *vault.Options) {
		o.Embedder, o.EmbedModel, o.EmbedTimeout = c, "nomic-embed-text", timeout
	})
}

func TestEmbeddingsRerankTopResults(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("nomic-embed-text"))
	e := embedVault(t, srv, 2*time.Second)
	// Equal BM25 relevance for "parser"; the fake embedder's bag-of-words
	// vectors favour the node sharing more words with the query.
	a := e.add(vault.Node{Type: vault.Pattern, Content: "parser guidance alpha beta gamma delta", Confidence: 0.9})
	b := e.add(vault.Node{Type: vault.Pattern, Content: "parser guidance fuzz corpus seeds crash", Confidence: 0.7})
	plain, err := e.v.Search(t.Context(), "parser fuzz corpus crash seeds", vault.SearchOptions{NoEmbeddings: true})
	require.NoError(t, err)
	require.Len(t, plain, 2)
	hits, err := e.v.Search(t.Context(), "parser fuzz corpus crash seeds", vault.SearchOptions{})
	require.NoError(t, err)
	require.Len(t, hits, 2)
	assert.Equal(t, b.ID, hits[0].ID)
	assert.Equal(t, a.ID, hits[1].ID)
	reqs := srv.EmbedRequests()
	require.Len(t, reqs, 1, "one batched request: the query and the candidates")
	assert.Equal(t, "nomic-embed-text", reqs[0].Model)

	_, err = e.v.Search(t.Context(), "parser crash", vault.SearchOptions{})
	require.NoError(t, err)
	reqs = srv.EmbedRequests()
	require.Len(t, reqs, 2)
	in, ok := reqs[1].Input.([]any)
	require.True(t, ok)
	assert.Len(t, in, 1, "node vectors are cached: only the query is embedded")
}

func TestEmbeddingFailuresFallBackSilently(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("nomic-embed-text"))
	srv.EnqueuePath("/api/embed", ollamatest.ServerError("model crashed"))
	e := embedVault(t, srv, 2*time.Second)
	seedRetrieval(e)
	want, err := e.v.Search(t.Context(), "cookie session", vault.SearchOptions{NoEmbeddings: true})
	require.NoError(t, err)
	got, err := e.v.Search(t.Context(), "cookie session", vault.SearchOptions{})
	require.NoError(t, err, "a failing embedder is not an error")
	assert.Equal(t, scoredIDs(want), scoredIDs(got))
	n := srv.Count("/api/embed")
	_, err = e.v.Search(t.Context(), "retry backoff", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, n, srv.Count("/api/embed"), "after a failure embeddings rest for a while")
}

func TestEmbeddingTimeoutIsBounded(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("nomic-embed-text"))
	srv.EnqueuePath("/api/embed", ollamatest.Text("").WithLatency(3*time.Second))
	e := embedVault(t, srv, 150*time.Millisecond)
	seedRetrieval(e)
	require.NoError(t, e.v.WaitIndex(t.Context()))
	start := time.Now()
	hits, err := e.v.Search(t.Context(), "cookie session", vault.SearchOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, hits)
	assert.Less(t, time.Since(start), 2*time.Second, "a slow Ollama costs at most the embed timeout")
}

func TestEmbeddingsUnreachableServerWorksOffline(t *testing.T) {
	t.Parallel()
	c, err := llm.New(llm.Config{Host: "127.0.0.1:1", Retries: -1})
	require.NoError(t, err)
	e := newEnv(t, func(o *vault.Options) { o.Embedder, o.EmbedModel = c, "nomic-embed-text" })
	n := seedRetrieval(e)
	hits, err := e.v.GetRelevantPatterns(t.Context(), "httpOnly cookie", 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, n["session"].ID, hits[0].ID)
}

func TestEmbedServerErrorStatusesFallBack(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNotFound, http.StatusBadRequest} {
		srv := ollamatest.New(t, ollamatest.WithModels("nomic-embed-text"))
		srv.EnqueuePath("/api/embed", ollamatest.HTTPError(status, "nope"))
		e := embedVault(t, srv, time.Second)
		seedRetrieval(e)
		hits, err := e.v.Search(t.Context(), "zod schema", vault.SearchOptions{})
		require.NoError(t, err, status)
		assert.NotEmpty(t, hits, status)
	}
}
