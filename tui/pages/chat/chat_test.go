package chat

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

const (
	buggy = "package foo\n\n// Abs returns the absolute value of x.\nfunc Abs(x int) int {\n\treturn x\n}\n"
	fixed = "package foo\n\n// Abs returns the absolute value of x.\nfunc Abs(x int) int {\n\tif x < 0 {\n\t\treturn -x\n\t}\n\treturn x\n}\n"
	ask   = "fix the bug in foo.go: Abs returns negative numbers unchanged"
)

// newWS is a workspace holding foo.go and an AGENTS.md rule, Ollama
// pointed at a fake server; the clock is pinned.
func newWS(t *testing.T, srv *ollamatest.Server) *engine.Local { return newWSb(t, srv) }

func newWSb(t testing.TB, srv *ollamatest.Server) *engine.Local {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "foo.go"), []byte(buggy), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Keep doc comments.\n"), 0o644))
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Defaults: nova.Defaults,
		Now: func() time.Time { return epoch },
		Getenv: func(k string) string {
			if k == "OLLAMA_HOST" {
				return srv.URL()
			}
			return ""
		}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

type loop struct {
	*tuitest.Driver
	t *testing.T
	m *Model
}

func newLoop(t *testing.T, ws Source, events <-chan engine.Event, w, h int) *loop {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &common.Common{Ctx: ctx, Width: w, Height: h, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap(),
		Now: func() time.Time { return epoch }}
	m := New(c, ws)
	m.SetSize(w, h-3)
	l := &loop{Driver: tuitest.DriveComponent(t, m), t: t, m: m}
	l.PumpEvents(events)
	l.Exec(m.Init())
	l.Until(func() bool { return m.loaded })
	return l
}

func (l *loop) typeText(s string) {
	for _, r := range s {
		if r == ' ' {
			l.Dispatch(tuitest.Key("space"))
			continue
		}
		l.Dispatch(tuitest.Key(string(r)))
	}
}

func fixReply() ollamatest.Reply {
	return ollamatest.Text("The bug: Abs never negates.\n\nfoo.go\n```go\n" + fixed + "```\n\nAbs now negates negative numbers, so Abs(-4) is 4.")
}

// The done-when: type the request, enter, a — the fix is on disk.
func TestFixABugInThreeSteps(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	srv.Enqueue(fixReply())
	ws := newWS(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := newLoop(t, ws, ws.Subscribe(ctx), 120, 40)
	assert.True(t, l.m.Capturing(), "the input line has the keyboard from the start")
	l.typeText(ask)
	l.Dispatch(tuitest.Key("enter"))
	l.Until(func() bool { return l.m.focus == focusTranscript && l.m.pendingTurn() == 0 })
	out := l.Plain()
	assert.Contains(t, out, "› "+ask)
	assert.Contains(t, out, "implementer · a change: the roster's implementer")
	assert.Contains(t, out, "+\tif x < 0 {"[:1]+"    if x < 0 {", "the diff inline")
	assert.Contains(t, out, "a apply")
	assert.Contains(t, out, "context: rules AGENTS.md")
	l.Dispatch(tuitest.Key("a"))
	l.Until(func() bool {
		data, _ := os.ReadFile(filepath.Join(ws.Info().Root, "foo.go"))
		return string(data) == fixed
	})
	l.Until(func() bool { return strings.Contains(l.Plain(), "applied to your files") })
	l.Until(l.m.Capturing) // after a decision the input line has the keyboard again
}

func TestGoldenChat(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}, {180, 50}} {
		t.Run(fmt.Sprintf("turn_%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
			srv.Enqueue(fixReply())
			ws := newWS(t, srv)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			l := newLoop(t, ws, ws.Subscribe(ctx), size[0], size[1])
			l.typeText(ask)
			l.Dispatch(tuitest.Key("enter"))
			l.Until(func() bool { return l.m.focus == focusTranscript && l.m.pendingTurn() == 0 })
			golden.RequireEqual(t, l.Pinned())
		})
		t.Run(fmt.Sprintf("empty_%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
			ws := newWS(t, srv)
			l := newLoop(t, ws, nil, size[0], size[1])
			l.typeText("/re")
			l.Until(func() bool { return len(l.m.comps) == 2 })
			golden.RequireEqual(t, l.Pinned())
		})
	}
}

// Streamed text wraps on word boundaries, never where a chunk ended.
func TestStreamWrapsOnWordsNotChunks(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	ws := newWS(t, srv)
	l := newLoop(t, ws, nil, 80, 24)
	l.m.session = 1
	turn := chat.Turn{Session: 1, N: 1, Request: "explain", Agent: "researcher", Status: run.Running}
	l.Send(common.EventMsg{Event: engine.Event{Topic: engine.TopicChat, Chat: &chat.Event{Type: chat.EventTurn, Session: 1, N: 1, Turn: &turn}}})
	text := strings.Repeat("alpha beta gamma delta epsilon ", 12)
	for i := 0; i < len(text); i += 7 { // chunks cut words in two
		chunk := text[i:min(i+7, len(text))]
		l.Send(common.EventMsg{Event: engine.Event{Topic: engine.TopicChat, Type: engine.EventDelta, Chat: &chat.Event{Type: chat.EventDelta, Session: 1, N: 1, Text: chunk}}})
	}
	words := map[string]bool{"alpha": true, "beta": true, "gamma": true, "delta": true, "epsilon": true}
	seen := 0
	for _, line := range strings.Split(l.Plain(), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !words[f[0]] {
			continue
		}
		seen++
		for _, w := range f {
			assert.True(t, words[w], "a word split across lines: %q in %q", w, line)
		}
	}
	assert.Greater(t, seen, 2, "the answer wraps over several lines")
}

// A second window on the same session sees the first one's turn live.
func TestSecondWindowSeesTheSessionLive(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	srv.Enqueue(ollamatest.Text("Abs is in foo.go."), ollamatest.Text("It returns x unchanged."))
	ws := newWS(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := ws.ChatSend(ctx, engine.ChatSendArgs{Text: "where is Abs?"})
	require.NoError(t, err)
	a := newLoop(t, ws, ws.Subscribe(ctx), 100, 30)
	b := newLoop(t, ws, ws.Subscribe(ctx), 100, 30)
	require.Equal(t, a.m.Session(), b.m.Session(), "both open the most recent session")
	a.typeText("what does Abs return?")
	a.Dispatch(tuitest.Key("enter"))
	b.Until(func() bool { return strings.Contains(b.Plain(), "It returns x unchanged.") })
	assert.Contains(t, b.Plain(), "› what does Abs return?")
}

func TestBadInputOnTheScreen(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	ws := newWS(t, srv)
	l := newLoop(t, ws, nil, 100, 30)
	l.typeText("/undo")
	l.Dispatch(tuitest.Key("enter"))
	l.Until(func() bool { return len(l.Errs) > 0 || len(l.Toasts) > 0 })
	require.NotEmpty(t, l.Errs)
	assert.Contains(t, l.Errs[0].Error(), "nothing to undo")
	// A 5 MB paste is cut to the message limit, and the user is told.
	l.Send(teaPaste(strings.Repeat("x", 5<<20)))
	assert.LessOrEqual(t, len(l.m.input.Value()), chat.MaxMessageBytes)
	assert.Contains(t, strings.Join(l.Toasts, "\n"), "only its first")
}

// The turn's context is listed (p) and opens on the Knowledge screen (o).
func TestProvenanceOpensFromTheTurn(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	ws := newWS(t, srv)
	l := newLoop(t, ws, nil, 120, 40)
	l.m.session = 1
	turn := chat.Turn{Session: 1, N: 1, Request: "why?", Agent: "researcher", Status: run.Done, Answer: "because",
		Provenance: []promptctx.Item{{Block: "rules", Source: "AGENTS.md", ID: "AGENTS.md", Title: "AGENTS.md", Tokens: 12},
			{Block: "vault", Source: "vault", ID: "7", Title: "node 7"}, {Block: "knowledge", Source: "knowledge", ID: "fact:f3", Title: "fact:f3"}}}
	l.m.tr = chat.Transcript{Session: chat.Session{ID: 1}, Turns: []chat.Turn{turn}}
	l.Send(tuitest.Key("tab"))
	l.Send(tuitest.Key("p"))
	out := l.Plain()
	assert.Contains(t, out, "context of this turn's prompt:")
	assert.Contains(t, out, "AGENTS.md (12 tokens)")
	l.Send(tuitest.Key("o"))
	require.NotEmpty(t, l.Navs)
	refs, ok := l.Navs[0].Arg.(common.KnowledgeRefs)
	require.True(t, ok)
	assert.Equal(t, []string{"vault:7", "fact:f3"}, refs.Refs)
}

// A command the turn's agent wants to run is put to the user: y allows it.
func TestApprovalIsAskedOnTheScreen(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	ws := newWS(t, srv)
	l := newLoop(t, ws, nil, 100, 30)
	l.m.sending, l.m.sendOp = true, "op-1"
	l.Send(common.EventMsg{Event: engine.Event{Type: engine.EventNeedsApproval, Topic: engine.TopicAgent, Op: "op-1",
		Approval: &tools.ApprovalRequest{ID: "nope", Agent: "implementer", Command: "go test ./..."}}})
	assert.Contains(t, l.Plain(), "implementer wants to run `go test ./...` — y allow · n deny")
	assert.True(t, l.m.Capturing())
	l.Send(tuitest.Key("y"))
	assert.Nil(t, l.m.approval)
	require.NotEmpty(t, l.Errs, "an approval nobody waits for any more says so")
}

// A running turn shows the run's progress estimate (issue 31), stuck in
// the warning style; the finished turn drops it.
func TestRunningTurnShowsItsProgress(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	ws := newWS(t, srv)
	l := newLoop(t, ws, nil, 80, 24)
	l.m.session = 1
	turn := chat.Turn{Session: 1, N: 1, Request: "fix foo", Agent: "implementer", Status: run.Running}
	l.Send(common.EventMsg{Event: engine.Event{Topic: engine.TopicChat, Chat: &chat.Event{Type: chat.EventTurn, Session: 1, N: 1, Turn: &turn}}})
	assert.NotContains(t, l.Plain(), "next:")
	p := agents.Progress{Percent: 50, Milestone: "run the checks"}
	l.Send(common.EventMsg{Event: engine.Event{Topic: engine.TopicChat, Type: engine.EventProgress,
		Chat: &chat.Event{Type: chat.EventProgress, Session: 1, N: 1, Progress: &p}}})
	assert.Contains(t, l.Plain(), "50% · next: run the checks")
	p = agents.Progress{Percent: 20, Milestone: "stage a change", Stuck: true, Idle: 10}
	l.Send(common.EventMsg{Event: engine.Event{Topic: engine.TopicChat, Type: engine.EventProgress,
		Chat: &chat.Event{Type: chat.EventProgress, Session: 1, N: 1, Progress: &p}}})
	assert.Contains(t, l.Plain(), "stuck (10 calls found nothing new)")
	turn.Status = run.Done
	turn.Answer = "fixed"
	l.m.upsert(turn)
	assert.NotContains(t, l.Plain(), "next:", "a finished turn shows its answer, not an estimate")
}
