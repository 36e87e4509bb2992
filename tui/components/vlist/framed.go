package vlist

import (
	"fmt"
	"strings"

	"github.com/nova-dev/nova/tui/common"
)

// FramedView draws the list in w×h with a last line that says where the
// cursor is and how many rows lie above and below ("3/40 · ↑ 2 · ↓ 35
// more") when rows are hidden; when every row fits, the list has all h
// lines. It sets the list's size, so call it from the owner's View.
func (m *Model[T]) FramedView(w, h int) string {
	m.SetSize(w, h)
	if m.Above() == 0 && m.Below() == 0 {
		return m.View()
	}
	if h < 2 {
		return m.View()
	}
	m.SetSize(w, h-1)
	return m.View() + "\n" + m.c.Styles.Subtle.Render(common.Truncate("  "+m.Indicator(), w))
}

// Indicator is "cursor/total · ↑ above · ↓ below more", "" when every row
// is in view.
func (m *Model[T]) Indicator() string {
	above, below := m.Above(), m.Below()
	if above == 0 && below == 0 {
		return ""
	}
	parts := []string{m.Position()}
	if above > 0 {
		parts = append(parts, fmt.Sprintf("↑ %d", above))
	}
	if below > 0 {
		parts = append(parts, fmt.Sprintf("↓ %d more", below))
	}
	return strings.Join(parts, " · ")
}

// CenterCursor scrolls the window so the cursor row sits in its middle (as
// far as the list allows): for a cursor the owner placed itself (a list
// opening on the running task), after the list has its size.
func (m *Model[T]) CenterCursor() {
	m.top = m.cursor - m.visible()/2
	m.clamp()
}
