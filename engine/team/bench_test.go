package team

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// BenchmarkPropagationLag measures, on loopback, the time from a local
// write in one workspace to the record applied in another (goal: p95 ≤ 250
// ms). Reported: p50-ms and p95-ms.
func BenchmarkPropagationLag(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	hub := startTestHub(b, dir, 0)
	admin, _, err := AdminKey(dir)
	require.NoError(b, err)
	c := Config{URL: hub.URL, Name: "lag"}
	a, r := newStore(b, nil), newStore(b, nil)
	addMembers(b, c, admin, a, r)
	arrived := make(chan struct{}, 1024)
	ma := startMember(b, a, c)
	mr := &member{store: r, syncer: NewSyncer(r, c, nil), done: make(chan struct{})}
	mr.syncer.OnApply = func(res ApplyResult) {
		for range res.Applied {
			arrived <- struct{}{}
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	mr.cancel = cancel
	go func() { defer close(mr.done); _ = mr.syncer.Run(cctx) }()
	b.Cleanup(mr.stop)
	membersKnown(b, 2, ma, mr)
	// Warm up: the consumer is running once the first record arrives.
	_, err = a.AddFact(ctx, FactBody{Content: "warm up"})
	require.NoError(b, err)
	<-arrived
	lags := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		_, err := a.AddFact(ctx, FactBody{Content: fmt.Sprintf("lag %d", i)})
		require.NoError(b, err)
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			b.Fatal("a record did not arrive in 10s")
		}
		lags = append(lags, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lags)
	pct := func(p float64) float64 {
		return float64(lags[min(len(lags)-1, int(p*float64(len(lags))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}

// BenchmarkFirstSync10k measures a new workspace's first sync of 10,000
// shared records already on the stream (goal ≤ 5 s).
func BenchmarkFirstSync10k(b *testing.B) {
	const n = 10000
	ctx := context.Background()
	dir := b.TempDir()
	hub := startTestHub(b, dir, 0)
	admin, _, err := AdminKey(dir)
	require.NoError(b, err)
	c := Config{URL: hub.URL, Name: "first"}
	a := newStore(b, nil)
	require.NoError(b, a.db.Update(func(tx *bolt.Tx) error {
		for i := range n {
			if _, _, err := a.WriteTx(tx, KindFact, fmt.Sprintf("f-%05d", i), FactBody{Content: fmt.Sprintf("shared fact number %d", i)}); err != nil {
				return err
			}
		}
		return nil
	}))
	addMembers(b, c, admin, a)
	ma := startMember(b, a, c)
	require.Eventually(b, func() bool {
		st, err := a.LocalStatus(ctx)
		return err == nil && st.Outbox == 0
	}, 60*time.Second, 50*time.Millisecond)
	ma.stop()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		fresh := newStore(b, nil)
		addMembers(b, c, admin, fresh)
		b.StartTimer()
		t0 := time.Now()
		done := make(chan struct{})
		got := 0
		y := NewSyncer(fresh, c, nil)
		y.OnApply = func(res ApplyResult) {
			if got += res.Applied; got == n {
				close(done)
			}
		}
		cctx, cancel := context.WithCancel(ctx)
		stopped := make(chan struct{})
		go func() { defer close(stopped); _ = y.Run(cctx) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			b.Fatalf("first sync: %d of %d records after 60s", got, n)
		}
		b.ReportMetric(float64(time.Since(t0).Milliseconds()), "ms/first-sync")
		b.StopTimer()
		cancel()
		<-stopped
		_, held, err := fresh.Digest(ctx)
		require.NoError(b, err)
		require.Equal(b, n, held)
	}
}
