package vlist

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
)

func TestHeadingsAreSkipped(t *testing.T) {
	t.Parallel()
	// 0 is a heading, then 1 2, heading 3, then 4 5.
	isHead := func(r int) bool { return r == 0 || r == 3 }
	m := New(newCommon(), func(int, int, bool, bool, int) string { return "" })
	m.SetRows([]int{0, 1, 2, 3, 4, 5})
	m.SetSize(10, 3)
	m.SkipHeading(isHead, true)
	assert.Equal(t, 1, m.Cursor(), "off the first heading")

	m.HandleKey(tea.KeyPressMsg{Code: tea.KeyDown})
	m.HandleKey(tea.KeyPressMsg{Code: tea.KeyDown})
	m.SkipHeading(isHead, true)
	assert.Equal(t, 4, m.Cursor(), "down over the heading")

	m.HandleKey(tea.KeyPressMsg{Code: tea.KeyUp})
	m.SkipHeading(isHead, false)
	assert.Equal(t, 2, m.Cursor(), "up over the heading")

	m.HandleKey(tea.KeyPressMsg{Code: tea.KeyHome})
	m.SkipHeading(isHead, false)
	assert.Equal(t, 1, m.Cursor(), "top: the first row under the heading")

	m.SetRows([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	m.SetCursor(9)
	for range 5 {
		m.HandleKey(tea.KeyPressMsg{Code: tea.KeyUp})
	}
	assert.Equal(t, 4, m.Top())
	m.KeepHeadingInView(isHead)
	assert.Equal(t, 3, m.Top(), "the group's heading shows above its first row")
	assert.Equal(t, 4, m.Cursor())

	m.SetRows([]int{1, 2, 3})
	m.SetCursor(2)
	m.SkipHeading(isHead, true)
	assert.Equal(t, 1, m.Cursor(), "a heading last: back up")
}

func TestIndicatorSkippingCountsRowsNotHeadings(t *testing.T) {
	t.Parallel()
	isHead := func(r int) bool { return r == 0 || r == 3 }
	m := New(newCommon(), func(r int, _ int, _, _ bool, _ int) string { return "" })
	m.SetRows([]int{0, 1, 2, 3, 4, 5, 6, 7})
	m.SetSize(10, 4)
	m.SetCursor(4)
	v := m.FramedViewSkipping(30, 4, isHead)
	// Window rows 2 3 4 (top 2): above are 0 (heading) and 1; below 5 6 7.
	assert.Contains(t, v, "3/6 · ↑ 1 · ↓ 3 more")
	assert.Equal(t, "5/8 · ↑ 2 · ↓ 3 more", m.Indicator())
}
