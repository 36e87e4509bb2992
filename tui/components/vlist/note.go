package vlist

import (
	"fmt"
	"strings"

	"github.com/nova-dev/nova/tui/common"
)

// ScrollNote says where the window is in a list taller than it: "12/40 ·
// ↑ 8 · ↓ 20 more". It is "" when every row is in view.
func (m *Model[T]) ScrollNote() string {
	if m.Above() == 0 && m.Below() == 0 {
		return ""
	}
	parts := []string{m.Position()}
	if n := m.Above(); n > 0 {
		parts = append(parts, fmt.Sprintf("↑ %d", n))
	}
	if n := m.Below(); n > 0 {
		parts = append(parts, fmt.Sprintf("↓ %d more", n))
	}
	return strings.Join(parts, " · ")
}

// ViewNoted sizes the list to w×h and draws it; when rows lie outside the
// window its last line is the ScrollNote, so a list that scrolls says so
// in words as well as with its scrollbar. It draws at most h lines, fewer
// when the list is shorter than h.
func (m *Model[T]) ViewNoted(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	m.SetSize(w, h)
	if h < 2 || (m.Above() == 0 && m.Below() == 0) {
		return m.View()
	}
	m.SetSize(w, h-1)
	note := m.ScrollNote() // a shorter window hides more, never less
	indent := ""
	if m.marker {
		indent = "  "
	}
	return m.View() + "\n" + m.c.Styles.Subtle.Render(common.Truncate(indent+note, w))
}
