package run

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Run page's own bindings, each with its help text.
type keyMap struct {
	NewGoal, Runs, Answer, Resume, Cancel key.Binding
	NextFocus, PrevFocus, Timeline        key.Binding
	// Enter on the timeline and on the board.
	OpenTurn, OpenItem key.Binding
	// The runs list.
	ShowRun, CloseRuns key.Binding
	// The dialogs: the goal, the answer to the lead, the artifact viewer.
	StartGoal, CloseDialog, SendAnswer, KeepWaiting key.Binding
	// Scroll only describes the navigation keys in the artifact viewer;
	// CloseViewer closes it.
	Scroll, CloseViewer key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		NewGoal:   keymap.Bind("n", "run a goal", "n"),
		Runs:      keymap.Bind("b", "switch run", "b"),
		Answer:    keymap.Bind("a", "answer the lead", "a"),
		Resume:    keymap.Bind("p", "resume", "p"),
		Cancel:    keymap.Bind("X", "cancel the run", "X"),
		NextFocus: keymap.Bind("tab", "timeline → delegation → board", "tab"),
		PrevFocus: keymap.Bind("shift+tab", "previous pane", "shift+tab"),
		Timeline:  keymap.Bind("esc", "back to the timeline", "esc"),

		OpenTurn: keymap.Bind("enter", "open the delegation", "enter"),
		OpenItem: keymap.Bind("enter", "open artifact / resolve blocker", "enter"),

		ShowRun:   keymap.Bind("enter", "show run", "enter"),
		CloseRuns: keymap.Bind("esc/b", "close", "esc", "b"),

		StartGoal:   keymap.Bind("enter", "start the run", "enter"),
		CloseDialog: keymap.Bind("esc", "close", "esc"),
		SendAnswer:  keymap.Bind("enter", "answer", "enter"),
		KeepWaiting: keymap.Bind("esc", "keep waiting", "esc"),
		Scroll:      keymap.Bind("↑/↓ pgup/pgdn", "scroll", "up", "down", "pgup", "pgdown"),
		CloseViewer: keymap.Bind("esc", "close", "esc", "q", "enter"),
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.goalIn.open:
		return m.goalIn.ShortHelp()
	case m.answer.open:
		return m.answer.ShortHelp()
	case m.viewer.open:
		return m.viewer.ShortHelp()
	case m.confirm.Active():
		return m.confirm.ShortHelp()
	case m.runsOpen:
		return []key.Binding{km.Down, km.Up, k.ShowRun, k.CloseRuns}
	case m.focus == focusBoard:
		return []key.Binding{km.Down, km.Up, k.OpenItem, k.NextFocus}
	}
	return []key.Binding{k.NewGoal, k.Answer, k.Resume, k.Cancel, k.Runs, k.NextFocus}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.goalIn.open:
		return [][]key.Binding{m.goalIn.ShortHelp()}
	case m.answer.open:
		return [][]key.Binding{m.answer.ShortHelp()}
	case m.viewer.open:
		return [][]key.Binding{{km.Down, km.Up, km.PageDown, km.PageUp, km.Top, km.Bottom, k.CloseViewer}}
	case m.confirm.Active():
		return m.confirm.FullHelp()
	case m.runsOpen:
		return [][]key.Binding{m.runsList.FullHelp()[0], {k.ShowRun, k.CloseRuns}}
	}
	open := k.OpenTurn
	if m.focus == focusBoard {
		open = k.OpenItem
	}
	return [][]key.Binding{
		{km.Down, km.Up, km.PageDown, km.PageUp, km.Top, km.Bottom},
		{k.NextFocus, k.PrevFocus, open, k.Timeline},
		{k.NewGoal, k.Runs, k.Resume, k.Cancel, km.Refresh},
		{k.Answer},
	}
}
