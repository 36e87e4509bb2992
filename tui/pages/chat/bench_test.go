package chat

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

// BenchmarkKeystrokeWhileStreaming measures one key press on the Chat
// screen at 180×50 while a turn streams its answer: between two keys a
// streamed chunk arrives; a key costs the page's Update and the View that
// echoes it (the work on the UI goroutine). The transcript holds a
// finished turn with a diff and a long streaming answer. Target: ≤ 16 ms.
func BenchmarkKeystrokeWhileStreaming(b *testing.B) {
	srv := ollamatest.New(b, ollamatest.WithModels("qwen2.5-coder:1.5b"))
	ws := newWSb(b, srv)
	c := &common.Common{Ctx: context.Background(), Width: 180, Height: 50, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, ws)
	m.SetSize(180, 47)
	m.loaded, m.session = true, 1
	done := chat.Turn{Session: 1, N: 1, Request: ask, Agent: "implementer", Route: "a change", Status: run.Done,
		Answer: strings.Repeat("The fix negates x when it is below zero. ", 20), ChangesetID: 0}
	live := chat.Turn{Session: 1, N: 2, Request: "why?", Agent: "researcher", Status: run.Running}
	m.tr = chat.Transcript{Session: chat.Session{ID: 1, Title: "bench"}, Turns: []chat.Turn{done, live}}
	m.focusInputLine()
	letter, back := tuitest.Key("x"), tuitest.Key("backspace")
	chunk := common.EventMsg{Event: engine.Event{Topic: engine.TopicChat, Type: engine.EventDelta,
		Chat: &chat.Event{Type: chat.EventDelta, Session: 1, N: 2, Text: "tokens stream in "}}}
	var worst, total time.Duration
	b.ResetTimer()
	for i := range b.N {
		m.Update(chunk)
		_ = m.View()
		k := letter
		if i%2 == 1 {
			k = back
		}
		start := time.Now()
		m.Update(k)
		_ = m.View()
		d := time.Since(start)
		worst, total = max(worst, d), total+d
	}
	b.ReportMetric(float64(total)/float64(time.Millisecond)/float64(b.N), "ms/key")
	b.ReportMetric(float64(worst)/float64(time.Millisecond), "worst-ms/key")
}
