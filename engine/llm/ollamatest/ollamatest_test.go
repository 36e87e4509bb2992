package ollamatest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

func client(t *testing.T, srv *ollamatest.Server) *api.Client {
	t.Helper()
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)
	return api.NewClient(u, http.DefaultClient)
}

func chat(t *testing.T, c *api.Client, model string, stream bool) ([]api.ChatResponse, error) {
	t.Helper()
	var got []api.ChatResponse
	err := c.Chat(context.Background(), &api.ChatRequest{
		Model:    model,
		Messages: []api.Message{{Role: "user", Content: "say hello to the world"}},
		Stream:   &stream,
	}, func(r api.ChatResponse) error {
		got = append(got, r)
		return nil
	})
	return got, err
}

func TestChatStreamsChunksThenDone(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(
		ollamatest.Text("hello world").WithChunkSize(3).WithTokens(11, 4).WithThinking("hmm")))
	got, err := chat(t, client(t, srv), "llama3.2:3b", true)
	require.NoError(t, err)
	require.NotEmpty(t, got)

	var content, thinking strings.Builder
	for _, r := range got[:len(got)-1] {
		assert.False(t, r.Done)
		assert.Equal(t, "assistant", r.Message.Role)
		content.WriteString(r.Message.Content)
		thinking.WriteString(r.Message.Thinking)
	}
	assert.Equal(t, "hello world", content.String())
	assert.Equal(t, "hmm", thinking.String())
	contentChunks := (len("hello world") + 2) / 3
	assert.Len(t, got, 1+contentChunks+1, "one thinking chunk, the content chunks, the done message")
	last := got[len(got)-1]
	assert.True(t, last.Done)
	assert.Equal(t, "stop", last.DoneReason)
	assert.Equal(t, 11, last.PromptEvalCount)
	assert.Equal(t, 4, last.EvalCount)
	assert.Equal(t, "llama3.2:3b", last.Model)
}

func TestChatRawWireFormat(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Text("abcdefgh")))
	resp, err := http.Post(srv.URL()+"/api/chat", "application/json",
		strings.NewReader(`{"model":"llama3.2:3b","messages":[{"role":"user","content":"hi"}]}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/x-ndjson", resp.Header.Get("Content-Type"))
	sc := bufio.NewScanner(resp.Body)
	var lines []map[string]any
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "every line is one JSON object: %s", sc.Text())
		lines = append(lines, m)
	}
	require.Len(t, lines, 3)
	for _, k := range []string{"model", "created_at", "message", "done"} {
		assert.Contains(t, lines[0], k)
	}
	final := lines[2]
	for _, k := range []string{"done_reason", "total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration"} {
		assert.Contains(t, final, k)
	}
	assert.Equal(t, true, final["done"])
}

func TestChatNonStreaming(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Text("all at once")))
	got, err := chat(t, client(t, srv), "llama3.2:3b", false)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.True(t, got[0].Done)
	assert.Equal(t, "all at once", got[0].Message.Content)
}

func TestChatToolCalls(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(
		ollamatest.ToolCalls(ollamatest.Call("read_file", map[string]any{"path": "main.go", "limit": 10}))))
	got, err := chat(t, client(t, srv), "llama3.2:3b", true)
	require.NoError(t, err)
	var calls []api.ToolCall
	for _, r := range got {
		calls = append(calls, r.Message.ToolCalls...)
	}
	require.Len(t, calls, 1)
	assert.Equal(t, "read_file", calls[0].Function.Name)
	assert.True(t, strings.HasPrefix(calls[0].ID, "call_"))
	v, ok := calls[0].Function.Arguments.Get("path")
	require.True(t, ok)
	assert.Equal(t, "main.go", v)
}

func TestChatFailureModesAsSeenByTheOfficialClient(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		reply ollamatest.Reply
		check func(t *testing.T, got []api.ChatResponse, err error)
	}{
		{"500", ollamatest.ServerError("boom"), func(t *testing.T, _ []api.ChatResponse, err error) {
			var se api.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 500, se.StatusCode)
			assert.Equal(t, "boom", se.ErrorMessage)
		}},
		{"error line mid-stream", ollamatest.StreamError("partial ", "runner crashed"), func(t *testing.T, got []api.ChatResponse, err error) {
			require.EqualError(t, err, "runner crashed")
			assert.NotEmpty(t, got, "content before the error line is delivered")
		}},
		{"cut", ollamatest.Cut("partial answer"), func(t *testing.T, got []api.ChatResponse, err error) {
			require.Error(t, err)
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)
			for _, r := range got {
				assert.False(t, r.Done)
			}
		}},
		{"cut clean", ollamatest.CutClean("partial answer"), func(t *testing.T, got []api.ChatResponse, err error) {
			require.NoError(t, err)
			require.NotEmpty(t, got)
			assert.False(t, got[len(got)-1].Done)
		}},
		{"raw garbage", ollamatest.Raw("this is not json\n"), func(t *testing.T, _ []api.ChatResponse, err error) {
			require.EqualError(t, err, "this is not json")
		}},
		{"empty body", ollamatest.Raw(""), func(t *testing.T, got []api.ChatResponse, err error) {
			require.NoError(t, err)
			assert.Empty(t, got)
		}},
		{"empty reply", ollamatest.Empty(), func(t *testing.T, got []api.ChatResponse, err error) {
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.True(t, got[0].Done)
			assert.Empty(t, got[0].Message.Content)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.WithReplies(tc.reply))
			got, err := chat(t, client(t, srv), "llama3.2:3b", true)
			tc.check(t, got, err)
		})
	}
}

func TestUnknownModelIs404InOllamaShape(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("llama3.2:3b"), ollamatest.WithReplies(ollamatest.Text("kept")))
	_, err := chat(t, client(t, srv), "mistral:7b", true)
	var se api.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusNotFound, se.StatusCode)
	assert.Equal(t, "model 'mistral:7b' not found", se.ErrorMessage)
	assert.Equal(t, 1, srv.Pending(), "a 404 does not consume a queued reply")
}

func TestHandlerAndQueueOrder(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t,
		ollamatest.WithReplies(ollamatest.Text("queued")),
		ollamatest.WithHandler(func(n int, req api.ChatRequest) ollamatest.Reply {
			return ollamatest.Text(req.Messages[len(req.Messages)-1].Content + " #" + string(rune('0'+n)))
		}))
	c := client(t, srv)
	for _, want := range []string{"queued", "say hello to the world #2"} {
		got, err := chat(t, c, "llama3.2:3b", false)
		require.NoError(t, err)
		assert.Equal(t, want, got[0].Message.Content)
	}
	assert.Len(t, srv.ChatRequests(), 2)
	assert.Equal(t, 2, srv.Count("/api/chat"))
}

func TestTagsShowVersion(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("llama3.2:3b", "nomic-embed-text"), ollamatest.WithVersion("9.9.9"))
	c := client(t, srv)
	ctx := context.Background()

	v, err := c.Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, "9.9.9", v)

	lr, err := c.List(ctx)
	require.NoError(t, err)
	require.Len(t, lr.Models, 2)
	assert.Equal(t, "llama3.2:3b", lr.Models[0].Name)
	assert.Equal(t, "llama", lr.Models[0].Details.Family)
	assert.Equal(t, "3B", lr.Models[0].Details.ParameterSize)
	assert.Equal(t, "nomic-embed-text:latest", lr.Models[1].Name)

	sr, err := c.Show(ctx, &api.ShowRequest{Model: "nomic-embed-text"})
	require.NoError(t, err)
	assert.Equal(t, "nomic-bert", sr.Details.Family)
	require.Len(t, sr.Capabilities, 1)
	assert.EqualValues(t, "embedding", sr.Capabilities[0])

	_, err = c.Show(ctx, &api.ShowRequest{Model: "nope"})
	var se api.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusNotFound, se.StatusCode)
}

func TestEnqueuePathFailsOtherEndpoints(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.EnqueuePath("/api/tags", ollamatest.ServerError("disk on fire"))
	c := client(t, srv)
	_, err := c.List(context.Background())
	var se api.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 500, se.StatusCode)
	_, err = c.List(context.Background())
	require.NoError(t, err, "the scripted failure is used once")
}

func TestEmbeddingsDeterministicAndSimilar(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithEmbedDim(64))
	c := client(t, srv)
	inputs := []string{"the quick brown fox", "the quick brown fox jumps", "database migration plan"}
	r1, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: inputs})
	require.NoError(t, err)
	r2, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: inputs})
	require.NoError(t, err)
	require.Len(t, r1.Embeddings, 3)
	assert.Equal(t, r1.Embeddings, r2.Embeddings)
	assert.Equal(t, ollamatest.Embedding(inputs[0], 64), r1.Embeddings[0])
	for _, v := range r1.Embeddings {
		assert.Len(t, v, 64)
		assert.InDelta(t, 1.0, norm(v), 1e-5)
	}
	assert.Greater(t, dot(r1.Embeddings[0], r1.Embeddings[1]), dot(r1.Embeddings[0], r1.Embeddings[2]))
}

func TestLatencyHonoursClientCancel(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Text("late").WithLatency(time.Minute)))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := client(t, srv).Chat(ctx, &api.ChatRequest{Model: "llama3.2:3b"}, func(api.ChatResponse) error { return nil })
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
}

func TestConcurrentRecording(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	c := client(t, srv)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := chat(t, c, "llama3.2:3b", true)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.Len(t, srv.ChatRequests(), 8)
}

func TestCloseMakesServerUnreachable(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.Close()
	srv.Close()
	_, err := client(t, srv).Version(context.Background())
	require.Error(t, err)
}

func norm(v []float32) float64 { return math.Sqrt(dot(v, v)) }

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
