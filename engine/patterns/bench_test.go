package patterns

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkParse parses the largest file of the corpus (split mode on).
func BenchmarkParse(b *testing.B) {
	root := corpusDir(b)
	var (
		bestPath string
		best     []byte
	)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isMarkdown(d.Name()) || IsMetaFile(d.Name()) {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && len(data) > len(best) {
			bestPath, best = p, data
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	rel, _ := filepath.Rel(root, bestPath)
	b.SetBytes(int64(len(best)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(rel, best, ParseOptions{Split: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanCorpus scans the whole BistroLens corpus from disk.
func BenchmarkScanCorpus(b *testing.B) {
	root := corpusDir(b)
	b.ReportAllocs()
	var files int
	for b.Loop() {
		res, err := Scan(context.Background(), root, ScanOptions{Parse: ParseOptions{Split: true}})
		if err != nil {
			b.Fatal(err)
		}
		files = res.Counts.Total
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*files), "ns/file")
}

// BenchmarkScanGenerated scans generated libraries of growing size; ns/file stays flat when
// the cost is linear in the number of files.
func BenchmarkScanGenerated(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			generateLibrary(b, dir, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, err := Scan(context.Background(), dir, ScanOptions{Parse: ParseOptions{Split: true}})
				if err != nil {
					b.Fatal(err)
				}
				if res.Counts.Parsed != n {
					b.Fatalf("parsed %d of %d: %+v", res.Counts.Parsed, n, res.Errors)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/file")
		})
	}
}

// BenchmarkScanGeneratedSequential is the 10,000-file scan with a single worker, for a
// per-file cost that does not depend on the machine's core count.
func BenchmarkScanGeneratedSequential(b *testing.B) {
	const n = 10000
	dir := b.TempDir()
	generateLibrary(b, dir, n)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Scan(context.Background(), dir, ScanOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/file")
}

// generateLibrary writes n synthetic pattern files (about 3 KiB each) into 20 category folders.
func generateLibrary(tb testing.TB, dir string, n int) {
	tb.Helper()
	cats := []string{"security", "hooks", "testing-patterns", "ui-components", "quality-gates"}
	for i := range n {
		folder := fmt.Sprintf("%02d-%s", i%20, cats[i%len(cats)])
		p := filepath.Join(dir, folder, fmt.Sprintf("pattern-%05d.md", i))
		if i < 20 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(syntheticPattern(i)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func syntheticPattern(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated Pattern %d\n\n## Source\nWritten by the nova benchmark generator.\n\n", i)
	fmt.Fprintf(&b, "**Priority:** P%d\n**Reusability:** %d/10\n\n---\n\n", i%4, i%11)
	b.WriteString("## Overview\n\nThis generated pattern exercises the parser with prose, fences, lists and tables so that the benchmark resembles a real library file.\n\n")
	for k := 1; k <= 3; k++ {
		fmt.Fprintf(&b, "## Pattern %d: Step %d of item %d\n\nEach step explains one idea in a couple of sentences. It is followed by a short example.\n\n", k, k, i)
		fmt.Fprintf(&b, "```ts\nexport function step%d(input: number): number {\n  return input * %d;\n}\n```\n\n", k, k)
		b.WriteString("- first point about the step\n- second point, with `inline code`\n\n")
	}
	b.WriteString("## Anti-Patterns\n\n| Do | Don't |\n|---|---|\n| measure | guess |\n\n## Related Patterns\n\n- See other generated files.\n")
	return b.String()
}
