package vault_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

var (
	jsonlOnce sync.Once
	jsonl100k []byte
)

// flat100k is the speed issue's generated vault as a `nova vault import` file.
func flat100k(b *testing.B) []byte {
	jsonlOnce.Do(func() {
		var buf bytes.Buffer
		if err := vaulttest.WriteJSONL(&buf, vaulttest.Flat(100_000, 16)); err != nil {
			b.Fatal(err)
		}
		jsonl100k = buf.Bytes()
	})
	return jsonl100k
}

// peakHeap samples the Go heap while fn runs and returns the largest value seen (bytes
// of live and not yet collected objects, as the runtime reports them).
func peakHeap(fn func()) uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			metrics.Read(s)
			mu.Lock()
			peak = max(peak, s[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	fn()
	close(done)
	wg.Wait()
	return peak
}

// BenchmarkImportJSONL100k is `nova vault import` of the 100k generated nodes into a
// fresh vault (real bbolt file, fsync'd commit): the target is ≤ 3 s CPU and
// ≤ 250 MiB for the whole process (cpu-ms/op here; peak-heap-MiB is the Go heap).
func BenchmarkImportJSONL100k(b *testing.B) {
	data := flat100k(b)
	ctx := context.Background()
	cpu := processCPU()
	var peak uint64
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		db, err := storage.Open(filepath.Join(dir, "nova.db"), storage.Options{})
		if err != nil {
			b.Fatal(err)
		}
		v := vault.New(db, vault.Options{Tier: vault.TierPremium}) // the free tier refuses more than 500 nodes
		runtime.GC()
		b.StartTimer()
		peak = max(peak, peakHeap(func() {
			if _, err := v.Import(ctx, bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}))
		b.StopTimer()
		_ = v.Close()
		_ = db.Close()
		if fi, err := os.Stat(filepath.Join(dir, "nova.db")); err == nil {
			b.ReportMetric(float64(fi.Size())/(1<<20), "db-MiB")
		}
		b.StartTimer()
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
