package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// everythingVersion is the MCP reference server the test runs against.
const everythingVersion = "2026.8.31"

// everythingServer installs @modelcontextprotocol/server-everything into
// ~/.cache/nova/mcp-everything (once) and returns node's path and the
// server's entry point. Without node or npm the test is skipped, except in
// CI (CI set), where that is a failure.
func everythingServer(t *testing.T) (node, entry string) {
	t.Helper()
	missing := func(what string) {
		msg := what + " is not installed: the MCP reference-server test needs node and npm (https://nodejs.org)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node")
	}
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	dir := filepath.Join(home, ".cache", "nova", "mcp-everything")
	pkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything")
	entry = filepath.Join(pkg, "dist", "index.js")
	var meta struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(pkg, "package.json")); err == nil && json.Unmarshal(b, &meta) == nil && meta.Version == everythingVersion {
		if _, err := os.Stat(entry); err == nil {
			return node, entry
		}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		missing("npm")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", dir,
		"@modelcontextprotocol/server-everything@"+everythingVersion).CombinedOutput()
	require.NoError(t, err, "npm install: %s", out)
	require.FileExists(t, entry)
	return node, entry
}

// TestMCPEverythingServer runs the MCP reference server over stdio: its
// echo tool through `nova mcp call`, then through an agent run against the
// fake Ollama (a native tool call everything.echo), whose trace holds the
// result.
func TestMCPEverythingServer(t *testing.T) {
	t.Parallel()
	node, entry := everythingServer(t)
	dir, srv, env := agentWorkspace(t)
	path := filepath.Join(dir, ".nova", "config.yaml")
	cfg, err := os.ReadFile(path)
	require.NoError(t, err)
	qn, _ := json.Marshal(node)
	qe, _ := json.Marshal(entry)
	cfg = append(cfg, "\nmcp:\n  servers:\n    everything:\n      command: "+string(qn)+"\n      args: ["+string(qe)+", stdio]\n      timeout: 15s\n"...)
	require.NoError(t, os.WriteFile(path, cfg, 0o644))

	start := time.Now()
	r := runNova(t, dir, env, "mcp", "call", "everything", "echo", `{"message":"hi from nova"}`)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Equal(t, "result of everything.echo (from the MCP server everything; nova does not vouch for it):\nEcho: hi from nova\n", r.stdout)
	t.Logf("nova mcp call against server-everything: %s", time.Since(start))

	r = runNova(t, dir, env, "mcp", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"state": "ready"`)

	writeFile(t, dir, ".nova/agents/HERMES.yaml", strings.Replace(mcpAgent, "fake.*", "everything.echo", 1))
	srv.Enqueue(
		call("everything.echo", map[string]any{"message": "agent says hi"}),
		ollamatest.Text("The server echoed the message."),
	)
	r = runNova(t, dir, env, "agent", "run", "--yes", "HERMES", "echo a message through the server")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	reqs := srv.ChatRequests()
	require.Len(t, reqs, 2)
	var offered []string
	for _, tl := range reqs[0].Tools {
		offered = append(offered, tl.Function.Name)
	}
	assert.Contains(t, offered, "everything.echo")
	assert.NotContains(t, offered, "everything.get-sum", "only the listed tool is offered")

	if testWorkspaceKind(t) == "owner" {
		stopTestOwner(t, dir) // the traces are read straight from the database
	}
	ws, err := engine.Open(t.Context(), engine.Options{Root: dir, Getenv: testGetenv(dir, env)})
	require.NoError(t, err)
	traces, err := ws.Runs().Traces(t.Context(), 1)
	require.NoError(t, err)
	require.NoError(t, ws.Close())
	found := false
	for _, tr := range traces {
		b, _ := json.Marshal(tr)
		if strings.Contains(string(b), "everything.echo") && strings.Contains(string(b), "Echo: agent says hi") {
			found = true
		}
	}
	assert.True(t, found, "the call and its result are in the trace: %+v", traces)
	t.Logf("whole test: %s", time.Since(start))
}
