package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
)

// changesOnly is a workspace that answers GetChange from a map.
type changesOnly struct {
	engine.Workspace
	sets map[uint64]changes.Changeset
}

func (w changesOnly) GetChange(_ context.Context, id uint64) (changes.Changeset, error) {
	cs, ok := w.sets[id]
	if !ok {
		return cs, changes.ErrNotFound
	}
	return cs, nil
}

// Issue 32: `nova build show` prints each task's changeset as it is now
// (applied, reverted, discarded since), not as the task left it.
func TestBuildShowPrintsChangesetsAsTheyAreNow(t *testing.T) {
	t.Parallel()
	tasks := []build.Task{
		{ID: "t1", Agent: "MARS", Phase: 1, Status: build.TaskDone, ChangesetID: 4, Title: "applied since"},
		{ID: "t2", Agent: "MARS", Phase: 1, Status: build.TaskDone, ChangesetID: 5, Applied: true, Title: "applied, then reverted"},
		{ID: "t3", Agent: "MARS", Phase: 1, Status: build.TaskDone, ChangesetID: 6, Title: "still pending"},
		{ID: "t4", Agent: "MARS", Phase: 1, Status: build.TaskDone, ChangesetID: 7, Title: "gone"},
	}
	ws := changesOnly{sets: map[uint64]changes.Changeset{
		4: {ID: 4, Status: changes.StatusApplied}, 5: {ID: 5, Status: changes.StatusReverted}, 6: {ID: 6, Status: changes.StatusPending}}}
	var out bytes.Buffer
	printBuild(&IOStreams{Out: &out, ErrOut: &out}, build.Build{ID: 2, Name: "b", Status: build.StatusDone, Total: 4}, tasks,
		changesetStates(t.Context(), ws, tasks))
	lines := map[string]string{}
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) > 0 {
			lines[f[0]] = line
		}
	}
	assert.Contains(t, lines["t1"], "changeset 4 (applied)")
	assert.Contains(t, lines["t2"], "changeset 5 (reverted)")
	assert.Contains(t, lines["t3"], "changeset 6 (pending)")
	assert.Contains(t, lines["t4"], "changeset 7 (pending)", "unreadable: the task's own record")
}
