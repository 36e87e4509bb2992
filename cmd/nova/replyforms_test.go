package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// Issue 25's done-when, tried as a new user would: a fresh `nova init` of a
// Go module with no edits to the config, a fake Ollama over HTTP, and each
// form local models write their answer in. A correct solution ends as a
// verified change whose detected check (go test) really ran; a wrong one,
// or a reply cut at the token limit on every try, never ends done.

const (
	exStub = "package strutil\n\n// Reverse returns s with its runes in reverse order.\nfunc Reverse(s string) string {\n\treturn \"\"\n}\n"
	exTest = "package strutil\n\nimport \"testing\"\n\nfunc TestReverse(t *testing.T) {\n\tfor in, want := range map[string]string{\"\": \"\", \"abc\": \"cba\", \"héllo\": \"olléh\"} {\n\t\tif got := Reverse(in); got != want {\n\t\t\tt.Errorf(\"Reverse(%q) = %q, want %q\", in, got, want)\n\t\t}\n\t}\n}\n"
	// The body that replaces `return ""`, correct (runes) and wrong (bytes).
	goodBody = "\tr := []rune(s)\n\tfor i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {\n\t\tr[i], r[j] = r[j], r[i]\n\t}\n\treturn string(r)\n"
	badBody  = "\tb := []byte(s)\n\tfor i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {\n\t\tb[i], b[j] = b[j], b[i]\n\t}\n\treturn string(b)\n"
	exPath   = "strutil/reverse.go"
	exTask   = "Fix Reverse in strutil/reverse.go: it must return s with its runes in reverse order, so that its tests pass."
)

func exFile(body string) string {
	return "package strutil\n\n// Reverse returns s with its runes in reverse order.\nfunc Reverse(s string) string {\n" + body + "}\n"
}

// exWorkspace is a Go module with the exercise, then `nova init` (which
// detects its checks), and a fake Ollama.
func exWorkspace(t *testing.T) (string, *ollamatest.Server, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/ex\n\ngo 1.22\n")
	writeFile(t, dir, exPath, exStub)
	writeFile(t, dir, "strutil/reverse_test.go", exTest)
	r := runNova(t, dir, nil, "init")
	require.Equal(t, 0, r.code, r.stderr)
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	return dir, srv, map[string]string{"OLLAMA_HOST": srv.URL()}
}

func spaces(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// replyForms are the forms of issue 25's table, each carrying body.
func replyForms(body string) map[string][]ollamatest.Reply {
	whole := exFile(body)
	args, _ := json.Marshal(map[string]any{"name": "writeFile", "arguments": map[string]string{"path": exPath, "content": whole}})
	done := ollamatest.Text("Files changed: strutil/reverse.go (Reverse reverses runes).")
	diffLines := ""
	for l := range strings.SplitSeq(strings.TrimSuffix(body, "\n"), "\n") {
		diffLines += "+" + l + "\n"
	}
	return map[string][]ollamatest.Reply{
		"native writeFile": {call("writeFile", map[string]any{"path": exPath, "content": whole}), done},
		"JSON in content":  {ollamatest.Text(string(args)), done},
		"tool_call tag":    {ollamatest.Text("<tool_call>\n" + string(args) + "\n</tool_call>"), done},
		"file_path alias":  {call("writeFile", map[string]any{"file_path": exPath, "content": whole}), done},
		"whole file block": {ollamatest.Text("Here is the fixed file.\n\n" + exPath + "\n```go\n" + whole + "```\n\nReverse now reverses runes.")},
		"search/replace": {ollamatest.Text("The fix:\n\n" + exPath + "\n```go\n<<<<<<< SEARCH\n\treturn \"\"\n=======\n" + body +
			">>>>>>> REPLACE\n```\n")},
		"unified diff": {ollamatest.Text("```diff\n--- a/" + exPath + "\n+++ b/" + exPath + "\n@@ -40,3 +40,7 @@\n func Reverse(s string) string {\n-\treturn \"\"\n" +
			diffLines + " }\n```\n")},
		"editFile, tabs as spaces": {call("editFile", map[string]any{"path": exPath, "search": spaces("\treturn \"\"\n"), "replace": spaces(body)}), done},
		"editFile, trailing space": {call("editFile", map[string]any{"path": exPath, "search": "\treturn \"\"   \n}", "replace": body + "}"}), done},
		"editFile, leading blank":  {call("editFile", map[string]any{"path": exPath, "search": "\n\treturn \"\"\n", "replace": body}), done},
	}
}

type formRun struct {
	Status  string `json:"status"`
	Outcome struct {
		Failure *struct {
			Cause   string `json:"cause"`
			Message string `json:"message"`
		} `json:"failure"`
	} `json:"outcome"`
	Verified    bool   `json:"verified"`
	ChangesetID uint64 `json:"changesetId"`
	Verdict     struct {
		Status string `json:"status"`
		Checks []struct {
			Tier    string `json:"tier"`
			Subject string `json:"subject"`
			Status  string `json:"status"`
			Detail  string `json:"detail"`
		} `json:"checks"`
	} `json:"verdict"`
}

func (r formRun) ranCheck(cmd string) bool {
	for _, c := range r.Verdict.Checks {
		if c.Tier == "execution" && strings.Contains(c.Subject, cmd) && c.Status == "passed" {
			return true
		}
	}
	return false
}

func TestReplyFormsBecomeVerifiedChanges(t *testing.T) {
	t.Parallel()
	for name, replies := range replyForms(goodBody) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, srv, env := exWorkspace(t)
			srv.Enqueue(replies...)
			r := runNova(t, dir, env, "agent", "run", "implementer", exTask, "--json")
			require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			var run formRun
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &run), r.stdout)
			assert.Equal(t, "done", run.Status)
			assert.True(t, run.Verified, "verdict %+v", run.Verdict)
			assert.Equal(t, "passed", run.Verdict.Status)
			assert.True(t, run.ranCheck("go test ./..."), "the detected check ran: %+v", run.Verdict.Checks)
			require.NotZero(t, run.ChangesetID)
			a := runNova(t, dir, nil, "changes", "apply", fmt.Sprint(run.ChangesetID), "--yes")
			require.Equal(t, 0, a.code, a.stderr)
			assert.Equal(t, exFile(goodBody), readFile(t, dir, exPath))
		})
	}
}

func TestWrongSolutionsNeverEndDone(t *testing.T) {
	t.Parallel()
	forms := replyForms(badBody)
	forms["cut at the token limit"] = []ollamatest.Reply{
		ollamatest.Text(exPath + "\n```go\n" + exFile(goodBody)).WithDoneReason("length"),
	}
	for name, replies := range forms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, srv, env := exWorkspace(t)
			srv.Enqueue(replies...)
			if name == "cut at the token limit" {
				// Every try is cut.
				srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply { return replies[0] })
			}
			r := runNova(t, dir, env, "agent", "run", "implementer", exTask, "--json")
			var run formRun
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &run), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.False(t, run.Status == "done" && run.Verified, "a wrong solution is never a verified change")
			assert.NotEqual(t, "done", run.Status, "a wrong solution never ends done: %+v", run.Verdict)
			assert.NotEqual(t, "passed", run.Verdict.Status)
			assert.Equal(t, exStub, readFile(t, dir, exPath), "nothing reaches the working tree")
			require.NotNil(t, run.Outcome.Failure, "the run failed")
			if name == "cut at the token limit" {
				assert.Equal(t, "length", run.Outcome.Failure.Cause)
			} else {
				assert.Equal(t, "checks_failed", run.Outcome.Failure.Cause, "the detected go test ran and failed")
				assert.Contains(t, run.Outcome.Failure.Message, `Reverse("héllo")`, "the failing test's output")
			}
		})
	}
}
