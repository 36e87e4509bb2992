package llm_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/llm/openaitest"
)

// slowHosts starts n fake Ollama hosts with one slot each, answering after
// latency.
func slowHosts(t *testing.T, n int, latency time.Duration, models ...string) []*ollamatest.Server {
	t.Helper()
	if len(models) == 0 {
		models = []string{model}
	}
	out := make([]*ollamatest.Server, n)
	for i := range out {
		out[i] = ollamatest.New(t, ollamatest.WithModels(models...), ollamatest.WithSlots(1),
			ollamatest.WithHandler(func(int, api.ChatRequest) ollamatest.Reply {
				return ollamatest.Text("done").WithLatency(latency)
			}))
	}
	return out
}

func poolOf(t *testing.T, srvs ...*ollamatest.Server) *llm.Pool {
	t.Helper()
	var hs []llm.Provider
	for _, s := range srvs {
		hs = append(hs, newClient(t, s))
	}
	p, err := llm.NewPool(llm.PoolConfig{Name: "local", Type: "ollama"}, hs...)
	require.NoError(t, err)
	return p
}

func chatN(t *testing.T, p llm.Provider, n int) (time.Duration, []error) {
	t.Helper()
	start := time.Now()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = p.Chat(t.Context(), llm.ChatRequest{Model: model, Messages: user("x")}, nil)
		})
	}
	wg.Wait()
	return time.Since(start), errs
}

func TestPoolSpreadsConcurrentCallsOverHosts(t *testing.T) {
	t.Parallel()
	srvs := slowHosts(t, 3, 300*time.Millisecond)
	p := poolOf(t, srvs...)
	took, errs := chatN(t, p, 3)
	for _, err := range errs {
		require.NoError(t, err)
	}
	for _, s := range srvs {
		assert.Equal(t, 1, s.Count("/api/chat"), "one call per host")
	}
	assert.Less(t, took, 800*time.Millisecond, "three one-slot hosts serve three calls at once")
	for _, h := range p.Snapshot() {
		assert.True(t, h.Up)
		assert.Equal(t, int64(1), h.Served)
		assert.Contains(t, h.Loaded, model)
		assert.Equal(t, 0, h.InFlight)
	}
}

func TestPoolRoutesToHostsHavingTheModel(t *testing.T) {
	t.Parallel()
	with := ollamatest.New(t, ollamatest.WithModels(model))
	without := ollamatest.New(t, ollamatest.WithModels("other:1b"))
	p := poolOf(t, without, with)
	for range 3 {
		_, err := p.Chat(t.Context(), llm.ChatRequest{Model: model, Messages: user("x")}, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, 3, with.Count("/api/chat"))
	assert.Equal(t, 0, without.Count("/api/chat"))
}

func TestPoolMovesWorkOffAHostKilledMidRequest(t *testing.T) {
	t.Parallel()
	srvs := slowHosts(t, 2, 400*time.Millisecond)
	p := poolOf(t, srvs...)
	// Warm the pool so both hosts are known up, then kill host 0 while it
	// holds a request.
	p.Hosts(t.Context())
	started := make(chan struct{})
	srvs[0].SetHandler(func(int, api.ChatRequest) ollamatest.Reply {
		close(started)
		return ollamatest.Text("never").WithLatency(10 * time.Second)
	})
	srvs[1].SetHandler(func(int, api.ChatRequest) ollamatest.Reply { return ollamatest.Text("from host 1") })
	go func() {
		<-started
		srvs[0].Close()
	}()
	var resets int
	res, err := p.Chat(t.Context(), llm.ChatRequest{Model: model, Messages: user("x")}, func(d llm.Delta) {
		if d.Reset {
			resets++
		}
	})
	require.NoError(t, err)
	assert.Equal(t, "from host 1", res.Content)
	snap := p.Snapshot()
	assert.False(t, snap[0].Up, "the dead host is marked down")
	assert.Contains(t, snap[0].Error, srvs[0].Host())
	assert.True(t, snap[1].Up)
}

func TestPoolAllHostsDownIsUnreachable(t *testing.T) {
	t.Parallel()
	srvs := slowHosts(t, 2, 0)
	p := poolOf(t, srvs...)
	for _, s := range srvs {
		s.Close()
	}
	_, err := p.Chat(t.Context(), llm.ChatRequest{Model: model, Messages: user("x")}, nil)
	require.ErrorIs(t, err, llm.ErrUnreachable)
	pr := p.Probe(t.Context())
	assert.False(t, pr.Reachable)
	assert.Contains(t, pr.Error, srvs[1].Host())
}

func TestRouterRoutesByProviderPrefix(t *testing.T) {
	t.Parallel()
	native := ollamatest.New(t, ollamatest.WithModels(model), ollamatest.WithReplies(ollamatest.Text("native")))
	oa := openaitest.New(t, openaitest.WithReplies(openaitest.Text("compat")))
	np, err := llm.NewPool(llm.PoolConfig{Name: "ollama", Type: "ollama"}, newClient(t, native))
	require.NoError(t, err)
	op, err := llm.NewPool(llm.PoolConfig{Name: "lms", Type: "openai"}, newOpenAI(t, oa, ""))
	require.NoError(t, err)
	r, err := llm.NewRouter("ollama", map[string]llm.Provider{"ollama": np, "lms": op})
	require.NoError(t, err)

	res, err := r.Chat(t.Context(), llm.ChatRequest{Model: "lms/" + oaModel, Messages: user("x")}, nil)
	require.NoError(t, err)
	assert.Equal(t, "compat", res.Content)
	assert.Equal(t, oaModel, oa.Requests()[0].Body["model"], "the prefix is not sent")

	res, err = r.Chat(t.Context(), llm.ChatRequest{Model: model, Messages: user("x")}, nil)
	require.NoError(t, err)
	assert.Equal(t, "native", res.Content)

	w, err := r.Window(t.Context(), "lms/"+oaModel, 0)
	require.NoError(t, err)
	assert.Equal(t, 32768, w.Tokens)

	hosts := r.Hosts(context.Background())
	require.Len(t, hosts, 2)
	assert.Equal(t, "lms", hosts[0].Provider)
	assert.Equal(t, "ollama", hosts[1].Provider)

	pv, name := llm.SplitModel("hf.co/user/m:q4", r.Names())
	assert.Empty(t, pv)
	assert.Equal(t, "hf.co/user/m:q4", name)
}
