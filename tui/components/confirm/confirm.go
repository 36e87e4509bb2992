// Package confirm is nova's yes/no dialog, shown before anything
// destructive. Open it with a question and an id; when the user answers it
// closes and sends a ResultMsg carrying the id and whatever payload the
// owner attached, so one screen can ask several questions.
//
//	y            yes
//	n, esc       no
//	AltKey       the third choice, when the dialog has one (Alt)
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
	// Alt is true for the third choice (Options.Alt); Confirmed is false
	// then.
	Alt bool
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
	// Alt labels an optional third button, shown first, chosen with AltKey
	// (a single key such as "h") or enter when focused.
	Alt, AltKey string
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
	focus  int // the focused button: choiceAlt, choiceYes, choiceNo
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
	m.opts, m.open, m.focus = o, true, choiceYes
	if o.Danger {
		m.focus = choiceNo
	}
}

// The buttons, left to right (choiceAlt only when Options.Alt is set).
const (
	choiceAlt = iota
	choiceYes
	choiceNo
)

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

func (m *Model) answer(choice int) tea.Cmd {
	m.open = false
	res := ResultMsg{ID: m.opts.ID, Confirmed: choice == choiceYes, Alt: choice == choiceAlt, Payload: m.opts.Payload}
	return func() tea.Msg { return res }
}

// move shifts the focus by d buttons, wrapping.
func (m *Model) move(d int) {
	first := choiceYes
	if m.opts.Alt != "" {
		first = choiceAlt
	}
	n := choiceNo - first + 1
	m.focus = first + ((m.focus-first+d)%n+n)%n
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
		return m, m.answer(m.focus)
	case m.opts.Alt != "" && m.opts.AltKey != "" && k.String() == m.opts.AltKey:
		return m, m.answer(choiceAlt)
	case k.String() == "y" || k.String() == "Y":
		return m, m.answer(choiceYes)
	case key.Matches(k, km.Cancel):
		return m, m.answer(choiceNo)
	case key.Matches(k, km.Left, km.ShiftTab):
		m.move(-1)
	case key.Matches(k, km.Right, km.Tab):
		m.move(1)
	}
	return m, nil
}

// boxWidth is the dialog's width for the area it was sized to.
func (m *Model) boxWidth() int { return min(64, max(30, m.width-8)) }

// View implements common.Component: the dialog box alone (lay it over the
// screen with common.Overlay). A body too tall for the area keeps its first
// lines and ends in "…": the title, the buttons and the keys always show.
func (m *Model) View() string {
	if !m.open {
		return ""
	}
	inner := m.boxWidth() - 6 // border and padding
	body := lipgloss.Wrap(m.opts.Body, inner, " ")
	out := m.render(body)
	if over := lipgloss.Height(out) - m.height; m.height > 0 && over > 0 && body != "" {
		lines := strings.Split(body, "\n")
		keep := max(0, len(lines)-over-1) // one line for the "…"
		out = m.render(strings.Join(append(lines[:keep:keep], "…"), "\n"))
	}
	return out
}

// render draws the dialog around an already wrapped body.
func (m *Model) render(body string) string {
	s := m.c.Styles
	w := m.boxWidth()
	inner := w - 6
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render(common.Truncate(m.opts.Title, inner)) + "\n\n")
	if body != "" {
		b.WriteString(s.Text.Render(body) + "\n\n")
	}
	button := func(choice int, label string) string {
		if m.focus == choice {
			return s.ButtonActive.Render(label)
		}
		return s.Button.Render(label)
	}
	if m.opts.Alt != "" {
		b.WriteString(button(choiceAlt, m.opts.Alt) + "  ")
	}
	b.WriteString(button(choiceYes, m.opts.Yes) + "  " + button(choiceNo, m.opts.No) + "\n\n")
	b.WriteString(s.Subtle.Render(common.Truncate(m.keysLine(), inner)))
	return s.Dialog.Width(w).Render(b.String())
}

// keysLine names what each key answers, enter included, so the safe
// default is visible: "y forget · n/esc keep · enter keep · ←/→ choose".
func (m *Model) keysLine() string {
	yes, no := strings.ToLower(m.opts.Yes), strings.ToLower(m.opts.No)
	line := "y " + yes + " · n/esc " + no + " · enter " + strings.ToLower(m.focused()) + " · ←/→ choose"
	if m.opts.Alt != "" {
		line = m.opts.AltKey + " " + strings.ToLower(m.opts.Alt) + " · " + line
	}
	return line
}

// focused is the label of the focused button (what enter answers).
func (m *Model) focused() string {
	switch m.focus {
	case choiceAlt:
		return m.opts.Alt
	case choiceYes:
		return m.opts.Yes
	}
	return m.opts.No
}

// bindings are the dialog's keys with what they answer.
func (m *Model) bindings() (yes, no, enter key.Binding) {
	focused := m.focused()
	return key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", strings.ToLower(m.opts.Yes))),
		key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", strings.ToLower(m.opts.No))),
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", strings.ToLower(focused)))
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	yes, no, enter := m.bindings()
	if alt, ok := m.altBinding(); ok {
		return []key.Binding{alt, yes, no, enter}
	}
	return []key.Binding{yes, no, enter}
}

// altBinding is the third button's key, when there is one.
func (m *Model) altBinding() (key.Binding, bool) {
	if m.opts.Alt == "" {
		return key.Binding{}, false
	}
	return key.NewBinding(key.WithKeys(m.opts.AltKey), key.WithHelp(m.opts.AltKey, strings.ToLower(m.opts.Alt))), true
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	yes, no, enter := m.bindings()
	keys := []key.Binding{yes, no, enter, key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "choose"))}
	if alt, ok := m.altBinding(); ok {
		keys = append([]key.Binding{alt}, keys...)
	}
	return [][]key.Binding{keys}
}

var _ common.Component = (*Model)(nil)
