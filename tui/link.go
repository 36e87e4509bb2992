package tui

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/tui/common"
)

// Link is how this TUI holds its workspace (DESIGN, "Many windows"): as the
// nova process that owns it, serving every other nova on the workspace's
// socket, or as a client of the one that does. cmd/nova implements it over
// engine/owner; nil (tests, a workspace no other process can reach) hides
// the badge and the hand-over.
type Link interface {
	// Status says who owns the workspace now and who is attached. It may do
	// I/O (a client asks the owner): call it in a tea.Cmd.
	Status(ctx context.Context) LinkStatus
	// Rejoin is called when the owner went away for good (the event stream
	// ended): this TUI becomes the owner, or the client of the nova that
	// took over. The Workspace the TUI holds keeps working either way.
	Rejoin(ctx context.Context) (LinkStatus, error)
	// Handover starts a headless owner (`nova serve`) and hands the
	// workspace over to it with the work running here (builds, goal runs,
	// workflow runs: they stop, resumable, and resume there). An error
	// leaves this process the owner (stay); otherwise the TUI quits and
	// prints the note.
	Handover(ctx context.Context, work engine.RunningWork) (note string, err error)
	// Reconnected receives a value each time the event stream was opened
	// again with a new connection (events may have been lost meanwhile).
	Reconnected() <-chan struct{}
}

// LinkStatus is the badge's facts.
type LinkStatus struct {
	// Owner: this process owns the workspace.
	Owner bool
	// OwnerPID is the owning process (this one when Owner).
	OwnerPID int
	// Clients are the other nova processes attached to the owner (for a
	// client: the others besides this one).
	Clients []int
	// Lost: no owner answers right now (a client between owners).
	Lost bool
}

// badge is the status bar's text for the link ("" when there is nothing
// to say: the only nova on its workspace).
func (s LinkStatus) badge() string {
	switch {
	case s.Lost:
		return "owner gone…"
	case s.Owner && len(s.Clients) == 1:
		return "serving 1 client"
	case s.Owner && len(s.Clients) > 1:
		return fmt.Sprintf("serving %d clients", len(s.Clients))
	case !s.Owner && s.OwnerPID != 0:
		return "client of pid " + strconv.Itoa(s.OwnerPID)
	}
	return ""
}

// shortBadge is the badge for a narrow status bar.
func (s LinkStatus) shortBadge() string {
	switch {
	case s.Lost:
		return "owner gone…"
	case s.Owner && len(s.Clients) > 0:
		return fmt.Sprintf("serving %d", len(s.Clients))
	case !s.Owner && s.OwnerPID != 0:
		return "client·" + strconv.Itoa(s.OwnerPID)
	}
	return ""
}

// linkEvery is how often the badge is refreshed.
const linkEvery = 2 * time.Second

type (
	linkTickMsg   struct{}
	linkStatusMsg struct{ status LinkStatus }
	reconnectMsg  struct{}
	// eventsClosedMsg: the event stream ended (the owner is gone).
	eventsClosedMsg struct{}
	rejoinedMsg     struct {
		status LinkStatus
		err    error
	}
	handoverDoneMsg struct {
		note string
		err  error
	}
)

func (m *Model) fetchLink() tea.Cmd {
	link, ctx := m.link, m.c.Ctx
	if link == nil {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, quitCheckTimeout)
		defer cancel()
		return linkStatusMsg{status: link.Status(ctx)}
	}
}

func linkTick() tea.Cmd {
	return tea.Tick(linkEvery, func(time.Time) tea.Msg { return linkTickMsg{} })
}

func waitReconnect(link Link) tea.Cmd {
	if link == nil {
		return nil
	}
	ch := link.Reconnected()
	if ch == nil {
		return nil
	}
	return common.Await(func() tea.Msg {
		if _, ok := <-ch; !ok {
			return nil
		}
		return reconnectMsg{}
	})
}

// waitEvents waits for the next event; a closed stream is eventsClosedMsg.
func waitEvents(ch <-chan engine.Event) tea.Cmd {
	if ch == nil {
		return nil
	}
	return common.Await(func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsClosedMsg{}
		}
		return common.EventMsg{Event: ev}
	})
}

func (m *Model) rejoin() tea.Cmd {
	link, ctx := m.link, m.c.Ctx
	return func() tea.Msg {
		st, err := link.Rejoin(ctx)
		return rejoinedMsg{status: st, err: err}
	}
}

// rejoined resubscribes and refreshes every page after the owner changed.
func (m *Model) rejoined(msg rejoinedMsg) tea.Cmd {
	if msg.err != nil {
		m.link0 = LinkStatus{Lost: true}
		return tea.Batch(m.setToast("the owning nova is gone and this window could not take over: "+msg.err.Error()+" (quit and start nova again)", true),
			tea.Tick(time.Second, func(time.Time) tea.Msg { return eventsClosedMsg{} }))
	}
	m.link0 = msg.status
	m.events = m.ws.Subscribe(m.c.Ctx)
	note := "this window owns the workspace now (its owner went away)"
	if !msg.status.Owner {
		note = fmt.Sprintf("now working through pid %d (the owner went away)", msg.status.OwnerPID)
	}
	return tea.Batch(waitEvents(m.events), m.setToast(note, false), func() tea.Msg { return refreshAllMsg{} })
}

// runSet is the builds (or goal runs, or workflow runs) this TUI runs (its
// RunBuild, RunGoal or RunWorkflow calls in flight): a client that quits
// stops them, since their call ends with it.
type runSet struct {
	mu  sync.Mutex
	ids map[uint64]int
}

func (r *runSet) add(id uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids = map[uint64]int{}
	}
	r.ids[id]++
}

func (r *runSet) done(id uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids[id]--; r.ids[id] <= 0 {
		delete(r.ids, id)
	}
}

func (r *runSet) list() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]uint64, 0, len(r.ids))
	for id := range r.ids {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// tracked is the workspace the pages get: the TUI's, noting the builds,
// goal runs and workflow runs it runs.
type tracked struct {
	engine.Workspace
	runs  *runSet
	goals *runSet
	flows *runSet
	chats *runSet
}

// ChatSend sends a chat message, noted while its turn runs.
func (t tracked) ChatSend(ctx context.Context, a engine.ChatSendArgs) (engine.ChatReply, error) {
	if a.Session != 0 && t.chats != nil {
		t.chats.add(a.Session)
		defer t.chats.done(a.Session)
	}
	return t.Workspace.ChatSend(ctx, a)
}

// RunBuild runs a build, noted while it runs.
func (t tracked) RunBuild(ctx context.Context, id uint64, o engine.RunBuildOptions) (build.Build, error) {
	t.runs.add(id)
	defer t.runs.done(id)
	return t.Workspace.RunBuild(ctx, id, o)
}

// RunGoal runs a goal run, noted while it runs.
func (t tracked) RunGoal(ctx context.Context, id uint64, o engine.RunGoalOptions) (goal.Run, error) {
	t.goals.add(id)
	defer t.goals.done(id)
	return t.Workspace.RunGoal(ctx, id, o)
}

// RunWorkflow runs a workflow run, noted while it runs.
func (t tracked) RunWorkflow(ctx context.Context, id uint64, o engine.RunWorkflowOptions) (workflow.Run, error) {
	t.flows.add(id)
	defer t.flows.done(id)
	return t.Workspace.RunWorkflow(ctx, id, o)
}

func idList(ids []uint64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(s, ", ")
}

func pidList(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = "pid " + strconv.Itoa(p)
	}
	return strings.Join(s, ", ")
}
