// Package helpview is the `?` help overlay: every binding of the screen and
// of the whole app, in titled sections. Groups are laid out side by side
// while they fit the width and wrap below otherwise, so no binding is ever
// cut off; when the sections are taller than the screen the body scrolls.
package helpview

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/tui/common"
)

// Section is a titled set of groups of bindings (a group is a column).
type Section struct {
	Title  string
	Groups [][]key.Binding
}

// Model is the help overlay.
type Model struct {
	c        *common.Common
	title    string
	sections []Section
	scroll   int
	width    int // the screen
	height   int

	lines  []string // rendered body, for linesW
	linesW int
}

// New returns an empty help.
func New(c *common.Common) *Model { return &Model{c: c} }

// Set shows title and sections, from the top.
func (m *Model) Set(title string, sections []Section) {
	m.title, m.sections, m.scroll, m.lines = title, sections, 0, nil
}

// SetSize sets the area the overlay is drawn on (the dialog is at most that
// tall).
func (m *Model) SetSize(w, h int) {
	if w != m.width {
		m.lines = nil
	}
	m.width, m.height = w, h
}

// boxWidth is the dialog's outer width.
func (m *Model) boxWidth() int { return max(20, min(m.width-4, 110)) }

// inner is the text width inside the dialog (border 1 and padding 2 each side).
func (m *Model) inner() int { return m.boxWidth() - 6 }

// bodyRows is how many body lines fit: the dialog's height is at most the
// area's, less border and padding (4), title and its gap (2) and the footer
// and its gap (2).
func (m *Model) bodyRows() int { return max(1, m.height-4-2-2) }

func (m *Model) body() []string {
	if m.lines == nil || m.linesW != m.inner() {
		m.lines, m.linesW = m.render(m.inner()), m.inner()
	}
	return m.lines
}

func (m *Model) maxScroll() int { return max(0, len(m.body())-m.bodyRows()) }

// Scrollable reports whether the body is taller than the overlay.
func (m *Model) Scrollable() bool { return m.maxScroll() > 0 }

// Update scrolls with the movement keys; it reports whether the key closes
// the help (?, esc, q).
func (m *Model) Update(k tea.KeyPressMsg) (closed bool) {
	km := m.c.KeyMap
	switch {
	case key.Matches(k, km.Help, km.Back, km.Quit):
		return true
	case key.Matches(k, km.Down):
		m.scroll++
	case key.Matches(k, km.Up):
		m.scroll--
	case key.Matches(k, km.PageDown, km.Select):
		m.scroll += max(1, m.bodyRows()-1)
	case key.Matches(k, km.PageUp):
		m.scroll -= max(1, m.bodyRows()-1)
	case key.Matches(k, km.Top):
		m.scroll = 0
	case key.Matches(k, km.Bottom):
		m.scroll = m.maxScroll()
	}
	m.scroll = max(0, min(m.scroll, m.maxScroll()))
	return false
}

// View draws the dialog (lay it over the screen with common.Overlay).
func (m *Model) View() string {
	s := m.c.Styles
	inner := m.inner()
	body := m.body()
	rows := m.bodyRows()
	scroll := max(0, min(m.scroll, m.maxScroll()))
	visible := body[scroll:min(len(body), scroll+rows)]
	var foot string
	switch {
	case m.maxScroll() == 0:
		foot = "? or esc closes this help"
	case scroll == 0:
		foot = fmt.Sprintf("↓ %d more lines · ↑/↓ pgup/pgdn scroll · ? or esc closes", len(body)-rows)
	case scroll >= m.maxScroll():
		foot = "↑ more above · ↑/↓ pgup/pgdn scroll · ? or esc closes"
	default:
		foot = fmt.Sprintf("↑↓ %d more lines · ↑/↓ pgup/pgdn scroll · ? or esc closes", len(body)-rows)
	}
	out := s.DialogTitle.Render(common.Truncate(m.title, inner)) + "\n\n" + strings.Join(visible, "\n") +
		"\n\n" + s.Subtle.Render(common.Truncate(foot, inner))
	return s.Dialog.Width(m.boxWidth()).Render(out)
}

// render lays the sections out in width cells.
func (m *Model) render(width int) []string {
	s := m.c.Styles
	var out []string
	for i, sec := range m.sections {
		var blocks [][]string
		seen := map[string]bool{} // a binding listed twice in a section (two lists' moves) shows once
		for _, g := range sec.Groups {
			if b := m.block(g, seen); len(b) > 0 {
				blocks = append(blocks, b)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if i > 0 && len(out) > 0 {
			out = append(out, "")
		}
		if sec.Title != "" {
			out = append(out, s.Subtitle.Render(sec.Title))
		}
		out = append(out, layout(blocks, width, 3)...)
	}
	return out
}

// block renders one group as aligned "key  description" lines, leaving out
// the bindings already in seen (and adding its own).
func (m *Model) block(g []key.Binding, seen map[string]bool) []string {
	s := m.c.Styles
	var keys, descs []string
	kw := 0
	for _, b := range g {
		id := b.Help().Key + "\x00" + b.Help().Desc
		if !b.Enabled() || b.Help().Key == "" || seen[id] {
			continue
		}
		seen[id] = true
		keys = append(keys, b.Help().Key)
		descs = append(descs, b.Help().Desc)
		kw = max(kw, lipgloss.Width(b.Help().Key))
	}
	out := make([]string, len(keys))
	for i := range keys {
		out[i] = s.Help.FullKey.Render(keys[i]) + strings.Repeat(" ", kw-lipgloss.Width(keys[i])+1) + s.Help.FullDesc.Render(descs[i])
	}
	return out
}

// layout puts blocks side by side, gap cells apart, starting a new row of
// blocks (after a blank line, so rows read as separate groups) when the next
// one does not fit; a block wider than width is cut.
func layout(blocks [][]string, width, gap int) []string {
	var out []string
	var row [][]string
	var widths []int
	rowW := 0
	flush := func() {
		if len(row) == 0 {
			return
		}
		h := 0
		for _, b := range row {
			h = max(h, len(b))
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		for y := range h {
			var line strings.Builder
			for i, b := range row {
				cell := ""
				if y < len(b) {
					cell = b[y]
				}
				if i < len(row)-1 {
					cell += strings.Repeat(" ", widths[i]-lipgloss.Width(cell)+gap)
				}
				line.WriteString(cell)
			}
			out = append(out, ansi.Truncate(strings.TrimRight(line.String(), " "), width, "…"))
		}
		row, widths, rowW = nil, nil, 0
	}
	for _, b := range blocks {
		bw := 0
		for _, l := range b {
			bw = max(bw, lipgloss.Width(l))
		}
		need := bw
		if len(row) > 0 {
			need += gap
		}
		if len(row) > 0 && rowW+need > width {
			flush()
			need = bw
		}
		row, widths = append(row, b), append(widths, bw)
		rowW += need
	}
	flush()
	return out
}
