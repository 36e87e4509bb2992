package tui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/tui"
)

// recoveringWS is a workspace whose open completed an interrupted apply.
type recoveringWS struct {
	*fakeWS
	rec engine.Recovery
}

func (r *recoveringWS) TakeRecoveredApplies(context.Context) (engine.Recovery, error) {
	return r.rec, nil
}

// Issue 11: an apply a crash interrupted, completed when the TUI opened the
// workspace, is told: a toast and a line in Home's Activity.
func TestStartupTellsOfARecoveredApply(t *testing.T) {
	t.Parallel()
	ws := &recoveringWS{fakeWS: newFake(t), rec: engine.Recovery{Applies: []changes.Recovered{
		{ID: 7, Completed: []string{"b.txt"}, AlreadyWritten: []string{"a.txt"}, Status: changes.StatusApplied},
	}}}
	m := newModel(t, ws, 160, 48)
	v := m.Plain()
	assert.GreaterOrEqual(t, strings.Count(v, "completed the interrupted apply of changeset 7"), 2, "a toast and an Activity line:\n%s", v)
}

// The palette offers "revert a change": it opens the Changes screen on the
// revert of the newest applied changeset (which still asks).
func TestPaletteRevertsAChange(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	ctx := context.Background()
	d := ws.Changes().NewDraft(changes.Meta{Agent: "MARS", Task: "write notes"})
	id, err := d.Put(ctx, "notes.md", []byte("notes\n"))
	require.NoError(t, err)
	_, err = ws.Changes().Apply(ctx, id, changes.ApplyOptions{})
	require.NoError(t, err)

	m := newModel(t, ws, 120, 40)
	m.Press("ctrl+p")
	m.Type("revert")
	assert.Contains(t, m.Plain(), "Revert a change")
	m.Press("enter")
	m.Until(func() bool { return strings.Contains(m.Plain(), "Revert changeset #1?") })
	assert.Equal(t, "changes", m.Model().(*tui.Model).ActivePage())
}

// At 80 columns a toast gets the status bar's room: the left part and the
// footer hint shorten so that it is read, not cut to a word.
func TestAToastGetsTheStatusBarsRoomAt80Columns(t *testing.T) {
	t.Parallel()
	ws := &recoveringWS{fakeWS: newFake(t), rec: engine.Recovery{Applies: []changes.Recovered{
		{ID: 7, Completed: []string{"b.txt"}, Status: changes.StatusApplied},
	}}}
	m := newModel(t, ws, 80, 24)
	lines := strings.Split(strings.TrimRight(m.Plain(), "\n"), "\n")
	status := lines[len(lines)-1]
	assert.Contains(t, status, "completed the interrupted apply of", "status line: %q", status)
	assert.Contains(t, status, "? help")
	assert.LessOrEqual(t, len([]rune(status)), 80)
}
