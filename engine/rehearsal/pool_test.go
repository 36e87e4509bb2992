package rehearsal

import (
	"context"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
)

// hostLatency is each fake host's time per branch, as in the goal
// (3 branches on 3 hosts of 1 s latency end in about 1 s).
const hostLatency = time.Second

// poolEnv is newEnv with its model calls spread over n fake Ollama hosts of
// one slot each (one GPU: a second call waits), each answering after
// latency.
func poolEnv(t testing.TB, n int, latency time.Duration) (*env, []*ollamatest.Server, *llm.Pool) {
	t.Helper()
	e := newEnv(t, rehearsaltest.Three(), 0)
	script := rehearsaltest.Handler(rehearsaltest.Three(), 0, e.stats)
	var srvs []*ollamatest.Server
	var hosts []llm.Provider
	for range n {
		srv := ollamatest.New(t, ollamatest.WithSlots(1), ollamatest.WithHandler(func(i int, req api.ChatRequest) ollamatest.Reply {
			return script(i, req).WithLatency(latency)
		}))
		c, err := llm.New(llm.Config{Host: srv.URL(), Retries: 1, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
		require.NoError(t, err)
		srvs, hosts = append(srvs, srv), append(hosts, c)
	}
	p, err := llm.NewPool(llm.PoolConfig{Name: "local", Type: "ollama"}, hosts...)
	require.NoError(t, err)
	e.svc.LLM = p
	e.cfg.Rehearsal.Concurrency = 3
	return e, srvs, p
}

// Three branches on three one-slot hosts run at once: about one branch's
// time, where one host would take three.
func TestRehearsalBranchesSpreadOverHosts(t *testing.T) {
	t.Parallel()
	e, srvs, p := poolEnv(t, 3, hostLatency)
	start := time.Now()
	s, err := e.svc.Rehearse(context.Background(), Request{Task: task("T1", "x"), Branches: 3, Force: true})
	took := time.Since(start)
	require.NoError(t, err)
	assert.Len(t, s.Branches, 3)
	for _, srv := range srvs {
		assert.Equal(t, 1, srv.Count("/api/chat"), "one branch per host")
	}
	assert.Less(t, took, time.Duration(1.5*float64(hostLatency)), "three branches in about one branch's time")
	for _, h := range p.Snapshot() {
		assert.Equal(t, int64(1), h.Served)
	}
}

// A host killed while it works on a branch: the branch moves to another
// host and the rehearsal still has its three branches.
func TestRehearsalSurvivesAHostKilledMidRun(t *testing.T) {
	t.Parallel()
	e, srvs, p := poolEnv(t, 3, hostLatency)
	p.Hosts(context.Background())
	go func() {
		// Kill host 0 once it holds its branch.
		for srvs[0].Count("/api/chat") == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		srvs[0].Close()
	}()
	start := time.Now()
	s, err := e.svc.Rehearse(context.Background(), Request{Task: task("T1", "x"), Branches: 3, Force: true})
	require.NoError(t, err)
	assert.Len(t, s.Branches, 3, "the killed host's branch was redone elsewhere")
	assert.Less(t, time.Since(start), 3*hostLatency+time.Second)
	snap := p.Snapshot()
	assert.False(t, snap[0].Up, "the killed host is down")
	assert.Equal(t, int64(3), snap[1].Served+snap[2].Served)
}

// BenchmarkPoolBranches: three rehearsal branches on three fake hosts of
// one slot and 1 s latency each, against one branch and against three
// branches on one such host. ratio = t(3 branches, 3 hosts) / t(1 branch)
// (goal ≤ 1.2); one-host = t(3 branches, 1 host) / t(1 branch) (about 3).
func BenchmarkPoolBranches(b *testing.B) {
	pooled, _, _ := poolEnv(b, 3, hostLatency)
	single, _, _ := poolEnv(b, 1, hostLatency)
	ctx := context.Background()
	run := func(e *env, n int) time.Duration {
		start := time.Now()
		if _, err := e.svc.Rehearse(ctx, Request{Task: task("T1", "x"), Branches: n, Force: true}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var one, three, oneHost time.Duration
	for b.Loop() {
		one += run(pooled, 1)
		three += run(pooled, 3)
		oneHost += run(single, 3)
	}
	b.ReportMetric(float64(one.Milliseconds())/float64(b.N), "ms/1-branch")
	b.ReportMetric(float64(three.Milliseconds())/float64(b.N), "ms/3-branches-3-hosts")
	b.ReportMetric(float64(oneHost.Milliseconds())/float64(b.N), "ms/3-branches-1-host")
	b.ReportMetric(float64(three)/float64(one), "ratio")
	b.ReportMetric(float64(oneHost)/float64(one), "one-host-ratio")
}
