package changes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/diffview"
)

const storeOld = `package store

import "fmt"

// Store keeps records in memory.
type Store struct {
	items map[string]int
}

// Get returns a record.
func (s *Store) Get(name string) (int, error) {
	n, ok := s.items[name]
	if !ok {
		return 0, fmt.Errorf("no record %q", name)
	}
	return n, nil
}
`

const storeNew = `package store

import (
	"fmt"
	"sync"
)

// Store keeps records in memory.
type Store struct {
	mu    sync.Mutex
	items map[string]int
}

// Get returns a record.
func (s *Store) Get(name string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.items[name]
	if !ok {
		return 0, fmt.Errorf("store: no record named %q", name)
	}
	return n, nil
}
`

// seed stages two changesets (and applies nothing): #1 by MARS with three
// files, #2 by VENUS with one.
func seed(t *testing.T, ws *testWS) (uint64, uint64) {
	t.Helper()
	ws.write(t, "internal/store/store.go", storeOld)
	ws.write(t, "README.md", "# shop\n\nA small shop.\n")
	ws.write(t, "internal/store/legacy.go", "package store\n\n// legacy helpers\n")
	a := ws.stage(t, chg.Meta{RunID: 7, Agent: "MARS", Task: "Make Store safe for concurrent use"},
		[2]string{"internal/store/store.go", storeNew},
		[2]string{"internal/store/store_test.go", "package store\n\nimport \"testing\"\n\nfunc TestGet(t *testing.T) {}\n"},
		[2]string{"internal/store/legacy.go", ""})
	b := ws.stage(t, chg.Meta{RunID: 8, Agent: "VENUS", Task: "Describe the shop in the README"},
		[2]string{"README.md", "# shop\n\nA small shop with a concurrent store.\n"})
	return a, b
}

func TestGoldenPages(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{160, 45}, {100, 27}, {80, 21}} {
		t.Run(fmt.Sprintf("changes_%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newWS(t)
			seed(t, ws)
			h := newPage(t, ws, size[0], size[1])
			h.press("down")       // VENUS is newest: go to MARS's changeset
			h.press("enter", "j") // its files, then store.go
			golden.RequireEqual(t, h.pinned())
		})
	}
	t.Run("empty_80x21", func(t *testing.T) {
		t.Parallel()
		h := newPage(t, newWS(t), 80, 21)
		golden.RequireEqual(t, h.pinned())
	})
	t.Run("apply_dialog_100x27", func(t *testing.T) {
		t.Parallel()
		ws := newWS(t)
		seed(t, ws)
		h := newPage(t, ws, 100, 27)
		h.press("down", "a")
		golden.RequireEqual(t, h.pinned())
	})
	t.Run("conflict_100x27", func(t *testing.T) {
		t.Parallel()
		ws := newWS(t)
		seed(t, ws)
		ws.write(t, "internal/store/store.go", storeOld+"// edited by hand\n")
		h := newPage(t, ws, 100, 27)
		h.press("down", "a", "y")
		golden.RequireEqual(t, h.pinned())
	})
}

func TestListAndDiff(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	a, b := seed(t, ws)
	h := newPage(t, ws, 160, 45)
	out := h.plain()
	assert.Contains(t, out, "2 pending")
	assert.Contains(t, out, fmt.Sprintf("#%d VENUS", b))
	assert.Contains(t, out, fmt.Sprintf("#%d MARS", a))
	assert.Contains(t, out, "3 files · 1h ago · run 7")
	assert.Contains(t, out, "README.md", "the newest changeset's file is shown")
	assert.True(t, h.m.dv.IsSplit(), "split at 160 columns")

	h.press("j")
	out = h.plain()
	assert.Contains(t, out, "Make Store safe for concurrent use")
	for _, want := range []string{"A internal/store/store_test.go", "D internal/store/legacy.go", "M internal/store/store.go", "+8 −2"} {
		assert.Contains(t, out, want)
	}
	// Files are sorted by path: legacy.go, store.go, store_test.go.
	h.press("tab", "j")
	out = h.plain()
	assert.Contains(t, out, "internal/store/store.go +8 −2", "the diff header names the file")
	assert.Contains(t, out, `"sync"`)

	h.press("s")
	assert.False(t, h.m.dv.IsSplit(), "s toggles the diff to unified")
	h.m.SetSize(100, 30)
	assert.False(t, h.m.dv.IsSplit(), "the user's choice sticks")

	h2 := newPage(t, ws, 100, 30)
	assert.False(t, h2.m.dv.IsSplit(), "unified below 140 columns")
}

func TestApplyAfterConfirmation(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	a, _ := seed(t, ws)
	h := newPage(t, ws, 120, 30)
	h.press("j", "a")
	assert.True(t, h.m.Capturing(), "the dialog owns the keyboard")
	assert.Contains(t, h.plain(), fmt.Sprintf("Apply changeset #%d?", a))
	h.press("n")
	assert.Nil(t, h.m.dialog)
	assert.Equal(t, storeOld, ws.read(t, "internal/store/store.go"), "cancel changes nothing")

	h.press("a", "y")
	assert.Equal(t, storeNew, ws.read(t, "internal/store/store.go"))
	assert.NoFileExists(t, ws.root+"/internal/store/legacy.go")
	cs, err := ws.store.Get(context.Background(), a)
	require.NoError(t, err)
	assert.Equal(t, chg.StatusApplied, cs.Status)
	require.NotEmpty(t, h.d.Toasts)
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], "3 files written")
	assert.Contains(t, h.plain(), "1 pending", "the list is reloaded")

	// An applied changeset cannot be applied again.
	h.press("a")
	assert.Nil(t, h.m.dialog)
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], "already applied")
}

func TestDiscard(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	_, b := seed(t, ws)
	h := newPage(t, ws, 120, 30)
	h.press("x")
	assert.Contains(t, h.plain(), fmt.Sprintf("Discard changeset #%d?", b))
	h.press("enter")
	cs, err := ws.store.Get(context.Background(), b)
	require.NoError(t, err)
	assert.Equal(t, chg.StatusPending, cs.Status, "enter keeps the changeset")
	h.press("x", "y")
	cs, err = ws.store.Get(context.Background(), b)
	require.NoError(t, err)
	assert.Equal(t, chg.StatusDiscarded, cs.Status)
	assert.Equal(t, "# shop\n\nA small shop.\n", ws.read(t, "README.md"), "nothing on disk changes")
	assert.Contains(t, h.plain(), "discarded")
}

func TestConflictIsExplainedAndCanBeForced(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	a, _ := seed(t, ws)
	edited := storeOld + "// edited by hand\n"
	ws.write(t, "internal/store/store.go", edited)
	h := newPage(t, ws, 120, 30)
	h.press("j", "a", "y")
	out := h.plain()
	assert.Contains(t, out, fmt.Sprintf("Conflict — changeset #%d was not applied", a))
	assert.Contains(t, out, "internal/store/store.go modified on disk")
	assert.Equal(t, edited, ws.read(t, "internal/store/store.go"), "nothing was written")
	h.press("esc")
	assert.Nil(t, h.m.dialog)
	// enter never means "overwrite anyway": it is the safe answer.
	h.press("a", "y")
	require.NotNil(t, h.m.dialog)
	assert.Contains(t, h.plain(), "y overwrite anyway")
	assert.Contains(t, h.plain(), "n/esc/enter cancel")
	h.press("enter")
	assert.Nil(t, h.m.dialog)
	assert.Equal(t, edited, ws.read(t, "internal/store/store.go"), "enter overwrote nothing")
	h.press("a", "y", "y")
	assert.Equal(t, storeNew, ws.read(t, "internal/store/store.go"), "confirming the conflict overwrites")
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], "1 overwritten")
}

func TestNavigateSelectsChangeset(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	a, _ := seed(t, ws)
	h := newPage(t, ws, 160, 45)
	h.send(common.NavigateMsg{Page: ID, Arg: a})
	cs, ok := h.m.current()
	require.True(t, ok)
	assert.Equal(t, a, cs.ID)
	assert.Equal(t, focusFiles, h.m.focus)
}

func TestRefreshesOnEvents(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	seed(t, ws)
	h := newPage(t, ws, 120, 30)
	assert.Contains(t, h.plain(), "2 pending")
	ws.write(t, "go.mod", "module shop\n")
	ws.stage(t, chg.Meta{Agent: "PLUTO"}, [2]string{"go.mod", "module shop\n\ngo 1.26\n"})
	h.send(common.EventMsg{Event: engine.Event{Type: engine.EventChanged, Topic: engine.TopicChanges}})
	assert.Contains(t, h.plain(), "3 pending")
	assert.Contains(t, h.plain(), "PLUTO")
}

func TestErrorsAndBrokenWorkspace(t *testing.T) {
	t.Parallel()
	// A workspace that cannot be read shows why instead of a list.
	h := newPage(t, failingSource{errors.New("workspace in use: .nova/nova.db is locked")}, 100, 24)
	out := h.plain()
	assert.Contains(t, out, "Could not read the changesets")
	assert.Contains(t, out, "workspace in use")

	ws := newWS(t)
	seed(t, ws)
	h = newPage(t, ws, 100, 24)
	h.send(actionMsg{id: 9, err: errors.New("disk full")})
	require.NotEmpty(t, h.d.Errs)
	assert.EqualError(t, h.d.Errs[0], "disk full")
}

func TestFitsEverySize(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	seed(t, ws)
	for _, size := range [][2]int{{80, 21}, {100, 27}, {120, 37}, {160, 45}, {200, 57}, {250, 67}} {
		h := newPage(t, ws, size[0], size[1])
		for _, keys := range [][]string{nil, {"j", "enter", "j"}, {"tab", "tab", "pgdown"}, {"a"}} {
			h.press(keys...)
			lines := strings.Split(h.plain(), "\n")
			assert.Len(t, lines, size[1], "%v %v", size, keys)
			for i, l := range lines {
				assert.LessOrEqual(t, lipgloss.Width(l), size[0], "%v %v line %d: %q", size, keys, i, l)
			}
		}
		h.press("esc")
	}
	_ = diffview.SplitMinWidth
}

// failingSource is a Source whose every call fails.
type failingSource struct{ err error }

func (f failingSource) ListChanges(context.Context, chg.Filter) ([]chg.Changeset, error) {
	return nil, f.err
}
func (f failingSource) ApplyChange(context.Context, uint64, chg.ApplyOptions, string) (chg.ApplyReport, error) {
	return chg.ApplyReport{}, f.err
}
func (f failingSource) DiscardChange(context.Context, uint64, string) (chg.Changeset, error) {
	return chg.Changeset{}, f.err
}
func (f failingSource) RevertChange(context.Context, uint64, chg.RevertOptions, string) (chg.RevertReport, error) {
	return chg.RevertReport{}, f.err
}
func (f failingSource) EditChange(context.Context, uint64, string, string) (chg.Changeset, error) {
	return chg.Changeset{}, f.err
}
