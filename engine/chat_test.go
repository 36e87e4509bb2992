package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
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
	ev := waitFor(t, events, func(ev engine.Event) bool {
		return ev.Topic == engine.TopicChat && ev.Chat != nil && ev.Chat.Type == chat.EventWaiting
	})
	assert.Contains(t, ev.Chat.Text, "waiting for")
	session := ev.Chat.Session
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
	waitFor(t, events, func(ev engine.Event) bool {
		return ev.Topic == engine.TopicChat && ev.Chat != nil && ev.Chat.Type == chat.EventWaiting
	})
	require.NoError(t, ws.ChatCancel(ctx, session))
	got = <-done
	require.NoError(t, got.err)
	assert.Equal(t, run.Canceled, got.rep.Turn.Status)
	tr, err := ws.ChatTranscript(ctx, session)
	require.NoError(t, err)
	assert.Len(t, tr.Turns, 2, "the session stays")
}

// Every run's prompt carries the project's rule files: a build task's too.
func TestBuildTaskPromptCarriesTheProjectRules(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "")
	require.NoError(t, os.WriteFile(filepath.Join(root, "CONVENTIONS.md"), []byte("- Name test helpers mustX.\n"), 0o644))
	srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply { return ollamatest.Text("Done.") })
	path := filepath.Join(root, "facade.json")
	require.NoError(t, os.WriteFile(path, []byte(facadePRD), 0o644))
	ctx := t.Context()
	b, err := ws.CreateBuild(ctx, path, engine.BuildOptions{})
	require.NoError(t, err)
	_, err = ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{})
	require.NoError(t, err)
	reqs := srv.ChatRequests()
	require.NotEmpty(t, reqs)
	var all strings.Builder
	for _, m := range reqs[0].Messages {
		all.WriteString(m.Content)
	}
	assert.Contains(t, all.String(), "Name test helpers mustX.")
	assert.Contains(t, all.String(), "## CONVENTIONS.md")
}

// waitFor returns the first event that matches, failing the test after 20 s.
func waitFor(t *testing.T, events <-chan engine.Event, match func(engine.Event) bool) engine.Event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev := <-events:
			if match(ev) {
				return ev
			}
		case <-deadline:
			t.Fatal("the event never came")
			return engine.Event{}
		}
	}
}
