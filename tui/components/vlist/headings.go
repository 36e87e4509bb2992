package vlist

// Lists with headings (a group's title between its rows) keep the cursor
// off the headings: after a move, SkipHeading steps on to the next row in
// the direction of the move, and KeepHeadingInView shows a group's heading
// above its first row when the window starts at that row.

// SkipHeading moves the cursor off a heading row: down to the next row
// (up: to the previous one; the next when the heading is the first row).
// It does nothing when the cursor is on an ordinary row.
func (m *Model[T]) SkipHeading(isHeading func(T) bool, down bool) {
	n := m.Len()
	for tries := 0; tries < n; tries++ {
		r, ok := m.Selected()
		if !ok || !isHeading(r) {
			return
		}
		i := m.cursor
		switch {
		case down && i < n-1, !down && i == 0:
			m.cursor = i + 1
		default:
			m.cursor = i - 1
			if i == n-1 && down {
				down = false
			}
		}
		m.clamp()
	}
}

// KeepHeadingInView scrolls up one row when the window starts at the
// cursor and the row above it is a heading, so a group's first row shows
// under its heading.
func (m *Model[T]) KeepHeadingInView(isHeading func(T) bool) {
	i := m.cursor
	if i == 0 || i != m.top || m.visible() < 2 {
		return
	}
	if r, ok := m.Row(i - 1); ok && isHeading(r) {
		m.top = i - 1
	}
}
