package llm_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

func TestChatAsksTheServerNeverToTruncate(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	_, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.NoError(t, err)
	req := srv.ChatRequests()[0]
	require.NotNil(t, req.Truncate)
	assert.False(t, *req.Truncate)
	require.NotNil(t, req.Shift)
	assert.False(t, *req.Shift)
}

func TestChatPromptLongerThanTheContextIsRefusedNotTruncated(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModel(ollamatest.Model{Name: model, ContextLength: 512, Capabilities: []string{"completion", "tools"}}))
	_, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user(strings.Repeat("word ", 2000))}, nil)
	require.ErrorIs(t, err, llm.ErrPromptTooLong)
	assert.Equal(t, failure.Misconfigured, failure.Of(err))
	assert.Contains(t, err.Error(), "exceeds the context length")
	assert.Zero(t, srv.Truncations(), "the fake, like the real server, truncates only when allowed to")
	assert.Len(t, srv.ChatRequests(), 1, "not retried unchanged")
}

func TestChatLengthStopIsRetriedWithALargerLimit(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(
		ollamatest.Text("the start of a long ans").WithDoneReason("length").WithTokens(100, 3),
		ollamatest.Text("the whole answer"),
	))
	var got deltas
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi"), NumPredict: 3}, got.add)
	require.NoError(t, err)
	assert.Equal(t, "the whole answer", res.Content)
	assert.Equal(t, "the whole answer", got.text(), "the cut reply was reset")
	reqs := srv.ChatRequests()
	require.Len(t, reqs, 2)
	assert.EqualValues(t, 3, reqs[0].Options["num_predict"])
	assert.Greater(t, reqs[1].Options["num_predict"], 3.0, "the retry asks for more")
	assert.Equal(t, 2, res.Attempts)
}

func TestChatLengthStopTwiceIsErrLengthNeverAnAnswer(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text(`{"files": [{"path": "a.go", "proposedCont`).WithDoneReason("length")))
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrLength)
	assert.Equal(t, failure.Length, failure.Of(err))
	assert.Contains(t, err.Error(), "reply hit the token limit")
	assert.Contains(t, res.Content, "proposedCont", "the cut reply is returned for reports, beside the error")
	assert.Len(t, srv.ChatRequests(), 2, "one retry with a larger limit, then the failure")
}

func TestChatHonoursNumPredictLikeTheRealServer(t *testing.T) {
	t.Parallel()
	// The fake stops at num_predict chunks with done_reason length; nova's
	// retry asks for more and gets the whole reply.
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text("one two three four five six").WithChunkSize(4)))
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi"), NumPredict: 2}, func(llm.Delta) {})
	require.NoError(t, err)
	assert.Equal(t, "one two three four five six", res.Content)
	assert.Equal(t, "stop", res.DoneReason)
}

func TestChatRepetitionIsNotACut(t *testing.T) {
	t.Parallel()
	for name, stream := range map[string]bool{"stream": true, "unary": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Repetition("Let me think: ", "again ")))
			var onDelta func(llm.Delta)
			if stream {
				onDelta = func(llm.Delta) {}
			}
			_, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi"), Temperature: new(0.0)}, onDelta)
			require.ErrorIs(t, err, llm.ErrRepetition)
			require.NotErrorIs(t, err, llm.ErrStreamCut)
			assert.Equal(t, failure.Repetition, failure.Of(err))
			assert.Contains(t, err.Error(), "again")
			reqs := srv.ChatRequests()
			require.Len(t, reqs, 2, "one changed retry, never the identical request")
			assert.EqualValues(t, 0, reqs[0].Options["temperature"])
			assert.NotEqual(t, reqs[0].Options["temperature"], reqs[1].Options["temperature"])
			assert.NotNil(t, reqs[1].Options["seed"], "the retry also changes the seed")
		})
	}
}

func TestChatRepetitionRetryCanSucceed(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Repetition("", "la "), ollamatest.Text("a real answer")))
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
	require.NoError(t, err)
	assert.Equal(t, "a real answer", res.Content)
}

func TestChatCleanEndWithoutDoneIsStillACut(t *testing.T) {
	t.Parallel()
	// Without degenerate output, a clean end without done is a cut (a proxy
	// closing the response), retried as before.
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.CutClean("half an answer"), ollamatest.Text("whole")))
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
	require.NoError(t, err)
	assert.Equal(t, "whole", res.Content)
	assert.Len(t, srv.ChatRequests(), 2)
}

func TestChatNoFirstByteIsStalled(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text("late").WithLatency(time.Minute)))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.IdleTimeout = 100 * time.Millisecond })
	start := time.Now()
	_, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
	require.ErrorIs(t, err, llm.ErrTimeout)
	assert.Equal(t, failure.Stalled, failure.Of(err))
	assert.Contains(t, err.Error(), "idleTimeout")
	assert.Contains(t, err.Error(), "100ms")
	assert.Len(t, srv.ChatRequests(), 2, "a stall is retried once")
	assert.Less(t, time.Since(start), 30*time.Second, "a bound that only catches a hang")
}

func TestChatStalledBetweenChunks(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(
		ollamatest.Text("a b c d e f").WithChunkSize(2).WithChunkDelay(time.Minute),
		ollamatest.Text("fine"),
	))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.IdleTimeout = 100 * time.Millisecond })
	res, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
	require.NoError(t, err, "the retry after the stall succeeds")
	assert.Equal(t, "fine", res.Content)
}

func TestChatSlowButStreamingIsNotStalled(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text(strings.Repeat("w ", 20)).WithChunkSize(2).WithChunkDelay(20*time.Millisecond)))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.IdleTimeout = 500 * time.Millisecond })
	res, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
	require.NoError(t, err, "each chunk resets the idle timer")
	assert.Equal(t, strings.Repeat("w ", 20), res.Content)
}

func TestChatBadRequestsAndServerErrorsHaveKinds(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModel(
		ollamatest.Model{Name: "embedder", Capabilities: []string{"embedding"}},
		ollamatest.Model{Name: "plain", Capabilities: []string{"completion"}},
		ollamatest.Model{Name: model, Capabilities: []string{"completion", "tools"}},
	))
	c := newClient(t, srv)
	_, err := c.Chat(context.Background(), llm.ChatRequest{Model: "embedder", Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrBadRequest)
	assert.Equal(t, failure.Misconfigured, failure.Of(err))
	assert.Contains(t, err.Error(), "does not support chat")

	_, err = c.Chat(context.Background(), llm.ChatRequest{Model: "plain", Messages: user("hi"),
		Tools: []llm.Tool{{Name: "readFile"}}}, nil)
	require.ErrorIs(t, err, llm.ErrBadRequest)
	assert.Contains(t, err.Error(), "does not support tools")

	srv.Enqueue(ollamatest.ServerError("llama runner process has terminated"), ollamatest.ServerError("again"), ollamatest.ServerError("and again"))
	_, err = c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrServer)
	assert.Equal(t, failure.Server, failure.Of(err))
}

func TestWindowIsTheSmallerOfNumCtxAndTheModel(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModel(ollamatest.Model{Name: model, ContextLength: 4096, Capabilities: []string{"completion"}}))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.NumCtx = 8192 })
	w, err := c.Window(context.Background(), model, 0)
	require.NoError(t, err)
	assert.Equal(t, 4096, w.Tokens)
	assert.Equal(t, 4096-llm.DefaultReplyReserve, w.PromptBudget())
	assert.Contains(t, w.Describe(), "context length")
	w, err = c.Window(context.Background(), model, 2048)
	require.NoError(t, err)
	assert.Equal(t, 2048, w.Tokens)
	assert.Equal(t, 1, srv.Count("/api/show"), "Show is asked once per model")
}

func TestCalibrationLearnsFromPromptEvalCount(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text("ok").WithTokens(3000, 1)))
	c := newClient(t, srv)
	assert.InDelta(t, 1.0, c.TokenFactor(model), 1e-9)
	_, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user(strings.Repeat("abcd", 1000))}, nil)
	require.NoError(t, err)
	assert.Greater(t, c.TokenFactor(model), 2.5, "3000 real tokens for ~1000 estimated")
	assert.Less(t, c.TokenFactor(model), 3.5)
}

// Issue 16: the official client allocates an 8 MiB line buffer per chat;
// nova's reader starts small.
func TestChatDoesNotAllocateMegabytesPerCall(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text(strings.Repeat("word ", 64)).WithChunkSize(5)))
	c := newClient(t, srv)
	req := llm.ChatRequest{Model: model, Messages: user("hi")}
	_, err := c.Chat(context.Background(), req, func(llm.Delta) {})
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const calls = 10
	for range calls {
		_, err := c.Chat(context.Background(), req, func(llm.Delta) {})
		require.NoError(t, err)
	}
	runtime.ReadMemStats(&after)
	perCall := (after.TotalAlloc - before.TotalAlloc) / calls
	// The fake server runs in this process too; 1 MiB covers both sides
	// with room, 8 MiB was the client alone.
	assert.Less(t, perCall, uint64(1<<20), "bytes allocated per chat: %d", perCall)
}

func TestChatLongLineIsRead(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200<<10) // one chunk far larger than the reader's buffer
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text(big).WithChunkSize(len(big))))
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
	require.NoError(t, err)
	assert.Len(t, res.Content, len(big))
}

func TestChatToolCallsSurviveTheOwnReader(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "a.txt", "content": "x"}))))
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi"),
		Tools: []llm.Tool{{Name: "writeFile", Parameters: json.RawMessage(`{"type":"object"}`)}}}, func(llm.Delta) {})
	require.NoError(t, err)
	require.Len(t, res.ToolCalls, 1)
	assert.JSONEq(t, `{"content":"x","path":"a.txt"}`, string(res.ToolCalls[0].Arguments))
	var raw api.ChatRequest
	require.NoError(t, json.Unmarshal(srv.Requests()[0].Body, &raw))
	assert.Len(t, raw.Tools, 1)
}
