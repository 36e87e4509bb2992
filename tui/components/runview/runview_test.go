package runview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// fakeWS is a small Source: it answers approvals, runs a scripted RunAgent
// and publishes the script's events to its subscribers as the engine does
// (tagged with the run's op; deltas dropped for a full subscriber).
type fakeWS struct {
	mu      sync.Mutex
	answers map[string]bool
	subs    map[chan engine.Event]bool
	run     func(ctx context.Context, opts engine.RunOptions, emit func(agents.Event)) (engine.RunResult, error)
}

var _ Source = (*fakeWS)(nil)

func (f *fakeWS) Subscribe(ctx context.Context) <-chan engine.Event {
	ch := make(chan engine.Event, 256)
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[chan engine.Event]bool{}
	}
	f.subs[ch] = true
	f.mu.Unlock()
	go func() {
		<-ctx.Done()
		f.mu.Lock()
		delete(f.subs, ch)
		close(ch)
		f.mu.Unlock()
	}()
	return ch
}

func (f *fakeWS) publish(op string, ev agents.Event) {
	e := engine.Event{Type: engine.EventLog, Topic: engine.TopicAgent, Op: op, Agent: &ev}
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		if ev.Type == agents.EventDelta {
			select {
			case ch <- e:
			default: // dropped, as the engine drops deltas for a slow subscriber
			}
			continue
		}
		ch <- e
	}
}

func (f *fakeWS) AnswerApproval(_ context.Context, id string, approve bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id == "gone" {
		return fmt.Errorf("%w: %s", engine.ErrNoSuchApproval, id)
	}
	if f.answers == nil {
		f.answers = map[string]bool{}
	}
	f.answers[id] = approve
	return nil
}

func (f *fakeWS) RunAgent(ctx context.Context, _, _ string, opts engine.RunOptions) (engine.RunResult, error) {
	return f.run(ctx, opts, func(ev agents.Event) { f.publish(opts.Op, ev) })
}

var mars = agents.Spec{ID: "MARS", Display: agents.Display{Name: "Mars", Emoji: "🔧"}}

func newModel(ws Source, w, h int) *Model {
	c := &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, ws)
	m.now = func() time.Time { return epoch.Add(14 * time.Second) }
	m.SetSize(w, h)
	return m
}

// script puts m in a running state fed by synthetic events.
func script(m *Model) *stream {
	st := &stream{ctx: context.Background(), ch: make(chan agents.Event, 1)}
	m.spec, m.task, m.st, m.state, m.started = mars, "Add a /health endpoint that reports the build version", st, Running, epoch
	return st
}

func feed(m *Model, st *stream, evs ...agents.Event) {
	for _, ev := range evs {
		ev.RunID = 42
		m.Update(eventMsg{st: st, ev: ev})
	}
}

var progress = []agents.Event{
	{Type: agents.EventStart, Tier: "medium", Model: "qwen2.5-coder:7b"},
	{Type: agents.EventStep, Step: 1},
	{Type: agents.EventDelta, Text: "I will look at the "},
	{Type: agents.EventDelta, Text: "server first."},
	{Type: agents.EventToolCall, Tool: "readFile", Args: `{"path":"server.go"}`},
	{Type: agents.EventToolResult, Tool: "readFile", Status: "ok", Text: "package main\n..."},
	{Type: agents.EventStep, Step: 2},
	{Type: agents.EventToolCall, Tool: "writeFile", Args: `{"path":"health.go","content":"package main…"}`},
	{Type: agents.EventToolResult, Tool: "writeFile", Status: "ok", Text: "staged health.go in changeset 3"},
	{Type: agents.EventStep, Step: 3},
	{Type: agents.EventToolCall, Tool: "runCommand", Args: `{"command":"go test ./..."}`},
}

var request = tools.ApprovalRequest{ID: "ap-1", RunID: 42, Agent: "MARS", Tool: "runCommand", Command: "go test ./...", Dir: ".", Reason: "autonomy 2 asks before commands"}

func approvalEvent(req tools.ApprovalRequest) common.EventMsg {
	return common.EventMsg{Event: engine.Event{Type: engine.EventNeedsApproval, Topic: engine.TopicAgent, RunID: "42", Status: req.ID, Approval: &req}}
}

// finished ran go test after its last write: verified.
var finished = agents.Run{
	ID: 42, Agent: "MARS", Status: agents.RunDone, ChangesetID: 3, Files: []string{"health.go", "main.go"}, Verified: true,
	Outcome: agents.SpecialistOutcome{OK: true, Result: "Added health.go and registered /health in main.go.",
		Meta: agents.RunMeta{Duration: 23 * time.Second, PromptTokens: 5120, EvalTokens: 610, Steps: 4, ToolCalls: 4}},
	Verdict: agents.Verdict{Status: agents.VerdictPassed, Checks: []agents.Check{
		{Tier: agents.TierEvidence, Subject: "health.go", Status: agents.VerdictPassed},
		{Tier: agents.TierExecution, Subject: "go test ./...", Status: agents.VerdictPassed}}},
}

func pinned(t *testing.T, s string) string {
	t.Helper()
	return tuitest.Pinned(s)
}

func press(k string) tea.KeyPressMsg { return tuitest.Key(k) }

func TestGolden(t *testing.T) {
	t.Parallel()
	t.Run("approval_100x30", func(t *testing.T) {
		t.Parallel()
		m := newModel(&fakeWS{}, 100, 30)
		st := script(m)
		feed(m, st, progress...)
		m.Update(approvalEvent(request))
		require.True(t, m.WaitingApproval())
		golden.RequireEqual(t, pinned(t, m.View()))
	})
	t.Run("done_100x30", func(t *testing.T) {
		t.Parallel()
		m := newModel(&fakeWS{}, 100, 30)
		st := script(m)
		feed(m, st, progress...)
		feed(m, st,
			agents.Event{Type: agents.EventApproval, Status: "approved"},
			agents.Event{Type: agents.EventToolResult, Tool: "runCommand", Status: "ok", Text: "ok  example.com/app 0.01s"},
			agents.Event{Type: agents.EventStep, Step: 4},
			agents.Event{Type: agents.EventDelta, Text: "Added health.go and registered /health in main.go."},
			agents.Event{Type: agents.EventDone, Run: &finished})
		m.Update(finishedMsg{st: st, run: finished})
		golden.RequireEqual(t, pinned(t, m.View()))
	})
	t.Run("done_unverified_100x30", func(t *testing.T) {
		t.Parallel()
		m := newModel(&fakeWS{}, 100, 30)
		st := script(m)
		feed(m, st, progress[:9]...) // staged health.go, ran nothing
		unverified := finished
		unverified.Verified = false
		unverified.Verdict = agents.Verdict{Status: "unverified", Checks: []agents.Check{
			{Tier: agents.TierEvidence, Subject: "health.go", Status: agents.VerdictPassed}}}
		m.Update(finishedMsg{st: st, run: unverified})
		view := pinned(t, m.View())
		plain := ansi.Strip(view)
		assert.Contains(t, plain, "MARS  done (unverified)  run 42")
		assert.Contains(t, plain, "✓ Done (unverified)")
		assert.Contains(t, plain, "nothing ran the changed code: add checks to .nova/config.yaml")
		golden.RequireEqual(t, view)
	})
	t.Run("failed_80x20", func(t *testing.T) {
		t.Parallel()
		m := newModel(&fakeWS{}, 80, 20)
		st := script(m)
		feed(m, st, progress[:4]...)
		failed := agents.Run{ID: 42, Status: agents.RunFailed, Outcome: agents.SpecialistOutcome{
			Failure: &agents.Failure{Kind: agents.FailToolError, Message: "ollama is unreachable at 127.0.0.1:11434", Cause: "ollama_unreachable",
				RecoveryHints: []agents.RecoveryHint{agents.HintRetry, agents.HintEscalateModel}},
			Meta: agents.RunMeta{Duration: 3 * time.Second, PromptTokens: 800, Steps: 1}}}
		m.Update(finishedMsg{st: st, run: failed})
		golden.RequireEqual(t, pinned(t, m.View()))
	})
}

func TestApproveAndDeny(t *testing.T) {
	t.Parallel()
	ws := &fakeWS{}
	m := newModel(ws, 100, 30)
	st := script(m)
	feed(m, st, progress...)
	m.Update(approvalEvent(request))
	out := ansi.Strip(m.View())
	assert.Contains(t, out, "Approve this command?")
	assert.Contains(t, out, "$ go test ./...")
	assert.Contains(t, out, "autonomy 2 asks before commands")
	assert.Contains(t, out, "y approve  ·  n/esc deny")

	// enter (pressed for something else as the question arrived) neither
	// approves nor denies: running a command takes a deliberate y.
	_, cmd := m.Update(press("enter"))
	assert.Nil(t, cmd)
	assert.True(t, m.WaitingApproval())
	assert.Empty(t, ws.answers)

	_, cmd = m.Update(press("y"))
	require.NotNil(t, cmd)
	assert.Contains(t, ansi.Strip(m.View()), "answering…")
	m.Update(cmd())
	assert.False(t, m.WaitingApproval())
	assert.Equal(t, map[string]bool{"ap-1": true}, ws.answers)

	second := request
	second.ID = "ap-2"
	m.Update(approvalEvent(second))
	_, cmd = m.Update(press("n"))
	m.Update(cmd())
	assert.False(t, ws.answers["ap-2"], "n denies")

	// Another run's request is not ours.
	other := request
	other.ID, other.RunID = "ap-3", 7
	m.Update(approvalEvent(other))
	assert.False(t, m.WaitingApproval())

	// A request that is gone is reported, not fatal.
	gone := request
	gone.ID = "gone"
	m.Update(approvalEvent(gone))
	_, cmd = m.Update(press("y"))
	m.Update(cmd())
	assert.Contains(t, ansi.Strip(m.View()), "no longer waiting")
}

func TestApprovalBeforeRunIDIsKept(t *testing.T) {
	t.Parallel()
	m := newModel(&fakeWS{}, 100, 30)
	st := script(m)
	m.Update(approvalEvent(request)) // the bus was faster than the run's own channel
	assert.False(t, m.WaitingApproval())
	feed(m, st, progress[0])
	assert.True(t, m.WaitingApproval())
}

func TestOutcomeLinksToChanges(t *testing.T) {
	t.Parallel()
	m := newModel(&fakeWS{}, 100, 30)
	st := script(m)
	feed(m, st, progress...)
	_, cmd := m.Update(press("enter"))
	assert.Nil(t, cmd, "nothing to open while running")
	m.Update(finishedMsg{st: st, run: finished})
	out := ansi.Strip(m.View())
	for _, want := range []string{"✓ Done", "5730 tokens (5120 in, 610 out)", "2/2 checks passed", "changeset #3 · 2 files staged", "review in Changes"} {
		assert.Contains(t, out, want)
	}
	_, cmd = m.Update(press("enter"))
	require.NotNil(t, cmd)
	assert.Equal(t, common.NavigateMsg{Page: ChangesPage, Arg: uint64(3)}, cmd())
}

func TestStartStreamsAndCancels(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	ws := &fakeWS{run: func(ctx context.Context, _ engine.RunOptions, emit func(agents.Event)) (engine.RunResult, error) {
		emit(agents.Event{Type: agents.EventStart, RunID: 9})
		emit(agents.Event{Type: agents.EventStep, RunID: 9, Step: 1})
		for i := range 5000 { // more deltas than the buffers: some are dropped, none blocks
			emit(agents.Event{Type: agents.EventDelta, RunID: 9, Text: fmt.Sprint(i % 10)})
		}
		close(started)
		<-ctx.Done()
		r := engine.RunResult{ID: 9, Status: agents.RunCanceled}
		emit(agents.Event{Type: agents.EventFailed, RunID: 9, Run: &r})
		return r, nil
	}}
	m := newModel(ws, 80, 20)
	msgs := make(chan tea.Msg, 64)
	exec := func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() { msgs <- cmd() }()
	}
	dispatch := func(msg tea.Msg) {
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				exec(c)
			}
		default:
			_, cmd := m.Update(msg)
			exec(cmd)
		}
	}
	exec(m.Start(mars, "loop forever"))
	assert.True(t, m.Running())
	deadline := time.After(10 * time.Second)
	for m.RunID() != 9 || m.step != 1 || !isClosed(started) {
		select {
		case msg := <-msgs:
			dispatch(msg)
		case <-deadline:
			t.Fatal("no events")
		}
	}
	dispatch(press("X"))
	for m.Running() {
		select {
		case msg := <-msgs:
			dispatch(msg)
		case <-deadline:
			t.Fatal("the run did not stop")
		}
	}
	assert.Equal(t, Canceled, m.State())
	assert.Contains(t, ansi.Strip(m.View()), "canceled")
}

func TestStaleAndHostileInput(t *testing.T) {
	t.Parallel()
	m := newModel(&fakeWS{}, 80, 20)
	st := script(m)
	other := &stream{ctx: context.Background()}
	m.Update(eventMsg{st: other, ev: agents.Event{Type: agents.EventToolCall, Tool: "deleteFile"}})
	assert.NotContains(t, ansi.Strip(m.View()), "deleteFile", "events of another run are ignored")
	feed(m, st, agents.Event{Type: agents.EventStep, Step: 1},
		agents.Event{Type: agents.EventDelta, Text: "clear\x1b[2J screen\x07"})
	raw := m.View()
	assert.NotContains(t, raw, "\x1b[2J")
	assert.NotContains(t, raw, "\a")
	assert.Contains(t, ansi.Strip(raw), "clear[2J screen")
}

func TestRunErrorAndIdle(t *testing.T) {
	t.Parallel()
	m := newModel(&fakeWS{}, 80, 20)
	assert.Contains(t, ansi.Strip(m.View()), "No run yet.")
	st := script(m)
	m.Update(finishedMsg{st: st, err: errors.New("unknown agent (known: MARS)")})
	assert.Equal(t, Failed, m.State())
	assert.Contains(t, ansi.Strip(m.View()), "unknown agent")
}

// A prompt trimmed to fit the model's context shows in the log, and a
// failed run names its class (engine/failure), not the agent-level kind.
func TestPromptTrimmedAndFailureClass(t *testing.T) {
	t.Parallel()
	m := newModel(&fakeWS{}, 120, 30)
	st := script(m)
	feed(m, st, progress[0],
		agents.Event{Type: agents.EventFit, Text: "prompt trimmed to 1024 tokens for nova-coder's context of 2048 tokens (ollama.numCtx): dropped knowledge (300 tokens), cut the task"},
		progress[1])
	view := ansi.Strip(m.View())
	assert.Contains(t, view, "✂ prompt trimmed to 1024 tokens")
	assert.Contains(t, view, "dropped knowledge")
	failed := agents.Run{ID: 42, Status: agents.RunFailed, Outcome: agents.SpecialistOutcome{
		Failure: &agents.Failure{Kind: agents.FailUnknown, Class: failure.Misconfigured, Cause: "prompt_too_long",
			Message: "agent MARS's prompt cannot fit: raise ollama.numCtx", RecoveryHints: []agents.RecoveryHint{agents.HintAskUser}}}}
	m.Update(finishedMsg{st: st, run: failed})
	view = ansi.Strip(m.View())
	assert.Contains(t, view, "misconfigured: agent MARS's prompt cannot fit")
	assert.NotContains(t, view, "unknown:")
}

func TestFitsAndScrolls(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{76, 19}, {96, 25}, {156, 43}, {246, 65}} {
		m := newModel(&fakeWS{}, size[0], size[1])
		st := script(m)
		for i := range 40 {
			feed(m, st, agents.Event{Type: agents.EventStep, Step: i + 1},
				agents.Event{Type: agents.EventDelta, Text: strings.Repeat("word ", 40)},
				agents.Event{Type: agents.EventToolCall, Tool: "readFile", Args: strings.Repeat("x", 300)})
		}
		m.Update(approvalEvent(request))
		check := func() {
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			assert.Len(t, lines, size[1])
			for i, l := range lines {
				assert.LessOrEqual(t, lipgloss.Width(l), size[0], "%v line %d: %q", size, i, l)
			}
		}
		check()
		assert.Contains(t, ansi.Strip(m.View()), "step 40", "follows the newest output")
		m.Update(press("g"))
		assert.Contains(t, ansi.Strip(m.View()), " step 1 ─")
		check()
		m.Update(finishedMsg{st: st, run: finished})
		check()
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// The checks a run runs on its change show as they run and end (issue 25:
// verified means executed).
func TestChecksShowAsTheyRun(t *testing.T) {
	t.Parallel()
	m := newModel(&fakeWS{}, 100, 30)
	st := script(m)
	feed(m, st, progress[:9]...)
	feed(m, st,
		agents.Event{Type: agents.EventCheck, Status: "running", Args: "go test ./...", Text: "running check: go test ./..."},
		agents.Event{Type: agents.EventCheck, Status: "failed", Args: "go test ./...", Text: "check: go test ./...: exit status 1"},
		agents.Event{Type: agents.EventFeedback, Status: "check_failed", Text: "Before your answer was accepted, nova ran the project's checks"},
	)
	out := ansi.Strip(m.View())
	assert.Contains(t, out, "running check: go test ./...")
	assert.Contains(t, out, "check: go test ./...: exit status 1")
	assert.NotContains(t, out, "check: check:", "the line is the check's own text")
	assert.Contains(t, out, "feedback: Before your answer was accepted")
}

// traceWS is a Source that can read a finished run's tool calls.
type traceWS struct {
	fakeWS
	lines []agents.TraceLine
	err   error
	calls int
}

func (f *traceWS) GetRunTrace(_ context.Context, runID uint64) (engine.RunTrace, error) {
	f.calls++
	if f.err != nil {
		return engine.RunTrace{}, f.err
	}
	return engine.RunTrace{Run: agents.Run{ID: runID}, Lines: f.lines}, nil
}

var traceLines = []agents.TraceLine{
	{ID: 1, Step: 1, Tool: "readFile", Args: `{"path":"server.go"}`, Status: "ok", Result: "package main\n\nimport \"net/http\"", Duration: 2 * time.Millisecond},
	{ID: 2, Step: 2, Tool: "editFile", Args: `{"path":"main.go","search":"mux := http.NewServeMux()","replace":"mux := http.NewServeMux()\n\tmux.HandleFunc(\"/health\", health)"}`,
		Status: "ok", Result: "staged an edit of main.go (1 replacement(s), now 412 bytes; matched by rule: whitespace) in changeset 3; sha256 9f2c1e0a77b4.",
		Duration: 1500 * time.Microsecond, Rule: "whitespace", Via: "fenced-json"},
	{ID: 3, Step: 3, Tool: "runCommand", Args: `{"command":"go test ./..."}`, Status: "failed", Result: "--- FAIL: TestHealth (0.00s)\n    health_test.go:12: got 404", Duration: 1800 * time.Millisecond},
}

func finishedTraceModel(t *testing.T, ws Source) *Model {
	t.Helper()
	m := newModel(ws, 100, 30)
	st := script(m)
	feed(m, st, progress[:9]...)
	m.Update(finishedMsg{st: st, run: finished})
	return m
}

// t on a finished run lists its tool calls (arguments, status, result,
// timing, an edit's rule, a text call's form); t again goes back to the log.
func TestTraceList(t *testing.T) {
	t.Parallel()
	ws := &traceWS{lines: traceLines}
	m := finishedTraceModel(t, ws)
	assert.Contains(t, helpText(m), "t: tool calls")

	_, cmd := m.Update(press("t"))
	require.NotNil(t, cmd)
	assert.True(t, m.TraceShown())
	assert.Contains(t, ansi.Strip(m.View()), "reading the run's tool calls…")
	m.Update(cmd())
	view := pinned(t, m.View())
	plain := ansi.Strip(view)
	assert.Contains(t, plain, "tool calls of run 42 (3)")
	assert.Contains(t, plain, "#2 editFile step 2 · ok · 2ms · via fenced-json · rule whitespace")
	assert.Contains(t, plain, `args   {"command":"go test ./..."}`)
	assert.Contains(t, plain, "result --- FAIL: TestHealth (0.00s) health_test.go:12: got 404")
	t.Run("trace_100x30", func(t *testing.T) { golden.RequireEqual(t, view) })

	_, cmd = m.Update(press("t"))
	assert.Nil(t, cmd)
	assert.False(t, m.TraceShown())
	assert.Contains(t, ansi.Strip(m.View()), "I will look at the server first.")
	_, cmd = m.Update(press("t"))
	assert.Nil(t, cmd, "loaded once")
	assert.Equal(t, 1, ws.calls)
}

func TestTraceListUnavailable(t *testing.T) {
	t.Parallel()
	// A source that cannot read traces, and a running view: t does nothing.
	m := finishedTraceModel(t, &fakeWS{})
	_, cmd := m.Update(press("t"))
	assert.Nil(t, cmd)
	assert.False(t, m.TraceShown())

	running := newModel(&traceWS{}, 100, 30)
	st := script(running)
	feed(running, st, progress[:3]...)
	_, cmd = running.Update(press("t"))
	assert.Nil(t, cmd)
	assert.False(t, running.TraceShown())

	// A read that fails says so in place of the list.
	m = finishedTraceModel(t, &traceWS{err: errors.New("database is closed")})
	_, cmd = m.Update(press("t"))
	m.Update(cmd())
	assert.Contains(t, ansi.Strip(m.View()), "could not read the tool calls: database is closed")
}

func helpText(m *Model) string {
	var parts []string
	for _, b := range m.ShortHelp() {
		parts = append(parts, b.Help().Key+": "+b.Help().Desc)
	}
	return strings.Join(parts, ", ")
}

// A failed run's hypothesis is shown under its message.
func TestFailedRunShowsHypothesis(t *testing.T) {
	t.Parallel()
	m := newModel(&fakeWS{}, 100, 30)
	st := script(m)
	feed(m, st, progress[:4]...)
	failed := agents.Run{ID: 42, Status: agents.RunFailed, Outcome: agents.SpecialistOutcome{
		Failure: &agents.Failure{Kind: agents.FailToolError, Message: "3 tool calls in a row failed; last: open out/r.md: permission denied",
			Hypothesis:    "no write permission on out/r.md: the file or its directory is not writable for nova",
			RecoveryHints: []agents.RecoveryHint{agents.HintAskUser}}}}
	m.Update(finishedMsg{st: st, run: failed})
	assert.Contains(t, ansi.Strip(m.View()), "likely cause: no write permission on out/r.md")
}

func TestHeaderShowsTheProgressEstimate(t *testing.T) {
	t.Parallel()
	m := newModel(&fakeWS{}, 120, 30)
	st := script(m)
	feed(m, st, progress[:9]...)
	feed(m, st, agents.Event{Type: agents.EventProgress, Progress: &agents.Progress{Percent: 50, Milestone: "finish the change; the checks run at the final answer"}})
	out := ansi.Strip(m.View())
	assert.Contains(t, out, "50% · next: finish the change")
	feed(m, st, agents.Event{Type: agents.EventProgress, Progress: &agents.Progress{Percent: 50, Milestone: "x", Stuck: true, Idle: 10}})
	assert.Contains(t, ansi.Strip(m.View()), "· stuck")
	m.Update(eventMsg{st: st, ev: agents.Event{Type: agents.EventDone, RunID: 42, Run: &finished}})
	assert.NotContains(t, ansi.Strip(m.View()), "next: x", "a finished run shows no estimate")
}
