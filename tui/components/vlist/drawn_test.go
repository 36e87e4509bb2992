package vlist

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIndicatorOfCountsTheOwnersHiddenRows(t *testing.T) {
	t.Parallel()
	m := New(newCommon(), func(int, int, bool, bool, int) string { return "" })
	rows := make([]int, 30)
	m.SetRows(rows)
	m.SetCursor(6)
	assert.Equal(t, "7/30 · ↑ 4 · ↓ 20 more", m.IndicatorOf(4, 20))
	assert.Equal(t, "7/30 · ↓ 3 more", m.IndicatorOf(0, 3))
	assert.Empty(t, m.IndicatorOf(0, 0), "every row in view")

	assert.Equal(t, "30 turns · ↑ 27", Counter("30 turns", 27, 0))
	assert.Empty(t, Counter("30 turns", 0, 0))
}
