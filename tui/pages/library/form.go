package library

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/tui/common"
)

// form is the parameter form of a skill, a workflow or a blueprint: one
// field per declared parameter (label = its question, * = required, the
// default as placeholder), validated as the user types with the engine's
// own conversion (params.Param.Convert). Enums and booleans are choices
// cycled with ←/→ or space; a skill adds the agent it runs as. Enter
// submits once every field is valid; esc closes it.
type form struct {
	c      *common.Common
	title  string
	action string // the submit button ("Run", "Preview")
	// target is what the form runs: a skill name, a workflow id, a
	// blueprint name.
	kind, target string
	fields       []*field
	focus        int
	// note is shown under the fields (a refusal from the engine).
	note  string
	width int
	// tried: the user pressed enter once; from then on every invalid field
	// shows why.
	tried bool
}

// field is one parameter (or the agent of a skill).
type field struct {
	p       params.Param
	agent   bool // the skill's agent, not a parameter
	input   textinput.Model
	choices []string // enum values, booleans, agents; "" = not set
	choice  int
	err     string
	// touched: the user typed in it or changed its choice. An untouched
	// empty required field says "required" only once a submit was tried.
	touched bool
}

func (f *field) isChoice() bool { return f.choices != nil }

// value is the field's text ("" when not set).
func (f *field) value() string {
	if f.isChoice() {
		return f.choices[f.choice]
	}
	return strings.TrimSpace(f.input.Value())
}

// validate sets err from the value as it stands.
func (f *field) validate() {
	f.err = ""
	if f.agent {
		return
	}
	v := f.value()
	if v == "" {
		if f.p.IsRequired() {
			f.err = "required"
		}
		return
	}
	if _, err := f.p.Convert(v); err != nil {
		var pe *params.Error
		if errors.As(err, &pe) {
			f.err = pe.Msg
		} else {
			f.err = err.Error()
		}
	}
}

func newForm(c *common.Common, kind, target, title, action string, ps []params.Param, given map[string]string) *form {
	f := &form{c: c, kind: kind, target: target, title: title, action: action}
	for _, p := range ps {
		fd := &field{p: p}
		switch p.Kind() {
		case params.Enum:
			fd.choices = append([]string{}, p.ValueStrings()...)
			if !p.IsRequired() && p.Default == nil {
				fd.choices = append([]string{""}, fd.choices...)
			}
		case params.Boolean:
			fd.choices = []string{"false", "true"}
			if p.Default == nil {
				fd.choices = []string{"", "false", "true"}
			}
		default:
			in := textinput.New()
			in.Prompt = "› "
			in.CharLimit = int(params.MaxValue)
			in.SetStyles(c.Styles.TextInput)
			if p.Default != nil {
				in.Placeholder = fmt.Sprint(p.Default)
			} else if p.IsRequired() {
				in.Placeholder = "required"
			} else {
				in.Placeholder = "optional"
			}
			fd.input = in
		}
		want := ""
		if p.Default != nil {
			want = fmt.Sprint(p.Default)
		}
		if v, ok := given[p.Name]; ok {
			want = v
		}
		if fd.isChoice() {
			for i, ch := range fd.choices {
				if ch == want {
					fd.choice = i
				}
			}
		} else if _, ok := given[p.Name]; ok {
			fd.input.SetValue(want)
		}
		fd.validate()
		f.fields = append(f.fields, fd)
	}
	return f
}

// withAgent adds the agent field of a skill (the first choice is the
// default).
func (f *form) withAgent(agents []string) *form {
	if len(agents) == 0 {
		return f
	}
	f.fields = append(f.fields, &field{agent: true, p: params.Param{Name: "agent", Prompt: "Run as which agent?"}, choices: agents})
	return f
}

// Open focuses the first field that needs something, else the first.
func (f *form) Open() tea.Cmd {
	f.focus = 0
	for i, fd := range f.fields {
		if fd.err != "" {
			f.focus = i
			break
		}
	}
	return f.focusField()
}

func (f *form) focusField() tea.Cmd {
	var cmd tea.Cmd
	for i, fd := range f.fields {
		if fd.isChoice() {
			continue
		}
		if i == f.focus {
			fd.input.SetStyles(f.c.Styles.TextInput)
			cmd = fd.input.Focus()
		} else {
			fd.input.Blur()
		}
	}
	return cmd
}

// Valid reports whether every field is valid.
func (f *form) Valid() bool {
	for _, fd := range f.fields {
		if fd.err != "" {
			return false
		}
	}
	return true
}

// Values returns the parameters as text (set fields only) and the agent.
func (f *form) Values() (map[string]string, string) {
	out := map[string]string{}
	agent := ""
	for _, fd := range f.fields {
		v := fd.value()
		switch {
		case fd.agent:
			agent = v
		case v != "":
			out[fd.p.Name] = v
		}
	}
	return out, agent
}

// SetWidth sizes the dialog to the page.
func (f *form) SetWidth(w int) {
	f.width = w
	for _, fd := range f.fields {
		if !fd.isChoice() {
			fd.input.SetWidth(max(10, f.boxWidth()-10))
		}
	}
}

func (f *form) boxWidth() int { return min(84, max(44, f.width-6)) }

// formResult is what a key did to the form.
type formResult int

const (
	formStay formResult = iota
	formSubmit
	formCancel
)

// Key handles a key press.
func (f *form) Key(msg tea.KeyPressMsg) (formResult, tea.Cmd) {
	km := f.c.KeyMap
	cur := f.fields[f.focus]
	switch {
	case key.Matches(msg, km.Back):
		return formCancel, nil
	case msg.String() == "enter":
		f.tried = true
		for _, fd := range f.fields {
			fd.validate()
		}
		if !f.Valid() {
			for i, fd := range f.fields {
				if fd.err != "" {
					f.focus = i
					break
				}
			}
			f.note = "fix the marked fields first"
			return formStay, f.focusField()
		}
		f.note = ""
		return formSubmit, nil
	case msg.String() == "tab" || msg.String() == "down":
		f.focus = (f.focus + 1) % len(f.fields)
		return formStay, f.focusField()
	case msg.String() == "shift+tab" || msg.String() == "up":
		f.focus = (f.focus + len(f.fields) - 1) % len(f.fields)
		return formStay, f.focusField()
	}
	if cur.isChoice() {
		switch msg.String() {
		case "right", "space", "l":
			cur.choice = (cur.choice + 1) % len(cur.choices)
		case "left", "h":
			cur.choice = (cur.choice + len(cur.choices) - 1) % len(cur.choices)
		}
		cur.touched = true
		cur.validate()
		return formStay, nil
	}
	var cmd tea.Cmd
	before := cur.input.Value()
	cur.input, cmd = cur.input.Update(msg)
	cur.touched = cur.touched || cur.input.Value() != before
	cur.validate()
	f.note = ""
	return formStay, cmd
}

// View draws the dialog (lay it over the page with common.Overlay); h
// bounds its height: a window of fields around the focused one shows.
func (f *form) View(h int) string {
	s := f.c.Styles
	w := f.boxWidth()
	inner := w - 6
	var blocks [][]string
	for i, fd := range f.fields {
		blocks = append(blocks, f.fieldLines(i, fd, inner))
	}
	// 4 rows of border and padding, 2 title rows, 3 footer rows.
	room := max(3, h-9)
	lo, used := f.focus, len(blocks[f.focus])
	hi := f.focus + 1
	for {
		grew := false
		if hi < len(blocks) && used+len(blocks[hi]) <= room {
			used += len(blocks[hi])
			hi++
			grew = true
		}
		if lo > 0 && used+len(blocks[lo-1]) <= room {
			lo--
			used += len(blocks[lo])
			grew = true
		}
		if !grew {
			break
		}
	}
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render(common.Truncate(f.title, inner)) + "\n\n")
	if lo > 0 {
		b.WriteString(s.Subtle.Render(fmt.Sprintf("↑ %d more", lo)) + "\n")
	}
	for _, bl := range blocks[lo:hi] {
		b.WriteString(strings.Join(bl, "\n") + "\n")
	}
	if hi < len(blocks) {
		b.WriteString(s.Subtle.Render(fmt.Sprintf("↓ %d more", len(blocks)-hi)) + "\n")
	}
	button := s.ButtonActive.Render(f.action)
	status := s.Success.Render("ready")
	if !f.Valid() {
		button = s.Button.Render(f.action)
		status = s.Muted.Render("fix the fields marked ✗")
		for _, fd := range f.fields {
			if fd.err == "required" {
				status = s.Muted.Render("fill in the fields marked *")
			}
		}
	}
	if f.note != "" {
		status = s.Error.Render(common.Truncate(f.note, inner-lipgloss.Width(button)-2))
	}
	b.WriteString("\n" + button + "  " + status + "\n")
	b.WriteString(s.Subtle.Render(common.Truncate("enter "+strings.ToLower(f.action)+" · tab/↑↓ field · ←/→ choose · esc close", inner)))
	return s.Dialog.Width(w).Render(b.String())
}

func (f *form) fieldLines(i int, fd *field, inner int) []string {
	s := f.c.Styles
	mark := "  "
	if fd.p.IsRequired() && !fd.agent {
		mark = s.Error.Render("* ")
	}
	label := fd.p.Question()
	if fd.agent {
		label = "Run as agent"
	}
	name := s.Subtle.Render(" " + fd.p.Name)
	if strings.HasPrefix(label, fd.p.Name) {
		name = "" // the label is the name already
	}
	labelStyle := s.Text
	if i == f.focus {
		labelStyle = s.Bold
	}
	lines := []string{mark + labelStyle.Render(common.Truncate(label, max(8, inner-2-lipgloss.Width(name)))) + name}
	if fd.isChoice() && !choicesFit(fd, inner-2) {
		// Too many to show: the chosen one between arrows, and where it is.
		text := fd.choices[fd.choice]
		if text == "" {
			text = "(unset)"
		}
		st := s.Bold
		if i == f.focus {
			st = s.Selected
		}
		lines = append(lines, "  "+s.Muted.Render("‹ ")+st.Render(" "+text+" ")+s.Muted.Render(fmt.Sprintf(" › %d of %d", fd.choice+1, len(fd.choices))))
	} else if fd.isChoice() {
		var opts []string
		for j, ch := range fd.choices {
			text := ch
			if text == "" {
				text = "(unset)"
			}
			switch {
			case j == fd.choice && i == f.focus:
				opts = append(opts, s.Selected.Render(" "+text+" "))
			case j == fd.choice:
				opts = append(opts, s.Bold.Render(" "+text+" "))
			default:
				opts = append(opts, s.Muted.Render(" "+text+" "))
			}
		}
		lines = append(lines, "  "+common.Truncate(strings.Join(opts, ""), inner-2))
	} else {
		lines = append(lines, "  "+fd.input.View())
	}
	switch {
	case fd.err != "" && (fd.value() != "" || fd.touched || f.tried || f.note != ""):
		lines = append(lines, "  "+s.Error.Render(common.Truncate("✗ "+fd.err, inner-2)))
	default:
		lines = append(lines, "  "+s.Subtle.Render(common.Truncate(fieldHint(fd), inner-2)))
	}
	return lines
}

// fieldHint says what a field takes: its type, range, description.
func fieldHint(fd *field) string {
	if fd.agent {
		return "the agent whose tools and permissions the steps use"
	}
	p := fd.p
	var parts []string
	if p.Kind() != params.String {
		parts = append(parts, string(p.Kind()))
	}
	switch {
	case p.Min != nil && p.Max != nil:
		parts = append(parts, fmt.Sprintf("%v–%v", *p.Min, *p.Max))
	case p.Min != nil:
		parts = append(parts, fmt.Sprintf("≥ %v", *p.Min))
	case p.Max != nil:
		parts = append(parts, fmt.Sprintf("≤ %v", *p.Max))
	}
	if p.Default != nil && !fd.isChoice() {
		parts = append(parts, fmt.Sprintf("default %v", p.Default))
	}
	if p.Description != "" && strings.TrimSpace(p.Prompt) != "" {
		parts = append(parts, p.Description)
	}
	if len(parts) == 0 && !p.IsRequired() {
		parts = append(parts, "optional")
	}
	return strings.Join(parts, " · ")
}

// choicesFit reports whether every choice fits on one line of w cells.
func choicesFit(fd *field, w int) bool {
	n := 0
	for _, ch := range fd.choices {
		n += max(len("(unset)"), lipgloss.Width(ch)) + 2
	}
	return n <= w
}
