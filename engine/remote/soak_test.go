package remote_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/owner"
	"github.com/nova-dev/nova/engine/remote"
	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/engine/workspace"
)

// soakFigures are the heap figures of one soak run.
type soakFigures struct {
	Mid, End       uint64 // HeapInuse after GC at half way and at the end
	MidSys, EndSys uint64 // Sys (what the runtime took from the OS)
	Goroutines     [2]int
}

func heapAfterGC() runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

// ownerSoak serves a fresh workspace through a real owner (socket, rpc
// server, one subscriber reading every event) and sends writes mixed
// writes through a client: additions, racing corrections (three at once,
// one wins), reaffirmations, and a listing and a search now and then, as
// the TUI does on every knowledge event (issue 26, finding 6).
func ownerSoak(tb testing.TB, writes int) soakFigures {
	tb.Helper()
	ctx := context.Background()
	root := tb.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(tb, err)
	env := envOf(map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9", "NOVA_HOME": tb.TempDir()})
	o, err := owner.Serve(ctx, remote.OwnerOptions(engine.Options{Root: root, Getenv: env, NoSync: true, Defaults: nova.Defaults}, "soak", nil))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = o.Close() })
	dial, err := owner.Dialer(root)
	require.NoError(tb, err)
	c := rpc.NewClient(dial, rpc.ClientOptions{Version: "soak"})
	tb.Cleanup(func() { _ = c.Close() })
	ws := remote.NewWorkspace(c)
	sctx, stop := context.WithCancel(ctx)
	tb.Cleanup(stop)
	evs := ws.Subscribe(sctx)
	go func() {
		for range evs { //nolint:revive // drain
		}
	}()

	var fig soakFigures
	var last string
	step := func(i int) {
		switch i % 4 {
		case 0, 1:
			f, err := ws.AddFact(ctx, facts.NewFact{Content: fmt.Sprintf("soak fact %d: the cache key includes the tenant", i)})
			require.NoError(tb, err)
			last = f.ID
		case 2:
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					_, _ = ws.CorrectFact(ctx, last, "racing correction", fmt.Sprintf("soak fact %d corrected", i))
				})
			}
			wg.Wait()
		case 3:
			_, _ = ws.ReaffirmFact(ctx, last) // closed by the correction: refused, which is a path too
			if i%40 == 3 {
				_, err := ws.ListFacts(ctx, facts.ListOptions{Limit: 20})
				require.NoError(tb, err)
				_, err = ws.SearchFacts(ctx, "tenant cache", facts.SearchOptions{Limit: 5})
				require.NoError(tb, err)
			}
		}
	}
	// Warm up: the first search builds the index and the rpc tables.
	for i := range 200 {
		step(i)
	}
	for i := range writes {
		step(200 + i)
		if i == writes/2 {
			m := heapAfterGC()
			fig.Mid, fig.MidSys, fig.Goroutines[0] = m.HeapInuse, m.Sys, runtime.NumGoroutine()
		}
	}
	m := heapAfterGC()
	fig.End, fig.EndSys, fig.Goroutines[1] = m.HeapInuse, m.Sys, runtime.NumGoroutine()
	return fig
}

// TestOwnerSoakHeapFlat: 2,000 mixed writes and racing corrections through
// the owner. Facts are never deleted and the owner keeps every fact in its
// snapshot, so the heap grows by what the new facts take (~1 KB each); the
// second half may add no more than soakPerWrite per write beyond the 20 %
// margin (the leak was ~65 KB per write). The full 20,000-write run is
// BenchmarkOwnerSoak.
func TestOwnerSoakHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	fig := ownerSoak(t, 2000)
	t.Logf("heap in use after GC: %.1f MiB at half way, %.1f MiB at the end; sys %.1f -> %.1f MiB; goroutines %d -> %d",
		mib(fig.Mid), mib(fig.End), mib(fig.MidSys), mib(fig.EndSys), fig.Goroutines[0], fig.Goroutines[1])
	assert.LessOrEqual(t, float64(fig.End), soakBound(fig.Mid, 1000), "the owner's heap grows with writes")
	assert.LessOrEqual(t, fig.Goroutines[1], fig.Goroutines[0]+2, "goroutines pile up")
}

// BenchmarkOwnerSoak is the 20,000-write soak; it reports the heap figures.
func BenchmarkOwnerSoak(b *testing.B) {
	for b.Loop() {
		fig := ownerSoak(b, 20000)
		b.ReportMetric(mib(fig.Mid), "MiB-heap-mid")
		b.ReportMetric(mib(fig.End), "MiB-heap-end")
		b.ReportMetric(mib(fig.EndSys), "MiB-sys-end")
		if float64(fig.End) > soakBound(fig.Mid, 10000) {
			b.Errorf("heap grew from %.1f to %.1f MiB", mib(fig.Mid), mib(fig.End))
		}
	}
}

// soakPerWrite is what one write of the soak may add to the live heap: the
// new fact in the snapshot and in the text index.
const soakPerWrite = 2 << 10

// soakBound is the most the heap may be after writes more writes from mid.
func soakBound(mid uint64, writes int) float64 {
	return 1.2*float64(mid) + float64(writes*soakPerWrite)
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
