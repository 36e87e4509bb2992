package changes

import (
	"charm.land/bubbles/v2/key"

	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Changes screen's own bindings, each with its help text
// written once. Movement, back, refresh and the dialogs' confirm/cancel
// come from the shared keymap.
type keyMap struct {
	NextPane, PrevPane, Open key.Binding
	Apply, ApplyAll, Discard key.Binding
	Edit, Revert             key.Binding
	SplitToggle              key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		NextPane: keymap.Bind("tab", "next pane", "tab"),
		PrevPane: keymap.Bind("shift+tab", "previous pane", "shift+tab"),
		Open:     keymap.Bind("enter", "open", "enter"),
		Apply:    keymap.Bind("a", "apply", "a"),
		// ApplyAll applies every pending changeset of the selected one's
		// build (or goal run), oldest first.
		ApplyAll:    keymap.Bind("A", "apply all of its build", "A"),
		Discard:     keymap.Bind("x", "discard", "x"),
		Edit:        keymap.Bind("e", "edit file in $EDITOR", "e"),
		Revert:      keymap.Bind("R", "revert (undo an apply)", "R"),
		SplitToggle: keymap.Bind("s", "split/unified", "s"),
	}
}

// ShortHelp implements help.KeyMap: the keys of the page's state.
func (m *Model) ShortHelp() []key.Binding {
	km, k := m.c.KeyMap, m.keys
	if m.dialog != nil {
		return []key.Binding{km.Confirm, km.Cancel}
	}
	short := []key.Binding{k.NextPane, k.Apply}
	if cs, ok := m.current(); ok && cs.BuildID != "" && cs.Status == chg.StatusPending {
		short = append(short, k.ApplyAll)
	}
	return append(short, k.Discard, k.Edit, k.Revert, k.SplitToggle)
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	if m.dialog != nil {
		return [][]key.Binding{{km.Confirm, km.Cancel}}
	}
	return [][]key.Binding{
		{km.Up, km.Down, km.PageDown, km.PageUp, km.Top, km.Bottom, km.Left, km.Right},
		{k.NextPane, k.PrevPane, k.Open, km.Back, km.Refresh},
		{k.Apply, k.ApplyAll, k.Discard, k.Edit, k.Revert, k.SplitToggle},
	}
}
