package playbooks

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Playbooks screen's own bindings, each with its help text
// written once. Movement, back and refresh come from the shared keymap.
type keyMap struct {
	NextView, PrevView    key.Binding
	Agents, Panel         key.Binding
	Filter, Sort          key.Binding
	Add, Edit, Delete     key.Binding
	Approve, Reject       key.Binding
	KeepFilter, ClearFilt key.Binding
	Save, Field, Cancel   key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		NextView:   keymap.Bind("tab", "next view", "tab"),
		PrevView:   keymap.Bind("shift+tab", "previous view", "shift+tab"),
		Agents:     keymap.Bind("←/h", "agents", "left", "h"),
		Panel:      keymap.Bind("→/enter", "rules/history/pending", "right", "l", "enter"),
		Filter:     keymap.Bind("/", "filter rules", "/"),
		Sort:       keymap.Bind("o", "sort rules", "o"),
		Add:        keymap.Bind("n", "add rule", "n"),
		Edit:       keymap.Bind("e", "edit rule", "e"),
		Delete:     keymap.Bind("d", "delete rule", "d"),
		Approve:    keymap.Bind("enter", "approve", "enter"),
		Reject:     keymap.Bind("x", "reject", "x"),
		KeepFilter: keymap.Bind("enter", "keep filter", "enter"),
		ClearFilt:  keymap.Bind("esc", "clear", "esc"),
		Save:       keymap.Bind("enter", "save", "enter"),
		Field:      keymap.Bind("tab", "field", "tab", "shift+tab"),
		Cancel:     keymap.Bind("esc", "cancel", "esc"),
	}
}

// ShortHelp implements help.KeyMap: the keys of the page's state.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.confirm.Active():
		return m.confirm.ShortHelp()
	case m.form != nil:
		return []key.Binding{k.Save, k.Field, k.Cancel}
	case m.rules.filterOn:
		return []key.Binding{k.KeepFilter, k.ClearFilt}
	case m.view == viewPending:
		return []key.Binding{k.Approve, k.Reject, k.NextView}
	}
	return []key.Binding{k.NextView, k.Filter, k.Sort, k.Add, k.Edit, k.Delete}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k, km := m.keys, m.c.KeyMap
	switch {
	case m.confirm.Active():
		return m.confirm.FullHelp()
	case m.form != nil:
		return [][]key.Binding{{k.Save, k.Field, k.Cancel}}
	case m.rules.filterOn:
		return [][]key.Binding{{k.KeepFilter, k.ClearFilt}}
	}
	return [][]key.Binding{
		{km.Down, km.Up, km.PageDown, km.PageUp, km.Top, km.Bottom},
		{k.Agents, k.Panel, k.NextView, k.PrevView, k.Filter, k.Sort, km.Refresh},
		{k.Add, k.Edit, k.Delete, k.Approve, k.Reject},
	}
}
