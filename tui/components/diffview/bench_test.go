package diffview

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// goSource generates n lines of Go-like code, deterministic.
func goSource(n int) string {
	var b strings.Builder
	b.WriteString("package big\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n")
	lines := 7
	for f := 0; lines < n; f++ {
		body := []string{
			fmt.Sprintf("// Handler%d formats record %d for the report; it trims the name first.", f, f),
			fmt.Sprintf("func Handler%d(name string, count int) (string, error) {", f),
			"\tname = strings.TrimSpace(name)",
			"\tif name == \"\" {",
			fmt.Sprintf("\t\treturn \"\", fmt.Errorf(\"handler %d: empty name\")", f),
			"\t}",
			fmt.Sprintf("\ttotal := count * %d // weighted", f%7+1),
			"\treturn fmt.Sprintf(\"%s=%d\", name, total), nil",
			"}",
			"",
		}
		for _, l := range body {
			if lines >= n {
				break
			}
			b.WriteString(l + "\n")
			lines++
		}
	}
	return b.String()
}

// editSource changes every 9th line, deletes every 23rd and inserts a line
// after every 31st: a busy 2,000-line diff.
func editSource(src string) string {
	in := strings.SplitAfter(src, "\n")
	var b strings.Builder
	for i, l := range in {
		switch {
		case i%23 == 5:
			continue
		case i%9 == 4:
			b.WriteString(strings.Replace(l, "name", "label", 1))
			if !strings.Contains(l, "name") {
				b.WriteString("\t// reviewed\n")
			}
		default:
			b.WriteString(l)
		}
		if i%31 == 7 {
			b.WriteString("\tlog.Printf(\"checkpoint %d\", 1)\n")
		}
	}
	return b.String()
}

// BenchmarkRender2000 measures a 2,000-line file diff (target: < 30 ms).
//
//   - full: every row of the diff rendered, highlighted, at 100 (unified)
//     and 160 (split) columns — the cost of rendering the whole diff;
//   - frame: SetContent (diff computation) plus the first View, which
//     renders only the visible rows;
//   - scroll: a page down on a warm view;
//   - highlight: the chroma lexing job that SetContent returns; it runs off
//     the UI goroutine and is reported for information.
func BenchmarkRender2000(b *testing.B) {
	old := goSource(2000)
	new := editSource(old)
	for _, tc := range []struct {
		name string
		w    int
	}{{"full/unified100", 100}, {"full/split160", 160}} {
		b.Run(tc.name, func(b *testing.B) {
			m := newView(b, tc.w, 40, "big/handlers.go", old, new)
			if !m.Highlighted() {
				b.Fatal("not highlighted")
			}
			split := m.IsSplit()
			rows := m.doc.rows(split)
			cpu := processCPU()
			b.ResetTimer()
			for range b.N {
				m.cache = rowCache{}
				m.View() // palette and cache set up
				for i := range rows {
					m.cache.rows[i] = m.renderRow(rows[i], split, m.width)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(len(rows)), "rows")
		})
	}
	b.Run("frame/unified100", func(b *testing.B) {
		c := newCommon()
		cpu := processCPU()
		for range b.N {
			m := New(c)
			m.SetSize(100, 40)
			_ = m.SetContent("big/handlers.go", old, new)
			if m.View() == "" {
				b.Fatal("empty view")
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("scroll/split160", func(b *testing.B) {
		m := newView(b, 160, 40, "big/handlers.go", old, new)
		m.View()
		cpu := processCPU()
		b.ResetTimer()
		for i := range b.N {
			if m.offset >= m.MaxOffset() {
				m.SetOffset(0)
			}
			if i%2 == 0 {
				keyPress(m, "pgdown")
			} else {
				keyPress(m, "down")
			}
			_ = m.View()
		}
		reportCPU(b, cpu)
	})
	b.Run("highlight", func(b *testing.B) {
		d := newDocument("big/handlers.go", old, new)
		cpu := processCPU()
		b.ResetTimer()
		for range b.N {
			if d.highlightCmd()() == nil {
				b.Fatal("no tokens")
			}
		}
		reportCPU(b, cpu)
	})
}

func reportCPU(b *testing.B, cpu0 time.Duration) {
	if cpu := processCPU(); cpu > 0 {
		b.ReportMetric(float64(cpu-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}
