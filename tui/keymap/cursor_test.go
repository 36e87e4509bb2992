package keymap

import (
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
)

// Bind makes a binding that matches its keys and carries its help.
func TestBindCarriesItsHelp(t *testing.T) {
	t.Parallel()
	b := Bind("a", "apply", "a", "A")
	assert.Equal(t, "a", b.Help().Key)
	assert.Equal(t, "apply", b.Help().Desc)
	assert.True(t, key.Matches(tea.KeyPressMsg{Code: 'A', Text: "A"}, b))
	assert.False(t, key.Matches(tea.KeyPressMsg{Code: 'x', Text: "x"}, b))
}

// The global keymap holds only what every screen shares: each page declares
// its own actions (tui/pages/*/keys.go). No two global bindings share a key,
// except the dialog pair, which is only read inside dialogs.
func TestGlobalKeysDoNotCollide(t *testing.T) {
	t.Parallel()
	km := DefaultKeyMap()
	global := []key.Binding{km.Quit, km.ForceQuit, km.Help, km.Palette, km.Back, km.NextPage, km.PrevPage, km.Refresh}
	global = append(global, km.GoTo[:]...)
	global = append(global, km.Up, km.Down, km.Left, km.Right, km.PageUp, km.PageDown, km.Top, km.Bottom,
		km.Enter, km.Select, km.Filter, km.Tab, km.ShiftTab)
	seen := map[string]string{}
	for _, b := range global {
		for _, k := range b.Keys() {
			if other, dup := seen[k]; dup {
				t.Errorf("key %q is bound twice: %q and %q", k, other, b.Help().Desc)
			}
			seen[k] = b.Help().Desc
		}
	}
	assert.Len(t, global, 33)
}
