package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/run"
)

// A model server that goes away makes the chat turn wait, as a build task
// does, and the turn goes on when it is back; ChatCancel then cancels a
// waiting turn, not its session.
func TestChatTurnWaitsForTheModelServer(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), []byte("ollama:\n  retries: 0\n"), 0o644))
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"),
		ollamatest.WithDefaultReply(ollamatest.Text("Abs is in foo.go.")))
	gate := ollamatest.NewGate(t, srv)
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Getenv: envOf(map[string]string{"OLLAMA_HOST": gate.URL()})})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	ctx := t.Context()
	events := ws.Subscribe(ctx)
	gate.Down()
	type result struct {
		rep engine.ChatReply
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := ws.ChatSend(ctx, engine.ChatSendArgs{Text: "where is Abs?"})
		done <- result{rep, err}
	}()
	var session uint64
	for ev := range events {
		if ev.Topic == engine.TopicChat && ev.Chat != nil && ev.Chat.Type == chat.EventWaiting {
			assert.Contains(t, ev.Chat.Text, "waiting for")
			session = ev.Chat.Session
			break
		}
	}
	running, err := ws.RunningWork(ctx)
	require.NoError(t, err)
	assert.Equal(t, []uint64{session}, running.ChatSessions, "a waiting turn is running work: a quit offers the hand-over")
	require.NoError(t, gate.Up())
	got := <-done
	require.NoError(t, got.err)
	assert.Equal(t, run.Done, got.rep.Turn.Status, got.rep.Turn.Error)
	assert.Equal(t, "Abs is in foo.go.", got.rep.Turn.Answer)

	// Down again: ctrl+c (ChatCancel) while it waits cancels the turn.
	gate.Down()
	go func() {
		rep, err := ws.ChatSend(ctx, engine.ChatSendArgs{Session: session, Text: "and where is its test?"})
		done <- result{rep, err}
	}()
	for ev := range events {
		if ev.Topic == engine.TopicChat && ev.Chat != nil && ev.Chat.Type == chat.EventWaiting {
			break
		}
	}
	require.NoError(t, ws.ChatCancel(ctx, session))
	got = <-done
	require.NoError(t, got.err)
	assert.Equal(t, run.Canceled, got.rep.Turn.Status)
	tr, err := ws.ChatTranscript(ctx, session)
	require.NoError(t, err)
	assert.Len(t, tr.Turns, 2, "the session stays")
}
