package changes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	chg "github.com/nova-dev/nova/engine/changes"
)

// seedBuild stages n changesets of build 12 (one file each) and one of a
// lone run; it returns the build's ids, oldest first, and the lone one.
func seedBuild(t *testing.T, ws *testWS, n int) ([]uint64, uint64) {
	t.Helper()
	var ids []uint64
	for i := 1; i <= n; i++ {
		ids = append(ids, ws.stage(t, chg.Meta{RunID: uint64(10 + i), Agent: "MARS", Task: fmt.Sprintf("task %d", i), BuildID: "12", TaskID: fmt.Sprintf("t%02d", i)},
			[2]string{fmt.Sprintf("pkg/f%02d.go", i), fmt.Sprintf("package pkg // %d\n", i)}))
	}
	lone := ws.stage(t, chg.Meta{RunID: 99, Agent: "VENUS", Task: "a lone run"}, [2]string{"lone.txt", "lone\n"})
	return ids, lone
}

// Issue 32: at 80×24 a long list says how many changesets it holds and
// where the selection is, marks the selection with more than colour, and
// opens on the newest.
func TestManyChangesetsShowTheirPlace(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	ids, lone := seedBuild(t, ws, 13)
	h := newPage(t, ws, 80, 21)
	cs, ok := h.m.current()
	require.True(t, ok)
	assert.Equal(t, lone, cs.ID, "opens on the newest")
	out := h.plain()
	assert.Contains(t, out, "Changesets 14 pending")
	assert.Contains(t, out, "1/14 · ↓ 12 more")
	assert.Contains(t, out, fmt.Sprintf("› #%d VENUS", lone), "the selection is marked")
	h.press("G")
	out = h.plain()
	assert.Contains(t, out, "14/14 · ↑ 12")
	assert.Contains(t, out, fmt.Sprintf("› #%d MARS", ids[0]))
	assert.NotContains(t, out, "more")
	golden.RequireEqual(t, h.pinned())

	// A refresh while the user sits on an older changeset keeps it; a new
	// changeset does not move the selection.
	ws.stage(t, chg.Meta{Agent: "SATURN", Task: "late"}, [2]string{"late.txt", "late\n"})
	h.run(h.m.load())
	cs, _ = h.m.current()
	assert.Equal(t, ids[0], cs.ID)
}

// Issue 32: A applies every pending changeset of the selected one's build
// after a confirmation, oldest first, and leaves the others alone.
func TestApplyAllOfABuild(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	ids, lone := seedBuild(t, ws, 3)
	h := newPage(t, ws, 100, 27)
	h.press("A")
	require.Nil(t, h.m.dialog, "the newest is a lone run's changeset: nothing to apply together")
	h.press("j", "A")
	require.NotNil(t, h.m.dialog)
	out := h.plain()
	assert.Contains(t, out, "Apply all 3 pending changesets of build 12?")
	assert.Contains(t, out, fmt.Sprintf("#%d MARS · 1 file · task t01", ids[0]))
	golden.RequireEqual(t, h.pinned())
	h.press("n")
	assert.Nil(t, h.m.dialog)
	for _, id := range ids {
		cs, err := ws.GetChange(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, chg.StatusPending, cs.Status, "canceled: nothing applied")
	}
	h.press("A", "y")
	for i, id := range ids {
		cs, err := ws.GetChange(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, chg.StatusApplied, cs.Status)
		assert.Equal(t, fmt.Sprintf("package pkg // %d\n", i+1), ws.read(t, fmt.Sprintf("pkg/f%02d.go", i+1)))
	}
	cs, err := ws.GetChange(t.Context(), lone)
	require.NoError(t, err)
	assert.Equal(t, chg.StatusPending, cs.Status)
	assert.Contains(t, h.plain(), "1 pending")
}

// Issue 32: a changeset with more files than its panel holds scrolls them
// through nova's list: › on the chosen file, the place in words, pgdn and
// G move the cursor (and the diff follows), a refresh keeps the file.
func TestManyFilesScroll(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	var files [][2]string
	for i := range 30 {
		files = append(files, [2]string{fmt.Sprintf("pkg/f%02d.go", i), fmt.Sprintf("package pkg // %d\n", i)})
	}
	ws.stage(t, chg.Meta{Agent: "MARS", Task: "many files"}, files...)
	h := newPage(t, ws, 80, 21)
	out := h.plain()
	assert.Contains(t, out, "› A pkg/f00.go")
	assert.Regexp(t, `1/30 · ↓ \d+ more`, out)
	h.press("tab", "pgdown")
	f, ok := h.m.currentFile()
	require.True(t, ok)
	assert.NotEqual(t, "pkg/f00.go", f.Path, "pgdn moved the cursor")
	h.press("G")
	f, _ = h.m.currentFile()
	assert.Equal(t, "pkg/f29.go", f.Path)
	out = h.plain()
	assert.Contains(t, out, "› A pkg/f29.go")
	assert.Contains(t, out, "30/30 · ↑")
	assert.Contains(t, out, "pkg/f29.go  new", "the diff shows the chosen file")
	h.press("up")
	h.run(h.m.load())
	f, _ = h.m.currentFile()
	assert.Equal(t, "pkg/f28.go", f.Path, "a refresh keeps the file")
}

// ? lists the page's own keys.
func TestHelpShowsPageKeys(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	seedBuild(t, ws, 2)
	h := newPage(t, ws, 100, 27)
	var descs []string
	for _, g := range h.m.FullHelp() {
		for _, k := range g {
			descs = append(descs, k.Help().Key+" "+k.Help().Desc)
		}
	}
	all := strings.Join(descs, ", ")
	for _, want := range []string{"a apply", "A apply all of its build", "x discard", "e edit file in $EDITOR", "R revert (undo an apply)", "s split/unified", "tab next pane", "pgdn page down", "G/end bottom"} {
		assert.Contains(t, all, want)
	}
}
