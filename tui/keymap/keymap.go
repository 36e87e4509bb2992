// Package keymap is nova's one keymap: every binding the TUI knows, built by
// DefaultKeyMap and matched with key.Matches. Screens list the bindings they
// use in their help.KeyMap.
package keymap

import (
	"fmt"

	"charm.land/bubbles/v2/key"
)

// KeyMap holds every key binding.
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

	// Actions used by several screens.
	Reinforce, Demote, Delete, Link, Tags, Graph, Conflicts    key.Binding
	Apply, Discard, Approve, Reject, Regenerate, SplitToggle   key.Binding
	Why, SyncScroll, Pause, Cancelrun, New, Edit, Sort, Branch key.Binding
	Jump1, Jump2, Jump3                                        key.Binding

	// Build screen: answer a task that asks the user.
	Answer key.Binding

	// Changes screen: undo an applied changeset.
	Revert key.Binding

	// Library screen: run a skill or workflow, resume a workflow run, use a
	// blueprint (render it to a preview), switch the preview between the
	// task table and the JSON.
	Run, Resume, Use, ToggleView key.Binding

	// Knowledge screen: facts (correct, invalidate, promote, keep, add, show
	// closed facts, cycle the scope filter) and the docs cache (refresh,
	// remove, clear all, fetch). OpenKnowledge opens the knowledge injected
	// into a prompt (Rehearsal "why" panel).
	Correct, Invalidate, Promote, Keep, AddFact, ShowClosed, ScopeFilter key.Binding
	RefreshDoc, RemoveDoc, ClearDocs, FetchDoc, OpenKnowledge            key.Binding

	// Vault browser: history back (after jumping to a neighbour), the
	// graph view's depth and the archive.
	HistoryBack, DepthMore, DepthLess, Depth, Archive key.Binding

	// Import wizard: folder navigation, the next step, and the summary's
	// actions.
	OpenDir, ParentDir, NextStep, OpenVault, UndoImport key.Binding
	// TypePath opens a path field (the import wizard's folder, the Build
	// screen's PRD): / starts an absolute path, ~ the home folder.
	TypePath key.Binding
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

		Reinforce:   b("+", "reinforce", "+", "="),
		Demote:      b("-", "demote", "-"),
		Delete:      b("d", "delete", "d"),
		Link:        b("L", "link", "L"),
		Tags:        b("t", "tags", "t"),
		Graph:       b("v", "graph", "v"),
		Conflicts:   b("c", "conflicts", "c"),
		Apply:       b("a", "apply", "a"),
		Discard:     b("x", "discard", "x"),
		Approve:     b("enter", "approve", "enter"),
		Reject:      b("x", "reject", "x"),
		Regenerate:  b("r", "regenerate", "r"),
		SplitToggle: b("s", "split/unified", "s"),
		Why:         b("w", "why", "w"),
		SyncScroll:  b("y", "sync scroll", "y"),
		Pause:       b("p", "pause/resume", "p"),
		Cancelrun:   b("X", "cancel run", "X"),
		New:         b("n", "new", "n"),
		Edit:        b("e", "edit", "e"),
		Sort:        b("o", "sort", "o"),
		Branch:      b("b", "branch", "b"),
		Jump1:       b("1", "branch 1", "1"),
		Jump2:       b("2", "branch 2", "2"),
		Jump3:       b("3", "branch 3", "3"),
		Answer:      b("a", "answer", "a"),
		Run:         b("r", "run", "r"),
		Resume:      b("R", "resume", "R"),
		Use:         b("u", "use", "u"),
		ToggleView:  b("t", "table/json", "t"),
		Revert:      b("R", "revert", "R"),

		Correct:       b("c", "correct", "c"),
		Invalidate:    b("x", "invalidate", "x"),
		Promote:       b("p", "promote", "p"),
		Keep:          b("u", "keep/restore", "u"),
		AddFact:       b("a", "add fact", "a"),
		ShowClosed:    b("i", "show closed", "i"),
		ScopeFilter:   b("s", "scope", "s"),
		RefreshDoc:    b("r", "refresh", "r"),
		RemoveDoc:     b("d", "remove", "d"),
		ClearDocs:     b("D", "clear all", "D"),
		FetchDoc:      b("f", "fetch", "f"),
		OpenKnowledge: b("K", "open knowledge", "K"),

		HistoryBack: b("⌫/esc", "back", "backspace"),
		DepthMore:   b("+", "deeper", "+", "="),
		DepthLess:   b("-", "shallower", "-"),
		Depth:       b("1–5", "depth", "1", "2", "3", "4", "5"),
		Archive:     b("a", "archive", "a"),

		OpenDir:    b("→/l", "open folder", "right", "l"),
		ParentDir:  b("←/h/⌫", "parent folder", "left", "h", "backspace"),
		NextStep:   b("tab", "next step", "tab"),
		OpenVault:  b("v", "open in vault", "v"),
		UndoImport: b("u", "undo import", "u"),
		TypePath:   b("/ or ~", "type a path", "/", "~", "."),
	}
}

// MoveCursor moves a list cursor over n rows by the navigation keys: up and
// down by one, page up and down by page rows, top and bottom. It returns
// the new cursor, kept within the list (0 when it is empty), and whether msg
// was one of those keys.
func (k *KeyMap) MoveCursor(msg fmt.Stringer, sel, n, page int) (int, bool) {
	switch {
	case key.Matches(msg, k.Down):
		sel++
	case key.Matches(msg, k.Up):
		sel--
	case key.Matches(msg, k.PageDown):
		sel += page
	case key.Matches(msg, k.PageUp):
		sel -= page
	case key.Matches(msg, k.Top):
		sel = 0
	case key.Matches(msg, k.Bottom):
		sel = n - 1
	default:
		return sel, false
	}
	return max(0, min(sel, n-1)), true
}

// Bind makes a binding with its help text: a page's keymap declares each
// of its bindings once with this, so its help never has to be rewritten
// at the place it is shown.
func Bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}
