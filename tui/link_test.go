package tui_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/tui"
	"github.com/nova-dev/nova/tui/tuitest"
)

// fakeLink is a tui.Link with fixed answers that records what it was asked.
type fakeLink struct {
	mu          sync.Mutex
	status      tui.LinkStatus
	rejoined    tui.LinkStatus
	handoverErr error
	handedOver  []engine.RunningWork
	rejoins     int
	reconnected chan struct{}
}

func (f *fakeLink) Status(context.Context) tui.LinkStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

func (f *fakeLink) Rejoin(context.Context) (tui.LinkStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rejoins++
	f.status = f.rejoined
	return f.rejoined, nil
}

func (f *fakeLink) Handover(_ context.Context, work engine.RunningWork) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.handoverErr != nil {
		return "", f.handoverErr
	}
	f.handedOver = append(f.handedOver, work)
	return "nova: handed the workspace over to nova serve (pid 777)", nil
}

func (f *fakeLink) Reconnected() <-chan struct{} { return f.reconnected }

func newLinked(t *testing.T, ws engine.Workspace, link tui.Link, w, h int) (*tui.Model, *tuitest.ModelDriver) {
	t.Helper()
	m := tui.New(context.Background(), ws, tui.Options{Link: link})
	d := tuitest.DriveModel(t, m)
	d.Run(m.Init())
	d.Send(tea.WindowSizeMsg{Width: w, Height: h})
	return m, d
}

// TestOwnerQuitHandsOver: the owning TUI with a build running and another
// nova attached offers the hand-over; h hands the build over and quits,
// leaving a note for the terminal.
func TestOwnerQuitHandsOver(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	ws.running = []uint64{3}
	link := &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100, Clients: []int{4242}}}
	root, m := newLinked(t, ws, link, 120, 40)
	assert.Contains(t, m.Plain(), "serving 1 client", "the badge")

	m.Press("q")
	require.False(t, m.Quit, "a build runs and a client is attached: q asks")
	out := m.Plain()
	for _, want := range []string{"Quit while a build runs?", "Build 3 is running", "pid 4242", "Hand over", "Stop and quit", "Stay"} {
		assert.Contains(t, out, want)
	}
	m.Press("enter")
	assert.NotContains(t, m.Plain(), "Hand over", "enter stays")

	m.Press("q", "h")
	m.Until(func() bool { return m.Quit })
	assert.True(t, m.Quit, "handed over: the TUI quits")
	link.mu.Lock()
	assert.Equal(t, []engine.RunningWork{{Builds: []uint64{3}, GoalRuns: []uint64{}, WorkflowRuns: []uint64{}}}, link.handedOver)
	link.mu.Unlock()
	assert.Contains(t, root.ExitNote(), "handed the workspace over to nova serve (pid 777)")
}

func TestOwnerQuitWithOnlyClientsAsks(t *testing.T) {
	t.Parallel()
	link := &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100, Clients: []int{4242, 4243}}}
	_, m := newLinked(t, newFake(t), link, 100, 30)
	assert.Contains(t, m.Plain(), "serving 2 clients")
	m.Press("q")
	require.False(t, m.Quit)
	assert.Contains(t, m.Plain(), "Quit while other windows use this nova?")
	m.Press("y")
	assert.True(t, m.Quit, "y quits; the clients take over by themselves")
	link.mu.Lock()
	assert.Empty(t, link.handedOver)
	link.mu.Unlock()
}

func TestQuitAtOnceWhenNothingIsLost(t *testing.T) {
	t.Parallel()
	// The only nova on its workspace.
	_, m := newLinked(t, newFake(t), &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100}}, 100, 30)
	m.Press("q")
	assert.True(t, m.Quit)
	// A client: the owner's builds go on without it.
	ws := newFake(t)
	ws.running = []uint64{5}
	_, m = newLinked(t, ws, &fakeLink{status: tui.LinkStatus{OwnerPID: 4242}}, 100, 30)
	assert.Contains(t, m.Plain(), "client of pid 4242")
	m.Press("q")
	assert.True(t, m.Quit, "a client that runs no build quits at once")
}

func TestHandoverThatFailsStays(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	ws.running = []uint64{3}
	link := &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100}, handoverErr: errors.New("hand-over: the new owner did not start; this nova still owns the workspace")}
	root, m := newLinked(t, ws, link, 180, 40)
	m.Press("q", "h")
	m.Until(func() bool { return strings.Contains(m.Plain(), "the new owner did not start") })
	assert.Contains(t, m.Plain(), "the new owner did not start")
	assert.False(t, m.Quit)
	assert.Empty(t, root.ExitNote())
	m.Press("q")
	assert.False(t, m.Quit, "it asks again")
	assert.Contains(t, m.Plain(), "Quit while a build runs?")
}

// TestClientTakesOverWhenItsOwnerIsGone: the event stream of a client ends
// (its owner is gone): the TUI rejoins, says so, and follows the events of
// its new subscription.
func TestClientTakesOverWhenItsOwnerIsGone(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	link := &fakeLink{status: tui.LinkStatus{OwnerPID: 4242}, rejoined: tui.LinkStatus{Owner: true, OwnerPID: 99}}
	root, m := newLinked(t, ws, link, 120, 30)
	assert.Contains(t, m.Plain(), "client of pid 4242")
	ws.mu.Lock()
	old := ws.events
	ws.events = make(chan engine.Event, 16) // what the next Subscribe returns
	ws.events <- engine.Event{Type: engine.EventThemeChanged, Topic: engine.TopicWorkspace, Text: "nova-light"}
	ws.mu.Unlock()
	close(old) // the stream ends: the model's wait for the next event sees it
	m.Until(func() bool { return root.Common().Styles.Name == "nova-light" })
	link.mu.Lock()
	rejoins := link.rejoins
	link.mu.Unlock()
	assert.Equal(t, 1, rejoins)
	out := m.Plain()
	assert.Contains(t, out, "this window owns the workspace now")
	assert.NotContains(t, out, "client of pid 4242")
	assert.Equal(t, "nova-light", root.Common().Styles.Name, "events arrive through the new subscription")
}

// The hand-over question with a build, and with a build, a goal run and a
// workflow run (golden files NxM and runs_NxM).
func TestGoldenHandoverQuestion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		goals []uint64
		flows []uint64
		size  [2]int
	}{{"", nil, nil, [2]int{80, 24}}, {"", nil, nil, [2]int{180, 50}},
		{"runs_", []uint64{2}, []uint64{5}, [2]int{80, 24}}, {"runs_", []uint64{2}, []uint64{5}, [2]int{180, 50}}} {
		size := tc.size
		t.Run(fmt.Sprintf("%s%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newFake(t)
			ws.running, ws.goals, ws.flows = []uint64{3}, tc.goals, tc.flows
			link := &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100, Clients: []int{4242}}}
			_, m := newLinked(t, ws, link, size[0], size[1])
			m.Press("q")
			require.False(t, m.Quit)
			lines := strings.Split(m.Plain(), "\n")
			assert.Len(t, lines, size[1])
			golden.RequireEqual(t, m.Pinned())
		})
	}
}

// TestOwnerQuitHandsOverRuns: goal runs and workflow runs are handed over
// with the builds: the question names each with its resume command, and h
// hands over what runs when it is pressed (the question may have been open
// a while).
func TestOwnerQuitHandsOverRuns(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	ws.running, ws.goals, ws.flows = []uint64{3}, []uint64{2}, []uint64{5}
	link := &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100, Clients: []int{4242}}}
	root, m := newLinked(t, ws, link, 180, 50)

	m.Press("q")
	require.False(t, m.Quit)
	out := m.Plain()
	for _, want := range []string{"Quit while work goes on?", "Build 3, goal run 2 and workflow run 5", "pid 4242",
		"they go on there", "skill step", "`nova run resume 2`", "Hand over", "Stop and quit", "Stay"} {
		assert.Contains(t, out, want)
	}

	ws.mu.Lock()
	ws.running, ws.goals = nil, []uint64{2, 4} // build 3 ended, goal run 4 started
	ws.mu.Unlock()
	m.Press("h")
	m.Until(func() bool { return m.Quit })
	link.mu.Lock()
	assert.Equal(t, []engine.RunningWork{{Builds: []uint64{}, GoalRuns: []uint64{2, 4}, WorkflowRuns: []uint64{5}}}, link.handedOver)
	link.mu.Unlock()
	assert.Contains(t, root.ExitNote(), "handed the workspace over")
}

// TestQuitWithAGoalRunOffersTheHandOver: a goal run alone, no other nova:
// the owner still offers to hand it over (it goes on headless); without a
// link it can only interrupt it, resumable.
func TestQuitWithAGoalRunOffersTheHandOver(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	ws.goals = []uint64{7}
	link := &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100}}
	_, m := newLinked(t, ws, link, 120, 40)
	m.Press("q")
	require.False(t, m.Quit)
	out := m.Plain()
	for _, want := range []string{"Quit while a goal run goes on?", "Goal run 7 is running in this nova.", "the goal run goes on",
		"`nova run resume 7`", "Hand over"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "skill", "no workflow runs")
	m.Press("h")
	m.Until(func() bool { return m.Quit })
	link.mu.Lock()
	assert.Equal(t, []engine.RunningWork{{Builds: []uint64{}, GoalRuns: []uint64{7}, WorkflowRuns: []uint64{}}}, link.handedOver)
	link.mu.Unlock()

	// No link (nobody to hand over to): quitting interrupts.
	ws = newFake(t)
	ws.flows = []uint64{5, 6}
	_, m = newLinked(t, ws, nil, 120, 40)
	m.Press("q")
	require.False(t, m.Quit)
	out = m.Plain()
	for _, want := range []string{"Quit while a workflow runs?", "Workflow runs 5, 6 are running in this nova.", "interrupts them",
		"`nova workflow resume RUN`", "Quit and interrupt"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "Hand over")
	m.Press("y")
	assert.True(t, m.Quit)
}
