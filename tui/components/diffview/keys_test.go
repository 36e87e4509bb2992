package diffview

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

// The diff view declares its own split toggle: it neither reads nor shows
// the global keymap's page actions.
func TestSplitToggleIsTheViewsOwnBinding(t *testing.T) {
	t.Parallel()
	c := newCommon()
	c.KeyMap.SplitToggle = keymap.Bind("S", "global toggle", "S")
	m := New(c)
	m.SetSize(120, 20)
	m.SetMode(Unified)

	var short []string
	for _, b := range m.ShortHelp() {
		short = append(short, b.Help().Key+" "+b.Help().Desc)
	}
	assert.Equal(t, []string{"↓/j down", "↑/k up", "s split/unified"}, short)
	assert.Equal(t, m.keys.SplitToggle, m.FullHelp()[1][2])

	m.Update(tuitest.Key("S"))
	assert.Equal(t, Unified, m.Mode(), "the global binding is not the view's")
	m.Update(tuitest.Key("s"))
	assert.Equal(t, Split, m.Mode())
}
