package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

// chatWithTurns is a loop on a session of n finished turns.
func chatWithTurns(t *testing.T, n, w, h int) *loop {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	ws := newWS(t, srv)
	ctx := context.Background()
	st := ws.Chat().Store()
	s, err := st.Create(ctx, "many turns")
	require.NoError(t, err)
	for i := 1; i <= n; i++ {
		_, err := st.NewTurn(ctx, chat.Turn{Session: s.ID, Request: fmt.Sprintf("request %d", i), Status: run.Done,
			Agent: "implementer", Answer: fmt.Sprintf("answer %d", i)})
		require.NoError(t, err)
	}
	return newLoop(t, ws, nil, w, h)
}

// lastTranscriptLine is the line above the input line.
func lastTranscriptLine(l *loop) string {
	lines := strings.Split(l.Plain(), "\n")
	return lines[1+l.m.transcriptHeight()-1]
}

// Issue 32: at 80x24 the turns do not all fit, and the transcript's last
// line says where the selected turn is and how many are out of view.
func TestTurnsCounterWhenTurnsAreHidden(t *testing.T) {
	t.Parallel()
	l := chatWithTurns(t, 30, 80, 24)
	assert.Regexp(t, `^\s+30 turns · ↑ \d+$`, lastTranscriptLine(l), "no turn selected: how many, and how many above")

	l.Dispatch(tuitest.Key("tab"))
	assert.Regexp(t, `^\s+30/30 · ↑ \d+$`, lastTranscriptLine(l))
	l.Dispatch(tuitest.Key("g"))
	assert.Regexp(t, `^\s+1/30 · ↓ \d+ more$`, lastTranscriptLine(l))
	assert.Contains(t, l.Plain(), "› request 1\n")
	for range 6 {
		l.Dispatch(tuitest.Key("down"))
	}
	assert.Contains(t, lastTranscriptLine(l), "7/30 · ")
	assert.Contains(t, l.Plain(), "› request 7\n", "the selected turn stays in view above the counter")

	few := chatWithTurns(t, 2, 80, 24)
	few.Dispatch(tuitest.Key("tab"))
	assert.NotContains(t, few.Plain(), "2/2", "every turn in view: no counter")
}

// The hint line under the input is the page's keymap for the state: a
// binding's help written once in keys.go shows there too.
func TestHintLineComesFromTheKeymap(t *testing.T) {
	t.Parallel()
	l := chatWithTurns(t, 3, 120, 40)
	hintOf := func() string {
		lines := strings.Split(l.Plain(), "\n")
		return lines[len(lines)-1]
	}
	l.m.keys.Send = keymap.Bind("enter", "send it off", "enter")
	assert.Equal(t, hint(120, l.m.hintKeys()...), hintOf())
	assert.True(t, strings.HasPrefix(hintOf(), "enter send it off · tab/esc to the turns"), hintOf())

	l.Dispatch(tuitest.Key("tab"))
	l.m.keys.Sessions = keymap.Bind("s", "all sessions", "s")
	assert.Equal(t, hint(120, l.m.hintKeys()...), hintOf())
	assert.Contains(t, hintOf(), "s all sessions")

	l.Dispatch(tuitest.Key("s"))
	l.Until(func() bool { return l.m.focus == focusSessions })
	assert.Equal(t, "enter open · esc/s back", hintOf())
}

// The hint keeps whole bindings: what does not fit is left out, never cut.
func TestHintDropsWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	k := newKeyMap()
	assert.Equal(t, "a apply · x discard", hint(22, k.Apply, k.Discard, k.Edit))
	assert.Equal(t, "a apply", hint(3, k.Apply, k.Discard), "the first binding shows even when it is wider")
}
