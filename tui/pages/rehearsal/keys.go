package rehearsal

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Rehearsal page's own bindings, each with its help text.
type keyMap struct {
	// The session list.
	Review, NextFilter, PrevFilter key.Binding
	// The review.
	PrevBranch, NextBranch, Branch1, Branch2, Branch3 key.Binding
	NextFile, PrevFile, SyncScroll, SplitToggle       key.Binding
	Why, OpenKnowledge, Sessions                      key.Binding
	Approve, Reject, Regenerate                       key.Binding
	// The reason prompt of a rejection.
	RejectAll, CancelReject key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Review:     keymap.Bind("enter", "review", "enter"),
		NextFilter: keymap.Bind("tab", "next filter", "tab"),
		PrevFilter: keymap.Bind("shift+tab", "previous filter", "shift+tab"),

		PrevBranch:    keymap.Bind("←/h", "previous branch", "left", "h"),
		NextBranch:    keymap.Bind("→/l", "next branch", "right", "l"),
		Branch1:       keymap.Bind("1", "branch 1", "1"),
		Branch2:       keymap.Bind("2", "branch 2", "2"),
		Branch3:       keymap.Bind("3", "branch 3", "3"),
		NextFile:      keymap.Bind("tab", "next file", "tab"),
		PrevFile:      keymap.Bind("shift+tab", "previous file", "shift+tab"),
		SyncScroll:    keymap.Bind("y", "sync scroll", "y"),
		SplitToggle:   keymap.Bind("s", "split/unified", "s"),
		Why:           keymap.Bind("w", "why", "w"),
		OpenKnowledge: keymap.Bind("K", "open the injected knowledge", "K"),
		Sessions:      keymap.Bind("esc", "sessions", "esc"),
		Approve:       keymap.Bind("enter", "approve", "enter"),
		Reject:        keymap.Bind("x", "reject all", "x"),
		Regenerate:    keymap.Bind("r", "regenerate", "r"),

		RejectAll:    keymap.Bind("enter", "reject all", "enter"),
		CancelReject: keymap.Bind("esc", "cancel", "esc"),
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.dialog.Active():
		return m.dialog.ShortHelp()
	case m.rejecting:
		return []key.Binding{k.RejectAll, k.CancelReject}
	case m.sess == nil:
		return []key.Binding{k.Review, k.NextFilter}
	}
	return []key.Binding{k.PrevBranch, k.NextFile, k.Approve, k.Reject, k.Why}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.dialog.Active():
		return m.dialog.FullHelp()
	case m.rejecting:
		return [][]key.Binding{{k.RejectAll, k.CancelReject}}
	case m.sess == nil:
		return [][]key.Binding{m.list.FullHelp()[0], {k.Review, k.NextFilter, k.PrevFilter, km.Refresh}}
	}
	return [][]key.Binding{
		{k.PrevBranch, k.NextBranch, k.Branch1, k.Branch2, k.Branch3},
		{k.NextFile, k.PrevFile, km.Down, km.Up, km.PageDown, km.PageUp},
		{k.SyncScroll, k.SplitToggle, k.Why, k.OpenKnowledge, k.Sessions},
		{k.Approve, k.Reject, k.Regenerate},
	}
}
