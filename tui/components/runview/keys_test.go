package runview

import (
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
)

func helpOf(bs ...[]key.Binding) []string {
	var out []string
	for _, row := range bs {
		for _, b := range row {
			out = append(out, b.Help().Key+" "+b.Help().Desc)
		}
	}
	return out
}

// The run view's help lists its own bindings, not the global keymap's
// page actions renamed where they are shown.
func TestHelpListsTheViewsOwnBindings(t *testing.T) {
	t.Parallel()
	k := newKeyMap()
	m := newModel(&fakeWS{}, 100, 30)
	full := helpOf(m.FullHelp()...)
	for _, b := range []key.Binding{k.Approve, k.Deny, k.CancelRun, k.ReviewChanges, k.ShowTrace} {
		assert.Contains(t, full, b.Help().Key+" "+b.Help().Desc)
	}
	assert.NotContains(t, full, "t table/json", "the global ToggleView's help")

	st := script(m)
	feed(m, st, progress[:3]...)
	assert.Equal(t, helpOf([]key.Binding{k.CancelRun, m.c.KeyMap.Down, m.c.KeyMap.Up}), helpOf(m.ShortHelp()))

	m.Update(approvalEvent(request))
	assert.Equal(t, helpOf([]key.Binding{k.Approve, k.Deny}), helpOf(m.ShortHelp()))
	// The approval box says the same keys as the help.
	assert.Contains(t, ansi.Strip(m.View()), helpOf([]key.Binding{k.Approve})[0]+"  ·  "+helpOf([]key.Binding{k.Deny})[0])
}
