package run

import (
	"context"
	"fmt"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

// testSource is the page's Source plus the event stream the root pumps.
type testSource interface {
	Source
	Subscribe(ctx context.Context) <-chan engine.Event
}

// fakeSource hands out fixed goal runs and records what the page asks.
type fakeSource struct {
	events chan engine.Event
	mu     sync.Mutex
	runs   []goal.Detail
	arts   map[uint64]board.Artifact
	calls  []string
	err    error
}

var _ testSource = (*fakeSource)(nil)

func newFake(runs ...goal.Detail) *fakeSource {
	return &fakeSource{events: make(chan engine.Event, 64), runs: runs, arts: map[uint64]board.Artifact{}}
}

func (f *fakeSource) record(format string, a ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, a...))
}

func (f *fakeSource) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string{}, f.calls...)
}

func (f *fakeSource) Subscribe(context.Context) <-chan engine.Event { return f.events }

func (f *fakeSource) Config() workspace.Config { return workspace.Defaults() }

func (f *fakeSource) CreateGoalRun(_ context.Context, text string, _ engine.GoalRunOptions) (goal.Run, error) {
	f.record("create %s", text)
	if f.err != nil {
		return goal.Run{}, f.err
	}
	r := goal.Run{ID: uint64(len(f.runs) + 1), Goal: text, Lead: "SUN", Status: goal.StatusPaused, Board: "run:1", Limits: goal.Limits{MaxTurns: 12}}
	f.mu.Lock()
	f.runs = append([]goal.Detail{{Run: r, Turns: []goal.Turn{}, Board: board.Board{Key: fmt.Sprintf("run:%d", r.ID)}}}, f.runs...)
	f.mu.Unlock()
	return r, nil
}

func (f *fakeSource) RunGoal(_ context.Context, id uint64, o engine.RunGoalOptions) (goal.Run, error) {
	f.record("run %d attended=%v approvals=%s", id, o.Attended, o.Approvals)
	d, err := f.GetGoalRun(context.Background(), id)
	return d.Run, err
}

func (f *fakeSource) ListGoalRuns(context.Context) ([]goal.Run, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []goal.Run{}
	for _, d := range f.runs {
		out = append(out, d.Run)
	}
	return out, nil
}

func (f *fakeSource) GetGoalRun(_ context.Context, id uint64) (goal.Detail, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range f.runs {
		if d.Run.ID == id {
			return d, nil
		}
	}
	return goal.Detail{}, fmt.Errorf("%w: %d", goal.ErrNotFound, id)
}

func (f *fakeSource) AnswerGoalRun(_ context.Context, id uint64, text string) (bool, error) {
	f.record("answer %d %s", id, text)
	return true, nil
}

func (f *fakeSource) CancelGoalRun(_ context.Context, id uint64) error {
	f.record("cancel %d", id)
	return nil
}

func (f *fakeSource) ReadArtifact(_ context.Context, id uint64) (board.Artifact, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.arts[id]
	if !ok {
		return board.Artifact{}, fmt.Errorf("%w: artifact a%d", board.ErrNotFound, id)
	}
	return a, nil
}

func (f *fakeSource) ResolveBlocker(_ context.Context, key, id, _ string) (board.Blocker, error) {
	f.record("resolve %s %s", key, id)
	return board.Blocker{ID: id, Text: "which port?"}, nil
}

func (f *fakeSource) AnswerApproval(_ context.Context, id string, approve bool) error {
	f.record("approval %s %v", id, approve)
	return nil
}

// sample is a run in its third turn: EARTH's spec done, a rejected
// decision, MARS at work; the board has decisions, a blocker and artifacts.
func sample() *fakeSource {
	hand := &board.Handoff{Task: "t1", Agent: "EARTH", Summary: "specified GET /healthz with three acceptance criteria",
		Constraints: []string{"keep the route /healthz", "no external dependencies"}, Next: "MARS", Artifacts: []uint64{1}, Written: true}
	spec := "Health check spec.\n\nRoute: GET /healthz. Response: 200 with body {\"status\":\"ok\"}.\n\nAcceptance criteria:\n1. GET /healthz answers 200.\n2. The body is exactly {\"status\":\"ok\"}.\n3. The content type is application/json."
	d := goal.Detail{
		Run: goal.Run{ID: 2, Goal: "add a health check endpoint with tests", Lead: "SUN", Status: goal.StatusRunning, Board: "run:2",
			BuildID: 4, Turns: 3, Delegations: 2, Agents: []string{"EARTH", "MARS"}, Tokens: 12840, Limits: goal.Limits{MaxTurns: 12}, Active: true},
		Turns: []goal.Turn{
			{N: 1, Kind: goal.TurnDecision, TaskID: "t1", Decision: &goal.Decision{Action: goal.ActionDelegate, Agent: "EARTH",
				Reasoning: "Nothing exists yet: a short spec first, so the handler and its tests agree.",
				Task:      "Specify a health check endpoint: route, response, status codes and numbered acceptance criteria. Text only."},
				Outcome: &goal.Outcome{Status: "done", Verdict: "inconclusive", Attempts: 1, Tokens: 2100, Handoff: hand}},
			{N: 2, Kind: goal.TurnRejected, Decision: &goal.Decision{Action: goal.ActionDelegate, Agent: "GOPHER", Task: "implement it"},
				Rejected: "there is no agent \"GOPHER\" on the team; delegate to one of EARTH, MARS, SATURN"},
			{N: 3, Kind: goal.TurnDecision, TaskID: "t3", Decision: &goal.Decision{Action: goal.ActionDelegate, Agent: "MARS",
				Reasoning: "The spec is accepted; the backend engineer implements it with the spec in full.",
				Task:      "Implement the health check in internal/health/health.go from the spec.", IncludeArtifacts: []string{"a1"}}},
		},
		Board: board.Board{Key: "run:2", Goal: "implement the handler", GoalBy: "SUN",
			Decisions: []board.Decision{{Text: "the endpoint is GET /healthz and answers 200 {\"status\":\"ok\"}", By: "SUN"},
				{Text: "health responses are JSON with a status field", By: "EARTH", Task: "t1"}},
			Blockers:      []board.Blocker{{ID: "b1", Text: "which port does the service listen on?", By: "MARS", Task: "t3"}},
			Summary:       "t1 EARTH done: specified GET /healthz with three acceptance criteria",
			Artifacts:     []board.ArtifactRef{{ID: 1, Type: board.TypeOutput, Name: "Specify a health check endpoint", Preview: "Health check spec. Route: GET /healthz. Response: 200 with body {\"status\":\"ok\"}.", Tokens: 68, By: "EARTH", Task: "t1"}},
			ArtifactCount: 1, Handoffs: 1, DecisionCount: 2},
		Handoffs: []board.Handoff{*hand},
	}
	old := goal.Detail{Run: goal.Run{ID: 1, Goal: "rename the config loader", Lead: "SUN", Status: goal.StatusCompleted, Turns: 2,
		Summary: "renamed", Limits: goal.Limits{MaxTurns: 12}}, Turns: []goal.Turn{}, Board: board.Board{Key: "run:1"}}
	f := newFake(d, old)
	f.arts[1] = board.Artifact{ArtifactRef: d.Board.Artifacts[0], Board: "run:2", Content: spec}
	return f
}

// loop runs the page the way the root model does (tuitest.Driver):
// commands in goroutines, their messages back through Update, engine
// events pumped in. Keys are pressed without draining
// (PressAsync); toasts, errors and navigation are recorded, not handed to
// the page.
type loop struct {
	*tuitest.Driver
	t *testing.T
	m *Model
}

func newLoop(t *testing.T, src testSource, w, h int) *loop {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &common.Common{Ctx: ctx, Width: w, Height: h + 3, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, src)
	m.SetSize(w, h)
	l := &loop{Driver: tuitest.DriveComponent(t, m), t: t, m: m}
	l.Forward = func(tea.Msg) bool { return false }
	l.PumpEvents(src.Subscribe(ctx))
	l.Exec(m.Init())
	l.Until(func() bool { return m.loaded && (m.cur == 0 || m.detail != nil || m.detErr != nil) })
	return l
}
