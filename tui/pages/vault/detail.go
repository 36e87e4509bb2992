package vault

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/markdown"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// detailPane shows one node: its facts, its links (grouped by relation,
// followable) and its text rendered as markdown. It keeps a cache of loaded
// details and rendered markdown; what it shows is chosen by the browse pane
// (the list's selection, or the node it was focused on).
type detailPane struct {
	*shared
	width, height int // the panel

	id uint64 // the node shown while the detail has the focus
	// links is the focused node's links in nova's list component;
	// linksOf is the detail they were taken from, want the cursor to put
	// on them once they arrive (-1: none).
	links      *vlist.Model[linkRow]
	linksOf    *detailData
	want       int
	scroll     int
	followLink bool // keep the chosen link in view (off after page keys)
	// relW and rendering are what renderLink needs of the detail being
	// drawn: the widest relation and its links.
	relW      int
	rendering *detailData
	static    bool // drawing a preview's links, not the list

	details   map[uint64]*detailData
	detailErr map[uint64]error
	pending   map[uint64]int
	gen       int
	md        map[mdKey]string
	mdPending map[mdKey]bool
}

type detailMsg struct {
	gen  int
	id   uint64
	data *detailData
	err  error
}

type mdMsg struct {
	key mdKey
	out string
	err error
}

// detailData is what the detail pane shows for one node.
type detailData struct {
	gen    int
	node   engvault.Node // with body
	groups []engvault.RelationGroup
	links  []linkRow
}

// linkRow is one neighbour in the detail pane, in display order.
type linkRow struct {
	rel  engvault.Relation
	out  bool
	edge engvault.Edge
	node engvault.Node
}

// mdKey identifies one rendering of a node's text.
type mdKey struct {
	id      uint64
	updated int64
	width   int
	dark    bool
}

// jumpMsg asks the page to show a node, remembering where it was.
type jumpMsg struct{ id uint64 }

// backMsg asks the page to return to the last place in its history.
type backMsg struct{}

// forgetHistoryMsg asks the page to drop its history (the user went back
// to the list by hand).
type forgetHistoryMsg struct{}

func send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

func newDetailPane(sh *shared) *detailPane {
	d := &detailPane{shared: sh,
		details: map[uint64]*detailData{}, detailErr: map[uint64]error{}, pending: map[uint64]int{},
		md: map[mdKey]string{}, mdPending: map[mdKey]bool{}, want: -1}
	d.links = vlist.New(sh.c, d.renderLink)
	d.links.SetMarker(true)
	return d
}

// maxLinkRows bounds the links shown at once in the detail: more scroll
// inside their list (the rest of the detail scrolls with page keys).
func (d *detailPane) maxLinkRows() int { return max(3, d.bodyHeight()/2) }

// linkCursor is the chosen link of the focused node.
func (d *detailPane) linkCursor() int {
	if d.want >= 0 {
		return d.want
	}
	return d.links.Cursor()
}

// syncLinks gives the links list the focused node's links when they
// changed, and the cursor asked for.
func (d *detailPane) syncLinks() {
	dd := d.details[d.id]
	if dd == nil {
		return
	}
	if dd != d.linksOf {
		d.linksOf = dd
		d.links.ReplaceRows(dd.links, nil)
	}
	if d.want >= 0 {
		d.links.SetCursor(d.want)
		d.want = -1
	}
}

func (d *detailPane) setSize(w, h int) { d.width, d.height = w, h }

func (d *detailPane) innerWidth() int { return max(10, d.width-4) }

// bodyHeight is the number of lines inside the panel.
func (d *detailPane) bodyHeight() int { return max(1, d.height-2) }

// show focuses the pane on node id, at its top.
func (d *detailPane) show(id uint64, cursor int) {
	d.id, d.want, d.scroll = id, cursor, 0
	d.linksOf = nil
	delete(d.detailErr, id)
}

// node returns the loaded node id, if any.
func (d *detailPane) node(id uint64) (engvault.Node, bool) {
	if dd, ok := d.details[id]; ok {
		return dd.node, true
	}
	return engvault.Node{}, false
}

// forget drops what the pane knows of a removed node.
func (d *detailPane) forget(id uint64) { delete(d.details, id) }

// reload marks every loaded detail stale; they reload while shown.
func (d *detailPane) reload() { d.gen++ }

func (d *detailPane) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case detailMsg:
		if g, ok := d.pending[msg.id]; ok && g == msg.gen {
			delete(d.pending, msg.id)
		}
		if msg.err != nil {
			d.detailErr[msg.id] = msg.err
			delete(d.details, msg.id)
			return nil
		}
		delete(d.detailErr, msg.id)
		if len(d.details) > 512 {
			d.details = map[uint64]*detailData{}
		}
		d.details[msg.id] = msg.data
	case mdMsg:
		delete(d.mdPending, msg.key)
		if msg.err != nil {
			return common.Failure(msg.err)
		}
		if len(d.md) > 512 {
			d.md = map[mdKey]string{}
		}
		d.md[msg.key] = msg.out
	}
	return nil
}

// load asks for what showing node id needs and is not there yet.
func (d *detailPane) load(id uint64) tea.Cmd {
	var cmds []tea.Cmd
	dd, ok := d.details[id]
	if (!ok || dd.gen != d.gen) && d.detailErr[id] == nil {
		if g, busy := d.pending[id]; !busy || g != d.gen {
			d.pending[id] = d.gen
			cmds = append(cmds, d.detailCmd(id, d.gen))
		}
	}
	if ok {
		key := d.mdKeyFor(dd.node)
		if _, have := d.md[key]; !have && !d.mdPending[key] {
			d.mdPending[key] = true
			cmds = append(cmds, mdCmd(key, markdownSource(dd.node)))
		}
	}
	return tea.Batch(cmds...)
}

func (d *detailPane) mdKeyFor(n engvault.Node) mdKey {
	return mdKey{id: n.ID, updated: n.UpdatedAt.UnixNano(), width: d.innerWidth(), dark: d.c.Styles.Dark}
}

// key handles the keys of the focused detail; it reports whether it used k.
func (d *detailPane) key(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := d.c.KeyMap
	d.syncLinks()
	dd := d.details[d.id]
	nLinks := 0
	if dd != nil {
		nLinks = len(dd.links)
	}
	switch {
	case key.Matches(k, km.Up, km.Down, km.Bottom) && nLinks > 0:
		_, _ = d.links.HandleKey(k) // a static list fetches nothing
		d.followLink = true
	case key.Matches(k, km.Up):
		d.scroll = max(0, d.scroll-1)
	case key.Matches(k, km.Down):
		d.scroll++
	case key.Matches(k, km.PageUp):
		d.scroll = max(0, d.scroll-max(1, d.bodyHeight()-1))
		d.followLink = false
	case key.Matches(k, km.PageDown):
		d.scroll += max(1, d.bodyHeight()-1)
		d.followLink = false
	case key.Matches(k, km.Top):
		d.scroll = 0
		d.links.SetCursor(0)
	case key.Matches(k, km.Enter):
		if l, ok := d.links.Selected(); ok && dd != nil && nLinks > 0 {
			return send(jumpMsg{id: l.node.ID}), true
		}
	case key.Matches(k, km.Back, d.keys.HistoryBack):
		return send(backMsg{}), true
	default:
		return nil, false
	}
	d.fixScroll()
	return nil, true
}

// renderLink draws one link: its relation (on the first link of each
// relation), the direction, and the node at the other end.
func (d *detailPane) renderLink(l linkRow, i int, selected, _ bool, w int) string {
	s := d.c.Styles
	rel := ""
	// The relation heads its group, and the first row in view.
	if dd := d.rendering; dd == nil || i == 0 || i >= len(dd.links) || dd.links[i-1].rel != l.rel || (!d.static && i == d.links.Top()) {
		rel = string(l.rel)
	}
	st := s.EdgeLabel
	if l.rel == engvault.Contradicts {
		st = s.EdgeConflict
	}
	relText := st.Render(rel) + strings.Repeat(" ", max(0, d.relW-lipgloss.Width(rel)))
	arrow := s.Tree.Render(" ─▶ ")
	if !l.out {
		arrow = s.Tree.Render(" ◀─ ")
	}
	head := relText + arrow + d.badge(l.node.Type) + " "
	text := clip(fmt.Sprintf("#%d %s", l.node.ID, label(l.node)), max(4, w-lipgloss.Width(head)))
	if selected {
		return head + s.Selected.Render(text)
	}
	return head + s.Text.Render(text)
}

// ---- commands --------------------------------------------------------------

func (d *detailPane) detailCmd(id uint64, gen int) tea.Cmd {
	src, ctx := d.src, d.ctx()
	return func() tea.Msg {
		n, err := src.GetNode(ctx, id)
		if err != nil {
			return detailMsg{gen: gen, id: id, err: err}
		}
		groups, err := src.NodeNeighbours(ctx, id)
		if err != nil {
			return detailMsg{gen: gen, id: id, err: err}
		}
		dd := &detailData{gen: gen, node: n, groups: groups}
		for _, g := range groups {
			for _, l := range g.Out {
				dd.links = append(dd.links, linkRow{rel: g.Relation, out: true, edge: l.Edge, node: l.Node})
			}
			for _, l := range g.In {
				dd.links = append(dd.links, linkRow{rel: g.Relation, out: false, edge: l.Edge, node: l.Node})
			}
		}
		return detailMsg{gen: gen, id: id, data: dd}
	}
}

// markdownSource is the text of a node the detail pane renders.
func markdownSource(n engvault.Node) string {
	src := n.Content
	if n.Body != "" {
		src += "\n\n" + n.Body
	}
	// A tab is one byte to width computations but up to eight cells on the
	// terminal: expand it so the pane's border stays in place.
	return strings.ReplaceAll(src, "\t", "    ")
}

func mdCmd(key mdKey, src string) tea.Cmd {
	return func() tea.Msg {
		out, err := markdown.Render(src, key.width, key.dark)
		return mdMsg{key: key, out: out, err: err}
	}
}

// ---- view ------------------------------------------------------------------

// panel draws node id's detail in the pane's panel.
func (d *detailPane) panel(id uint64, focused bool) string {
	s := d.c.Styles
	w, h := d.width, d.height
	inner := w - 4
	var body string
	switch dd := d.details[id]; {
	case id == 0:
		body = d.c.Empty("Nothing selected.", "")
	case dd == nil && d.detailErr[id] != nil:
		body = s.Error.Render(lipgloss.Wrap(fmt.Sprintf("#%d: %v", id, d.detailErr[id]), inner, " "))
	case dd == nil:
		body = s.Subtle.Render("loading…")
	default:
		lines, cursorAt := d.lines(dd, inner, focused && id == d.id)
		scroll := d.effectiveScroll(lines, cursorAt, h-2, focused)
		body = strings.Join(lines[min(scroll, len(lines)):], "\n")
	}
	return d.box(body, w, h, focused)
}

// effectiveScroll is the detail's scroll clamped to its content and moved
// so the chosen link (at line at, -1: none) is visible.
func (d *detailPane) effectiveScroll(lines []string, at, h int, focused bool) int {
	scroll := d.scroll
	if focused && d.followLink && at >= 0 {
		if at < scroll {
			scroll = at - 1
		}
		if at >= scroll+h {
			scroll = at - h + 1
		}
	}
	return min(max(0, scroll), max(0, len(lines)-h))
}

// fixScroll stores the effective scroll after a detail key, so page keys
// start from what is on screen.
func (d *detailPane) fixScroll() {
	if dd := d.details[d.id]; dd != nil {
		lines, at := d.lines(dd, d.innerWidth(), true)
		d.scroll = d.effectiveScroll(lines, at, d.bodyHeight(), true)
	}
}

// lines renders a node's detail; cursorAt is the line of the chosen link
// (-1: none). Only the focused node's links are a list with a cursor; a
// preview lists them as they are.
func (d *detailPane) lines(dd *detailData, w int, focused bool) (lines []string, cursorAt int) {
	cursorAt = -1
	s := d.c.Styles
	n := dd.node
	add := func(l string) { lines = append(lines, ansi.Truncate(l, w, "…")) }
	head := d.badge(n.Type) + " " + s.Muted.Render(fmt.Sprintf("#%d", n.ID)) + " "
	titleW := max(4, w-lipgloss.Width(head))
	for i, l := range strings.Split(lipgloss.Wrap(label(n), titleW, " "), "\n") {
		if i == 0 {
			add(head + s.Bold.Render(l))
		} else {
			add(strings.Repeat(" ", lipgloss.Width(head)) + s.Bold.Render(l))
		}
	}
	meta := s.Bar(n.Confidence, 10) + " " + s.Text.Render(fmt.Sprintf("%.2f", n.Confidence)) +
		s.Muted.Render(" confidence · ") + s.Success.Render(fmt.Sprintf("✓%d", n.HelpfulCount)) + s.Muted.Render(" helpful")
	add(meta)
	if len(n.Tags) > 0 {
		add(s.Secondary.Render(clip("#"+strings.Join(n.Tags, " #"), w)))
	}
	scope := s.Text.Render("workspace")
	if n.IsGlobal {
		scope = s.Info.Render("global wisdom")
	}
	add(s.Subtle.Render("source ") + s.Text.Render(clip(n.Source, max(4, w-40))) + s.Subtle.Render(" · user ") + s.Text.Render(n.UserID) + s.Subtle.Render(" · scope ") + scope)
	if a := n.TeamAuthor(); a != "" {
		add(s.Info.Render("shared by teammate "+a) + s.Subtle.Render(" · version ") + s.Text.Render(clip(n.Meta[engvault.MetaTeamVersion], 12)))
		if n.Meta[engvault.MetaTeamNewer] != "" {
			add(s.Warning.Render("edited here: the teammate's newer version is not applied"))
		}
	}
	when := s.Subtle.Render("created ") + s.Text.Render(fmtTime(n.CreatedAt)) + s.Subtle.Render(" · updated ") + s.Text.Render(fmtTime(n.UpdatedAt))
	if n.Language != "" {
		when += s.Subtle.Render(" · ") + s.Text.Render(n.Language)
	}
	add(when)
	add("")
	// Links, grouped by relation.
	if len(dd.links) == 0 {
		add(s.Subtitle.Render("Links") + s.Subtle.Render("  none yet · L links this node to another"))
	} else {
		add(s.Subtitle.Render("Links") + s.Subtle.Render(fmt.Sprintf(" (%d)", len(dd.links))))
		d.relW = 0
		for _, l := range dd.links {
			d.relW = max(d.relW, lipgloss.Width(string(l.rel)))
		}
		d.rendering = dd
		if focused && dd == d.details[d.id] {
			d.syncLinks()
			start := len(lines)
			lines = append(lines, strings.Split(d.links.ViewNoted(w, min(len(dd.links), d.maxLinkRows())), "\n")...)
			cursorAt = start + d.links.Cursor() - d.links.Top()
		} else {
			d.static = true
			for i, l := range dd.links {
				add("  " + d.renderLink(l, i, false, false, w-2))
			}
			d.static = false
		}
	}
	add("")
	// Content and body, rendered as markdown (plain until it arrives).
	if md, ok := d.md[mdKey{id: n.ID, updated: n.UpdatedAt.UnixNano(), width: w, dark: s.Dark}]; ok {
		lines = append(lines, strings.Split(md, "\n")...)
	} else {
		for _, l := range strings.Split(lipgloss.Wrap(markdownSource(n), w, " "), "\n") {
			add(s.Text.Render(l))
		}
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = ansi.Truncate(l, w, "…")
		}
	}
	return lines, cursorAt
}
