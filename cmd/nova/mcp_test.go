package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/untrusted"
)

// testMCPServerEnv makes the test binary an MCP server on stdin/stdout
// (TestMain): the servers of these tests are real processes speaking stdio.
const testMCPServerEnv = "NOVA_TEST_MCP_SERVER"

// serveTestMCP serves the tools "echo" (GREETING + ": " + message) and
// "oops" (a tool error) until stdin closes.
func serveTestMCP() int {
	srv := sdk.NewServer(&sdk.Implementation{Name: "nova-test", Version: "0.1.0"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "required": []any{"message"}}
	srv.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes a message.", InputSchema: schema},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct {
				Message string `json:"message"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: os.Getenv("GREETING") + ": " + in.Message}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "oops", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it broke"}}}, nil
		})
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// addMCPConfig appends an mcp: section with the server "fake" (this test
// binary) to the workspace config.
func addMCPConfig(t *testing.T, dir, extra string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	path := filepath.Join(dir, ".nova", "config.yaml")
	cfg, err := os.ReadFile(path)
	require.NoError(t, err)
	q, _ := json.Marshal(exe)
	section := "\nmcp:\n  servers:\n    fake:\n      command: " + string(q) + "\n      env:\n        " + testMCPServerEnv + ": \"1\"\n        GREETING: \"${MCP_GREETING}\"\n      timeout: 20s\n" + extra
	require.NoError(t, os.WriteFile(path, append(cfg, []byte(section)...), 0o644))
}

func TestMCPCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	addMCPConfig(t, dir, "")
	env := map[string]string{"MCP_GREETING": "hello"}

	r := runNova(t, dir, env, "mcp", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `fake\s+stdio\s+ready\s+2\s`, r.stdout)

	r = runNova(t, dir, env, "mcp", "list", "--json", "--resources")
	require.Equal(t, 0, r.code, r.stderr)
	var list []struct {
		Name, State, ServerName string
		Tools                   int
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list), r.stdout)
	require.Len(t, list, 1)
	assert.Equal(t, "ready", list[0].State)
	assert.Equal(t, "nova-test", list[0].ServerName)
	assert.Equal(t, 2, list[0].Tools)

	r = runNova(t, dir, env, "mcp", "tools")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "fake: 2 tools")
	assert.Regexp(t, `fake\.echo\s+Echoes a message\.`, r.stdout)

	r = runNova(t, dir, env, "mcp", "tools", "fake", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var tl []struct {
		Server string
		Tools  []struct{ FullName string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &tl), r.stdout)
	require.Len(t, tl, 1)
	require.Len(t, tl[0].Tools, 2)
	assert.Equal(t, "fake.echo", tl[0].Tools[0].FullName)

	r = runNova(t, dir, env, "mcp", "call", "fake", "echo", `{"message":"hi"}`)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "result of fake.echo (from the MCP server fake; nova does not vouch for it):\nhello: hi\n", r.stdout)

	r = runNova(t, dir, env, "mcp", "call", "fake", "fake.echo", `{"message":"hi"}`, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.JSONEq(t, `{"server":"fake","tool":"echo","text":"hello: hi"}`, r.stdout)

	r = runNova(t, dir, env, "mcp", "call", "fake", "oops")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "it broke")

	r = runNova(t, dir, env, "mcp", "call", "fake", "echo", `not json`)
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, env, "mcp", "call", "nope", "echo")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `no such MCP server "nope" (configured: fake)`)
	r = runNova(t, dir, env, "mcp", "tools", "nope")
	assert.Equal(t, 1, r.code)

	// agents validate: a listed MCP tool must name a configured server.
	writeFile(t, dir, ".nova/agents/HERMES.yaml", mcpAgent)
	r = runNova(t, dir, env, "agents", "validate")
	require.Equal(t, 0, r.code, r.stdout)
	writeFile(t, dir, ".nova/agents/HERMES.yaml", strings.Replace(mcpAgent, "fake.*", "github.*", 1))
	r = runNova(t, dir, env, "agents", "validate")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, `tools[1]: tool "github.*" names the MCP server "github", which is not under mcp.servers in .nova/config.yaml (configured: fake)`)
}

func TestMCPBrokenServerIsNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	path := filepath.Join(dir, ".nova", "config.yaml")
	cfg, err := os.ReadFile(path)
	require.NoError(t, err)
	cfg = append(cfg, "\nmcp:\n  servers:\n    ghost:\n      command: /nonexistent/mcp-server\n"...)
	require.NoError(t, os.WriteFile(path, cfg, 0o644))

	r := runNova(t, dir, nil, "mcp", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `ghost\s+stdio\s+failed`, r.stdout)
	assert.Contains(t, r.stdout, "error: mcp server ghost:")

	r = runNova(t, dir, nil, "doctor", "--json")
	var rep doctorJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	found := false
	for _, c := range rep.Checks {
		if c.Name == "mcp ghost" {
			found = true
			assert.Contains(t, c.Detail, "mcp server ghost")
		}
	}
	assert.True(t, found, "doctor has a line for the server: %s", r.stdout)

	// An agent that lists the server's tools cannot run: the error names it.
	writeFile(t, dir, ".nova/agents/HERMES.yaml", strings.Replace(mcpAgent, "fake.*", "ghost.*", 1))
	r = runNova(t, dir, nil, "agent", "run", "HERMES", "anything")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "agent HERMES: mcp server ghost:")
}

const mcpAgent = `schema: kb.specialist/1
id: HERMES
version: 1
display: {name: Hermes, description: Talks to MCP servers.}
role: Use the MCP tools you are given to answer.
tools: [readFile, fake.*]
`

// TestMCPAgentRun: an agent that lists fake.* calls fake.echo (approved
// at the prompt), the result reaches the model as untrusted data and is in
// the run's trace; an agent that does not list it is not offered it.
func TestMCPAgentRun(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	addMCPConfig(t, dir, "")
	env["MCP_GREETING"] = "hello"
	writeFile(t, dir, ".nova/agents/HERMES.yaml", mcpAgent)
	srv.Enqueue(
		call("fake.echo", map[string]any{"message": "from the model"}),
		ollamatest.Text("The server said hello."),
	)
	r := runNovaStdin(t, dir, env, "y\n", "agent", "run", "HERMES", "say hello through the server")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "wants to call the MCP tool `fake.echo")

	reqs := srv.ChatRequests()
	require.Len(t, reqs, 2)
	var offered []string
	for _, tl := range reqs[0].Tools {
		offered = append(offered, tl.Function.Name)
	}
	assert.Contains(t, offered, "fake.echo")
	assert.Contains(t, offered, "fake.oops")
	var obs string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			obs = m.Content
		}
	}
	assert.Contains(t, obs, "hello: from the model")
	assert.Contains(t, obs, untrusted.Open("fake.echo"), "the result is marked as data")

	if testWorkspaceKind(t) == "owner" {
		stopTestOwner(t, dir) // the traces are read straight from the database
	}
	ws, err := engine.Open(t.Context(), engine.Options{Root: dir, Getenv: testGetenv(dir, env)})
	require.NoError(t, err)
	traces, err := ws.Runs().Traces(t.Context(), 1)
	require.NoError(t, err)
	require.NoError(t, ws.Close())
	var found bool
	for _, tr := range traces {
		b, _ := json.Marshal(tr)
		if strings.Contains(string(b), "fake.echo") && strings.Contains(string(b), "hello: from the model") {
			found = true
		}
	}
	assert.True(t, found, "the call and its result are in the trace: %+v", traces)

	// MARS does not list fake.*: it is not offered the server's tools.
	srv.Enqueue(ollamatest.Text("Nothing to do."))
	r = runNova(t, dir, env, "agent", "run", "MARS", "look around")
	require.Equal(t, 0, r.code, r.stderr)
	reqs = srv.ChatRequests()
	for _, tl := range reqs[len(reqs)-1].Tools {
		assert.False(t, strings.HasPrefix(tl.Function.Name, "fake."), tl.Function.Name)
	}
}
