package run

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/internal/plural"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
)

// inputDialog is a one-line text dialog: the goal of a new run, the answer
// to the lead's question.
type inputDialog struct {
	c       *common.Common
	open    bool
	title   string
	body    string
	note    string
	input   textinput.Model
	sending bool
	err     error
	cmd     tea.Cmd
	// submit and dismiss are the page's bindings for this dialog (its footer
	// and its keys).
	submit, dismiss key.Binding
}

type inputResult uint8

const (
	inputNone inputResult = iota
	inputSubmit
	inputClose
)

func newInputDialog(c *common.Common, placeholder string, limit int, submit, dismiss key.Binding) *inputDialog {
	in := textinput.New()
	in.Placeholder = placeholder
	in.Prompt = "› "
	in.CharLimit = limit
	in.SetStyles(c.Styles.TextInput)
	return &inputDialog{c: c, input: in, submit: submit, dismiss: dismiss}
}

// Open shows the dialog with an empty field, focused.
func (d *inputDialog) Open(title, body, note string) tea.Cmd {
	d.open, d.title, d.body, d.note = true, title, body, note
	d.sending, d.err = false, nil
	d.input.SetValue("")
	d.input.SetStyles(d.c.Styles.TextInput)
	return d.input.Focus()
}

// Close hides the dialog.
func (d *inputDialog) Close() {
	d.open, d.sending = false, false
	d.input.Blur()
}

// Value is the typed text, trimmed.
func (d *inputDialog) Value() string { return strings.TrimSpace(d.input.Value()) }

// SetWidth sizes the field to the dialog.
func (d *inputDialog) SetWidth(w int) { d.input.SetWidth(max(10, w-10)) }

// key handles a key: submit (enter) sends a non-empty value, dismiss (esc)
// closes; other keys edit (d.cmd is the field's command).
func (d *inputDialog) key(msg tea.KeyPressMsg) inputResult {
	d.cmd = nil
	switch {
	case key.Matches(msg, d.dismiss):
		if d.sending {
			return inputNone
		}
		return inputClose
	case key.Matches(msg, d.submit):
		if d.sending {
			return inputNone
		}
		if d.Value() == "" {
			d.err = fmt.Errorf("write something first (%s closes)", d.dismiss.Help().Key)
			return inputNone
		}
		d.err = nil
		return inputSubmit
	}
	d.input, d.cmd = d.input.Update(msg)
	d.err = nil
	return inputNone
}

// view renders the dialog w cells wide, at most h lines of body text.
func (d *inputDialog) view(w, h int) string {
	s := d.c.Styles
	inner := w - 6
	b := []string{s.DialogTitle.Render(common.Truncate(d.title, inner)), ""}
	if body := strings.TrimSpace(d.body); body != "" {
		lines := strings.Split(s.Text.Width(inner).Render(body), "\n")
		if room := max(2, h-10); len(lines) > room {
			lines = append(lines[:room-1], s.Subtle.Render("…"))
		}
		b = append(b, lines...)
		b = append(b, "")
	}
	b = append(b, d.input.View())
	switch {
	case d.sending:
		b = append(b, s.Warning.Render("Sending…"))
	case d.err != nil:
		b = append(b, strings.Split(s.Error.Width(inner).Render(d.err.Error()), "\n")...)
	case d.note != "":
		b = append(b, s.Subtle.Render(common.Truncate(d.note, inner)))
	}
	b = append(b, "", footer(s, d.ShortHelp()...))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}

// ShortHelp is the dialog's keys: its footer and the page's help.
func (d *inputDialog) ShortHelp() []key.Binding { return []key.Binding{d.submit, d.dismiss} }

// viewer shows one artifact in full, scrollable.
type viewer struct {
	c *common.Common
	// keys are the page's bindings; the viewer scrolls with the shared
	// navigation keys.
	keys    keyMap
	open    bool
	id      uint64
	art     *board.Artifact
	err     error
	scroll  int
	lines   []string
	loading bool
}

func (v *viewer) openLoading(id uint64) {
	v.open, v.id, v.art, v.err, v.scroll, v.lines, v.loading = true, id, nil, nil, 0, nil, true
}

func (v *viewer) loaded(a board.Artifact, err error) {
	if !v.open || (err == nil && a.ID != v.id) {
		return
	}
	v.loading, v.err = false, err
	if err == nil {
		v.art = &a
		v.lines = strings.Split(strings.ReplaceAll(strings.TrimRight(a.Content, "\n"), "\t", "    "), "\n")
	}
}

func (v *viewer) key(msg tea.KeyPressMsg, h int) {
	km := v.c.KeyMap
	room := max(1, h-6)
	last := max(0, len(v.lines)-room)
	switch {
	case key.Matches(msg, v.keys.CloseViewer):
		v.open = false
	case key.Matches(msg, km.Down):
		v.scroll = min(v.scroll+1, last)
	case key.Matches(msg, km.Up):
		v.scroll = max(v.scroll-1, 0)
	case key.Matches(msg, km.PageDown):
		v.scroll = min(v.scroll+room, last)
	case key.Matches(msg, km.PageUp):
		v.scroll = max(v.scroll-room, 0)
	case key.Matches(msg, km.Top):
		v.scroll = 0
	case key.Matches(msg, km.Bottom):
		v.scroll = last
	}
}

// view renders the artifact in a w×h dialog.
func (v *viewer) view(w, h int) string {
	s := v.c.Styles
	inner := w - 6
	room := max(1, h-6)
	var b []string
	switch {
	case v.loading:
		b = append(b, s.DialogTitle.Render(board.ArtifactRefID(v.id)), "", s.Muted.Render("Loading…"))
	case v.err != nil:
		b = append(b, s.DialogTitle.Render(board.ArtifactRefID(v.id)), "", s.Error.Render(common.Truncate(v.err.Error(), inner)))
	default:
		a := v.art
		title := fmt.Sprintf("%s %s %s", a.Ref(), a.Type, a.Name)
		b = append(b, s.DialogTitle.Render(common.Truncate(title, inner)),
			s.Muted.Render(common.Truncate(fmt.Sprintf("by %s · %s · %d tokens · %s", orDash(a.By), orDash(a.Task), a.Tokens, plural.Count(len(v.lines), "line", "lines")), inner)))
		end := min(len(v.lines), v.scroll+room)
		for _, l := range v.lines[v.scroll:end] {
			b = append(b, s.Text.Render(common.Truncate(l, inner)))
		}
		for i := end - v.scroll; i < room; i++ {
			b = append(b, "")
		}
	}
	pos := ""
	if len(v.lines) > room {
		pos = fmt.Sprintf("  lines %d–%d of %d", v.scroll+1, min(len(v.lines), v.scroll+room), len(v.lines))
	}
	b = append(b, footer(s, v.ShortHelp()...)+s.Subtle.Render(pos))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}

// ShortHelp is the viewer's keys: its footer and the page's help.
func (v *viewer) ShortHelp() []key.Binding { return []key.Binding{v.keys.Scroll, v.keys.CloseViewer} }

// footer is a dialog's last line: its keys and what they do.
func footer(s *themes.Styles, keys ...key.Binding) string {
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, s.Key.Render(k.Help().Key)+" "+s.KeyDesc.Render(k.Help().Desc))
	}
	return strings.Join(parts, s.Subtle.Render("  ·  "))
}
