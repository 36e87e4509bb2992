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
	"github.com/nova-dev/nova/tui/tuitest"
)

func helpDescs(m *Model) []string {
	var out []string
	for _, g := range m.FullHelp() {
		for _, b := range g {
			out = append(out, b.Help().Desc)
		}
	}
	return out
}

// Issue 32: the sessions list is nova's list component (most recent first,
// the › marker, a line counting hidden sessions at 80x24, pgdn and G), and
// the turns' cursor moves through it too: going back to the first turn
// scrolls it into view. The help is the page's own in each focus.
func TestSessionsAndTurnsMoveThroughTheListComponent(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	ws := newWS(t, srv)
	ctx := context.Background()
	st := ws.Chat().Store()
	var last chat.Session
	for i := 1; i <= 30; i++ {
		s, err := st.Create(ctx, fmt.Sprintf("session %d", i))
		require.NoError(t, err)
		last = s
	}
	for i := 1; i <= 8; i++ {
		_, err := st.NewTurn(ctx, chat.Turn{Session: last.ID, Request: fmt.Sprintf("request %d", i), Status: run.Done,
			Agent: "implementer", Answer: strings.Repeat(fmt.Sprintf("answer %d ", i), 20)})
		require.NoError(t, err)
	}
	l := newLoop(t, ws, nil, 80, 24)
	require.Equal(t, last.ID, l.m.Session(), "the most recent session opens")
	assert.Contains(t, helpDescs(l.m), "to the turns")

	l.Dispatch(tuitest.Key("tab"))
	require.Equal(t, focusTranscript, l.m.focus)
	assert.Equal(t, 7, l.m.sel(), "on the newest turn")
	assert.NotContains(t, l.Plain(), "request 1\n")
	l.Dispatch(tuitest.Key("g"))
	assert.Equal(t, 0, l.m.sel())
	assert.Contains(t, l.Plain(), "› request 1", "the first turn scrolled into view")
	l.Dispatch(tuitest.Key("G"))
	assert.Equal(t, 7, l.m.sel())
	assert.Contains(t, l.Plain(), "› request 8")
	assert.Contains(t, helpDescs(l.m), "apply all of the turn")

	l.Dispatch(tuitest.Key("s"))
	l.Until(func() bool { return l.m.focus == focusSessions && l.m.sessList.Len() == 30 })
	out := l.Plain()
	assert.Regexp(t, `›\s+30  8 turns`, out, "most recent first, under the marker")
	assert.Contains(t, out, "1/30 · ↓")
	l.Dispatch(tuitest.Key("pgdown"))
	assert.Greater(t, l.m.sessList.Cursor(), 1)
	l.Dispatch(tuitest.Key("G"))
	out = l.Plain()
	assert.Contains(t, out, "30/30 · ↑")
	assert.Regexp(t, `›\s+1  0 turns`, out)
	assert.Contains(t, helpDescs(l.m), "page down")
	l.Dispatch(tuitest.Key("enter"))
	assert.Equal(t, uint64(1), l.m.Session())
	assert.Equal(t, focusInput, l.m.focus)
}
