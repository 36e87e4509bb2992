// Package library is the Library screen: skills (deterministic tool
// macros), workflows (parameterised multi-step runs) with their runs, and
// blueprints (parameterised PRD templates), each a list with its detail.
// A parameter form runs a skill or a workflow, or renders a blueprint to a
// preview PRD before anything runs; a workflow run is followed live like a
// build (its steps, the running step's agent stream); `/` finds the
// workflow a request triggers.
package library

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the router id of the page.
const ID = "library"

// BuildPage is the router id of the Build screen (a step's build, a
// blueprint's build open there).
const BuildPage = "build"

// maxStream bounds the live output kept per build (bytes).
const maxStream = 64 << 10

type pane int

const (
	paneSkills pane = iota
	paneWorkflows
	paneRuns
	paneBlueprints
	paneCount
)

var paneNames = [paneCount]string{"Skills", "Workflows", "Runs", "Blueprints"}

type view int

const (
	viewBrowse view = iota
	viewSkillResult
	viewRun
	viewPreview
)

// Messages of the page's commands.
type (
	skillsMsg struct {
		list engine.SkillList
		err  error
	}
	workflowsMsg struct {
		list engine.WorkflowList
		err  error
	}
	runsMsg struct {
		runs []workflow.Run
		err  error
	}
	blueprintsMsg struct {
		list []blueprint.Summary
		err  error
	}
	agentsMsg   struct{ ids []string }
	bpDetailMsg struct {
		name    string
		detail  blueprint.Details
		history []blueprint.VersionRecord
		err     error
		// form opens the use form once the detail is in.
		form bool
	}
	skillRanMsg struct {
		name string
		res  engine.SkillRunResult
		err  error
	}
	runCreatedMsg struct {
		run workflow.Run
		err error
	}
	runEndedMsg struct {
		id  uint64
		run workflow.Run
		err error
	}
	runLoadedMsg struct {
		id  uint64
		run workflow.Run
		err error
	}
	canceledMsg struct {
		id  uint64
		err error
	}
	matchMsg struct {
		seq     int
		matches []workflow.Match
		err     error
	}
	matchTick  struct{ seq int }
	previewMsg struct {
		name   string
		values map[string]string
		res    engine.UseResult
		err    error
	}
	buildMadeMsg struct {
		res engine.UseResult
		err error
	}
	buildRanMsg struct {
		id  uint64
		err error
	}
	approvalAnsweredMsg struct {
		cmd string
		yes bool
		err error
	}
	refreshMsg struct{ seq int }
	spinMsg    struct{}
)

// Model is the Library page.
type Model struct {
	c      *common.Common
	keys   keyMap
	src    Source
	width  int
	height int
	now    func() time.Time

	pane   pane
	lists  [paneCount]*vlist.Model[listRow] // each pane's list (nova's list component)
	loaded [paneCount]bool
	errs   [paneCount]error

	skills     engine.SkillList
	workflows  engine.WorkflowList
	runs       []workflow.Run
	blueprints []blueprint.Summary
	agents     []string

	bp      *blueprint.Details
	bpHist  []blueprint.VersionRecord
	bpErr   error
	bpAsked string

	view    view
	form    *form
	request *requestBox
	confirm *confirm.Model

	// The skill run shown in viewSkillResult.
	skillName    string
	skillRunning bool
	skillRes     *engine.SkillRunResult
	skillErr     error
	skillVals    map[string]string
	scroll       int

	// The workflow run shown in viewRun.
	run     *workflow.Run
	runID   uint64
	runErr  error
	steps   *vlist.Model[workflow.StepState]
	follow  bool
	builds  map[string]string // step id → build id (from the events)
	streams map[string]*strings.Builder
	running map[uint64]bool // runs this page is running
	ops     map[string]bool // ops of this page's skill and workflow runs
	spin    int
	spinOn  bool
	runSeq  int
	listSeq int

	// The blueprint preview shown in viewPreview.
	preview     *engine.UseResult
	previewFor  string
	previewVals map[string]string
	previewJSON bool
	previewErr  error
	making      bool
}

// New builds the page over src (the workspace, or a test's fake).
func New(c *common.Common, src Source) *Model {
	m := &Model{c: c, keys: newKeyMap(), src: src, now: c.Clock(), confirm: confirm.New(c), follow: true,
		builds: map[string]string{}, streams: map[string]*strings.Builder{}, running: map[uint64]bool{}, ops: map[string]bool{}}
	for p := range paneCount {
		m.lists[p] = vlist.New(c, m.renderRow)
		m.lists[p].SetMarker(true)
	}
	m.steps = vlist.New(c, m.renderStep)
	m.steps.SetMarker(true)
	return m
}

// sel is the cursor of pane p's list.
func (m *Model) sel(p pane) int { return m.lists[p].Cursor() }

// SetClock fixes the page's clock (golden tests).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// Title implements common.Page.
func (m *Model) Title() string { return "Library" }

// Capturing implements common.Page: forms, the request box and dialogs own
// the keyboard.
func (m *Model) Capturing() bool { return m.form != nil || m.request != nil || m.confirm.Active() }

// loadDelay holds the first load back a moment: reading and validating the
// skill and workflow files is the heaviest start-up work of any screen, and
// the screen nova opens on (Home) should get the machine first.
const loadDelay = 250 * time.Millisecond

type loadMsg struct{}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd {
	return common.Debounce(loadDelay, loadMsg{}) // a one-off delay (tests wait for it, unlike tea.Tick)
}

func (m *Model) load() tea.Cmd {
	return tea.Batch(m.loadSkills(), m.loadWorkflows(), m.loadRuns(), m.loadBlueprints(), m.loadAgents())
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.confirm.SetSize(w, h)
	if m.form != nil {
		m.form.SetWidth(w)
	}
	if m.request != nil {
		m.request.SetWidth(w)
	}
}

// --- commands ---------------------------------------------------------------

func (m *Model) loadSkills() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		l, err := src.ListSkills(ctx, "")
		return skillsMsg{list: l, err: err}
	}
}

func (m *Model) loadWorkflows() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		l, err := src.ListWorkflows(ctx)
		return workflowsMsg{list: l, err: err}
	}
}

func (m *Model) loadRuns() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		rs, err := src.ListWorkflowRuns(ctx, 100)
		return runsMsg{runs: rs, err: err}
	}
}

func (m *Model) loadBlueprints() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		l, err := src.ListBlueprints(ctx)
		return blueprintsMsg{list: l, err: err}
	}
}

func (m *Model) loadAgents() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		r, err := src.ListAgents(ctx)
		if err != nil {
			return agentsMsg{}
		}
		ids := make([]string, 0, len(r.Agents))
		for _, a := range r.Agents {
			ids = append(ids, a.ID)
		}
		return agentsMsg{ids: ids}
	}
}

// loadBlueprint fetches the selected blueprint's detail and history.
func (m *Model) loadBlueprint(name string, openForm bool) tea.Cmd {
	if name == "" {
		return nil
	}
	m.bpAsked = name
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		d, err := src.ShowBlueprint(ctx, name)
		var h []blueprint.VersionRecord
		if err == nil {
			h, err = src.BlueprintHistory(ctx, name)
		}
		return bpDetailMsg{name: name, detail: d, history: h, err: err, form: openForm}
	}
}

func (m *Model) loadRun(id uint64) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		r, err := src.GetWorkflowRun(ctx, id)
		return runLoadedMsg{id: id, run: r, err: err}
	}
}

// runSkill runs a skill in a command; its events carry op.
func (m *Model) runSkill(name, agent string, inputs map[string]string) tea.Cmd {
	op := engine.NewOp()
	m.ops[op] = true
	m.view, m.skillName, m.skillRunning, m.skillRes, m.skillErr, m.scroll = viewSkillResult, name, true, nil, nil, 0
	m.skillVals = inputs
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		res, err := src.RunSkill(ctx, name, engine.SkillRunOptions{Agent: agent, Inputs: inputs, Op: op})
		return skillRanMsg{name: name, res: res, err: err}
	}
}

// createRun stores a workflow run; runCreatedMsg then runs it.
func (m *Model) createRun(id string, vals map[string]string) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		r, err := src.CreateWorkflowRun(ctx, id, engine.WorkflowOptions{Params: vals})
		return runCreatedMsg{run: r, err: err}
	}
}

// runWorkflow runs (or resumes) a workflow run for as long as it runs:
// RunWorkflow blocks, its progress arrives as events. It is attended: a
// step's build waits for a model server that went away and for the
// answers of tasks that ask (the Build screen's dialog); the steps'
// command approvals are put to the user. The TUI's context bounds it:
// quitting pauses it, resumable.
func (m *Model) runWorkflow(id uint64) tea.Cmd {
	if m.running[id] {
		return common.Toast(fmt.Sprintf("workflow run %d is already running here", id))
	}
	m.running[id] = true
	op := engine.NewOp()
	m.ops[op] = true
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		r, err := src.RunWorkflow(ctx, id, engine.RunWorkflowOptions{Approvals: engine.ApproveAsk, Op: op, Attended: true})
		return runEndedMsg{id: id, run: r, err: err}
	}
}

func (m *Model) cancelRun(id uint64) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg { return canceledMsg{id: id, err: src.CancelWorkflowRun(ctx, id)} }
}

func (m *Model) renderPreview(name string, vals map[string]string) tea.Cmd {
	m.view, m.previewFor, m.previewVals, m.preview, m.previewErr, m.scroll = viewPreview, name, vals, nil, nil, 0
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		res, err := src.UseBlueprint(ctx, name, engine.UseOptions{Values: vals})
		return previewMsg{name: name, values: vals, res: res, err: err}
	}
}

// makeBuild creates the previewed PRD's build; buildMadeMsg runs it.
func (m *Model) makeBuild() tea.Cmd {
	if m.preview == nil || m.making {
		return nil
	}
	m.making = true
	src, ctx, name, vals, version := m.src, m.c.Ctx, m.previewFor, m.previewVals, m.preview.Version
	return func() tea.Msg {
		res, err := src.UseBlueprint(ctx, name, engine.UseOptions{Values: vals, Version: version, Build: true})
		return buildMadeMsg{res: res, err: err}
	}
}

// runBuild runs a blueprint's build the way the Build screen runs its own
// (attended, approvals asked there).
func (m *Model) runBuild(id uint64) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		_, err := src.RunBuild(ctx, id, engine.RunBuildOptions{Approvals: engine.ApproveAsk, Attended: true})
		return buildRanMsg{id: id, err: err}
	}
}

func (m *Model) refreshRun() tea.Cmd {
	m.runSeq++
	return common.Debounce(80*time.Millisecond, refreshMsg{seq: -m.runSeq})
}

func (m *Model) refreshLists() tea.Cmd {
	m.listSeq++
	return common.Debounce(150*time.Millisecond, refreshMsg{seq: m.listSeq})
}

func (m *Model) spinCmd() tea.Cmd {
	if m.spinOn || !m.spinning() {
		return nil
	}
	m.spinOn = true
	return tea.Tick(common.Spinner.FPS, func(time.Time) tea.Msg { return spinMsg{} })
}

func (m *Model) spinning() bool {
	if m.view == viewSkillResult && m.skillRunning {
		return true
	}
	if m.view == viewRun && m.run != nil && m.run.Status == workflow.RunRunning && m.running[m.run.ID] {
		return true
	}
	return false
}

// --- update -----------------------------------------------------------------

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case loadMsg:
		return m, m.load()
	case skillsMsg:
		m.loaded[paneSkills], m.errs[paneSkills] = true, msg.err
		if msg.err == nil {
			m.skills = msg.list
		}
		m.syncLists()
		return m, nil
	case workflowsMsg:
		m.loaded[paneWorkflows], m.errs[paneWorkflows] = true, msg.err
		if msg.err == nil {
			m.workflows = msg.list
		}
		m.syncLists()
		return m, nil
	case runsMsg:
		m.loaded[paneRuns], m.errs[paneRuns] = true, msg.err
		if msg.err == nil {
			m.runs = msg.runs
		}
		m.syncLists()
		return m, nil
	case blueprintsMsg:
		m.loaded[paneBlueprints], m.errs[paneBlueprints] = true, msg.err
		if msg.err == nil {
			m.blueprints = msg.list
		}
		m.syncLists()
		return m, m.loadBlueprint(m.selectedBlueprint(), false)
	case agentsMsg:
		m.agents = msg.ids
		return m, nil
	case bpDetailMsg:
		if msg.name != m.bpAsked {
			return m, nil
		}
		m.bpErr = msg.err
		if msg.err == nil {
			d := msg.detail
			m.bp, m.bpHist = &d, msg.history
			if msg.form {
				return m, m.openBlueprintForm()
			}
		}
		return m, nil
	case skillRanMsg:
		if msg.name != m.skillName {
			return m, nil
		}
		m.skillRunning = false
		m.skillErr = msg.err
		if msg.err == nil {
			res := msg.res
			m.skillRes = &res
		}
		return m, nil
	case runCreatedMsg:
		if msg.err != nil {
			if m.form != nil { // the engine refused the values: say so in the form
				m.form.note = msg.err.Error()
				return m, nil
			}
			return m, common.Failure(msg.err)
		}
		m.form = nil
		r := msg.run
		m.openRun(&r)
		return m, tea.Batch(m.runWorkflow(r.ID), m.refreshLists(), m.spinCmd())
	case runEndedMsg:
		delete(m.running, msg.id)
		var cmds []tea.Cmd
		if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
			cmds = append(cmds, common.Failure(fmt.Errorf("workflow run %d: %w", msg.id, msg.err)))
		} else if msg.err == nil {
			if m.run != nil && m.run.ID == msg.id {
				r := msg.run
				m.setRun(&r)
			}
			cmds = append(cmds, common.Toast(fmt.Sprintf("workflow run %d %s", msg.id, runEndText(msg.run))))
		}
		return m, tea.Batch(append(cmds, m.refreshLists(), m.refreshRun())...)
	case runLoadedMsg:
		if msg.id != m.runID {
			return m, nil
		}
		m.runErr = msg.err
		if msg.err == nil {
			r := msg.run
			m.setRun(&r)
			for _, s := range r.Steps {
				if s.BuildID != 0 {
					m.builds[s.ID] = strconv.FormatUint(s.BuildID, 10)
				}
			}
			m.followStep()
		}
		return m, m.spinCmd()
	case canceledMsg:
		if msg.err != nil {
			return m, common.Failure(fmt.Errorf("cancel workflow run %d: %w", msg.id, msg.err))
		}
		return m, common.Toast(fmt.Sprintf("workflow run %d: canceling; R resumes it", msg.id))
	case matchTick:
		if m.request != nil && msg.seq == m.request.seq {
			return m, m.request.match(m.src, m.c.Ctx)
		}
		return m, nil
	case matchMsg:
		if m.request != nil && msg.seq == m.request.seq {
			m.request.matches, m.request.err = msg.matches, msg.err
			m.request.list.SetRows(msg.matches)
		}
		return m, nil
	case previewMsg:
		if msg.name != m.previewFor {
			return m, nil
		}
		m.previewErr = msg.err
		if msg.err == nil {
			res := msg.res
			m.preview = &res
		}
		return m, nil
	case buildMadeMsg:
		m.making = false
		if msg.err != nil {
			m.previewErr = msg.err
			return m, nil
		}
		b := msg.res.Build
		if b == nil {
			return m, nil
		}
		id := strconv.FormatUint(b.ID, 10)
		m.view = viewBrowse
		return m, tea.Batch(m.runBuild(b.ID), m.refreshLists(),
			func() tea.Msg { return common.NavigateMsg{Page: BuildPage, Arg: id} },
			common.Toast(fmt.Sprintf("build %s created from %s v%d", id, msg.res.Blueprint, msg.res.Version)))
	case buildRanMsg:
		if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
			return m, tea.Batch(m.refreshLists(), common.Failure(fmt.Errorf("build %d: %w", msg.id, msg.err)))
		}
		return m, m.refreshLists()
	case approvalAnsweredMsg:
		if msg.err != nil {
			return m, common.Failure(fmt.Errorf("answer approval: %w", msg.err))
		}
		verb := "denied"
		if msg.yes {
			verb = "allowed"
		}
		return m, common.Toast(verb + " `" + msg.cmd + "`")
	case confirm.ResultMsg:
		return m, m.confirmed(msg)
	case refreshMsg:
		switch {
		case msg.seq < 0 && -msg.seq == m.runSeq && m.runID != 0:
			return m, m.loadRun(m.runID)
		case msg.seq > 0 && msg.seq == m.listSeq:
			return m, tea.Batch(m.loadRuns(), m.loadBlueprints())
		}
		return m, nil
	case spinMsg:
		m.spinOn = false
		m.spin = (m.spin + 1) % len(common.Spinner.Frames)
		return m, m.spinCmd()
	case common.EventMsg:
		return m, m.event(msg.Event)
	case common.NavigateMsg:
		if msg.Page == ID {
			if id, ok := msg.Arg.(uint64); ok && id != 0 {
				m.openRun(&workflow.Run{ID: id})
				m.run = nil
				return m, m.loadRun(id)
			}
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func runEndText(r workflow.Run) string {
	switch r.Status {
	case workflow.RunDone:
		return "done"
	case workflow.RunPaused:
		return "paused — R resumes it"
	default:
		return string(r.Status)
	}
}

// openRun shows a workflow run (its live view).
func (m *Model) openRun(r *workflow.Run) {
	if m.runID != r.ID {
		m.builds, m.streams = map[string]string{}, map[string]*strings.Builder{}
		m.follow, m.scroll = true, 0
		m.steps.SetRows(r.Steps)
	} else {
		m.steps.ReplaceRows(r.Steps, nil)
	}
	m.view, m.run, m.runID, m.runErr = viewRun, r, r.ID, nil
	m.followStep()
}

// setRun shows a fresh copy of the run, the step cursor in place.
func (m *Model) setRun(r *workflow.Run) {
	m.run = r
	m.steps.ReplaceRows(r.Steps, nil)
}

// followStep keeps the selection on the running step until the user moves.
func (m *Model) followStep() {
	if m.run == nil || !m.follow {
		return
	}
	for i, s := range m.run.Steps {
		if s.Status == workflow.StepRunning {
			m.steps.SetCursor(i)
			return
		}
	}
}

// event handles one engine event.
func (m *Model) event(ev engine.Event) tea.Cmd {
	switch ev.Topic {
	case engine.TopicBlueprint:
		return m.refreshLists()
	case engine.TopicWorkflow:
		var cmds []tea.Cmd
		if ev.RunID == strconv.FormatUint(m.runID, 10) && m.runID != 0 {
			if ev.BuildID != "" && ev.TaskID != "" {
				m.builds[ev.TaskID] = ev.BuildID
			}
			cmds = append(cmds, m.refreshRun())
		}
		if ev.Type != engine.EventStep || ev.Status != string(workflow.StepRunning) {
			cmds = append(cmds, m.refreshLists())
		}
		return tea.Batch(cmds...)
	}
	if ev.Type == engine.EventNeedsApproval && ev.Approval != nil && m.ops[ev.Op] && ev.BuildID == "" {
		// A skill's command (a skill run here, or a workflow's skill step);
		// the steps' builds ask on the Build screen.
		return m.askApproval(*ev.Approval)
	}
	if ev.BuildID == "" || !m.isRunBuild(ev.BuildID) {
		return nil
	}
	switch {
	case ev.Type == engine.EventTaskAsking:
		return common.Toast(fmt.Sprintf("step %s asks you a question — enter opens its build (or alt+6, a)", ev.TaskID))
	case ev.Type == engine.EventDelta && ev.Topic == engine.TopicAgent:
		if ev.Agent != nil && ev.Agent.Reset {
			m.stream(ev.BuildID).WriteString("\n── retried ──\n")
		}
		m.appendStream(ev.BuildID, ev.Text)
	case ev.Topic == engine.TopicAgent && ev.Agent != nil:
		switch ev.Agent.Type {
		case agents.EventToolCall:
			m.appendStream(ev.BuildID, "\n→ "+ev.Agent.Tool+" "+oneLine(ev.Agent.Args)+"\n")
		case agents.EventToolResult:
			m.appendStream(ev.BuildID, "← "+ev.Agent.Tool+" "+ev.Agent.Status+"\n")
		}
	case ev.Topic == engine.TopicBuild && (ev.Type == engine.EventTask || ev.Type == engine.EventTaskWaiting):
		return m.refreshRun()
	}
	return nil
}

func (m *Model) isRunBuild(id string) bool {
	for _, b := range m.builds {
		if b == id {
			return true
		}
	}
	return false
}

func (m *Model) stream(build string) *strings.Builder {
	sb := m.streams[build]
	if sb == nil {
		sb = &strings.Builder{}
		m.streams[build] = sb
	}
	return sb
}

func (m *Model) appendStream(build, text string) {
	sb := m.stream(build)
	sb.WriteString(text)
	if sb.Len() > maxStream {
		tail := common.TailFrom(sb.String(), maxStream/2)
		sb.Reset()
		sb.WriteString("…")
		sb.WriteString(tail)
	}
}

// askApproval puts a skill step's command to the user.
func (m *Model) askApproval(req tools.ApprovalRequest) tea.Cmd {
	if m.confirm.Active() {
		return common.Toast(fmt.Sprintf("%s wants to run `%s`; answer the open question first", req.Agent, req.Command))
	}
	body := fmt.Sprintf("%s wants to run:\n\n  %s\n\nin %s.", orDash(req.Agent), req.Command, orDash(req.Dir))
	if req.Unvetted != "" {
		body += "\n\nCareful: " + req.Unvetted + "."
	}
	if req.Reason != "" {
		body += " " + req.Reason + "."
	}
	m.confirm.Open(confirm.Options{ID: "approve-command", Title: "Allow this command?", Body: body,
		Yes: "Allow", No: "Deny", Danger: true, Payload: req})
	return nil
}

func (m *Model) confirmed(msg confirm.ResultMsg) tea.Cmd {
	switch msg.ID {
	case "approve-command":
		req, _ := msg.Payload.(tools.ApprovalRequest)
		src, ctx, yes := m.src, m.c.Ctx, msg.Confirmed
		return func() tea.Msg {
			return approvalAnsweredMsg{cmd: req.Command, yes: yes, err: src.AnswerApproval(ctx, req.ID, yes)}
		}
	case "cancel-run":
		if id, ok := msg.Payload.(uint64); ok && msg.Confirmed {
			return m.cancelRun(id)
		}
	case "run-prd":
		if msg.Confirmed {
			return m.makeBuild()
		}
	}
	return nil
}

// --- selection --------------------------------------------------------------

func (m *Model) count(p pane) int {
	switch p {
	case paneSkills:
		return len(m.skills.Skills)
	case paneWorkflows:
		return len(m.workflows.Workflows)
	case paneRuns:
		return len(m.runs)
	case paneBlueprints:
		return len(m.blueprints)
	}
	return 0
}

// syncLists gives every pane's list its fresh rows, the cursor at the
// same place (a new run, listed first, is then the one chosen).
func (m *Model) syncLists() {
	for p := range paneCount {
		m.lists[p].ReplaceRows(m.rows(p), nil)
	}
}

func (m *Model) selectedBlueprint() string {
	if i := m.sel(paneBlueprints); i < len(m.blueprints) {
		return m.blueprints[i].Name
	}
	return ""
}

// --- keys -------------------------------------------------------------------

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if m.confirm.Active() {
		_, cmd := m.confirm.Update(msg)
		return cmd
	}
	if m.form != nil {
		return m.formKey(msg)
	}
	if m.request != nil {
		return m.requestKey(msg)
	}
	switch m.view {
	case viewSkillResult:
		return m.resultKey(msg)
	case viewRun:
		return m.runKey(msg)
	case viewPreview:
		return m.previewKey(msg)
	}
	switch {
	case key.Matches(msg, km.Refresh):
		return m.load()
	case key.Matches(msg, km.Tab), msg.String() == "right":
		m.pane = (m.pane + 1) % paneCount
		return m.paneChanged()
	case key.Matches(msg, km.ShiftTab), msg.String() == "left":
		m.pane = (m.pane + paneCount - 1) % paneCount
		return m.paneChanged()
	case key.Matches(msg, km.Filter) && m.pane == paneWorkflows:
		m.request = newRequestBox(m.c)
		m.request.SetWidth(m.width)
		return m.request.input.Focus()
	}
	prev := m.sel(m.pane)
	ok, cmd := m.lists[m.pane].HandleKey(msg)
	if !ok {
		return m.action(msg)
	}
	if m.pane == paneBlueprints && m.sel(m.pane) != prev {
		return tea.Batch(cmd, m.loadBlueprint(m.selectedBlueprint(), false))
	}
	return cmd
}

func (m *Model) paneChanged() tea.Cmd {
	if m.pane == paneBlueprints && (m.bp == nil || m.bp.Name != m.selectedBlueprint()) {
		return m.loadBlueprint(m.selectedBlueprint(), false)
	}
	return nil
}

// action handles the pane's own keys.
func (m *Model) action(msg tea.KeyPressMsg) tea.Cmd {
	enter := msg.String() == "enter"
	switch m.pane {
	case paneSkills:
		if (key.Matches(msg, m.keys.RunSkill) || enter) && m.count(paneSkills) > 0 {
			return m.openSkillForm(m.skills.Skills[m.sel(paneSkills)].Name, nil)
		}
	case paneWorkflows:
		if (key.Matches(msg, m.keys.RunWorkflow) || enter) && m.count(paneWorkflows) > 0 {
			return m.openWorkflowForm(m.workflows.Workflows[m.sel(paneWorkflows)].ID, nil)
		}
	case paneRuns:
		if m.count(paneRuns) == 0 {
			return nil
		}
		r := m.runs[m.sel(paneRuns)]
		switch {
		case enter:
			m.openRun(&r)
			return m.loadRun(r.ID)
		case key.Matches(msg, m.keys.Resume):
			return m.resume(r)
		}
	case paneBlueprints:
		if (key.Matches(msg, m.keys.UseBlueprint) || enter) && m.count(paneBlueprints) > 0 {
			name := m.selectedBlueprint()
			if m.bp == nil || m.bp.Name != name {
				return m.loadBlueprint(name, true)
			}
			return m.openBlueprintForm()
		}
	}
	return nil
}

// resume runs a paused, failed or interrupted run again and shows it.
func (m *Model) resume(r workflow.Run) tea.Cmd {
	switch {
	case r.Status == workflow.RunDone:
		return common.Toast(fmt.Sprintf("workflow run %d is done; nothing to resume", r.ID))
	case r.Status == workflow.RunRunning && (r.Active || m.running[r.ID]):
		return common.Toast(fmt.Sprintf("workflow run %d is running", r.ID))
	}
	m.openRun(&r)
	return tea.Batch(m.runWorkflow(r.ID), m.loadRun(r.ID), m.spinCmd())
}

func (m *Model) openSkillForm(name string, given map[string]string) tea.Cmd {
	for _, sk := range m.skills.Skills {
		if sk.Name != name {
			continue
		}
		who := sk.Agents
		if len(who) == 0 {
			// Every agent may run it; RunSkill's default comes first.
			who = []string{"researcher"}
			for _, a := range m.agents {
				if a != "researcher" {
					who = append(who, a)
				}
			}
		}
		m.form = newForm(m.c, "skill", name, fmt.Sprintf("Run skill %s %s", sk.Name, sk.Version), "Run", sk.Inputs, given).withAgent(who)
		m.form.SetWidth(m.width)
		return m.form.Open()
	}
	return nil
}

func (m *Model) openWorkflowForm(id string, given map[string]string) tea.Cmd {
	for _, w := range m.workflows.Workflows {
		if w.ID != id {
			continue
		}
		m.form = newForm(m.c, "workflow", id, "Run workflow "+w.Name, "Run", w.Params, given)
		m.form.SetWidth(m.width)
		return m.form.Open()
	}
	return common.Toast("no workflow " + id)
}

// openBlueprintForm asks for the blueprint's parameters (defaults filled
// in); a blueprint without parameters goes straight to the preview.
func (m *Model) openBlueprintForm() tea.Cmd {
	if m.bp == nil {
		return nil
	}
	if len(m.bp.Spec.Parameters) == 0 {
		return m.renderPreview(m.bp.Name, map[string]string{})
	}
	m.form = newForm(m.c, "blueprint", m.bp.Name, fmt.Sprintf("Use blueprint %s v%d", m.bp.Name, m.bp.Version), "Preview", m.bp.Spec.Parameters, m.previewValsFor(m.bp.Name))
	m.form.SetWidth(m.width)
	return m.form.Open()
}

// previewValsFor keeps the values last used for a blueprint.
func (m *Model) previewValsFor(name string) map[string]string {
	if m.previewFor == name {
		return m.previewVals
	}
	return nil
}

func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	res, cmd := m.form.Key(msg)
	switch res {
	case formCancel:
		m.form = nil
		return nil
	case formSubmit:
		f := m.form
		vals, agent := f.Values()
		switch f.kind {
		case "skill":
			m.form = nil
			return m.runSkill(f.target, agent, vals)
		case "workflow":
			return m.createRun(f.target, vals)
		case "blueprint":
			m.form = nil
			return m.renderPreview(f.target, vals)
		}
	}
	return cmd
}

func (m *Model) resultKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch {
	case key.Matches(msg, km.Back):
		if !m.skillRunning {
			m.view = viewBrowse
		}
	case key.Matches(msg, km.Down):
		m.scroll++
	case key.Matches(msg, km.Up):
		m.scroll = max(0, m.scroll-1)
	case key.Matches(msg, km.PageDown):
		m.scroll += 10
	case key.Matches(msg, km.PageUp):
		m.scroll = max(0, m.scroll-10)
	case key.Matches(msg, km.Top):
		m.scroll = 0
	case key.Matches(msg, m.keys.RunAgain):
		if !m.skillRunning {
			return m.openSkillForm(m.skillName, m.skillVals)
		}
	}
	return nil
}

func (m *Model) runKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	r := m.run
	switch {
	case key.Matches(msg, km.Back):
		m.view = viewBrowse
		return m.refreshLists()
	case key.Matches(msg, km.Refresh):
		return m.loadRun(m.runID)
	}
	if r == nil {
		return nil
	}
	switch {
	case key.Matches(msg, km.Down, km.Up, km.Top, km.Bottom):
		// The steps move; page keys scroll the output.
		_, cmd := m.steps.HandleKey(msg)
		m.follow, m.scroll = false, 0
		return cmd
	case key.Matches(msg, km.PageUp):
		m.scroll += 10
	case key.Matches(msg, km.PageDown):
		m.scroll = max(0, m.scroll-10)
	case key.Matches(msg, m.keys.Resume):
		return m.resume(*r)
	case key.Matches(msg, m.keys.CancelRun):
		if r.Status != workflow.RunRunning || !m.running[r.ID] {
			return common.Toast(fmt.Sprintf("workflow run %d is not running here", r.ID))
		}
		m.confirm.Open(confirm.Options{ID: "cancel-run", Title: fmt.Sprintf("Cancel workflow run %d?", r.ID),
			Body: "The running step stops; finished steps and staged changes are kept. R (or `nova workflow resume " +
				strconv.FormatUint(r.ID, 10) + "`) continues it later.",
			Yes: "Cancel run", No: "Keep running", Danger: true, Payload: r.ID})
		return nil
	case msg.String() == "enter":
		if st, ok := m.steps.Selected(); ok {
			id := m.builds[st.ID]
			if id == "" {
				return common.Toast(fmt.Sprintf("step %s has no build (skill steps and skipped steps run none)", st.ID))
			}
			return func() tea.Msg { return common.NavigateMsg{Page: BuildPage, Arg: id} }
		}
	}
	return nil
}

func (m *Model) previewKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch {
	case key.Matches(msg, km.Back):
		m.view = viewBrowse
	case key.Matches(msg, m.keys.ToggleView):
		m.previewJSON, m.scroll = !m.previewJSON, 0
	case key.Matches(msg, km.Down):
		m.scroll++
	case key.Matches(msg, km.Up):
		m.scroll = max(0, m.scroll-1)
	case key.Matches(msg, km.PageDown):
		m.scroll += 10
	case key.Matches(msg, km.PageUp):
		m.scroll = max(0, m.scroll-10)
	case key.Matches(msg, m.keys.ChangeValues):
		if m.bp != nil {
			return m.openBlueprintForm()
		}
	case msg.String() == "enter":
		if m.preview == nil || m.making {
			return nil
		}
		tasks := len(previewTasks(m.preview.PRD))
		m.confirm.Open(confirm.Options{ID: "run-prd", Title: "Run this PRD?",
			Body: fmt.Sprintf("Builds %s v%d with %s now; the Build screen follows it. Agents stage their changes; below autonomy 3 you approve them.",
				m.preview.Blueprint, m.preview.Version, plural(tasks, "task")),
			Yes: "Run it", No: "Not now"})
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		return string(r[:119]) + "…"
	}
	return s
}

// --- the workflow request box ----------------------------------------------

// requestBox finds the workflow a request triggers: typing shows the
// matches (MatchWorkflows, debounced); enter opens the chosen one's form
// with the values read from the request.
type requestBox struct {
	c       *common.Common
	input   textinput.Model
	seq     int
	matches []workflow.Match
	list    *vlist.Model[workflow.Match] // the matches, best first
	err     error
	width   int
}

func newRequestBox(c *common.Common) *requestBox {
	in := textinput.New()
	in.Prompt = "› "
	in.Placeholder = "what should happen? e.g. add tests for parse.go"
	in.CharLimit = 500
	in.SetStyles(c.Styles.TextInput)
	r := &requestBox{c: c, input: in}
	r.list = vlist.New(c, r.renderMatch)
	r.list.SetMarker(true)
	return r
}

func (r *requestBox) SetWidth(w int) {
	r.width = w
	r.input.SetWidth(max(10, min(84, max(44, w-6))-10))
}

func (r *requestBox) match(src Source, ctx context.Context) tea.Cmd {
	text, seq := strings.TrimSpace(r.input.Value()), r.seq
	if text == "" {
		r.matches, r.err = nil, nil
		return nil
	}
	return func() tea.Msg {
		ms, err := src.MatchWorkflows(ctx, text)
		return matchMsg{seq: seq, matches: ms, err: err}
	}
}

func (m *Model) requestKey(msg tea.KeyPressMsg) tea.Cmd {
	r, km := m.request, m.c.KeyMap
	switch {
	case key.Matches(msg, km.Back):
		m.request = nil
		return nil
	case msg.String() == "enter":
		mt, ok := r.list.Selected()
		if !ok {
			return nil
		}
		m.request = nil
		for i, w := range m.workflows.Workflows {
			if w.ID == mt.ID {
				m.lists[paneWorkflows].SetCursor(i)
			}
		}
		return m.openWorkflowForm(mt.ID, mt.Params)
	case msg.String() == "down", msg.String() == "up", msg.String() == "pgdown", msg.String() == "pgup":
		// Only the arrows and page keys move: letters (j, k, g, G) are
		// typed into the request.
		_, cmd := r.list.HandleKey(msg)
		return cmd
	}
	var cmd tea.Cmd
	r.input, cmd = r.input.Update(msg)
	r.seq++
	return tea.Batch(cmd, common.Debounce(120*time.Millisecond, matchTick{seq: r.seq}))
}
