package vlist

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestViewNotedShowsHiddenRows(t *testing.T) {
	t.Parallel()
	m := New(newCommon(), func(r, _ int, _, _ bool, _ int) string { return fmt.Sprintf("row %d", r) })
	m.SetMarker(true)
	rows := make([]int, 20)
	for i := range rows {
		rows[i] = i
	}
	m.SetRows(rows)
	lines := strings.Split(ansi.Strip(m.ViewNoted(30, 6)), "\n")
	require.Len(t, lines, 6)
	assert.Equal(t, "  1/20 · ↓ 15 more", lines[5])
	assert.True(t, strings.HasPrefix(lines[0], "› row 0"))

	m.SetCursor(10)
	lines = strings.Split(ansi.Strip(m.ViewNoted(30, 6)), "\n")
	assert.Equal(t, "  11/20 · ↑ 6 · ↓ 9 more", lines[5])
	assert.Equal(t, "11/20 · ↑ 6 · ↓ 9 more", m.ScrollNote())

	m.SetRows(rows[:4])
	lines = strings.Split(ansi.Strip(m.ViewNoted(30, 6)), "\n")
	assert.Empty(t, m.ScrollNote(), "every row fits")
	for _, l := range lines {
		assert.NotContains(t, l, "more")
	}
	// A list one row taller than the window: the note would cost the row
	// it reports, so it still shows (5 rows, 4 shown and the note).
	m.SetRows(rows[:6])
	lines = strings.Split(ansi.Strip(m.ViewNoted(30, 5)), "\n")
	require.Len(t, lines, 5)
	assert.Equal(t, "  1/6 · ↓ 2 more", lines[4])
}
