package agents_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/secrets"
	"github.com/nova-dev/nova/engine/tools"
)

// Stored traces are redacted: a key a tool read (its output), a secret in a
// file the agent wrote (its arguments). The run itself goes on with the real
// output: the model saw the file, the verdict checks the real content.
func TestStoredTracesAreRedacted(t *testing.T) {
	t.Parallel()
	const key = "AKIAQ2RZ7PLMXW4TNB5Y"
	const pw = "Hq7vLm2Pz9Rt"
	h := newHarness(t, withFiles(map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.22\n",
		".env":   "AWS_ACCESS_KEY_ID=" + key + "\n",
	}))
	var sawKey atomic.Bool
	var calls atomic.Int32
	h.srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		n := calls.Add(1) - 1
		for _, m := range req.Messages {
			if m.Role == "tool" && strings.Contains(m.Content, key) {
				sawKey.Store(true)
			}
		}
		switch n {
		case 0:
			return tc("readFile", map[string]any{"path": ".env"})
		case 1:
			return tc("writeFile", map[string]any{"path": "config.yaml", "content": "db:\n  password: " + pw + "\n"})
		}
		return ollamatest.Text("Read the env file and wrote config.yaml.")
	})
	run := h.run("write the config", spec())
	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.True(t, sawKey.Load(), "the model still reads the file it asked for")

	tr := h.traces(run.ID)
	require.Len(t, tr, 2)
	for _, x := range tr {
		b, err := json.Marshal(x)
		require.NoError(t, err)
		assert.NotContains(t, string(b), key)
		assert.NotContains(t, string(b), pw)
	}
	assert.Contains(t, tr[0].Output, secrets.Redacted)
	assert.True(t, json.Valid(tr[1].Args))
	f, ok := h.file("config.yaml")
	assert.False(t, ok, "staged, not written: %q", f)
}

// AddTrace stores the redacted copy and hands back the caller's trace.
func TestAddTraceStoresARedactedCopy(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	in := agents.Trace{RunID: 7, Tool: "runCommand", Args: json.RawMessage(`{"command":"mysql -u root -pS3cr3tPw9 shop"}`),
		Output: "token is ghp_R8sT2vW4xY6zA1bC3dE5fG7hJ9kL0mN2pQ4r", Evidence: []tools.Evidence{{Kind: "command", Command: "mysql -u root -pS3cr3tPw9 shop"}}}
	got, err := h.runner.Runs.AddTrace(in)
	require.NoError(t, err)
	assert.NotZero(t, got.ID)
	assert.Equal(t, in.Output, got.Output, "the caller's trace is unchanged")
	assert.Equal(t, "mysql -u root -pS3cr3tPw9 shop", in.Evidence[0].Command, "the caller's evidence is not modified")
	stored, err := h.runner.Runs.Traces(context.Background(), 7)
	require.NoError(t, err)
	require.Len(t, stored, 1)
	b, err := json.Marshal(stored[0])
	require.NoError(t, err)
	assert.NotContains(t, string(b), "S3cr3tPw9")
	assert.NotContains(t, string(b), "ghp_R8sT2vW4")
	assert.Equal(t, got.ID, stored[0].ID)
}
