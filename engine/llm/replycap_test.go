package llm_test

import (
	"context"
	"runtime"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// A 100 MB reply is cut at the cap while it streams: the client stops
// reading, the reply is never held whole, and the call fails with the
// length kind (issue 26, finding 5). Not parallel: it measures allocations.
func TestHugeReplyIsCutAtTheCap(t *testing.T) {
	const (
		huge     = 100 << 20
		maxReply = 1 << 20
	)
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Huge(huge, 16<<10)))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.MaxReply = maxReply })
	var d deltas
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("write forever")}, d.add)
	runtime.ReadMemStats(&after)

	require.ErrorIs(t, err, llm.ErrLength)
	assert.Equal(t, failure.Length, failure.Of(err))
	assert.Contains(t, err.Error(), "ollama.maxReply")
	assert.Contains(t, err.Error(), "1 MiB")
	assert.Len(t, res.Content, maxReply, "the reply is cut exactly at the cap")
	assert.Equal(t, "length", res.DoneReason)
	assert.Equal(t, res.Content, d.text(), "the deltas shown stop at the cap too")
	assert.Equal(t, 1, srv.Count("/api/chat"), "a cut reply is not asked again")

	// The reader stopped: what the fake managed to write is the cap plus
	// what the connection buffers, not the 100 MB it had to send.
	assert.Less(t, srv.StreamedBytes(), int64(32<<20), "the client stopped reading at the cap")
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("streamed %d MiB of JSON lines; the call allocated %d MiB", srv.StreamedBytes()>>20, alloc>>20)
	assert.Less(t, alloc, uint64(64<<20), "memory stays bounded by the cap, not by the reply")
}

// The cap counts thinking too, and a cut never splits a UTF-8 sequence.
func TestReplyCapCountsThinkingAndKeepsUTF8Whole(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithReplies(ollamatest.Thinking("réflexion ", "ééééééééééééééééééééé")))
	c := newClient(t, srv, func(cfg *llm.Config) { cfg.MaxReply = 20 })
	res, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.ErrorIs(t, err, llm.ErrLength)
	assert.Equal(t, "réflexion ", res.Thinking)
	assert.True(t, utf8.ValidString(res.Content))
	assert.LessOrEqual(t, len(res.Thinking)+len(res.Content), 20)

	// Under the cap nothing changes.
	srv.Enqueue(ollamatest.Text("short answer"))
	res, err = c.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: user("hi")}, nil)
	require.NoError(t, err)
	assert.Equal(t, "short answer", res.Content)
}
