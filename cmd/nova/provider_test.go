package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/openaitest"
)

// The same agent run as TestAgentRunChangesShowApply, with every tier on
// an OpenAI-compatible server (providers: in the config).
func TestProviderAgentRunOnAnOpenAICompatibleServer(t *testing.T) {
	t.Parallel()
	dir, _, env := agentWorkspace(t)
	lms := openaitest.New(t, openaitest.WithModel(openaitest.Model{ID: "coder-32b", Reported: 32768}), openaitest.WithReplies(
		openaitest.ToolCalls(openaitest.Call{Name: "writeFile", Args: mustJSON(t, map[string]any{"path": "health.go", "content": healthGo})}),
		openaitest.Text("Added health.go: GET /healthz answers 200 ok."),
	))
	writeFile(t, dir, ".nova/config.yaml", "providers:\n  lms:\n    type: openai\n    baseURL: "+lms.URL()+"\n"+
		"models:\n  small: lms/coder-32b\n  medium: lms/coder-32b\n  large: lms/coder-32b\n  embed: \"\"\n")
	r := runNova(t, dir, env, "agent", "run", "MARS", "add a health check endpoint", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var run runJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &run), r.stdout)
	assert.True(t, run.Outcome.OK)
	assert.NotZero(t, run.ChangesetID)
	reqs := lms.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "coder-32b", reqs[0].Body["model"], "the provider prefix is not sent")
	assert.NotEmpty(t, reqs[0].Body["tools"], "native tools over the OpenAI wire")

	r = runNova(t, dir, env, "changes", "show", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "health.go")

	r = runNova(t, dir, env, "doctor", "--json")
	var rep struct {
		Ollama struct {
			Hosts []struct {
				Provider string   `json:"provider"`
				URL      string   `json:"url"`
				Up       bool     `json:"up"`
				Models   []string `json:"models"`
			} `json:"hosts"`
		} `json:"ollama"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	require.Len(t, rep.Ollama.Hosts, 1)
	assert.Equal(t, "lms", rep.Ollama.Hosts[0].Provider)
	assert.True(t, rep.Ollama.Hosts[0].Up)
	assert.Equal(t, []string{"coder-32b"}, rep.Ollama.Hosts[0].Models)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
