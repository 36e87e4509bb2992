// Package vault is the vault browser: the taste vault's nodes in a
// virtualised list with type tabs and ranked search as you type, a detail
// pane (markdown, provenance, links you can follow and come back from), a
// graph view of a node's neighbourhood, a conflicts view, and the actions
// reinforce, demote, forget, link and tag.
//
// Every engine call runs in a tea.Cmd (data.go); results come back as
// messages tagged with a sequence number or generation so stale ones are
// dropped. Update reconciles what is on screen with what is loaded and asks
// for the rest (reconcile).
package vault

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
	"github.com/nova-dev/nova/tui/components/graphview"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the router id of the page.
const ID = "vault"

// Timings.
const (
	searchDebounce  = 150 * time.Millisecond
	refreshDebounce = 150 * time.Millisecond
)

// SplitMinWidth is the width from which the detail pane sits beside the
// list; below it enter opens the detail full width.
const SplitMinWidth = 120

// Graph depths.
const (
	defaultDepth = 2
	maxDepth     = 5
)

// Confirmation ids (ResultMsg is seen by every page).
const confirmForget = "vault.forget"

type viewKind uint8

const (
	viewList viewKind = iota
	viewGraph
	viewConflicts
)

type dialogKind uint8

const (
	dlgNone     dialogKind = iota
	dlgPick                // link: choose the other node
	dlgRelation            // link: choose the relation
	dlgTags                // edit tags
)

// loc is a place the history can return to.
type loc struct {
	view        viewKind
	id          uint64 // detail node or graph root
	focusDetail bool
	depth       int
	cursor      int // the detail's link cursor, the conflicts cursor
}

// Model is the vault page.
type Model struct {
	c      *common.Common
	src    Source
	width  int
	height int

	view        viewKind
	focusDetail bool

	stats *engvault.Stats
	tab   int // 0 = all, then engvault.NodeTypes()

	browse  *vlist.Model[row]
	results *vlist.Model[row]

	search    textinput.Model
	query     string // the query whose results are shown ("" = browse)
	searchSeq int
	searching bool

	// Detail: detailID is the node shown when the detail has the focus
	// (otherwise the list's selection is shown).
	detailID    uint64
	linkCursor  int
	scroll      int
	followLink  bool // keep the chosen link in view (off after page keys)
	details     map[uint64]*detailData
	detailErr   map[uint64]error
	pending     map[uint64]int
	gen         int
	md          map[mdKey]string
	mdPending   map[mdKey]bool
	history     []loc
	refreshSeq  int
	lastTarget  uint64
	lastDetailH int

	graph        *graphview.Model
	graphNodes   []engvault.Node
	graphRoot    uint64
	graphDepth   int
	graphSeq     int
	graphLoading bool
	graphErr     error

	conflicts []engvault.Conflict
	cfLoaded  bool
	cfCursor  int
	cfSide    int
	cfSeq     int
	cfErr     error

	confirm *confirm.Model
	dlg     dialogKind

	pickInput textinput.Model
	picker    *vlist.Model[row]
	pickAll   *vlist.Model[row]
	pickSeq   int
	pickQuery string
	linkFrom  uint64
	linkTo    engvault.Node
	relCursor int

	tagsInput textinput.Model
	tagsFor   uint64

	rows   map[rowKey]string // rendered list rows (view.go)
	warmed bool              // the search index build has been asked for
}

// New builds the page.
func New(c *common.Common, src Source) *Model {
	m := &Model{
		c: c, src: src, graphDepth: defaultDepth,
		details: map[uint64]*detailData{}, detailErr: map[uint64]error{}, pending: map[uint64]int{},
		md: map[mdKey]string{}, mdPending: map[mdKey]bool{}, rows: map[rowKey]string{},
	}
	m.browse = vlist.New(c, m.renderRow)
	m.results = vlist.New(c, m.renderRow)
	m.browse.SetExactRows(true)
	m.results.SetExactRows(true)
	m.picker = vlist.New(c, m.renderPickRow)
	m.pickAll = vlist.New(c, m.renderPickRow)
	m.graph = graphview.New(c)
	m.graph.SetBadge(func(kind string) string { return m.badge(engvault.NodeType(kind)) })
	m.confirm = confirm.New(c)
	m.search = newInput(c, "search the vault…", "/ ")
	m.pickInput = newInput(c, "search a node to link to…", "› ")
	m.tagsInput = newInput(c, "comma-separated tags", "› ")
	return m
}

func newInput(c *common.Common, placeholder, prompt string) textinput.Model {
	in := textinput.New()
	in.Placeholder = placeholder
	in.Prompt = prompt
	in.SetStyles(c.Styles.TextInput)
	return in
}

// Title implements common.Page.
func (m *Model) Title() string { return "Vault" }

// Capturing implements common.Page: true while a text input or a dialog has
// the keyboard, so letters are not global shortcuts.
func (m *Model) Capturing() bool {
	return m.search.Focused() || m.dlg != dlgNone || m.confirm.Active()
}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd {
	if m.src == nil {
		return nil
	}
	return tea.Batch(m.statsCmd(), m.browse.SetSource(listSource(m.src, "")))
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.layout()
}

func (m *Model) wide() bool { return m.width >= SplitMinWidth }

// tabType returns the node type of the current tab ("" for all).
func (m *Model) tabType() engvault.NodeType {
	if m.tab == 0 {
		return ""
	}
	return engvault.NodeTypes()[m.tab-1]
}

// list returns the list on screen: search results or the browse list.
func (m *Model) list() *vlist.Model[row] {
	if m.query != "" {
		return m.results
	}
	return m.browse
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	cmd := m.update(msg)
	return m, tea.Batch(cmd, m.reconcile())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.WindowSizeMsg:
		// The root has already called SetSize; fetch what the new window shows.
		return tea.Batch(m.browse.SetCursor(m.browse.Cursor()))
	case common.EventMsg:
		ev := msg.Event
		if ev.Type == engine.EventChanged && (ev.Topic == engine.TopicVault || ev.Topic == engine.TopicImport) {
			m.refreshSeq++
			return common.Debounce(refreshDebounce, refreshTickMsg{seq: m.refreshSeq})
		}
		return nil
	case refreshTickMsg:
		if msg.seq == m.refreshSeq {
			return m.refreshAll()
		}
		return nil
	case common.NavigateMsg:
		if msg.Page != ID || m.src == nil {
			return nil
		}
		if id, ok := navID(msg.Arg); ok {
			return m.jump(id)
		}
		return nil
	case statsMsg:
		if msg.err != nil {
			return common.Failure(fmt.Errorf("vault stats: %w", msg.err))
		}
		st := msg.stats
		m.stats = &st
		return nil
	case searchTickMsg:
		if msg.seq != m.searchSeq || m.src == nil {
			return nil
		}
		q := strings.TrimSpace(m.search.Value())
		if q == "" {
			return nil
		}
		m.searching = true
		return m.searchCmd(msg.seq, q, m.tabType())
	case searchMsg:
		if msg.seq != m.searchSeq {
			return nil // a newer query is on its way
		}
		m.searching = false
		if msg.err != nil {
			return common.Failure(fmt.Errorf("search %q: %w", msg.query, msg.err))
		}
		m.query = msg.query
		m.results.SetRows(searchRows(msg.results))
		m.results.SetEmptyText(fmt.Sprintf("No node matches “%s”.", msg.query))
		return nil
	case detailMsg:
		if g, ok := m.pending[msg.id]; ok && g == msg.gen {
			delete(m.pending, msg.id)
		}
		if msg.err != nil {
			m.detailErr[msg.id] = msg.err
			delete(m.details, msg.id)
			return nil
		}
		delete(m.detailErr, msg.id)
		if len(m.details) > 512 {
			m.details = map[uint64]*detailData{}
		}
		m.details[msg.id] = msg.data
		return nil
	case mdMsg:
		delete(m.mdPending, msg.key)
		if msg.err != nil {
			return common.Failure(msg.err)
		}
		if len(m.md) > 512 {
			m.md = map[mdKey]string{}
		}
		m.md[msg.key] = msg.out
		return nil
	case graphMsg:
		if msg.seq != m.graphSeq {
			return nil
		}
		m.graphLoading = false
		if msg.err != nil {
			m.graphErr = msg.err
			return common.Failure(fmt.Errorf("graph of #%d: %w", msg.root, msg.err))
		}
		m.graphErr = nil
		m.setGraph(msg)
		return nil
	case conflictsMsg:
		if msg.seq != m.cfSeq {
			return nil
		}
		if msg.err != nil {
			m.cfErr = msg.err
			return common.Failure(fmt.Errorf("conflicts: %w", msg.err))
		}
		m.conflicts, m.cfLoaded, m.cfErr = msg.list, true, nil
		m.cfCursor = min(m.cfCursor, max(0, len(m.conflicts)-1))
		return nil
	case actionMsg:
		return m.afterAction(msg)
	case confirm.ResultMsg:
		if msg.ID != confirmForget || !msg.Confirmed || m.src == nil {
			return nil
		}
		id, _ := msg.Payload.(uint64)
		return m.forgetCmd(id)
	case pickTickMsg:
		if msg.seq != m.pickSeq || m.dlg != dlgPick {
			return nil
		}
		q := strings.TrimSpace(m.pickInput.Value())
		if q == "" {
			return nil
		}
		return m.pickCmd(msg.seq, q)
	case pickMsg:
		if msg.seq != m.pickSeq {
			return nil
		}
		if msg.err != nil {
			return common.Failure(fmt.Errorf("search %q: %w", msg.query, msg.err))
		}
		m.pickQuery = msg.query
		res := msg.results[:0:0]
		for _, r := range msg.results {
			if r.ID != m.linkFrom {
				res = append(res, r)
			}
		}
		m.picker.SetRows(searchRows(res))
		m.picker.SetEmptyText(fmt.Sprintf("No node matches “%s”.", msg.query))
		return nil
	}
	// Pages of the lists, cursor blinks of the inputs.
	var cmds []tea.Cmd
	for _, l := range []*vlist.Model[row]{m.browse, m.results, m.picker, m.pickAll} {
		_, cmd := l.Update(msg)
		cmds = append(cmds, cmd)
	}
	for _, in := range []*textinput.Model{&m.search, &m.pickInput, &m.tagsInput} {
		if in.Focused() {
			var cmd tea.Cmd
			*in, cmd = in.Update(msg)
			cmds = append(cmds, cmd)
		}
	}
	return tea.Batch(cmds...)
}

func navID(arg any) (uint64, bool) {
	switch a := arg.(type) {
	case uint64:
		return a, a != 0
	case int:
		return uint64(a), a > 0
	case engvault.Node:
		return a.ID, a.ID != 0
	}
	return 0, false
}

// refreshAll reloads everything shown after the vault changed.
func (m *Model) refreshAll() tea.Cmd {
	if m.src == nil {
		return nil
	}
	m.gen++ // details reload; the old ones stay on screen meanwhile
	cmds := []tea.Cmd{m.statsCmd(), m.browse.Refresh()}
	if m.query != "" {
		m.searchSeq++
		cmds = append(cmds, m.searchCmd(m.searchSeq, m.query, m.tabType()))
	}
	if m.view == viewGraph && m.graphRoot != 0 {
		cmds = append(cmds, m.loadGraph(m.graphRoot, m.graphDepth, false))
	}
	if m.cfLoaded || m.view == viewConflicts {
		m.cfSeq++
		cmds = append(cmds, m.conflictsCmd(m.cfSeq))
	}
	if m.dlg == dlgPick && m.pickQuery == "" {
		cmds = append(cmds, m.pickAll.Refresh())
	}
	return tea.Batch(cmds...)
}

func (m *Model) afterAction(msg actionMsg) tea.Cmd {
	if msg.err != nil {
		return tea.Batch(common.Failure(msg.err), m.refreshAll())
	}
	if msg.op == "forget" {
		m.dropFromHistory(msg.id)
		delete(m.details, msg.id)
		if m.detailID == msg.id {
			m.detailID = 0
			if len(m.history) > 0 {
				m.back()
			} else {
				m.focusDetail = false
			}
		}
		if m.view == viewGraph && m.graphRoot == msg.id {
			m.view = viewList
		}
	}
	return tea.Batch(common.Toast(msg.text), m.refreshAll())
}

func (m *Model) dropFromHistory(id uint64) {
	m.history = slices.DeleteFunc(m.history, func(l loc) bool { return l.id == id && l.view != viewConflicts })
}

// target returns the node the actions apply to.
func (m *Model) target() (engvault.Node, bool) {
	switch m.view {
	case viewGraph:
		id, ok := m.graph.Selected()
		if !ok {
			return engvault.Node{}, false
		}
		return m.nodeByID(id)
	case viewConflicts:
		if m.cfCursor >= len(m.conflicts) {
			return engvault.Node{}, false
		}
		c := m.conflicts[m.cfCursor]
		if m.cfSide == 1 {
			return c.B, true
		}
		return c.A, true
	}
	if m.focusDetail {
		return m.nodeByID(m.detailID)
	}
	r, ok := m.list().Selected()
	return r.node, ok
}

func (m *Model) nodeByID(id uint64) (engvault.Node, bool) {
	if id == 0 {
		return engvault.Node{}, false
	}
	if d, ok := m.details[id]; ok {
		return d.node, true
	}
	if m.view == viewGraph {
		for _, n := range m.graphNodes {
			if n.ID == id {
				return n, true
			}
		}
	}
	return engvault.Node{ID: id}, true
}

// detailTarget is the node the detail pane shows (0 = none).
func (m *Model) detailTarget() uint64 {
	if m.focusDetail {
		return m.detailID
	}
	if r, ok := m.list().Selected(); ok {
		return r.node.ID
	}
	return 0
}

func (m *Model) detailVisible() bool {
	return m.view == viewList && (m.wide() || m.focusDetail)
}

// reconcile asks for the data the screen needs and does not have.
func (m *Model) reconcile() tea.Cmd {
	if m.src == nil || m.width == 0 {
		return nil
	}
	id := m.detailTarget()
	if id != m.lastTarget {
		m.lastTarget = id
		if !m.focusDetail {
			m.linkCursor, m.scroll = 0, 0
		}
	}
	if !m.detailVisible() || id == 0 {
		return nil
	}
	var cmds []tea.Cmd
	d, ok := m.details[id]
	if (!ok || d.gen != m.gen) && m.detailErr[id] == nil {
		if g, busy := m.pending[id]; !busy || g != m.gen {
			m.pending[id] = m.gen
			cmds = append(cmds, m.detailCmd(id, m.gen))
		}
	}
	if ok {
		key := m.mdKeyFor(d.node)
		if _, have := m.md[key]; !have && !m.mdPending[key] {
			m.mdPending[key] = true
			cmds = append(cmds, mdCmd(key, markdownSource(d.node)))
		}
	}
	return tea.Batch(cmds...)
}

func (m *Model) mdKeyFor(n engvault.Node) mdKey {
	return mdKey{id: n.ID, updated: n.UpdatedAt.UnixNano(), width: m.detailInnerWidth(), dark: m.c.Styles.Dark}
}

// jump shows node id in the detail pane, remembering where we were.
func (m *Model) jump(id uint64) tea.Cmd {
	m.history = append(m.history, m.here())
	if len(m.history) > 100 {
		m.history = m.history[len(m.history)-100:]
	}
	m.view, m.focusDetail, m.detailID = viewList, true, id
	m.linkCursor, m.scroll = 0, 0
	delete(m.detailErr, id)
	return nil
}

func (m *Model) here() loc {
	l := loc{view: m.view, focusDetail: m.focusDetail, depth: m.graphDepth}
	switch m.view {
	case viewGraph:
		l.id = m.graphRoot
	case viewConflicts:
		l.cursor = m.cfCursor
	default:
		if m.focusDetail {
			l.id, l.cursor = m.detailID, m.linkCursor
		}
	}
	return l
}

// back returns to the last place in the history; without history it leaves
// the detail or the current view.
func (m *Model) back() tea.Cmd {
	if n := len(m.history); n > 0 {
		l := m.history[n-1]
		m.history = m.history[:n-1]
		m.view, m.focusDetail = l.view, l.focusDetail
		switch l.view {
		case viewGraph:
			return m.loadGraph(l.id, l.depth, false)
		case viewConflicts:
			m.cfCursor = l.cursor
		default:
			if l.focusDetail {
				m.detailID, m.linkCursor, m.scroll = l.id, l.cursor, 0
			}
		}
		return nil
	}
	switch {
	case m.view != viewList:
		m.view = viewList
	case m.focusDetail:
		m.focusDetail = false
	}
	return nil
}

func (m *Model) loadGraph(root uint64, depth int, push bool) tea.Cmd {
	if push {
		m.history = append(m.history, m.here())
	}
	m.view = viewGraph
	if root != m.graphRoot || depth != m.graphDepth {
		m.graphLoading = true
	}
	m.graphRoot, m.graphDepth = root, depth
	m.graphSeq++
	return m.graphCmd(m.graphSeq, root, depth)
}

func (m *Model) setGraph(msg graphMsg) {
	m.graphNodes = msg.nodes
	g := graphview.Graph{Root: msg.root}
	for _, n := range msg.nodes {
		title := n.Title
		if title == "" {
			title = firstLine(n.Content)
		}
		g.Nodes = append(g.Nodes, graphview.Node{ID: n.ID, Kind: string(n.Type), Title: title, Note: fmt.Sprintf("%.2f", n.Confidence)})
	}
	for _, e := range msg.edges {
		g.Edges = append(g.Edges, graphview.Edge{ID: e.ID, From: e.From, To: e.To, Relation: string(e.Relation), Conflict: e.Relation == engvault.Contradicts})
	}
	keep, _ := m.graph.Selected()
	same := m.graph.Graph().Root == msg.root
	m.graph.SetGraph(g)
	if same {
		m.graph.Select(keep)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// ---- keys ----------------------------------------------------------------

func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if !m.warmed && m.src != nil {
		// Keys reach only the active page: the user is here, and will
		// likely search. Build the search index in the background now
		// rather than at start-up for everyone.
		m.warmed = true
		return tea.Batch(warmCmd(m.ctx(), m.src), m.handleKey(k))
	}
	if m.confirm.Active() {
		_, cmd := m.confirm.Update(k)
		return cmd
	}
	switch m.dlg {
	case dlgPick:
		return m.keyPick(k)
	case dlgRelation:
		return m.keyRelation(k)
	case dlgTags:
		return m.keyTags(k)
	}
	if m.search.Focused() {
		return m.keySearch(k)
	}
	if m.src == nil {
		return nil
	}
	km := m.c.KeyMap
	switch {
	case key.Matches(k, km.Refresh):
		return m.refreshAll()
	case key.Matches(k, km.Filter):
		m.view, m.focusDetail = viewList, false
		return m.search.Focus()
	case key.Matches(k, km.Conflicts):
		if m.view == viewConflicts {
			return m.back()
		}
		m.history = append(m.history, m.here())
		m.view = viewConflicts
		m.cfSeq++
		return m.conflictsCmd(m.cfSeq)
	}
	switch m.view {
	case viewGraph:
		if cmd, ok := m.keyGraph(k); ok {
			return cmd
		}
	case viewConflicts:
		if cmd, ok := m.keyConflicts(k); ok {
			return cmd
		}
	default:
		if cmd, ok := m.keyBrowse(k); ok {
			return cmd
		}
	}
	return m.keyAction(k)
}

// keyAction handles the actions on the target node.
func (m *Model) keyAction(k tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	n, ok := m.target()
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, km.Reinforce):
		return m.reinforceCmd(n.ID)
	case key.Matches(k, km.Demote):
		return m.demoteCmd(n.ID)
	case key.Matches(k, km.Delete):
		m.confirm.Open(confirm.Options{
			ID:      confirmForget,
			Title:   fmt.Sprintf("Forget node #%d?", n.ID),
			Body:    forgetBody(n, m.details[n.ID]),
			Yes:     "Forget",
			No:      "Keep",
			Danger:  true,
			Payload: n.ID,
		})
		return nil
	case key.Matches(k, km.Link):
		return m.openPicker(n.ID)
	case key.Matches(k, km.Tags):
		tags := n.Tags
		if d, ok := m.details[n.ID]; ok {
			tags = d.node.Tags
		}
		m.dlg, m.tagsFor = dlgTags, n.ID
		m.tagsInput.SetValue(strings.Join(tags, ", "))
		m.tagsInput.CursorEnd()
		return m.tagsInput.Focus()
	case key.Matches(k, km.Graph):
		if m.view == viewGraph {
			return m.back()
		}
		return m.loadGraph(n.ID, m.graphDepth, true)
	}
	return nil
}

func forgetBody(n engvault.Node, d *detailData) string {
	label := n.Title
	if label == "" {
		label = firstLine(n.Content)
	}
	body := fmt.Sprintf("“%s” will be removed from the vault", common.Truncate(label, 80))
	if d != nil && len(d.links) > 0 {
		body += fmt.Sprintf(", with its %d link(s)", len(d.links))
	}
	return body + ". This cannot be undone."
}

func (m *Model) keySearch(k tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch k.String() {
	case "esc":
		m.search.Blur()
		m.search.SetValue("")
		m.searchSeq++ // drop a search in flight
		m.query, m.searching = "", false
		return nil
	case "enter":
		m.search.Blur()
		return nil
	case "up", "down", "pgup", "pgdown":
		_, cmd := m.list().HandleKey(k)
		return cmd
	}
	if key.Matches(k, km.Tab) {
		m.search.Blur()
		return nil
	}
	before := m.search.Value()
	var cmd tea.Cmd
	m.search, cmd = m.search.Update(k)
	if m.search.Value() == before {
		return cmd
	}
	m.searchSeq++
	if strings.TrimSpace(m.search.Value()) == "" {
		m.query, m.searching = "", false
		return cmd
	}
	return tea.Batch(cmd, common.Debounce(searchDebounce, searchTickMsg{seq: m.searchSeq}))
}

func (m *Model) keyBrowse(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := m.c.KeyMap
	if m.focusDetail {
		return m.keyDetail(k)
	}
	if ok, cmd := m.list().HandleKey(k); ok {
		return cmd, true
	}
	switch {
	case key.Matches(k, km.Left, km.Right):
		n := len(engvault.NodeTypes()) + 1
		if key.Matches(k, km.Left) {
			m.tab = (m.tab + n - 1) % n
		} else {
			m.tab = (m.tab + 1) % n
		}
		cmds := []tea.Cmd{m.browse.SetSource(listSource(m.src, m.tabType()))}
		if m.query != "" {
			m.searchSeq++
			cmds = append(cmds, m.searchCmd(m.searchSeq, m.query, m.tabType()))
		}
		return tea.Batch(cmds...), true
	case key.Matches(k, km.Enter, km.Tab):
		if r, ok := m.list().Selected(); ok {
			m.focusDetail, m.detailID = true, r.node.ID
			m.linkCursor, m.scroll = 0, 0
			m.history = nil
		}
		return nil, true
	case key.Matches(k, km.Back):
		if m.query != "" {
			m.search.SetValue("")
			m.searchSeq++
			m.query = ""
		}
		return nil, true
	}
	return nil, false
}

func (m *Model) keyDetail(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := m.c.KeyMap
	d := m.details[m.detailID]
	nLinks := 0
	if d != nil {
		nLinks = len(d.links)
	}
	switch {
	case key.Matches(k, km.Up):
		if nLinks > 0 {
			m.linkCursor = max(0, m.linkCursor-1)
		} else {
			m.scroll = max(0, m.scroll-1)
		}
		m.followLink = true
	case key.Matches(k, km.Down):
		if nLinks > 0 {
			m.linkCursor = min(nLinks-1, m.linkCursor+1)
		} else {
			m.scroll++
		}
		m.followLink = true
	case key.Matches(k, km.PageUp):
		m.scroll = max(0, m.scroll-max(1, m.lastDetailH-1))
		m.followLink = false
	case key.Matches(k, km.PageDown):
		m.scroll += max(1, m.lastDetailH-1)
		m.followLink = false
	case key.Matches(k, km.Top):
		m.scroll, m.linkCursor = 0, 0
	case key.Matches(k, km.Enter):
		if d != nil && m.linkCursor < nLinks {
			return m.jump(d.links[m.linkCursor].node.ID), true
		}
	case key.Matches(k, km.Back, km.HistoryBack):
		return m.back(), true
	case key.Matches(k, km.Tab):
		m.focusDetail = false
		m.history = nil
	default:
		return nil, false
	}
	m.fixScroll()
	return nil, true
}

func (m *Model) keyGraph(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := m.c.KeyMap
	switch {
	case key.Matches(k, km.DepthMore):
		if m.graphDepth < maxDepth {
			return m.loadGraph(m.graphRoot, m.graphDepth+1, false), true
		}
		return nil, true
	case key.Matches(k, km.DepthLess):
		if m.graphDepth > 1 {
			return m.loadGraph(m.graphRoot, m.graphDepth-1, false), true
		}
		return nil, true
	case key.Matches(k, km.Depth):
		d := int(k.Code - '0')
		if d >= 1 && d <= maxDepth && d != m.graphDepth {
			return m.loadGraph(m.graphRoot, d, false), true
		}
		return nil, true
	case key.Matches(k, km.Enter):
		if id, ok := m.graph.Selected(); ok {
			return m.jump(id), true
		}
		return nil, true
	case key.Matches(k, km.Back, km.HistoryBack):
		return m.back(), true
	case key.Matches(k, km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom):
		m.graph.Update(k)
		return nil, true
	}
	return nil, false
}

func (m *Model) keyConflicts(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := m.c.KeyMap
	n := len(m.conflicts)
	switch {
	case key.Matches(k, km.Up):
		m.cfCursor = max(0, m.cfCursor-1)
	case key.Matches(k, km.Down):
		m.cfCursor = max(0, min(n-1, m.cfCursor+1))
	case key.Matches(k, km.PageUp):
		m.cfCursor = max(0, m.cfCursor-3)
	case key.Matches(k, km.PageDown):
		m.cfCursor = max(0, min(n-1, m.cfCursor+3))
	case key.Matches(k, km.Top):
		m.cfCursor = 0
	case key.Matches(k, km.Bottom):
		m.cfCursor = max(0, n-1)
	case key.Matches(k, km.Left):
		m.cfSide = 0
	case key.Matches(k, km.Right, km.Tab):
		if key.Matches(k, km.Tab) {
			m.cfSide = 1 - m.cfSide
		} else {
			m.cfSide = 1
		}
	case key.Matches(k, km.Enter):
		if n > 0 {
			n, _ := m.target()
			return m.jump(n.ID), true
		}
	case key.Matches(k, km.Back, km.HistoryBack):
		return m.back(), true
	default:
		return nil, false
	}
	return nil, true
}

// ---- dialogs -------------------------------------------------------------

func (m *Model) openPicker(from uint64) tea.Cmd {
	m.dlg, m.linkFrom = dlgPick, from
	m.pickInput.SetValue("")
	m.pickQuery = ""
	m.pickSeq++
	m.layout()
	return tea.Batch(m.pickInput.Focus(), m.pickAll.SetSource(listSource(m.src, "")))
}

func (m *Model) pickList() *vlist.Model[row] {
	if m.pickQuery != "" {
		return m.picker
	}
	return m.pickAll
}

func (m *Model) keyPick(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.dlg = dlgNone
		m.pickInput.Blur()
		return nil
	case "enter":
		r, ok := m.pickList().Selected()
		if !ok {
			return nil
		}
		if r.node.ID == m.linkFrom {
			return common.Failure(fmt.Errorf("a node cannot link to itself: pick another node"))
		}
		m.linkTo, m.dlg, m.relCursor = r.node, dlgRelation, 0
		m.pickInput.Blur()
		return nil
	case "up", "down", "pgup", "pgdown", "ctrl+k", "ctrl+j":
		kk := k
		switch k.String() {
		case "ctrl+k":
			kk = tea.KeyPressMsg{Code: tea.KeyUp}
		case "ctrl+j":
			kk = tea.KeyPressMsg{Code: tea.KeyDown}
		}
		_, cmd := m.pickList().HandleKey(kk)
		return cmd
	}
	before := m.pickInput.Value()
	var cmd tea.Cmd
	m.pickInput, cmd = m.pickInput.Update(k)
	if m.pickInput.Value() == before {
		return cmd
	}
	m.pickSeq++
	if strings.TrimSpace(m.pickInput.Value()) == "" {
		m.pickQuery = ""
		return cmd
	}
	return tea.Batch(cmd, common.Debounce(searchDebounce, pickTickMsg{seq: m.pickSeq}))
}

func (m *Model) keyRelation(k tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	rels := engvault.Relations()
	switch {
	case key.Matches(k, km.Up):
		m.relCursor = (m.relCursor + len(rels) - 1) % len(rels)
	case key.Matches(k, km.Down, km.Tab):
		m.relCursor = (m.relCursor + 1) % len(rels)
	case k.String() == "enter":
		m.dlg = dlgNone
		return m.linkCmd(m.linkFrom, m.linkTo.ID, rels[m.relCursor])
	case key.Matches(k, km.Back):
		m.dlg = dlgPick
		return m.pickInput.Focus()
	default:
		if d := int(k.Code - '1'); k.Text != "" && d >= 0 && d < len(rels) {
			m.relCursor = d
		}
	}
	return nil
}

func (m *Model) keyTags(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.dlg = dlgNone
		m.tagsInput.Blur()
		return nil
	case "enter":
		m.dlg = dlgNone
		m.tagsInput.Blur()
		return m.tagsCmd(m.tagsFor, parseTags(m.tagsInput.Value()))
	}
	var cmd tea.Cmd
	m.tagsInput, cmd = m.tagsInput.Update(k)
	return cmd
}

// ---- help ----------------------------------------------------------------

func with(b key.Binding, keys, desc string) key.Binding {
	b.SetHelp(keys, desc)
	return b
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km := m.c.KeyMap
	switch {
	case m.confirm.Active():
		return m.confirm.ShortHelp()
	case m.dlg == dlgPick:
		return []key.Binding{with(km.Up, "↑/↓", "choose"), with(km.Enter, "enter", "pick"), with(km.Back, "esc", "cancel")}
	case m.dlg == dlgRelation:
		return []key.Binding{with(km.Up, "↑/↓", "relation"), with(km.Enter, "enter", "link"), with(km.Back, "esc", "back")}
	case m.dlg == dlgTags:
		return []key.Binding{with(km.Enter, "enter", "save"), with(km.Back, "esc", "cancel")}
	case m.search.Focused():
		return []key.Binding{with(km.Enter, "enter", "done"), with(km.Up, "↑/↓", "move"), with(km.Back, "esc", "clear")}
	case m.view == viewGraph:
		return []key.Binding{with(km.Enter, "enter", "open"), km.DepthMore, km.DepthLess, with(km.Graph, "v", "close")}
	case m.view == viewConflicts:
		return []key.Binding{with(km.Left, "←/→", "side"), with(km.Enter, "enter", "open"), with(km.Back, "esc", "back")}
	case m.focusDetail:
		return []key.Binding{with(km.Enter, "enter", "follow link"), km.HistoryBack, km.Graph, km.Reinforce}
	}
	return []key.Binding{km.Filter, with(km.Left, "←/→", "type"), with(km.Enter, "enter", "open"), km.Graph, km.Reinforce, with(km.Delete, "d", "forget")}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km := m.c.KeyMap
	actions := []key.Binding{km.Reinforce, km.Demote, with(km.Delete, "d", "forget"), km.Link, km.Tags}
	views := []key.Binding{km.Graph, km.Conflicts, km.Filter, km.Refresh}
	switch {
	case m.view == viewGraph:
		return [][]key.Binding{
			{km.Up, km.Down, km.PageUp, km.PageDown, with(km.Enter, "enter", "open node")},
			{km.DepthMore, km.DepthLess, km.Depth, km.HistoryBack},
			{with(km.Graph, "v", "close graph"), km.Conflicts, with(km.Delete, "d", "forget"), km.Link, km.Tags},
		}
	case m.view == viewConflicts:
		return [][]key.Binding{
			{with(km.Up, "↑/↓", "pair"), with(km.Left, "←/→", "side"), with(km.Enter, "enter", "open node"), km.HistoryBack},
			actions,
			{with(km.Conflicts, "c", "close conflicts"), km.Graph, km.Refresh},
		}
	case m.focusDetail:
		return [][]key.Binding{
			{with(km.Up, "↑/↓", "choose link"), with(km.Enter, "enter", "follow link"), km.HistoryBack, with(km.Tab, "tab", "to the list"), km.PageUp, km.PageDown},
			actions, views,
		}
	}
	return [][]key.Binding{
		{km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom},
		{with(km.Left, "←/→", "type tab"), with(km.Enter, "enter", "open detail"), km.Filter, with(km.Back, "esc", "clear search")},
		actions, {km.Graph, km.Conflicts, km.Refresh},
	}
}

var _ common.Page = (*Model)(nil)
