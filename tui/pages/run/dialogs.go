package run

import (
	"errors"
	"fmt"
	"github.com/nova-dev/nova/internal/plural"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
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
}

type inputResult uint8

const (
	inputNone inputResult = iota
	inputSubmit
	inputClose
)

func newInputDialog(c *common.Common, placeholder string, limit int) *inputDialog {
	in := textinput.New()
	in.Placeholder = placeholder
	in.Prompt = "› "
	in.CharLimit = limit
	in.SetStyles(c.Styles.TextInput)
	return &inputDialog{c: c, input: in}
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

// key handles a key: enter submits a non-empty value, esc closes; other
// keys edit (d.cmd is the field's command).
func (d *inputDialog) key(msg tea.KeyPressMsg, km *keymap.KeyMap) inputResult {
	d.cmd = nil
	switch {
	case key.Matches(msg, km.Back):
		if d.sending {
			return inputNone
		}
		return inputClose
	case msg.String() == "enter":
		if d.sending {
			return inputNone
		}
		if d.Value() == "" {
			d.err = errors.New("write something first (esc closes)")
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
func (d *inputDialog) view(w, h int, action string) string {
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
	b = append(b, "", s.Key.Render("enter")+" "+s.KeyDesc.Render(action)+s.Subtle.Render("  ·  ")+
		s.Key.Render("esc")+" "+s.KeyDesc.Render("close"))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}

// viewer shows one artifact in full, scrollable.
type viewer struct {
	c       *common.Common
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

func (v *viewer) key(msg tea.KeyPressMsg, km *keymap.KeyMap, h int) {
	room := max(1, h-6)
	last := max(0, len(v.lines)-room)
	switch {
	case key.Matches(msg, km.Back), msg.String() == "q", msg.String() == "enter":
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
	b = append(b, s.Key.Render("↑/↓ pgup/pgdn")+" "+s.KeyDesc.Render("scroll")+s.Subtle.Render("  ·  ")+
		s.Key.Render("esc")+" "+s.KeyDesc.Render("close")+s.Subtle.Render(pos))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}
