package build

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Build page's own bindings, each with its help text.
type keyMap struct {
	NewBuild, Builds, Pause, Cancel, Answer key.Binding
	NextFocus, PrevFocus, Tasks             key.Binding
	// Enter on the tasks and on the provenance; K: all the knowledge.
	OpenProvenance, OpenSource, AllKnowledge key.Binding
	// The PRD picker and its path field.
	StartBuild, TypePath, ClosePicker, Complete, BackToList key.Binding
	// The builds list.
	ShowBuild, CloseBuilds key.Binding
	// The question of a task that asks the user.
	SendAnswer, KeepWaiting key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		NewBuild:  keymap.Bind("n", "new build", "n"),
		Builds:    keymap.Bind("b", "switch build", "b"),
		Pause:     keymap.Bind("p", "pause/resume", "p"),
		Cancel:    keymap.Bind("X", "cancel build", "X"),
		Answer:    keymap.Bind("a", "answer a task that asks you", "a"),
		NextFocus: keymap.Bind("tab", "tasks → provenance → output", "tab"),
		PrevFocus: keymap.Bind("shift+tab", "previous pane", "shift+tab"),
		Tasks:     keymap.Bind("esc", "back to tasks", "esc"),

		OpenProvenance: keymap.Bind("enter", "open provenance", "enter"),
		OpenSource:     keymap.Bind("enter", "jump to source", "enter"),
		AllKnowledge:   keymap.Bind("K", "the task's knowledge on the Knowledge screen", "K"),

		StartBuild:  keymap.Bind("enter", "start build", "enter"),
		TypePath:    keymap.Bind("/ or ~", "any PRD file by its path", "/", "~", "."),
		ClosePicker: keymap.Bind("esc", "close", "esc"),
		Complete:    keymap.Bind("tab", "complete the path", "tab"),
		BackToList:  keymap.Bind("esc", "back to the list", "esc"),

		ShowBuild:   keymap.Bind("enter", "show build", "enter"),
		CloseBuilds: keymap.Bind("esc/b", "close", "esc", "b"),

		SendAnswer:  keymap.Bind("enter", "answer", "enter"),
		KeepWaiting: keymap.Bind("esc", "keep waiting", "esc"),
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.ask.open:
		return []key.Binding{k.SendAnswer, k.KeepWaiting}
	case m.confirm.Active():
		return m.confirm.ShortHelp()
	case m.mode == modePicker && m.prdPath.Focused():
		return []key.Binding{k.StartBuild, k.Complete, k.BackToList}
	case m.mode == modePicker:
		return []key.Binding{km.Down, km.Up, k.StartBuild, k.TypePath, k.ClosePicker}
	case m.mode == modeBuilds:
		return []key.Binding{km.Down, km.Up, k.ShowBuild, k.CloseBuilds}
	case m.focus == focusProvenance:
		return []key.Binding{km.Down, km.Up, k.OpenSource, k.AllKnowledge, k.NextFocus}
	}
	return []key.Binding{k.NewBuild, k.Pause, k.Cancel, k.Builds, k.NextFocus}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.ask.open:
		return [][]key.Binding{{k.SendAnswer, k.KeepWaiting}}
	case m.confirm.Active():
		return m.confirm.FullHelp()
	case m.mode == modePicker && m.prdPath.Focused():
		return [][]key.Binding{{k.StartBuild, k.Complete, k.BackToList}}
	case m.mode == modePicker:
		return [][]key.Binding{m.prdList.FullHelp()[0], {k.StartBuild, k.TypePath, k.ClosePicker, km.Refresh}}
	case m.mode == modeBuilds:
		return [][]key.Binding{m.buildList.FullHelp()[0], {k.ShowBuild, k.CloseBuilds}}
	}
	open := k.OpenProvenance
	if m.focus == focusProvenance {
		open = k.OpenSource
	}
	return [][]key.Binding{
		{km.Down, km.Up, km.PageDown, km.PageUp, km.Top, km.Bottom},
		{k.NextFocus, k.PrevFocus, open, k.AllKnowledge, k.Tasks},
		{k.NewBuild, k.Builds, k.Pause, k.Cancel, km.Refresh},
		{k.Answer},
	}
}
