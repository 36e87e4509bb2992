// Package runview is the live view of one agent run: the streamed model
// text, tool calls as they happen, approve/deny prompts for commands, and the
// final outcome with its verdict and a link to the staged changeset.
//
// The run itself is Source.RunAgent in a tea.Cmd, tagged with an operation
// id. Its events reach the view twice over: through a subscription of its
// own, filtered by that id into a channel the view drains (so token deltas
// of this run are not lost behind other screens' traffic), and through the
// engine's event bus (common.EventMsg), which carries the approval requests;
// those are answered with Source.AnswerApproval. The owner must pass every
// message to Update.
package runview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/tui/common"
)

// ChangesPage is the router id of the Changes screen the outcome links to.
const ChangesPage = "changes"

// streamBuffer is how many run events wait for the UI before token deltas
// start being dropped (other events wait for room).
const streamBuffer = 1024

// State is where the run is.
type State uint8

// Run states.
const (
	Idle State = iota
	Running
	Done
	Failed
	Canceled
)

func (s State) String() string {
	switch s {
	case Running:
		return "running"
	case Done:
		return "done"
	case Failed:
		return "failed"
	case Canceled:
		return "canceled"
	}
	return "idle"
}

// Source is what the run view needs from the engine: a subset of
// engine.Workspace's verbs.
type Source interface {
	Subscribe(ctx context.Context) <-chan engine.Event
	RunAgent(ctx context.Context, agentID, task string, o engine.RunOptions) (engine.RunResult, error)
	AnswerApproval(ctx context.Context, id string, approve bool) error
}

// TraceSource is the optional verb the trace list reads a finished run's
// tool calls with (engine.Workspace has it). A Source without it has no
// trace list.
type TraceSource interface {
	GetRunTrace(ctx context.Context, runID uint64) (engine.RunTrace, error)
}

// stream is one run's private event channel; its pointer identifies the run
// in messages, op its events on the bus.
type stream struct {
	ctx     context.Context
	op      string
	ch      chan agents.Event
	dropped atomic.Int64
}

// push queues one of the run's events: deltas are dropped when the UI is
// behind, everything else waits for room (or for the run to be canceled).
func (s *stream) push(ev agents.Event) {
	if ev.Type == agents.EventDelta {
		select {
		case s.ch <- ev:
		default:
			s.dropped.Add(1)
		}
		return
	}
	select {
	case s.ch <- ev:
	case <-s.ctx.Done():
	}
}

type eventMsg struct {
	st *stream
	ev agents.Event
}

type finishedMsg struct {
	st  *stream
	run agents.Run
	err error
}

type answeredMsg struct {
	st      *stream
	id      string
	approve bool
	err     error
}

type tickMsg struct{ st *stream }

// traceMsg carries a finished run's tool calls (the trace list).
type traceMsg struct {
	runID uint64
	lines []agents.TraceLine
	err   error
}

// itemKind is the kind of one log entry.
type itemKind uint8

const (
	itemStep itemKind = iota
	itemText
	itemCall
	itemResult
	itemNote
	itemError
)

type item struct {
	kind itemKind
	text string
	ok   bool // itemResult: the tool succeeded
	// wrapped caches the rendered lines for width w.
	wrapped []string
	w       int
}

// Model is the run view.
type Model struct {
	c      *common.Common
	keys   keyMap
	src    Source
	width  int
	height int
	now    func() time.Time

	spec    agents.Spec
	task    string
	st      *stream
	cancel  context.CancelFunc
	state   State
	runID   uint64
	step    int
	tier    string
	model   string
	started time.Time
	ended   time.Time // when the view learnt the run was over
	// progress is the run's last progress estimate (header).
	progress *agents.Progress

	items  []*item
	text   *item // the text item deltas append to
	result *agents.Run
	err    error

	approval  *tools.ApprovalRequest
	answering bool
	early     []tools.ApprovalRequest // requests seen before the run id was known

	offset int
	follow bool

	// The trace list of the finished run (t): its tool calls as stored,
	// loaded once; traceOn shows it in place of the log.
	traceOn      bool
	traceLoading bool
	trace        []agents.TraceLine
	traceErr     error
	traceFor     uint64
}

// New returns an idle view.
func New(c *common.Common, src Source) *Model {
	return &Model{c: c, src: src, keys: newKeyMap(), now: time.Now, follow: true}
}

// State returns where the run is.
func (m *Model) State() State { return m.state }

// Running reports whether a run is in progress.
func (m *Model) Running() bool { return m.state == Running }

// Agent returns the id of the agent of the current (or last) run.
func (m *Model) Agent() string { return m.spec.ID }

// RunID is the engine's id of the run (0 until it started).
func (m *Model) RunID() uint64 { return m.runID }

// Result is the finished run, nil while it runs.
func (m *Model) Result() *agents.Run { return m.result }

// WaitingApproval reports whether a command waits for approve/deny.
func (m *Model) WaitingApproval() bool { return m.approval != nil }

// Start runs task through spec's agent. A run still in progress is
// canceled first.
func (m *Model) Start(spec agents.Spec, task string) tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	ctx, cancel := context.WithCancel(m.c.Ctx)
	st := &stream{ctx: ctx, op: engine.NewOp(), ch: make(chan agents.Event, streamBuffer)}
	*m = Model{c: m.c, src: m.src, keys: m.keys, width: m.width, height: m.height, now: m.now, follow: true,
		spec: spec, task: task, st: st, cancel: cancel, state: Running, started: m.now()}
	src := m.src
	run := func() tea.Msg {
		defer close(st.ch) // the forwarder has stopped: no more pushes
		subCtx, stopSub := context.WithCancel(ctx)
		forwarded := make(chan struct{})
		events := src.Subscribe(subCtx)
		go func() {
			defer close(forwarded)
			for ev := range events {
				if ev.Op != st.op || ev.Topic != engine.TopicAgent || ev.Agent == nil {
					continue
				}
				st.push(*ev.Agent)
				if ev.Agent.Terminal() {
					return
				}
			}
		}()
		res, err := src.RunAgent(ctx, spec.ID, task, engine.RunOptions{Op: st.op})
		if err == nil {
			// The run's last events may still be on their way (a remote
			// workspace): give them a moment before the outcome.
			select {
			case <-forwarded:
			case <-time.After(2 * time.Second):
			}
		}
		stopSub()
		<-forwarded
		return finishedMsg{st: st, run: res, err: err}
	}
	return tea.Batch(run, wait(st), m.tick())
}

func wait(st *stream) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-st.ch
		if !ok {
			return nil
		}
		return eventMsg{st: st, ev: ev}
	}
}

func (m *Model) tick() tea.Cmd {
	st := m.st
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{st: st} })
}

// Cancel stops the run.
func (m *Model) Cancel() {
	if m.cancel != nil && m.state == Running {
		m.cancel()
		m.add(&item{kind: itemNote, text: "canceling…"})
	}
}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h; m.clamp() }

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case eventMsg:
		if msg.st != m.st {
			return m, nil
		}
		m.event(msg.ev)
		return m, wait(m.st)
	case finishedMsg:
		if msg.st != m.st {
			return m, nil
		}
		m.finish(msg.run, msg.err)
		return m, nil
	case traceMsg:
		if m.result == nil || msg.runID != m.result.ID {
			return m, nil
		}
		m.traceLoading = false
		m.trace, m.traceErr, m.traceFor = msg.lines, msg.err, msg.runID
		m.offset, m.follow = 0, false
		m.clamp()
		return m, nil
	case tickMsg:
		if msg.st == m.st && m.state == Running {
			return m, m.tick()
		}
		return m, nil
	case answeredMsg:
		if msg.st != m.st {
			return m, nil
		}
		m.answering = false
		if msg.err != nil {
			text := "could not answer the approval: " + msg.err.Error()
			if errors.Is(msg.err, engine.ErrNoSuchApproval) {
				text = "the approval request is no longer waiting (the run moved on or ended)"
			}
			m.add(&item{kind: itemError, text: text})
		}
		if m.approval != nil && m.approval.ID == msg.id {
			m.approval = nil
		}
		return m, nil
	case common.EventMsg:
		m.busEvent(msg.Event)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// busEvent picks this run's approval requests off the engine bus.
func (m *Model) busEvent(ev engine.Event) {
	if ev.Type != engine.EventNeedsApproval || ev.Topic != engine.TopicAgent || m.state != Running {
		return
	}
	if ev.Approval == nil {
		return
	}
	req := *ev.Approval
	switch {
	case ev.Op != "":
		if m.st != nil && ev.Op == m.st.op {
			m.ask(req)
		}
	case m.runID == 0:
		m.early = append(m.early, req)
	case req.RunID == m.runID:
		m.ask(req)
	}
}

func (m *Model) ask(req tools.ApprovalRequest) {
	r := req
	m.approval = &r
	if req.Dir == "" && req.Tool != tools.NameRunCommand { // an MCP tool: Command is "server.tool {args}"
		m.add(&item{kind: itemNote, text: fmt.Sprintf("approval needed: %s wants to call the MCP tool `%s`", req.Agent, req.Command)})
		return
	}
	m.add(&item{kind: itemNote, text: fmt.Sprintf("approval needed: %s wants to run `%s` in %s", req.Agent, req.Command, dirOf(req.Dir))})
}

func dirOf(d string) string {
	if d == "" || d == "." {
		return "the workspace root"
	}
	return d
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km, k := m.c.KeyMap, m.keys
	if m.approval != nil && !m.answering {
		// Running a command the model chose takes a deliberate y: the
		// question can arrive while the user is pressing enter for
		// something else, so enter neither approves nor denies.
		switch {
		case key.Matches(msg, k.Approve):
			return m.answer(true)
		case key.Matches(msg, k.Deny):
			return m.answer(false)
		case msg.String() == "enter":
			return nil
		}
	}
	body := m.bodyHeight()
	switch {
	case key.Matches(msg, k.ShowTrace) && m.canTrace():
		return m.toggleTrace()
	case key.Matches(msg, k.CancelRun):
		m.Cancel()
	case key.Matches(msg, k.ReviewChanges):
		if m.result != nil && m.result.ChangesetID != 0 {
			id := m.result.ChangesetID
			return func() tea.Msg { return common.NavigateMsg{Page: ChangesPage, Arg: id} }
		}
	case key.Matches(msg, km.Down):
		m.scroll(1)
	case key.Matches(msg, km.Up):
		m.scroll(-1)
	case key.Matches(msg, km.PageDown):
		m.scroll(max(1, body-1))
	case key.Matches(msg, km.PageUp):
		m.scroll(-max(1, body-1))
	case key.Matches(msg, km.Top):
		m.follow = false
		m.offset = 0
	case key.Matches(msg, km.Bottom):
		m.follow = true
		m.clamp()
	}
	return nil
}

// canTrace reports whether the trace list can be shown: the run finished
// with a stored record and the source can read its traces.
func (m *Model) canTrace() bool {
	_, ok := m.src.(TraceSource)
	return ok && m.state != Running && m.result != nil && m.result.ID != 0
}

// TraceShown reports whether the trace list is on screen.
func (m *Model) TraceShown() bool { return m.traceOn }

// toggleTrace shows or hides the trace list, loading it the first time.
func (m *Model) toggleTrace() tea.Cmd {
	m.traceOn = !m.traceOn
	if !m.traceOn {
		m.follow = true
		m.clamp()
		return nil
	}
	m.offset, m.follow = 0, false
	id := m.result.ID
	if m.traceFor == id || m.traceLoading {
		m.clamp()
		return nil
	}
	m.traceLoading = true
	src, ctx := m.src.(TraceSource), m.c.Ctx
	return func() tea.Msg {
		rt, err := src.GetRunTrace(ctx, id)
		return traceMsg{runID: id, lines: rt.Lines, err: err}
	}
}

// traceLines renders the trace list: one header line per tool call (tool,
// status, time, the text form it was read from, the rule an edit matched
// by), then its arguments and its result, each on one clipped line.
func (m *Model) traceLines(w int) []string {
	s := m.c.Styles
	switch {
	case m.traceLoading:
		return []string{s.Muted.Render("reading the run's tool calls…")}
	case m.traceErr != nil:
		return []string{s.Error.Render(common.Truncate("could not read the tool calls: "+Sanitize(m.traceErr.Error()), w))}
	case len(m.trace) == 0:
		return []string{s.Muted.Render("The run made no tool calls.")}
	}
	out := []string{s.Subtitle.Render(fmt.Sprintf(" tool calls of run %d (%d) ", m.result.ID, len(m.trace)))}
	for _, l := range m.trace {
		mark := s.Success.Render("✓")
		if l.Status != string(tools.StatusOK) {
			mark = s.Error.Render("✗")
		}
		head := fmt.Sprintf("%s %s %s", mark, s.Bold.Render(fmt.Sprintf("#%d %s", l.ID, l.Tool)),
			s.Muted.Render(fmt.Sprintf("step %d · %s · %s", l.Step, l.Status, traceDuration(l.Duration))))
		if l.Via != "" {
			head += s.Muted.Render(" · via " + l.Via)
		}
		if l.Rule != "" {
			head += s.Info.Render(" · rule " + l.Rule)
		}
		if l.Edit != "" {
			head += s.Info.Render(" · edit " + l.Edit)
		}
		out = append(out, lipgloss.NewStyle().MaxWidth(w).Render(head),
			"  "+s.Muted.Render("args   ")+s.Text.Render(common.Truncate(oneLine(l.Args), max(1, w-9))),
			"  "+s.Muted.Render("result ")+s.Text.Render(common.Truncate(oneLine(l.Result), max(1, w-9))))
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(Sanitize(s)), " ") }

func traceDuration(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func (m *Model) answer(approve bool) tea.Cmd {
	req := *m.approval
	m.answering = true
	src, st, ctx := m.src, m.st, m.c.Ctx
	return func() tea.Msg {
		return answeredMsg{st: st, id: req.ID, approve: approve, err: src.AnswerApproval(ctx, req.ID, approve)}
	}
}

// event records one run event.
func (m *Model) event(ev agents.Event) {
	if ev.RunID != 0 && m.runID == 0 {
		m.runID = ev.RunID
		early := m.early
		m.early = nil
		for _, r := range early {
			if r.RunID == m.runID {
				m.ask(r)
			}
		}
	}
	if ev.Tier != "" {
		m.tier = ev.Tier
	}
	if ev.Model != "" {
		m.model = ev.Model
	}
	switch ev.Type {
	case agents.EventStart:
		m.add(&item{kind: itemNote, text: "run started"})
	case agents.EventStep:
		m.step = ev.Step
		m.text = nil
		m.add(&item{kind: itemStep, text: fmt.Sprintf("step %d", ev.Step)})
	case agents.EventDelta:
		if ev.Reset && m.text != nil {
			m.text.text, m.text.wrapped = "", nil
		}
		if m.text == nil {
			m.text = &item{kind: itemText}
			m.add(m.text)
		}
		m.text.text += ev.Text
		m.text.wrapped = nil
		m.clamp()
	case agents.EventToolCall:
		m.text = nil
		text := ev.Tool + " " + ev.Args
		if ev.Text != "" { // "tool call read from text (form …)"
			text += " [" + ev.Text + "]"
		}
		m.add(&item{kind: itemCall, text: text})
	case agents.EventToolResult:
		m.text = nil
		line := ev.Tool + " → " + ev.Status
		if t := firstLine(ev.Text); t != "" {
			line += ": " + t
		}
		m.add(&item{kind: itemResult, text: line, ok: ev.Status == string(tools.StatusOK)})
	case agents.EventApproval:
		m.add(&item{kind: itemNote, text: "command " + ev.Status})
		m.approval = nil
	case agents.EventFeedback, agents.EventReflect, agents.EventCompress, agents.EventEscalate, agents.EventTextMode, agents.EventCheck:
		m.text = nil
		text := string(ev.Type)
		switch {
		case ev.Type == agents.EventCheck:
			text = firstLine(ev.Text) // "running check: go test ./...", "check: go test ./...: exit 0"
		case ev.Text != "":
			text += ": " + firstLine(ev.Text)
		}
		m.add(&item{kind: itemNote, text: text})
	case agents.EventProgress:
		if ev.Progress != nil {
			p := *ev.Progress
			m.progress = &p
		}
	case agents.EventFit:
		// Its text starts with "prompt trimmed" and says what gave way.
		m.text = nil
		m.add(&item{kind: itemNote, text: "✂ " + firstLine(ev.Text)})
	case agents.EventDone, agents.EventFailed:
		if ev.Run != nil {
			m.finish(*ev.Run, nil)
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func (m *Model) finish(run agents.Run, err error) {
	if m.state != Running && m.result != nil {
		return
	}
	m.approval = nil
	m.text = nil
	if m.ended.IsZero() && (err != nil || run.ID != 0) {
		m.ended = m.now()
	}
	switch {
	case err != nil:
		m.err = err
		m.state = Failed
		if errors.Is(err, context.Canceled) {
			m.state = Canceled
		}
		return
	case run.ID == 0:
		return // an event without the record; the result comes with finishedMsg
	}
	r := run
	m.result = &r
	m.runID = r.ID
	switch r.Status {
	case agents.RunDone:
		m.state = Done
	case agents.RunCanceled:
		m.state = Canceled
	default:
		m.state = Failed
	}
	m.clamp()
}

func (m *Model) add(it *item) {
	m.items = append(m.items, it)
	m.clamp()
}

func (m *Model) scroll(n int) {
	m.offset += n
	m.follow = false
	m.clamp()
	if m.offset >= m.maxOffset() {
		m.follow = true
	}
}

// bodyHeight is the log's height: the view minus the header (3 lines) and
// the footer (approval prompt or outcome).
func (m *Model) bodyHeight() int {
	return max(1, m.height-3-lipgloss.Height(m.footer()))
}

func (m *Model) maxOffset() int { return max(0, len(m.logLines())-m.bodyHeight()) }

func (m *Model) clamp() {
	if m.width <= 0 {
		return
	}
	if m.follow {
		m.offset = m.maxOffset()
	}
	m.offset = max(0, min(m.offset, m.maxOffset()))
}

// logLines renders the log (or the trace list) at the current width.
func (m *Model) logLines() []string {
	s := m.c.Styles
	w := max(10, m.width)
	if m.traceOn {
		return m.traceLines(w)
	}
	var out []string
	for _, it := range m.items {
		if it.wrapped == nil || it.w != w {
			it.w = w
			it.wrapped = m.renderItem(it, w)
			_ = s
		}
		out = append(out, it.wrapped...)
	}
	return out
}

func (m *Model) renderItem(it *item, w int) []string {
	s := m.c.Styles
	switch it.kind {
	case itemStep:
		label := " " + it.text + " "
		return []string{s.Subtitle.Render(label) + s.Subtle.Render(strings.Repeat("─", max(0, w-lipgloss.Width(label))))}
	case itemText:
		if strings.TrimSpace(it.text) == "" {
			return nil
		}
		lines := common.WrapWords(Sanitize(it.text), w)
		for i, l := range lines {
			lines[i] = s.Text.Render(l)
		}
		return lines
	case itemCall:
		return wrapPrefixed(s.Info.Render("→ "), s.Text, Sanitize(it.text), w)
	case itemResult:
		mark := s.Success.Render("✓ ")
		if !it.ok {
			mark = s.Error.Render("✗ ")
		}
		return wrapPrefixed(mark, s.Muted, Sanitize(it.text), w)
	case itemError:
		return wrapPrefixed(s.Error.Render("! "), s.Error, Sanitize(it.text), w)
	}
	return wrapPrefixed(s.Subtle.Render("· "), s.Subtle, Sanitize(it.text), w)
}

// wrapPrefixed wraps text after a 2-cell prefix, at most 3 lines.
func wrapPrefixed(prefix string, st lipgloss.Style, text string, w int) []string {
	lines := common.WrapWords(text, max(1, w-2))
	if len(lines) > 3 {
		lines = append(lines[:3:3], "…")
	}
	for i := range lines {
		if i == 0 {
			lines[i] = prefix + st.Render(lines[i])
		} else {
			lines[i] = "  " + st.Render(lines[i])
		}
	}
	return lines
}

// Sanitize removes control characters a model may emit (an ESC would drive
// the terminal); newlines and tabs stay.
func Sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, s)
}

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	s := m.c.Styles
	if m.state == Idle {
		return common.FitHeight(m.c.Empty("No run yet.", "Pick an agent and press n to give it a task."), m.height)
	}
	header := m.header()
	footer := m.footer()
	body := m.bodyHeight()
	lines := m.logLines()
	start := max(0, min(m.offset, len(lines)-body))
	end := min(len(lines), start+body)
	view := append([]string(nil), lines[start:end]...)
	if len(lines) == 0 {
		view = []string{s.Muted.Render("waiting for the model…")}
	}
	out := header + "\n" + common.FitHeight(strings.Join(view, "\n"), body)
	if footer != "" {
		out += "\n" + footer
	}
	return common.FitHeight(out, m.height)
}

// header: agent, state, step, model, time; the task; a rule.
func (m *Model) header() string {
	s := m.c.Styles
	name := m.spec.ID
	if m.spec.Display.Emoji != "" {
		name = m.spec.Display.Emoji + " " + name
	}
	var parts []string
	if m.runID != 0 {
		parts = append(parts, fmt.Sprintf("run %d", m.runID))
	}
	if m.step > 0 {
		parts = append(parts, fmt.Sprintf("step %d", m.step))
	}
	if m.tier != "" || m.model != "" {
		parts = append(parts, strings.TrimSpace(m.tier+" "+m.model))
	}
	if p := m.progress; p != nil && m.state == Running {
		est := fmt.Sprintf("%d%% · next: %s", p.Percent, p.Milestone)
		if p.Stuck {
			est += " · stuck"
		}
		parts = append(parts, est)
	}
	// The time is the wall clock from start to end as the user saw it (the
	// run's own measure leaves out the set-up and the final events), to the
	// tenth of a second once it is over: a one-second run never reads 0s and
	// the figure never drops when the run ends.
	if m.ended.IsZero() {
		parts = append(parts, formatDuration(m.now().Sub(m.started)))
	} else {
		elapsed := m.ended.Sub(m.started)
		if m.result != nil {
			elapsed = max(elapsed, m.result.Outcome.Meta.Duration)
		}
		parts = append(parts, formatElapsed(elapsed))
	}
	state := m.statusLabel()
	line := s.Title.Render(name) + " " + s.Band(state).Render(state) + " " +
		s.Muted.Render(strings.Join(parts, " · "))
	task := s.Text.Render(common.Truncate("Task: "+strings.Join(strings.Fields(m.task), " "), m.width))
	rule := s.Subtle.Render(strings.Repeat("─", m.width))
	return lipgloss.NewStyle().MaxWidth(m.width).Render(line) + "\n" + task + "\n" + rule
}

// statusLabel is the run's state for people: "done (unverified)" for a
// done run that staged files nothing executed (agents.DisplayStatus).
func (m *Model) statusLabel() string {
	if m.state == Done && m.result != nil {
		return agents.DisplayStatus(m.state.String(), len(m.result.Files), m.result.Verified)
	}
	return m.state.String()
}

// footer is the approval prompt, or the outcome of a finished run.
func (m *Model) footer() string {
	s := m.c.Styles
	w := m.width
	switch {
	case m.approval != nil:
		r := m.approval
		var b strings.Builder
		b.WriteString(s.Warning.Bold(true).Render("Approve this command?") + "\n")
		b.WriteString(s.Bold.Render(common.Truncate("$ "+r.Command, w-4)) + "\n")
		detail := "in " + dirOf(r.Dir)
		if r.Reason != "" {
			detail += " — " + r.Reason
		}
		b.WriteString(s.Muted.Render(common.Truncate(detail, w-4)) + "\n")
		if m.answering {
			b.WriteString(s.Subtle.Render("answering…"))
		} else {
			b.WriteString(hint(s, m.keys.Approve) + s.Subtle.Render("  ·  ") + hint(s, m.keys.Deny))
		}
		return s.PanelFocused.Width(w).Render(b.String())
	case m.err != nil:
		title := s.Error.Bold(true).Render("Run failed")
		if m.state == Canceled {
			title = s.Warning.Bold(true).Render("Run canceled")
		}
		return s.Panel.Width(w).Render(title + "\n" + s.Text.Width(w-4).Render(Sanitize(m.err.Error())))
	case m.result != nil:
		return s.Panel.Width(w).Render(m.outcome(w - 4))
	}
	return ""
}

func (m *Model) outcome(w int) string {
	s := m.c.Styles
	r := m.result
	o := r.Outcome
	var lines []string
	head := s.Success.Bold(true).Render("✓ Done")
	unverified := m.statusLabel() != m.state.String()
	if unverified {
		head = s.Warning.Bold(true).Render("✓ Done (unverified)")
	}
	if !o.OK {
		head = s.Error.Bold(true).Render("✗ Failed")
		if r.Status == agents.RunCanceled {
			head = s.Warning.Bold(true).Render("Canceled")
		}
	}
	meta := fmt.Sprintf("%s tokens (%d in, %d out) · %d step%s · %d tool call%s", formatTokens(o.Meta.PromptTokens+o.Meta.EvalTokens),
		o.Meta.PromptTokens, o.Meta.EvalTokens, o.Meta.Steps, plural(o.Meta.Steps), o.Meta.ToolCalls, plural(o.Meta.ToolCalls))
	lines = append(lines, head+"  "+s.Muted.Render(common.Truncate(meta, w-lipgloss.Width(head)-2)))
	if o.Failure != nil {
		f := o.Failure
		// The class (engine/failure) says what caused it: misconfigured,
		// stalled, length, workFailed, … The message often ends with what
		// to do about it: wrap it, never cut.
		msg := strings.Join(strings.Fields(Sanitize(string(f.FailureKind())+": "+f.Message)), " ")
		wrapped := common.WrapWords(msg, w)
		if len(wrapped) > maxFailureLines {
			wrapped = append(wrapped[:maxFailureLines-1], common.Truncate(strings.Join(wrapped[maxFailureLines-1:], " "), w))
		}
		for _, l := range wrapped {
			lines = append(lines, s.Error.Render(l))
		}
		if f.Hypothesis != "" {
			lines = append(lines, s.Warning.Render(common.Truncate("likely cause: "+Sanitize(f.Hypothesis), w)))
		}
		if len(f.RecoveryHints) > 0 {
			hints := make([]string, len(f.RecoveryHints))
			for i, h := range f.RecoveryHints {
				hints[i] = strings.ReplaceAll(string(h), "_", " ")
			}
			lines = append(lines, s.Subtle.Render(common.Truncate("next: "+strings.Join(hints, ", "), w)))
		}
	} else if res := firstLine(o.Result); res != "" {
		lines = append(lines, s.Text.Render(common.Truncate(Sanitize(res), w)))
	}
	if v := r.Verdict; v.Status != "" {
		passed := 0
		for _, c := range v.Checks {
			if c.Status == agents.VerdictPassed {
				passed++
			}
		}
		line := "verdict " + s.Band(string(v.Status)).Render(string(v.Status))
		if len(v.Checks) > 0 {
			line += " " + s.Muted.Render(fmt.Sprintf("%d/%d checks passed", passed, len(v.Checks)))
			for _, c := range v.Checks {
				if c.Status == agents.VerdictFailed {
					line += s.Error.Render(common.Truncate(" · ✗ "+c.Subject+": "+c.Detail, max(0, w-lipgloss.Width(line))))
					break
				}
			}
		}
		lines = append(lines, line)
	}
	if r.ChangesetID != 0 {
		link := fmt.Sprintf("changeset #%d · %d file%s staged", r.ChangesetID, len(r.Files), plural(len(r.Files)))
		lines = append(lines, s.Link.Render(link)+"  "+s.Key.Render(m.keys.ReviewChanges.Help().Key)+" "+s.KeyDesc.Render("review in Changes"))
	} else if o.OK {
		lines = append(lines, s.Subtle.Render("No files were staged."))
	}
	if unverified {
		lines = append(lines, s.Warning.Render(common.Truncate("nothing ran the changed code: add checks to .nova/config.yaml", w)))
	}
	return strings.Join(lines, "\n")
}

// maxFailureLines bounds the failure message in the outcome box.
const maxFailureLines = 6

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func formatTokens(n int) string {
	if n >= 10_000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%d", n)
}

// formatElapsed is formatDuration to the tenth of a second under ten
// seconds (a finished run's time).
func formatElapsed(d time.Duration) string {
	if d >= 0 && d < 10*time.Second {
		return fmt.Sprintf("%.1fs", float64(d.Truncate(100*time.Millisecond))/float64(time.Second))
	}
	return formatDuration(d)
}

func formatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
