package vlist

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFramedViewIndicatorOnlyWhenRowsAreHidden(t *testing.T) {
	t.Parallel()
	m := New(newCommon(), func(r int, _ int, _, _ bool, _ int) string { return fmt.Sprintf("row %d", r) })
	m.SetMarker(true)
	m.SetRows([]int{0, 1, 2})
	v := ansi.Strip(m.FramedView(20, 5))
	assert.NotContains(t, v, "more", "every row fits: no indicator")
	assert.Len(t, strings.Split(v, "\n"), 5)
	assert.Empty(t, m.Indicator())

	rows := make([]int, 40)
	for i := range rows {
		rows[i] = i
	}
	m.SetRows(rows)
	v = ansi.Strip(m.FramedView(20, 5))
	lines := strings.Split(v, "\n")
	require.Len(t, lines, 5)
	assert.Contains(t, lines[4], "1/40 · ↓ 36 more")
	assert.Contains(t, lines[0], "› row 0")

	m.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnd})
	v = ansi.Strip(m.FramedView(20, 5))
	assert.Contains(t, v, "40/40 · ↑ 36")
	assert.Contains(t, v, "› row 39")
}

func TestCenterCursor(t *testing.T) {
	t.Parallel()
	m := New(newCommon(), func(r int, _ int, _, _ bool, _ int) string { return fmt.Sprintf("row %d", r) })
	rows := make([]int, 40)
	for i := range rows {
		rows[i] = i
	}
	m.SetRows(rows)
	m.SetCursor(20) // no size yet: the window is one row, at the cursor
	m.SetSize(10, 10)
	assert.Equal(t, 20, m.Top())
	m.CenterCursor()
	assert.Equal(t, 15, m.Top())
	m.SetCursor(2)
	m.CenterCursor()
	assert.Equal(t, 0, m.Top(), "not before the first row")
	m.SetCursor(39)
	m.CenterCursor()
	assert.Equal(t, 30, m.Top(), "not past the last row")
}
