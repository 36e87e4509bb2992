// Package importwiz is the pattern-library import wizard (router id "import"):
//
//  1. Source: pick a folder (the workspace's shipped library .nova/patterns by default, or a
//     recent one);
//  2. Scan and preview: a progress bar while the files are parsed, then a table of what each
//     file becomes (sort with o, filter with /, space includes or excludes a file, enter
//     shows the file rendered next to the node it will create);
//  3. Options: split sections, base confidence, dedup threshold, user, dry run;
//  4. Import: a progress bar; esc cancels and the import is rolled back (nothing stays);
//  5. Summary: the counts, the files that failed and why, open the vault, undo the batch.
//
// esc goes back one step and ? shows the keys of the current step. Every engine call and
// every file read runs in a tea.Cmd (cmds.go, dirpicker.go); results carry a generation so
// the page drops those of abandoned work.
package importwiz

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/table"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/patterns"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
	"github.com/nova-dev/nova/tui/components/pathinput"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the router id of the page.
const ID = "import"

// confirmUndo is the id of the undo question (ResultMsg is seen by every page).
const confirmUndo = "import.undo"

type step int

const (
	stepSource step = iota
	stepScan
	stepPreview
	stepOptions
	stepImport
	stepSummary
)

// Sort orders of the preview table, cycled with o.
var sortNames = []string{"path", "title", "category", "type", "priority", "reusability", "action"}

// Model is the import wizard.
type Model struct {
	c      *common.Common
	keys   keyMap
	width  int
	height int
	src    Source
	step   step
	// defaults are the engine's import options (the form starts from them).
	defaults engine.ImportOptions

	// Source: the folder picker, or a typed path (/).
	picker      *dirPicker
	path        *pathinput.Model
	recents     []string // newest first
	recentList  *vlist.Model[string]
	recentFocus bool
	source      string

	// Work in flight. op tags the progress events of the scan or import
	// under way.
	op     string
	gen    int
	cancel context.CancelFunc
	bar    progress.Model
	prog   importer.Progress

	// Preview.
	plan       *engine.ImportPlan
	preview    importer.Result
	previewSeq int
	excluded   map[string]bool
	rows       []importer.NodeReport
	tbl        table.Model
	sortBy     int
	filter     textinput.Model
	filtering  bool

	// File preview (enter in the table).
	detail    *importer.NodeReport
	rendered  map[renderKey]string
	unparsed  map[string]bool // files the plan has no body for
	renderErr error
	vp        viewport.Model

	// Options and result.
	form    optionsForm
	formErr error
	result  *importer.Result
	undone  *importer.UndoResult
	summary viewport.Model
	confirm *confirm.Model

	// note is a one-line message under the step bar (a cancellation, an error).
	note    string
	noteErr bool
}

// New builds the page.
func New(c *common.Common, src Source) *Model {
	m := &Model{c: c, keys: newKeyMap(), src: src, excluded: map[string]bool{}, rendered: map[renderKey]string{}, unparsed: map[string]bool{}, confirm: confirm.New(c)}
	// The engine's defaults arrive from Init (defaultsMsg); these are the
	// shipped ones until then.
	m.defaults = engine.ImportOptions{User: patterns.DefaultUser, BaseConfidence: patterns.DefaultBaseConfidence, DedupThreshold: importer.DefaultDedupThreshold}
	m.form = newOptionsForm(c, m.defaults)
	m.bar = progress.New(progress.WithColors(c.Styles.T.Primary, c.Styles.T.Accent), progress.WithFillCharacters('█', '░'))
	m.filter = textinput.New()
	m.filter.Prompt = "/ "
	m.filter.Placeholder = "filter by title, category, type, action or path"
	m.filter.SetStyles(c.Styles.TextInput)
	km := table.DefaultKeyMap()
	km.PageDown.SetKeys("pgdown", "f")
	km.HalfPageUp.SetKeys("ctrl+u")
	km.HalfPageDown.SetKeys("ctrl+d")
	m.tbl = table.New(table.WithKeyMap(km), table.WithFocused(true))
	m.tbl.SetStyles(table.Styles{
		Header:   c.Styles.PanelTitle.PaddingRight(1),
		Cell:     c.Styles.Text.PaddingRight(1),
		Selected: c.Styles.Selected,
	})
	m.vp = viewport.New()
	m.summary = viewport.New()
	m.path = pathinput.New(c, pathinput.Dir, "", "")
	m.picker = newDirPicker(c)
	m.recentList = vlist.New(c, m.renderRecent)
	m.recentList.SetMarker(true)
	return m
}

// Title implements common.Page.
func (m *Model) Title() string { return "Import" }

// Capturing implements common.Page: the filter and the options' text fields take letters.
func (m *Model) Capturing() bool {
	return m.filtering || (m.step == stepOptions && m.form.textFocused()) || m.confirm.Active() ||
		(m.step == stepSource && m.path.Focused())
}

// defaultSource is the workspace's shipped library, .nova/patterns.
func (m *Model) defaultSource() string {
	return filepath.Join(m.src.Info().Root, workspace.DirName, "patterns")
}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd {
	if m.src == nil {
		return nil
	}
	return tea.Batch(m.picker.list(m.defaultSource()), defaultsCmd(m.ctx(), m.src), recentCmd(m.ctx(), m.src))
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.layout()
}

// bodyHeight is the room under the step bar (and the note line).
func (m *Model) bodyHeight() int { return max(1, m.height-2) }

func (m *Model) layout() {
	w := max(20, m.width)
	m.bar.SetWidth(max(10, min(80, w-8)))
	m.filter.SetWidth(max(10, w-8))
	m.form.setWidth(inputWidth)
	m.confirm.SetSize(m.width, m.height)
	m.path.SetWidth(m.pickerPanelWidth() - 4)
	m.sizePicker()
	m.layoutTable()
	m.layoutDetail()
	m.layoutSummary()
}

func (m *Model) ctx() context.Context {
	if m.c.Ctx == nil {
		return context.Background()
	}
	return m.c.Ctx
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case dirListedMsg:
		m.picker.update(msg)
		m.sizePicker()
	case recentMsg:
		if msg.err == nil {
			m.recents = msg.dirs
			m.recentList.ReplaceRows(m.recents, nil)
			m.sizePicker()
		}
	case defaultsMsg:
		if msg.err == nil && (m.step == stepSource || m.step == stepScan) {
			// The form has not been shown yet: start it from the engine's defaults.
			m.defaults = msg.opts
			m.form = newOptionsForm(m.c, msg.opts)
			m.form.setWidth(inputWidth)
		}
	case common.EventMsg:
		ev := msg.Event
		if ev.Topic == engine.TopicImport && ev.Type == engine.EventProgress && ev.Op != "" && ev.Op == m.op {
			m.prog = importer.Progress{Phase: importer.Phase(ev.Status), Done: ev.Done, Total: ev.Total}
		}
	case scanDoneMsg:
		return m, m.scanDone(msg)
	case previewMsg:
		if msg.seq == m.previewSeq && msg.err == nil {
			m.preview = msg.res
			m.refreshRows()
		}
	case importDoneMsg:
		return m, m.importDone(msg)
	case undoDoneMsg:
		if msg.err != nil {
			m.setNote("undo failed: "+msg.err.Error(), true)
			return m, nil
		}
		u := msg.res
		m.undone = &u
		m.layoutSummary()
		return m, common.Toast(fmt.Sprintf("import batch %d undone", u.Batch))
	case confirm.ResultMsg:
		if msg.ID == confirmUndo && msg.Confirmed && m.result != nil && m.src != nil {
			return m, undoCmd(m.ctx(), m.src, m.result.Batch)
		}
	case renderedMsg:
		if msg.unparsed {
			m.unparsed[msg.key.source] = true
		} else if msg.err != nil {
			m.renderErr = msg.err
		} else {
			m.rendered[msg.key] = msg.out
		}
		return m, m.layoutDetail()
	case tea.WindowSizeMsg:
		// Sized already (SetSize); a file preview may need a rendering at the new width.
		return m, m.layoutDetail()
	case common.NavigateMsg:
		if msg.Page == ID && m.step == stepSource && m.src != nil {
			return m, recentCmd(m.ctx(), m.src)
		}
	default:
		// The path field's look-ups and cursor blinks.
		return m, m.path.Update(msg)
	}
	return m, nil
}

func (m *Model) setNote(s string, isErr bool) { m.note, m.noteErr = s, isErr }

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.confirm.Active() {
		_, cmd := m.confirm.Update(msg)
		return cmd
	}
	switch m.step {
	case stepSource:
		return m.keySource(msg)
	case stepScan, stepImport:
		if key.Matches(msg, m.c.KeyMap.Back) {
			return m.cancelWork()
		}
	case stepPreview:
		if m.detail != nil {
			return m.keyDetail(msg)
		}
		return m.keyPreview(msg)
	case stepOptions:
		return m.keyOptions(msg)
	case stepSummary:
		return m.keySummary(msg)
	}
	return nil
}

// ---- step 1: source ----

func (m *Model) keySource(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if m.src == nil {
		return nil
	}
	if m.path.Focused() {
		return m.keyPath(msg)
	}
	if m.recentFocus {
		if ok, cmd := m.recentList.HandleKey(msg); ok {
			return cmd
		}
	} else if ok, cmd := m.picker.handleKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.TypePath):
		m.recentFocus = false
		m.path.SetBase(m.src.Info().Root)
		cmd := m.path.Focus(msg.Text)
		m.sizePicker()
		return cmd
	case key.Matches(msg, m.keys.SwitchList):
		if len(m.recents) > 0 {
			m.recentFocus = !m.recentFocus
		}
	case key.Matches(msg, m.keys.OpenDir):
		if r, ok := m.recentList.Selected(); ok && m.recentFocus {
			m.recentFocus = false
			return m.picker.list(r)
		}
		return m.picker.open()
	case key.Matches(msg, m.keys.ParentDir):
		if !m.recentFocus {
			return m.picker.parent()
		}
	case key.Matches(msg, km.Enter):
		dir := m.picker.selected()
		if r, ok := m.recentList.Selected(); ok && m.recentFocus {
			dir = r
		}
		return m.startScan(dir)
	}
	return nil
}

// keyPath handles a key while a path is typed: enter scans the folder,
// esc goes back to the picker.
func (m *Model) keyPath(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.c.KeyMap.Back):
		m.path.Blur()
		m.sizePicker()
		return nil
	case msg.String() == "enter":
		if !m.path.Valid() {
			return nil // the field says what is wrong
		}
		dir := strings.TrimSuffix(m.path.Resolve(), "/")
		m.path.Blur()
		m.sizePicker()
		return tea.Batch(m.picker.list(dir), m.startScan(dir))
	}
	return m.path.Update(msg)
}

// pickerPanelWidth is the width of the folder panel.
func (m *Model) pickerPanelWidth() int {
	if m.sourceWide() {
		return m.width * 3 / 5
	}
	return m.width
}

// pathLines is the room the path field (or its hint) takes.
func (m *Model) pathLines() int {
	if m.path.Focused() {
		return 3
	}
	return 1
}

// recentHeight is the height of the recent sources panel under the
// folders on a narrow screen (0 without recent sources).
func (m *Model) recentHeight() int {
	if len(m.recents) == 0 {
		return 0
	}
	return min(len(m.recents), 4) + 3
}

// pickerPanelHeight is the height of the folder panel on the source step.
func (m *Model) pickerPanelHeight() int {
	h := m.bodyHeight()
	switch {
	case m.sourceWide():
		return h
	case len(m.recents) == 0:
		return h - 1 // the hint line under the panel
	}
	return h - m.recentHeight()
}

// pickerHeight is the picker's room in the folder panel: the panel less its
// border, title and path field.
func (m *Model) pickerHeight() int { return max(1, m.pickerPanelHeight()-3-m.pathLines()) }

// sizePicker gives the folder rows their room (the picker's two header
// lines come off), so keys page by what View shows.
func (m *Model) sizePicker() {
	m.picker.setSize(m.pickerPanelWidth()-4, m.pickerHeight()-2)
}

func (m *Model) sourceWide() bool { return m.width >= 110 }

// ---- step 2: scan and preview ----

func (m *Model) options() engine.ImportOptions {
	o, err := m.form.options()
	if err != nil {
		o = m.defaults
		o.Split, o.DryRun = m.form.split, m.form.dryRun
	}
	o.Exclude = m.excludedList()
	return o
}

func (m *Model) excludedList() []string {
	out := make([]string, 0, len(m.excluded))
	for p, ex := range m.excluded {
		if ex {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func (m *Model) startScan(dir string) tea.Cmd {
	m.stopWork()
	m.gen++
	ctx, cancel := context.WithCancel(m.ctx())
	m.cancel = cancel
	m.source, m.step, m.prog = dir, stepScan, importer.Progress{Phase: importer.PhaseScan}
	drop := m.dropPlan()
	m.detail, m.result, m.undone = nil, nil, nil
	m.excluded = map[string]bool{}
	m.setNote("", false)
	o := m.options()
	o.Exclude = nil
	m.op = engine.NewOp()
	o.Op = m.op
	return tea.Batch(drop, scanCmd(ctx, m.src, m.gen, dir, o))
}

// dropPlan forgets the plan held in the engine, if any.
func (m *Model) dropPlan() tea.Cmd {
	if m.plan == nil || m.src == nil {
		m.plan = nil
		return nil
	}
	id := m.plan.ID
	m.plan = nil
	return dropCmd(m.ctx(), m.src, id)
}

func (m *Model) stopWork() {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
}

// cancelWork abandons the scan or the import in flight (esc). A cancelled import rolls
// back: nothing is written.
func (m *Model) cancelWork() tea.Cmd {
	m.stopWork()
	m.gen++
	switch m.step {
	case stepScan:
		m.step = stepSource
		m.setNote("Scan cancelled.", false)
	case stepImport:
		m.step = stepOptions
		m.setNote("Import cancelled — nothing was written.", false)
	}
	return nil
}

func (m *Model) scanDone(msg scanDoneMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.cancel = nil
	if msg.err != nil {
		m.step = stepSource
		if !errors.Is(msg.err, context.Canceled) {
			m.setNote("Cannot import "+m.display(m.source)+": "+msg.err.Error(), true)
		}
		return nil
	}
	plan := msg.plan
	m.plan, m.preview = &plan, plan.Preview
	m.unparsed = map[string]bool{}
	m.step = stepPreview
	m.sortBy = 0
	m.filter.SetValue("")
	m.refreshRows()
	m.tbl.GotoTop()
	return nil
}

// repreview runs Preview again with the current options and exclusions.
func (m *Model) repreview() tea.Cmd {
	if m.plan == nil || m.src == nil {
		return nil
	}
	o, err := m.form.options()
	m.formErr = err
	if err != nil {
		return nil
	}
	o.DryRun = true
	o.Exclude = m.excludedList()
	m.previewSeq++
	return previewCmd(m.ctx(), m.src, m.previewSeq, m.plan.ID, o)
}

func (m *Model) keyPreview(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if m.filtering {
		switch msg.String() {
		case "enter":
			m.filtering = false
			m.filter.Blur()
			return nil
		case "esc":
			m.filtering = false
			m.filter.Blur()
			m.filter.SetValue("")
			m.refreshRows()
			return nil
		}
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		m.refreshRows()
		return cmd
	}
	switch {
	case key.Matches(msg, km.Back):
		if m.filter.Value() != "" {
			m.filter.SetValue("")
			m.refreshRows()
			return nil
		}
		m.step = stepSource
		return m.dropPlan()
	case key.Matches(msg, km.Filter):
		m.filtering = true
		return m.filter.Focus()
	case key.Matches(msg, m.keys.Sort):
		m.sortBy = (m.sortBy + 1) % len(sortNames)
		m.refreshRows()
		return nil
	case key.Matches(msg, km.Select):
		r, ok := m.current()
		if !ok || !toggleable(r) {
			return nil
		}
		m.excluded[r.SourceFile] = !m.excluded[r.SourceFile]
		return m.repreview()
	case key.Matches(msg, km.Enter):
		r, ok := m.current()
		if !ok {
			return nil
		}
		m.detail = &r
		m.renderErr = nil
		m.vp.GotoTop()
		return m.layoutDetail()
	case key.Matches(msg, m.keys.NextStep):
		m.step = stepOptions
		m.formErr = nil
		return tea.Batch(m.form.setFocus(fieldSplit), m.repreview())
	}
	var cmd tea.Cmd
	m.tbl, cmd = m.tbl.Update(msg)
	return cmd
}

// toggleable says whether a file can be included or excluded (meta files and failures are
// never imported).
func toggleable(r importer.NodeReport) bool {
	return r.Action != importer.ActionError && (r.Action != importer.ActionSkipped || !strings.HasPrefix(r.Reason, "meta file"))
}

func (m *Model) current() (importer.NodeReport, bool) {
	i := m.tbl.Cursor()
	if i < 0 || i >= len(m.rows) {
		return importer.NodeReport{}, false
	}
	return m.rows[i], true
}

func (m *Model) keyDetail(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch {
	case key.Matches(msg, km.Back, km.Enter):
		m.detail = nil
		return nil
	case key.Matches(msg, km.Up):
		m.vp.ScrollUp(1)
	case key.Matches(msg, km.Down):
		m.vp.ScrollDown(1)
	case key.Matches(msg, km.PageUp):
		m.vp.PageUp()
	case key.Matches(msg, km.PageDown, km.Select):
		m.vp.PageDown()
	case key.Matches(msg, km.Top):
		m.vp.GotoTop()
	case key.Matches(msg, km.Bottom):
		m.vp.GotoBottom()
	}
	return nil
}

// ---- step 3: options ----

func (m *Model) keyOptions(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch {
	case key.Matches(msg, km.Back):
		m.step = stepPreview
		m.form.setFocus(fieldSplit)
		return m.repreview()
	case msg.String() == "up" || msg.String() == "shift+tab":
		return m.form.setFocus(m.form.focus - 1)
	case msg.String() == "down" || msg.String() == "tab":
		return m.form.setFocus(m.form.focus + 1)
	case key.Matches(msg, km.Enter):
		return m.startImport()
	}
	if !m.form.textFocused() {
		switch {
		case key.Matches(msg, km.Up):
			return m.form.setFocus(m.form.focus - 1)
		case key.Matches(msg, km.Down):
			return m.form.setFocus(m.form.focus + 1)
		case key.Matches(msg, km.Select):
			if m.form.toggle() {
				return m.repreview()
			}
		}
		return nil
	}
	cmd, changed := m.form.updateInput(msg)
	if changed {
		return tea.Batch(cmd, m.repreview())
	}
	return cmd
}

// ---- step 4: import ----

func (m *Model) startImport() tea.Cmd {
	o, err := m.form.options()
	if err != nil {
		m.formErr = err
		return nil
	}
	if m.plan == nil || m.src == nil {
		return nil
	}
	if c := m.preview.OverCap; c != nil && !o.DryRun {
		// Refused up front, as the engine would: nothing is written.
		m.setNote(fmt.Sprintf("Import disabled: this import would bring the vault to %d of the %s tier's %d nodes.", c.Would, c.Tier, c.Cap), true)
		return nil
	}
	o.Exclude = m.excludedList()
	m.stopWork()
	m.gen++
	ctx, cancel := context.WithCancel(m.ctx())
	m.cancel = cancel
	m.step, m.prog = stepImport, importer.Progress{Phase: importer.PhaseWrite}
	m.setNote("", false)
	m.form.setFocus(fieldSplit)
	m.op = engine.NewOp()
	o.Op = m.op
	return importCmd(ctx, m.src, m.gen, m.plan.ID, o)
}

func (m *Model) importDone(msg importDoneMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.cancel = nil
	if msg.err != nil {
		m.step = stepOptions
		if errors.Is(msg.err, context.Canceled) {
			m.setNote("Import cancelled — nothing was written.", false)
		} else {
			m.setNote("Import failed, nothing was written: "+msg.err.Error(), true)
		}
		return nil
	}
	res := msg.res
	m.result, m.undone = &res, nil
	m.step = stepSummary
	m.layoutSummary()
	cmds := []tea.Cmd{recentCmd(m.ctx(), m.src)}
	switch {
	case res.DryRun:
		cmds = append(cmds, common.Toast(fmt.Sprintf("dry run: %s would be imported", countNoun(res.Loaded, "file", "files"))))
	case res.Batch != 0:
		cmds = append(cmds, common.Toast(fmt.Sprintf("imported %s (batch %d)", countNoun(res.Loaded, "file", "files"), res.Batch)))
	}
	return tea.Batch(cmds...)
}

// ---- step 5: summary ----

func (m *Model) canUndo() bool {
	return m.result != nil && m.result.Batch != 0 && m.undone == nil && m.src != nil && !m.src.Info().ReadOnly
}

func (m *Model) keySummary(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch {
	case key.Matches(msg, m.keys.OpenVault):
		var arg any
		if m.result != nil && m.undone == nil {
			for _, n := range m.result.Nodes {
				if n.ID != 0 && n.ParentSource == "" && (n.Action == importer.ActionNew || n.Action == importer.ActionUpdated) {
					arg = n.ID
					break
				}
			}
		}
		return func() tea.Msg { return common.NavigateMsg{Page: "vault", Arg: arg} }
	case key.Matches(msg, m.keys.Undo):
		if !m.canUndo() {
			return nil
		}
		m.confirm.Open(confirm.Options{
			ID:    confirmUndo,
			Title: fmt.Sprintf("Undo import batch %d?", m.result.Batch),
			Body: fmt.Sprintf("This removes the %d nodes and %d edges the batch added and restores the %d nodes it updated.",
				m.result.NodesAdded, m.result.EdgesAdded, m.result.NodesUpdated+m.result.NodesRemoved),
			Yes: "Undo", No: "Keep", Danger: true,
		})
		return nil
	case key.Matches(msg, m.keys.NewImport):
		m.step = stepSource
		m.result, m.undone = nil, nil
		return tea.Batch(m.dropPlan(), m.picker.list(m.picker.path))
	case key.Matches(msg, km.Up):
		m.summary.ScrollUp(1)
	case key.Matches(msg, km.Down):
		m.summary.ScrollDown(1)
	case key.Matches(msg, km.PageUp):
		m.summary.PageUp()
	case key.Matches(msg, km.PageDown):
		m.summary.PageDown()
	}
	return nil
}
