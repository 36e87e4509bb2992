package run

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

func plainHint(keys []key.Binding) string {
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k.Help().Key+" "+k.Help().Desc)
	}
	return strings.Join(parts, "  ·  ")
}

// Issue 32: the goal and answer dialogs and the artifact viewer write their
// footers from the run page's keymap, the same bindings as the help.
func TestDialogFootersAreThePagesKeymap(t *testing.T) {
	t.Parallel()
	l := newLoop(t, newFake(), 100, 30)
	k := l.m.keys
	l.PressAsync("n")
	require.True(t, l.m.goalIn.open)
	assert.Equal(t, []key.Binding{k.StartGoal, k.CloseDialog}, l.m.ShortHelp())
	assert.Contains(t, l.Plain(), plainHint(l.m.ShortHelp()))
	assert.Contains(t, l.Plain(), "enter start the run  ·  esc close")
	l.PressAsync("esc")
	assert.False(t, l.m.goalIn.open, "the dialog's close binding closes it")

	src := sample()
	src.runs[0].Run.Question = "Which port should the service listen on?"
	a := newLoop(t, src, 100, 30)
	a.m.mine[2] = true
	src.events <- engine.Event{Type: engine.EventGoalAsking, Topic: engine.TopicGoal, GoalRunID: "2", Text: src.runs[0].Run.Question}
	a.Until(func() bool { return a.m.answer.open })
	assert.Equal(t, []key.Binding{k.SendAnswer, k.KeepWaiting}, a.m.ShortHelp())
	assert.Contains(t, a.Plain(), "enter answer  ·  esc keep waiting")

	v := newLoop(t, sample(), 100, 30)
	v.PressAsync("tab", "tab", "down", "enter")
	v.Until(func() bool { return v.m.viewer.open && !v.m.viewer.loading })
	assert.Contains(t, v.Plain(), plainHint(v.m.ShortHelp()))
	assert.Contains(t, v.Plain(), "↑/↓ pgup/pgdn scroll  ·  esc close")
	v.PressAsync("q")
	assert.False(t, v.m.viewer.open, "q closes the viewer too")
}

// A dialog's footer follows its bindings: what the keymap says is what it
// shows and what it answers to.
func TestInputDialogUsesItsBindings(t *testing.T) {
	t.Parallel()
	l := newLoop(t, newFake(), 100, 30)
	d := newInputDialog(l.m.c, "", 100, keymap.Bind("ctrl+s", "send now", "ctrl+s"), keymap.Bind("ctrl+g", "give up", "ctrl+g"))
	d.Open("Title", "", "")
	view := d.view(60, 20)
	assert.Contains(t, view, "ctrl+s")
	assert.Contains(t, view, "give up")
	assert.Equal(t, inputNone, d.key(tuitest.Key("esc")), "esc is not this dialog's close")
	assert.Equal(t, inputNone, d.key(tuitest.Key("ctrl+s")), "nothing typed yet")
	assert.Contains(t, d.err.Error(), "ctrl+g closes")
	assert.Equal(t, inputClose, d.key(tuitest.Key("ctrl+g")))
}
