// Package knowledge is the Knowledge screen: one search as you type over
// the vault, the facts and the cached or local docs (source labels, scores,
// snippets); the facts by scope with their validity on a timeline and the
// user's corrections (correct, invalidate, promote, keep — each confirmed
// first); and the docs cache (source, age, size; refresh, remove, clear,
// fetch). Provenance links from the Build and Rehearsal screens open here
// (common.NavigateMsg with a ref or common.KnowledgeRefs).
package knowledge

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the router id of the page.
const ID = "knowledge"

const (
	searchDebounce  = 150 * time.Millisecond
	refreshDebounce = 200 * time.Millisecond
	searchLimit     = 30
)

type pane uint8

const (
	paneSearch pane = iota
	paneFacts
	paneDocs
	paneCount
)

func (p pane) String() string {
	return [...]string{"Search", "Facts", "Docs"}[p]
}

// Messages: every engine call runs in a tea.Cmd and comes back as one of
// these; Update and View do no I/O.
type (
	searchTickMsg struct{ seq int }
	searchMsg     struct {
		seq   int
		query string
		res   knowledge.Result
		err   error
	}
	refsMsg struct {
		gen  int
		hits []knowledge.Hit
	}
	factsMsg struct {
		res facts.ListResult
		err error
	}
	docsMsg struct {
		list  []docs.EntryInfo
		stats docs.Stats
		err   error
	}
	itemMsg struct {
		gen     int
		item    knowledge.Item
		history []facts.Fact
		err     error
	}
	renderedMsg struct {
		gen, width int
		lines      []string
	}
	actionMsg struct {
		what string
		err  error
		// open is a ref to show once the lists are reloaded (a
		// replacement fact, a promoted copy).
		open string
	}
	refreshMsg struct {
		seq  int
		what string
	}
)

// factRow is one line of the facts list: a scope header or a fact.
type factRow struct {
	header string
	count  int
	fact   facts.Fact
}

// detail is the opened item (enter, or a provenance link).
type detail struct {
	ref     string
	item    knowledge.Item
	history []facts.Fact
	err     error
	loading bool
	lines   []string // the body rendered at width
	width   int
	scroll  int
}

// formKind is what an input dialog asks for.
type formKind uint8

const (
	formCorrect formKind = iota + 1
	formInvalidate
	formPromote
	formAdd
	formFetch
)

type form struct {
	kind   formKind
	fact   facts.Fact
	title  string
	inputs []textinput.Model
	labels []string
	field  int
	// scopes are the choices of a promote (←/→), scopeSel the chosen one.
	scopes   []facts.Scope
	scopeSel int
	err      string
}

// Model is the Knowledge page.
type Model struct {
	c      *common.Common
	keys   keyMap
	src    Source
	width  int
	height int
	now    func() time.Time

	pane  pane
	focus bool // true: the detail pane has the keyboard

	// Search.
	input     textinput.Model
	query     string
	searchSeq int
	searching bool
	result    *knowledge.Result
	searchErr error
	// hitList is the hits (or refs) in nova's list component; hitsShown
	// is the slice it was given (syncHits compares it with hits()), hitPer
	// the lines a hit takes.
	hitList   *vlist.Model[knowledge.Hit]
	hitsShown []knowledge.Hit
	hitPer    int
	// refs: the provenance list shown instead of search results.
	refsTitle string
	refs      []string
	refHits   []knowledge.Hit
	refsGen   int

	// Facts.
	factsRes    facts.ListResult
	factsErr    error
	factsLoaded bool
	showClosed  bool
	scopeFilter string // "" = every scope
	factRows    []factRow
	factList    *vlist.Model[factRow] // factRows in nova's list (two lines a row)
	factLo      time.Time             // the span the timelines share (factLines)
	factHi      time.Time
	wantFact    string // select this fact once loaded

	// Docs.
	docsList   []docs.EntryInfo
	docsStats  docs.Stats
	docsErr    error
	docsLoaded bool
	docList    *vlist.Model[docs.EntryInfo]
	docCols    [2]int // library and topic widths (docLines measures them)
	fetching   string // a fetch or refresh under way ("react (hooks)")

	det    *detail
	detGen int
	form   *form
	conf   *confirm.Model
	seq    int
	under  common.ViewCache // the page under a dialog
}

// New builds the page over src (the workspace, or a test's fake).
func New(c *common.Common, src Source) *Model {
	in := textinput.New()
	in.Prompt = "/ "
	in.Placeholder = "search the vault, facts and docs…"
	in.CharLimit = 300
	in.SetStyles(c.Styles.TextInput)
	m := &Model{c: c, keys: newKeyMap(), src: src, now: c.Clock(), input: in, conf: confirm.New(c), hitPer: 2}
	m.hitList = vlist.New(c, m.renderHit)
	m.hitList.SetMarker(true)
	m.factList = vlist.New(c, m.renderFact)
	m.factList.SetRowHeight(2)
	m.factList.SetMarker(true)
	m.docList = vlist.New(c, m.renderDoc)
	m.docList.SetMarker(true)
	return m
}

// syncHits gives the hit list the current hits when they changed (a new
// search result, the refs' hits), keeping the cursor's place.
func (m *Model) syncHits() {
	h := m.hits()
	if len(h) == len(m.hitsShown) && (len(h) == 0 || &h[0] == &m.hitsShown[0]) {
		return
	}
	m.hitsShown = h
	m.hitList.ReplaceRows(h, nil)
}

// selectedHit is the hit under the cursor.
func (m *Model) selectedHit() (knowledge.Hit, bool) {
	m.syncHits()
	return m.hitList.Selected()
}

// SetClock fixes the page's clock (golden tests: ages and timelines).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// Title implements common.Page.
func (m *Model) Title() string { return "Knowledge" }

// Capturing implements common.Page: typing a search or a form, and the
// confirmation dialog, own the keyboard.
func (m *Model) Capturing() bool { return m.input.Focused() || m.form != nil || m.conf.Active() }

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.loadFacts(), m.loadDocs()) }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.conf.SetSize(w, h)
	m.input.SetWidth(max(10, m.listWidth()-8))
	if m.form != nil {
		for i := range m.form.inputs {
			m.form.inputs[i].SetWidth(m.formWidth() - 16)
		}
	}
}

// wide reports whether the detail sits beside the list.
func (m *Model) wide() bool { return m.width >= 120 }

func (m *Model) listWidth() int {
	if m.wide() {
		return m.width * 11 / 20
	}
	return m.width
}

func (m *Model) detailWidth() int {
	if m.wide() {
		return m.width - m.listWidth()
	}
	return m.width
}

// ---- commands ----

func (m *Model) searchCmd(seq int, q string) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		res, err := src.SearchKnowledge(ctx, q, searchLimit)
		return searchMsg{seq: seq, query: q, res: res, err: err}
	}
}

func (m *Model) loadFacts() tea.Cmd {
	src, ctx, closed := m.src, m.c.Ctx, m.showClosed
	return func() tea.Msg {
		res, err := src.ListFacts(ctx, facts.ListOptions{IncludeInvalidated: closed})
		return factsMsg{res: res, err: err}
	}
}

func (m *Model) loadDocs() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		list, err := src.DocsList(ctx, "")
		if err != nil {
			return docsMsg{err: err}
		}
		st, err := src.DocsStats(ctx)
		return docsMsg{list: list, stats: st, err: err}
	}
}

// open shows ref in the detail pane.
func (m *Model) open(ref string) tea.Cmd {
	if ref == "" {
		return nil
	}
	m.detGen++
	m.det = &detail{ref: ref, loading: true}
	m.focus = !m.wide()
	gen, src, ctx := m.detGen, m.src, m.c.Ctx
	return func() tea.Msg {
		it, err := src.KnowledgeItem(ctx, ref)
		if err != nil {
			return itemMsg{gen: gen, err: err}
		}
		var hist []facts.Fact
		if it.Fact != nil {
			if h, err := src.FactHistory(ctx, it.Fact.ID); err == nil && len(h) > 1 {
				hist = h
			}
		}
		return itemMsg{gen: gen, item: it, history: hist}
	}
}

// render lays the opened item's text out for the detail pane, off the UI
// goroutine (glamour for Context7 docs, which are markdown).
func (m *Model) render() tea.Cmd {
	d := m.det
	if d == nil || d.loading || d.err != nil {
		return nil
	}
	gen, width, it, dark := m.detGen, m.detailInner(), d.item, m.c.Styles.Dark
	return func() tea.Msg {
		return renderedMsg{gen: gen, width: width, lines: renderBody(it, width, dark)}
	}
}

func (m *Model) detailInner() int { return max(10, m.detailWidth()-4) }

func (m *Model) loadRefs(refs []string) tea.Cmd {
	m.refsGen++
	gen, src, ctx := m.refsGen, m.src, m.c.Ctx
	refs = append([]string(nil), refs...)
	return func() tea.Msg {
		hits := make([]knowledge.Hit, 0, len(refs))
		for _, ref := range refs {
			it, err := src.KnowledgeItem(ctx, ref)
			if err != nil {
				hits = append(hits, knowledge.Hit{Source: sourceOfRef(ref), Title: "(no longer available)", Snippet: err.Error(), Ref: ref})
				continue
			}
			hits = append(hits, knowledge.Hit{Source: it.Source, Title: it.Title, Snippet: firstLine(it.Text), Ref: ref})
		}
		return refsMsg{gen: gen, hits: hits}
	}
}

func (m *Model) act(what string, f func() (string, error)) tea.Cmd {
	return func() tea.Msg {
		open, err := f()
		return actionMsg{what: what, err: err, open: open}
	}
}

// ---- update ----

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	m.under.Update(msg, m.form != nil || m.conf.Active())
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if m.det != nil && m.det.width != m.detailInner() {
			return m, m.render()
		}
		return m, nil
	case searchTickMsg:
		if msg.seq != m.searchSeq {
			return m, nil
		}
		q := strings.TrimSpace(m.input.Value())
		if q == "" {
			return m, nil
		}
		m.searching = true
		return m, m.searchCmd(msg.seq, q)
	case searchMsg:
		if msg.seq != m.searchSeq {
			return m, nil // a newer keystroke won
		}
		m.searching = false
		m.query, m.searchErr = msg.query, msg.err
		if msg.err == nil {
			res := msg.res
			m.result = &res
		}
		m.syncHits()
		return m, nil
	case refsMsg:
		if msg.gen == m.refsGen {
			m.refHits = msg.hits
		}
		return m, nil
	case factsMsg:
		m.factsLoaded, m.factsErr = true, msg.err
		if msg.err == nil {
			m.factsRes = msg.res
			m.rebuildFacts()
		}
		return m, nil
	case docsMsg:
		m.docsLoaded, m.docsErr = true, msg.err
		if msg.err == nil {
			keep, had := m.selectedDoc()
			m.docsList, m.docsStats = msg.list, msg.stats
			m.docList.ReplaceRows(m.docsList, func(e docs.EntryInfo) bool { return had && e.Ref == keep.Ref })
		}
		return m, nil
	case itemMsg:
		if msg.gen != m.detGen || m.det == nil {
			return m, nil
		}
		m.det.loading, m.det.err = false, msg.err
		m.det.item, m.det.history = msg.item, msg.history
		return m, m.render()
	case renderedMsg:
		if msg.gen == m.detGen && m.det != nil {
			m.det.lines, m.det.width = msg.lines, msg.width
		}
		return m, nil
	case actionMsg:
		m.fetching = ""
		if msg.err != nil {
			if m.form != nil {
				m.form.err = errText(msg.err)
				return m, nil
			}
			return m, tea.Batch(common.Failure(fmt.Errorf("%s: %w", msg.what, msg.err)), m.reload())
		}
		m.form = nil
		cmds := []tea.Cmd{common.Toast(msg.what), m.reload()}
		if msg.open != "" {
			if strings.HasPrefix(msg.open, "fact:") {
				m.wantFact = strings.TrimPrefix(msg.open, "fact:")
			}
			cmds = append(cmds, m.open(msg.open))
		} else if m.det != nil {
			cmds = append(cmds, m.open(m.det.ref)) // its status may have changed
		}
		return m, tea.Batch(cmds...)
	case refreshMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		return m, m.reload()
	case confirm.ResultMsg:
		return m, m.confirmed(msg)
	case common.EventMsg:
		ev := msg.Event
		if ev.Type != engine.EventChanged {
			return m, nil
		}
		if ev.Topic == engine.TopicKnowledge || (ev.Topic == engine.TopicVault && m.query != "") {
			m.seq++
			return m, common.Debounce(refreshDebounce, refreshMsg{seq: m.seq, what: ev.Text})
		}
		return m, nil
	case common.NavigateMsg:
		if msg.Page != ID {
			return m, nil
		}
		return m, m.navigate(msg.Arg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	// Cursor blinks and the like.
	var cmd tea.Cmd
	if m.input.Focused() {
		m.input, cmd = m.input.Update(msg)
	}
	if m.form != nil && m.form.field < len(m.form.inputs) {
		var c2 tea.Cmd
		m.form.inputs[m.form.field], c2 = m.form.inputs[m.form.field].Update(msg)
		cmd = tea.Batch(cmd, c2)
	}
	return m, cmd
}

// reload refreshes the lists and the search on screen.
func (m *Model) reload() tea.Cmd {
	cmds := []tea.Cmd{m.loadFacts(), m.loadDocs()}
	if m.query != "" && m.refs == nil {
		m.searchSeq++
		cmds = append(cmds, m.searchCmd(m.searchSeq, m.query))
	}
	if m.refs != nil {
		cmds = append(cmds, m.loadRefs(m.refs))
	}
	return tea.Batch(cmds...)
}

// navigate opens what a provenance link points at.
func (m *Model) navigate(arg any) tea.Cmd {
	switch a := arg.(type) {
	case string:
		if a == "" {
			return nil
		}
		switch sourceOfRef(a) {
		case knowledge.SourceFacts:
			m.pane = paneFacts
			m.wantFact = strings.TrimPrefix(a, "fact:")
			m.selectWanted()
		case knowledge.SourceDocs:
			m.pane = paneDocs
			for i, e := range m.docsList {
				if e.Ref == a {
					m.docList.SetCursor(i)
				}
			}
		default:
			m.pane = paneSearch
		}
		return m.open(a)
	case common.KnowledgeRefs:
		m.pane = paneSearch
		m.input.Blur()
		m.refsTitle, m.refs, m.refHits = a.Title, append([]string{}, a.Refs...), nil
		m.syncHits()
		m.hitList.SetCursor(0)
		if len(a.Refs) == 0 {
			return nil
		}
		return tea.Batch(m.loadRefs(a.Refs), m.open(a.Refs[0]))
	}
	return nil
}

// hits are the rows of the Search pane: the provenance list or the
// search results.
func (m *Model) hits() []knowledge.Hit {
	if m.refs != nil {
		return m.refHits
	}
	if m.result == nil {
		return nil
	}
	return m.result.Hits
}

// rebuildFacts groups the listed facts by scope (broadest first, as
// listed) under the scope filter.
func (m *Model) rebuildFacts() {
	keep := ""
	if f, ok := m.selectedFact(); ok {
		keep = f.ID
	}
	var rows []factRow
	counts := map[string]int{}
	for _, f := range m.factsRes.Facts {
		counts[f.Scope.String()]++
	}
	cur := ""
	for _, f := range m.factsRes.Facts {
		sc := f.Scope.String()
		if m.scopeFilter != "" && sc != m.scopeFilter {
			continue
		}
		if sc != cur || len(rows) == 0 {
			cur = sc
			rows = append(rows, factRow{header: sc, count: counts[sc]})
		}
		rows = append(rows, factRow{fact: f})
	}
	m.factRows = rows
	if m.wantFact != "" {
		keep = m.wantFact
	}
	sel := m.firstFactRow(0, 1)
	for i, r := range m.factRows {
		if r.header == "" && r.fact.ID == keep {
			sel = i
		}
	}
	m.factList.SetRows(m.factRows)
	m.factList.SetCursor(sel)
	m.selectWanted()
}

// selectWanted moves the cursor onto wantFact when it is listed.
func (m *Model) selectWanted() {
	if m.wantFact == "" {
		return
	}
	for i, r := range m.factRows {
		if r.header == "" && r.fact.ID == m.wantFact {
			m.factList.SetCursor(i)
			m.wantFact = ""
			return
		}
	}
}

// firstFactRow finds a fact row from i in direction dir (or i itself).
func (m *Model) firstFactRow(i, dir int) int {
	for j := i; j >= 0 && j < len(m.factRows); j += dir {
		if m.factRows[j].header == "" {
			return j
		}
	}
	return max(0, min(i, len(m.factRows)-1))
}

func (m *Model) selectedFact() (facts.Fact, bool) {
	if r, ok := m.factList.Selected(); ok && r.header == "" {
		return r.fact, true
	}
	return facts.Fact{}, false
}

func (m *Model) selectedDoc() (docs.EntryInfo, bool) { return m.docList.Selected() }

// scopes lists the scopes present, for the filter cycle.
func (m *Model) scopes() []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range m.factsRes.Facts {
		if sc := f.Scope.String(); !seen[sc] {
			seen[sc] = true
			out = append(out, sc)
		}
	}
	return out
}

// ---- keys ----

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if m.conf.Active() {
		_, cmd := m.conf.Update(msg)
		return cmd
	}
	if m.form != nil {
		return m.formKey(msg)
	}
	if m.input.Focused() {
		return m.inputKey(msg)
	}
	switch {
	case key.Matches(msg, km.Refresh):
		return m.reload()
	case key.Matches(msg, km.Tab):
		m.pane, m.focus = (m.pane+1)%paneCount, false
		return nil
	case key.Matches(msg, km.ShiftTab):
		m.pane, m.focus = (m.pane+paneCount-1)%paneCount, false
		return nil
	case key.Matches(msg, km.Filter):
		m.pane, m.focus = paneSearch, false
		m.refs, m.refHits, m.refsTitle = nil, nil, ""
		m.input.SetStyles(m.c.Styles.TextInput)
		return m.input.Focus()
	case key.Matches(msg, km.Back):
		switch {
		case m.det != nil:
			m.det, m.focus = nil, false
		case m.pane == paneSearch && m.refs != nil:
			m.refs, m.refHits, m.refsTitle = nil, nil, ""
		case m.pane == paneSearch && m.query != "":
			m.clearSearch()
		}
		return nil
	}
	if m.det != nil {
		if m.wide() {
			switch {
			case key.Matches(msg, km.Right) && !m.focus:
				m.focus = true
				return nil
			case key.Matches(msg, km.Left) && m.focus:
				m.focus = false
				return nil
			}
		}
		if m.focus || !m.wide() {
			return m.detailKey(msg)
		}
	}
	switch m.pane {
	case paneSearch:
		return m.searchKey(msg)
	case paneFacts:
		return m.factsKey(msg)
	case paneDocs:
		return m.docsKey(msg)
	}
	return nil
}

func (m *Model) clearSearch() {
	m.input.SetValue("")
	m.searchSeq++ // drop a search in flight
	m.query, m.result, m.searchErr, m.searching = "", nil, nil, false
	m.syncHits()
	m.hitList.SetCursor(0)
}

func (m *Model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch {
	case msg.String() == "enter", key.Matches(msg, km.Down):
		m.input.Blur()
		if msg.String() == "enter" {
			if h, ok := m.selectedHit(); ok {
				return m.open(h.Ref)
			}
		}
		return nil
	case key.Matches(msg, km.Back):
		m.input.Blur()
		if m.input.Value() == "" {
			m.clearSearch()
		}
		return nil
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() == before {
		return cmd
	}
	m.searchSeq++
	m.hitList.SetCursor(0)
	if strings.TrimSpace(m.input.Value()) == "" {
		m.query, m.result, m.searchErr, m.searching = "", nil, nil, false
		return cmd
	}
	return tea.Batch(cmd, common.Debounce(searchDebounce, searchTickMsg{seq: m.searchSeq}))
}

func (m *Model) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	m.syncHits()
	if key.Matches(msg, km.Up) && m.hitList.Cursor() == 0 && m.refs == nil {
		m.input.SetStyles(m.c.Styles.TextInput)
		return m.input.Focus() // up from the first hit edits the query
	}
	if ok, cmd := m.hitList.HandleKey(msg); ok {
		return cmd
	}
	if h, ok := m.hitList.Selected(); ok && key.Matches(msg, km.Enter) {
		return m.open(h.Ref)
	}
	return nil
}

func (m *Model) factsKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	// Facts are grouped under scope headers (not selectable): the cursor
	// moves over the rows, then off a header in the direction it went.
	before := m.factList.Cursor()
	if ok, cmd := m.factList.HandleKey(msg); ok {
		cur, dir := m.factList.Cursor(), 1
		if cur < before {
			dir = -1
		}
		if cur < len(m.factRows) && m.factRows[cur].header != "" {
			j := m.firstFactRow(cur, dir)
			if m.factRows[j].header != "" {
				j = m.firstFactRow(cur, -dir)
			}
			m.factList.SetCursor(j)
		}
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.ShowClosed):
		m.showClosed = !m.showClosed
		return m.loadFacts()
	case key.Matches(msg, m.keys.ScopeFilter):
		scopes := m.scopes()
		next := ""
		for i, sc := range scopes {
			if sc == m.scopeFilter && i+1 < len(scopes) {
				next = scopes[i+1]
			}
		}
		if m.scopeFilter == "" && len(scopes) > 0 {
			next = scopes[0]
		}
		m.scopeFilter = next
		m.rebuildFacts()
		return nil
	case key.Matches(msg, m.keys.AddFact):
		return m.openForm(formAdd, facts.Fact{})
	}
	f, ok := m.selectedFact()
	if !ok {
		return nil
	}
	switch {
	case key.Matches(msg, km.Enter):
		return m.open("fact:" + f.ID)
	case key.Matches(msg, m.keys.Correct):
		if !f.Valid() {
			return common.Toast(closedText(f))
		}
		return m.openForm(formCorrect, f)
	case key.Matches(msg, m.keys.Invalidate):
		if !f.Valid() {
			return common.Toast(closedText(f))
		}
		return m.openForm(formInvalidate, f)
	case key.Matches(msg, m.keys.Promote):
		if !f.Valid() {
			return common.Toast(closedText(f))
		}
		if len(broaderScopes(f.Scope)) == 0 {
			return common.Toast(f.ID + " is a user fact already: there is no broader scope")
		}
		return m.openForm(formPromote, f)
	case key.Matches(msg, m.keys.Keep):
		if !f.Archived && f.Review == "" {
			return common.Toast(f.ID + " is neither archived nor flagged: nothing to keep")
		}
		body := common.Truncate(oneLine(f.Content), 180)
		if f.Archived {
			body += "\n\nIt comes back from the archive (archived: " + f.ArchiveReason + ")."
		} else {
			body += "\n\nIts review flag is cleared (" + f.Review + ")."
		}
		m.conf.Open(confirm.Options{ID: "keep", Title: "Keep fact " + f.ID + "?", Body: body, Yes: "Keep", No: "Cancel", Payload: f.ID})
		return nil
	}
	return nil
}

func (m *Model) docsKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if ok, cmd := m.docList.HandleKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.FetchDoc):
		return m.openForm(formFetch, facts.Fact{})
	case key.Matches(msg, m.keys.ClearDocs):
		if len(m.docsList) == 0 {
			return common.Toast("the docs cache is empty")
		}
		m.conf.Open(confirm.Options{ID: "clear-docs", Title: fmt.Sprintf("Clear all %d cached docs?", len(m.docsList)),
			Body: "Local docs are read again from disk when asked; Context7 docs are fetched again (the network is needed).",
			Yes:  "Clear all", No: "Keep", Danger: true})
		return nil
	}
	e, ok := m.selectedDoc()
	if !ok {
		return nil
	}
	switch {
	case key.Matches(msg, km.Enter):
		return m.open(e.Ref)
	case key.Matches(msg, m.keys.RefreshDoc):
		return m.fetch(e.Library, e.Topic, true)
	case key.Matches(msg, m.keys.RemoveDoc):
		m.conf.Open(confirm.Options{ID: "remove-doc", Title: "Remove " + describe(e.Library, e.Topic) + " from the cache?",
			Body: fmt.Sprintf("%s docs, %s, fetched %s. The next fetch reads or downloads them again.", e.Source, sizeText(e.Bytes), day(e.FetchedAt)),
			Yes:  "Remove", No: "Keep", Danger: true, Payload: e.Ref})
		return nil
	}
	return nil
}

func (m *Model) detailKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	d := m.det
	page := max(1, m.height-6)
	switch {
	case key.Matches(msg, km.Down):
		d.scroll++
	case key.Matches(msg, km.Up):
		d.scroll--
	case key.Matches(msg, km.PageDown):
		d.scroll += page
	case key.Matches(msg, km.PageUp):
		d.scroll -= page
	case key.Matches(msg, km.Top):
		d.scroll = 0
	case key.Matches(msg, km.Bottom):
		d.scroll = len(d.lines)
	case key.Matches(msg, km.Enter):
		// Follow the chain: open the replacement or the original.
		if f := d.item.Fact; f != nil {
			if f.SupersededBy != "" {
				return m.open("fact:" + f.SupersededBy)
			}
			if f.Supersedes != "" {
				return m.open("fact:" + f.Supersedes)
			}
		}
		return nil
	default:
		// The pane's actions (correct, remove, …) still work on its
		// selected row, which is what was opened.
		switch m.pane {
		case paneFacts:
			return m.factsKey(msg)
		case paneDocs:
			return m.docsKey(msg)
		}
	}
	d.scroll = max(0, min(d.scroll, len(d.lines)-1))
	return nil
}

func (m *Model) fetch(lib, topic string, refresh bool) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	m.fetching = describe(lib, topic)
	verb := "fetched"
	if refresh {
		verb = "refreshed"
	}
	return m.act(verb+" "+m.fetching, func() (string, error) {
		r, err := src.FetchDocs(ctx, lib, topic, docs.FetchOptions{Refresh: refresh})
		if err != nil {
			return "", err
		}
		if !r.Available {
			return "", fmt.Errorf("nothing found for %s: %s", describe(lib, topic), cmpOr(r.Warning, "no documentation"))
		}
		if r.Stale {
			return "", fmt.Errorf("kept the cached copy of %s: %s", describe(lib, topic), r.Warning)
		}
		return r.Ref, nil
	})
}

// ---- forms and confirmations ----

func (m *Model) formWidth() int { return min(90, max(50, m.width-8)) }

func (m *Model) openForm(kind formKind, f facts.Fact) tea.Cmd {
	mk := func(placeholder string, limit int) textinput.Model {
		in := textinput.New()
		in.Prompt = "› "
		in.Placeholder = placeholder
		in.CharLimit = limit
		in.SetStyles(m.c.Styles.TextInput)
		in.SetWidth(m.formWidth() - 16)
		return in
	}
	fm := &form{kind: kind, fact: f}
	switch kind {
	case formCorrect:
		fm.title = "Correct fact " + f.ID
		fm.labels = []string{"reason", "replacement"}
		fm.inputs = []textinput.Model{mk("why it no longer holds (required)", facts.MaxReasonChars), mk("the corrected statement (empty: invalidate only)", 4000)}
	case formInvalidate:
		fm.title = "Invalidate fact " + f.ID
		fm.labels = []string{"reason"}
		fm.inputs = []textinput.Model{mk("why it no longer holds (required)", facts.MaxReasonChars)}
	case formPromote:
		fm.title = "Promote fact " + f.ID
		fm.scopes = broaderScopes(f.Scope)
	case formAdd:
		fm.title = "Add a fact"
		fm.labels = []string{"fact", "scope", "tags", "confidence"}
		fm.inputs = []textinput.Model{mk("a short statement that holds in this project", 4000), mk("workspace (or user, build:ID, agent:NAME)", 120),
			mk("comma separated", 300), mk("0–1 (default 0.9)", 8)}
		fm.inputs[1].SetValue(m.defaultScope())
	case formFetch:
		fm.title = "Fetch documentation"
		fm.labels = []string{"library", "topic"}
		fm.inputs = []textinput.Model{mk("a Go module, an npm package or any library (e.g. react)", 512), mk("optional (e.g. hooks)", 512)}
	}
	m.form = fm
	if len(fm.inputs) > 0 {
		return fm.inputs[0].Focus()
	}
	return nil
}

// defaultScope is the scope filter when it names one, else workspace.
func (m *Model) defaultScope() string {
	if m.scopeFilter != "" {
		return m.scopeFilter
	}
	return "workspace"
}

func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	f := m.form
	switch {
	case key.Matches(msg, km.Back):
		m.form = nil
		return nil
	case f.kind == formPromote && key.Matches(msg, km.Left, km.Right, km.Tab, km.ShiftTab):
		if key.Matches(msg, km.Left, km.ShiftTab) {
			f.scopeSel = (f.scopeSel + len(f.scopes) - 1) % len(f.scopes)
		} else {
			f.scopeSel = (f.scopeSel + 1) % len(f.scopes)
		}
		return nil
	case key.Matches(msg, km.Tab, km.ShiftTab) && len(f.inputs) > 1:
		f.inputs[f.field].Blur()
		if key.Matches(msg, km.Tab) {
			f.field = (f.field + 1) % len(f.inputs)
		} else {
			f.field = (f.field + len(f.inputs) - 1) % len(f.inputs)
		}
		return f.inputs[f.field].Focus()
	case msg.String() == "enter":
		return m.submit()
	}
	f.err = ""
	if f.field >= len(f.inputs) {
		return nil
	}
	var cmd tea.Cmd
	f.inputs[f.field], cmd = f.inputs[f.field].Update(msg)
	return cmd
}

func (f *form) value(i int) string {
	if i < len(f.inputs) {
		return strings.TrimSpace(f.inputs[i].Value())
	}
	return ""
}

// submit checks the form; destructive changes ask for confirmation first.
func (m *Model) submit() tea.Cmd {
	f := m.form
	src, ctx := m.src, m.c.Ctx
	switch f.kind {
	case formCorrect, formInvalidate:
		reason, repl := f.value(0), f.value(1)
		if reason == "" {
			f.err = "Say why the fact no longer holds."
			return nil
		}
		body := "“" + common.Truncate(oneLine(f.fact.Content), 160) + "”\n\nIt is closed today with the reason: " + reason + "."
		title := "Invalidate fact " + f.fact.ID + "?"
		if repl != "" {
			title = "Correct fact " + f.fact.ID + "?"
			body += "\nIts replacement (" + f.fact.Scope.String() + "): “" + common.Truncate(repl, 160) + "”."
		}
		body += "\nNothing is deleted: history shows the chain."
		m.form = nil
		m.conf.Open(confirm.Options{ID: "correct", Title: title, Body: body, Yes: "Correct", No: "Cancel", Danger: true,
			Payload: [3]string{f.fact.ID, reason, repl}})
		return nil
	case formPromote:
		to := f.scopes[f.scopeSel]
		m.form = nil
		m.conf.Open(confirm.Options{ID: "promote", Title: "Promote fact " + f.fact.ID + " to " + to.String() + "?",
			Body: "“" + common.Truncate(oneLine(f.fact.Content), 160) + "”\n\nA copy is recorded at " + to.String() +
				" and " + f.fact.ID + " (" + f.fact.Scope.String() + ") is closed with a link to it.",
			Yes: "Promote", No: "Cancel", Payload: promotion{id: f.fact.ID, to: to}})
		return nil
	case formAdd:
		content := f.value(0)
		if content == "" {
			f.err = "A fact needs some text."
			return nil
		}
		sc, err := facts.ParseScope(cmpOr(f.value(1), "workspace"))
		if err != nil {
			f.err = errText(err)
			return nil
		}
		in := facts.NewFact{Content: content, Scope: sc}
		for _, t := range strings.Split(f.value(2), ",") {
			if t = strings.TrimSpace(t); t != "" {
				in.Tags = append(in.Tags, t)
			}
		}
		if c := f.value(3); c != "" {
			x, err := strconv.ParseFloat(c, 64)
			if err != nil || x < 0 || x > 1 || x != x {
				f.err = "Confidence is a number from 0 to 1."
				return nil
			}
			in.Confidence = &x
		}
		return m.act("fact added", func() (string, error) {
			nf, err := src.AddFact(ctx, in)
			if err != nil {
				return "", err
			}
			return "fact:" + nf.ID, nil
		})
	case formFetch:
		lib, topic := f.value(0), f.value(1)
		if lib == "" {
			f.err = "Name a library."
			return nil
		}
		m.form = nil
		m.pane = paneDocs
		return m.fetch(lib, topic, false)
	}
	return nil
}

type promotion struct {
	id string
	to facts.Scope
}

func (m *Model) confirmed(res confirm.ResultMsg) tea.Cmd {
	if !res.Confirmed {
		return nil
	}
	src, ctx := m.src, m.c.Ctx
	switch res.ID {
	case "correct":
		p, _ := res.Payload.([3]string)
		what := "invalidated " + p[0]
		if p[2] != "" {
			what = "corrected " + p[0]
		}
		return m.act(what, func() (string, error) {
			c, err := src.CorrectFact(ctx, p[0], p[1], p[2])
			if err != nil {
				return "", err
			}
			if c.New != nil {
				return "fact:" + c.New.ID, nil
			}
			return "fact:" + c.Old.ID, nil
		})
	case "promote":
		p, _ := res.Payload.(promotion)
		return m.act("promoted "+p.id+" to "+p.to.String(), func() (string, error) {
			c, err := src.PromoteFact(ctx, p.id, p.to)
			if err != nil {
				return "", err
			}
			if c.New != nil {
				return "fact:" + c.New.ID, nil
			}
			return "", nil
		})
	case "keep":
		id, _ := res.Payload.(string)
		return m.act("kept "+id, func() (string, error) {
			_, err := src.ReaffirmFact(ctx, id)
			return "fact:" + id, err
		})
	case "remove-doc":
		ref, _ := res.Payload.(string)
		if m.det != nil && m.det.ref == ref {
			m.det, m.focus = nil, false
		}
		return m.act("removed "+ref, func() (string, error) { return "", src.DocsRemove(ctx, ref) })
	case "clear-docs":
		if m.det != nil && m.det.item.Docs != nil {
			m.det, m.focus = nil, false
		}
		return func() tea.Msg {
			n, err := src.DocsClear(ctx, "")
			return actionMsg{what: fmt.Sprintf("cleared %d cached docs", n), err: err}
		}
	}
	return nil
}

// broaderScopes are the scopes a fact at s can be promoted to, nearest
// first.
func broaderScopes(s facts.Scope) []facts.Scope {
	var out []facts.Scope
	for _, c := range []facts.Scope{facts.Workspace(), facts.User()} {
		if c.Broader(s) {
			out = append(out, c)
		}
	}
	return out
}

// ---- small helpers ----

func sourceOfRef(ref string) string {
	switch {
	case strings.HasPrefix(ref, "fact:"):
		return knowledge.SourceFacts
	case strings.HasPrefix(ref, "docs:"):
		return knowledge.SourceDocs
	}
	return knowledge.SourceVault
}

func closedText(f facts.Fact) string {
	s := f.ID + " is " + string(f.Status)
	if f.SupersededBy != "" {
		s += "; its replacement is " + f.SupersededBy
	}
	return s
}

// errText is an error for a form line: the sentinel's prefix removed.
func errText(err error) string {
	s := err.Error()
	for _, sentinel := range []error{facts.ErrInvalid, docs.ErrInvalid, knowledge.ErrInvalid} {
		if errors.Is(err, sentinel) {
			s = strings.TrimPrefix(s, sentinel.Error()+": ")
		}
	}
	return s
}

func describe(lib, topic string) string {
	if topic != "" {
		return lib + " (" + topic + ")"
	}
	return lib
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
