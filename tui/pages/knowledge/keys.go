package knowledge

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Knowledge screen's own bindings, each with its help text
// written once. Movement, back and refresh come from the shared keymap.
type keyMap struct {
	// Facts.
	Correct, Invalidate, Promote, Keep, AddFact, ShowClosed, ScopeFilter key.Binding
	// Docs.
	RefreshDoc, RemoveDoc, ClearDocs, FetchDoc key.Binding
	// Moving between panes and opening.
	NextPane, Search, Open, Close, DetailSide key.Binding
	// The detail pane.
	Scroll, FollowChain key.Binding
	// The search field.
	OpenBest, ToResults, Done key.Binding
	// The forms.
	Save, Field, Cancel, PromoteTo, PromoteScope key.Binding
}

func newKeyMap() keyMap {
	b := keymap.Bind
	return keyMap{
		Correct:     b("c", "correct a fact", "c"),
		Invalidate:  b("x", "invalidate a fact", "x"),
		Promote:     b("p", "promote it outward", "p"),
		Keep:        b("u", "keep (unarchive)", "u"),
		AddFact:     b("a", "add fact", "a"),
		ShowClosed:  b("i", "show closed facts", "i"),
		ScopeFilter: b("s", "cycle the scope", "s"),

		RefreshDoc: b("r", "refresh a doc", "r"),
		RemoveDoc:  b("d", "remove a doc", "d"),
		ClearDocs:  b("D", "clear the cache", "D"),
		FetchDoc:   b("f", "fetch docs", "f"),

		NextPane:   b("tab", "next pane", "tab"),
		Search:     b("/", "search", "/"),
		Open:       b("enter", "open", "enter"),
		Close:      b("esc", "close / clear", "esc"),
		DetailSide: b("→/←", "detail ⇄ list (wide)", "right", "left"),

		Scroll:      b("↑/↓", "scroll", "up", "down"),
		FollowChain: b("enter", "follow chain", "enter"),

		OpenBest:  b("enter", "open best", "enter"),
		ToResults: b("↓", "results", "down"),
		Done:      b("esc", "done", "esc"),

		Save:         b("enter", "save", "enter"),
		Field:        b("tab", "field", "tab"),
		Cancel:       b("esc", "cancel", "esc"),
		PromoteTo:    b("enter", "promote", "enter"),
		PromoteScope: b("←/→", "scope", "left", "right"),
	}
}

// ShortHelp implements help.KeyMap: the keys of the page's state.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.conf.Active():
		return m.conf.ShortHelp()
	case m.form != nil && m.form.kind == formPromote:
		return []key.Binding{k.PromoteScope, k.PromoteTo, k.Cancel}
	case m.form != nil:
		return []key.Binding{k.Save, k.Field, k.Cancel}
	case m.input.Focused():
		return []key.Binding{k.OpenBest, k.ToResults, k.Done}
	case m.det != nil && (m.focus || !m.wide()):
		b := []key.Binding{k.Scroll, k.Close}
		switch {
		case m.det.item.Fact != nil && m.pane == paneFacts:
			b = append(b, k.FollowChain, k.Correct, k.Invalidate, k.Promote)
		case m.det.item.Fact != nil:
			b = append(b, k.FollowChain)
		case m.det.item.Docs != nil && m.pane == paneDocs:
			b = append(b, k.RefreshDoc, k.RemoveDoc)
		}
		return b
	}
	switch m.pane {
	case paneFacts:
		return []key.Binding{k.NextPane, k.Open, k.Correct, k.Invalidate, k.Promote, k.AddFact, k.ShowClosed, k.ScopeFilter}
	case paneDocs:
		return []key.Binding{k.NextPane, k.Open, k.RefreshDoc, k.RemoveDoc, k.ClearDocs, k.FetchDoc}
	}
	return []key.Binding{k.Search, k.Open, k.NextPane}
}

// FullHelp implements help.KeyMap: the active pane's actions first (they
// are what fits at 80 columns), then moving around, then the other panes'.
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.conf.Active():
		return m.conf.FullHelp()
	case m.form != nil || m.input.Focused():
		return [][]key.Binding{m.ShortHelp()}
	}
	general := []key.Binding{k.NextPane, k.Search, k.Open, k.Close, k.DetailSide, km.Refresh}
	factKeys := []key.Binding{k.Correct, k.Invalidate, k.Promote, k.Keep, k.AddFact, k.ShowClosed, k.ScopeFilter}
	docKeys := []key.Binding{k.RefreshDoc, k.RemoveDoc, k.ClearDocs, k.FetchDoc}
	moves := []key.Binding{km.Down, km.Up, km.PageDown, km.PageUp, km.Top, km.Bottom}
	switch m.pane {
	case paneFacts:
		return [][]key.Binding{factKeys, general, moves, docKeys}
	case paneDocs:
		return [][]key.Binding{docKeys, general, moves, factKeys}
	}
	return [][]key.Binding{general, moves, factKeys, docKeys}
}
