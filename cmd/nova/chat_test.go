package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// Issue 28's done-when through the CLI, as a new user would: a fresh
// `nova init` of a Go module with a bug, a fake Ollama over HTTP, then
// `nova chat -p "fix the bug in foo.go: …" --apply` → the fix is on disk,
// verified by the detected check (go test); a follow-up's prompt carries the
// first exchange; `nova chat --resume` shows both turns; an AGENTS.md rule
// is in the prompt and in provenance.

const (
	chatBuggy = "package foo\n\n// Abs returns the absolute value of x.\nfunc Abs(x int) int {\n\treturn x\n}\n"
	chatFixed = "package foo\n\n// Abs returns the absolute value of x.\nfunc Abs(x int) int {\n\tif x < 0 {\n\t\treturn -x\n\t}\n\treturn x\n}\n"
	chatTest  = "package foo\n\nimport \"testing\"\n\nfunc TestAbs(t *testing.T) {\n\tfor in, want := range map[int]int{0: 0, 3: 3, -4: 4} {\n\t\tif got := Abs(in); got != want {\n\t\t\tt.Errorf(\"Abs(%d) = %d, want %d\", in, got, want)\n\t\t}\n\t}\n}\n"
	chatRule  = "Every exported function keeps its doc comment (rule R-17)."
	chatAsk   = "fix the bug in foo.go: Abs returns negative numbers unchanged"
)

func chatWorkspace(t *testing.T) (string, *ollamatest.Server, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/foo\n\ngo 1.22\n")
	writeFile(t, dir, "foo.go", chatBuggy)
	writeFile(t, dir, "foo_test.go", chatTest)
	writeFile(t, dir, "AGENTS.md", "# House rules\n\n"+chatRule+"\n")
	r := runNova(t, dir, nil, "init")
	require.Equal(t, 0, r.code, r.stderr)
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	return dir, srv, map[string]string{"OLLAMA_HOST": srv.URL()}
}

// chatPrompt is everything the model was sent in one chat request.
func chatPrompt(req api.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Role + ": " + m.Content + "\n")
	}
	return b.String()
}

func TestChatFixesABugAndRemembersTheConversation(t *testing.T) {
	t.Parallel()
	dir, srv, env := chatWorkspace(t)
	srv.Enqueue(ollamatest.Text("The bug: Abs never negates.\n\nfoo.go\n```go\n" + chatFixed + "```\n\nAbs now negates negative numbers."))
	r := runNova(t, dir, env, "chat", "-p", chatAsk, "--apply")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Equal(t, chatFixed, readFile(t, dir, "foo.go"), "the fix is on disk")
	assert.Contains(t, r.stdout, "implementer")
	assert.Contains(t, r.stdout, "applied, verified", "verified by the detected check, then applied")
	assert.Contains(t, r.stdout, "context: rules AGENTS.md", "the rule file is in provenance")
	reqs := srv.ChatRequests()
	require.NotEmpty(t, reqs)
	assert.Contains(t, chatPrompt(reqs[0]), chatRule, "the AGENTS.md rule is in the prompt")

	// The follow-up is one more line, and its prompt carries the first exchange.
	srv.Enqueue(ollamatest.Text("Abs(math.MinInt) overflows; that is Go's behaviour and the tests accept it, so nothing else changes."))
	r = runNova(t, dir, env, "chat", "--resume", "-p", "what about the minimum int?")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	reqs = srv.ChatRequests()
	follow := chatPrompt(reqs[len(reqs)-1])
	assert.Contains(t, follow, chatAsk, "the first request")
	assert.Contains(t, follow, "Abs now negates negative numbers", "the first answer")
	assert.Contains(t, follow, "what about the minimum int?")

	// Quit; `nova chat --resume` shows both turns.
	r = runNova(t, dir, env, "chat", "--resume")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "2 turns")
	assert.Contains(t, r.stdout, "> "+chatAsk)
	assert.Contains(t, r.stdout, "> what about the minimum int?")
	assert.Contains(t, r.stdout, "Abs(math.MinInt) overflows")

	r = runNova(t, dir, env, "chat", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "2 turns")
	r = runNova(t, dir, env, "chat", "export", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "## Turn 2")
	assert.Contains(t, r.stdout, "rules AGENTS.md")

	// The runs are listed by the message, not by the history the prompt
	// opens with.
	r = runNova(t, dir, env, "agent", "runs", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "what about the minimum int?")
	assert.NotContains(t, r.stdout, "<chat_history>")
}

func TestChatJSONStreamsEventsAndTheTurn(t *testing.T) {
	t.Parallel()
	dir, srv, env := chatWorkspace(t)
	srv.Enqueue(ollamatest.Text("Abs is in foo.go; it returns x unchanged."))
	r := runNova(t, dir, env, "chat", "-p", "where is Abs defined?", "--json")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	var types []string
	var last map[string]any
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "each line is one JSON document: %s", sc.Text())
		types = append(types, fmt.Sprint(m["type"]))
		last = m
	}
	assert.Contains(t, types, "turn")
	require.NotNil(t, last)
	assert.Equal(t, "result", last["type"])
	turn := last["turn"].(map[string]any)
	assert.Equal(t, "researcher", turn["agent"], "a question goes to a read-only agent")
	assert.Equal(t, "done", turn["status"])
	assert.Equal(t, chatBuggy, readFile(t, dir, "foo.go"))
}

func TestChatBadInput(t *testing.T) {
	t.Parallel()
	dir, srv, env := chatWorkspace(t)
	r := runNova(t, dir, env, "chat", "show", "42")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "no such chat session")
	r = runNova(t, dir, env, "chat", "--resume", "42")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "nova chat list")
	// /undo with nothing to undo, in a conversation on stdin.
	srv.Enqueue(ollamatest.Text(""), ollamatest.Text(""), ollamatest.Text(""))
	r = runNovaStdin(t, dir, env, "/undo\n/help\n", "chat")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "nothing to undo")
	assert.Contains(t, r.stdout, "/rehearse")
	// A model that answers with an empty message: the turn says so.
	srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply { return ollamatest.Text("") })
	r = runNova(t, dir, env, "chat", "-p", "why is Abs wrong?")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stdout+r.stderr, "empty")
	_ = time.Second
}

// `nova init` finds the project's rule files and, asked to, imports each
// rule as a workspace fact, once.
func TestInitImportsProjectRulesAsFacts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/foo\n\ngo 1.22\n")
	writeFile(t, dir, "AGENTS.md", "# Rules\n\n- "+chatRule+"\n- Tests use testify.\n")
	r := runNova(t, dir, nil, "init")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "project rules found: AGENTS.md")
	assert.Contains(t, r.stdout, "nova init --import-rules", "no terminal: it says how")
	r = runNova(t, dir, nil, "init", "--import-rules")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "2 rules imported as workspace facts")
	r = runNova(t, dir, nil, "init", "--import-rules")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "0 rules imported", "never twice")
	r = runNova(t, dir, nil, "facts", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "rule R-17")
}

// `nova agent run` gets the same context as a chat turn: the project's
// rule files are in its prompt.
func TestAgentRunCarriesTheProjectRules(t *testing.T) {
	t.Parallel()
	dir, srv, env := chatWorkspace(t)
	srv.Enqueue(ollamatest.Text("Abs is in foo.go."))
	r := runNova(t, dir, env, "agent", "run", "researcher", "where is Abs?", "--json")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	reqs := srv.ChatRequests()
	require.NotEmpty(t, reqs)
	assert.Contains(t, chatPrompt(reqs[0]), chatRule)
	assert.Contains(t, chatPrompt(reqs[0]), "<project_rules>")
}
