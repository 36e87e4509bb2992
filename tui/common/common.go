// Package common is what every nova screen shares: the Common context (ctx,
// size, styles, keymap) and the Component contract. Screens reach the
// engine only through the narrow Source each page declares beside itself
// (a subset of engine.Workspace's verbs).
package common

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/keymap"
)

// Common is passed (by pointer) from the root to every component. Only the
// root model changes it, inside Update.
type Common struct {
	Ctx    context.Context
	Width  int
	Height int
	Styles *themes.Styles
	KeyMap *keymap.KeyMap
	// Now is the clock pages show ages with ("3d ago"); nil is time.Now.
	// Tests pin it to the fake workspace's time.
	Now func() time.Time
}

// Clock is c.Now, or time.Now when none is set.
func (c *Common) Clock() func() time.Time {
	if c.Now != nil {
		return c.Now
	}
	return time.Now
}

// Component is the contract of every screen part.
type Component interface {
	Init() tea.Cmd
	Update(msg tea.Msg) (Component, tea.Cmd)
	View() string
	SetSize(width, height int)
	help.KeyMap
}

// Page is a top-level screen reachable from the router.
type Page interface {
	Component
	// Title is the tab label.
	Title() string
	// Capturing reports that the page is taking text input, so the root
	// must not treat letters as global shortcuts.
	Capturing() bool
}

// Overlay draws fg centred over bg (both width×height).
func Overlay(bg, fg string, width, height int) string {
	fw, fh := lipgloss.Width(fg), lipgloss.Height(fg)
	x := max(0, (width-fw)/2)
	y := max(0, (height-fh)/3)
	c := lipgloss.NewCanvas(width, height)
	c.Compose(lipgloss.NewCompositor(
		lipgloss.NewLayer(bg),
		lipgloss.NewLayer(fg).X(x).Y(y).Z(1),
	))
	return c.Render()
}

// Truncate cuts s to width cells with an ellipsis.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if lipgloss.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// FitHeight pads or cuts s to exactly h lines.
func FitHeight(s string, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// Empty renders an empty-state block: a title line and a hint.
func (c *Common) Empty(title, hint string) string {
	return c.Styles.Muted.Render(title) + "\n" + c.Styles.Subtle.Render(hint)
}

// WrapWords wraps plain text to width cells, breaking lines at spaces only
// (lipgloss's and ansi's wrappers also break after hyphens and, on some
// input, inside words; streamed prose must keep its words whole). Newlines
// are kept, runs of spaces and leading indentation too; a word wider than
// width is cut after a hyphen, slash, underscore or dot when it has one
// (softCut), else hard. Hand-written for that guarantee.
func WrapWords(text string, width int) []string {
	width = max(1, width)
	var out []string
	for _, para := range strings.Split(text, "\n") {
		var line strings.Builder
		lw := 0
		flush := func() {
			out = append(out, line.String())
			line.Reset()
			lw = 0
		}
		for i, word := range strings.Split(para, " ") {
			ww := lipgloss.Width(word)
			sep := 0
			if i > 0 {
				sep = 1
			}
			if lw > 0 && lw+sep+ww > width {
				flush()
				sep = 0
			}
			for ww > width { // a word longer than the line
				if lw > 0 {
					flush()
				}
				cut := softCut(ansi.Truncate(word, width, ""), width)
				out = append(out, cut)
				word = strings.TrimPrefix(word, cut)
				ww = lipgloss.Width(word)
				sep = 0
			}
			if sep == 1 && (lw > 0 || i > 0) {
				line.WriteByte(' ')
				lw++
			}
			line.WriteString(word)
			lw += ww
		}
		flush()
	}
	return out
}

// softCut shortens the head of a word too wide for its line to end after
// the last hyphen, slash, underscore or dot in it (a path, a slug, a
// qualified name), so the word breaks where a reader expects; a head
// without one (or with one only near its start) is cut as it is.
func softCut(head string, width int) string {
	if i := strings.LastIndexAny(head, "-/_.:,"); i >= 0 && i+1 < len(head) && lipgloss.Width(head[:i+1]) >= max(1, width/3) {
		return head[:i+1]
	}
	return head
}

// TailFrom returns the end of text, at most n bytes of it, starting at the
// beginning of a line when one starts within that end (else after a space,
// else at a rune): a stream kept to its tail never shows a word cut in two
// or a broken character at its top.
func TailFrom(text string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(text) <= n {
		return text
	}
	tail := text[len(text)-n:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
		return tail[i+1:]
	}
	if i := strings.IndexByte(tail, ' '); i >= 0 && i+1 < len(tail) {
		return tail[i+1:]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return tail
}

// ViewCache keeps the rendering of what lies under a dialog while the
// dialog has the keyboard: typing into a dialog's text field must not
// redraw the screen beneath it on every key (on a big screen that is most
// of a frame's cost). A page calls Update first thing in its Update and Get
// for the part under the dialog in its View.
type ViewCache struct {
	view  string
	ok    bool
	w, h  int
	theme string
}

// Update drops the cached view unless msg is a key press or a cursor blink
// while dialog is open (those reach only the dialog).
func (v *ViewCache) Update(msg tea.Msg, dialog bool) {
	if dialog {
		if _, key := msg.(tea.KeyPressMsg); key || IsCursorBlink(msg) {
			return
		}
	}
	v.ok = false
}

// Invalidate drops the cached view.
func (v *ViewCache) Invalidate() { v.ok = false }

// Get returns the cached view of a w×h area, drawing it with render when
// there is none (or the size or theme changed).
func (v *ViewCache) Get(c *Common, w, h int, render func() string) string {
	if v.ok && v.w == w && v.h == h && v.theme == c.Styles.Name {
		return v.view
	}
	v.view, v.ok, v.w, v.h, v.theme = render(), true, w, h, c.Styles.Name
	return v.view
}

// Spinner is the one spinner of nova's screens (a running task, run or
// step): its frames and the time between them.
var Spinner = spinner.Spinner{Frames: []string{"◐", "◓", "◑", "◒"}, FPS: 150 * time.Millisecond}

// SpinFrame is the spinner's frame n.
func SpinFrame(n int) string { return Spinner.Frames[n%len(Spinner.Frames)] }
