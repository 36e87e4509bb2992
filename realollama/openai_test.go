package realollama_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
)

// The openai provider (openai-go over chat completions) against the real
// server's OpenAI-compatible endpoint, /v1.

func openaiClient(t *testing.T, host string) *llm.OpenAI {
	t.Helper()
	c, err := llm.NewOpenAI("real", host+"/v1", "", llm.Config{Backoff: 10 * time.Millisecond, NumCtx: 4096})
	require.NoError(t, err)
	return c
}

func TestOpenAIProviderChatsWithTheRealServer(t *testing.T) {
	c := openaiClient(t, suite.srv.URL)
	p := c.Probe(ctxT(t))
	require.True(t, p.Reachable, p.Error)
	assert.True(t, p.HasModel("nova-coder"), "listed by /v1/models: %+v", p.Models)

	var streamed int
	res, err := c.Chat(ctxT(t), llm.ChatRequest{Model: "nova-coder", Temperature: new(0.0),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "@@plain@@"}}}, func(d llm.Delta) { streamed += len(d.Content) })
	require.NoError(t, err)
	assert.Equal(t, "All done: nothing needed changing.", res.Content)
	assert.Equal(t, len(res.Content), streamed, "streamed over SSE")
	assert.Equal(t, "stop", res.DoneReason)
	assert.Positive(t, res.PromptTokens, "usage from the stream")

	// Native tool calls, then the result as a tool message naming the call.
	tools := []llm.Tool{{Name: "writeFile", Description: "write a file",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)}}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "@@write@@ Write hello.txt."}}
	res, err = c.Chat(ctxT(t), llm.ChatRequest{Model: "nova-coder", Temperature: new(0.0), Messages: msgs, Tools: tools}, nil)
	require.NoError(t, err)
	require.Len(t, res.ToolCalls, 1, "content: %q", res.Content)
	assert.Equal(t, "writeFile", res.ToolCalls[0].Name)
	assert.JSONEq(t, `{"path":"hello.txt","content":"hello from a real server\n"}`, string(res.ToolCalls[0].Arguments))
	msgs = append(msgs, res.Message(), llm.Message{Role: llm.RoleTool, ToolName: "writeFile", ToolCallID: res.ToolCalls[0].ID, Content: "wrote hello.txt"})
	res, err = c.Chat(ctxT(t), llm.ChatRequest{Model: "nova-coder", Temperature: new(0.0), Messages: msgs, Tools: tools}, nil)
	require.NoError(t, err)
	assert.Contains(t, res.Content, "Files changed: hello.txt")
}

func TestOpenAIProviderStructuredOutputOnTheRealServer(t *testing.T) {
	c := openaiClient(t, suite.srv.URL)
	var b branch
	_, err := llm.Structured(ctxT(t), c, llm.ChatRequest{Model: "nova-coder",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "<task>@@branch@@ Write hello.txt.</task>"}}}, []byte(branchSchema), &b)
	require.NoError(t, err)
	require.Len(t, b.Files, 1)
	assert.Equal(t, "hello.txt", b.Files[0].Path)
}

func TestOpenAIProviderFailureKindsOnTheRealServer(t *testing.T) {
	c := openaiClient(t, suite.srv.URL)
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "@@plain@@"}}

	// nova-short stops every reply at 3 tokens: finish_reason "length",
	// retried once with a larger max_tokens (which the Modelfile's
	// num_predict may still cap), never taken as a complete answer.
	res, err := c.Chat(ctxT(t), llm.ChatRequest{Model: "nova-short", Messages: msgs}, nil)
	if err != nil {
		require.ErrorIs(t, err, llm.ErrLength)
		assert.Equal(t, failure.Length, failure.Of(err))
	} else {
		assert.Equal(t, "All done: nothing needed changing.", res.Content)
		assert.Equal(t, 2, res.Attempts)
	}

	_, err = c.Chat(ctxT(t), llm.ChatRequest{Model: "nova-missing", Messages: msgs}, nil)
	require.ErrorIs(t, err, llm.ErrModelNotFound)
	assert.Equal(t, failure.Misconfigured, failure.Of(err))

	_, err = c.Chat(ctxT(t), llm.ChatRequest{Model: "nova-plain", Messages: msgs, Tools: []llm.Tool{{Name: "readFile"}}}, nil)
	require.ErrorIs(t, err, llm.ErrBadRequest)
	assert.Equal(t, failure.Misconfigured, failure.Of(err))
}

// A user's agent run through a providers: config naming the real server's
// /v1 endpoint: the same run as over the native API.
func TestAgentRunThroughTheOpenAIProvider(t *testing.T) {
	w := newWS(t, wsConfig{Small: "real/nova-coder", Medium: "real/nova-coder", Large: "real/nova-coder",
		Extra: "providers:\n  real:\n    type: openai\n    baseURL: " + suite.srv.URL + "/v1\n    contextSize: 4096\n"})
	var run runJSON
	stderr, code := w.novaJSON(&run, "agent", "run", "tester", "@@write@@ Write hello.txt.")
	require.Equal(t, 0, code, "%s\n%s", stderr, run.failure())
	assert.Equal(t, []string{"hello.txt"}, run.Files)
	assert.Empty(t, w.proxy.Requests("/api/chat"), "nothing went to the native API")
}
