package edits_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/edits"
)

const fence = "```"

func edit(bs []edits.Block) []edits.Block {
	var out []edits.Block
	for _, b := range bs {
		if b.IsEdit() {
			out = append(out, b)
		}
	}
	return out
}

// TestParseWholeFileForms covers every way a reply names the file of a
// whole-file block.
func TestParseWholeFileForms(t *testing.T) {
	t.Parallel()
	body := "package main\n\nfunc main() {}\n"
	cases := []struct {
		name, reply, path string
	}{
		{"bare path line", "Here it is.\n\nmain.go\n" + fence + "go\n" + body + fence + "\n", "main.go"},
		{"backticked", "`cmd/app/main.go`\n" + fence + "go\n" + body + fence, "cmd/app/main.go"},
		{"bold", "**main.go**\n" + fence + "go\n" + body + fence, "main.go"},
		{"bold backticked with colon", "**`main.go`:**\n" + fence + "go\n" + body + fence, "main.go"},
		{"File: heading", "File: internal/x/y.go\n" + fence + "go\n" + body + fence, "internal/x/y.go"},
		{"markdown heading", "### internal/x/y.go\n\n" + fence + "go\n" + body + fence, "internal/x/y.go"},
		{"sentence ending with the path", "Here is the updated main.go:\n" + fence + "go\n" + body + fence, "main.go"},
		{"info string lang and path", fence + "go path/to/x.go\n" + body + fence, "path/to/x.go"},
		{"info string path only", fence + "path/to/x.go\n" + body + fence, "path/to/x.go"},
		{"info string lang:path", fence + "go:path/to/x.go\n" + body + fence, "path/to/x.go"},
		{"tilde fence", "main.go\n~~~go\n" + body + "~~~\n", "main.go"},
		{"Makefile", "Makefile\n" + fence + "\nall:\n\tgo build\n" + fence, "Makefile"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			bs := edits.Parse(c.reply)
			require.Len(t, bs, 1, "%+v", bs)
			assert.Equal(t, edits.KindWhole, bs[0].Kind)
			assert.Equal(t, c.path, bs[0].Path)
			assert.Equal(t, 1, bs[0].Index)
			assert.Empty(t, bs[0].Err)
			if c.name != "Makefile" {
				assert.Equal(t, body, bs[0].Content)
			}
		})
	}
}

func TestParseCodeWithoutPathIsNotAnEdit(t *testing.T) {
	t.Parallel()
	cases := []string{
		"Use it like this:\n" + fence + "go\nfmt.Println(x)\n" + fence,
		"Call `fmt.Println`:\n" + fence + "go\nfmt.Println(x)\n" + fence,
		"Use `os.path`:\n" + fence + "python\nos.path.join(a)\n" + fence,
		"Version 1.2.3\n" + fence + "\nx\n" + fence,
		fence + "go\nfunc main() {}\n" + fence,
	}
	for _, reply := range cases {
		bs := edits.Parse(reply)
		require.Len(t, bs, 1, reply)
		assert.Equal(t, edits.KindNoPath, bs[0].Kind, reply)
		assert.False(t, bs[0].IsEdit())
		assert.Empty(t, bs[0].Path)
		assert.NotEmpty(t, bs[0].Content)
	}
}

func TestParseSearchReplace(t *testing.T) {
	t.Parallel()
	reply := "I will fix both.\n\nmain.go\n" + fence + "go\n<<<<<<< SEARCH\n\tserve()\n=======\n\tserve(ctx)\n>>>>>>> REPLACE\n" + fence + "\n\n" +
		"`server.go`\n<<<<<<< SEARCH\nfunc serve() {\n=======\nfunc serve(ctx context.Context) {\n>>>>>>> REPLACE\n\n" +
		"<<<<<<< SEARCH\nimport \"net/http\"\n=======\nimport (\n\t\"context\"\n\t\"net/http\"\n)\n>>>>>>> REPLACE\nDone."
	bs := edits.Parse(reply)
	require.Len(t, bs, 3, "%+v", bs)
	assert.Equal(t, edits.KindSearchReplace, bs[0].Kind)
	assert.Equal(t, "main.go", bs[0].Path)
	assert.Equal(t, "\tserve()\n", bs[0].Search)
	assert.Equal(t, "\tserve(ctx)\n", bs[0].Replace)
	assert.Equal(t, "server.go", bs[1].Path)
	assert.Equal(t, "server.go", bs[2].Path, "a block with no path line reuses the previous block's file")
	assert.Equal(t, []int{1, 2, 3}, []int{bs[0].Index, bs[1].Index, bs[2].Index})
	assert.Equal(t, "I will fix both.\n\nDone.", edits.Prose(reply, bs))
}

func TestParseSearchReplacePathInsideFence(t *testing.T) {
	t.Parallel()
	reply := fence + "python\napp/x.py\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n\napp/y.py\n<<<<<<< SEARCH\nb = 1\n=======\n>>>>>>> REPLACE\n" + fence
	bs := edits.Parse(reply)
	require.Len(t, bs, 2)
	assert.Equal(t, "app/x.py", bs[0].Path)
	assert.Equal(t, "app/y.py", bs[1].Path)
	assert.Empty(t, bs[1].Replace)
	assert.Empty(t, edits.Prose(reply, bs))
}

func TestParseUnifiedDiffs(t *testing.T) {
	t.Parallel()
	reply := "Patch:\n" + fence + "diff\n--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,3 @@\n package main\n-func a() {}\n+func b() {}\n@@ -10,2 +10,3 @@\n x\n+y\n" +
		"--- /dev/null\n+++ b/new.go\n@@ -0,0 +1,2 @@\n+package main\n+// new\n" +
		"--- a/old.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-package main\n" + fence + "\nThat is all."
	bs := edits.Parse(reply)
	require.Len(t, bs, 3, "%+v", bs)
	assert.Equal(t, edits.KindDiff, bs[0].Kind)
	assert.Equal(t, "main.go", bs[0].Path)
	require.Len(t, bs[0].Hunks, 2)
	assert.Equal(t, 10, bs[0].Hunks[1].OldStart)
	assert.Equal(t, "package main\nfunc a() {}\n", bs[0].Hunks[0].Old())
	assert.Equal(t, "package main\nfunc b() {}\n", bs[0].Hunks[0].New())
	assert.True(t, bs[1].Create)
	assert.Equal(t, "new.go", bs[1].Path)
	assert.True(t, bs[2].Delete)
	assert.Equal(t, "old.go", bs[2].Path)
	assert.Equal(t, "Patch:\nThat is all.", edits.Prose(reply, bs))
}

func TestParseBareDiffAndHeaderlessDiff(t *testing.T) {
	t.Parallel()
	bare := "Here:\ndiff --git a/x.go b/x.go\nindex 123..456 100644\n--- a/x.go\n+++ b/x.go\n@@ -5,3 +5,3 @@\n a\n-b\n+c\n\n d\nThanks."
	bs := edits.Parse(bare)
	require.Len(t, bs, 1, "%+v", bs)
	assert.Equal(t, "x.go", bs[0].Path)
	require.Len(t, bs[0].Hunks, 1)
	assert.Equal(t, []string{" a", "-b", "+c", " ", " d"}, bs[0].Hunks[0].Lines)
	assert.Equal(t, "Here:\nThanks.", edits.Prose(bare, bs))

	headerless := "`x.go`\n" + fence + "diff\n@@ ... @@\n a\n-b\n+c\n" + fence
	bs = edits.Parse(headerless)
	require.Len(t, bs, 1)
	assert.Equal(t, "x.go", bs[0].Path)
	assert.Empty(t, bs[0].Err)
}

// TestParseMalformed: broken input gives blocks with Err (or nothing),
// never a panic and never an edit nova would apply wrongly.
func TestParseMalformed(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reply string
		err   string
	}{
		"search without divider":      {"x.go\n<<<<<<< SEARCH\na\n", "not closed"},
		"search without replace":      {"x.go\n<<<<<<< SEARCH\na\n=======\nb\n", "not closed"},
		"overlapping search blocks":   {"x.go\n<<<<<<< SEARCH\na\n=======\n<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n", "before the next SEARCH"},
		"search/replace without path": {"<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "names no file"},
		"unclosed whole file":         {"main.go\n" + fence + "go\npackage main\n", "never closed"},
		"diff without hunks":          {fence + "diff\n--- a/x.go\n+++ b/x.go\n" + fence, "no @@ hunks"},
		"diff without file":           {fence + "diff\n@@ -1 +1 @@\n-a\n+b\n" + fence, "names no file"},
	}
	for name, c := range cases {
		bs := edits.Parse(c.reply)
		require.NotEmpty(t, bs, name)
		found := false
		for _, b := range bs {
			if strings.Contains(b.Err, c.err) {
				found = true
			}
		}
		assert.True(t, found, "%s: %+v", name, bs)
	}
	// The overlapping case still reads the second, complete block.
	bs := edits.Parse(cases["overlapping search blocks"].reply)
	require.Len(t, bs, 2)
	assert.Empty(t, bs[1].Err)
	assert.Equal(t, "b\n", bs[1].Search)

	// Garbage: no edits, no panic.
	for _, g := range []string{"", "\x00\x01\x02```\xff\xfe", "<<<<<<<", "=======\n>>>>>>> REPLACE", "--- \n+++ ", "@@ -x,y +z @@", strings.Repeat("`", 10000)} {
		for _, b := range edits.Parse(g) {
			assert.True(t, b.Err != "" || !b.IsEdit() || b.Path != "", "%q gave %+v", g, b)
		}
	}
}

func TestParseCapsHugeBlocks(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x = 1 # padding padding padding\n", 10<<20/32) // 10 MB
	bs := edits.Parse("big.py\n" + fence + "python\n" + huge + fence + "\nok")
	require.Len(t, bs, 1)
	assert.Equal(t, "big.py", bs[0].Path)
	assert.Contains(t, bs[0].Err, "limit")
	assert.Empty(t, bs[0].Content, "the content of a refused block is not kept")
}

func TestParseWholeMarkdownWithNestedFences(t *testing.T) {
	t.Parallel()
	readme := "# App\n\nRun it:\n\n" + fence + "sh\ngo run .\n" + fence + "\n\nDone.\n"
	bs := edits.Parse("README.md\n" + fence + "markdown\n" + readme + fence + "\nUpdated the README.")
	require.Len(t, bs, 1, "%+v", bs)
	assert.Equal(t, "README.md", bs[0].Path)
	assert.Equal(t, readme, bs[0].Content)
	assert.Empty(t, bs[0].Err)
}

func TestParseCRLFReply(t *testing.T) {
	t.Parallel()
	bs := edits.Parse("main.go\r\n```go\r\npackage main\r\n```\r\n")
	require.Len(t, bs, 1)
	assert.Equal(t, "main.go", bs[0].Path)
	assert.Equal(t, "package main\n", bs[0].Content)
}

func TestParseKeepsEscapingPaths(t *testing.T) {
	t.Parallel()
	bs := edits.Parse("../../etc/passwd.txt\n" + fence + "\nroot\n" + fence)
	require.Len(t, bs, 1)
	assert.Equal(t, "../../etc/passwd.txt", bs[0].Path, "confinement is the tools' job")
	bs = edits.Parse("--- a/../x.go\n+++ b/../x.go\n@@ -1 +1 @@\n-a\n+b\n")
	require.Len(t, edit(bs), 1)
	assert.Equal(t, "../x.go", bs[0].Path)
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"main.go\n```go\npackage main\n```\n",
		"x.go\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
		"```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n```",
		"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		"```go x.go\n```", "<<<<<<< SEARCH\n=======\n=======\n>>>>>>> REPLACE", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bs := edits.Parse(s)
		for i, b := range bs {
			if b.Index != i+1 {
				t.Fatalf("index %d at %d", b.Index, i)
			}
			if b.IsEdit() && b.Err == "" && b.Path == "" {
				t.Fatalf("an edit without a path and without an error: %+v", b)
			}
		}
		_ = edits.Prose(s, bs)
	})
}

func TestParseGitDiffOfTwoFiles(t *testing.T) {
	t.Parallel()
	reply := "diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/b.go b/b.go\nindex 3..4 100644\n--- a/b.go\n+++ b/b.go\n@@ -1 +1 @@\n-c\n+d\n"
	bs := edits.Parse(reply)
	require.Len(t, bs, 2, "%+v", bs)
	assert.Equal(t, []string{"-a", "+b"}, bs[0].Hunks[0].Lines)
	assert.Equal(t, "b.go", bs[1].Path)
	assert.Equal(t, []string{"-c", "+d"}, bs[1].Hunks[0].Lines)
	assert.Empty(t, edits.Prose(reply, bs))
}
