package llm_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/openaitest"
)

const oaModel = "qwen2.5-coder:7b"

func newOpenAI(t testing.TB, srv *openaitest.Server, key string, mod ...func(*llm.Config)) *llm.OpenAI {
	t.Helper()
	cfg := llm.Config{Backoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := llm.NewOpenAI("lms", srv.URL(), key, cfg)
	require.NoError(t, err)
	return c
}

func TestOpenAIChatStreamsTextAndUsage(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithReplies(openaitest.Reply{Content: "hello there, world", Reasoning: "think",
		PromptTokens: 42, CompletionTokens: 5}))
	c := newOpenAI(t, srv, "")
	var got strings.Builder
	res, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi")}, func(d llm.Delta) { got.WriteString(d.Content) })
	require.NoError(t, err)
	assert.Equal(t, "hello there, world", res.Content)
	assert.Equal(t, "hello there, world", got.String())
	assert.Equal(t, "think", res.Thinking)
	assert.Equal(t, 42, res.PromptTokens)
	assert.Equal(t, 5, res.EvalTokens)
	assert.Equal(t, "stop", res.DoneReason)
	body := srv.Requests()[0].Body
	assert.Equal(t, true, body["stream"])
	assert.Equal(t, oaModel, body["model"])
}

func TestOpenAIToolsRoundTrip(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithReplies(openaitest.ToolCalls(openaitest.Call{Name: "readFile", Args: `{"path": "a.go"}`})))
	c := newOpenAI(t, srv, "")
	tools := []llm.Tool{{Name: "readFile", Description: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	res, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("read a.go"), Tools: tools}, nil)
	require.NoError(t, err)
	require.Len(t, res.ToolCalls, 1)
	assert.Equal(t, "readFile", res.ToolCalls[0].Name)
	assert.JSONEq(t, `{"path":"a.go"}`, string(res.ToolCalls[0].Arguments))
	assert.Equal(t, "call_0", res.ToolCalls[0].ID)

	// The result goes back as a tool message naming the call.
	msgs := append(user("read a.go"), res.Message(), llm.Message{Role: llm.RoleTool, ToolName: "readFile", Content: "package a"})
	_, err = c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: msgs, Tools: tools}, nil)
	require.NoError(t, err)
	sent := srv.Requests()[1].Body["messages"].([]any)
	require.Len(t, sent, 3)
	assert.Equal(t, "call_0", sent[2].(map[string]any)["tool_call_id"])
	calls := sent[1].(map[string]any)["tool_calls"].([]any)
	assert.Equal(t, "call_0", calls[0].(map[string]any)["id"])
	assert.NotEmpty(t, srv.Requests()[0].Body["tools"])
}

func TestOpenAIStructuredOutputSendsJSONSchema(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithReplies(openaitest.Text(`{"answer": 42}`)))
	c := newOpenAI(t, srv, "")
	var out struct {
		Answer int `json:"answer"`
	}
	_, err := llm.Structured(t.Context(), c, llm.ChatRequest{Model: oaModel, Messages: user("q")},
		[]byte(`{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}`), &out)
	require.NoError(t, err)
	assert.Equal(t, 42, out.Answer)
	rf := srv.Requests()[0].Body["response_format"].(map[string]any)
	assert.Equal(t, "json_schema", rf["type"])
	assert.InDelta(t, 0, srv.Requests()[0].Body["temperature"], 1e-9)
}

func TestOpenAIMalformedSSEIsServerErrorNamingHost(t *testing.T) {
	t.Parallel()
	bad := openaitest.Reply{Content: "partial reply", Malformed: true}
	srv := openaitest.New(t, openaitest.WithReplies(bad, bad, bad))
	c := newOpenAI(t, srv, "")
	var resets int
	_, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi")}, func(d llm.Delta) {
		if d.Reset {
			resets++
		}
	})
	require.ErrorIs(t, err, llm.ErrServer)
	assert.Contains(t, err.Error(), srv.URL())
	assert.Len(t, srv.Requests(), 3, "retried like a server error")
	assert.Equal(t, 2, resets)
}

func TestOpenAIMalformedSSEThenGoodReplyRecovers(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithReplies(openaitest.Reply{Content: "xx", Malformed: true}, openaitest.Text("fine")))
	c := newOpenAI(t, srv, "")
	res, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.NoError(t, err)
	assert.Equal(t, "fine", res.Content)
	assert.Equal(t, 2, res.Attempts)
}

func TestOpenAINoDoneAfterFinishIsTakenWithoutHanging(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithReplies(openaitest.Reply{Content: "complete", NoDone: true}))
	c := newOpenAI(t, srv, "", func(c *llm.Config) { c.IdleTimeout = 10 * time.Second })
	start := time.Now()
	res, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.NoError(t, err)
	assert.Equal(t, "complete", res.Content)
	assert.Less(t, time.Since(start), 8*time.Second, "a finished reply does not wait for the idle timeout")
}

func TestOpenAINoDoneNoFinishStallsThenTimesOut(t *testing.T) {
	t.Parallel()
	r := openaitest.Reply{Content: "never ends", NoDone: true, NoFinish: true}
	srv := openaitest.New(t, openaitest.WithReplies(r, r))
	c := newOpenAI(t, srv, "", func(c *llm.Config) { c.IdleTimeout = 300 * time.Millisecond })
	_, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrTimeout)
	assert.Equal(t, failure.Stalled, failure.Of(err))
	assert.Contains(t, err.Error(), "lms")
}

func TestOpenAIStreamWithoutFinishIsCut(t *testing.T) {
	t.Parallel()
	r := openaitest.Reply{Content: "half", NoFinish: true}
	srv := openaitest.New(t, openaitest.WithReplies(r, r, r))
	c := newOpenAI(t, srv, "")
	_, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrStreamCut)
	assert.Equal(t, failure.Cut, failure.Of(err))
}

func TestOpenAIDroppedConnectionIsCutAndRetried(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithReplies(openaitest.Reply{Content: "half", Cut: true}, openaitest.Text("whole")))
	c := newOpenAI(t, srv, "")
	res, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.NoError(t, err)
	assert.Equal(t, "whole", res.Content)
}

func TestOpenAIInvalidToolArgumentsRetriedOnceThenInvalidOutput(t *testing.T) {
	t.Parallel()
	bad := openaitest.ToolCalls(openaitest.Call{Name: "readFile", Args: `{"path": "a.go"`})
	srv := openaitest.New(t, openaitest.WithReplies(bad, bad))
	c := newOpenAI(t, srv, "")
	_, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrInvalidOutput)
	assert.Contains(t, err.Error(), "readFile")
	assert.Contains(t, err.Error(), srv.URL())
	assert.Len(t, srv.Requests(), 2)

	srv2 := openaitest.New(t, openaitest.WithReplies(bad, openaitest.ToolCalls(openaitest.Call{Name: "readFile", Args: `{"path":"b.go"}`})))
	res, err := newOpenAI(t, srv2, "").Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"path":"b.go"}`, string(res.ToolCalls[0].Arguments))
}

func TestOpenAILyingContextSizeGivesPromptTooLong(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithModel(openaitest.Model{ID: oaModel, Context: 100, Reported: 32768}))
	c := newOpenAI(t, srv, "")
	w, err := c.Window(t.Context(), oaModel, 0)
	require.NoError(t, err)
	assert.Equal(t, 32768, w.Tokens, "fitting uses what the server reports")
	_, err = c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user(strings.Repeat("word ", 200))}, nil)
	require.ErrorIs(t, err, llm.ErrPromptTooLong)
	assert.Len(t, srv.Requests(), 1, "not retried unchanged")
}

func TestOpenAIWindowFallsBackToConfiguredSize(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithModel(openaitest.Model{ID: oaModel}))
	c := newOpenAI(t, srv, "", func(c *llm.Config) { c.NumCtx = 4096 })
	w, err := c.Window(t.Context(), oaModel, 0)
	require.NoError(t, err)
	assert.Equal(t, 4096, w.Tokens)
	c2 := newOpenAI(t, srv, "")
	_, err = c2.Window(t.Context(), oaModel, 0)
	require.ErrorIs(t, err, llm.ErrNoWindow)
}

func TestOpenAILengthRetriedWithLargerLimitThenErrLength(t *testing.T) {
	t.Parallel()
	long := openaitest.Reply{Content: strings.Repeat("abcd", 100), Finish: "length"}
	srv := openaitest.New(t, openaitest.WithReplies(long, long))
	c := newOpenAI(t, srv, "")
	_, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("hi"), NumPredict: 10}, nil)
	require.ErrorIs(t, err, llm.ErrLength)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.InDelta(t, 10, reqs[0].Body["max_tokens"], 1e-9)
	assert.Greater(t, reqs[1].Body["max_tokens"].(float64), float64(10))
}

func TestOpenAIFailureKinds(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithAPIKey("sekret"))
	ctx := t.Context()

	_, err := newOpenAI(t, srv, "sekret").Chat(ctx, llm.ChatRequest{Model: "nope", Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrModelNotFound)
	assert.Contains(t, err.Error(), "lms")

	_, err = newOpenAI(t, srv, "wrong").Chat(ctx, llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrAuth, "a bad key is misconfigured, not retried")
	require.NotErrorIs(t, err, llm.ErrBadRequest, "not taken for a model without tools")
	assert.Contains(t, err.Error(), "providers.lms.apiKey")
	assert.Equal(t, failure.Misconfigured, failure.Of(err))

	res, err := newOpenAI(t, srv, "sekret").Chat(ctx, llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Content)

	srv.Enqueue(openaitest.HTTPError(500, "boom"), openaitest.HTTPError(500, "boom"), openaitest.HTTPError(500, "boom"))
	_, err = newOpenAI(t, srv, "sekret").Chat(ctx, llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrServer)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	dead, err := llm.NewOpenAI("gone", "http://"+addr+"/v1", "", llm.Config{Retries: -1})
	require.NoError(t, err)
	_, err = dead.Chat(ctx, llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrUnreachable)
	assert.Contains(t, err.Error(), addr)
	assert.Contains(t, err.Error(), "gone")
	p := dead.Probe(ctx)
	assert.False(t, p.Reachable)
}

func TestOpenAIProbeAndModels(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithModel(openaitest.Model{ID: "a", Reported: 8192}, openaitest.Model{ID: "b"}))
	c := newOpenAI(t, srv, "")
	p := c.Probe(t.Context())
	require.True(t, p.Reachable, p.Error)
	assert.True(t, p.HasModel("a"))
	assert.ElementsMatch(t, []string{"a", "b"}, p.Loaded)
	info, err := c.ModelInfo(t.Context(), "a")
	require.NoError(t, err)
	assert.Equal(t, 8192, info.ContextLength)
	v, err := c.Version(t.Context())
	require.NoError(t, err)
	assert.NotEmpty(t, v)
	vecs, err := c.Embed(t.Context(), "a", []string{"x", "y"})
	require.NoError(t, err)
	assert.Len(t, vecs, 2)
}

func TestOpenAICancelIsNotAFailure(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithReplies(openaitest.Reply{Content: "slow", Latency: 5 * time.Second}))
	c := newOpenAI(t, srv, "")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, llm.ChatRequest{Model: oaModel, Messages: user("hi")}, nil)
		done <- err
	}()
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, llm.ErrServer)
}

func TestParseToolArguments(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		``: `{}`, `null`: `{}`, ` {"a": 1} `: `{"a":1}`, `"{\"a\":1}"`: `{"a":1}`,
	} {
		got, err := llm.ParseToolArguments(in)
		require.NoError(t, err, in)
		assert.JSONEq(t, want, string(got), in)
	}
	for _, in := range []string{`{"a":`, `[1]`, `{"a":1} trailing`, `"text"`, `{"a":1}{"b":2}`, `nope`, `"{bad"`} {
		_, err := llm.ParseToolArguments(in)
		assert.Error(t, err, in)
	}
}

func TestModelContextFromJSON(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]int{
		`{"id":"m","context_length":8192}`:                    8192,
		`{"id":"m","max_model_len":32768}`:                    32768,
		`{"id":"m","meta":{"n_ctx_train":4096}}`:              4096,
		`{"id":"m","meta":{"n_ctx":2048,"n_ctx_train":4096}}`: 2048,
		`{"id":"m"}`: 0,
		`{"id":"m","context_length":"lots","max_model_len":100}`: 100,
		`{"id":"m","context_length":-5}`:                         0,
		`not json`:                                               0,
		`{"context_length":1e99}`:                                0,
	} {
		assert.Equal(t, want, llm.ModelContextFromJSON([]byte(raw)), raw)
	}
}

func FuzzParseToolArguments(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"a":[1,2,{"b":null}]}`, `"{\"a\":1}"`, `{"a":`, `[]`, "{\"a\":\"\xff\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := llm.ParseToolArguments(s)
		if err == nil {
			var m map[string]any
			if json.Unmarshal(out, &m) != nil {
				t.Fatalf("accepted %q but returned %q, not an object", s, out)
			}
		}
	})
}

func FuzzModelContextFromJSON(f *testing.F) {
	for _, s := range []string{`{"context_length":8192}`, `{"meta":{"n_ctx_train":1}}`, `{`, `[]`, `{"max_model_len":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if n := llm.ModelContextFromJSON(b); n < 0 || n > 1<<30 {
			t.Fatalf("context %d out of range for %q", n, b)
		}
	})
}

func TestOpenAISchemaKeepsItsKeyOrder(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(t, openaitest.WithReplies(openaitest.Text(`{"zeta": 1, "alpha": 2}`)))
	c := newOpenAI(t, srv, "")
	schema := `{"type":"object","properties":{"zeta":{"type":"integer"},"alpha":{"type":"integer"}}}`
	_, err := c.Chat(t.Context(), llm.ChatRequest{Model: oaModel, Messages: user("q"), Format: json.RawMessage(schema)}, nil)
	require.NoError(t, err)
	raw, err := json.Marshal(srv.Requests()[0].Body["response_format"])
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"json_schema"`)
	sent := srv.RawRequests()[0]
	assert.Less(t, strings.Index(sent, `"zeta"`), strings.Index(sent, `"alpha"`), "properties in the order written: %s", sent)
}
