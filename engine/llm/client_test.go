package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

func TestResolveHost(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"localhost:11434":          "http://localhost:11434",
		"localhost":                "http://localhost:11434",
		"http://x:1":               "http://x:1",
		"http://box":               "http://box:80",
		"https://box":              "https://box:443",
		"https://box:8443/ollama":  "https://box:8443/ollama",
		"  'http://box:9'  ":       "http://box:9",
		`"10.0.0.2:11434"`:         "http://10.0.0.2:11434",
		"0.0.0.0":                  "http://127.0.0.1:11434",
		"0.0.0.0:8080":             "http://127.0.0.1:8080",
		":8080":                    "http://127.0.0.1:8080",
		"[::]:11434":               "http://[::1]:11434",
		"[fe80::1]:9":              "http://[fe80::1]:9",
		"ollama.com":               "https://ollama.com:443",
		"box:notaport":             "http://box:11434",
		"http://box:99999":         "http://box:80",
		"example.internal:11434/x": "http://example.internal:11434/x",
	}
	for in, want := range cases {
		u, err := llm.ResolveHost(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, u.String(), in)
	}
	_, err := llm.ResolveHost("ftp://box:1")
	require.ErrorContains(t, err, "unsupported scheme")
}

// Not parallel: it sets OLLAMA_HOST.
func TestEmptyHostFollowsOllamaHostEnv(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithVersion("1.2.3"))
	t.Setenv("OLLAMA_HOST", srv.Host())

	c, err := llm.New(llm.Config{})
	require.NoError(t, err)
	assert.Equal(t, srv.URL(), c.Host())
	v, err := c.Version(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "1.2.3", v)

	// Same server as Ollama's own environment rules reach.
	oc, err := api.ClientFromEnvironment()
	require.NoError(t, err)
	ov, err := oc.Version(context.Background())
	require.NoError(t, err)
	assert.Equal(t, v, ov)

	t.Setenv("OLLAMA_HOST", "")
	c, err = llm.New(llm.Config{})
	require.NoError(t, err)
	assert.Equal(t, llm.DefaultHost, c.Host())
}

func TestNewRejectsBadHost(t *testing.T) {
	t.Parallel()
	_, err := llm.New(llm.Config{Host: "unix://sock"})
	require.Error(t, err)
}

func TestVersionListShow(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("llama3.2:3b", "qwen2.5-coder:7b", "nomic-embed-text"), ollamatest.WithVersion("0.34.4"))
	c := newClient(t, srv)
	ctx := context.Background()

	v, err := c.Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, "0.34.4", v)

	models, err := c.ListModels(ctx)
	require.NoError(t, err)
	require.Len(t, models, 3)
	m := models[1]
	assert.Equal(t, "qwen2.5-coder:7b", m.Name)
	assert.Equal(t, "qwen", m.Family)
	assert.Equal(t, "7B", m.ParameterSize)
	assert.Equal(t, "Q4_K_M", m.Quantization)
	assert.Positive(t, m.Size)
	assert.False(t, m.Modified.IsZero())
	assert.NotEmpty(t, m.Digest)

	info, err := c.Show(ctx, "llama3.2:3b")
	require.NoError(t, err)
	assert.Equal(t, "llama", info.Family)
	assert.Equal(t, 131072, info.ContextLength)
	assert.True(t, info.Can("tools"))
	assert.False(t, info.Can("embedding"))

	_, err = c.Show(ctx, "mistral")
	require.ErrorIs(t, err, llm.ErrModelNotFound)
	assert.Contains(t, err.Error(), `ollama pull mistral"`)
}

func TestListModelsRetries500(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.EnqueuePath("/api/tags", ollamatest.ServerError("busy"))
	models, err := newClient(t, srv).ListModels(context.Background())
	require.NoError(t, err)
	assert.Len(t, models, len(ollamatest.DefaultModels()))
	assert.Equal(t, 2, srv.Count("/api/tags"))
}

func TestUnaryTimeout(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.EnqueuePath("/api/version", ollamatest.Empty().WithLatency(time.Minute))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.Timeout = 50 * time.Millisecond })
	_, err := c.Version(context.Background())
	require.ErrorIs(t, err, llm.ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), srv.URL())
}

func TestProbe(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("llama3.2:3b", "nomic-embed-text"))
	p := newClient(t, srv).Probe(context.Background())
	assert.True(t, p.Reachable)
	assert.Equal(t, srv.URL(), p.Host)
	assert.Equal(t, ollamatest.DefaultVersion, p.Version)
	assert.Len(t, p.Models, 2)
	assert.Empty(t, p.Error)
	require.NoError(t, p.Err)
	assert.True(t, p.HasModel("nomic-embed-text"))
	assert.True(t, p.HasModel("LLAMA3.2:3b"))
	assert.False(t, p.HasModel("llama3.2"))
}

func TestProbeDown(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.Close()
	p := newClient(t, srv).Probe(context.Background())
	assert.False(t, p.Reachable)
	assert.Equal(t, srv.URL(), p.Host)
	assert.Empty(t, p.Models)
	assert.NotNil(t, p.Models, "an empty list, not null, in JSON")
	require.ErrorIs(t, p.Err, llm.ErrUnreachable)
	assert.Contains(t, p.Error, srv.URL())
	assert.Contains(t, p.Error, "ollama serve")
}

func TestProbeTagsFailing(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.EnqueuePath("/api/tags", ollamatest.ServerError("corrupt manifest"))
	p := newClient(t, srv).Probe(context.Background())
	assert.True(t, p.Reachable)
	require.ErrorIs(t, p.Err, llm.ErrServer)
	assert.Contains(t, p.Error, "corrupt manifest")
	assert.Equal(t, 1, srv.Count("/api/tags"), "a probe does not retry")
}

func TestErrorsFromAClosedPortNameTheHost(t *testing.T) {
	t.Parallel()
	// Find a port nobody listens on: start a server and close it.
	srv := ollamatest.New(t)
	srv.Close()
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)
	c, err := llm.New(llm.Config{Host: u.Host, Retries: -1})
	require.NoError(t, err)
	_, err = c.ListModels(context.Background())
	require.ErrorIs(t, err, llm.ErrUnreachable)
	assert.Contains(t, err.Error(), "http://"+u.Host)
	var ue *llm.UnreachableError
	require.ErrorAs(t, err, &ue)
	require.Error(t, errors.Unwrap(ue))
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithEmbedDim(32))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.KeepAlive = time.Minute })
	ctx := context.Background()
	inputs := []string{"write the migration", "write a migration script", "paint the fence"}

	a, err := c.Embed(ctx, "nomic-embed-text", inputs)
	require.NoError(t, err)
	b, err := c.Embed(ctx, "nomic-embed-text", inputs)
	require.NoError(t, err)
	require.Len(t, a, 3)
	assert.Equal(t, a, b, "deterministic")
	for i, in := range inputs {
		assert.Equal(t, ollamatest.Embedding(in, 32), a[i])
	}
	assert.Greater(t, cosine(a[0], a[1]), cosine(a[0], a[2]))

	reqs := srv.EmbedRequests()
	require.Len(t, reqs, 2)
	require.NotNil(t, reqs[0].KeepAlive)
	assert.Equal(t, time.Minute, reqs[0].KeepAlive.Duration)

	none, err := c.Embed(ctx, "nomic-embed-text", nil)
	require.NoError(t, err)
	assert.Empty(t, none)
	assert.Len(t, srv.EmbedRequests(), 2, "no request for no input")

	_, err = c.Embed(ctx, "mxbai-embed-large", inputs)
	require.ErrorIs(t, err, llm.ErrModelNotFound)

	srv.EnqueuePath("/api/embed", ollamatest.HTTPError(http.StatusServiceUnavailable, "server busy, please try again"))
	got, err := c.Embed(ctx, "nomic-embed-text", inputs[:1])
	require.NoError(t, err)
	assert.Len(t, got, 1)
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s // vectors are L2-normalised
}
