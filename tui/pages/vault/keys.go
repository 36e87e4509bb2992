package vault

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Vault screen's own bindings, each with its help text
// written once. Movement, back, refresh and search (/) come from the
// shared keymap.
type keyMap struct {
	// Actions on the chosen node.
	Reinforce, Demote, Forget, Link, Tags key.Binding
	// Views: each key opens its view and closes it again.
	Graph, Conflicts, Archive             key.Binding
	CloseGraph, CloseConflicts, CloseArch key.Binding
	// HistoryBack returns to the place before a jump.
	HistoryBack key.Binding
	// Graph view: depth.
	DepthMore, DepthLess, Depth key.Binding

	// What enter, the arrows and tab do in each state (help text only
	// differs; the keys are the shared ones).
	OpenDetail, OpenNode, FollowLink, Restore key.Binding
	TypeTab, Side, ToList                     key.Binding
	ChooseLink, ChooseRow, ChoosePair         key.Binding
	SearchDone, SearchMove, SearchClear       key.Binding
	Save, Cancel                              key.Binding
	PickRelation, DoLink, PickBack            key.Binding
	PickChoose, Pick, PickCancel              key.Binding
}

func newKeyMap() *keyMap {
	b := keymap.Bind
	return &keyMap{
		Reinforce: b("+", "reinforce", "+", "="),
		Demote:    b("-", "demote", "-"),
		Forget:    b("d", "forget", "d"),
		Link:      b("L", "link", "L"),
		Tags:      b("t", "tags", "t"),

		Graph:          b("v", "graph", "v"),
		Conflicts:      b("c", "conflicts", "c"),
		Archive:        b("a", "archive", "a"),
		CloseGraph:     b("v", "close graph", "v"),
		CloseConflicts: b("c", "close conflicts", "c"),
		CloseArch:      b("a", "close archive", "a"),
		HistoryBack:    b("⌫/esc", "back", "backspace"),
		DepthMore:      b("+", "deeper", "+", "="),
		DepthLess:      b("-", "shallower", "-"),
		Depth:          b("1–5", "depth", "1", "2", "3", "4", "5"),

		OpenDetail: b("enter", "open detail", "enter"),
		OpenNode:   b("enter", "open node", "enter"),
		FollowLink: b("enter", "follow link", "enter"),
		Restore:    b("enter", "restore (asks)", "enter"),
		TypeTab:    b("←/→", "type tab", "left", "right"),
		Side:       b("←/→", "side", "left", "right"),
		ToList:     b("tab", "to the list", "tab"),
		ChooseLink: b("↑/↓", "choose link", "up", "down"),
		ChooseRow:  b("↑/↓", "choose", "up", "down"),
		ChoosePair: b("↑/↓", "pair", "up", "down"),

		SearchDone:  b("enter", "done", "enter"),
		SearchMove:  b("↑/↓", "move", "up", "down"),
		SearchClear: b("esc", "clear search", "esc"),
		Save:        b("enter", "save", "enter"),
		Cancel:      b("esc", "cancel", "esc"),

		PickRelation: b("↑/↓", "relation", "up", "down"),
		DoLink:       b("enter", "link", "enter"),
		PickBack:     b("esc", "back", "esc"),
		PickChoose:   b("↑/↓", "choose", "up", "down"),
		Pick:         b("enter", "pick", "enter"),
		PickCancel:   b("esc", "cancel", "esc"),
	}
}

// ShortHelp implements help.KeyMap: the keys of the page's state.
func (m *Model) ShortHelp() []key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.confirm.Active():
		return m.confirm.ShortHelp()
	case m.picker.active():
		return m.picker.ShortHelp()
	case m.tags.open:
		return []key.Binding{k.Save, k.Cancel}
	case m.browse.list.capturing():
		return []key.Binding{k.SearchDone, k.SearchMove, k.SearchClear}
	case m.view == viewGraph:
		return []key.Binding{k.OpenNode, k.DepthMore, k.DepthLess, k.CloseGraph}
	case m.view == viewConflicts:
		return []key.Binding{k.Side, k.OpenNode, km.Back}
	case m.view == viewArchive:
		return []key.Binding{k.ChooseRow, k.Restore, k.CloseArch}
	case m.browse.focusDetail:
		return []key.Binding{k.FollowLink, k.HistoryBack, k.Graph, k.Reinforce}
	}
	return []key.Binding{km.Filter, k.TypeTab, k.OpenDetail, k.Graph, k.Reinforce, k.Forget}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	actions := []key.Binding{k.Reinforce, k.Demote, k.Forget, k.Link, k.Tags}
	views := []key.Binding{k.Graph, k.Conflicts, k.Archive, km.Filter, km.Refresh}
	switch {
	case m.confirm.Active():
		return m.confirm.FullHelp()
	case m.picker.active():
		return [][]key.Binding{m.picker.ShortHelp()}
	case m.tags.open:
		return [][]key.Binding{{k.Save, k.Cancel}}
	case m.view == viewGraph:
		return [][]key.Binding{
			{km.Up, km.Down, km.PageUp, km.PageDown, k.OpenNode},
			{k.DepthMore, k.DepthLess, k.Depth, k.HistoryBack},
			{k.CloseGraph, k.Conflicts, k.Forget, k.Link, k.Tags},
		}
	case m.view == viewConflicts:
		return [][]key.Binding{
			{k.ChoosePair, km.PageUp, km.PageDown, km.Top, km.Bottom, k.Side, k.OpenNode, k.HistoryBack},
			actions,
			{k.CloseConflicts, k.Graph, km.Refresh},
		}
	case m.view == viewArchive:
		return [][]key.Binding{
			{k.ChooseRow, km.PageUp, km.PageDown, km.Top, km.Bottom},
			{k.Restore, k.CloseArch, k.HistoryBack, km.Refresh},
		}
	case m.browse.focusDetail:
		return [][]key.Binding{
			{k.ChooseLink, km.Top, km.Bottom, k.FollowLink, k.HistoryBack, k.ToList, km.PageUp, km.PageDown},
			actions, views,
		}
	}
	return [][]key.Binding{
		{km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom},
		{k.TypeTab, k.OpenDetail, km.Filter, k.SearchClear},
		actions, {k.Graph, k.Conflicts, k.Archive, km.Refresh},
	}
}
