package chat

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Chat page's own bindings, each with its help text. Some
// only describe what the input line understands (@, /).
type keyMap struct {
	// The input line.
	Send, Attach, Commands, ChooseAgent, CancelTurn, ToTurns key.Binding
	// The turns.
	Apply, Discard, Edit, ApplyAll, Expand, Context, OpenContext key.Binding
	Sessions, Type, Scroll                                       key.Binding
	// The sessions list.
	OpenSession, CloseSessions key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Send:        keymap.Bind("enter", "send", "enter"),
		Attach:      keymap.Bind("@path", "attach a file (completes)", "@"),
		Commands:    keymap.Bind("/", "commands: /help", "/"),
		ChooseAgent: keymap.Bind("@AGENT", "choose the agent", "@"),
		CancelTurn:  keymap.Bind("ctrl+c", "cancel turn", "ctrl+c"),
		ToTurns:     keymap.Bind("tab/esc", "to the turns", "tab", "esc"),

		Apply:       keymap.Bind("a", "apply", "a"),
		Discard:     keymap.Bind("x", "discard", "x"),
		Edit:        keymap.Bind("e", "edit in $EDITOR", "e"),
		ApplyAll:    keymap.Bind("A", "apply all of the turn", "A"),
		Expand:      keymap.Bind("enter", "tools", "enter"),
		Context:     keymap.Bind("p", "context (provenance)", "p"),
		OpenContext: keymap.Bind("o", "open the context on Knowledge", "o"),
		Sessions:    keymap.Bind("s", "sessions", "s"),
		Type:        keymap.Bind("tab", "type", "tab", "esc", "i"),
		Scroll:      keymap.Bind("pgup/pgdn", "scroll", "pgup", "pgdown"),

		OpenSession:   keymap.Bind("enter", "open", "enter"),
		CloseSessions: keymap.Bind("esc/s", "back", "esc", "s"),
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	switch m.focus {
	case focusTranscript:
		return []key.Binding{k.Apply, k.Discard, k.Edit, k.ApplyAll, k.Expand, k.Type}
	case focusSessions:
		return []key.Binding{m.c.KeyMap.Up, m.c.KeyMap.Down, k.OpenSession, k.CloseSessions}
	}
	return []key.Binding{k.Send, k.Attach, k.Commands, k.ToTurns, k.CancelTurn}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch m.focus {
	case focusTranscript:
		return [][]key.Binding{
			{km.Up, km.Down, km.Top, km.Bottom, k.Scroll},
			{k.Apply, k.Discard, k.Edit, k.ApplyAll, k.Expand},
			{k.Context, k.OpenContext, k.Sessions, k.Type},
		}
	case focusSessions:
		return [][]key.Binding{m.sessList.FullHelp()[0], {k.OpenSession, k.CloseSessions}}
	}
	return [][]key.Binding{
		{k.Send, k.Attach, k.Commands, k.ChooseAgent, k.CancelTurn, k.ToTurns},
		{k.Scroll},
	}
}
