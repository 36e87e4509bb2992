package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/library/workflow"
)

// A follower whose stream lost the run's last event (it was published
// while the follower waited for the next owner) still shows the run's end,
// made from its state; one that saw it shows it once.
func TestTheEndOfAFollowedRunIsShownOnce(t *testing.T) {
	t.Parallel()
	f := workflowFollower(nil, 4)
	var shown []engine.Event
	show := func(ev engine.Event) bool {
		shown = append(shown, ev)
		return isWorkflowEnd(ev, "4")
	}

	// Lost: the stream carried a step, never the end.
	events := make(chan engine.Event, 1)
	events <- engine.Event{Topic: engine.TopicWorkflow, RunID: "4", TaskID: "study", Type: engine.EventStep}
	printed, sawEnd := printEvents(events, show)
	f.showEnd(workflow.Run{ID: 4, Status: workflow.RunDone}, printed, func() { close(events) }, sawEnd, show)
	require.Len(t, shown, 2)
	assert.Equal(t, engine.EventDone, shown[1].Type)
	assert.True(t, isWorkflowEnd(shown[1], "4"), "a reader waiting for the end gets it")
	assert.False(t, shown[1].Time.IsZero())

	// Seen: nothing more is shown.
	shown = nil
	events = make(chan engine.Event, 1)
	events <- engine.Event{Topic: engine.TopicWorkflow, RunID: "4", Type: engine.EventDone}
	printed, sawEnd = printEvents(events, show)
	f.showEnd(workflow.Run{ID: 4, Status: workflow.RunDone}, printed, func() {}, sawEnd, show)
	assert.Len(t, shown, 1)

	// A goal run that stopped on a limit ends with a change its readers know.
	g := goalFollower(nil, 2).end(goal.Run{ID: 2, Status: goal.StatusStopped, Reason: "turn limit"})
	assert.True(t, isGoalEnd(g, "2"))
	assert.Equal(t, "run stopped: turn limit", g.Text)
}
