package tui_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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
	handedOver  [][]uint64
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

func (f *fakeLink) Handover(_ context.Context, builds []uint64) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.handoverErr != nil {
		return "", f.handoverErr
	}
	f.handedOver = append(f.handedOver, builds)
	return "nova: handed the workspace over to nova serve (pid 777)", nil
}

func (f *fakeLink) Reconnected() <-chan struct{} { return f.reconnected }

func newLinked(t *testing.T, ws engine.Workspace, link tui.Link, w, h int) (*tui.Model, tea.Model) {
	t.Helper()
	m := tui.New(context.Background(), ws, tui.Options{Link: link})
	var model tea.Model = m
	model = driveWithin(model, model.Init(), 500*time.Millisecond)
	model, _ = model.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m, model
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
	assert.Contains(t, plain(m), "serving 1 client", "the badge")

	m, quit := quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	require.False(t, quit, "a build runs and a client is attached: q asks")
	out := plain(m)
	for _, want := range []string{"Quit while a build runs?", "Build 3 is running", "pid 4242", "Hand over", "Stop and quit", "Stay"} {
		assert.Contains(t, out, want)
	}
	m = press(t, m, "enter")
	assert.NotContains(t, plain(m), "Hand over", "enter stays")

	m, _ = quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	m, cmd := m.Update(tuitest.Key("h"))
	require.NotNil(t, cmd)
	quitNow := false
	queue := collect(cmd)
	for steps := 0; len(queue) > 0 && steps < 20 && !quitNow; steps++ {
		msg := queue[0]
		queue = queue[1:]
		if _, ok := msg.(tea.QuitMsg); ok {
			quitNow = true
			break
		}
		var next tea.Cmd
		m, next = m.Update(msg)
		queue = append(queue, collect(next)...)
	}
	assert.True(t, quitNow, "handed over: the TUI quits")
	assert.Equal(t, [][]uint64{{3}}, link.handedOver)
	assert.Contains(t, root.ExitNote(), "handed the workspace over to nova serve (pid 777)")
}

// collect runs a command (and the commands of a batch) to its messages.
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := runCmd(cmd)
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, collect(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

func TestOwnerQuitWithOnlyClientsAsks(t *testing.T) {
	t.Parallel()
	link := &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100, Clients: []int{4242, 4243}}}
	_, m := newLinked(t, newFake(t), link, 100, 30)
	assert.Contains(t, plain(m), "serving 2 clients")
	m, quit := quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	require.False(t, quit)
	assert.Contains(t, plain(m), "Quit while other windows use this nova?")
	m, cmd := m.Update(tuitest.Key("y"))
	require.NotNil(t, cmd)
	_, cmd = m.Update(cmd())
	require.NotNil(t, cmd)
	assert.Equal(t, tea.QuitMsg{}, cmd(), "y quits; the clients take over by themselves")
	assert.Empty(t, link.handedOver)
}

func TestQuitAtOnceWhenNothingIsLost(t *testing.T) {
	t.Parallel()
	// The only nova on its workspace.
	_, m := newLinked(t, newFake(t), &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100}}, 100, 30)
	_, quit := quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	assert.True(t, quit)
	// A client: the owner's builds go on without it.
	ws := newFake(t)
	ws.running = []uint64{5}
	_, m = newLinked(t, ws, &fakeLink{status: tui.LinkStatus{OwnerPID: 4242}}, 100, 30)
	assert.Contains(t, plain(m), "client of pid 4242")
	_, quit = quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	assert.True(t, quit, "a client that runs no build quits at once")
}

func TestHandoverThatFailsStays(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	ws.running = []uint64{3}
	link := &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100}, handoverErr: errors.New("hand-over: the new owner did not start; this nova still owns the workspace")}
	root, m := newLinked(t, ws, link, 180, 40)
	m, _ = quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	m = press(t, m, "h")
	assert.Contains(t, plain(m), "the new owner did not start")
	assert.Empty(t, root.ExitNote())
	_, quit := quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	assert.False(t, quit, "it asks again")
}

// TestClientTakesOverWhenItsOwnerIsGone: the event stream of a client ends
// (its owner is gone): the TUI rejoins, says so, and follows the events of
// its new subscription.
func TestClientTakesOverWhenItsOwnerIsGone(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	link := &fakeLink{status: tui.LinkStatus{OwnerPID: 4242}, rejoined: tui.LinkStatus{Owner: true, OwnerPID: 99}}
	root, m := newLinked(t, ws, link, 120, 30)
	assert.Contains(t, plain(m), "client of pid 4242")
	old := ws.events
	ws.events = make(chan engine.Event, 16) // what the next Subscribe returns
	ws.events <- engine.Event{Type: engine.EventThemeChanged, Topic: engine.TopicWorkspace, Text: "nova-light"}
	close(old) // the stream ends
	// Init's commands include the wait for the next event, which now sees
	// the end of the stream.
	m = driveWithin(m, m.Init(), 300*time.Millisecond)
	link.mu.Lock()
	rejoins := link.rejoins
	link.mu.Unlock()
	assert.Equal(t, 1, rejoins)
	out := plain(m)
	assert.Contains(t, out, "this window owns the workspace now")
	assert.NotContains(t, out, "client of pid 4242")
	assert.Equal(t, "nova-light", root.Common().Styles.Name, "events arrive through the new subscription")
}

func TestGoldenHandoverQuestion(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {180, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newFake(t)
			ws.running = []uint64{3}
			link := &fakeLink{status: tui.LinkStatus{Owner: true, OwnerPID: 100, Clients: []int{4242}}}
			_, m := newLinked(t, ws, link, size[0], size[1])
			m, quit := quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
			require.False(t, quit)
			lines := strings.Split(plain(m), "\n")
			assert.Len(t, lines, size[1])
			golden.RequireEqual(t, pinned(t, m))
		})
	}
}
