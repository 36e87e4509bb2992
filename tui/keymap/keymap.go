// Package keymap holds the bindings every screen shares — quitting, help,
// the command palette, moving between screens, list navigation and dialog
// answers — built by DefaultKeyMap and reached through the shared Common.
// Each page and component declares its own actions in its keys.go with
// Bind, help text written once, and lists them per state in its
// help.KeyMap.
package keymap

import (
	"charm.land/bubbles/v2/key"
)

// KeyMap holds the shared bindings.
type KeyMap struct {
	// Global.
	Quit, ForceQuit, Help, Palette, Back, NextPage, PrevPage, Refresh key.Binding
	// GoTo[i] shows screen i+1: alt+1 … alt+9, then alt+0 for the tenth,
	// alt+l for the eleventh (the Library: no digit is left) and alt+c for
	// the twelfth (Chat).
	// Digits alone stay page keys (rehearsal branches, graph depth).
	GoTo [12]key.Binding

	// Navigation.
	Up, Down, Left, Right, PageUp, PageDown, Top, Bottom key.Binding
	Enter, Select, Filter, Tab, ShiftTab                 key.Binding

	// Dialogs.
	Confirm, Cancel key.Binding
}

// DefaultKeyMap returns nova's bindings.
func DefaultKeyMap() *KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return &KeyMap{
		Quit:      b("q", "quit", "q"),
		ForceQuit: b("ctrl+c", "quit", "ctrl+c"),
		Help:      b("?", "help", "?"),
		Palette:   b("ctrl+p", "commands", "ctrl+p"),
		Back:      b("esc", "back", "esc"),
		NextPage:  b("ctrl+→/]", "next screen", "ctrl+right", "]"),
		PrevPage:  b("ctrl+←/[", "prev screen", "ctrl+left", "["),
		Refresh:   b("ctrl+r", "refresh", "ctrl+r"),

		GoTo: [12]key.Binding{
			b("alt+1", "screen 1", "alt+1"), b("alt+2", "screen 2", "alt+2"), b("alt+3", "screen 3", "alt+3"),
			b("alt+4", "screen 4", "alt+4"), b("alt+5", "screen 5", "alt+5"), b("alt+6", "screen 6", "alt+6"),
			b("alt+7", "screen 7", "alt+7"), b("alt+8", "screen 8", "alt+8"), b("alt+9", "screen 9", "alt+9"),
			b("alt+0", "screen 10", "alt+0"), b("alt+l", "screen 11", "alt+l"), b("alt+c", "screen 12", "alt+c"),
		},

		Up:       b("↑/k", "up", "up", "k"),
		Down:     b("↓/j", "down", "down", "j"),
		Left:     b("←/h", "left", "left", "h"),
		Right:    b("→/l", "right", "right", "l"),
		PageUp:   b("pgup", "page up", "pgup"),
		PageDown: b("pgdn", "page down", "pgdown"),
		Top:      b("g/home", "top", "g", "home"),
		Bottom:   b("G/end", "bottom", "G", "end"),
		Enter:    b("enter", "open", "enter"),
		Select:   b("space", "toggle", "space"),
		Filter:   b("/", "search", "/"),
		Tab:      b("tab", "next", "tab"),
		ShiftTab: b("shift+tab", "previous", "shift+tab"),

		Confirm: b("y/enter", "confirm", "y", "enter"),
		Cancel:  b("n/esc", "cancel", "n", "esc"),
	}
}

// Bind makes a binding with its help text: a page's keymap declares each
// of its bindings once with this, so its help never has to be rewritten
// at the place it is shown.
func Bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}
