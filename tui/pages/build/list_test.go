package build

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func helpDescs(m *Model) []string {
	var out []string
	for _, g := range m.FullHelp() {
		for _, b := range g {
			out = append(out, b.Help().Desc)
		}
	}
	return out
}

// many is a finished build of n tasks in two phases, and n-1 older builds
// (newest first, as the engine lists them).
func many(t *testing.T, n int) *fakeSource {
	var tasks []Task
	for i := 1; i <= n; i++ {
		tasks = append(tasks, Task{ID: fmt.Sprintf("t%02d", i), Title: fmt.Sprintf("task %d", i), Agent: "MARS",
			Phase: 1 + (i-1)*2/n, Status: StatusDone, Attempts: 1})
	}
	builds := []Detail{{Summary: Summary{ID: fmt.Sprint(n), Name: "the newest build", Status: StatusDone,
		Started: epoch, Done: n, Total: n}, Tasks: tasks}}
	for id := n - 1; id >= 1; id-- {
		builds = append(builds, Detail{Summary: Summary{ID: fmt.Sprint(id), Name: fmt.Sprintf("build %d", id),
			Status: StatusDone, Started: epoch.Add(-time.Duration(n-id) * time.Hour)}})
	}
	return newSource(t, builds...)
}

// Issue 32: the tasks, the builds list and the PRD picker are nova's list
// component at 80x24: the › marker, a line counting hidden rows, pgdn and
// G (never resting on a phase's heading); builds newest first; the help is
// the page's own.
func TestListsScrollThroughTheListComponent(t *testing.T) {
	t.Parallel()
	src := many(t, 30)
	for i := 1; i <= 20; i++ {
		dir := filepath.Join(src.root, ".nova", "prds")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%02d.json", i)), []byte(goodPRD), 0o644))
	}
	l := newLoop(t, src, 80, 21)
	out := l.plain()
	assert.Contains(t, out, "› ✓ t01 task 1", "the first task, under the first heading")
	assert.Contains(t, out, "Phase 1")
	assert.Contains(t, out, "1/30 · ↓ 15 more", "hidden tasks are counted (not the phase heading)")

	l.press("pgdown")
	sel, ok := l.m.selectedTask()
	require.True(t, ok, "never on a heading")
	assert.NotEqual(t, "t01", sel.ID)
	l.press("G")
	sel, _ = l.m.selectedTask()
	assert.Equal(t, "t30", sel.ID)
	assert.Contains(t, l.plain(), "30/30 · ↑")
	l.press("g")
	sel, _ = l.m.selectedTask()
	assert.Equal(t, "t01", sel.ID, "top: the first task, not the heading")
	assert.Contains(t, helpDescs(l.m), "open provenance")

	l.press("b")
	require.Equal(t, modeBuilds, l.m.mode)
	out = l.plain()
	assert.Contains(t, out, "› 30  the newest build", "newest first, on the shown build")
	assert.Contains(t, out, "1/30 · ↓")
	assert.Contains(t, helpDescs(l.m), "show build")
	l.press("G", "enter")
	l.until(func() bool { return l.m.detail != nil && l.m.detail.ID == "1" })

	l.press("n")
	l.until(func() bool { return l.m.prdLoaded })
	out = l.plain()
	assert.Contains(t, out, "› ✓ p01.json")
	assert.Contains(t, out, "1/20 · ↓")
	l.press("G")
	assert.Contains(t, l.plain(), "› ✓ p20.json")
	assert.Contains(t, helpDescs(l.m), "any PRD file by its path")
}

// The builds list opens on the shown build with the rows around it in view:
// a running build second in the list still shows the newer one above it.
func TestBuildsListOpensAroundTheShownBuild(t *testing.T) {
	t.Parallel()
	src := many(t, 30)
	src.builds[1].Status, src.builds[1].Active = StatusRunning, true
	l := newLoop(t, src, 80, 21)
	require.Equal(t, "29", l.m.cur, "a running build is shown first")
	l.press("b")
	out := l.plain()
	assert.Contains(t, out, "› 29  build 29")
	assert.Contains(t, out, "30  the newest build", "the newer build above stays in view")
	assert.Contains(t, out, "2/30 · ↓")
}
