package run

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/goal"
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

// long is a stopped run with n delegations, and n-1 older runs.
func long(n int) *fakeSource {
	var turns []goal.Turn
	for i := 1; i <= n; i++ {
		turns = append(turns, goal.Turn{N: i, Kind: goal.TurnDecision, TaskID: fmt.Sprintf("t%d", i),
			Decision: &goal.Decision{Action: goal.ActionDelegate, Agent: "MARS", Reasoning: fmt.Sprintf("why %d", i), Task: fmt.Sprintf("task %d", i)},
			Outcome:  &goal.Outcome{Status: "done"}})
	}
	var arts []board.ArtifactRef
	for i := 1; i <= n; i++ {
		arts = append(arts, board.ArtifactRef{ID: uint64(i), Type: board.TypeOutput, Name: fmt.Sprintf("artifact %d", i), By: "MARS"})
	}
	runs := []goal.Detail{{Run: goal.Run{ID: uint64(n), Goal: "the newest goal", Lead: "SUN", Status: goal.StatusPaused, Turns: n, Limits: goal.Limits{MaxTurns: 40}},
		Turns: turns, Board: board.Board{Key: "run:x", Artifacts: arts, ArtifactCount: n}}}
	for id := n - 1; id >= 1; id-- {
		runs = append(runs, goal.Detail{Run: goal.Run{ID: uint64(id), Goal: fmt.Sprintf("goal %d", id), Lead: "SUN", Status: goal.StatusCompleted}, Board: board.Board{Key: "run:y"}})
	}
	return newFake(runs...)
}

// Issue 32: the timeline, the board and the runs list are nova's list
// component at 80x24: the › marker, a line counting hidden rows, pgup/pgdn
// and g/G; runs newest first; the help is the page's own.
func TestListsScrollThroughTheListComponent(t *testing.T) {
	t.Parallel()
	l := newLoop(t, long(30), 80, 21)
	out := l.Plain()
	assert.Contains(t, out, "› ✓ 30 MARS task 30", "the newest turn, followed")
	assert.Regexp(t, `30/30 · ↑ \d+`, out)

	l.PressAsync("g")
	assert.Equal(t, 0, l.m.turns.Cursor())
	assert.False(t, l.m.follow)
	assert.Contains(t, l.Plain(), "› ✓  1 MARS task 1")
	l.PressAsync("pgdown")
	assert.Greater(t, l.m.turns.Cursor(), 1)
	l.PressAsync("G")
	assert.True(t, l.m.follow, "back on the newest turn: following again")
	assert.Contains(t, helpDescs(l.m), "open the delegation")

	l.PressAsync("tab", "tab") // the board: artifacts newest first
	out = l.Plain()
	assert.Contains(t, out, "› a30 output artifact 30")
	assert.Contains(t, out, "1/30 · ↓")
	l.PressAsync("G")
	assert.Contains(t, l.Plain(), "› a1 output artifact 1")
	assert.Contains(t, helpDescs(l.m), "open artifact / resolve blocker")

	l.PressAsync("esc", "b")
	require.True(t, l.m.runsOpen)
	out = l.Plain()
	assert.Regexp(t, `›\s+30  paused\s+the newest goal`, out, "runs newest first, on the shown one")
	assert.Contains(t, out, "1/30 · ↓")
	assert.Contains(t, helpDescs(l.m), "show run")
	l.PressAsync("G", "enter")
	l.Until(func() bool { return l.m.detail != nil && l.m.detail.Run.ID == 1 })
	assert.False(t, l.m.runsOpen)
}

// The runs list opens on the shown run with the rows around it in view: a
// live run second in the list still shows the newer one above it.
func TestRunsListOpensAroundTheShownRun(t *testing.T) {
	t.Parallel()
	src := long(30)
	src.runs[1].Run.Active = true
	l := newLoop(t, src, 80, 21)
	require.Equal(t, uint64(29), l.m.cur, "a live run is shown first")
	l.PressAsync("b")
	out := l.Plain()
	assert.Regexp(t, `›\s+29  `, out)
	assert.Contains(t, out, "the newest goal", "the newer run above stays in view")
	assert.Contains(t, out, "2/30 · ↓")
}
