package library

import (
	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the Library screen's own bindings, each with its help text
// written once. Movement, back and refresh come from the shared keymap.
type keyMap struct {
	NextList, PrevList key.Binding
	// The lists.
	RunSkill, RunWorkflow, FindWorkflow, OpenRun, Resume, UseBlueprint key.Binding
	// A skill's result.
	RunAgain, Scroll key.Binding
	// A workflow run.
	OpenBuild, CancelRun key.Binding
	// A blueprint's preview.
	RunPRD, ToggleView, ChangeValues key.Binding
	// The form and the request box.
	FormRun, FormPreview, NextField, Close, OpenForm key.Binding
}

func newKeyMap() keyMap {
	b := keymap.Bind
	return keyMap{
		NextList: b("tab/→", "next list", "tab", "right"),
		PrevList: b("shift+tab/←", "previous list", "shift+tab", "left"),

		RunSkill:     b("r", "run skill", "r"),
		RunWorkflow:  b("r", "run workflow", "r"),
		FindWorkflow: b("/", "find workflow by request", "/"),
		OpenRun:      b("enter", "open run", "enter"),
		Resume:       b("R", "resume a run", "R"),
		UseBlueprint: b("u", "use blueprint: preview", "u", "p"),

		RunAgain: b("r", "run again", "r"),
		Scroll:   b("↑/↓", "scroll", "up", "down", "k", "j"),

		OpenBuild: b("enter", "open the step's build", "enter"),
		CancelRun: b("X", "cancel the run", "X"),

		RunPRD:       b("enter", "run this PRD", "enter"),
		ToggleView:   b("t", "preview: table or JSON", "t"),
		ChangeValues: b("u", "change values", "u"),

		FormRun:     b("enter", "run", "enter"),
		FormPreview: b("enter", "preview", "enter"),
		NextField:   b("tab", "next field", "tab"),
		Close:       b("esc", "close", "esc"),
		OpenForm:    b("enter", "open form", "enter"),
	}
}

// ShortHelp implements help.KeyMap: the keys of the page's state.
func (m *Model) ShortHelp() []key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.confirm.Active():
		return m.confirm.ShortHelp()
	case m.form != nil:
		submit := k.FormRun
		if m.form.kind == "blueprint" {
			submit = k.FormPreview
		}
		return []key.Binding{submit, k.NextField, k.Close}
	case m.request != nil:
		return []key.Binding{k.OpenForm, km.Down, km.Up, k.Close}
	}
	switch m.view {
	case viewSkillResult:
		return []key.Binding{k.RunAgain, k.Scroll, km.Back}
	case viewRun:
		return []key.Binding{km.Down, km.Up, k.OpenBuild, k.Resume, k.CancelRun, km.Back}
	case viewPreview:
		return []key.Binding{k.RunPRD, k.ToggleView, k.ChangeValues, km.Back}
	}
	keys := []key.Binding{k.NextList}
	switch m.pane {
	case paneSkills:
		keys = append(keys, k.RunSkill)
	case paneWorkflows:
		keys = append(keys, k.RunWorkflow, k.FindWorkflow)
	case paneRuns:
		keys = append(keys, k.OpenRun, k.Resume)
	case paneBlueprints:
		keys = append(keys, k.UseBlueprint)
	}
	return append(keys, km.Down, km.Up)
}

// FullHelp implements help.KeyMap: two columns, so that the help fits 80
// columns (the form and the dialogs show their own keys).
func (m *Model) FullHelp() [][]key.Binding {
	km, k := m.c.KeyMap, m.keys
	switch {
	case m.confirm.Active():
		return m.confirm.FullHelp()
	case m.form != nil, m.request != nil:
		return [][]key.Binding{m.ShortHelp()}
	}
	switch m.view {
	case viewSkillResult, viewPreview:
		return [][]key.Binding{m.ShortHelp(), {km.PageDown, km.PageUp}}
	case viewRun:
		return [][]key.Binding{
			{km.Down, km.Up, km.Top, km.Bottom, km.PageDown, km.PageUp},
			{k.OpenBuild, k.Resume, k.CancelRun, km.Back, km.Refresh},
		}
	}
	return [][]key.Binding{
		{k.NextList, k.PrevList, km.Down, km.Up, km.PageDown, km.PageUp, km.Top, km.Bottom, km.Refresh},
		{k.RunSkill, k.RunWorkflow, k.FindWorkflow, k.OpenRun, k.Resume, k.UseBlueprint, km.Back},
	}
}
