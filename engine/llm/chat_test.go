package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

func TestChatStreamsDeltasInOrder(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(
		ollamatest.Thinking("let me think", "Hello, nova world!").WithChunkSize(3).WithTokens(21, 7)))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.NumCtx = 8192; cfg.KeepAlive = 10 * time.Minute })

	var got deltas
	res, err := c.Chat(context.Background(), llm.ChatRequest{
		Model: model, Messages: user("hi"), Think: new(true), Temperature: new(0.2),
		Options: map[string]any{"seed": 7},
	}, got.add)
	require.NoError(t, err)

	// Every thinking delta comes before the first content delta, and the
	// pieces concatenate to the full texts.
	var thinking, content strings.Builder
	seenContent := false
	for _, d := range got.get() {
		assert.False(t, d.Reset)
		if d.Content != "" {
			seenContent = true
		}
		if d.Thinking != "" {
			assert.False(t, seenContent, "thinking after content")
		}
		thinking.WriteString(d.Thinking)
		content.WriteString(d.Content)
	}
	assert.Greater(t, len(got.get()), 2, "streamed in several deltas")
	assert.Equal(t, "let me think", thinking.String())
	assert.Equal(t, "Hello, nova world!", content.String())
	assert.Equal(t, "Hello, nova world!", res.Content)
	assert.Equal(t, "let me think", res.Thinking)
	assert.Equal(t, 21, res.PromptTokens)
	assert.Equal(t, 7, res.EvalTokens)
	assert.Equal(t, model, res.Model)
	assert.Equal(t, "stop", res.DoneReason)
	assert.Equal(t, 1, res.Attempts)
	assert.Positive(t, res.Duration)

	reqs := srv.ChatRequests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.NotNil(t, r.Stream)
	assert.True(t, *r.Stream)
	require.NotNil(t, r.Think)
	assert.True(t, r.Think.IsBool())
	assert.True(t, r.Think.Bool())
	assert.EqualValues(t, 8192, r.Options["num_ctx"])
	assert.InDelta(t, 0.2, r.Options["temperature"], 1e-9)
	assert.EqualValues(t, 7, r.Options["seed"])
	require.NotNil(t, r.KeepAlive)
	assert.Equal(t, 10*time.Minute, r.KeepAlive.Duration)
}

func TestChatThinkFalseIsSentExplicitly(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Thinking("hidden", "visible")))
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi"), Think: new(false)}, nil)
	require.NoError(t, err)
	assert.Equal(t, "visible", res.Content)
	assert.Empty(t, res.Thinking)
	body := string(srv.Requests()[0].Body)
	assert.Contains(t, body, `"think":false`)

	_, err = newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.NoError(t, err)
	assert.NotContains(t, string(srv.Requests()[1].Body), `"think"`, "nil Think is omitted")
}

func TestChatWithoutCallbackStillStreamsOnTheWire(t *testing.T) {
	t.Parallel()
	// Streaming keeps bytes coming while the model generates, so the idle
	// timeout can tell a long reply from a stalled server.
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Text("whole reply").WithTokens(3, 2)))
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.NoError(t, err)
	assert.Equal(t, "whole reply", res.Content)
	assert.Equal(t, 3, res.PromptTokens)
	require.NotNil(t, srv.ChatRequests()[0].Stream)
	assert.True(t, *srv.ChatRequests()[0].Stream)
}

func TestChatToolCallsRoundTrip(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(
		ollamatest.ToolCalls(ollamatest.Call("read_file", map[string]any{"path": "cmd/nova/main.go", "lines": 40})),
		ollamatest.Text("The file starts with package main."),
	))
	c := newClient(t, srv)
	tools := []llm.Tool{{
		Name:        "read_file",
		Description: "Read a file of the workspace",
		Parameters: json.RawMessage(`{"type":"object","required":["path"],"properties":{
			"path":{"type":"string","description":"path relative to the workspace"},
			"lines":{"type":"integer"}}}`),
	}}
	msgs := user("what is in main.go?")

	var got deltas
	res, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: msgs, Tools: tools}, got.add)
	require.NoError(t, err)
	require.Len(t, res.ToolCalls, 1)
	call := res.ToolCalls[0]
	assert.Equal(t, "read_file", call.Name)
	assert.NotEmpty(t, call.ID)
	var args struct {
		Path  string `json:"path"`
		Lines int    `json:"lines"`
	}
	require.NoError(t, json.Unmarshal(call.Arguments, &args))
	assert.Equal(t, "cmd/nova/main.go", args.Path)
	assert.Equal(t, 40, args.Lines)
	var streamed []llm.ToolCall
	for _, d := range got.get() {
		streamed = append(streamed, d.ToolCalls...)
	}
	assert.Equal(t, res.ToolCalls, streamed, "tool calls are streamed as deltas too")

	// The tools went out in Ollama's shape.
	first := srv.ChatRequests()[0]
	require.Len(t, first.Tools, 1)
	assert.Equal(t, "function", first.Tools[0].Type)
	assert.Equal(t, "read_file", first.Tools[0].Function.Name)
	assert.Equal(t, []string{"path"}, first.Tools[0].Function.Parameters.Required)
	prop, ok := first.Tools[0].Function.Parameters.Properties.Get("path")
	require.True(t, ok)
	assert.Equal(t, "string", prop.Type.String())

	// Send the call and its result back.
	msgs = append(msgs, res.Message(), llm.Message{Role: llm.RoleTool, ToolName: call.Name, ToolCallID: call.ID, Content: "package main"})
	res2, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: msgs, Tools: tools}, nil)
	require.NoError(t, err)
	assert.Equal(t, "The file starts with package main.", res2.Content)

	second := srv.ChatRequests()[1]
	require.Len(t, second.Messages, 3)
	asst := second.Messages[1]
	assert.Equal(t, "assistant", asst.Role)
	require.Len(t, asst.ToolCalls, 1)
	assert.Equal(t, call.ID, asst.ToolCalls[0].ID)
	assert.Equal(t, "read_file", asst.ToolCalls[0].Function.Name)
	p, ok := asst.ToolCalls[0].Function.Arguments.Get("path")
	require.True(t, ok)
	assert.Equal(t, "cmd/nova/main.go", p)
	tool := second.Messages[2]
	assert.Equal(t, "tool", tool.Role)
	assert.Equal(t, "read_file", tool.ToolName)
	assert.Equal(t, call.ID, tool.ToolCallID)
}

func TestChatRetriesServerErrorThenSucceeds(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.ServerError("model runner crashed"), ollamatest.Text("recovered")))
	var retries atomic.Int32
	c := newClient(t, srv, func(cfg *llm.Config) {
		cfg.OnRetry = func(attempt int, err error, _ time.Duration) {
			retries.Add(1)
			assert.Equal(t, 2, attempt)
			require.ErrorIs(t, err, llm.ErrServer)
		}
	})
	res, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
	require.NoError(t, err)
	assert.Equal(t, "recovered", res.Content)
	assert.Equal(t, 2, res.Attempts)
	assert.EqualValues(t, 1, retries.Load())
	assert.Len(t, srv.ChatRequests(), 2)
}

func TestChatServerErrorGivesUp(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.ServerError("out of memory")))
	_, err := newClient(t, srv, func(cfg *llm.Config) { cfg.Retries = 2 }).
		Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrServer)
	assert.Contains(t, err.Error(), "out of memory")
	assert.Contains(t, err.Error(), "3 attempts")
	assert.Len(t, srv.ChatRequests(), 3)
}

func TestChatNoRetryWhenDisabled(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.ServerError("boom"), ollamatest.Text("unused")))
	_, err := newClient(t, srv, func(cfg *llm.Config) { cfg.Retries = -1 }).
		Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrServer)
	assert.Len(t, srv.ChatRequests(), 1)
}

func TestChatErrorLineMidStreamRetriesWithReset(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(
		ollamatest.StreamError("this answer will be lo", "llama runner process has terminated"),
		ollamatest.Text("a fresh answer"),
	))
	var got deltas
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, got.add)
	require.NoError(t, err)
	assert.Equal(t, "a fresh answer", res.Content)
	assert.Equal(t, 1, got.resets())
	assert.Equal(t, "a fresh answer", got.text())
	all := got.get()
	require.NotEmpty(t, all)
	assert.False(t, all[0].Reset, "the failed attempt's deltas were delivered first")
}

func TestChatErrorLineMidStreamGivesUp(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.StreamError("part", "llama runner process has terminated")))
	_, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
	require.ErrorIs(t, err, llm.ErrServer)
	assert.Contains(t, err.Error(), "llama runner process has terminated")
}

func TestChatStreamCut(t *testing.T) {
	t.Parallel()
	for name, cut := range map[string]ollamatest.Reply{
		"dropped": ollamatest.Cut("half an ans"),
		"clean":   ollamatest.CutClean("half an ans"),
		"empty":   ollamatest.Raw(""),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.WithDefaultReply(cut))
			_, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
			require.ErrorIs(t, err, llm.ErrStreamCut)
			assert.Len(t, srv.ChatRequests(), 3, "retried")
		})
	}
}

func TestChatStreamCutThenSuccess(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Cut("half"), ollamatest.Text("whole answer")))
	var got deltas
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, got.add)
	require.NoError(t, err)
	assert.Equal(t, "whole answer", res.Content)
	assert.Equal(t, "whole answer", got.text())
	assert.Equal(t, 1, got.resets())
}

func TestChatNonStreamingFailuresAreRetried(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(
		ollamatest.StreamError("x", "runner died"), ollamatest.Cut("y"), ollamatest.Text("fine")))
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.NoError(t, err)
	assert.Equal(t, "fine", res.Content)
	assert.Equal(t, 3, res.Attempts)
}

func TestChatGarbageOnTheWire(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Raw("<html>proxy error</html>\n")))
	_, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {})
	require.ErrorIs(t, err, llm.ErrServer)
	assert.Contains(t, err.Error(), "proxy error")
}

func TestChatEmptyReplyIsNotAnError(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Empty()))
	var got deltas
	res, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, got.add)
	require.NoError(t, err)
	assert.Empty(t, res.Content)
	assert.Empty(t, got.get())
	assert.Equal(t, "stop", res.DoneReason)
}

func TestChatModelNotFound(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("llama3.2:3b"))
	_, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: "qwen3:8b", Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrModelNotFound)
	assert.Equal(t, `model qwen3:8b not found — run "ollama pull qwen3:8b"`, err.Error())
	assert.Len(t, srv.ChatRequests(), 1, "not retried")
}

func TestChatBadRequestIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.HTTPError(http.StatusBadRequest, `"llama3.2:3b" does not support thinking`)))
	_, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi"), Think: new(true)}, nil)
	require.ErrorIs(t, err, llm.ErrBadRequest)
	assert.Contains(t, err.Error(), "does not support thinking")
	assert.Len(t, srv.ChatRequests(), 1)
}

func TestChatRejectsInvalidRequestsBeforeSending(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	c := newClient(t, srv)
	for name, req := range map[string]llm.ChatRequest{
		"no model":       {Messages: user("hi")},
		"bad format":     {Model: model, Messages: user("hi"), Format: json.RawMessage(`{"type":`)},
		"bad tool":       {Model: model, Messages: user("hi"), Tools: []llm.Tool{{Name: "x", Parameters: json.RawMessage(`[1`)}}},
		"nameless tool":  {Model: model, Messages: user("hi"), Tools: []llm.Tool{{}}},
		"bad tool args":  {Model: model, Messages: []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "x", Arguments: json.RawMessage(`"str"`)}}}}},
		"bad option val": {Model: model, Messages: user("hi"), Options: map[string]any{"f": func() {}}},
	} {
		_, err := c.Chat(context.Background(), req, nil)
		require.ErrorIs(t, err, llm.ErrBadRequest, name)
	}
	assert.Empty(t, srv.ChatRequests())
}

func TestChatUnreachableNamesHost(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	host := srv.URL()
	srv.Close() // nothing listens on that port any more
	c := newClient(t, srv)
	_, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrUnreachable)
	msg := err.Error()
	assert.Contains(t, msg, host)
	assert.Contains(t, msg, "ollama serve")
	assert.Contains(t, msg, "OLLAMA_HOST")
	assert.Contains(t, msg, "ollama.host in .nova/config.yaml")
	var ue *llm.UnreachableError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, c.Host(), ue.Host)
}

func TestChatPerCallTimeout(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text("too late").WithLatency(time.Minute)))
	start := time.Now()
	_, err := newClient(t, srv).Chat(context.Background(), llm.ChatRequest{
		Model: model, Messages: user("hi"), Timeout: 100 * time.Millisecond,
	}, func(llm.Delta) {})
	require.ErrorIs(t, err, llm.ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second, "returns soon after the timeout")
	assert.Len(t, srv.ChatRequests(), 1, "a timeout is not retried")
}

func TestChatSlowChunksHitConfigTimeout(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text(strings.Repeat("slow ", 100)).WithChunkDelay(20*time.Millisecond)))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.ChatTimeout = 150 * time.Millisecond })
	var got deltas
	_, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, got.add)
	require.ErrorIs(t, err, llm.ErrTimeout)
	assert.NotEmpty(t, got.get(), "deltas arrived before the deadline")
}

func TestChatCancelMidStreamReturnsPromptly(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(
		ollamatest.Text(strings.Repeat("token ", 1000)).WithChunkDelay(10*time.Millisecond)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int32
	var canceledAt time.Time
	_, err := newClient(t, srv).Chat(ctx, llm.ChatRequest{Model: model, Messages: user("hi")}, func(llm.Delta) {
		if n.Add(1) == 3 {
			canceledAt = time.Now()
			cancel()
		}
	})
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, llm.ErrTimeout)
	assert.EqualValues(t, 3, n.Load(), "no delta after cancel")
	assert.Less(t, time.Since(canceledAt), 2*time.Second)
	assert.Len(t, srv.ChatRequests(), 1, "a cancellation is not retried")
}

func TestChatCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.ServerError("boom")))
	ctx, cancel := context.WithCancel(context.Background())
	c := newClient(t, srv, func(cfg *llm.Config) {
		cfg.Backoff, cfg.MaxBackoff = time.Hour, time.Hour
		cfg.OnRetry = func(int, error, time.Duration) { cancel() }
	})
	_, err := c.Chat(ctx, llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, context.Canceled)
}

func TestChatRecordsUsageAndEnforcesBudget(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text("ok").WithTokens(60, 40)))
	meter := llm.NewMeter()
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.Meter = meter })
	budget := llm.NewBudget(meter, "task:T1", 150)
	req := llm.ChatRequest{Model: model, Messages: user("hi"), MeterKeys: []string{"task:T1", "build:B1"}, Budgets: []*llm.Budget{budget}}

	for range 2 {
		_, err := c.Chat(context.Background(), req, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, llm.Usage{Calls: 2, PromptTokens: 120, EvalTokens: 80}, meter.Get("task:T1"))
	assert.Equal(t, meter.Get("task:T1"), meter.Get("build:B1"))
	assert.Equal(t, 200, meter.Total().Total())

	_, err := c.Chat(context.Background(), req, nil)
	require.ErrorIs(t, err, llm.ErrBudgetExceeded)
	assert.Contains(t, err.Error(), `200 of 150 tokens used for "task:T1"`)
	assert.Len(t, srv.ChatRequests(), 2, "no request once the budget is spent")

	// Another task has its own budget.
	other := req
	other.MeterKeys = []string{"task:T2"}
	other.Budgets = []*llm.Budget{llm.NewBudget(meter, "task:T2", 150)}
	_, err = c.Chat(context.Background(), other, nil)
	require.NoError(t, err)
}

func TestChatRequestMeterIsSeparateFromConfigMeter(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithDefaultReply(ollamatest.Text("ok").WithTokens(5, 5)))
	global, local := llm.NewMeter(), llm.NewMeter()
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.Meter = global })
	_, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi"), Meter: local, MeterKeys: []string{"k"}}, nil)
	require.NoError(t, err)
	_, err = c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi"), Meter: global}, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, global.Total().Calls, "a meter set twice records once")
	assert.Equal(t, 1, local.Get("k").Calls)
}

func TestChatConcurrentCalls(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		return ollamatest.Text("echo: " + req.Messages[0].Content)
	}))
	c := newClient(t, srv)
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			msg := strings.Repeat("x", i+1)
			res, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user(msg)}, func(llm.Delta) {})
			if err == nil && res.Content != "echo: "+msg {
				err = errors.New("wrong reply " + res.Content)
			}
			errs <- err
		}()
	}
	for range 16 {
		require.NoError(t, <-errs)
	}
}
