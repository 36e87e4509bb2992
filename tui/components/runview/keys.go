package runview

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the run view's own bindings, each with its help text. Scrolling
// comes from the shared navigation keys.
type keyMap struct {
	// Approve is y alone: the question can arrive while the user is
	// pressing enter for something else, so enter never approves.
	Approve, Deny key.Binding
	// CancelRun stops the run in progress.
	CancelRun key.Binding
	// ReviewChanges opens the run's changeset on the Changes screen.
	ReviewChanges key.Binding
	// ShowTrace and HideTrace are t: the finished run's tool calls in place
	// of the log, and back.
	ShowTrace, HideTrace key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Approve:       keymap.Bind("y", "approve", "y"),
		Deny:          keymap.Bind("n/esc", "deny", "n", "esc"),
		CancelRun:     keymap.Bind("X", "cancel run", "X"),
		ReviewChanges: keymap.Bind("enter", "review changes", "enter"),
		ShowTrace:     keymap.Bind("t", "tool calls", "t"),
		HideTrace:     keymap.Bind("t", "hide tool calls", "t"),
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.approval != nil:
		return []key.Binding{k.Approve, k.Deny}
	case m.state == Running:
		return []key.Binding{k.CancelRun, km.Down, km.Up}
	case m.canTrace() && m.result.ChangesetID != 0:
		return []key.Binding{k.ReviewChanges, m.traceKey(), km.Down, km.Up}
	case m.result != nil && m.result.ChangesetID != 0:
		return []key.Binding{k.ReviewChanges, km.Down, km.Up}
	case m.canTrace():
		return []key.Binding{m.traceKey(), km.Down, km.Up}
	}
	return []key.Binding{km.Down, km.Up}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	return [][]key.Binding{
		{km.Down, km.Up, km.PageDown, km.PageUp, km.Top, km.Bottom},
		{k.Approve, k.Deny, k.CancelRun, k.ReviewChanges, k.ShowTrace},
	}
}

// traceKey is t, named for what it does now.
func (m *Model) traceKey() key.Binding {
	if m.traceOn {
		return m.keys.HideTrace
	}
	return m.keys.ShowTrace
}

// hint is a binding as the footers show it: its key, then what it does.
func hint(s *themes.Styles, b key.Binding) string {
	return s.Key.Render(b.Help().Key) + " " + s.KeyDesc.Render(b.Help().Desc)
}
