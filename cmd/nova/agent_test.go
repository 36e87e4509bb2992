package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// agentWorkspace is an initialised workspace with a small Go project and a
// fake Ollama serving the default tier models.
func agentWorkspace(t *testing.T) (string, *ollamatest.Server, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	writeFile(t, dir, "go.mod", "module example.com/app\n\ngo 1.22\n")
	writeFile(t, dir, "main.go", mainGo)
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	return dir, srv, map[string]string{"OLLAMA_HOST": srv.URL()}
}

func writeFile(t *testing.T, dir, p, content string) {
	t.Helper()
	abs := filepath.Join(dir, filepath.FromSlash(p))
	require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
	require.NoError(t, os.WriteFile(abs, []byte(content), 0o644))
}

func readFile(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	require.NoError(t, err)
	return string(b)
}

const mainGo = "package main\n\nimport \"net/http\"\n\nfunc main() {\n\thttp.ListenAndServe(\":8080\", nil)\n}\n"

const healthGo = "package main\n\nimport \"net/http\"\n\n// health answers 200 while the process is up.\nfunc health(w http.ResponseWriter, _ *http.Request) {\n\tw.WriteHeader(http.StatusOK)\n\t_, _ = w.Write([]byte(\"ok\"))\n}\n"

func call(name string, args map[string]any) ollamatest.Reply {
	return ollamatest.ToolCalls(ollamatest.Call(name, args))
}

type runJSON struct {
	ID          uint64   `json:"id"`
	Agent       string   `json:"agent"`
	Status      string   `json:"status"`
	ChangesetID uint64   `json:"changesetId"`
	Files       []string `json:"files"`
	Outcome     struct {
		OK      bool   `json:"ok"`
		Result  string `json:"result"`
		Failure *struct {
			Kind          string   `json:"kind"`
			Message       string   `json:"message"`
			Cause         string   `json:"cause"`
			RecoveryHints []string `json:"recoveryHints"`
		} `json:"failure"`
		Meta struct {
			PromptTokens int    `json:"promptTokens"`
			EvalTokens   int    `json:"evalTokens"`
			ToolCalls    int    `json:"toolCalls"`
			Tier         string `json:"tier"`
		} `json:"meta"`
	} `json:"outcome"`
	Verdict struct {
		Status string `json:"status"`
	} `json:"verdict"`
}

// TestAgentRunChangesShowApply is the done-when scenario:
// `nova agent run MARS "add a health check endpoint"` against the fake
// stages files in a changeset that `nova changes show` displays as a diff
// and `nova changes apply` writes.
func TestAgentRunChangesShowApply(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	srv.Enqueue(
		call("listFiles", map[string]any{}),
		call("readFile", map[string]any{"path": "main.go"}),
		call("writeFile", map[string]any{"path": "health.go", "content": healthGo}),
		call("editFile", map[string]any{"path": "main.go",
			"search":  "\thttp.ListenAndServe(",
			"replace": "\thttp.HandleFunc(\"/healthz\", health)\n\thttp.ListenAndServe("}),
		ollamatest.Text("Added health.go (GET /healthz answers 200 ok) and registered it in main.go."),
	)

	r := runNova(t, dir, env, "agent", "run", "MARS", "add a health check endpoint")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "▶ MARS")
	assert.Contains(t, r.stderr, "→ writeFile")
	assert.Contains(t, r.stderr, "✓ ok: staged health.go")
	assert.Contains(t, r.stdout, "✓ MARS finished run 1")
	assert.Contains(t, r.stdout, "Added health.go")
	assert.Contains(t, r.stdout, "changeset 1: 2 files staged: health.go, main.go")
	// No check is configured and no command ran: consistent, but nothing
	// executed the change (issue 25).
	assert.Contains(t, r.stdout, "verdict: unverified")
	assert.Equal(t, mainGo, readFile(t, dir, "main.go"), "nothing touches the working tree before apply")
	assert.NoFileExists(t, filepath.Join(dir, "health.go"))

	reqs := srv.ChatRequests()
	require.Len(t, reqs, 5)
	assert.Contains(t, reqs[0].Messages[0].Content, "You are MARS")
	assert.Equal(t, "qwen2.5-coder:7b", reqs[0].Model)

	r = runNova(t, dir, nil, "changes", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "pending")
	assert.Contains(t, r.stdout, "MARS")

	r = runNova(t, dir, nil, "changes", "show", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "changeset 1 (pending) by MARS, run 1")
	assert.Contains(t, r.stdout, "+ health.go (create, pending)")
	assert.Contains(t, r.stdout, "--- /dev/null\n+++ b/health.go\n")
	assert.Contains(t, r.stdout, "+func health(w http.ResponseWriter, _ *http.Request) {")
	assert.Contains(t, r.stdout, "--- a/main.go\n+++ b/main.go\n")
	assert.Contains(t, r.stdout, "+\thttp.HandleFunc(\"/healthz\", health)")

	var shown struct {
		ID    uint64 `json:"id"`
		Files []struct {
			Path     string `json:"path"`
			Original string `json:"original"`
			Proposed string `json:"proposed"`
			Status   string `json:"status"`
		} `json:"files"`
	}
	r = runNova(t, dir, nil, "changes", "show", "1", "--json")
	require.Equal(t, 0, r.code)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &shown))
	require.Len(t, shown.Files, 2)
	assert.Equal(t, healthGo, shown.Files[0].Proposed)
	assert.Equal(t, mainGo, shown.Files[1].Original)

	// Not a terminal and no --yes: refused as bad usage.
	r = runNova(t, dir, nil, "changes", "apply", "1")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "pass --yes")
	assert.NoFileExists(t, filepath.Join(dir, "health.go"))

	r = runNova(t, dir, nil, "changes", "apply", "1", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "applied changeset 1: health.go, main.go")
	assert.Equal(t, healthGo, readFile(t, dir, "health.go"))
	assert.Contains(t, readFile(t, dir, "main.go"), "http.HandleFunc(\"/healthz\", health)")

	r = runNova(t, dir, nil, "changes", "list", "--json")
	require.Equal(t, 0, r.code)
	var list []struct {
		ID     uint64 `json:"id"`
		Status string `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	require.Len(t, list, 1)
	assert.Equal(t, "applied", list[0].Status)

	r = runNova(t, dir, nil, "changes", "apply", "1", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "is applied")
}

func TestAgentRunJSONAndFailures(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	srv.Enqueue(
		call("readFile", map[string]any{"path": "../../etc/passwd"}),
		ollamatest.Text("main.go serves on :8080."),
	)
	r := runNova(t, dir, env, "agent", "run", "MARS", "where does it listen?", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var run runJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &run), r.stdout)
	assert.True(t, run.Outcome.OK)
	assert.Zero(t, run.ChangesetID)
	assert.Equal(t, "inconclusive", run.Verdict.Status)
	assert.Positive(t, run.Outcome.Meta.PromptTokens)
	assert.Contains(t, r.stderr, "✗ denied")

	// Ollama down: a clear message, exit 1.
	r = runNova(t, dir, nil, "agent", "run", "MARS", "add a health check endpoint")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "✗ MARS failed")
	assert.Contains(t, r.stdout, ": unreachable (ollama_unreachable)", "the failure's class comes first")
	assert.Contains(t, r.stdout, "ollama is not reachable")
	assert.Contains(t, r.stdout, "likely cause: the model server is not running or not reachable")
	assert.Regexp(t, `(?m)^    \w+: .+`, r.stdout, "each recovery hint with its note")
	assert.Contains(t, r.stdout, "verdict: failed")

	r = runNova(t, dir, nil, "agent", "run", "MARS", "x", "--json")
	assert.Equal(t, 1, r.code)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &run))
	require.NotNil(t, run.Outcome.Failure)
	assert.Equal(t, "ollama_unreachable", run.Outcome.Failure.Cause)

	// Missing model on an escalated tier request.
	srv.SetModels("qwen2.5-coder:7b")
	r = runNova(t, dir, env, "agent", "run", "MARS", "x", "--tier", "large")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "ollama pull qwen2.5-coder:14b")

	r = runNova(t, dir, env, "agent", "run", "NOPE", "x")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "unknown agent")
	assert.Contains(t, r.stderr, "MARS")

	r = runNova(t, dir, env, "agent", "run", "MARS")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, env, "agent", "run", "MARS", "x", "--tier", "huge")
	assert.Equal(t, 2, r.code, "a bad enum value is bad usage")
	assert.Contains(t, r.stderr, "tier")
}

// A prompt too long for the model's context is trimmed, and the run's
// progress says so; one whose fixed part cannot fit is refused with its
// class (misconfigured) and what to change.
func TestAgentRunPromptTrimmedAndRefused(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	cfg := readFile(t, dir, ".nova/config.yaml")
	require.Contains(t, cfg, "numCtx: 8192")
	writeFile(t, dir, ".nova/config.yaml", strings.Replace(cfg, "numCtx: 8192", "numCtx: 6144", 1))
	srv.Enqueue(ollamatest.Text("Nothing to change."))
	task := "Say where main.go listens. " + strings.Repeat("Background about the service and its port. ", 1200)
	r := runNova(t, dir, env, "agent", "run", "MARS", task)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "✂ prompt trimmed to ")
	assert.Contains(t, r.stderr, "cut the task")

	writeFile(t, dir, ".nova/config.yaml", strings.Replace(cfg, "numCtx: 8192", "numCtx: 1024", 1))
	r = runNova(t, dir, env, "agent", "run", "MARS", "Say where main.go listens.")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, ": misconfigured (prompt_too_long)")
	assert.Contains(t, r.stdout, "ollama.numCtx")
}

func TestAgentRunCommandApprovalPrompt(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	writeFile(t, dir, ".nova/config.yaml", "commands:\n  allow: [\"echo\"]\n  timeout: 10s\n")
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				return ollamatest.Text("Result: " + m.Content)
			}
		}
		return call("runCommand", map[string]any{"command": "echo checks ok"})
	})
	r := runNovaStdin(t, dir, env, "y\n", "agent", "run", "MARS", "run the checks")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "MARS wants to run `echo checks ok` in the workspace root. Allow? [y/N]")
	assert.Contains(t, r.stdout, "checks ok")
	assert.Contains(t, r.stdout, "exit code 0")

	r = runNovaStdin(t, dir, env, "n\n", "agent", "run", "MARS", "run the checks")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "declined")

	r = runNovaStdin(t, dir, env, "", "agent", "run", "MARS", "run the checks", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "Allow?")
	assert.Contains(t, r.stdout, "checks ok")
}

func TestChangesConflictForceDiscard(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	stage := func(content string) {
		srv.Enqueue(call("writeFile", map[string]any{"path": "main.go", "content": content}), ollamatest.Text("Rewrote main.go."))
		r := runNova(t, dir, env, "agent", "run", "MARS", "rewrite main")
		require.Equal(t, 0, r.code, r.stderr)
	}
	stage("package main\n\nfunc main() {}\n")
	writeFile(t, dir, "main.go", "package main // edited by hand\n")

	r := runNova(t, dir, nil, "changes", "apply", "1", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "main.go (modified on disk)")
	assert.Contains(t, r.stderr, "--force")
	assert.Equal(t, "package main // edited by hand\n", readFile(t, dir, "main.go"))

	r = runNova(t, dir, nil, "changes", "apply", "1", "--yes", "--json")
	assert.Equal(t, 1, r.code)
	var conflict struct {
		OK        bool `json:"ok"`
		Conflicts []struct {
			Path string `json:"path"`
		} `json:"conflicts"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &conflict), r.stdout)
	require.Len(t, conflict.Conflicts, 1)
	assert.Equal(t, "main.go", conflict.Conflicts[0].Path)

	r = runNova(t, dir, nil, "changes", "apply", "1", "--yes", "--force")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "overwrote main.go")
	assert.Equal(t, "package main\n\nfunc main() {}\n", readFile(t, dir, "main.go"))

	stage("package main\n")
	r = runNova(t, dir, nil, "changes", "discard", "2")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, nil, "changes", "discard", "2", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "discarded changeset 2")
	r = runNova(t, dir, nil, "changes", "list", "--status", "pending", "--json")
	require.Equal(t, 0, r.code)
	assert.Equal(t, "[]\n", r.stdout)

	r = runNova(t, dir, nil, "changes", "show", "abc")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, nil, "changes", "show", "99")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "changeset not found")
	r = runNova(t, dir, nil, "changes", "list", "--status", "weird")
	assert.Equal(t, 2, r.code)
}

func TestAgentsListShowValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)

	r := runNova(t, dir, nil, "agents", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "MARS")
	assert.Contains(t, r.stdout, "medium→large")
	r = runNova(t, dir, nil, "agents", "list", "--json")
	require.Equal(t, 0, r.code)
	var specs []struct {
		ID    string   `json:"id"`
		Tools []string `json:"tools"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &specs))
	assert.GreaterOrEqual(t, len(specs), 21)

	r = runNova(t, dir, nil, "agents", "show", "mars")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "MARS — Mars")
	assert.Contains(t, r.stdout, "role:")
	assert.Regexp(t, `also: +.*runSkill.* \(offered to it without being in its file\)`, r.stdout)
	assert.NotContains(t, r.stdout, "generateUIComponent", "only VENUS is offered it")
	r = runNova(t, dir, nil, "agents", "show", "venus", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var venus struct {
		ID            string   `json:"id"`
		Role          string   `json:"role"`
		ImplicitTools []string `json:"implicitTools"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &venus))
	assert.Equal(t, "VENUS", venus.ID)
	assert.NotEmpty(t, venus.Role, "the spec's own fields stay at the top level")
	assert.Contains(t, venus.ImplicitTools, "generateUIComponent")
	r = runNova(t, dir, nil, "agents", "show", "NOPE")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "unknown agent")

	r = runNova(t, dir, nil, "agents", "validate")
	require.Equal(t, 0, r.code, r.stdout)
	assert.Contains(t, r.stdout, "0 problems")

	// A directory with malformed files: every problem, exit 1.
	bad := t.TempDir()
	writeFile(t, bad, "GOOD.yaml", "schema: kb.specialist/1\nid: GOOD\nrole: does good things\ntools: [readFile]\n")
	writeFile(t, bad, "BROKEN.yaml", "schema: kb.specialist/1\nid: BROKEN\nrole: [unclosed\n")
	writeFile(t, bad, "TYPO.yaml", "schema: kb.specialist/1\nid: TYPO\nrole: r\ntols: [readFile]\ntools: [fly]\nlimits:\n  timeout: soon\n")
	r = runNova(t, dir, nil, "agents", "validate", bad)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "BROKEN.yaml:3")
	assert.Contains(t, r.stdout, "TYPO.yaml:4: tols: unknown field")
	assert.Contains(t, r.stdout, "TYPO.yaml:5: tools[0]: unknown tool \"fly\"")
	assert.Contains(t, r.stdout, "limits.timeout")
	assert.Contains(t, r.stdout, "3 agent files")
	assert.Contains(t, r.stdout, "1 valid")

	r = runNova(t, dir, nil, "agents", "validate", bad, "--json")
	assert.Equal(t, 1, r.code)
	var rep struct {
		OK     bool     `json:"ok"`
		Valid  []string `json:"valid"`
		Errors []struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.False(t, rep.OK)
	assert.Equal(t, []string{"GOOD"}, rep.Valid)
	assert.GreaterOrEqual(t, len(rep.Errors), 4)
	for _, e := range rep.Errors {
		assert.NotEmpty(t, e.File)
		assert.NotEmpty(t, e.Message)
	}

	// A malformed agent in the workspace: list warns and leaves it out,
	// run names the file.
	writeFile(t, dir, ".nova/agents/MARS.yaml", "schema: kb.specialist/1\nid: MARS\nrole: [\n")
	r = runNova(t, dir, nil, "agents", "list")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, "in agent files")
	assert.NotContains(t, r.stdout, "MARS ")
	r = runNova(t, dir, nil, "agent", "run", "MARS", "x")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "MARS.yaml")

	r = runNova(t, dir, nil, "agents", "validate", filepath.Join(dir, "missing"))
	assert.Equal(t, 1, r.code)
}

// Issue 25: a tool call written in the reply's text (fenced JSON, its path
// named file_path) is run, and the progress line says where it came from.
func TestAgentRunToolCallWrittenAsText(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	srv.Enqueue(
		ollamatest.Text("I will create the file now.\n```json\n"+
			`{"name": "writeFile", "arguments": {"file_path": "notes/text.txt", "content": "written from a text tool call\n"}}`+"\n```"),
		ollamatest.Text("Files changed: notes/text.txt."),
	)
	r := runNova(t, dir, env, "agent", "run", "MARS", "Create notes/text.txt with a line of text.")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "→ writeFile")
	assert.Contains(t, r.stderr, "[tool call read from text (form fenced-json)]")
	assert.Contains(t, r.stdout, "changeset 1: 1 file staged: notes/text.txt")
	require.Len(t, srv.ChatRequests(), 2)

	r = runNova(t, dir, nil, "changes", "apply", "1", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "written from a text tool call\n", readFile(t, dir, "notes/text.txt"))
}

// The kb.specialist/1 seed's researcher loads as written; show says how its
// tool names were mapped and which fields nova took without using.
func TestAgentsShow_SeedResearcher(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	for _, f := range []struct{ from, to string }{
		{"researcher.yml", "seedresearcher"}, {"researcher-11.yml", "seedteam"},
	} {
		data, err := os.ReadFile(filepath.Join("..", "..", "engine", "agents", "testdata", "seed", f.from))
		require.NoError(t, err)
		// init ships a researcher of its own: same file, another id.
		data = []byte(strings.Replace(string(data), "id: researcher", "id: "+f.to, 1))
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".nova", "agents", f.to+".yml"), data, 0o644))
	}
	r := runNova(t, dir, nil, "agents", "validate")
	require.Equal(t, 0, r.code, r.stdout)
	assert.Contains(t, r.stdout, "seedresearcher.yml: note: tools: fs:read → readFile")
	assert.Contains(t, r.stdout, "seedteam.yml: note: llm.tier: read as tier")
	assert.Contains(t, r.stdout, "0 problems")

	r = runNova(t, dir, nil, "agents", "show", "seedresearcher")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "fs:read → readFile")
	assert.Contains(t, r.stdout, "fs:list → listFiles, searchFiles")
	assert.Contains(t, r.stdout, "mind:rag-query → queryKnowledge")
	assert.Contains(t, r.stdout, "note:       examples[0]: task, approach and outcome read as input and output")

	r = runNova(t, dir, nil, "agents", "show", "seedteam")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "note:       llm.tier: read as tier")
	assert.Contains(t, r.stdout, "capabilities, constraints, input, output: accepted")

	r = runNova(t, dir, nil, "agents", "show", "seedresearcher", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var spec struct {
		Tools   []string `json:"tools"`
		ToolMap []struct {
			From string   `json:"from"`
			To   []string `json:"to"`
		} `json:"toolMap"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &spec))
	assert.Contains(t, spec.Tools, "readFile")
	assert.NotEmpty(t, spec.ToolMap)
}

// `nova agent runs list|show` read the stored runs back: each tool call
// with its arguments, status, result, timing, the rule an edit matched by
// and the text form a call was read from.
func TestAgentRunsListShow(t *testing.T) {
	t.Parallel()
	dir, srv, env := exWorkspace(t)
	body := "\tr := []rune(s)\n\tfor i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {\n\t\tr[i], r[j] = r[j], r[i]\n\t}\n\treturn string(r)\n"
	readArgs, _ := json.Marshal(map[string]any{"name": "readFile", "arguments": map[string]string{"path": exPath}})
	srv.Enqueue(
		ollamatest.Text("<tool_call>\n"+string(readArgs)+"\n</tool_call>"),
		ollamatest.ToolCalls(ollamatest.Call("editFile", map[string]any{"path": exPath, "search": spaces("\treturn \"\"\n"), "replace": spaces(body)})),
		ollamatest.Text("Files changed: strutil/reverse.go (Reverse reverses runes)."),
	)
	r := runNova(t, dir, env, "agent", "run", "implementer", exTask, "--json")
	require.Equal(t, 0, r.code, r.stderr)

	r = runNova(t, dir, env, "agent", "runs", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^\s+1  implementer\s`, r.stdout)
	var runs []struct {
		ID    uint64 `json:"id"`
		Agent string `json:"agent"`
	}
	novaJSON(t, dir, &runs, "agent", "runs", "list", "--json")
	require.Len(t, runs, 1)

	r = runNova(t, dir, env, "agent", "runs", "show", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "run 1: implementer")
	assert.Regexp(t, `#\d+ step 1  readFile  ok  \S+  via tool_call-tag`, r.stdout)
	assert.Regexp(t, `editFile  ok  \S+  rule \S+`, r.stdout)
	assert.Contains(t, r.stdout, `args:   {"path":"strutil/reverse.go"}`)
	assert.Contains(t, r.stdout, "result: staged an edit of strutil/reverse.go")

	var rt struct {
		Run   struct{ ID uint64 } `json:"run"`
		Lines []struct {
			Tool     string `json:"tool"`
			Args     string `json:"args"`
			Status   string `json:"status"`
			Result   string `json:"result"`
			Duration int64  `json:"durationNs"`
			Rule     string `json:"rule"`
			Via      string `json:"via"`
		} `json:"lines"`
		Traces []json.RawMessage `json:"traces"`
	}
	novaJSON(t, dir, &rt, "agent", "runs", "show", "1", "--json")
	assert.Equal(t, uint64(1), rt.Run.ID)
	require.GreaterOrEqual(t, len(rt.Lines), 2)
	assert.Len(t, rt.Traces, len(rt.Lines))
	assert.Equal(t, "readFile", rt.Lines[0].Tool)
	assert.NotEmpty(t, rt.Lines[0].Via)
	assert.Equal(t, "editFile", rt.Lines[1].Tool)
	assert.NotEmpty(t, rt.Lines[1].Rule)
	assert.Positive(t, rt.Lines[1].Duration)

	r = runNova(t, dir, env, "agent", "runs", "show", "99")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "run not found")
	r = runNova(t, dir, env, "agent", "runs", "show", "x")
	assert.Equal(t, 2, r.code)
}
