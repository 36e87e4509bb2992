package build

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/engine"
	enginebuild "github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// fakeWS is a workspace for the fake-source tests: only Info, Config and
// Subscribe are used, and Plans by the PRD picker.
type fakeWS struct {
	engine.Workspace
	root    string
	events  chan engine.Event
	mu      sync.Mutex
	answers []string
}

func (f *fakeWS) AnswerApproval(id string, approve bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, fmt.Sprintf("%s %v", id, approve))
	return nil
}

// Plans lists the plans as the engine does, without a roster (any agent).
func (f *fakeWS) Plans(context.Context) ([]enginebuild.PlanFile, error) {
	return enginebuild.ListPlans(filepath.Join(f.root, ".nova", "prds"), nil)
}

func (f *fakeWS) Info() engine.Info                             { return engine.Info{Root: f.root} }
func (f *fakeWS) Config() workspace.Config                      { return workspace.Defaults() }
func (f *fakeWS) Subscribe(context.Context) <-chan engine.Event { return f.events }

// fakeSource is a deterministic build source.
type fakeSource struct {
	mu      sync.Mutex
	builds  []Detail
	calls   []string
	started []string
	err     error
}

func (f *fakeSource) List(context.Context) ([]Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Summary
	for _, b := range f.builds {
		out = append(out, b.Summary)
	}
	return out, nil
}

func (f *fakeSource) Get(_ context.Context, id string) (Detail, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.builds {
		if b.ID == id {
			return b, nil
		}
	}
	return Detail{}, fmt.Errorf("build %s not found", id)
}

func (f *fakeSource) Start(_ context.Context, path string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return "", f.err
	}
	f.started = append(f.started, path)
	return "1", nil
}

func (f *fakeSource) control(verb, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, verb+" "+id)
	return nil
}

func (f *fakeSource) Pause(_ context.Context, id string) error  { return f.control("pause", id) }
func (f *fakeSource) Resume(_ context.Context, id string) error { return f.control("resume", id) }
func (f *fakeSource) Cancel(_ context.Context, id string) error { return f.control("cancel", id) }

// sample is a build in the middle of its second phase.
func sample() *fakeSource {
	at := func(m int) time.Time { return epoch.Add(time.Duration(m) * time.Minute) }
	d := Detail{
		Summary: Summary{ID: "3", Name: "UA Dashboard v1", PRD: ".nova/prds/prd-ua.json", Status: StatusRunning,
			Started: at(0), Done: 2, Total: 6, Tokens: 18400, Active: true},
		Tasks: []Task{
			{ID: "ua-01", Title: "Define the event schema", Agent: "PLUTO", Phase: 1, Status: StatusDone, Attempts: 1,
				Started: at(0), Elapsed: 94 * time.Second, Tokens: 5200, GateScore: 1,
				Gates: []Gate{{Name: "output", Passed: true, Score: 1}, {Name: "confinement", Passed: true, Score: 1}}},
			{ID: "ua-02", Title: "Ingest API for usage events", Agent: "MARS", Phase: 1, Status: StatusDone, Attempts: 2,
				Deps: []string{"ua-01"}, Started: at(2), Elapsed: 3*time.Minute + 12*time.Second, Tokens: 9100, GateScore: 0.85,
				History: []Attempt{{N: 1, Score: 0.3, Reason: "gate check:go build ./... failed: undefined: Event", Tokens: 4300},
					{N: 2, Passed: true, Score: 0.85, Tokens: 4800}},
				Gates: []Gate{{Name: "output", Passed: true, Score: 1}, {Name: "check:go build ./...", Passed: true, Score: 1, Detail: "ok in 2.1s"}}},
			{ID: "ua-03", Title: "Aggregate daily active users", Agent: "MARS", Phase: 2, Status: StatusRunning, Attempts: 1,
				Deps: []string{"ua-02"}, Started: at(6), Tokens: 4100,
				VaultNodes: []VaultRef{{ID: 12, Type: "strategy", Content: "Aggregate in SQL, not in Go loops"}, {ID: 40, Type: "mistake", Content: "Forgot the time zone when bucketing by day"}},
				Rules:      []RuleRef{{ID: "r2", Agent: "MARS", Content: "Wrap errors with the failing operation"}}},
			{ID: "ua-04", Title: "Dashboard layout", Agent: "VENUS", Phase: 2, Status: StatusWaiting, Deps: []string{"ua-01"}},
			{ID: "ua-05", Title: "Retention chart", Agent: "VENUS", Phase: 3, Status: StatusPending, Deps: []string{"ua-03", "ua-04"}},
			{ID: "ua-06", Title: "Load test the ingest path", Agent: "SATURN", Phase: 3, Status: StatusBlocked, Attempts: 2,
				Deps: []string{"ua-02"}, Reason: "gate check:go test ./... failed twice: TestIngestBurst timed out", GateScore: 0.4,
				Gates: []Gate{{Name: "output", Passed: true, Score: 1}, {Name: "check:go test ./...", Passed: false, Score: 0, Detail: "TestIngestBurst timed out after 30s"}}},
		},
	}
	old := Detail{Summary: Summary{ID: "2", Name: "Settings page", Status: StatusDone, Started: epoch.Add(-26 * time.Hour), Finished: epoch.Add(-25 * time.Hour), Done: 4, Total: 4}}
	return &fakeSource{builds: []Detail{d, old}}
}

// loop is a small Bubble Tea runtime: commands run in goroutines, their
// messages come back to the page in order, engine events are pumped like
// the root model does.
type loop struct {
	t      *testing.T
	m      *Model
	msgs   chan tea.Msg
	navs   []common.NavigateMsg
	events <-chan engine.Event
}

func newLoop(t *testing.T, ws engine.Workspace, src Source, w, h int) *loop {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &common.Common{Ctx: ctx, Width: w, Height: h + 3, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap(), WS: ws}
	m := NewWithSource(c, src)
	m.SetClock(func() time.Time { return epoch.Add(8 * time.Minute) })
	m.SetSize(w, h)
	l := &loop{t: t, m: m, msgs: make(chan tea.Msg, 1024), events: ws.Subscribe(ctx)}
	l.exec(common.WaitEvent(l.events))
	l.exec(m.Init())
	l.until(func() bool { return m.loaded && (m.cur == "" || m.detail != nil || m.detErr != nil) })
	return l
}

func (l *loop) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { l.msgs <- cmd() }()
}

func (l *loop) dispatch(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			l.exec(c)
		}
	case common.NavigateMsg:
		l.navs = append(l.navs, msg)
	case common.EventMsg:
		_, cmd := l.m.Update(msg)
		l.exec(cmd)
		l.exec(common.WaitEvent(l.events))
	default:
		_, cmd := l.m.Update(msg)
		l.exec(cmd)
	}
}

func (l *loop) until(cond func() bool) {
	l.t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case msg := <-l.msgs:
			l.dispatch(msg)
		case <-deadline:
			l.t.Fatalf("condition not reached; screen:\n%s", ansi.Strip(l.m.View()))
		}
	}
}

func (l *loop) settle(d time.Duration) {
	end := time.After(d)
	for {
		select {
		case msg := <-l.msgs:
			l.dispatch(msg)
		case <-end:
			return
		}
	}
}

func (l *loop) press(keys ...string) {
	for _, k := range keys {
		msg := tuitest.Key(k)
		l.dispatch(msg)
	}
}

func (l *loop) plain() string { return ansi.Strip(l.m.View()) }

func (l *loop) pinned() string {
	return tuitest.Pinned(l.m.View())
}
