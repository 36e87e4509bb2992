package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

// Target: a cold `nova vault search` process on a 100k-node vault finishes
// in < 500 ms wall. The benchmarks below report wall and CPU (user+system of
// the child) percentiles per process.

var (
	coldMu   sync.Mutex
	coldDirs = map[int]string{}
)

// coldWorkspace is a workspace whose vault holds n generated nodes
// (vaulttest: realistic lengths, 20 tags, 5 types, 40 % with a body).
func coldWorkspace(b *testing.B, n int) string {
	b.Helper()
	coldMu.Lock()
	defer coldMu.Unlock()
	if dir, ok := coldDirs[n]; ok {
		return dir
	}
	var coldErr error
	func() {
		// Under the binary's directory, which TestMain removes: b.TempDir
		// would vanish after the first benchmark that asked for it.
		dir, err := os.MkdirTemp(filepath.Dir(novaBinary(b)), "cold-workspace")
		if err != nil {
			coldErr = err
			return
		}
		if out, err := exec.Command(novaBinary(b), "init", dir).CombinedOutput(); err != nil {
			coldErr = err
			b.Log(string(out))
			return
		}
		db, err := storage.Open(filepath.Join(dir, ".nova", "nova.db"), storage.Options{NoSync: true})
		if err != nil {
			coldErr = err
			return
		}
		v := vault.New(db, vault.Options{Tier: vault.TierPremium})
		st, _ := v.Stats(context.Background())
		coldErr = vaulttest.Fill(context.Background(), v, n-st.Nodes, 7, vaulttest.Options{})
		// Build the index so Close saves its snapshot, as a real session does.
		if coldErr == nil {
			coldErr = v.WaitIndex(context.Background())
		}
		_ = v.Close()
		_ = db.Close()
		coldDirs[n] = dir
	}()
	if coldErr != nil {
		b.Fatal(coldErr)
	}
	return coldDirs[n]
}

func benchmarkColdProcess(b *testing.B, n int, args func(i int) []string) {
	dir := coldWorkspace(b, n)
	var wall, cpu []time.Duration
	i := 0
	for b.Loop() {
		cmd := exec.Command(novaBinary(b), args(i)...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + dir, "NO_COLOR=1", "OLLAMA_HOST=127.0.0.1:1"}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%v: %v\n%s", cmd.Args, err, errOut.String())
		}
		wall = append(wall, time.Since(t0))
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		if !strings.HasPrefix(out.String(), "[") {
			b.Fatalf("unexpected output %q", out.String())
		}
		i++
	}
	slices.Sort(wall)
	slices.Sort(cpu)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	p := func(s []time.Duration, q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	b.ReportMetric(ms(p(wall, 0.5)), "wall-p50-ms")
	b.ReportMetric(ms(p(wall, 0.95)), "wall-p95-ms")
	b.ReportMetric(ms(p(cpu, 0.5)), "cpu-p50-ms")
}

func benchmarkColdSearch(b *testing.B, n int) {
	qs := vaulttest.Queries(64, 5)
	benchmarkColdProcess(b, n, func(i int) []string {
		return append([]string{"vault", "search"}, append(strings.Fields(qs[i%len(qs)]), "--json", "--limit", "10")...)
	})
}

// BenchmarkColdVaultSearch100k runs `nova vault search QUERY --json` as a
// fresh process each time (the full-text index is built in the process).
func BenchmarkColdVaultSearch100k(b *testing.B) { benchmarkColdSearch(b, 100_000) }

// BenchmarkColdVaultSearch10k and 1k show how the cold path scales.
func BenchmarkColdVaultSearch10k(b *testing.B) { benchmarkColdSearch(b, 10_000) }
func BenchmarkColdVaultSearch1k(b *testing.B)  { benchmarkColdSearch(b, 1_000) }

// BenchmarkColdVaultList100k: `nova vault list --tag T --limit 20 --json`,
// answered from the bbolt indexes without the full-text index.
func BenchmarkColdVaultList100k(b *testing.B) {
	benchmarkColdProcess(b, 100_000, func(i int) []string {
		return []string{"vault", "list", "--tag", vaulttest.Tags[i%len(vaulttest.Tags)], "--type", "pattern", "--limit", "20", "--json"}
	})
}
