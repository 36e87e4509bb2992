package diffview

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

// The diff view declares its own split toggle: its help and its keys are
// that binding, not the global keymap's.
func TestSplitToggleIsTheViewsOwnBinding(t *testing.T) {
	t.Parallel()
	m := New(newCommon())
	m.keys.SplitToggle = keymap.Bind("S", "split or not", "S")
	m.SetSize(120, 20)
	m.SetMode(Unified)

	var short []string
	for _, b := range m.ShortHelp() {
		short = append(short, b.Help().Key+" "+b.Help().Desc)
	}
	assert.Equal(t, []string{"↓/j down", "↑/k up", "S split or not"}, short)
	assert.Equal(t, m.keys.SplitToggle, m.FullHelp()[1][2])

	m.Update(tuitest.Key("s"))
	assert.Equal(t, Unified, m.Mode(), "the view answers to its own binding only")
	m.Update(tuitest.Key("S"))
	assert.Equal(t, Split, m.Mode())
	assert.Equal(t, "s", newKeyMap().SplitToggle.Help().Key, "s by default")
}
