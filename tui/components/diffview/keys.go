package diffview

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the diff view's own bindings, each with its help text.
// Scrolling (up/down, pages, top/bottom, left/right) comes from the shared
// navigation keys.
type keyMap struct {
	// SplitToggle switches between side-by-side and unified.
	SplitToggle key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		SplitToggle: keymap.Bind("s", "split/unified", "s"),
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km := m.c.KeyMap
	return []key.Binding{km.Down, km.Up, m.keys.SplitToggle}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km := m.c.KeyMap
	return [][]key.Binding{
		{km.Down, km.Up, km.PageDown, km.PageUp, km.Top, km.Bottom},
		{km.Left, km.Right, m.keys.SplitToggle},
	}
}
