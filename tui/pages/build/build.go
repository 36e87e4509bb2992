// Package build is the Build screen: the task graph of a build grouped by
// phase (status, dependencies, durations), the selected task's live output,
// gate results, retries and token use, and its provenance (the vault nodes
// and playbook rules that went into its prompt, each a jump away). Builds
// start from a PRD picker (n), pause and resume (p) and cancel (X, after a
// confirmation); b switches between builds.
package build

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	eb "github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
	"github.com/nova-dev/nova/tui/components/pathinput"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the router id of the page.
const ID = "build"

// maxStream bounds the live output kept per task (bytes).
const maxStream = 64 << 10

// flushEvery is how often streamed deltas are folded into the view.
const flushEvery = 50 * time.Millisecond

type mode uint8

const (
	modeGraph mode = iota
	modePicker
	modeBuilds
)

type focus uint8

const (
	focusTasks focus = iota
	focusProvenance
	focusOutput
)

type listMsg struct {
	builds []Summary
	err    error
}

type detailMsg struct {
	gen    int
	detail Detail
	err    error
}

type prdsMsg struct {
	dir   string
	files []prdFile
	err   error
}

type startedMsg struct {
	id   string
	path string
	err  error
}

type controlMsg struct {
	verb string
	err  error
}

// ranMsg: a RunBuild the page started returned (the build ended, paused or
// was stopped).
type ranMsg struct {
	id  string
	err error
}

type refreshMsg struct{ seq int }
type flushMsg struct{}
type spinMsg struct{}

// prdFile is one entry of the PRD picker.
type prdFile = engine.PlanFile

// Model is the Build page.
type Model struct {
	c      *common.Common
	src    Source
	width  int
	height int
	now    func() time.Time

	builds  []Summary
	listErr error
	loaded  bool

	cur    string // the shown build's id
	detail *Detail
	detErr error
	gen    int
	seq    int
	// tasks lists the tasks in order under their phases' headings.
	tasks  *vlist.Model[taskRow]
	follow bool // the selection follows the running task until the user moves it
	// place centres the tasks' window on the cursor at the next render
	// (the list gets its size there).
	place bool
	// placeBuilds centres the builds list on the shown build when it opens.
	placeBuilds bool
	order       []int
	focus       focus
	prov        *vlist.Model[provItem] // the selected task's provenance
	scroll      int                    // output lines scrolled up from the bottom
	keys        keyMap

	streams map[string]*strings.Builder // key build/task
	pending map[string]*pendingDelta
	flushOn bool

	spin   int
	spinOn bool

	mode      mode
	prds      []prdFile
	prdDir    string
	prdErr    error
	prdList   *vlist.Model[prdFile]
	prdLoaded bool
	prdPath   *pathinput.Model // a PRD anywhere, typed (/ ~ .)
	starting  bool
	startErr  error

	buildList *vlist.Model[Summary] // newest first
	confirm   *confirm.Model
	ask       *askDialog

	// runs maps agent run ids to the build task they run (from the
	// agent events, which carry both); approvals are the command
	// approvals of build tasks waiting for the dialog, waiting the tasks
	// whose approval is asked.
	runs map[string][2]string
	// estimates is each running task's last progress line (build/task),
	// so the stream shows it only when it changes.
	estimates map[string]string
	approvals []approval
	waiting   map[string]string // build/task -> command
}

// approval is a build task's request to run a command.
type approval struct {
	req   tools.ApprovalRequest
	build string
	task  string
}

type answeredMsg struct {
	a   approval
	yes bool
	err error
}

type pendingDelta struct {
	reset bool
	text  strings.Builder
}

// New builds the page over src (the workspace, or a test's fake).
func New(c *common.Common, src Source) *Model {
	m := &Model{c: c, src: src, now: c.Clock(), confirm: confirm.New(c), ask: newAskDialog(c), follow: true,
		streams: map[string]*strings.Builder{}, pending: map[string]*pendingDelta{},
		runs: map[string][2]string{}, waiting: map[string]string{}, estimates: map[string]string{},
		prdPath: pathinput.New(c, pathinput.File, "", ""), keys: newKeyMap()}
	m.tasks = vlist.New(c, m.renderTask)
	m.tasks.SetMarker(true)
	m.prov = vlist.New(c, m.renderProv)
	m.prov.SetMarker(true)
	m.prdList = vlist.New(c, m.renderPRD)
	m.prdList.SetMarker(true)
	m.buildList = vlist.New(c, m.renderBuild)
	m.buildList.SetMarker(true)
	return m
}

// taskRow is one row of the task list: a task (its index in order) or a
// phase's heading (order -1).
type taskRow struct {
	order int
	phase int
}

func isPhase(r taskRow) bool { return r.order < 0 }

// show switches to build id, its tasks shown once loaded.
func (m *Model) show(id string) {
	m.cur, m.detail = id, nil
	m.tasks.SetRows(nil)
	m.prov.SetCursor(0)
}

// selectOrder puts the cursor on the task at index i of order.
func (m *Model) selectOrder(i int) {
	for r := range m.tasks.Len() {
		if row, ok := m.tasks.Row(r); ok && row.order == i {
			m.tasks.SetCursor(r)
			return
		}
	}
}

// SetClock fixes the page's clock (golden tests).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// Title implements common.Page.
func (m *Model) Title() string { return "Build" }

// Capturing implements common.Page: dialogs and pickers own the keyboard.
func (m *Model) Capturing() bool { return m.mode != modeGraph || m.confirm.Active() || m.ask.open }

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return m.loadList() }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.confirm.SetSize(w, h)
	m.prdPath.SetWidth(m.dialogWidth() - 6)
	m.ask.SetWidth(m.dialogWidth())
}

func (m *Model) loadList() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		b, err := listBuilds(ctx, src)
		return listMsg{builds: b, err: err}
	}
}

func (m *Model) loadDetail() tea.Cmd {
	if m.cur == "" {
		return nil
	}
	m.gen++
	src, ctx, id, gen := m.src, m.c.Ctx, m.cur, m.gen
	return func() tea.Msg {
		d, err := getBuild(ctx, src, id)
		return detailMsg{gen: gen, detail: d, err: err}
	}
}

// loadPRDs lists the workspace's build plans, parsed and validated by the
// engine.
func (m *Model) loadPRDs() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		dir := filepath.Join(src.Info().Dir, "prds")
		files, err := src.ListPlans(ctx)
		return prdsMsg{dir: dir, files: files, err: err}
	}
}

// start creates a build of the PRD; startedMsg then runs it (runCmd).
func (m *Model) start(f prdFile) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		b, err := src.CreateBuild(ctx, f.Path, engine.BuildOptions{})
		if err != nil {
			return startedMsg{path: f.Path, err: err}
		}
		return startedMsg{id: strconv.FormatUint(b.ID, 10), path: f.Path}
	}
}

// runCmd runs (or resumes) a build for as long as it runs: RunBuild blocks,
// its progress arrives as events. The TUI's context bounds it: quitting
// leaves the build resumable. The agents' command approvals are put to the
// user (the approval dialog). The run is attended: it waits for a model
// server that went away, and for the answers of tasks that ask (the ask
// dialog), instead of giving up.
func (m *Model) runCmd(id string) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		n, err := parseID(id)
		if err == nil {
			_, err = src.RunBuild(ctx, n, engine.RunBuildOptions{Approvals: engine.ApproveAsk, Attended: true})
		}
		return ranMsg{id: id, err: err}
	}
}

func (m *Model) control(verb string) tea.Cmd {
	if verb == "resume" {
		// Resuming is running again: the run lasts as long as the build.
		id := m.cur
		return tea.Batch(m.runCmd(id), func() tea.Msg { return controlMsg{verb: verb} })
	}
	src, ctx, id := m.src, m.c.Ctx, m.cur
	return func() tea.Msg {
		n, err := parseID(id)
		if err == nil {
			switch verb {
			case "pause":
				err = src.PauseBuild(ctx, n)
			case "cancel":
				err = src.CancelBuild(ctx, n)
			}
		}
		return controlMsg{verb: verb, err: err}
	}
}

func (m *Model) refresh() tea.Cmd {
	m.seq++
	return common.Debounce(100*time.Millisecond, refreshMsg{seq: m.seq})
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case listMsg:
		m.loaded, m.listErr = true, msg.err
		if msg.err != nil {
			return m, nil
		}
		m.builds = msg.builds
		if m.cur == "" && len(m.builds) > 0 {
			m.cur = m.builds[0].ID
			for _, b := range m.builds { // prefer a running build
				if b.Live() {
					m.cur = b.ID
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
			keep := m.selectedTaskID()
			m.detail = &d
			m.reorder(keep)
			// Deltas still waiting for the flush tick are part of the stream:
			// fold them in first, or a finished task's output would be added
			// to a stream that only looks empty (the output shown twice).
			m.flush()
			for _, t := range d.Tasks { // finished output replaces a lost stream
				if t.Output != "" && t.Status != StatusRunning {
					k := streamKey(d.ID, t.ID)
					if sb := m.streams[k]; sb == nil || sb.Len() == 0 {
						b := &strings.Builder{}
						b.WriteString(t.Output)
						m.streams[k] = b
					}
				}
			}
		}
		return m, m.spinCmd()
	case refreshMsg:
		if msg.seq == m.seq {
			return m, tea.Batch(m.loadList(), m.loadDetail())
		}
		return m, nil
	case prdsMsg:
		m.prdLoaded, m.prdErr, m.prdDir = true, msg.err, msg.dir
		m.prds = msg.files
		m.prdList.ReplaceRows(m.prds, nil)
		return m, nil
	case startedMsg:
		m.starting = false
		if msg.err != nil {
			m.startErr = msg.err
			return m, nil
		}
		m.mode, m.startErr = modeGraph, nil
		m.show(msg.id)
		m.focus, m.follow = focusTasks, true
		return m, tea.Batch(m.runCmd(msg.id), m.loadList(), m.loadDetail(), common.Toast("build "+msg.id+" started from "+filepath.Base(msg.path)))
	case ranMsg:
		if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
			return m, tea.Batch(m.refresh(), common.Failure(fmt.Errorf("build %s: %w", msg.id, msg.err)))
		}
		return m, m.refresh()
	case controlMsg:
		if errors.Is(msg.err, eb.ErrFinished) {
			// p on a finished build: the engine says so.
			return m, common.Toast(msg.err.Error())
		}
		if msg.err != nil {
			return m, common.Failure(fmt.Errorf("%s build: %w", msg.verb, msg.err))
		}
		done := map[string]string{"pause": "pausing: running tasks finish first", "resume": "resumed", "cancel": "canceled"}[msg.verb]
		return m, tea.Batch(m.refresh(), common.Toast("build "+done))
	case confirm.ResultMsg:
		switch msg.ID {
		case "cancel-build":
			if msg.Confirmed {
				return m, m.control("cancel")
			}
		case "approve-command":
			a, _ := msg.Payload.(approval)
			return m, tea.Batch(m.answer(a, msg.Confirmed), m.nextApproval())
		}
		return m, nil
	case askedMsg:
		return m, m.asked(msg)
	case answeredMsg:
		delete(m.waiting, streamKey(msg.a.build, msg.a.task))
		if msg.err != nil {
			return m, common.Failure(fmt.Errorf("answer approval: %w", msg.err))
		}
		verb := "denied"
		if msg.yes {
			verb = "allowed"
		}
		return m, common.Toast(verb + " `" + msg.a.req.Command + "` for " + msg.a.task)
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
		if msg.Page == ID {
			if msg.Arg == common.ArgNew {
				return m, m.openPicker()
			}
			if id, ok := msg.Arg.(string); ok && id != "" && id != m.cur {
				m.show(id)
				return m, m.loadDetail()
			}
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	// The PRD path field's look-ups and cursor blinks.
	return m, m.prdPath.Update(msg)
}

func streamKey(build, task string) string { return build + "/" + task }

// event handles one engine event: deltas feed the live stream, task
// transitions refresh the graph.
func (m *Model) event(ev engine.Event) tea.Cmd {
	if ev.Topic == engine.TopicAgent && ev.BuildID != "" && ev.RunID != "" {
		m.runs[ev.RunID] = [2]string{ev.BuildID, ev.TaskID}
	}
	if ev.Type == engine.EventNeedsApproval && ev.Topic == engine.TopicAgent {
		return m.askApproval(ev)
	}
	if ev.Type == engine.EventTaskAsking && ev.Topic == engine.TopicBuild {
		return tea.Batch(m.refresh(), m.openAsk(ev.BuildID, ev.TaskID, ev.Text))
	}
	if ev.BuildID == "" && ev.Topic != engine.TopicBuild {
		return nil
	}
	if ev.Type == engine.EventDelta {
		if ev.TaskID == "" {
			return nil
		}
		if isReset(ev) {
			p := m.pendingFor(ev.BuildID, ev.TaskID)
			p.reset = true
			p.text.Reset()
		}
		return m.appendStream(ev.BuildID, ev.TaskID, ev.Text)
	}
	if ev.Topic != engine.TopicBuild && ev.Type != engine.EventDone && ev.Type != engine.EventFailed && ev.Type != engine.EventNeedsApproval {
		// Agent events of a build task: tool calls and new steps go into
		// the live stream; they are not transitions.
		if ae := ev.Agent; ae != nil && ev.TaskID != "" {
			switch ae.Type {
			case agents.EventToolCall:
				return m.appendStream(ev.BuildID, ev.TaskID, "\n→ "+ae.Tool+" "+oneLine(ae.Args)+"\n")
			case agents.EventToolResult:
				return m.appendStream(ev.BuildID, ev.TaskID, "← "+ae.Tool+" "+ae.Status+"\n")
			case agents.EventFit:
				return m.appendStream(ev.BuildID, ev.TaskID, "\n✂ "+oneLine(ae.Text)+"\n")
			case agents.EventProgress:
				if p := ae.Progress; p != nil {
					line := fmt.Sprintf("%d%% · next: %s", p.Percent, p.Milestone)
					if p.Stuck {
						line += " · stuck"
					}
					if k := streamKey(ev.BuildID, ev.TaskID); m.estimates[k] != line {
						m.estimates[k] = line
						return m.appendStream(ev.BuildID, ev.TaskID, "· "+line+"\n")
					}
				}
			}
		}
		return nil
	}
	if ev.Type == engine.EventTask && ev.TaskID != "" && ev.Status == StatusRunning {
		// A retry starts a fresh stream.
		k := streamKey(ev.BuildID, ev.TaskID)
		m.flush()
		if sb := m.streams[k]; sb != nil && sb.Len() > 0 {
			sb.WriteString("\n── attempt restarted ──\n")
		}
	}
	if m.cur == "" && ev.BuildID != "" {
		m.cur = ev.BuildID
	}
	if m.followsLive(ev) {
		// A build started elsewhere (another window, `nova build run`)
		// while the one shown is over: show the live one.
		m.show(ev.BuildID)
		return tea.Batch(m.refresh(), m.loadDetail())
	}
	return m.refresh()
}

// followsLive reports whether ev is another build running while the one
// shown has ended (or is not loaded), outside any dialog.
func (m *Model) followsLive(ev engine.Event) bool {
	if ev.Topic != engine.TopicBuild || ev.BuildID == "" || ev.BuildID == m.cur || ev.Status != StatusRunning {
		return false
	}
	if m.confirm.Active() || m.ask.open || m.mode != modeGraph {
		return false
	}
	return m.detail == nil || (m.detail.Status != StatusRunning && m.detail.Status != StatusWaiting)
}

// isReset reports a delta that discards the text streamed so far for the
// step (an LLM retry).
func isReset(ev engine.Event) bool {
	if ev.Status == "reset" {
		return true
	}
	if ev.Agent != nil {
		return ev.Agent.Reset
	}
	return false
}

// flush folds the coalesced deltas into the streams.
func (m *Model) flush() {
	for k, p := range m.pending {
		sb := m.streams[k]
		if sb == nil {
			sb = &strings.Builder{}
			m.streams[k] = sb
		}
		if p.reset {
			// Drop the text of the attempt being retried: up to the last
			// attempt marker, or all of it.
			cur := sb.String()
			sb.Reset()
			if i := strings.LastIndex(cur, "\n── attempt restarted ──\n"); i >= 0 {
				sb.WriteString(cur[:i+len("\n── attempt restarted ──\n")])
			}
		}
		sb.WriteString(p.text.String())
		if sb.Len() > maxStream {
			tail := common.TailFrom(sb.String(), maxStream/2)
			sb.Reset()
			sb.WriteString("…")
			sb.WriteString(tail)
		}
		delete(m.pending, k)
	}
}

// spinCmd keeps the spinner turning while a task of the shown build runs
// or the build waits (for the model server, an answer).
func (m *Model) spinCmd() tea.Cmd {
	if m.spinOn || m.detail == nil {
		return nil
	}
	running := m.detail.Status == StatusWaiting && m.detail.Active
	for _, t := range m.detail.Tasks {
		if t.Status == StatusRunning || (t.Status == StatusWaiting && t.WaitFor == WaitOllama) {
			running = true
			break
		}
	}
	if !running {
		return nil
	}
	m.spinOn = true
	return tea.Tick(common.Spinner.FPS, func(time.Time) tea.Msg { return spinMsg{} })
}

// reorder sorts the tasks by phase (plan order within a phase) and keeps
// the selection on the task with id keep.
func (m *Model) reorder(keep string) {
	m.order = m.order[:0]
	if m.detail == nil {
		return
	}
	for i := range m.detail.Tasks {
		m.order = append(m.order, i)
	}
	tasks := m.detail.Tasks
	slices.SortStableFunc(m.order, func(a, b int) int { return tasks[a].Phase - tasks[b].Phase })
	var rows []taskRow
	for i, idx := range m.order {
		if p := tasks[idx].Phase; i == 0 || p != tasks[m.order[i-1]].Phase {
			rows = append(rows, taskRow{order: -1, phase: p})
		}
		rows = append(rows, taskRow{order: i})
	}
	m.tasks.ReplaceRows(rows, nil)
	defer m.tasks.SkipHeading(isPhase, true)
	if keep == "" || m.follow {
		m.place = true
		// Follow the work: the first running task, else the first waiting
		// one (for the model server, an answer).
		for _, want := range []string{StatusRunning, StatusWaiting} {
			for i, idx := range m.order {
				if tasks[idx].Status == want {
					m.selectOrder(i)
					return
				}
			}
		}
		if keep == "" {
			return
		}
	}
	for i, idx := range m.order {
		if tasks[idx].ID == keep {
			m.selectOrder(i)
			return
		}
	}
}

func (m *Model) selectedTask() (Task, bool) {
	r, ok := m.tasks.Selected()
	if m.detail == nil || !ok || r.order < 0 || r.order >= len(m.order) {
		return Task{}, false
	}
	return m.detail.Tasks[m.order[r.order]], true
}

func (m *Model) selectedTaskID() string {
	if t, ok := m.selectedTask(); ok {
		return t.ID
	}
	return ""
}

// provItems are the provenance entries of the selected task, in display
// order: vault nodes, rules, knowledge, then the code map's files.
type provItem struct {
	vault   *VaultRef
	rule    *RuleRef
	know    *KnowledgeRef
	mapFile string
}

func (m *Model) provItems() []provItem {
	t, ok := m.selectedTask()
	if !ok {
		return nil
	}
	var items []provItem
	for i := range t.VaultNodes {
		items = append(items, provItem{vault: &t.VaultNodes[i]})
	}
	for i := range t.Rules {
		items = append(items, provItem{rule: &t.Rules[i]})
	}
	for i := range t.Knowledge {
		items = append(items, provItem{know: &t.Knowledge[i]})
	}
	for _, p := range t.CodeMap {
		items = append(items, provItem{mapFile: p})
	}
	return items
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if m.ask.open {
		return m.askKey(msg)
	}
	if m.confirm.Active() {
		_, cmd := m.confirm.Update(msg)
		return cmd
	}
	switch m.mode {
	case modePicker:
		return m.pickerKey(msg)
	case modeBuilds:
		return m.buildsKey(msg)
	}
	switch {
	case key.Matches(msg, km.Refresh):
		return tea.Batch(m.loadList(), m.loadDetail())
	case key.Matches(msg, m.keys.NewBuild):
		return m.openPicker()
	case key.Matches(msg, m.keys.Builds):
		if len(m.builds) == 0 {
			return nil
		}
		m.mode = modeBuilds
		m.buildList.SetRows(m.builds)
		for i, b := range m.builds {
			if b.ID == m.cur {
				m.buildList.SetCursor(i)
			}
		}
		m.placeBuilds = true
		return nil
	case key.Matches(msg, m.keys.Pause):
		if m.detail == nil {
			return nil
		}
		switch m.detail.Status {
		case StatusPaused, StatusCanceled, StatusInterrupted:
			return m.control("resume")
		case StatusRunning, StatusPending, StatusWaiting:
			if !m.detail.Active {
				// Stored as running but no process runs it (nova was
				// killed): p picks it up here.
				return m.control("resume")
			}
			return m.control("pause")
		}
		// Finished (done, failed): the engine says what pausing means.
		return m.control("pause")
	case key.Matches(msg, m.keys.Answer):
		t, ok := m.selectedTask()
		if !ok || m.detail == nil || t.Status != StatusWaiting || t.WaitFor != WaitUser {
			return common.Toast("a answers a task that asks you a question; this one asks nothing")
		}
		return m.openAsk(m.detail.ID, t.ID, t.Question)
	case key.Matches(msg, m.keys.Cancel):
		if m.detail == nil || !m.detail.Live() {
			return nil
		}
		m.confirm.Open(confirm.Options{ID: "cancel-build", Title: "Cancel build " + m.detail.ID + "?",
			Body: fmt.Sprintf("%s — %d of %d tasks done. Running tasks stop; done tasks and staged changes are kept. `nova build resume %s` picks it up later.",
				orDash(m.detail.Name), m.detail.Done, m.detail.Total, m.detail.ID),
			Yes: "Cancel build", No: "Keep running", Danger: true})
		return nil
	case key.Matches(msg, m.keys.NextFocus):
		m.focus = (m.focus + 1) % 3
		m.follow = false
		m.prov.SetCursor(0)
		return nil
	case key.Matches(msg, m.keys.PrevFocus):
		m.focus = (m.focus + 2) % 3
		m.follow = false
		m.prov.SetCursor(0)
		return nil
	case key.Matches(msg, m.keys.Tasks):
		m.focus = focusTasks
		return nil
	}
	switch m.focus {
	case focusProvenance:
		m.prov.ReplaceRows(m.provItems(), nil)
		if ok, cmd := m.prov.HandleKey(msg); ok {
			return cmd
		}
		switch {
		case key.Matches(msg, m.keys.AllKnowledge):
			t, ok := m.selectedTask()
			if !ok || len(t.Knowledge) == 0 || m.detail == nil {
				return common.Toast("no knowledge was injected into this task's prompt")
			}
			arg := common.KnowledgeRefs{Title: fmt.Sprintf("Injected into build %s, task %s", m.detail.ID, t.ID)}
			for _, k := range t.Knowledge {
				arg.Refs = append(arg.Refs, k.Ref)
			}
			return func() tea.Msg { return common.NavigateMsg{Page: "knowledge", Arg: arg} }
		case key.Matches(msg, m.keys.OpenSource):
			it, ok := m.prov.Selected()
			if !ok {
				return nil
			}
			if it.mapFile != "" {
				return common.Toast("in the code map block: " + it.mapFile + " (`nova map show " + it.mapFile + "` lists its signatures)")
			}
			if it.know != nil {
				ref := it.know.Ref
				return func() tea.Msg { return common.NavigateMsg{Page: "knowledge", Arg: ref} }
			}
			if it.vault != nil {
				id := it.vault.ID
				return func() tea.Msg { return common.NavigateMsg{Page: "vault", Arg: id} }
			}
			ref := it.rule.ID
			if it.rule.Agent != "" {
				ref = it.rule.Agent + "/" + ref // rule ids are per agent
			}
			return func() tea.Msg { return common.NavigateMsg{Page: "playbooks", Arg: ref} }
		}
		return nil
	case focusOutput:
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
	}
	prev := m.tasks.Cursor()
	if ok, cmd := m.tasks.HandleKey(msg); ok {
		m.tasks.SkipHeading(isPhase, m.tasks.Cursor() >= prev)
		if m.tasks.Cursor() != prev {
			m.scroll, m.follow = 0, false
			m.prov.SetCursor(0)
		}
		return cmd
	}
	if key.Matches(msg, m.keys.OpenProvenance) {
		m.focus, m.follow = focusProvenance, false
	}
	return nil
}

// openPicker opens the PRD picker (n, or the palette's "New build").
func (m *Model) openPicker() tea.Cmd {
	if m.mode == modePicker {
		return nil
	}
	m.confirm.Close()
	m.mode, m.prdLoaded, m.startErr = modePicker, false, nil
	m.prdList.SetCursor(0)
	m.prdPath.Blur()
	return m.loadPRDs()
}

// pickerPathKey handles a key while a PRD path is typed: enter starts a
// build from the file, esc goes back to the list.
func (m *Model) pickerPathKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.c.KeyMap.Back):
		m.prdPath.Blur()
		return nil
	case msg.String() == "enter":
		if m.starting || !m.prdPath.Valid() {
			return nil // the field says what is wrong
		}
		path := m.prdPath.Resolve()
		m.starting, m.startErr = true, nil
		return m.start(prdFile{Path: path, Name: filepath.Base(path)})
	}
	m.startErr = nil
	return m.prdPath.Update(msg)
}

func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if m.prdPath.Focused() {
		return m.pickerPathKey(msg)
	}
	if ok, cmd := m.prdList.HandleKey(msg); ok {
		m.startErr = nil
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.TypePath):
		m.startErr = nil
		m.prdPath.SetBase(m.src.Info().Root)
		return m.prdPath.Focus(msg.Text)
	case key.Matches(msg, m.keys.ClosePicker):
		if !m.starting {
			m.mode = modeGraph
		}
	case key.Matches(msg, km.Refresh):
		return m.loadPRDs()
	case key.Matches(msg, m.keys.StartBuild):
		f, ok := m.prdList.Selected()
		if m.starting || !ok {
			return nil
		}
		if f.Problem != "" {
			m.startErr = fmt.Errorf("%s cannot start until it is fixed", f.Name)
			return nil
		}
		m.starting, m.startErr = true, nil
		return m.start(f)
	}
	return nil
}

func (m *Model) buildsKey(msg tea.KeyPressMsg) tea.Cmd {
	if ok, cmd := m.buildList.HandleKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.CloseBuilds):
		m.mode = modeGraph
	case key.Matches(msg, m.keys.ShowBuild):
		m.mode = modeGraph
		if b, ok := m.buildList.Selected(); ok && b.ID != m.cur {
			m.show(b.ID)
			m.focus, m.follow = focusTasks, true
			return m.loadDetail()
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// askApproval queues a build task's command approval (runCommand below
// autonomy 4); other runs' approvals belong to the screen that started them.
func (m *Model) askApproval(ev engine.Event) tea.Cmd {
	if ev.Approval == nil || ev.GoalRunID != "" {
		return nil // a goal run's delegations are asked on the Run screen
	}
	req := *ev.Approval
	bt, ok := m.runs[ev.RunID]
	if !ok {
		return nil
	}
	a := approval{req: req, build: bt[0], task: bt[1]}
	m.waiting[streamKey(a.build, a.task)] = req.Command
	m.approvals = append(m.approvals, a)
	toast := common.Toast(fmt.Sprintf("build %s: %s wants to run `%s` — answer on the Build screen (alt+6)", a.build, a.task, req.Command))
	return tea.Batch(toast, m.nextApproval())
}

// openAsk opens the ask dialog for a task's question, unless another
// dialog is up (the task stays waiting; a opens it later).
func (m *Model) openAsk(build, task, question string) tea.Cmd {
	toast := common.Toast(fmt.Sprintf("build %s: %s asks you a question — answer on the Build screen (alt+6, a)", build, task))
	if m.ask.open && m.ask.sending {
		// The answer to the last question is on its way: this one comes next.
		m.ask.queue(build, task, question)
		return toast
	}
	if m.ask.open || m.confirm.Active() || m.mode != modeGraph {
		return toast
	}
	return tea.Batch(toast, m.ask.Open(build, task, question))
}

// nextApproval opens the dialog for the oldest queued approval.
func (m *Model) nextApproval() tea.Cmd {
	if m.confirm.Active() || len(m.approvals) == 0 {
		return nil
	}
	a := m.approvals[0]
	m.approvals = m.approvals[1:]
	body := fmt.Sprintf("%s (build %s, task %s) wants to run:\n\n  %s\n\nin %s.", orDash(a.req.Agent), a.build, a.task, a.req.Command, orDash(a.req.Dir))
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

func (m *Model) answer(a approval, yes bool) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		return answeredMsg{a: a, yes: yes, err: src.AnswerApproval(ctx, a.req.ID, yes)}
	}
}

func (m *Model) pendingFor(build, task string) *pendingDelta {
	k := streamKey(build, task)
	p := m.pending[k]
	if p == nil {
		p = &pendingDelta{}
		m.pending[k] = p
	}
	return p
}

// appendStream queues text for a task's live stream; a flush tick folds
// the queued text in, so a burst of deltas costs one render.
func (m *Model) appendStream(build, task, text string) tea.Cmd {
	m.pendingFor(build, task).text.WriteString(text)
	if m.flushOn {
		return nil
	}
	m.flushOn = true
	return tea.Tick(flushEvery, func(time.Time) tea.Msg { return flushMsg{} })
}
