package codemap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/engine/workspace"
)

// genRepo writes a generated Go repository of n files (about 60 lines
// each): packages of 50 files, each file defining a type, its methods and
// functions that call into the package before it.
func genRepo(tb testing.TB, n int) string {
	tb.Helper()
	root := tb.TempDir()
	for i := range n {
		pkg := i / 50
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", pkg)
		if pkg > 0 {
			fmt.Fprintf(&b, "import q \"gen/p%d\"\n\n", pkg-1)
		}
		fmt.Fprintf(&b, "// Thing%d is generated.\ntype Thing%d struct {\n\tID   int\n\tName string\n}\n\n", i, i)
		for j := range 4 {
			fmt.Fprintf(&b, "// Method%d_%d does work.\nfunc (t *Thing%d) Method%d_%d(x int) (int, error) {\n\ty := x * %d\n\tif y > 10 {\n\t\treturn y, nil\n\t}\n\treturn Helper%d(y), nil\n}\n\n", i, j, i, i, j, j+1, i)
		}
		fmt.Fprintf(&b, "// Helper%d helps.\nfunc Helper%d(v int) int {\n", i, i)
		if pkg > 0 {
			prev := i - 50
			fmt.Fprintf(&b, "\treturn q.Helper%d(v) + len(q.Thing%d{}.Name)\n}\n", prev, prev)
		} else {
			b.WriteString("\treturn v + 1\n}\n")
		}
		p := filepath.Join(root, fmt.Sprintf("p%d", pkg), fmt.Sprintf("f%d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

// BenchmarkFirstMap maps a generated 5,000-file repository from an empty
// database (goal: at most 3 s of CPU).
func BenchmarkFirstMap(b *testing.B) {
	root := genRepo(b, 5000)
	ctx := context.Background()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		m := openMap(b, root)
		b.StartTimer()
		before := processCPU()
		st, err := m.Update(ctx)
		cpu += processCPU() - before
		if err != nil || st.Files != 5000 {
			b.Fatalf("update: %v (%d files)", err, st.Files)
		}
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkRemapOneFile re-maps the 5,000-file repository after one file
// changed (goal: at most 50 ms).
func BenchmarkRemapOneFile(b *testing.B) {
	root := genRepo(b, 5000)
	m := openMap(b, root)
	ctx := context.Background()
	if _, err := m.Update(ctx); err != nil {
		b.Fatal(err)
	}
	target := filepath.Join(root, "p3", "f170.go")
	n := 0
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		n++
		data, err := os.ReadFile(target)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, fmt.Sprintf("\nfunc Extra%d() {}\n", n)...)
		if err := os.WriteFile(target, data, 0o644); err != nil {
			b.Fatal(err)
		}
		t := time.Now().Add(time.Duration(n) * time.Second)
		_ = os.Chtimes(target, t, t)
		b.StartTimer()
		before := processCPU()
		st, err := m.Update(ctx)
		cpu += processCPU() - before
		if err != nil || st.Parsed != 1 {
			b.Fatalf("update: %v (%d parsed)", err, st.Parsed)
		}
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkBlockPerTier renders the map block of a task naming a function
// at each tier's budget with the default config (budgets.mapShare 0.10 of
// promptTokens 7,168; half on the small tier), and reports the block's
// tokens and definitions.
func BenchmarkBlockPerTier(b *testing.B) {
	root := genRepo(b, 5000)
	m := openMap(b, root)
	ctx := context.Background()
	if _, err := m.Update(ctx); err != nil {
		b.Fatal(err)
	}
	cfg := workspace.Defaults()
	for _, name := range []string{"small", "medium", "large"} {
		tier := struct {
			name   string
			tokens int
		}{name, Tokens(cfg.Budgets.PromptTokens, cfg.Budgets.MapShare, name)}
		b.Run(tier.name, func(b *testing.B) {
			var text string
			var cpu time.Duration
			for b.Loop() {
				var err error
				before := processCPU()
				text, _, err = m.Block(ctx, "Helper2170 returns the wrong value for negative input", tier.tokens)
				cpu += processCPU() - before
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(estimate(text)), "tokens")
			b.ReportMetric(float64(strings.Count(text, "│")), "defs")
		})
	}
}
