package tui

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
)

// The quit question's words for each mix of work, as the owner that can
// hand over, the owner that cannot, and a client.
func TestQuitQuestionNamesTheWork(t *testing.T) {
	t.Parallel()
	mixed := engine.RunningWork{Builds: []uint64{3}, GoalRuns: []uint64{2}, WorkflowRuns: []uint64{5}}
	for _, tc := range []struct {
		name          string
		work          engine.RunningWork
		owner, hand   bool
		clients       []int
		title         string
		body, notBody []string
		yes, alt      string
	}{
		{name: "mixed, hand over", work: mixed, owner: true, hand: true, clients: []int{4242},
			title: "Quit while work goes on?",
			body: []string{"Build 3, goal run 2 and workflow run 5 are running in this nova. Another nova (pid 4242) works through this one.",
				"takes the workspace, they go on there (a workflow's skill step starts over) and every window keeps working.",
				"`nova build resume 3` or `nova run resume 2` or `nova workflow resume 5` continues them later."},
			notBody: []string{"screen)"}, yes: "Stop and quit", alt: "Hand over"},
		{name: "one goal run, hand over, no clients", work: engine.RunningWork{GoalRuns: []uint64{7}}, owner: true, hand: true,
			title:   "Quit while a goal run goes on?",
			body:    []string{"Goal run 7 is running in this nova.\n\nHand over:", "the goal run goes on there and", "`nova run resume 7` continues it later."},
			notBody: []string{"skill", "works through"}, yes: "Stop and quit", alt: "Hand over"},
		{name: "workflow runs, no link", work: engine.RunningWork{WorkflowRuns: []uint64{5, 6}}, owner: true,
			title:   "Quit while a workflow runs?",
			body:    []string{"Workflow runs 5, 6 are running in this nova. Quitting interrupts them", "`nova workflow resume RUN` (or R on the Library screen) continues them later."},
			notBody: []string{"Hand over"}, yes: "Quit and interrupt"},
		{name: "client's builds", work: engine.RunningWork{Builds: []uint64{3, 4}},
			title: "Quit while a build runs?",
			body:  []string{"Builds 3, 4 are running, started in this window (in the nova that owns the workspace).", "`nova build resume ID` (or p on the Build screen) continues them later."},
			yes:   "Quit and interrupt"},
		{name: "client's goal run", work: engine.RunningWork{GoalRuns: []uint64{2}},
			title: "Quit while a goal run goes on?",
			body:  []string{"Goal run 2 is running, started in this window", "`nova run resume 2` (or p on the Run screen) continues it later."},
			yes:   "Quit and interrupt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, ask := quitQuestion(tc.work, tc.owner, tc.hand, tc.clients)
			require.True(t, ask)
			assert.Equal(t, tc.title, o.Title)
			for _, want := range tc.body {
				assert.Contains(t, o.Body, want)
			}
			for _, not := range tc.notBody {
				assert.NotContains(t, o.Body, not)
			}
			assert.Equal(t, tc.yes, o.Yes)
			assert.Equal(t, tc.alt, o.Alt)
			assert.Equal(t, "Stay", o.No)
			assert.True(t, o.Danger, "stay is the default")
			assert.Equal(t, tc.work, o.Payload, "what h hands over")
		})
	}
	// Nothing runs: ask only an owner with clients (which can hand them over).
	_, ask := quitQuestion(engine.RunningWork{}, true, true, nil)
	assert.False(t, ask)
	_, ask = quitQuestion(engine.RunningWork{}, true, false, []int{4242})
	assert.False(t, ask)
	o, ask := quitQuestion(engine.RunningWork{}, true, true, []int{4242})
	require.True(t, ask)
	assert.Equal(t, "Quit while other windows use this nova?", o.Title)
}

func TestQuitWhileAChatTurnRunsOffersTheHandOver(t *testing.T) {
	t.Parallel()
	opts, ask := quitQuestion(engine.RunningWork{ChatSessions: []uint64{4}}, true, true, nil)
	require.True(t, ask)
	assert.Equal(t, "Quit while a chat turn runs?", opts.Title)
	assert.Contains(t, opts.Body, "Chat session 4 is running")
	assert.Contains(t, opts.Body, "`nova chat resume 4`")
	assert.Equal(t, "Hand over", opts.Alt)
}
