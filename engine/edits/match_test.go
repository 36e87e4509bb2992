package edits_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/edits"
)

const goFile = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tif ok {\n\t\tfmt.Println(\"hi\")\n\t}\n\tserve()\n}\n"

// TestFindRules: each rule, the case it exists for, and the result of
// Replace.
func TestFindRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content, search, replace, rule, want string
	}{
		{"exact", goFile, "\tserve()\n", "\tserve(ctx)\n", edits.RuleExact,
			strings.Replace(goFile, "\tserve()", "\tserve(ctx)", 1)},
		{"exact within a line", goFile, "\"hi\"", "\"hello\"", edits.RuleExact,
			strings.Replace(goFile, "\"hi\"", "\"hello\"", 1)},
		{"trailing whitespace in the search", goFile, "\tif ok {  \n\t\tfmt.Println(\"hi\")\t\n", "\tif ok {\n\t\tfmt.Println(\"bye\")\n", edits.RuleTrailingWhitespace,
			strings.Replace(goFile, "\"hi\"", "\"bye\"", 1)},
		{"trailing whitespace in the file", "a  \nb\t\nc\n", "a\nb\n", "x\ny\n", edits.RuleTrailingWhitespace, "x\ny\nc\n"},
		{"leading blank line", goFile, "\n\n\tserve()\n}\n", "\n\n\tserve(ctx)\n}\n", edits.RuleBlankLines,
			strings.Replace(goFile, "\tserve()", "\tserve(ctx)", 1)},
		{"tabs written as spaces", goFile, "    if ok {\n        fmt.Println(\"hi\")\n    }\n", "    if ok {\n        fmt.Println(\"hi\")\n        return\n    }\n", edits.RuleIndentation,
			strings.Replace(goFile, "\t\tfmt.Println(\"hi\")\n", "\t\tfmt.Println(\"hi\")\n\t\treturn\n", 1)},
		{"indent offset", "class A:\n    def f(self):\n        return 1\n", "def f(self):\n    return 1\n", "def f(self):\n    return 2\n", edits.RuleIndentation,
			"class A:\n    def f(self):\n        return 2\n"},
		{"block anchor", goFile, "\tif ok {\n\t\tfmt.Println(\"hello\")\n\t}\n", "\tif !ok {\n\t\treturn\n\t}\n", edits.RuleBlockAnchor,
			strings.Replace(goFile, "\tif ok {\n\t\tfmt.Println(\"hi\")\n\t}\n", "\tif !ok {\n\t\treturn\n\t}\n", 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, err := edits.Find(c.content, c.search)
			require.NoError(t, err)
			assert.Equal(t, c.rule, m.Rule)
			assert.Equal(t, c.want, edits.Replace(c.content, m, c.search, c.replace))
		})
	}
}

func TestFindCRLFKeepsLineEnds(t *testing.T) {
	t.Parallel()
	crlf := strings.ReplaceAll(goFile, "\n", "\r\n")
	m, err := edits.Find(crlf, "\tserve()\n}\n")
	require.NoError(t, err)
	assert.Equal(t, edits.RuleExact, m.Rule)
	got := edits.Replace(crlf, m, "\tserve()\n}\n", "\tserve(ctx)\n\tdone()\n}\n")
	assert.Equal(t, strings.ReplaceAll(strings.Replace(goFile, "\tserve()\n", "\tserve(ctx)\n\tdone()\n", 1), "\n", "\r\n"), got)

	// A tolerant rule on a CRLF file.
	m, err = edits.Find(crlf, "    serve()  \n")
	require.NoError(t, err)
	assert.Equal(t, edits.RuleIndentation, m.Rule)
	got = edits.Replace(crlf, m, "    serve()\n", "    serve(ctx)\n")
	assert.Contains(t, got, "\tserve(ctx)\r\n}\r\n")
	assert.NotContains(t, strings.ReplaceAll(got, "\r\n", ""), "\n", "no bare LF line end")
}

func TestReplaceFollowsTheFile(t *testing.T) {
	t.Parallel()
	// An LF file keeps LF when the model wrote CRLF.
	m, err := edits.Find("a\nb\n", "a\n")
	require.NoError(t, err)
	assert.Equal(t, "x\ny\nb\n", edits.Replace("a\nb\n", m, "a\n", "x\r\ny\r\n"))
	// Flush-left lines matched by indentation: new indented lines take the
	// file's tabs.
	content := "package p\n\nfunc f() {\n\tg()\n}\n\nvar x = 1\n"
	m, err = edits.Find(content, "  var x = 1\n")
	require.NoError(t, err)
	assert.Equal(t, edits.RuleIndentation, m.Rule)
	assert.Equal(t, "package p\n\nfunc f() {\n\tg()\n}\n\nvar (\n\tx = 1\n)\n",
		edits.Replace(content, m, "  var x = 1\n", "  var (\n      x = 1\n  )\n"))
}

func TestFindAmbiguousNamesBothPlaces(t *testing.T) {
	t.Parallel()
	content := "a\nx := 1\nb\nc\nx := 1\nd\n"
	_, err := edits.Find(content, "x := 1\n")
	require.ErrorIs(t, err, edits.ErrAmbiguous)
	assert.Contains(t, err.Error(), "line 2 and line 5")
	var me *edits.MatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, [][2]int{{2, 2}, {5, 5}}, me.Places)

	// Whole lines: a place that starts a line beats one inside a line.
	m, err := edits.Find("func f() {\n\t\tx()\n\tx()\n}\n", "\tx()\n")
	require.NoError(t, err)
	assert.Equal(t, 3, m.Line)

	// Ambiguous at a tolerant rule too: the rule is named.
	_, err = edits.Find(content, "  x := 1  \n")
	require.ErrorIs(t, err, edits.ErrAmbiguous)
	assert.Contains(t, err.Error(), "indentation")
}

func TestFindNoMatchShowsTheClosestLines(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		b.WriteString("line number " + strings.Repeat("x", i%3) + "\n")
	}
	content := goFile + "\nfunc serve() {\n\tlisten(\":8080\")\n\tlog.Print(\"up\")\n}\n"
	_, err := edits.Find(content, "func serve() {\n\tlisten(\":9090\")\n\tlog.Print(\"up\")\n}\n")
	// Block anchor would accept this one; make it fail with a bigger change.
	require.NoError(t, err)

	_, err = edits.Find(content, "func serve() {\n\thttp.ListenAndServe(\":9090\", nil)\n\tlog.Fatal(err)\n}\n")
	require.ErrorIs(t, err, edits.ErrNoMatch)
	msg := err.Error()
	assert.Contains(t, msg, "the closest lines are 12–15")
	assert.Contains(t, msg, "13: \tlisten(\":8080\")")
	assert.Contains(t, msg, "first difference: line 13")

	_, err = edits.Find(content, "nothing like it at all\n")
	require.ErrorIs(t, err, edits.ErrNoMatch)
	assert.Contains(t, err.Error(), "no line of the file resembles it")

	_, err = edits.Find(content, " \n\t\n")
	require.ErrorIs(t, err, edits.ErrEmptySearch)
}

func TestFindNeverTakesAWrongMatch(t *testing.T) {
	t.Parallel()
	// Two similar blocks: the anchor rule finds both and refuses.
	content := "func a() {\n\tx := 1\n\treturn x\n}\n\nfunc a() {\n\tx := 2\n\treturn x\n}\n"
	_, err := edits.Find(content, "func a() {\n\tx := 3\n\treturn x\n}\n")
	require.ErrorIs(t, err, edits.ErrAmbiguous)
	assert.Contains(t, err.Error(), "block-anchor")
	// Anchors alone are not enough: the middle must be alike.
	_, err = edits.Find("if a {\n\tb()\n}\n", "if a {\n\tc(1, 2, 3)\n}\n")
	require.ErrorIs(t, err, edits.ErrNoMatch)
	// Indentation that is not a uniform offset is no indentation match
	// (the anchors and the middle still match, by the last rule).
	m, err := edits.Find("if a {\n\tb()\n}\n", "if a {\nb()\n  }\n")
	require.NoError(t, err)
	assert.Equal(t, edits.RuleBlockAnchor, m.Rule)
}

func TestApplyDiffWithWrongLineNumbers(t *testing.T) {
	t.Parallel()
	hunks := edits.Parse("```diff\n--- a/main.go\n+++ b/main.go\n@@ -40,4 +40,4 @@\n func main() {\n \tif ok {\n-\t\tfmt.Println(\"hi\")\n+\t\tfmt.Println(\"hello\")\n \t}\n@@ -90,2 +90,3 @@\n \tserve()\n+\tdone()\n }\n```")[0].Hunks
	got, err := edits.ApplyDiff(goFile, hunks)
	require.NoError(t, err)
	want := strings.Replace(strings.Replace(goFile, "\"hi\"", "\"hello\"", 1), "\tserve()\n", "\tserve()\n\tdone()\n", 1)
	assert.Equal(t, want, got)

	// CRLF file: the result keeps CRLF.
	crlf := strings.ReplaceAll(goFile, "\n", "\r\n")
	got, err = edits.ApplyDiff(crlf, hunks)
	require.NoError(t, err)
	assert.Equal(t, strings.ReplaceAll(want, "\n", "\r\n"), got)
}

func TestApplyDiffErrorsNameTheHunk(t *testing.T) {
	t.Parallel()
	hunks := edits.Parse("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n package main\n \n-import \"fmt\"\n+import \"os\"\n@@ -7,2 +7,2 @@\n-\tnotThere()\n+\tthere()\n")[0].Hunks
	_, err := edits.ApplyDiff(goFile, hunks)
	require.ErrorIs(t, err, edits.ErrNoMatch)
	require.ErrorIs(t, err, edits.ErrHunk)
	var he *edits.HunkError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 2, he.Hunk)
	assert.Contains(t, err.Error(), "hunk 2 (@@ -7,2 +7,2 @@)")

	// A context found twice: the header's line decides, else ambiguous.
	content := "a\nx\nb\na\nx\nb\n"
	hs := edits.Parse("--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n a\n-x\n+y\n")[0].Hunks
	got, err := edits.ApplyDiff(content, hs)
	require.NoError(t, err)
	assert.Equal(t, "a\nx\nb\na\ny\nb\n", got)
	hs[0].OldStart = 3
	_, err = edits.ApplyDiff(content, hs)
	require.ErrorIs(t, err, edits.ErrAmbiguous)
}

func TestApplyDiffCreatesAFile(t *testing.T) {
	t.Parallel()
	b := edits.Parse("--- /dev/null\n+++ b/new.go\n@@ -0,0 +1,2 @@\n+package main\n+// new\n")[0]
	require.True(t, b.Create)
	got, err := edits.ApplyDiff("", b.Hunks)
	require.NoError(t, err)
	assert.Equal(t, "package main\n// new\n", got)
}

func FuzzFind(f *testing.F) {
	f.Add(goFile, "\tserve()\n", "x\n")
	f.Add("a\r\nb\r\n", "b\n", "c\n")
	f.Add("  a\n\tb\n", "a\nb\n", "\n\n")
	f.Add("", "x", "")
	f.Fuzz(func(t *testing.T, content, search, replace string) {
		m, err := edits.Find(content, search)
		if err != nil {
			if !errors.Is(err, edits.ErrNoMatch) && !errors.Is(err, edits.ErrAmbiguous) && !errors.Is(err, edits.ErrEmptySearch) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if m.Start < 0 || m.End > len(content) || m.Start > m.End {
			t.Fatalf("match out of range: %+v", m)
		}
		if m.Rule == edits.RuleExact && content[m.Start:m.End] != search && !strings.Contains(content, "\r\n") {
			t.Fatalf("exact match of %q is %q", search, content[m.Start:m.End])
		}
		_ = edits.Replace(content, m, search, replace)
	})
}

func FuzzApplyDiff(f *testing.F) {
	f.Add(goFile, "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n package main\n-\n+// x\n")
	f.Add("", "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+a\n")
	f.Add("a\r\nb\r\n", "```diff\n@@ -1 +1 @@\n-a\n+c\n```")
	f.Fuzz(func(t *testing.T, content, diff string) {
		for _, b := range edits.Parse("x.go\n" + diff) {
			if b.Kind == edits.KindDiff {
				_, _ = edits.ApplyDiff(content, b.Hunks)
			}
		}
	})
}

// BenchmarkFindNoMatch: the slowest path (every rule tried, then the
// closest lines) on a 1 MiB file.
func BenchmarkFindNoMatch(b *testing.B) {
	content := strings.Repeat(goFile, (1<<20)/len(goFile))
	search := "func main() {\n\tif notOK {\n\t\tfmt.Println(\"bye\")\n\t}\n\tstop()\n}\n"
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		_, _ = edits.Find(content, search)
	}
}

func TestTrimUnpairedBlankLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ search, replace, want string }{
		{"\n\treturn x\n", "\treturn y\n", "\treturn x\n"},
		{"\n\n\treturn x\n", "\n\treturn y\n", "\n\treturn x\n"},
		{"\treturn x\n\n\n", "\treturn y\n", "\treturn x\n"},
		{"\treturn x\n", "\treturn y", "\treturn x\n"},
		{"\n\n", "x", "\n\n"},
		{"a\n\nb", "c", "a\n\nb"},
	} {
		got, _ := edits.TrimUnpairedBlankLines(c.search, c.replace)
		assert.Equal(t, c.want, got, "%q → %q", c.search, c.replace)
	}
}
