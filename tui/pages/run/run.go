// Package run is the Run screen: goal runs (`nova run "GOAL"`) as they
// happen. The lead's decisions are a timeline with its reasoning; each
// delegation shows its task, its live stream, its verdict and its handoff;
// the session board shows the goal, the key decisions, the open blockers and
// the artifacts with their previews (enter opens one in full). n runs a new
// goal, a answers the lead when it asks, p resumes, X cancels, b switches
// between runs.
package run

import (
	"context"
	"errors"
	"fmt"
	"github.com/nova-dev/nova/internal/plural"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the router id of the page.
const ID = "run"

// NewGoal, as a NavigateMsg's Arg, opens the "Run a goal" dialog (the
// palette's action).
type NewGoal struct{}

// maxStream bounds the live output kept per delegation (bytes).
const maxStream = 64 << 10

const flushEvery = 50 * time.Millisecond

type focus uint8

const (
	focusTimeline focus = iota
	focusDelegation
	focusBoard
)

type listMsg struct {
	runs []goal.Run
	err  error
}

type detailMsg struct {
	gen    int
	detail goal.Detail
	err    error
}

type startedMsg struct {
	id  uint64
	err error
}

// ranMsg: a RunGoal the page started returned.
type ranMsg struct {
	id  uint64
	run goal.Run
	err error
}

type controlMsg struct {
	verb string
	err  error
}

type answeredMsg struct {
	id      uint64
	resumed bool
	err     error
}

type artifactMsg struct {
	a   board.Artifact
	err error
}

type resolvedMsg struct {
	b   board.Blocker
	err error
}

type approvedMsg struct {
	a   approval
	yes bool
	err error
}

type refreshMsg struct{ seq int }
type flushMsg struct{}
type spinMsg struct{}

// approval is a delegated agent's request to run a command.
type approval struct {
	req tools.ApprovalRequest
	run string
}

// Model is the Run page.
type Model struct {
	c      *common.Common
	src    Source
	width  int
	height int

	runs    []goal.Run
	listErr error
	loaded  bool

	cur    uint64
	detail *goal.Detail
	detErr error
	gen    int
	seq    int

	turns  *vlist.Model[goal.Turn] // the timeline, oldest first
	follow bool                    // the selection follows the newest turn until the user moves it
	focus  focus
	board  *vlist.Model[boardItem] // blockers, then artifacts newest first
	scroll int                     // delegation stream lines scrolled up from the bottom
	keys   keyMap

	streams map[string]*strings.Builder // run/task
	pending map[string]*strings.Builder
	flushOn bool
	spin    int
	spinOn  bool

	mine      map[uint64]bool // runs this page runs (attended)
	goalIn    *inputDialog
	answer    *inputDialog
	answerRun uint64
	viewer    *viewer
	confirm   *confirm.Model
	runsOpen  bool
	runsList  *vlist.Model[goal.Run] // newest first
	// placeRuns centres the runs list on the shown run when it opens.
	placeRuns bool
	approvals []approval
	under     common.ViewCache // the page under a dialog
}

// New builds the page over src (the workspace, or a test's fake).
func New(c *common.Common, src Source) *Model {
	k := newKeyMap()
	m := &Model{c: c, src: src, follow: true, streams: map[string]*strings.Builder{}, pending: map[string]*strings.Builder{},
		mine: map[uint64]bool{}, confirm: confirm.New(c),
		goalIn: newInputDialog(c, "add a health check endpoint with tests", 4000, k.StartGoal, k.CloseDialog),
		answer: newInputDialog(c, "your answer, e.g. use port 8080", 2000, k.SendAnswer, k.KeepWaiting),
		viewer: &viewer{c: c, keys: k}, keys: k}
	m.turns = vlist.New(c, m.renderTurn)
	m.turns.SetRowHeight(2) // the headline, the lead's reasoning under it
	m.turns.SetMarker(true)
	m.board = vlist.New(c, m.renderItem)
	m.board.SetMarker(true)
	m.runsList = vlist.New(c, m.renderRun)
	m.runsList.SetMarker(true)
	return m
}

// show switches to run id, on its newest turn once it is loaded.
func (m *Model) show(id uint64) {
	m.cur, m.detail, m.follow = id, nil, true
	m.turns.SetRows(nil)
	m.board.SetRows(nil)
}

// Title implements common.Page.
func (m *Model) Title() string { return "Run" }

// Capturing implements common.Page: dialogs own the keyboard.
func (m *Model) Capturing() bool {
	return m.goalIn.open || m.answer.open || m.viewer.open || m.confirm.Active() || m.runsOpen
}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return m.loadList() }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.confirm.SetSize(w, h)
	m.goalIn.SetWidth(m.dialogWidth())
	m.answer.SetWidth(m.dialogWidth())
}

func (m *Model) dialogWidth() int { return max(40, min(90, m.width-6)) }

func (m *Model) loadList() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		rs, err := src.ListGoalRuns(ctx)
		return listMsg{runs: rs, err: err}
	}
}

func (m *Model) loadDetail() tea.Cmd {
	if m.cur == 0 {
		return nil
	}
	m.gen++
	src, ctx, id, gen := m.src, m.c.Ctx, m.cur, m.gen
	return func() tea.Msg {
		d, err := src.GetGoalRun(ctx, id)
		return detailMsg{gen: gen, detail: d, err: err}
	}
}

func (m *Model) refresh() tea.Cmd {
	m.seq++
	return common.Debounce(100*time.Millisecond, refreshMsg{seq: m.seq})
}

// start creates a goal run; startedMsg then runs it.
func (m *Model) start(text string) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		r, err := src.CreateGoalRun(ctx, text, engine.GoalRunOptions{})
		return startedMsg{id: r.ID, err: err}
	}
}

// runCmd runs (or resumes) a goal run for as long as it runs: RunGoal
// blocks, its progress arrives as events. The TUI's context bounds it:
// quitting leaves the run resumable. It is attended: it waits for a model
// server that went away and for the answer to the lead's question; the
// delegated agents' commands are put to the user.
func (m *Model) runCmd(id uint64) tea.Cmd {
	m.mine[id] = true
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		r, err := src.RunGoal(ctx, id, engine.RunGoalOptions{Approvals: engine.ApproveAsk, Attended: true})
		return ranMsg{id: id, run: r, err: err}
	}
}

func (m *Model) cancelCmd(id uint64) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg { return controlMsg{verb: "cancel", err: src.CancelGoalRun(ctx, id)} }
}

func (m *Model) answerCmd(id uint64, text string) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		resumed, err := src.AnswerGoalRun(ctx, id, text)
		return answeredMsg{id: id, resumed: resumed, err: err}
	}
}

func (m *Model) openArtifact(id uint64) tea.Cmd {
	m.viewer.openLoading(id)
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		a, err := src.ReadArtifact(ctx, id)
		return artifactMsg{a: a, err: err}
	}
}

func (m *Model) resolveCmd(key, id string) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		b, err := src.ResolveBlocker(ctx, key, id, "resolved by the user on the Run screen")
		return resolvedMsg{b: b, err: err}
	}
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	m.under.Update(msg, m.dialogOpen())
	switch msg := msg.(type) {
	case listMsg:
		m.loaded, m.listErr = true, msg.err
		if msg.err != nil {
			return m, nil
		}
		m.runs = msg.runs
		if m.cur == 0 && len(m.runs) > 0 {
			m.cur = m.runs[0].ID
			for _, r := range m.runs { // prefer a live run
				if r.Active {
					m.cur = r.ID
					break
				}
			}
		}
		return m, m.loadDetail()
	case detailMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		m.detErr = msg.err
		if msg.err == nil {
			d := msg.detail
			m.detail = &d
			var keepTurn func(goal.Turn) bool
			if t, ok := m.turns.Selected(); ok {
				keepTurn = func(x goal.Turn) bool { return x.N == t.N }
			}
			m.turns.ReplaceRows(d.Turns, keepTurn)
			if m.follow {
				m.turns.SetCursor(len(d.Turns) - 1)
			}
			var keepItem func(boardItem) bool
			if it, ok := m.board.Selected(); ok {
				keepItem = func(x boardItem) bool { return x.id() == it.id() }
			}
			m.board.ReplaceRows(m.boardItems(), keepItem)
			for _, t := range d.Turns { // a finished delegation's answer stands in for a lost stream
				if t.Outcome != nil && t.TaskID != "" {
					k := streamKey(d.Run.ID, t.TaskID)
					if sb := m.streams[k]; sb == nil || sb.Len() == 0 {
						if a := m.outputOf(t); a != "" {
							b := &strings.Builder{}
							b.WriteString(a)
							m.streams[k] = b
						}
					}
				}
			}
			if d.Run.Question != "" && m.mine[d.Run.ID] && d.Run.Active && !m.answer.open && !m.Capturing() {
				return m, tea.Batch(m.spinCmd(), m.openAnswer(d.Run.ID, d.Run.Question))
			}
		}
		return m, m.spinCmd()
	case refreshMsg:
		if msg.seq == m.seq {
			return m, tea.Batch(m.loadList(), m.loadDetail())
		}
		return m, nil
	case startedMsg:
		m.goalIn.sending = false
		if msg.err != nil {
			m.goalIn.err = msg.err
			return m, nil
		}
		m.goalIn.Close()
		m.show(msg.id)
		m.focus = focusTimeline
		return m, tea.Batch(m.runCmd(msg.id), m.loadList(), m.loadDetail(),
			common.Toast(fmt.Sprintf("run %d started: the lead decides the first step", msg.id)))
	case ranMsg:
		if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
			return m, tea.Batch(m.refresh(), common.Failure(fmt.Errorf("run %d: %w", msg.id, msg.err)))
		}
		text := fmt.Sprintf("run %d %s", msg.id, msg.run.Status)
		if msg.run.Reason != "" && msg.run.Status != goal.StatusCompleted {
			text += ": " + oneLine(msg.run.Reason)
		}
		return m, tea.Batch(m.refresh(), common.Toast(text))
	case controlMsg:
		if msg.err != nil {
			return m, common.Failure(fmt.Errorf("%s run: %w", msg.verb, msg.err))
		}
		return m, tea.Batch(m.refresh(), common.Toast("run canceled: what it staged stays staged; p resumes"))
	case answeredMsg:
		m.answer.sending = false
		if msg.err != nil {
			m.answer.err = msg.err
			return m, nil
		}
		m.answer.Close()
		text := fmt.Sprintf("answered; run %d goes on", msg.id)
		if !msg.resumed {
			text = fmt.Sprintf("answered; p resumes run %d", msg.id)
		}
		return m, tea.Batch(m.refresh(), common.Toast(text))
	case artifactMsg:
		m.viewer.loaded(msg.a, msg.err)
		return m, nil
	case resolvedMsg:
		if msg.err != nil {
			return m, common.Failure(fmt.Errorf("resolve blocker: %w", msg.err))
		}
		return m, tea.Batch(m.refresh(), common.Toast("resolved "+msg.b.ID+": "+oneLine(msg.b.Text)))
	case approvedMsg:
		if msg.err != nil {
			return m, common.Failure(fmt.Errorf("answer approval: %w", msg.err))
		}
		verb := "denied"
		if msg.yes {
			verb = "allowed"
		}
		return m, common.Toast(verb + " `" + msg.a.req.Command + "`")
	case confirm.ResultMsg:
		return m, m.confirmed(msg)
	case common.EventMsg:
		return m, m.event(msg.Event)
	case flushMsg:
		m.flushOn = false
		m.flush()
		return m, nil
	case spinMsg:
		m.spinOn = false
		m.spin = (m.spin + 1) % len(common.Spinner.Frames)
		return m, m.spinCmd()
	case common.NavigateMsg:
		if msg.Page != ID {
			return m, nil
		}
		switch arg := msg.Arg.(type) {
		case NewGoal:
			return m, m.openGoal()
		case uint64:
			if arg != m.cur {
				m.show(arg)
				return m, m.loadDetail()
			}
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func streamKey(run uint64, task string) string { return strconv.FormatUint(run, 10) + "/" + task }

// outputOf is the answer of a finished delegation as its board kept it
// (the output artifact's preview), for a stream this screen did not see.
func (m *Model) outputOf(t goal.Turn) string {
	if m.detail == nil || t.Outcome == nil || t.Outcome.Handoff == nil {
		return ""
	}
	for _, a := range m.detail.Board.Artifacts {
		if a.Task == t.TaskID && a.Type == board.TypeOutput {
			return a.Preview
		}
	}
	return ""
}

// event handles one engine event: the shown run's events refresh it, its
// delegations' deltas and tool calls feed the live stream, its agents'
// command approvals and the lead's questions open dialogs.
func (m *Model) event(ev engine.Event) tea.Cmd {
	if ev.GoalRunID == "" {
		return nil
	}
	id, err := strconv.ParseUint(ev.GoalRunID, 10, 64)
	if err != nil {
		return nil
	}
	switch {
	case ev.Type == engine.EventNeedsApproval && ev.Approval != nil:
		if !m.mine[id] {
			return nil // its owner asks
		}
		m.approvals = append(m.approvals, approval{req: *ev.Approval, run: ev.GoalRunID})
		return tea.Batch(common.Toast(fmt.Sprintf("run %d: %s wants to run `%s` — answer on the Run screen", id, ev.Approval.Agent, ev.Approval.Command)),
			m.nextApproval())
	case ev.Topic == engine.TopicGoal && ev.Type == engine.EventGoalAsking:
		if m.mine[id] {
			return tea.Batch(m.refresh(), m.openAnswer(id, ev.Text))
		}
	case ev.Topic == engine.TopicAgent && ev.TaskID != "":
		if ev.Type == engine.EventDelta {
			if ev.Agent != nil && ev.Agent.Reset {
				m.pendingFor(id, ev.TaskID).Reset()
				if sb := m.streams[streamKey(id, ev.TaskID)]; sb != nil {
					sb.Reset()
				}
				return nil
			}
			return m.appendStream(id, ev.TaskID, ev.Text)
		}
		if ae := ev.Agent; ae != nil {
			switch ae.Type {
			case agents.EventToolCall:
				return m.appendStream(id, ev.TaskID, "\n→ "+ae.Tool+" "+clipRunes(oneLine(ae.Args), 160)+"\n")
			case agents.EventToolResult:
				return m.appendStream(id, ev.TaskID, "← "+ae.Tool+" "+ae.Status+"\n")
			case agents.EventStart:
				if sb := m.streams[streamKey(id, ev.TaskID)]; sb != nil && sb.Len() > 0 {
					return m.appendStream(id, ev.TaskID, "\n── attempt restarted ──\n")
				}
			}
		}
		return nil
	}
	if ev.Type == engine.EventDelta || ev.Type == engine.EventProgress {
		return nil
	}
	if m.cur == 0 {
		m.cur = id
	}
	if id != m.cur && ev.Topic != engine.TopicGoal {
		return nil
	}
	return m.refresh()
}

func (m *Model) pendingFor(run uint64, task string) *strings.Builder {
	k := streamKey(run, task)
	p := m.pending[k]
	if p == nil {
		p = &strings.Builder{}
		m.pending[k] = p
	}
	return p
}

// appendStream queues text for a delegation's live stream; a flush tick
// folds it in, so a burst of deltas costs one render.
func (m *Model) appendStream(run uint64, task, text string) tea.Cmd {
	m.pendingFor(run, task).WriteString(text)
	if m.flushOn {
		return nil
	}
	m.flushOn = true
	return tea.Tick(flushEvery, func(time.Time) tea.Msg { return flushMsg{} })
}

func (m *Model) flush() {
	for k, p := range m.pending {
		sb := m.streams[k]
		if sb == nil {
			sb = &strings.Builder{}
			m.streams[k] = sb
		}
		sb.WriteString(p.String())
		if sb.Len() > maxStream {
			tail := common.TailFrom(sb.String(), maxStream/2)
			sb.Reset()
			sb.WriteString("…" + tail)
		}
		delete(m.pending, k)
	}
}

// spinCmd keeps the spinner turning while the shown run is live.
func (m *Model) spinCmd() tea.Cmd {
	if m.spinOn || m.detail == nil || !m.detail.Run.Active {
		return nil
	}
	m.spinOn = true
	return tea.Tick(common.Spinner.FPS, func(time.Time) tea.Msg { return spinMsg{} })
}

// boardItem is a selectable line of the board pane.
type boardItem struct {
	blocker  *board.Blocker
	artifact *board.ArtifactRef
}

// id tells items apart across refreshes.
func (it boardItem) id() string {
	if it.blocker != nil {
		return "b/" + it.blocker.ID
	}
	if it.artifact != nil {
		return "a/" + strconv.FormatUint(it.artifact.ID, 10)
	}
	return ""
}

func (m *Model) boardItems() []boardItem {
	if m.detail == nil {
		return nil
	}
	b := m.detail.Board
	var out []boardItem
	for i := range b.Blockers {
		out = append(out, boardItem{blocker: &b.Blockers[i]})
	}
	for i := len(b.Artifacts) - 1; i >= 0; i-- {
		out = append(out, boardItem{artifact: &b.Artifacts[i]})
	}
	return out
}

func (m *Model) selectedTurn() (goal.Turn, bool) {
	if m.detail == nil {
		return goal.Turn{}, false
	}
	return m.turns.Selected()
}

func (m *Model) openGoal() tea.Cmd {
	if m.Capturing() {
		return nil
	}
	cfg := m.src.Config()
	lead := cfg.Orchestrator.Lead
	if lead == "" {
		lead = goal.DefaultLead
	}
	note := fmt.Sprintf("%s leads · at most %d turns · delegations stage their changes for your review", lead, cfg.Orchestrator.MaxTurns)
	return m.goalIn.Open("Run a goal", "What should the team do? The lead delegates it step by step.", note)
}

func (m *Model) openAnswer(id uint64, question string) tea.Cmd {
	if m.answer.open || m.goalIn.open || m.confirm.Active() || m.viewer.open {
		return nil
	}
	m.answerRun = id
	return m.answer.Open(fmt.Sprintf("The lead asks you (run %d)", id), question, "The lead reads your answer on its next turn.")
}

// nextApproval opens the dialog for the oldest queued approval.
func (m *Model) nextApproval() tea.Cmd {
	if m.confirm.Active() || len(m.approvals) == 0 {
		return nil
	}
	a := m.approvals[0]
	m.approvals = m.approvals[1:]
	body := fmt.Sprintf("%s (run %s) wants to run:\n\n  %s\n\nin %s.", orDash(a.req.Agent), a.run, a.req.Command, orDash(a.req.Dir))
	if a.req.Unvetted != "" {
		body += "\n\nCareful: " + a.req.Unvetted + "."
	}
	if a.req.Reason != "" {
		body += " " + a.req.Reason + "."
	}
	m.confirm.Open(confirm.Options{ID: "approve-command", Title: "Allow this command?", Body: body,
		Yes: "Allow", No: "Deny", Danger: true, Payload: a})
	return nil
}

func (m *Model) confirmed(msg confirm.ResultMsg) tea.Cmd {
	switch msg.ID {
	case "cancel-run":
		if msg.Confirmed && m.detail != nil {
			return m.cancelCmd(m.detail.Run.ID)
		}
	case "resolve-blocker":
		if x, ok := msg.Payload.([2]string); ok && msg.Confirmed {
			return m.resolveCmd(x[0], x[1])
		}
	case "approve-command":
		a, _ := msg.Payload.(approval)
		src, ctx, yes := m.src, m.c.Ctx, msg.Confirmed
		return tea.Batch(func() tea.Msg {
			return approvedMsg{a: a, yes: yes, err: src.AnswerApproval(ctx, a.req.ID, yes)}
		}, m.nextApproval())
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch {
	case m.goalIn.open:
		switch m.goalIn.key(msg) {
		case inputSubmit:
			m.goalIn.sending = true
			return m.start(m.goalIn.Value())
		case inputClose:
			m.goalIn.Close()
		}
		return m.goalIn.cmd
	case m.answer.open:
		switch m.answer.key(msg) {
		case inputSubmit:
			m.answer.sending = true
			return m.answerCmd(m.answerRun, m.answer.Value())
		case inputClose:
			m.answer.Close()
			return common.Toast("the lead keeps waiting for your answer — a answers it")
		}
		return m.answer.cmd
	case m.viewer.open:
		m.viewer.key(msg, m.height)
		return nil
	case m.confirm.Active():
		_, cmd := m.confirm.Update(msg)
		return cmd
	case m.runsOpen:
		return m.runsKey(msg)
	}
	switch {
	case key.Matches(msg, km.Refresh):
		return tea.Batch(m.loadList(), m.loadDetail())
	case key.Matches(msg, m.keys.NewGoal):
		return m.openGoal()
	case key.Matches(msg, m.keys.Runs):
		if len(m.runs) == 0 {
			return nil
		}
		m.runsOpen = true
		m.runsList.SetRows(m.runs)
		for i, r := range m.runs {
			if r.ID == m.cur {
				m.runsList.SetCursor(i)
			}
		}
		m.placeRuns = true
		return nil
	case key.Matches(msg, m.keys.Answer):
		if m.detail == nil || m.detail.Run.Question == "" {
			return common.Toast("a answers the lead when it asks you something; it asks nothing now")
		}
		return m.openAnswer(m.detail.Run.ID, m.detail.Run.Question)
	case key.Matches(msg, m.keys.Resume):
		if m.detail == nil {
			return nil
		}
		r := m.detail.Run
		switch {
		case r.Active:
			return common.Toast("the run is going on; X cancels it (resumable)")
		case r.Status == goal.StatusCompleted:
			return common.Toast(fmt.Sprintf("run %d is completed; n runs a new goal", r.ID))
		}
		m.follow = true
		return tea.Batch(m.runCmd(r.ID), common.Toast(fmt.Sprintf("resuming run %d", r.ID)))
	case key.Matches(msg, m.keys.Cancel):
		if m.detail == nil || !m.detail.Run.Active {
			return nil
		}
		r := m.detail.Run
		m.confirm.Open(confirm.Options{ID: "cancel-run", Title: fmt.Sprintf("Cancel run %d?", r.ID),
			Body: fmt.Sprintf("%s — %s so far. The running delegation stops; what it staged stays staged, done work is kept. p (or `nova run resume %d`) picks it up later.",
				oneLine(r.Goal), plural.Count(r.Turns, "turn", "turns"), r.ID),
			Yes: "Cancel run", No: "Keep running", Danger: true})
		return nil
	case key.Matches(msg, m.keys.NextFocus):
		m.focus = (m.focus + 1) % 3
		m.scroll = 0
		return nil
	case key.Matches(msg, m.keys.PrevFocus):
		m.focus = (m.focus + 2) % 3
		m.scroll = 0
		return nil
	case key.Matches(msg, m.keys.Timeline):
		m.focus = focusTimeline
		return nil
	}
	switch m.focus {
	case focusDelegation:
		switch {
		case key.Matches(msg, km.Up):
			m.scroll++
		case key.Matches(msg, km.Down):
			m.scroll = max(0, m.scroll-1)
		case key.Matches(msg, km.PageUp):
			m.scroll += 10
		case key.Matches(msg, km.PageDown):
			m.scroll = max(0, m.scroll-10)
		case key.Matches(msg, km.Bottom):
			m.scroll = 0
		}
		return nil
	case focusBoard:
		if ok, cmd := m.board.HandleKey(msg); ok {
			return cmd
		}
		if key.Matches(msg, m.keys.OpenItem) {
			it, ok := m.board.Selected()
			if !ok {
				return nil
			}
			if it.artifact != nil {
				return m.openArtifact(it.artifact.ID)
			}
			x := it.blocker
			m.confirm.Open(confirm.Options{ID: "resolve-blocker", Title: "Resolve blocker " + x.ID + "?",
				Body: fmt.Sprintf("%s\n\nraised by %s in %s. Resolving it lets the work that waits on it go on.", x.Text, orDash(x.By), orDash(x.Task)),
				Yes:  "Resolve", No: "Keep it open", Payload: [2]string{m.detail.Board.Key, x.ID}})
		}
		return nil
	}
	prev := m.turns.Cursor()
	if ok, cmd := m.turns.HandleKey(msg); ok {
		if m.turns.Cursor() != prev {
			m.scroll = 0
			m.follow = m.turns.Cursor() == m.turns.Len()-1
		}
		return cmd
	}
	if key.Matches(msg, m.keys.OpenTurn) {
		m.focus = focusDelegation
	}
	return nil
}

func (m *Model) runsKey(msg tea.KeyPressMsg) tea.Cmd {
	if ok, cmd := m.runsList.HandleKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.CloseRuns):
		m.runsOpen = false
	case key.Matches(msg, m.keys.ShowRun):
		m.runsOpen = false
		if r, ok := m.runsList.Selected(); ok && r.ID != m.cur {
			m.show(r.ID)
			m.focus = focusTimeline
			return m.loadDetail()
		}
	}
	return nil
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clipRunes cuts s to n runes with an ellipsis.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
