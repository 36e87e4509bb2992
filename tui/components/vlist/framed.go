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
func (m *Model[T]) FramedView(w, h int) string { return m.framed(w, h, m.Indicator) }

// FramedViewSkipping is FramedView for a list with headings: the last line
// counts the rows that are not headings ("3/20" of twenty agents under two
// headings).
func (m *Model[T]) FramedViewSkipping(w, h int, isHeading func(T) bool) string {
	return m.framed(w, h, func() string { return m.IndicatorSkipping(isHeading) })
}

func (m *Model[T]) framed(w, h int, indicator func() string) string {
	m.SetSize(w, h)
	if m.Above() == 0 && m.Below() == 0 {
		return m.View()
	}
	if h < 2 {
		return m.View()
	}
	m.SetSize(w, h-1)
	return m.View() + "\n" + m.c.Styles.Subtle.Render(common.Truncate("  "+indicator(), w))
}

// Indicator is "cursor/total · ↑ above · ↓ below more", "" when every row
// is in view.
func (m *Model[T]) Indicator() string {
	return indicator(m.Position(), m.Above(), m.Below())
}

// IndicatorSkipping is Indicator counting only the rows that are not
// headings (a row not loaded yet counts as a row).
func (m *Model[T]) IndicatorSkipping(isHeading func(T) bool) string {
	if m.Above() == 0 && m.Below() == 0 {
		return ""
	}
	count := func(lo, hi int) int {
		n := 0
		for i := lo; i < hi; i++ {
			if r, ok := m.Row(i); !ok || !isHeading(r) {
				n++
			}
		}
		return n
	}
	n := m.Len()
	pos := fmt.Sprintf("%d/%d", count(0, m.cursor+1), count(0, n))
	return indicator(pos, count(0, m.top), count(min(n, m.top+m.visible()), n))
}

func indicator(pos string, above, below int) string {
	if above == 0 && below == 0 {
		return ""
	}
	parts := []string{pos}
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
