package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

// benchEnv opens a fresh workspace database with fsync on (a real commit) unless noSync.
func benchEnv(b *testing.B, noSync bool) (*Importer, func()) {
	b.Helper()
	dir, err := os.MkdirTemp(b.TempDir(), "db")
	if err != nil {
		b.Fatal(err)
	}
	db, err := storage.Open(filepath.Join(dir, "nova.db"), storage.Options{NoSync: noSync})
	if err != nil {
		b.Fatal(err)
	}
	v := vault.New(db, vault.Options{Tier: vault.TierPremium}) // generated libraries hold more than the free tier keeps
	return New(db, v, Config{}), func() { _ = v.Close(); _ = db.Close(); _ = os.RemoveAll(dir) }
}

// BenchmarkCorpusDryRunAndImport is the target: a dry run of the real corpus followed
// by the real import, fsync'd commit included, into a fresh vault (target < 500 ms together).
func BenchmarkCorpusDryRunAndImport(b *testing.B) {
	root := corpusDir(b)
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		im, done := benchEnv(b, false)
		c0 := processCPU()
		b.StartTimer()
		dry, err := im.Import(context.Background(), DirSource(root), Options{DryRun: true})
		if err != nil {
			b.Fatal(err)
		}
		res, err := im.Import(context.Background(), DirSource(root), Options{})
		if err != nil || res.Loaded != dry.Loaded || res.Batch == 0 {
			b.Fatalf("import: %v (%d vs %d)", err, res.Loaded, dry.Loaded)
		}
		b.StopTimer()
		cpu += processCPU() - c0
		done()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkCorpusWizardFlow is the TUI's path: one scan, a preview, then the import of the
// same plan (fsync'd commit included).
func BenchmarkCorpusWizardFlow(b *testing.B) {
	root := corpusDir(b)
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		im, done := benchEnv(b, false)
		c0 := processCPU()
		b.StartTimer()
		p, err := im.Scan(context.Background(), DirSource(root), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := im.Preview(context.Background(), p, Options{}); err != nil {
			b.Fatal(err)
		}
		if _, err := im.Apply(context.Background(), p, Options{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += processCPU() - c0
		done()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkCorpusReimport is the no-op re-import of an unchanged corpus.
func BenchmarkCorpusReimport(b *testing.B) {
	root := corpusDir(b)
	im, done := benchEnv(b, false)
	defer done()
	if _, err := im.Import(context.Background(), DirSource(root), Options{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := im.Import(context.Background(), DirSource(root), Options{})
		if err != nil || res.Batch != 0 {
			b.Fatalf("re-import: %v batch %d", err, res.Batch)
		}
	}
}

// BenchmarkImportGenerated imports generated libraries of 1,000 and 10,000 distinct files
// (≈ 2 KB each, 20 categories) into a fresh vault; ns/file shows whether the cost is linear.
func BenchmarkImportGenerated(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			generateLibrary(b, dir, n)
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				im, done := benchEnv(b, false)
				c0 := processCPU()
				b.StartTimer()
				res, err := im.Import(context.Background(), DirSource(dir), Options{})
				if err != nil {
					b.Fatal(err)
				}
				if res.Loaded != n {
					b.Fatalf("loaded %d of %d (%d duplicates, %d errors)", res.Loaded, n, res.Duplicates, res.Errors)
				}
				b.StopTimer()
				cpu += processCPU() - c0
				done()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/file")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/file")
		})
	}
}

// generateLibrary writes n distinct pattern files into 20 category folders (see
// vaulttest.WriteLibrary).
func generateLibrary(tb testing.TB, dir string, n int) {
	tb.Helper()
	if err := vaulttest.WriteLibrary(dir, n); err != nil {
		tb.Fatal(err)
	}
}
