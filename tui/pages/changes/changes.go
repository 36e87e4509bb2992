// Package changes is the Changes screen: the changesets agents staged, the
// files of the selected one, and the diff of the selected file. Pending
// changesets are applied to the working tree or discarded from here, after
// a confirmation; a staged file can be edited in $EDITOR first (e), and an
// applied changeset can be reverted (R).
package changes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine"
	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/diffview"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the router id of the page.
const ID = "changes"

// historyLimit bounds the applied/discarded changesets listed under the
// pending ones.
const historyLimit = 30

// splitFrom is the page width from which the diff is split (old | new).
const splitFrom = diffview.SplitMinWidth

type focus uint8

const (
	focusSets focus = iota
	focusFiles
	focusDiff
)

// fileStat is the line counts of one staged file.
type fileStat struct{ adds, dels int }

// loadedMsg carries the changesets (newest first, pending first).
type loadedMsg struct {
	sets  []chg.Changeset
	stats map[uint64][]fileStat
	err   error
}

type refreshMsg struct{ seq int }

// appliedAllMsg is the result of applying every pending changeset of a
// build (oldest first, stopping at the first failure).
type appliedAllMsg struct {
	what    string
	applied []uint64
	failed  uint64 // the changeset whose apply failed (0: none)
	rest    int    // pending changesets not tried after it
	err     error
}

// actionMsg is the result of an apply or a discard.
type actionMsg struct {
	apply  bool
	id     uint64
	report chg.ApplyReport
	err    error
}

// revertedMsg is the result of a revert.
type revertedMsg struct {
	id     uint64
	report chg.RevertReport
	err    error
}

// ArgRevert, as the Arg of a NavigateMsg to this page, opens the revert
// dialog of the newest applied changeset (the palette's "revert a change").
const ArgRevert = "revert"

type dialogKind uint8

const (
	dialogApply dialogKind = iota + 1
	dialogDiscard
	dialogConflict
	dialogRevert
	dialogRevertConflict
	dialogApplyAll
)

type dialog struct {
	kind      dialogKind
	set       chg.Changeset
	conflicts []chg.Conflict
	// dialogApplyAll: the pending changesets of the build, oldest first,
	// and what they belong to ("build 12").
	group []chg.Changeset
	what  string
}

// Model is the Changes page.
type Model struct {
	c      *common.Common
	src    Source
	width  int
	height int
	now    func() time.Time

	sets    []chg.Changeset
	stats   map[uint64][]fileStat
	loaded  bool
	loadErr error
	pending int

	list  *vlist.Model[chg.Changeset]
	moved bool // the user moved in the list: a refresh keeps the selection, else it follows the newest
	// files is the selected changeset's files (nova's list component);
	// filesOf is the id of the changeset they belong to.
	files   *vlist.Model[fileRow]
	filesOf uint64
	focus   focus
	keys    keyMap
	want    uint64 // changeset to select once loaded (NavigateMsg)

	dv       *diffview.Model
	userMode bool // the user toggled split/unified: stop following the width
	shownKey string

	dialog *dialog
	busy   string
	seq    int

	// getenv chooses the editor of `e` ($VISUAL, $EDITOR).
	getenv func(string) string
	// wantRevert: open the revert dialog once the list is loaded (ArgRevert).
	wantRevert bool
}

// New builds the page.
func New(c *common.Common, src Source) *Model {
	m := &Model{c: c, keys: newKeyMap(), src: src, now: c.Clock(), dv: diffview.New(c), getenv: os.Getenv}
	m.list = vlist.New(c, m.renderSet)
	m.list.SetRowHeight(2)
	m.list.SetMarker(true)
	m.files = vlist.New(c, m.renderFile)
	m.files.SetMarker(true)
	m.files.SetEmptyText("No files.")
	return m
}

// Title implements common.Page.
func (m *Model) Title() string { return "Changes" }

// Capturing implements common.Page: an open dialog owns the keyboard.
func (m *Model) Capturing() bool { return m.dialog != nil }

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return m.load() }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.layoutDiff()
}

// sidebarWidth is the width of the changeset and file lists.
func (m *Model) sidebarWidth() int {
	return max(28, min(44, m.width*3/10))
}

func (m *Model) layoutDiff() {
	dw := m.width - m.sidebarWidth()
	m.dv.SetSize(max(0, dw-4), max(0, m.height-2))
	if !m.userMode {
		if m.width >= splitFrom {
			m.dv.SetMode(diffview.Split)
		} else {
			m.dv.SetMode(diffview.Unified)
		}
	}
}

// Source is what the Changes page needs from the engine: a subset of
// engine.Workspace's verbs. The page calls it only from tea.Cmds.
type Source interface {
	ListChanges(ctx context.Context, f chg.Filter) ([]chg.Changeset, error)
	ApplyChange(ctx context.Context, id uint64, o chg.ApplyOptions, reason string) (chg.ApplyReport, error)
	DiscardChange(ctx context.Context, id uint64, reason string) (chg.Changeset, error)
	RevertChange(ctx context.Context, id uint64, o chg.RevertOptions, reason string) (chg.RevertReport, error)
	EditChange(ctx context.Context, id uint64, path, content string) (chg.Changeset, error)
}

// call runs an engine call off the UI goroutine; an error becomes wrap's
// message.
func call(f func() (tea.Msg, error), wrap func(error) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		out, err := f()
		if err != nil {
			return wrap(err)
		}
		return out
	}
}

// load reads the changesets off the UI goroutine and counts their lines.
func (m *Model) load() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return call(func() (tea.Msg, error) {
		all, err := src.ListChanges(ctx, chg.Filter{})
		if err != nil {
			return nil, err
		}
		var pending, rest []chg.Changeset
		for _, cs := range all {
			if cs.Status == chg.StatusPending {
				pending = append(pending, cs)
			} else if len(rest) < historyLimit {
				rest = append(rest, cs)
			}
		}
		sets := append(pending, rest...)
		stats := make(map[uint64][]fileStat, len(sets))
		for _, cs := range sets {
			st := make([]fileStat, len(cs.Files))
			for i, f := range cs.Files {
				st[i].adds, st[i].dels = diffview.CountLines(f.Original, f.Proposed)
			}
			stats[cs.ID] = st
		}
		return loadedMsg{sets: sets, stats: stats}, nil
	}, func(err error) tea.Msg { return loadedMsg{err: err} })
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		return m, m.loaded2(msg)
	case refreshMsg:
		if msg.seq == m.seq {
			return m, m.load()
		}
		return m, nil
	case actionMsg:
		return m, m.actionDone(msg)
	case revertedMsg:
		return m, m.revertDone(msg)
	case appliedAllMsg:
		return m, m.appliedAll(msg)
	case editReadyMsg:
		return m, m.runEditor(msg)
	case editDoneMsg:
		return m, m.editDone(msg)
	case editSavedMsg:
		return m, m.editSaved(msg)
	case common.NavigateMsg:
		if msg.Page != ID {
			return m, nil
		}
		if msg.Arg == ArgRevert {
			m.wantRevert = true
			return m, m.load()
		}
		if id, ok := asID(msg.Arg); ok {
			m.want = id
			m.focus = focusFiles
			return m, m.load()
		}
		return m, nil
	case common.EventMsg:
		ev := msg.Event
		if (ev.Type == engine.EventChanged && (ev.Topic == engine.TopicChanges || ev.Topic == engine.TopicAgent)) ||
			(ev.Topic == engine.TopicAgent && (ev.Type == engine.EventDone || ev.Type == engine.EventFailed)) {
			m.seq++
			return m, common.Debounce(150*time.Millisecond, refreshMsg{seq: m.seq})
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	_, cmd := m.dv.Update(msg)
	return m, cmd
}

func asID(v any) (uint64, bool) {
	switch id := v.(type) {
	case uint64:
		return id, id > 0
	case int:
		return uint64(id), id > 0
	}
	return 0, false
}

// loaded2 installs a fresh list, keeping the selection by id and path.
func (m *Model) loaded2(msg loadedMsg) tea.Cmd {
	m.loaded = true
	if msg.err != nil {
		m.loadErr = msg.err
		return nil
	}
	var keepID, prevID uint64
	var keepPath, prevPath string
	if cs, ok := m.current(); ok {
		keepID, prevID = cs.ID, cs.ID
		if f, ok := m.currentFile(); ok {
			keepPath, prevPath = f.Path, f.Path
		}
	}
	if m.want != 0 {
		keepID, keepPath, prevPath = m.want, "", ""
	}
	m.loadErr = nil
	m.sets, m.stats = msg.sets, msg.stats
	m.pending = 0
	for _, cs := range m.sets {
		if cs.Status == chg.StatusPending {
			m.pending++
		}
	}
	if !m.moved && m.want == 0 {
		keepID, keepPath = 0, "" // not moved by the user: the newest (pending first)
	}
	m.list.ReplaceRows(m.sets, func(cs chg.Changeset) bool { return cs.ID == keepID })
	if keepID == 0 {
		m.list.SetCursor(0)
	}
	cs, ok := m.current()
	switch {
	case ok && cs.ID == prevID:
		keepPath = prevPath // the same changeset (newest before and after): the same file
	case !ok || cs.ID != keepID:
		keepPath = ""
	}
	m.syncFiles(keepPath)
	if ok && cs.ID == keepID {
		if m.want != 0 {
			m.moved = true // opened on a changeset: keep it
		}
		m.want = 0
	}
	if m.want != 0 {
		// The changeset is not listed (too old); stop looking for it.
		m.want = 0
	}
	cmd := m.showFile()
	if m.wantRevert {
		m.wantRevert = false
		return tea.Batch(cmd, m.askRevertNewest())
	}
	return cmd
}

func (m *Model) current() (chg.Changeset, bool) { return m.list.Selected() }

// selectIndex moves the list's cursor to the changeset at i.
func (m *Model) selectIndex(i int) {
	m.list.SetCursor(i)
	m.moved = true
	m.syncFiles("")
}

// fileRow is one file of the selected changeset with its line counts.
type fileRow struct {
	f     chg.File
	st    fileStat
	count bool // st is known
}

// syncFiles shows the selected changeset's files, keeping the cursor on
// keepPath when it is one of them (a refresh), else from the first file.
func (m *Model) syncFiles(keepPath string) {
	cs, _ := m.current()
	st := m.stats[cs.ID]
	rows := make([]fileRow, len(cs.Files))
	found := false
	for i, f := range cs.Files {
		rows[i] = fileRow{f: f}
		if i < len(st) {
			rows[i].st, rows[i].count = st[i], true
		}
		found = found || (keepPath != "" && f.Path == keepPath)
	}
	m.filesOf = cs.ID
	if !found {
		m.files.SetRows(rows)
		return
	}
	m.files.ReplaceRows(rows, func(r fileRow) bool { return r.f.Path == keepPath })
}

func (m *Model) currentFile() (chg.File, bool) {
	r, ok := m.files.Selected()
	if !ok {
		return chg.File{}, false
	}
	if cs, ok := m.current(); !ok || cs.ID != m.filesOf {
		return chg.File{}, false
	}
	return r.f, true
}

// showFile puts the selected file into the diff view.
func (m *Model) showFile() tea.Cmd {
	f, ok := m.currentFile()
	if !ok {
		m.dv.SetNotice("", "No file selected", "Pick a changeset, then a file.")
		return nil
	}
	cs, _ := m.current()
	k := fmt.Sprintf("%d/%s/%s/%s", cs.ID, f.Path, f.BaseHash, f.ProposedHash)
	if f.OriginalBinary || f.ProposedBinary() {
		m.dv.SetNotice(f.Path, "Binary file — not shown", fmt.Sprintf("A side is binary; the proposal is %d bytes.", len(f.Content())))
		m.shownKey = k
		return nil
	}
	m.shownKey = k
	return m.dv.SetContent(f.Path, f.Original, f.Proposed)
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km, k := m.c.KeyMap, m.keys
	if m.dialog != nil {
		return m.dialogKey(msg)
	}
	switch {
	case key.Matches(msg, km.Refresh):
		return m.load()
	case key.Matches(msg, k.NextPane):
		m.focus = (m.focus + 1) % 3
		return nil
	case key.Matches(msg, k.PrevPane):
		m.focus = (m.focus + 2) % 3
		return nil
	case key.Matches(msg, k.SplitToggle):
		m.dv.ToggleMode()
		m.userMode = true
		return nil
	case key.Matches(msg, k.ApplyAll):
		return m.askApplyAll()
	case key.Matches(msg, k.Apply):
		return m.ask(dialogApply)
	case key.Matches(msg, k.Discard):
		return m.ask(dialogDiscard)
	case key.Matches(msg, k.Revert):
		return m.askRevert()
	case key.Matches(msg, k.Edit):
		return m.edit()
	case key.Matches(msg, km.Back):
		if m.focus > focusSets {
			m.focus--
		}
		return nil
	case key.Matches(msg, k.Open):
		if m.focus < focusDiff {
			m.focus++
		}
		return nil
	}
	switch m.focus {
	case focusDiff:
		_, cmd := m.dv.Update(msg)
		return cmd
	case focusSets:
		before := m.list.Cursor()
		if ok, cmd := m.list.HandleKey(msg); ok && m.list.Cursor() != before {
			m.moved = true
			m.syncFiles("")
			return tea.Batch(cmd, m.showFile())
		}
	case focusFiles:
		before := m.files.Cursor()
		if ok, cmd := m.files.HandleKey(msg); ok && m.files.Cursor() != before {
			return tea.Batch(cmd, m.showFile())
		}
	}
	return nil
}

// ask opens the confirmation of an apply or a discard.
func (m *Model) ask(kind dialogKind) tea.Cmd {
	cs, ok := m.current()
	if !ok || m.busy != "" {
		return nil
	}
	if cs.Status != chg.StatusPending {
		return common.Toast(fmt.Sprintf("changeset #%d is already %s", cs.ID, cs.Status))
	}
	m.dialog = &dialog{kind: kind, set: cs}
	return nil
}

func (m *Model) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	d := m.dialog
	if d.kind == dialogRevertConflict {
		// Overwriting the user's own changes takes a deliberate y: enter
		// (like n and esc) keeps them.
		if msg.String() == "y" {
			m.dialog = nil
			return m.revert(d.set.ID, true)
		}
		if key.Matches(msg, km.Cancel) || key.Matches(msg, km.Enter) {
			m.dialog = nil
		}
		return nil
	}
	switch {
	case key.Matches(msg, km.Cancel):
		m.dialog = nil
		return nil
	case msg.String() == "enter" && d.kind != dialogApply && d.kind != dialogApplyAll:
		// Discarding and overwriting lose work: only y does them, enter is
		// the safe answer.
		m.dialog = nil
		return nil
	case key.Matches(msg, km.Confirm):
		m.dialog = nil
		switch d.kind {
		case dialogApply:
			return m.apply(d.set.ID, false)
		case dialogApplyAll:
			return m.applyAll(d.what, d.group)
		case dialogConflict:
			return m.apply(d.set.ID, true)
		case dialogDiscard:
			return m.discard(d.set.ID)
		case dialogRevert:
			return m.revert(d.set.ID, false)
		}
	}
	return nil
}

func (m *Model) apply(id uint64, force bool) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	m.busy = fmt.Sprintf("applying #%d…", id)
	return call(func() (tea.Msg, error) {
		rep, err := src.ApplyChange(ctx, id, chg.ApplyOptions{Force: force}, "") // learned as the user's decision
		return actionMsg{apply: true, id: id, report: rep, err: err}, nil
	}, func(err error) tea.Msg { return actionMsg{apply: true, id: id, err: err} })
}

func (m *Model) discard(id uint64) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	m.busy = fmt.Sprintf("discarding #%d…", id)
	return call(func() (tea.Msg, error) {
		_, err := src.DiscardChange(ctx, id, "") // learned as the user's decision
		return actionMsg{id: id, err: err}, nil
	}, func(err error) tea.Msg { return actionMsg{id: id, err: err} })
}

func (m *Model) actionDone(msg actionMsg) tea.Cmd {
	m.busy = ""
	var conflict *chg.ConflictError
	switch {
	case errors.As(msg.err, &conflict):
		set := chg.Changeset{ID: msg.id}
		if cs, ok := m.current(); ok && cs.ID == msg.id {
			set = cs
		}
		m.dialog = &dialog{kind: dialogConflict, set: set, conflicts: conflict.Conflicts}
		return nil
	case errors.Is(msg.err, context.Canceled):
		return m.load()
	case msg.err != nil:
		return tea.Batch(common.Failure(msg.err), m.load())
	case msg.apply:
		text := fmt.Sprintf("applied changeset #%d: %d file%s written", msg.id, len(msg.report.Applied), plural(len(msg.report.Applied)))
		if n := len(msg.report.Overwritten); n > 0 {
			text += fmt.Sprintf(", %d overwritten", n)
		}
		return tea.Batch(common.Toast(text), m.load())
	}
	return tea.Batch(common.Toast(fmt.Sprintf("discarded changeset #%d", msg.id)), m.load())
}

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	s := m.c.Styles
	var body string
	switch {
	case !m.loaded:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Muted.Render("Loading changesets…"))
	case m.loadErr != nil:
		body = s.Panel.Width(m.width).Height(m.height).Render(
			s.Error.Render("Could not read the changesets") + "\n" +
				s.Text.Render(common.Truncate(m.loadErr.Error(), m.width-4)) + "\n\n" +
				s.Subtle.Render("ctrl+r retries."))
	case len(m.sets) == 0:
		hint := s.Subtle.Width(m.width - 4).Render("Agents stage every file they write here; nothing touches your files until you apply it. " +
			"Start a run from Agents (n), or with `nova agent run AGENT \"TASK\"`.")
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Muted.Render("No changesets yet.") + "\n" + hint)
	default:
		sw := m.sidebarWidth()
		setsH := max(6, m.height*2/5)
		left := lipgloss.JoinVertical(lipgloss.Left,
			m.setsView(sw, setsH),
			m.filesView(sw, m.height-setsH))
		panel := s.Panel
		if m.focus == focusDiff {
			panel = s.PanelFocused
		}
		m.dv.SetFocused(m.focus == focusDiff)
		right := panel.Width(m.width - sw).Height(m.height).Render(m.dv.View())
		body = lipgloss.JoinHorizontal(lipgloss.Top, left, right)
	}
	body = common.FitHeight(body, m.height)
	if m.dialog != nil {
		body = common.Overlay(body, m.dialogView(), m.width, m.height)
	}
	return body
}

func (m *Model) setsView(w, h int) string {
	s := m.c.Styles
	panel, title := s.Panel, s.PanelTitle
	if m.focus == focusSets {
		panel, title = s.PanelFocused, s.PanelTitleActive
	}
	inner := w - 4
	head := title.Render("Changesets") + " " + s.Muted.Render(fmt.Sprintf("%d pending", m.pending))
	// The list's own scrollbar and a last line (the position, how many lie
	// above and below) show that more changesets exist than fit.
	m.list.SetFocused(m.focus == focusSets)
	return panel.Width(w).Height(h).Render(head + "\n" + m.list.ViewNoted(inner, max(2, h-3)))
}

// renderSet draws one changeset in two lines: id, agent and status; files,
// age, run and build.
func (m *Model) renderSet(cs chg.Changeset, _ int, selected, focused bool, inner int) string {
	s := m.c.Styles
	agent := cs.Agent
	switch {
	case cs.RevertOf != 0:
		agent = fmt.Sprintf("revert #%d", cs.RevertOf)
	case agent == "":
		agent = "manual"
	}
	l1 := fmt.Sprintf("#%d %s", cs.ID, agent)
	badge := statusBadge(s, cs.Status)
	l1 = common.Truncate(l1, inner-lipgloss.Width(badge)-1)
	l1 += strings.Repeat(" ", max(1, inner-lipgloss.Width(l1)-lipgloss.Width(badge))) + badge
	meta := fmt.Sprintf("%d file%s · %s", len(cs.Files), plural(len(cs.Files)), age(m.now(), cs.CreatedAt))
	if cs.BuildID != "" {
		meta += " · build " + cs.BuildID
	} else if cs.RunID != 0 {
		meta += fmt.Sprintf(" · run %d", cs.RunID)
	}
	l2 := "  " + common.Truncate(meta, inner-2)
	if selected {
		st := s.Selected
		if !focused {
			st = s.Bold
		}
		return st.Width(inner).Render(l1) + "\n" + s.Muted.Render(l2)
	}
	return s.Text.Render(l1) + "\n" + s.Subtle.Render(l2)
}

func (m *Model) filesView(w, h int) string {
	s := m.c.Styles
	panel, title := s.Panel, s.PanelTitle
	if m.focus == focusFiles {
		panel, title = s.PanelFocused, s.PanelTitleActive
	}
	inner := w - 4
	cs, _ := m.current()
	head := title.Render("Files") + " " + s.Muted.Render(fmt.Sprintf("#%d", cs.ID))
	var lines []string
	if m.busy != "" {
		lines = append(lines, s.Warning.Render(common.Truncate(m.busy, inner)))
	} else if cs.Task != "" {
		lines = append(lines, s.Subtle.Render(common.Truncate(cs.Task, inner)))
	}
	if m.busy == "" {
		for _, o := range origin(cs) {
			lines = append(lines, s.Muted.Render(common.Truncate(o, inner)))
		}
	}
	rows := max(1, h-3-len(lines))
	m.files.SetFocused(m.focus == focusFiles)
	if len(cs.Files) == 0 {
		lines = append(lines, s.Muted.Render("No files."))
	} else {
		lines = append(lines, m.files.ViewNoted(inner, min(rows, len(cs.Files))))
	}
	return panel.Width(w).Height(h).Render(head + "\n" + strings.Join(lines, "\n"))
}

// renderFile draws one staged file: its op, path (the end kept) and line
// counts.
func (m *Model) renderFile(r fileRow, _ int, selected, focused bool, w int) string {
	s := m.c.Styles
	op := opBadge(s, r.f)
	counts := ""
	if r.count {
		counts = s.Success.Render(fmt.Sprintf("+%d", r.st.adds)) + " " + s.Error.Render(fmt.Sprintf("−%d", r.st.dels))
	}
	room := w - 2 - lipgloss.Width(counts) - 1
	path := truncLeft(r.f.Path, room)
	gap := strings.Repeat(" ", max(1, w-2-lipgloss.Width(path)-lipgloss.Width(counts)))
	ps := s.Text
	if selected {
		ps = s.Selected
		if !focused {
			ps = s.Bold
		}
	}
	return op + " " + ps.Render(path) + gap + counts
}

func (m *Model) dialogView() string {
	s := m.c.Styles
	km := m.c.KeyMap
	d := m.dialog
	w := min(72, max(40, m.width-8))
	inner := w - 6
	var b strings.Builder
	files := fmt.Sprintf("%d file%s", len(d.set.Files), plural(len(d.set.Files)))
	switch d.kind {
	case dialogApply:
		b.WriteString(s.DialogTitle.Render(fmt.Sprintf("Apply changeset #%d?", d.set.ID)) + "\n\n")
		b.WriteString(s.Text.Render(common.Truncate("Writes "+files+" to the working tree:", inner)) + "\n")
		b.WriteString(m.pathList(d.set, inner))
	case dialogApplyAll:
		b.WriteString(m.applyAllView(d, inner))
	case dialogDiscard:
		b.WriteString(s.DialogTitle.Render(fmt.Sprintf("Discard changeset #%d?", d.set.ID)) + "\n\n")
		b.WriteString(s.Text.Render(common.Truncate("Drops the "+files+" it staged. Nothing on disk changes;", inner)) + "\n")
		b.WriteString(s.Text.Render(common.Truncate("the changeset cannot be applied afterwards.", inner)) + "\n")
	case dialogRevert:
		b.WriteString(s.DialogTitle.Render(fmt.Sprintf("Revert changeset #%d?", d.set.ID)) + "\n\n")
		b.WriteString(s.Text.Render(common.Truncate("Each file gets back what it held before the apply;", inner)) + "\n")
		b.WriteString(s.Text.Render(common.Truncate("files the change created are removed:", inner)) + "\n")
		b.WriteString(m.pathList(d.set, inner))
		if d.set.RevertOf != 0 {
			b.WriteString(s.Warning.Render(common.Truncate(fmt.Sprintf("#%d undid #%d: reverting it brings #%d's change back.", d.set.ID, d.set.RevertOf, d.set.RevertOf), inner)) + "\n")
		} else {
			b.WriteString(s.Subtle.Render(common.Truncate("The revert is a changeset too: revert it to bring the change back.", inner)) + "\n")
		}
	case dialogRevertConflict:
		b.WriteString(s.Error.Bold(true).Render(fmt.Sprintf("Changeset #%d was not reverted", d.set.ID)) + "\n\n")
		b.WriteString(s.Text.Render(common.Truncate("These files changed since it was applied:", inner)) + "\n")
		for i, c := range d.conflicts {
			if i == 8 {
				b.WriteString(s.Subtle.Render(fmt.Sprintf("  … and %d more", len(d.conflicts)-i)) + "\n")
				break
			}
			b.WriteString(s.Error.Render("  ✗ ") + s.Text.Render(truncLeft(c.Path, inner-28)) + " " + s.Muted.Render(c.Reason) + "\n")
		}
		b.WriteString("\n" + s.Warning.Render(common.Truncate("Reverting anyway overwrites those changes.", inner)) + "\n")
		b.WriteString("\n" + s.Key.Render("y") + " " + s.KeyDesc.Render("revert anyway") + s.Subtle.Render("  ·  ") +
			s.Key.Render("n/esc/enter") + " " + s.KeyDesc.Render("keep my changes"))
		return s.Dialog.Width(w).Render(b.String())
	case dialogConflict:
		b.WriteString(s.Error.Bold(true).Render(fmt.Sprintf("Conflict — changeset #%d was not applied", d.set.ID)) + "\n\n")
		b.WriteString(s.Text.Render(common.Truncate("These files changed on disk since they were staged:", inner)) + "\n")
		for i, c := range d.conflicts {
			if i == 8 {
				b.WriteString(s.Subtle.Render(fmt.Sprintf("  … and %d more", len(d.conflicts)-i)) + "\n")
				break
			}
			b.WriteString(s.Error.Render("  ✗ ") + s.Text.Render(truncLeft(c.Path, inner-22)) + " " + s.Muted.Render(c.Reason) + "\n")
		}
		b.WriteString("\n" + s.Warning.Render(common.Truncate("Applying anyway overwrites those changes.", inner)) + "\n")
	}
	yes, no := km.Confirm.Help().Key, km.Cancel.Help().Key
	confirm := "apply"
	switch d.kind {
	case dialogApplyAll:
		confirm = "apply all"
	case dialogDiscard:
		yes, no, confirm = "y", "n/esc/enter", "discard"
	case dialogRevert:
		yes, no, confirm = "y", "n/esc/enter", "revert"
	case dialogConflict:
		yes, no, confirm = "y", "n/esc/enter", "overwrite anyway"
	}
	b.WriteString("\n" + s.Key.Render(yes) + " " + s.KeyDesc.Render(confirm) + s.Subtle.Render("  ·  ") +
		s.Key.Render(no) + " " + s.KeyDesc.Render("cancel"))
	return s.Dialog.Width(w).Render(b.String())
}

func (m *Model) pathList(cs chg.Changeset, inner int) string {
	var b strings.Builder
	s := m.c.Styles
	for i, f := range cs.Files {
		if i == 6 {
			b.WriteString(s.Subtle.Render(fmt.Sprintf("  … and %d more", len(cs.Files)-i)) + "\n")
			break
		}
		b.WriteString("  " + opBadge(s, f) + " " + s.Text.Render(truncLeft(f.Path, inner-4)) + "\n")
	}
	return b.String()
}

func statusBadge(s *themes.Styles, st chg.Status) string {
	return s.Band(string(st)).Render(string(st))
}

func opBadge(s *themes.Styles, f chg.File) string {
	switch f.Op {
	case chg.OpCreate:
		return s.Success.Bold(true).Render("A")
	case chg.OpDelete:
		return s.Error.Bold(true).Render("D")
	}
	return s.Warning.Bold(true).Render("M")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// age is a compact "how long ago".
func age(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// truncLeft keeps the end of a path.
func truncLeft(p string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(p) <= w {
		return p
	}
	r := []rune(p)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > w {
		r = r[1:]
	}
	return "…" + string(r)
}
