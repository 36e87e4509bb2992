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
