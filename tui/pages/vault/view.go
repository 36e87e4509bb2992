package vault

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
)

// ---- layout --------------------------------------------------------------

// topLines are the tab and search lines above the panels.
const topLines = 2

func (m *Model) listPanelWidth() int {
	if m.wide() {
		return m.width * 11 / 20
	}
	return m.width
}

func (m *Model) detailPanelWidth() int {
	if m.wide() {
		return m.width - m.listPanelWidth()
	}
	return m.width
}

func (m *Model) panelHeight() int { return max(3, m.height-topLines) }

func (m *Model) detailInnerWidth() int { return max(10, m.detailPanelWidth()-4) }

func (m *Model) pickDialogWidth() int { return min(88, max(40, m.width-6)) }

func (m *Model) pickRows() int { return max(3, min(12, m.height-14)) }

func (m *Model) layout() {
	inner := max(1, m.listPanelWidth()-4)
	rows := max(1, m.panelHeight()-2-1) // border, header line
	m.browse.SetSize(inner, rows)
	m.results.SetSize(inner, rows)
	m.graph.SetSize(max(1, m.width-4), max(1, m.panelHeight()-2))
	pw := m.pickDialogWidth() - 6
	m.picker.SetSize(pw, m.pickRows())
	m.pickAll.SetSize(pw, m.pickRows())
	m.search.SetWidth(max(10, m.width/2))
	m.pickInput.SetWidth(max(10, pw-4))
	m.tagsInput.SetWidth(max(10, min(60, m.width-16)))
	m.confirm.SetSize(m.width, m.height)
	m.lastDetailH = max(1, m.panelHeight()-2)
}

// ---- pieces ----------------------------------------------------------------

// box draws body in a rounded panel of exactly w×h cells, focused or not.
// lipgloss's Style.Render would do the same but wraps and re-measures every
// line; the panels here hold lines already cut to size and are drawn on
// every frame, so the border is put around them directly.
func (m *Model) box(body string, w, h int, focused bool) string {
	s := m.c.Styles
	panel := s.Panel
	if focused {
		panel = s.PanelFocused
	}
	bs := lipgloss.NewStyle().Foreground(panel.GetBorderTopForeground())
	b := lipgloss.RoundedBorder()
	inner := max(0, w-4)
	lines := strings.Split(body, "\n")
	var out strings.Builder
	out.WriteString(bs.Render(b.TopLeft+strings.Repeat(b.Top, max(0, w-2))+b.TopRight) + "\n")
	left, right := bs.Render(b.Left)+" ", " "+bs.Render(b.Right)
	for i := 0; i < h-2; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		lw := ansi.StringWidth(l)
		if lw > inner {
			l, lw = ansi.Truncate(l, inner, "…"), inner
		}
		out.WriteString(left + l + strings.Repeat(" ", inner-lw) + right + "\n")
	}
	out.WriteString(bs.Render(b.BottomLeft + strings.Repeat(b.Bottom, max(0, w-2)) + b.BottomRight))
	return out.String()
}

var shortType = map[engvault.NodeType]string{
	engvault.Strategy:   "STR",
	engvault.Mistake:    "MIS",
	engvault.Preference: "PRF",
	engvault.Pattern:    "PAT",
	engvault.Decision:   "DEC",
}

// badge draws a node type as a coloured three-letter badge (5 cells).
func (m *Model) badge(t engvault.NodeType) string {
	s := m.c.Styles
	label, ok := shortType[t]
	if !ok {
		return s.BadgeMuted.Render("???")
	}
	switch t {
	case engvault.Strategy:
		return s.BadgeInfo.Render(label)
	case engvault.Mistake:
		return s.BadgeErr.Render(label)
	case engvault.Preference:
		return s.BadgeAccent.Render(label)
	case engvault.Decision:
		return s.BadgeWarn.Render(label)
	}
	return s.Badge.Render(label)
}

// clip cuts plain text to w cells (one line) with an ellipsis. Unlike
// common.Truncate it is a single pass, which matters for list rows.
func clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = strings.Join(strings.Fields(s), " ")
	return ansi.Truncate(s, w, "…")
}

// pad right-pads a styled string to w cells.
func pad(s string, w int) string {
	if d := w - lipgloss.Width(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

func label(n engvault.Node) string {
	if n.Title != "" {
		return n.Title
	}
	return firstLine(n.Content)
}

// count formats n with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	if n < 10000 && n > -10000 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// compact formats n in at most four cells (12k, 2.3k).
func compact(n int) string {
	switch {
	case n >= 100_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return strconv.Itoa(n)
}

// rowKey identifies one rendering of a list row.
type rowKey struct {
	id, updated       int64
	conf, score       float64
	helpful           int
	typ, title, text  string
	tags, theme       string
	w                 int
	selected, focused bool
}

// maxRowCache bounds the rendered rows kept (a few screens' worth).
const maxRowCache = 4096

// renderRow draws one node of the list; rows are cached, so a frame only
// renders the rows that changed or scrolled in.
func (m *Model) renderRow(r row, i int, selected, focused bool, w int) string {
	n := &r.node
	k := rowKey{id: int64(n.ID), updated: n.UpdatedAt.UnixNano(), conf: n.Confidence, score: r.score, helpful: n.HelpfulCount,
		typ: string(n.Type), title: n.Title, text: n.Content, tags: strings.Join(n.Tags, ","), theme: m.c.Styles.Name,
		w: w, selected: selected, focused: focused}
	if out, ok := m.rows[k]; ok {
		return out
	}
	out := m.drawRow(r, selected, focused, w)
	if len(m.rows) >= maxRowCache {
		clear(m.rows)
	}
	m.rows[k] = out
	return out
}

func (m *Model) drawRow(r row, selected, focused bool, w int) string {
	s := m.c.Styles
	n := r.node
	marker := " "
	if selected {
		if focused {
			marker = s.Cursor.Render("▌")
		} else {
			marker = s.Muted.Render("›")
		}
	}
	barW, tagW := 8, 0
	switch {
	case w >= 100:
		tagW = min(28, w/5)
	case w >= 72:
		tagW = 14
	case w < 60:
		barW = 4
	}
	right := s.Bar(n.Confidence, barW) + " " + s.Muted.Render(fmt.Sprintf("%.2f", n.Confidence)) + " " +
		s.Success.Render(pad(fmt.Sprintf("✓%d", n.HelpfulCount), 4))
	rightW := barW + 1 + 4 + 1 + 4
	if r.score >= 0 {
		right = s.Info.Render(fmt.Sprintf("%.2f", r.score)) + " " + right
		rightW += 5
	}
	if tagW > 0 {
		tags := ""
		if len(n.Tags) > 0 {
			tags = "#" + strings.Join(n.Tags, " #")
		}
		right += " " + s.Secondary.Render(pad(clip(tags, tagW), tagW))
		rightW += 1 + tagW
	}
	textW := max(4, w-1-1-5-1-1-rightW)
	title := clip(label(n), textW)
	var text string
	rest := textW - lipgloss.Width(title)
	detail := ""
	if n.Title != "" && rest > 6 {
		detail = clip(n.Content, rest-2)
	}
	if selected && focused {
		plain := title
		if detail != "" {
			plain += "  " + detail
		}
		text = s.Selected.Render(pad(plain, textW))
	} else {
		text = s.Text.Render(title)
		if detail != "" {
			text += "  " + s.Subtle.Render(detail)
		}
		text = pad(text, textW)
	}
	line := marker + " " + m.badge(n.Type) + " " + text + " " + right
	// The list trusts rows to be exactly w cells (vlist.SetExactRows).
	if lw := lipgloss.Width(line); lw > w {
		line = ansi.Truncate(line, w, "…")
	} else if lw < w {
		line += strings.Repeat(" ", w-lw)
	}
	return line
}

// renderPickRow draws a node in the link picker.
func (m *Model) renderPickRow(r row, _ int, selected, _ bool, w int) string {
	s := m.c.Styles
	n := r.node
	id := fmt.Sprintf("#%d ", n.ID)
	text := clip(id+label(n), max(4, w-8))
	if n.ID == m.linkFrom {
		text = clip(id+"(this node) "+label(n), max(4, w-8))
	}
	if selected {
		return s.Cursor.Render("▌") + " " + m.badge(n.Type) + " " + s.Selected.Render(pad(text, max(4, w-8)))
	}
	return "  " + m.badge(n.Type) + " " + s.Text.Render(text)
}

// ---- view ------------------------------------------------------------------

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	s := m.c.Styles
	if m.src == nil {
		return s.Panel.Width(m.width).Render(m.c.Empty("The vault is not available.", "This workspace does not offer a taste vault."))
	}
	var out string
	switch m.view {
	case viewGraph:
		out = m.graphView()
	case viewConflicts:
		out = m.conflictsView()
	default:
		out = m.browseView()
	}
	out = common.FitHeight(out, m.height)
	switch {
	case m.confirm.Active():
		out = common.Overlay(out, m.confirm.View(), m.width, m.height)
	case m.dlg == dlgPick:
		out = common.Overlay(out, m.pickView(), m.width, m.height)
	case m.dlg == dlgRelation:
		out = common.Overlay(out, m.relationView(), m.width, m.height)
	case m.dlg == dlgTags:
		out = common.Overlay(out, m.tagsView(), m.width, m.height)
	}
	return out
}

func (m *Model) browseView() string {
	top := m.tabsView() + "\n" + m.searchLine()
	ph := m.panelHeight()
	if !m.wide() {
		if m.focusDetail {
			return top + "\n" + m.detailPanel(m.width, ph, true)
		}
		return top + "\n" + m.listPanel(m.width, ph)
	}
	left := strings.Split(m.listPanel(m.listPanelWidth(), ph), "\n")
	right := strings.Split(m.detailPanel(m.detailPanelWidth(), ph, m.focusDetail), "\n")
	// Both panels are exactly ph lines of their width: join them line by
	// line (lipgloss.JoinHorizontal would measure every line again).
	var b strings.Builder
	b.WriteString(top)
	for i := range min(len(left), len(right)) {
		b.WriteString("\n" + left[i] + right[i])
	}
	return b.String()
}

func (m *Model) tabsView() string {
	s := m.c.Styles
	type tab struct {
		name, short string
		n           int
	}
	tabs := []tab{{"All", "All", -1}}
	for _, t := range engvault.NodeTypes() {
		tabs = append(tabs, tab{string(t), shortType[t], -1})
	}
	if m.stats != nil {
		tabs[0].n = m.stats.Nodes
		for i, t := range engvault.NodeTypes() {
			tabs[i+1].n = m.stats.ByType[string(t)]
		}
	}
	render := func(short bool, num func(int) string) string {
		parts := make([]string, len(tabs))
		for i, t := range tabs {
			name := t.name
			if short {
				name = t.short
			}
			n := "…"
			if t.n >= 0 {
				n = num(t.n)
			}
			st := s.Tab
			if i == m.tab {
				st = s.TabActive
			}
			parts[i] = st.Render(name + " " + n)
		}
		return strings.Join(parts, s.TabSep.Render("│"))
	}
	line := render(false, count)
	if lipgloss.Width(line) > m.width {
		line = render(false, compact)
	}
	if lipgloss.Width(line) > m.width {
		line = render(true, compact)
	}
	return ansi.Truncate(line, m.width, "…")
}

func (m *Model) searchLine() string {
	s := m.c.Styles
	var left string
	switch {
	case m.search.Focused():
		left = m.search.View()
	case m.query != "":
		left = s.Primary.Render("/ ") + s.Text.Render(m.query) + s.Subtle.Render("  esc clears")
	default:
		left = s.Subtle.Render("/ search the vault…")
	}
	var right string
	switch {
	case m.searching:
		right = s.Muted.Render("searching…")
	case m.query != "":
		word := "results"
		if m.results.Len() == 1 {
			word = "result"
		}
		right = s.Muted.Render(fmt.Sprintf("%s ranked %s", count(m.results.Len()), word))
	case m.stats != nil:
		right = s.Muted.Render("newest first")
	}
	gap := m.width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return ansi.Truncate(left, m.width, "…")
	}
	return left + strings.Repeat(" ", gap) + right
}

func (m *Model) listPanel(w, h int) string {
	s := m.c.Styles
	l := m.list()
	focused := !m.focusDetail && !m.search.Focused()
	l.SetFocused(focused)
	inner := w - 4
	title := s.PanelTitle
	if focused {
		title = s.PanelTitleActive
	}
	name := "Nodes"
	if m.query != "" {
		name = "Results"
	}
	if m.tab > 0 {
		name += " · " + string(m.tabType())
	}
	pos := ""
	if n := l.Len(); n > 0 {
		pos = fmt.Sprintf("%s/%s", count(l.Cursor()+1), count(n))
	}
	head := title.Render(name)
	if gap := inner - lipgloss.Width(head) - len(pos); gap > 0 {
		head += strings.Repeat(" ", gap) + s.Muted.Render(pos)
	}
	var body string
	switch {
	case l.Len() == 0 && !l.Loading():
		body = m.emptyList(inner)
	default:
		body = l.View()
	}
	return m.box(head+"\n"+body, w, h, focused)
}

func (m *Model) emptyList(w int) string {
	switch {
	case m.query != "":
		return m.c.Empty(clip(fmt.Sprintf("No node matches “%s”.", m.query), w), "Try other words, or esc to clear the search.")
	case m.tab > 0 && m.stats != nil && m.stats.Nodes > 0:
		return m.c.Empty(fmt.Sprintf("No %s nodes yet.", m.tabType()), "←/→ switch the type.")
	case m.browse.Err() != nil:
		return m.c.Styles.Error.Render(clip("Could not read the vault: "+m.browse.Err().Error(), w))
	}
	hint := lipgloss.Wrap("Import a pattern library: ctrl+p → Import, or run `nova import DIR` (a JSONL dump: `nova vault import FILE.jsonl`). Builds add what they learn.", w, " ")
	return m.c.Empty("The vault is empty.", hint)
}

// detailPanel draws the detail of the detail target in a w×h panel.
func (m *Model) detailPanel(w, h int, focused bool) string {
	s := m.c.Styles
	inner := w - 4
	id := m.detailTarget()
	var body string
	switch d := m.details[id]; {
	case id == 0:
		body = m.c.Empty("Nothing selected.", "")
	case d == nil && m.detailErr[id] != nil:
		body = s.Error.Render(lipgloss.Wrap(fmt.Sprintf("#%d: %v", id, m.detailErr[id]), inner, " "))
	case d == nil:
		body = s.Subtle.Render("loading…")
	default:
		lines, linkAt := m.detailLines(d, inner, focused)
		scroll := m.effectiveScroll(lines, linkAt, h-2, focused)
		body = strings.Join(lines[min(scroll, len(lines)):], "\n")
	}
	return m.box(body, w, h, focused)
}

// effectiveScroll is the detail's scroll clamped to its content and moved
// so the chosen link is visible.
func (m *Model) effectiveScroll(lines []string, linkAt []int, h int, focused bool) int {
	scroll := m.scroll
	if focused && m.followLink && m.linkCursor < len(linkAt) {
		at := linkAt[m.linkCursor]
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
func (m *Model) fixScroll() {
	if d := m.details[m.detailID]; d != nil {
		lines, linkAt := m.detailLines(d, m.detailInnerWidth(), true)
		m.scroll = m.effectiveScroll(lines, linkAt, m.lastDetailH, true)
	}
}

// detailLines renders a node's detail; linkAt gives the line of each link.
func (m *Model) detailLines(d *detailData, w int, focused bool) (lines []string, linkAt []int) {
	s := m.c.Styles
	n := d.node
	add := func(l string) { lines = append(lines, ansi.Truncate(l, w, "…")) }
	head := m.badge(n.Type) + " " + s.Muted.Render(fmt.Sprintf("#%d", n.ID)) + " "
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
	when := s.Subtle.Render("created ") + s.Text.Render(fmtTime(n.CreatedAt)) + s.Subtle.Render(" · updated ") + s.Text.Render(fmtTime(n.UpdatedAt))
	if n.Language != "" {
		when += s.Subtle.Render(" · ") + s.Text.Render(n.Language)
	}
	add(when)
	add("")
	// Links, grouped by relation.
	if len(d.links) == 0 {
		add(s.Subtitle.Render("Links") + s.Subtle.Render("  none yet · L links this node to another"))
	} else {
		add(s.Subtitle.Render("Links") + s.Subtle.Render(fmt.Sprintf(" (%d)", len(d.links))))
		var rel engvault.Relation
		for i, l := range d.links {
			if l.rel != rel {
				rel = l.rel
				st := s.EdgeLabel
				if rel == engvault.Contradicts {
					st = s.EdgeConflict
				}
				add(" " + st.Render(string(rel)))
			}
			arrow := s.Tree.Render("─▶ ")
			if !l.out {
				arrow = s.Tree.Render("◀─ ")
			}
			text := clip(fmt.Sprintf("#%d %s", l.node.ID, label(l.node)), max(4, w-13))
			sel := focused && i == m.linkCursor
			marker := "  "
			if sel {
				marker = s.Cursor.Render("▌") + " "
				text = s.Selected.Render(text)
			} else {
				text = s.Text.Render(text)
			}
			linkAt = append(linkAt, len(lines))
			add(marker + " " + arrow + m.badge(l.node.Type) + " " + text)
		}
	}
	add("")
	// Content and body, rendered as markdown (plain until it arrives).
	if md, ok := m.md[mdKey{id: n.ID, updated: n.UpdatedAt.UnixNano(), width: w, dark: s.Dark}]; ok {
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
	return lines, linkAt
}

// ---- graph -----------------------------------------------------------------

func (m *Model) graphView() string {
	s := m.c.Styles
	root, _ := m.nodeByID(m.graphRoot)
	for _, n := range m.graphNodes {
		if n.ID == m.graphRoot {
			root = n
		}
	}
	head := s.Title.Render("Graph") + " " + m.badge(root.Type) + " " + s.Bold.Render(clip(fmt.Sprintf("#%d %s", root.ID, label(root)), max(10, m.width/2)))
	nodes, _, refs := m.graph.Stats()
	info := fmt.Sprintf("depth %d · %d nodes", m.graphDepth, nodes)
	if refs > 0 {
		info += fmt.Sprintf(" · %d ↺", refs)
	}
	if nodes >= graphLimit {
		info += " · first " + strconv.Itoa(graphLimit)
	}
	if m.graphLoading {
		info += " · loading…"
	}
	headLine := head
	if gap := m.width - lipgloss.Width(head) - lipgloss.Width(info); gap > 0 {
		headLine += strings.Repeat(" ", gap) + s.Muted.Render(info)
	}
	legend := s.Tree.Render("─▶") + s.Subtle.Render(" out · ") + s.Tree.Render("◀─") + s.Subtle.Render(" in · ") +
		s.EdgeConflict.Render("contradicts") + s.Subtle.Render(" · ↺ cycle (shown once) · +/- or 1–5 depth · enter opens · esc back")
	var body string
	switch {
	case m.graphErr != nil:
		body = s.Error.Render(clip(m.graphErr.Error(), m.width-4))
	case m.graph.Lines() == 0:
		body = s.Subtle.Render("loading…")
	case m.graph.Lines() == 1:
		body = m.graph.View() // the root
		body = common.FitHeight(body, 2) + "\n" + s.Muted.Render("No links within depth "+strconv.Itoa(m.graphDepth)+". L links this node to another.")
	default:
		body = m.graph.View()
	}
	panel := m.box(body, m.width, m.panelHeight(), true)
	return ansi.Truncate(headLine, m.width, "…") + "\n" + ansi.Truncate(legend, m.width, "…") + "\n" + panel
}

// ---- conflicts -------------------------------------------------------------

func (m *Model) conflictsView() string {
	s := m.c.Styles
	head := s.Title.Render("Conflicts")
	info := ""
	switch {
	case !m.cfLoaded:
		info = "loading…"
	default:
		info = fmt.Sprintf("%d contradicting pair(s)", len(m.conflicts))
	}
	headLine := head + "  " + s.Muted.Render(info)
	hint := s.Subtle.Render("↑/↓ pair · ←/→ side · enter opens · +/- d t L act on the chosen side · c or esc closes")
	top := ansi.Truncate(headLine, m.width, "…") + "\n" + ansi.Truncate(hint, m.width, "…")
	avail := m.panelHeight()
	if m.cfErr != nil {
		return top + "\n" + s.Error.Render(clip(m.cfErr.Error(), m.width))
	}
	if m.cfLoaded && len(m.conflicts) == 0 {
		return top + "\n" + s.Panel.Width(m.width).Render(m.c.Empty("No conflicts.",
			lipgloss.Wrap("Two nodes linked by “contradicts” show up here side by side. The vault links them when it learns a node that contradicts another, or link them yourself with L.", m.width-4, " ")))
	}
	cl := 3
	if m.height >= 30 {
		cl = 6
	}
	bh := 1 + 2 + 2 + cl
	per := max(1, avail/bh)
	first := max(0, m.cfCursor-per+1)
	var blocks []string
	for i := first; i < len(m.conflicts) && i < first+per; i++ {
		blocks = append(blocks, m.conflictBlock(i, cl))
	}
	return top + "\n" + strings.Join(blocks, "\n")
}

func (m *Model) conflictBlock(i, cl int) string {
	s := m.c.Styles
	c := m.conflicts[i]
	sel := i == m.cfCursor
	marker := "  "
	if sel {
		marker = s.Cursor.Render("▌") + " "
	}
	head := marker + s.Muted.Render(fmt.Sprintf("%d/%d ", i+1, len(m.conflicts))) + s.EdgeConflict.Render("contradicts") +
		s.Subtle.Render(fmt.Sprintf(" · #%d ─▶ #%d · strength %.2f", c.A.ID, c.B.ID, c.Edge.Strength))
	lw := (m.width - 1) / 2
	rw := m.width - 1 - lw
	side := func(n engvault.Node, w int, focused bool) string {
		inner := w - 4
		var b strings.Builder
		b.WriteString(m.badge(n.Type) + " " + s.Bold.Render(clip(fmt.Sprintf("#%d %s", n.ID, label(n)), inner-6)) + "\n")
		b.WriteString(s.Bar(n.Confidence, 8) + " " + s.Muted.Render(fmt.Sprintf("%.2f · ✓%d · %s", n.Confidence, n.HelpfulCount, n.Source)) + "\n")
		wrapped := strings.Split(lipgloss.Wrap(strings.Join(strings.Fields(n.Content), " "), inner, " "), "\n")
		if len(wrapped) > cl {
			wrapped = wrapped[:cl]
			wrapped[cl-1] = clip(wrapped[cl-1]+" …", inner)
		}
		for j, l := range wrapped {
			if j > 0 {
				b.WriteString("\n")
			}
			b.WriteString(s.Text.Render(l))
		}
		panel := s.Panel
		if focused {
			panel = s.PanelFocused
		}
		lines := strings.Split(b.String(), "\n")
		for j, l := range lines {
			lines[j] = ansi.Truncate(l, inner, "…")
		}
		return panel.Width(w).Height(2 + 2 + cl).Render(common.FitHeight(strings.Join(lines, "\n"), 2+cl))
	}
	pair := lipgloss.JoinHorizontal(lipgloss.Top, side(c.A, lw, sel && m.cfSide == 0), " ", side(c.B, rw, sel && m.cfSide == 1))
	return ansi.Truncate(head, m.width, "…") + "\n" + pair
}

// ---- dialogs ---------------------------------------------------------------

func (m *Model) pickView() string {
	s := m.c.Styles
	w := m.pickDialogWidth()
	inner := w - 6
	from, _ := m.nodeByID(m.linkFrom)
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render(clip(fmt.Sprintf("Link #%d %s to…", from.ID, label(from)), inner)) + "\n")
	b.WriteString(m.pickInput.View() + "\n\n")
	l := m.pickList()
	switch {
	case l.Loading():
		b.WriteString(common.FitHeight(s.Subtle.Render("loading…"), m.pickRows()))
	case l.Len() == 0 && m.pickQuery == "":
		b.WriteString(common.FitHeight(s.Muted.Render("The vault has no other node."), m.pickRows()))
	default:
		b.WriteString(l.View())
	}
	b.WriteString("\n\n" + s.Subtle.Render(clip("type to search · ↑/↓ choose · enter picks · esc cancels", inner)))
	return s.Dialog.Width(w).Render(b.String())
}

var relationHelp = map[engvault.Relation]string{
	engvault.Supports:    "backs it up",
	engvault.Contradicts: "says the opposite",
	engvault.Refines:     "narrows or improves it",
	engvault.Replaces:    "supersedes it",
	engvault.DependsOn:   "needs it first",
}

func (m *Model) relationView() string {
	s := m.c.Styles
	w := m.pickDialogWidth()
	inner := w - 6
	from, _ := m.nodeByID(m.linkFrom)
	rels := engvault.Relations()
	rel := rels[m.relCursor]
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render("Choose the relation") + "\n\n")
	b.WriteString(m.badge(from.Type) + " " + s.Text.Render(clip(fmt.Sprintf("#%d %s", from.ID, label(from)), inner-6)) + "\n")
	st := s.EdgeLabel
	if rel == engvault.Contradicts {
		st = s.EdgeConflict
	}
	b.WriteString("  " + s.Tree.Render("─ ") + st.Render(string(rel)) + s.Tree.Render(" ─▶") + "\n")
	b.WriteString(m.badge(m.linkTo.Type) + " " + s.Text.Render(clip(fmt.Sprintf("#%d %s", m.linkTo.ID, label(m.linkTo)), inner-6)) + "\n\n")
	for i, r := range rels {
		line := ansi.Truncate(fmt.Sprintf("%d %-12s %s", i+1, r, relationHelp[r]), inner-2, "…")
		if i == m.relCursor {
			b.WriteString(s.Cursor.Render("▌") + " " + s.Selected.Render(pad(line, inner-2)) + "\n")
		} else {
			b.WriteString("  " + s.Text.Render(line) + "\n")
		}
	}
	b.WriteString("\n" + s.Subtle.Render(clip("↑/↓ or 1–5 choose · enter links · esc back to the picker", inner)))
	return s.Dialog.Width(w).Render(b.String())
}

func (m *Model) tagsView() string {
	s := m.c.Styles
	w := min(72, max(40, m.width-8))
	inner := w - 6
	n, _ := m.nodeByID(m.tagsFor)
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render(clip(fmt.Sprintf("Tags of #%d %s", n.ID, label(n)), inner)) + "\n\n")
	b.WriteString(m.tagsInput.View() + "\n\n")
	b.WriteString(s.Subtle.Render(clip("comma-separated · enter saves · esc cancels", inner)))
	return s.Dialog.Width(w).Render(b.String())
}
