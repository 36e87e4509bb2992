package tui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/changes"
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
	v := plain(m)
	assert.GreaterOrEqual(t, strings.Count(v, "completed the interrupted apply of changeset 7"), 2, "a toast and an Activity line:\n%s", v)
}
