package importwiz

import (
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/nova-dev/nova/tui/keymap"
)

// keyMap is the import wizard's own bindings, each with its help text
// written once. Movement and back come from the shared keymap.
type keyMap struct {
	// Source step.
	Scan, TypePath, OpenDir, ParentDir, SwitchList key.Binding
	// The typed path.
	ScanTyped, Complete, PathBack key.Binding
	// Scan and import under way.
	CancelWork key.Binding
	// Preview: the table, its filter, a file's preview.
	Toggle, PreviewFile, Sort, Filter, NextStep, PreviewBack key.Binding
	KeepFilter, ClearFilter, DetailBack                      key.Binding
	// Options.
	Field, ToggleSwitch, StartImport, OptionsBack key.Binding
	// Summary.
	OpenVault, Undo, NewImport key.Binding
}

func newKeyMap() keyMap {
	b := keymap.Bind
	return keyMap{
		Scan:       b("enter", "scan the highlighted folder", "enter"),
		TypePath:   b("/ or ~", "type a path", "/", "~", "."),
		OpenDir:    b("→/l", "open folder", "right", "l"),
		ParentDir:  b("←/h/⌫", "parent folder", "left", "h", "backspace"),
		SwitchList: b("tab", "folders / recent sources", "tab", "shift+tab"),

		ScanTyped: b("enter", "scan the folder typed", "enter"),
		Complete:  b("tab", "complete the path", "tab"),
		PathBack:  b("esc", "back to the folders", "esc"),

		CancelWork: b("esc", "cancel (nothing is written)", "esc"),

		Toggle:      b("space", "include / exclude file", "space"),
		PreviewFile: b("enter", "preview file and node", "enter"),
		Sort:        b("o", "sort: "+strings.Join(sortNames, ", "), "o"),
		Filter:      b("/", "filter", "/"),
		NextStep:    b("tab", "next: options", "tab"),
		PreviewBack: b("esc", "back: source", "esc"),
		KeepFilter:  b("enter", "keep filter", "enter"),
		ClearFilter: b("esc", "clear filter", "esc"),
		DetailBack:  b("esc/enter", "back to the table", "esc", "enter"),

		Field:        b("↑/↓ tab", "move between fields", "up", "down", "tab", "shift+tab"),
		ToggleSwitch: b("space", "toggle switch", "space"),
		StartImport:  b("enter", "start the import", "enter"),
		OptionsBack:  b("esc", "back: preview", "esc"),

		OpenVault: b("v", "open in vault", "v"),
		Undo:      b("u", "undo this batch (asks first)", "u"),
		NewImport: b("enter/esc", "new import", "enter", "esc", "n"),
	}
}

// summaryKeys are the summary's keys that do something now: u only while
// the batch can still be undone (not after undoing it, for a dry run or
// read-only), as in the footer.
func (m *Model) summaryKeys() []key.Binding {
	k := m.keys
	keys := []key.Binding{k.OpenVault}
	if m.canUndo() {
		keys = append(keys, k.Undo)
	}
	return append(keys, k.NewImport)
}

// ShortHelp implements help.KeyMap: the keys of the wizard's step.
func (m *Model) ShortHelp() []key.Binding {
	k, km := m.keys, m.c.KeyMap
	switch m.step {
	case stepSource:
		if m.path.Focused() {
			return []key.Binding{k.ScanTyped, k.Complete, k.PathBack}
		}
		return []key.Binding{k.Scan, k.TypePath, k.OpenDir, k.ParentDir, k.SwitchList}
	case stepScan, stepImport:
		return []key.Binding{k.CancelWork}
	case stepPreview:
		if m.detail != nil {
			return []key.Binding{km.Up, km.Down, k.DetailBack}
		}
		if m.filtering {
			return []key.Binding{k.KeepFilter, k.ClearFilter}
		}
		return []key.Binding{k.Toggle, k.PreviewFile, k.Sort, k.Filter, k.NextStep, k.PreviewBack}
	case stepOptions:
		return []key.Binding{k.StartImport, k.ToggleSwitch, k.Field, k.OptionsBack}
	case stepSummary:
		return m.summaryKeys()
	}
	return nil
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k, km := m.keys, m.c.KeyMap
	switch m.step {
	case stepSource:
		if m.path.Focused() {
			return [][]key.Binding{{k.ScanTyped, k.Complete, k.PathBack}}
		}
		return [][]key.Binding{
			{k.Scan, k.OpenDir, k.ParentDir, k.TypePath},
			{km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom, k.SwitchList},
		}
	case stepScan, stepImport:
		return [][]key.Binding{{k.CancelWork}}
	case stepPreview:
		if m.detail != nil {
			return [][]key.Binding{{km.Up, km.Down, km.PageUp, km.PageDown, k.DetailBack}}
		}
		if m.filtering {
			return [][]key.Binding{{k.KeepFilter, k.ClearFilter}}
		}
		return [][]key.Binding{
			{k.Toggle, k.PreviewFile, k.Sort, k.Filter},
			{km.Up, km.Down, km.Top, km.Bottom, k.NextStep, k.PreviewBack},
		}
	case stepOptions:
		return [][]key.Binding{{k.Field, k.ToggleSwitch, k.StartImport}, {k.OptionsBack}}
	case stepSummary:
		return [][]key.Binding{m.summaryKeys(), {km.Up, km.Down, km.PageUp, km.PageDown}}
	}
	return nil
}
