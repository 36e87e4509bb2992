package tui

import (
	"fmt"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
)

// titled is a page with a title and nothing else.
type titled string

func (p titled) Init() tea.Cmd                              { return nil }
func (p titled) Update(tea.Msg) (common.Component, tea.Cmd) { return p, nil }
func (p titled) View() string                               { return string(p) }
func (p titled) SetSize(int, int)                           {}
func (p titled) ShortHelp() []key.Binding                   { return nil }
func (p titled) FullHelp() [][]key.Binding                  { return nil }
func (p titled) Title() string                              { return string(p) }
func (p titled) Capturing() bool                            { return false }

// The screens' keys are built once from the pages' titles: alt+1 Home, …,
// only as many as there are pages and GoTo keys; the shared keymap keeps
// its own help.
func TestScreenKeysNameThePages(t *testing.T) {
	t.Parallel()
	km := keymap.DefaultKeyMap()
	keys := screenKeys(km, []common.Page{titled("Home"), titled("Build"), titled("Chat")})
	require.Len(t, keys, 3)
	for i, want := range []string{"Home", "Build", "Chat"} {
		assert.Equal(t, km.GoTo[i].Help().Key, keys[i].Help().Key)
		assert.Equal(t, want, keys[i].Help().Desc)
		assert.Equal(t, km.GoTo[i].Keys(), keys[i].Keys())
	}
	assert.Equal(t, "screen 1", km.GoTo[0].Help().Desc, "the shared binding is not renamed")

	many := make([]common.Page, len(km.GoTo)+3)
	for i := range many {
		many[i] = titled(fmt.Sprintf("Page %d", i+1))
	}
	keys = screenKeys(km, many)
	assert.Len(t, keys, len(km.GoTo), "a page past the last GoTo key has none")
	assert.Equal(t, "alt+c", keys[len(keys)-1].Help().Key)
}
