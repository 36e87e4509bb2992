package keymap

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
)

func TestMoveCursorStaysInTheList(t *testing.T) {
	t.Parallel()
	km := DefaultKeyMap()
	press := func(code rune, text string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code, Text: text} }
	down, up := press(tea.KeyDown, ""), press(tea.KeyUp, "")
	pgdn, pgup := press(tea.KeyPgDown, ""), press(tea.KeyPgUp, "")
	top, bottom := press('g', "g"), press('G', "G")
	cases := []struct {
		name      string
		msg       tea.KeyPressMsg
		sel, n    int
		want      int
		wantMoved bool
	}{
		{"down", down, 2, 10, 3, true},
		{"down at the end", down, 9, 10, 9, true},
		{"up at the top", up, 0, 10, 0, true},
		{"page down clamps", pgdn, 5, 10, 9, true},
		{"page up clamps", pgup, 5, 10, 0, true},
		{"top", top, 7, 10, 0, true},
		{"bottom", bottom, 2, 10, 9, true},
		{"empty list", down, 0, 0, 0, true},
		{"bottom of an empty list", bottom, 0, 0, 0, true},
		{"another key", press('x', "x"), 4, 10, 4, false},
	}
	for _, tc := range cases {
		got, moved := km.MoveCursor(tc.msg, tc.sel, tc.n, 8)
		assert.Equal(t, tc.want, got, tc.name)
		assert.Equal(t, tc.wantMoved, moved, tc.name)
	}
}
