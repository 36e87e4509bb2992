package agents

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Agents page's own bindings, each with its help text.
type keyMap struct {
	NewRun, OpenRun, Start, CancelInput, Roster key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		NewRun:      keymap.Bind("n", "new run", "n"),
		OpenRun:     keymap.Bind("enter", "open run", "enter"),
		Start:       keymap.Bind("enter", "start", "enter"),
		CancelInput: keymap.Bind("esc", "cancel", "esc"),
		Roster:      keymap.Bind("esc", "back to roster", "esc"),
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch m.mode {
	case modeInput:
		return []key.Binding{k.Start, k.CancelInput}
	case modeRun:
		return append(m.rv.ShortHelp(), k.Roster)
	}
	return []key.Binding{km.Down, km.Up, k.NewRun, k.OpenRun}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch m.mode {
	case modeInput:
		return [][]key.Binding{{k.Start, k.CancelInput}}
	case modeRun:
		return append(m.rv.FullHelp(), []key.Binding{k.Roster})
	}
	return [][]key.Binding{
		m.roster.FullHelp()[0],
		{k.NewRun, k.OpenRun, km.Refresh},
	}
}
