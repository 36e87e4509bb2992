package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// Issue 32: `nova build resume` of a goal run's build (a stopped goal run
// leaves it paused 0/0) does not "finish" it: it points to the goal run.
func TestBuildResumeOfAGoalRunsBuildPointsToTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	stopTestOwner(t, dir)
	ws, err := engine.Open(t.Context(), engine.Options{Root: dir, Getenv: testGetenv(dir, nil), NoSync: true})
	require.NoError(t, err)
	r, err := ws.CreateGoalRun(t.Context(), "add a health check endpoint", engine.GoalRunOptions{})
	require.NoError(t, err)
	require.NoError(t, ws.Close())

	res := runNova(t, dir, nil, "build", "resume", strconv.FormatUint(r.BuildID, 10))
	assert.Equal(t, 2, res.code, res.stdout+res.stderr)
	assert.Contains(t, res.stderr, fmt.Sprintf("resume the goal run with `nova run resume %d`", r.ID))
	res = runNova(t, dir, nil, "build", "show", strconv.FormatUint(r.BuildID, 10), "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var shown struct {
		Status string `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &shown))
	assert.Equal(t, "paused", shown.Status, "the build was not finished")
}

// Issue 32: doctor's details line up in one column, "capabilities" too.
func TestDoctorChecksLineUp(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	printChecks(&IOStreams{Out: &out, ErrOut: &out}, []engine.Check{
		{Name: "workspace", Status: "pass", Detail: "/w"},
		{Name: "capabilities", Status: "pass", Detail: "small=q (tools)"},
		{Name: "ollama", Status: "fail", Detail: "down", Hint: "start it"},
	})
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	require.Len(t, lines, 4)
	at := func(line, sub string) int { return utf8.RuneCountInString(line[:strings.Index(line, sub)]) }
	col := at(lines[0], "/w")
	assert.Equal(t, col, at(lines[1], "small=q"))
	assert.Equal(t, col, at(lines[2], "down"))
	assert.Equal(t, col, at(lines[3], "→"), "the hint's arrow starts in the column")
}
