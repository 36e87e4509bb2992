package vlist

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
)

// numbers is a Source of n rows "row i" that counts its fetches.
type numbers struct {
	mu      sync.Mutex
	n       int
	fetches []int // offsets
	fail    error
}

func (s *numbers) Fetch(_ context.Context, off, lim int) ([]int, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fetches = append(s.fetches, off)
	if s.fail != nil {
		return nil, 0, s.fail
	}
	var rows []int
	for i := off; i < min(off+lim, s.n); i++ {
		rows = append(rows, i)
	}
	return rows, s.n, nil
}

func (s *numbers) count() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.fetches) }

func newCommon() *common.Common {
	return &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
}

// settle runs cmd and everything it leads to, synchronously.
func settle[T any](m *Model[T], cmd tea.Cmd) []tea.Msg {
	var other []tea.Msg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case pageMsg[T]:
			_, next := m.Update(msg)
			queue = append(queue, next)
		default:
			other = append(other, msg)
		}
	}
	return other
}

func newList(t *testing.T, n int) (*Model[int], *numbers, *int) {
	t.Helper()
	rendered := 0
	m := New(newCommon(), func(r, _ int, sel, _ bool, w int) string {
		rendered++
		mark := " "
		if sel {
			mark = ">"
		}
		return fmt.Sprintf("%s row %d", mark, r)
	})
	src := &numbers{n: n}
	m.SetSize(30, 10)
	settle(m, m.SetSource(src))
	return m, src, &rendered
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	}
	return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
}

func TestRendersOnlyTheWindow(t *testing.T) {
	t.Parallel()
	m, src, rendered := newList(t, 100_000)
	assert.Equal(t, 100_000, m.Len())
	assert.Equal(t, 1, src.count(), "the first page only")
	*rendered = 0
	out := m.View()
	assert.Equal(t, 10, *rendered, "one render per visible row")
	lines := strings.Split(out, "\n")
	require.Len(t, lines, 10)
	assert.Contains(t, lines[0], "> row 0")
	for _, l := range lines {
		assert.Equal(t, 30, lipgloss.Width(l), "rows are padded to the width (with the scrollbar)")
	}
}

func TestMovementKeysAndPaging(t *testing.T) {
	t.Parallel()
	m, src, _ := newList(t, 100_000)
	for _, k := range []string{"down", "down", "j"} {
		settle(m, m.handleKey(keyMsg(k)))
	}
	assert.Equal(t, 3, m.Cursor())
	settle(m, m.handleKey(keyMsg("pgdown")))
	assert.Equal(t, 12, m.Cursor())
	assert.Equal(t, 9, m.Top())
	settle(m, m.handleKey(keyMsg("G")))
	assert.Equal(t, 99_999, m.Cursor())
	assert.Contains(t, m.View(), "> row 99999")
	assert.LessOrEqual(t, src.count(), 4, "the end is fetched directly, not page by page")
	settle(m, m.handleKey(keyMsg("g")))
	assert.Equal(t, 0, m.Cursor())
	settle(m, m.handleKey(keyMsg("up")))
	assert.Equal(t, 0, m.Cursor(), "the cursor stops at the top")
	ok, _ := m.HandleKey(keyMsg("x"))
	assert.False(t, ok, "other keys are not the list's")
}

func TestRowsNotLoadedYetShowPlaceholders(t *testing.T) {
	t.Parallel()
	m, _, _ := newList(t, 100_000)
	cmd := m.SetCursor(50_000) // the fetch is not run yet
	require.NotNil(t, cmd)
	_, ok := m.Selected()
	assert.False(t, ok)
	assert.Contains(t, m.View(), "·")
	settle(m, cmd)
	r, ok := m.Selected()
	require.True(t, ok)
	assert.Equal(t, 50_000, r)
}

func TestCacheIsBounded(t *testing.T) {
	t.Parallel()
	m, _, _ := newList(t, 100_000)
	m.SetMaxPages(4)
	for range 200 {
		settle(m, m.handleKey(keyMsg("pgdown")))
	}
	assert.LessOrEqual(t, m.CachedPages(), 4)
	_, ok := m.Selected()
	assert.True(t, ok, "the window is always kept")
}

func TestRefreshDropsStalePagesAndKeepsCursor(t *testing.T) {
	t.Parallel()
	m, src, _ := newList(t, 1000)
	settle(m, m.SetCursor(500))
	old := m.fetch(5) // a fetch started before the refresh
	staleMsg := old()
	src.mu.Lock()
	src.n = 600
	src.mu.Unlock()
	settle(m, m.Refresh())
	assert.Equal(t, 600, m.Len())
	assert.Equal(t, 500, m.Cursor())
	// The old page (of the 1000-row list) arrives late: dropped.
	m.Update(staleMsg)
	assert.Equal(t, 600, m.Len())
	// A page of another list is ignored too.
	other, _, _ := newList(t, 5)
	otherMsg := other.fetch(0)()
	m.Update(otherMsg)
	assert.Equal(t, 600, m.Len())

	// Shrinking below the cursor moves it to the last row.
	src.mu.Lock()
	src.n = 10
	src.mu.Unlock()
	settle(m, m.Refresh())
	assert.Equal(t, 9, m.Cursor())
}

func TestErrorsAreReported(t *testing.T) {
	t.Parallel()
	m := New(newCommon(), func(r, _ int, _, _ bool, _ int) string { return fmt.Sprint(r) })
	m.SetSize(20, 5)
	src := &numbers{n: 10, fail: errors.New("disk on fire")}
	msgs := settle(m, m.SetSource(src))
	require.Len(t, msgs, 1)
	em, ok := msgs[0].(common.ErrMsg)
	require.True(t, ok)
	assert.ErrorContains(t, em.Err, "disk on fire")
	assert.ErrorContains(t, m.Err(), "disk on fire")
	assert.False(t, m.Loading())
}

func TestStaticRowsAndEmptyText(t *testing.T) {
	t.Parallel()
	m := New(newCommon(), func(r string, _ int, sel, _ bool, _ int) string { return r })
	m.SetSize(20, 3)
	m.SetEmptyText("nothing to see")
	assert.Contains(t, m.View(), "nothing to see")
	m.SetRows([]string{"a", "b", "c", "d"})
	assert.Equal(t, 4, m.Len())
	assert.Nil(t, m.Refresh(), "static rows need no fetch")
	m.handleKey(keyMsg("G"))
	r, _ := m.Selected()
	assert.Equal(t, "d", r)
	assert.Len(t, strings.Split(m.View(), "\n"), 3)
}
