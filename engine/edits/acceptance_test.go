package edits_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/edits"
)

// applyAll applies every edit block of reply to files (in memory), the way
// the agent loop does through the tools.
func applyAll(files map[string]string, reply string) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	for _, b := range edits.Parse(reply) {
		if !b.IsEdit() {
			continue
		}
		if b.Err != "" {
			return out, fmt.Errorf("block %d: %s", b.Index, b.Err)
		}
		cur, exists := out[b.Path]
		switch b.Kind {
		case edits.KindWhole:
			out[b.Path] = b.Content
		case edits.KindSearchReplace:
			if strings.TrimSpace(b.Search) == "" && !exists {
				out[b.Path] = b.Replace
				continue
			}
			m, err := edits.Find(cur, b.Search)
			if err != nil {
				return out, fmt.Errorf("block %d: %w", b.Index, err)
			}
			out[b.Path] = edits.Replace(cur, m, b.Search, b.Replace)
		case edits.KindDiff:
			if b.Delete {
				delete(out, b.Path)
				continue
			}
			if b.Create {
				cur = ""
			} else if !exists {
				return out, fmt.Errorf("block %d: %s does not exist", b.Index, b.Path)
			}
			next, err := edits.ApplyDiff(cur, b.Hunks)
			if err != nil {
				return out, fmt.Errorf("block %d: %w", b.Index, err)
			}
			out[b.Path] = next
		}
	}
	return out, nil
}

const (
	accGo = "package app\n\nimport \"fmt\"\n\n// Greet says hello.\nfunc Greet(name string) string {\n\tif name == \"\" {\n\t\tname = \"world\"\n\t}\n\treturn fmt.Sprintf(\"hello %s\", name)\n}\n\nfunc Bye() string {\n\treturn \"bye\"\n}\n"
	accPy = "class Greeter:\n    def greet(self, name):\n        if not name:\n            name = \"world\"\n        return f\"hello {name}\"\n\n    def bye(self):\n        return \"bye\"\n"
)

// TestAcceptanceReplies: replies written the way local models write them,
// each with the files they must leave. The count of cases is the format
// coverage figure reported for issue 25.
func TestAcceptanceReplies(t *testing.T) {
	t.Parallel()
	files := map[string]string{"app/greet.go": accGo, "app/greet.py": accPy, "win.txt": "one\r\ntwo\r\nthree\r\n"}
	goShout := strings.Replace(accGo, "\"hello %s\"", "\"HELLO %s\"", 1)
	goBye := strings.Replace(accGo, "\treturn \"bye\"\n", "\treturn \"goodbye\"\n", 1)
	pyShout := strings.Replace(accPy, "f\"hello {name}\"", "f\"HELLO {name}\"", 1)
	cases := []struct {
		name, reply string
		want        map[string]string // path -> content ("" deletes)
	}{
		{"search/replace in a fence, path before", "app/greet.go\n```go\n<<<<<<< SEARCH\n\treturn fmt.Sprintf(\"hello %s\", name)\n=======\n\treturn fmt.Sprintf(\"HELLO %s\", name)\n>>>>>>> REPLACE\n```\n",
			map[string]string{"app/greet.go": goShout}},
		{"search/replace, path inside the fence", "```go\napp/greet.go\n<<<<<<< SEARCH\n\treturn fmt.Sprintf(\"hello %s\", name)\n=======\n\treturn fmt.Sprintf(\"HELLO %s\", name)\n>>>>>>> REPLACE\n```",
			map[string]string{"app/greet.go": goShout}},
		{"search/replace, spaces for tabs", "`app/greet.go`\n<<<<<<< SEARCH\n    return fmt.Sprintf(\"hello %s\", name)\n}\n=======\n    return fmt.Sprintf(\"HELLO %s\", name)\n}\n>>>>>>> REPLACE",
			map[string]string{"app/greet.go": goShout}},
		{"search/replace, trailing spaces", "app/greet.go\n<<<<<<< SEARCH\nfunc Bye() string {  \n\treturn \"bye\" \n=======\nfunc Bye() string {\n\treturn \"goodbye\"\n>>>>>>> REPLACE",
			map[string]string{"app/greet.go": goBye}},
		{"search/replace, blank lines around", "app/greet.go\n<<<<<<< SEARCH\n\n\n\n\treturn \"bye\"\n\n\n=======\n\treturn \"goodbye\"\n>>>>>>> REPLACE",
			map[string]string{"app/greet.go": goBye}},
		{"search/replace, a middle line misremembered", "app/greet.go\n<<<<<<< SEARCH\n\tif name == \"\" {\n\t\tname = \"World\"\n\t}\n=======\n\tif name == \"\" {\n\t\tname = \"friend\"\n\t}\n>>>>>>> REPLACE",
			map[string]string{"app/greet.go": strings.Replace(accGo, "\"world\"", "\"friend\"", 1)}},
		{"search/replace, python without the class indent", "app/greet.py\n```python\n<<<<<<< SEARCH\ndef bye(self):\n    return \"bye\"\n=======\ndef bye(self):\n    print(\"bye\")\n    return \"bye\"\n>>>>>>> REPLACE\n```",
			map[string]string{"app/greet.py": strings.Replace(accPy, "        return \"bye\"\n", "        print(\"bye\")\n        return \"bye\"\n", 1)}},
		{"search/replace, ORIGINAL/UPDATED markers", "app/greet.go\n<<<<<<<< ORIGINAL\n\treturn \"bye\"\n========\n\treturn \"goodbye\"\n>>>>>>>> UPDATED",
			map[string]string{"app/greet.go": goBye}},
		{"search/replace deleting lines", "app/greet.go\n<<<<<<< SEARCH\n// Greet says hello.\n=======\n>>>>>>> REPLACE",
			map[string]string{"app/greet.go": strings.Replace(accGo, "// Greet says hello.\n", "", 1)}},
		{"search/replace creating a file", "app/new.go\n<<<<<<< SEARCH\n=======\npackage app\n>>>>>>> REPLACE",
			map[string]string{"app/new.go": "package app\n"}},
		{"two blocks, the second without a path", "app/greet.go\n<<<<<<< SEARCH\n\treturn \"bye\"\n=======\n\treturn \"goodbye\"\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n\t\tname = \"world\"\n=======\n\t\tname = \"you\"\n>>>>>>> REPLACE",
			map[string]string{"app/greet.go": strings.Replace(goBye, "\"world\"", "\"you\"", 1)}},
		{"search/replace on a CRLF file", "win.txt\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE",
			map[string]string{"win.txt": "one\r\n2\r\nthree\r\n"}},
		{"whole file, bold path", "**app/greet.py**\n```python\nprint(1)\n```",
			map[string]string{"app/greet.py": "print(1)\n"}},
		{"whole file, File: heading", "### File: app/extra.go\n```go\npackage app\n```",
			map[string]string{"app/extra.go": "package app\n"}},
		{"whole file, path in the info string", "```python app/greet.py\nprint(2)\n```",
			map[string]string{"app/greet.py": "print(2)\n"}},
		{"whole file, CRLF reply", "app/x.txt\r\n```\r\nhi\r\n```\r\n",
			map[string]string{"app/x.txt": "hi\n"}},
		{"diff, wrong line numbers", "```diff\n--- a/app/greet.go\n+++ b/app/greet.go\n@@ -100,3 +100,3 @@\n func Bye() string {\n-\treturn \"bye\"\n+\treturn \"goodbye\"\n }\n```",
			map[string]string{"app/greet.go": goBye}},
		{"diff, hunks without numbers", "```diff\n--- app/greet.go\n+++ app/greet.go\n@@ ... @@\n func Bye() string {\n-\treturn \"bye\"\n+\treturn \"goodbye\"\n }\n```",
			map[string]string{"app/greet.go": goBye}},
		{"diff, blank context without its space", "```diff\n--- a/app/greet.go\n+++ b/app/greet.go\n@@ -11,4 +11,4 @@\n }\n\n func Bye() string {\n-\treturn \"bye\"\n+\treturn \"goodbye\"\n```",
			map[string]string{"app/greet.go": goBye}},
		{"diff, spaces for tabs", "```diff\n--- a/app/greet.go\n+++ b/app/greet.go\n@@ -13,3 +13,3 @@\n func Bye() string {\n-    return \"bye\"\n+    return \"goodbye\"\n }\n```",
			map[string]string{"app/greet.go": goBye}},
		{"diff creating a file", "--- /dev/null\n+++ b/app/doc.go\n@@ -0,0 +1 @@\n+// Package app greets.\n",
			map[string]string{"app/doc.go": "// Package app greets.\n"}},
		{"diff of two files, git headers", "diff --git a/app/greet.go b/app/greet.go\nindex 1..2 100644\n--- a/app/greet.go\n+++ b/app/greet.go\n@@ -14 +14 @@\n-\treturn \"bye\"\n+\treturn \"goodbye\"\ndiff --git a/app/greet.py b/app/greet.py\n--- a/app/greet.py\n+++ b/app/greet.py\n@@ -5 +5 @@\n-        return f\"hello {name}\"\n+        return f\"HELLO {name}\"\n",
			map[string]string{"app/greet.go": goBye, "app/greet.py": pyShout}},
		{"diff of two files separated by a blank line", "```diff\n--- app/greet.go\n+++ app/greet.go\n@@ ... @@\n func Bye() string {\n-\treturn \"bye\"\n+\treturn \"goodbye\"\n }\n\n--- app/greet.py\n+++ app/greet.py\n@@ ... @@\n         if not name:\n             name = \"world\"\n-        return f\"hello {name}\"\n+        return f\"HELLO {name}\"\n```",
			map[string]string{"app/greet.go": goBye, "app/greet.py": pyShout}},
		{"diff deleting a file", "--- a/win.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-one\n-two\n-three\n",
			map[string]string{"win.txt": ""}},
		{"diff on a CRLF file", "```diff\n--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n```",
			map[string]string{"win.txt": "one\r\n2\r\nthree\r\n"}},
	}
	passed := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := applyAll(files, c.reply)
			require.NoError(t, err)
			for p, want := range c.want {
				if want == "" {
					_, ok := got[p]
					assert.False(t, ok, "%s deleted", p)
					continue
				}
				assert.Equal(t, want, got[p], p)
			}
			for p, before := range files {
				if _, changed := c.want[p]; !changed {
					assert.Equal(t, before, got[p], "%s untouched", p)
				}
			}
			if !t.Failed() {
				passed++
			}
		})
	}
	t.Logf("acceptance: %d of %d replies give the expected files", passed, len(cases))
	assert.Equal(t, len(cases), passed)
}

// TestAcceptanceRefusals: replies that must not change anything.
func TestAcceptanceRefusals(t *testing.T) {
	t.Parallel()
	files := map[string]string{"app/greet.go": accGo, "app/dup.go": "x := 1\ny\nx := 1\n"}
	cases := map[string]struct{ reply, err string }{
		"search in two places":        {"app/dup.go\n<<<<<<< SEARCH\nx := 1\n=======\nx := 2\n>>>>>>> REPLACE", "lines"},
		"search nowhere":              {"app/greet.go\n<<<<<<< SEARCH\nfunc Missing() {}\n=======\n>>>>>>> REPLACE", "matches nowhere"},
		"diff against a missing file": {"--- a/nope.go\n+++ b/nope.go\n@@ -1 +1 @@\n-a\n+b\n", "does not exist"},
		"hunk that matches nowhere":   {"--- a/app/greet.go\n+++ b/app/greet.go\n@@ -1 +1 @@\n-package other\n+package app2\n", "hunk 1"},
		"unclosed whole file":         {"app/greet.go\n```go\npackage app\n", "never closed"},
		"overlapping SEARCH blocks":   {"app/greet.go\n<<<<<<< SEARCH\nfunc Bye() string {\n=======\n<<<<<<< SEARCH\n\treturn \"bye\"\n=======\n\treturn \"ciao\"\n>>>>>>> REPLACE", "before the next SEARCH"},
	}
	for name, c := range cases {
		got, err := applyAll(files, c.reply)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.err, name)
		assert.Equal(t, files["app/greet.go"], got["app/greet.go"], name)
		assert.Equal(t, files["app/dup.go"], got["app/dup.go"], name)
	}
}
