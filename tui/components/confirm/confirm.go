// Package confirm is nova's yes/no dialog, shown before anything
// destructive. Open it with a question and an id; when the user answers it
// closes and sends a ResultMsg carrying the id and whatever payload the
// owner attached, so one screen can ask several questions.
//
//	y            yes
//	n, esc       no
//	enter        the focused button (No is focused first when Danger is set)
//	←/→, tab     move between the buttons
package confirm

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/tui/common"
)

// ResultMsg is sent when the dialog closes.
type ResultMsg struct {
	// ID is the id given to Open.
	ID string
	// Confirmed is true for yes.
	Confirmed bool
	// Payload is the value given to Open.
	Payload any
}

// Options describe one question.
type Options struct {
	// ID is returned in ResultMsg.
	ID string
	// Title is the dialog's heading; Body the question (may be several lines).
	Title, Body string
	// Yes and No label the buttons ("Yes", "No" when empty).
	Yes, No string
	// Danger focuses No first, so a stray enter does not destroy anything.
	Danger bool
	// Payload is handed back in ResultMsg.
	Payload any
}

// Model is the dialog.
type Model struct {
	c      *common.Common
	opts   Options
	open   bool
	yes    bool // the focused button
	width  int
	height int
}

// New returns a closed dialog.
func New(c *common.Common) *Model { return &Model{c: c} }

// Open shows the dialog.
func (m *Model) Open(o Options) {
	if o.Yes == "" {
		o.Yes = "Yes"
	}
	if o.No == "" {
		o.No = "No"
	}
	m.opts, m.open, m.yes = o, true, !o.Danger
}

// Close hides the dialog without an answer.
func (m *Model) Close() { m.open = false }

// Active reports whether the dialog is showing.
func (m *Model) Active() bool { return m.open }

// Options returns the question being asked.
func (m *Model) Options() Options { return m.opts }

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements common.Component (the area the dialog is centred in).
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

func (m *Model) answer(yes bool) tea.Cmd {
	m.open = false
	res := ResultMsg{ID: m.opts.ID, Confirmed: yes, Payload: m.opts.Payload}
	return func() tea.Msg { return res }
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || !m.open {
		return m, nil
	}
	km := m.c.KeyMap
	switch {
	case k.String() == "enter":
		return m, m.answer(m.yes)
	case k.String() == "y" || k.String() == "Y":
		return m, m.answer(true)
	case key.Matches(k, km.Cancel):
		return m, m.answer(false)
	case key.Matches(k, km.Left, km.Right, km.Tab, km.ShiftTab):
		m.yes = !m.yes
	}
	return m, nil
}

// boxWidth is the dialog's width for the area it was sized to.
func (m *Model) boxWidth() int { return min(64, max(30, m.width-8)) }

// View implements common.Component: the dialog box alone (lay it over the
// screen with common.Overlay).
func (m *Model) View() string {
	if !m.open {
		return ""
	}
	s := m.c.Styles
	w := m.boxWidth()
	inner := w - 6 // border and padding
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render(common.Truncate(m.opts.Title, inner)) + "\n\n")
	if m.opts.Body != "" {
		b.WriteString(s.Text.Render(lipgloss.Wrap(m.opts.Body, inner, " ")) + "\n\n")
	}
	yes, no := s.Button, s.ButtonActive
	if m.yes {
		yes, no = s.ButtonActive, s.Button
	}
	b.WriteString(yes.Render(m.opts.Yes) + "  " + no.Render(m.opts.No) + "\n\n")
	b.WriteString(s.Subtle.Render(common.Truncate(m.keysLine(), inner)))
	return s.Dialog.Width(w).Render(b.String())
}

// keysLine names what each key answers, enter included, so the safe
// default is visible: "y forget · n/esc keep · enter keep · ←/→ choose".
func (m *Model) keysLine() string {
	yes, no := strings.ToLower(m.opts.Yes), strings.ToLower(m.opts.No)
	focused := no
	if m.yes {
		focused = yes
	}
	return "y " + yes + " · n/esc " + no + " · enter " + focused + " · ←/→ choose"
}

// bindings are the dialog's keys with what they answer.
func (m *Model) bindings() (yes, no, enter key.Binding) {
	focused := m.opts.No
	if m.yes {
		focused = m.opts.Yes
	}
	return key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", strings.ToLower(m.opts.Yes))),
		key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", strings.ToLower(m.opts.No))),
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", strings.ToLower(focused)))
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	yes, no, enter := m.bindings()
	return []key.Binding{yes, no, enter}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	yes, no, enter := m.bindings()
	return [][]key.Binding{{yes, no, enter, key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "choose"))}}
}

var _ common.Component = (*Model)(nil)
