package chat

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Chat page's own bindings, each with its help text. Some
// only describe what the input line understands (@, /).
type keyMap struct {
	// The input line.
	Send, Attach, Commands, ChooseAgent, CancelTurn, ToTurns key.Binding
	// Help is ? on an empty input line (on a typed one it is a character).
	Help key.Binding
	// A command the turn's agent wants to run.
	Allow, Deny key.Binding
	// The turns.
	Apply, Discard, Edit, ApplyAll, Expand, Context, OpenContext key.Binding
	Sessions, Type, Scroll                                       key.Binding
	// Turns only describes the navigation keys over the turns.
	Turns key.Binding
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
		Help:        keymap.Bind("?", "help (empty line)", "?"),
		Allow:       keymap.Bind("y", "allow", "y"),
		Deny:        keymap.Bind("n", "deny", "n"),

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
		Turns:       keymap.Bind("↑/↓", "turns", "up", "down"),

		OpenSession:   keymap.Bind("enter", "open", "enter"),
		CloseSessions: keymap.Bind("esc/s", "back", "esc", "s"),
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	if m.approval != nil {
		return []key.Binding{k.Allow, k.Deny}
	}
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
	if m.approval != nil {
		return [][]key.Binding{{k.Allow, k.Deny}}
	}
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
		{k.Scroll, k.Help},
	}
}

// hintKeys are the keys the hint line under the input names in the page's
// state, most useful first (the line drops what does not fit).
func (m *Model) hintKeys() []key.Binding {
	k := m.keys
	switch m.focus {
	case focusTranscript:
		if _, cs, ok := m.selected(); ok && cs.Status == chg.StatusPending {
			return []key.Binding{k.Apply, k.Discard, k.Edit, k.ApplyAll, k.Expand, k.Context, k.Type}
		}
		return []key.Binding{k.Turns, k.Expand, k.Context, k.Sessions, k.Type, k.OpenContext, m.c.KeyMap.Help}
	case focusSessions:
		return []key.Binding{k.OpenSession, k.CloseSessions}
	}
	return []key.Binding{k.Send, k.ToTurns, k.Attach, k.Commands, k.Help}
}

// hint writes bindings as "key what · key what", as many whole ones as
// fit in w cells.
func hint(w int, keys ...key.Binding) string {
	var b strings.Builder
	for _, k := range keys {
		h := k.Help()
		part := h.Key + " " + h.Desc
		if b.Len() > 0 {
			part = " · " + part
		}
		if b.Len() > 0 && lipgloss.Width(b.String()+part) > w {
			break
		}
		b.WriteString(part)
	}
	return b.String()
}
