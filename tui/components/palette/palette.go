// Package palette is the command palette (ctrl+p): a filterable list of
// pages and actions.
package palette

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/tui/common"
)

// Item is one command.
type Item struct {
	Group string // "Go to", "Theme", "Action"
	Title string
	Hint  string
	Msg   tea.Msg // sent when chosen
}

// ClosedMsg says the palette closed (Chosen is nil when cancelled).
type ClosedMsg struct{ Chosen *Item }

// Model is the palette.
type Model struct {
	c        *common.Common
	input    textinput.Model
	items    []Item
	filtered []Item
	cursor   int
	width    int
	height   int
}

// New builds a palette over items.
func New(c *common.Common, items []Item) *Model {
	in := textinput.New()
	in.Placeholder = "type to filter commands…"
	in.Prompt = "› "
	in.SetStyles(c.Styles.TextInput)
	m := &Model{c: c, input: in, items: items}
	m.refilter()
	return m
}

// SetItems replaces the commands.
func (m *Model) SetItems(items []Item) { m.items = items; m.refilter() }

// Open focuses the input with filter typed in ("" = every command).
func (m *Model) Open(filter string) tea.Cmd {
	m.input.SetValue(filter)
	m.input.CursorEnd()
	m.input.SetStyles(m.c.Styles.TextInput)
	m.cursor = 0
	m.refilter()
	return m.input.Focus()
}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.input.SetWidth(max(10, m.boxWidth()-6))
}

func (m *Model) boxWidth() int { return min(72, max(40, m.width-8)) }

func (m *Model) refilter() {
	q := strings.ToLower(strings.TrimSpace(m.input.Value()))
	m.filtered = m.filtered[:0]
	for _, it := range m.items {
		hay := strings.ToLower(it.Group + " " + it.Title + " " + it.Hint)
		if q == "" || allWords(hay, q) {
			m.filtered = append(m.filtered, it)
		}
	}
	if m.cursor >= len(m.filtered) {
		m.cursor = max(0, len(m.filtered)-1)
	}
}

func allWords(hay, q string) bool {
	for _, w := range strings.Fields(q) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	km := m.c.KeyMap
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, km.Back):
			return m, func() tea.Msg { return ClosedMsg{} }
		case k.String() == "enter":
			if len(m.filtered) == 0 {
				return m, nil
			}
			it := m.filtered[m.cursor]
			return m, func() tea.Msg { return ClosedMsg{Chosen: &it} }
		case k.String() == "up" || k.String() == "ctrl+k":
			if m.cursor > 0 {
				m.cursor--
			}
			return m, nil
		case k.String() == "down" || k.String() == "ctrl+j":
			if m.cursor < len(m.filtered)-1 {
				m.cursor++
			}
			return m, nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.refilter()
	return m, cmd
}

// View implements common.Component.
func (m *Model) View() string {
	s := m.c.Styles
	w := m.boxWidth()
	inner := w - 6
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render("Commands") + "\n")
	b.WriteString(m.input.View() + "\n\n")
	maxRows := max(3, min(14, m.height-10))
	start := 0
	if m.cursor >= maxRows {
		start = m.cursor - maxRows + 1
	}
	if len(m.filtered) == 0 {
		b.WriteString(s.Muted.Render("no command matches"))
	}
	for i := start; i < len(m.filtered) && i < start+maxRows; i++ {
		it := m.filtered[i]
		label := fmt.Sprintf("%-8s %s", it.Group, it.Title)
		hint := it.Hint
		room := inner - lipgloss.Width(label) - 2
		line := common.Truncate(label, inner)
		if room > 4 && hint != "" {
			line = label + strings.Repeat(" ", max(1, room-lipgloss.Width(common.Truncate(hint, room))+2)) + common.Truncate(hint, room)
		}
		if i == m.cursor {
			b.WriteString(s.Selected.Width(inner).Render(line))
		} else {
			b.WriteString(s.Text.Render(line))
		}
		if i < start+maxRows-1 && i < len(m.filtered)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString("\n\n" + s.Subtle.Render("↑/↓ move · enter run · esc close"))
	return s.Dialog.Width(w).Render(b.String())
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.c.KeyMap.Up, m.c.KeyMap.Down, m.c.KeyMap.Enter, m.c.KeyMap.Back}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// Len returns the number of matching items (for tests).
func (m *Model) Len() int { return len(m.filtered) }
