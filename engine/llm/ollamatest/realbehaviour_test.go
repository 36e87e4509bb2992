package ollamatest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// The behaviours below were observed on the real server (Ollama v0.17.4)
// by nova's real-server suite; the fake reproduces them.

func chatReq(model string, stream bool, mod func(*api.ChatRequest)) *api.ChatRequest {
	r := &api.ChatRequest{Model: model, Messages: []api.Message{{Role: "user", Content: "hello"}}, Stream: &stream}
	if mod != nil {
		mod(r)
	}
	return r
}

func collect(t *testing.T, c *api.Client, r *api.ChatRequest) ([]api.ChatResponse, error) {
	t.Helper()
	var got []api.ChatResponse
	err := c.Chat(context.Background(), r, func(x api.ChatResponse) error {
		got = append(got, x)
		return nil
	})
	return got, err
}

func TestFakeRepetitionEndsWithoutDone(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Repetition("Let me see: ", "again ")))
	got, err := collect(t, client(t, srv), chatReq("llama3.2:3b", true, nil))
	require.NoError(t, err, "a clean 200 stream")
	require.NotEmpty(t, got)
	assert.False(t, got[len(got)-1].Done, "no done message")
	var text strings.Builder
	for _, r := range got {
		text.WriteString(r.Message.Content)
	}
	assert.Equal(t, 31, strings.Count(text.String(), "again "), "one more than the server's limit of 30")

	got, err = collect(t, client(t, srv), chatReq("llama3.2:3b", false, nil))
	require.NoError(t, err)
	require.Len(t, got, 1, "stream false: one aggregated object")
	assert.False(t, got[0].Done)
	assert.Contains(t, got[0].Message.Content, "again again")
}

func TestFakeStopsAtNumPredict(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text("one two three four").WithChunkSize(4)))
	got, err := collect(t, client(t, srv), chatReq("llama3.2:3b", true, func(r *api.ChatRequest) { r.Options = map[string]any{"num_predict": 2} }))
	require.NoError(t, err)
	last := got[len(got)-1]
	assert.True(t, last.Done)
	assert.Equal(t, "length", last.DoneReason)
	assert.Len(t, got, 3, "two chunks, then done")
}

func TestFakeContextAndTruncation(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModel(ollamatest.Model{Name: "small", ContextLength: 256, Capabilities: []string{"completion"}}))
	long := func(r *api.ChatRequest) {
		r.Messages[0].Content = strings.Repeat("word ", 1000)
		r.Options = map[string]any{"num_ctx": 8192} // capped at the model's 256
	}
	no := false
	_, err := collect(t, client(t, srv), chatReq("small", true, func(r *api.ChatRequest) { long(r); r.Truncate = &no }))
	var se api.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 400, se.StatusCode)
	assert.Equal(t, "the input length exceeds the context length", se.ErrorMessage)
	assert.Zero(t, srv.Truncations())

	_, err = collect(t, client(t, srv), chatReq("small", true, long))
	require.NoError(t, err, "without truncate false the server cuts the prompt silently")
	assert.Equal(t, 1, srv.Truncations())
}

func TestFakeCapabilities(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModel(
		ollamatest.Model{Name: "embedder", Capabilities: []string{"embedding"}},
		ollamatest.Model{Name: "plain", Capabilities: []string{"completion"}},
	))
	_, err := collect(t, client(t, srv), chatReq("embedder", true, nil))
	var se api.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 400, se.StatusCode)
	assert.Equal(t, `"embedder" does not support chat`, se.ErrorMessage)

	_, err = collect(t, client(t, srv), chatReq("plain", true, func(r *api.ChatRequest) {
		r.Tools = api.Tools{{Type: "function", Function: api.ToolFunction{Name: "readFile"}}}
	}))
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "registry.ollama.ai/library/plain:latest does not support tools", se.ErrorMessage)
}
