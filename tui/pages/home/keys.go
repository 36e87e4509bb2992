package home

import (
	"charm.land/bubbles/v2/key"
)

// The Home page has no action of its own, so no keyMap: the dashboard
// shows, the shared Refresh (ctrl+r) reloads everything on it and the
// shared GoTo keys open the other screens.

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return []key.Binding{m.c.KeyMap.Refresh} }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{{m.c.KeyMap.Refresh}} }
