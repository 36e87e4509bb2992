package vault

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// listPane is the node list: type tabs with counts, the search box (ranked
// results as you type, debounced) and a virtualised list of the nodes of
// the current tab, newest first, or of the search results.
type listPane struct {
	*shared
	width int // the page's width (tabs and search line)

	stats *engvault.Stats
	tab   int // 0 = all, then engvault.NodeTypes()

	browse  *vlist.Model[row]
	results *vlist.Model[row]

	search    textinput.Model
	query     string // the query whose results are shown ("" = browse)
	searchSeq int
	searching bool
	debounce  common.Debouncer // one timer per burst of keys

	rows map[rowKey]string // rendered rows
}

type statsMsg struct {
	stats engvault.Stats
	err   error
}

type searchMsg struct {
	seq     int
	query   string
	results []engvault.Scored
	err     error
}

// row is one list row: a node and, for search results, its score.
type row struct {
	node  engvault.Node
	score float64 // < 0 outside search results
}

func newListPane(sh *shared) *listPane {
	l := &listPane{shared: sh, rows: map[rowKey]string{}}
	l.browse = vlist.New(sh.c, l.renderRow)
	l.results = vlist.New(sh.c, l.renderRow)
	l.browse.SetExactRows(true)
	l.results.SetExactRows(true)
	l.search = newInput(sh.c, "search the vault…", "/ ")
	return l
}

func newInput(c *common.Common, placeholder, prompt string) textinput.Model {
	in := textinput.New()
	in.Placeholder = placeholder
	in.Prompt = prompt
	in.SetStyles(c.Styles.TextInput)
	return in
}

func (l *listPane) init() tea.Cmd {
	return tea.Batch(l.statsCmd(), l.browse.SetSource(listSource(l.src, "")))
}

// setSize sizes the list to a panel's inner width and rows; width is the
// page's.
func (l *listPane) setSize(width, inner, rows int) {
	l.width = width
	l.browse.SetSize(inner, rows)
	l.results.SetSize(inner, rows)
	l.search.SetWidth(max(10, width/2))
}

// tabType returns the node type of the current tab ("" for all).
func (l *listPane) tabType() engvault.NodeType {
	if l.tab == 0 {
		return ""
	}
	return engvault.NodeTypes()[l.tab-1]
}

// list returns the list on screen: search results or the browse list.
func (l *listPane) list() *vlist.Model[row] {
	if l.query != "" {
		return l.results
	}
	return l.browse
}

func (l *listPane) selected() (engvault.Node, bool) {
	r, ok := l.list().Selected()
	return r.node, ok
}

func (l *listPane) capturing() bool { return l.search.Focused() }

func (l *listPane) focusSearch() tea.Cmd { return l.search.Focus() }

func (l *listPane) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case statsMsg:
		if msg.err != nil {
			return common.Failure(fmt.Errorf("vault stats: %w", msg.err))
		}
		st := msg.stats
		l.stats = &st
		return nil
	case common.DebounceMsg:
		if msg.Key != searchKey {
			return nil
		}
		if ready, cmd := l.debounce.Fire(msg, l.now()); !ready {
			return cmd
		}
		q := strings.TrimSpace(l.search.Value())
		if q == "" {
			return nil
		}
		l.searching = true
		return l.searchCmd(l.searchSeq, q, l.tabType())
	case searchMsg:
		if msg.seq != l.searchSeq {
			return nil // a newer query is on its way
		}
		l.searching = false
		if msg.err != nil {
			return common.Failure(fmt.Errorf("search %q: %w", msg.query, msg.err))
		}
		l.query = msg.query
		l.results.SetRows(searchRows(msg.results))
		l.results.SetEmptyText(fmt.Sprintf("No node matches “%s”.", msg.query))
		return nil
	}
	// Pages of the lists, the search box's cursor blinks.
	_, c1 := l.browse.Update(msg)
	_, c2 := l.results.Update(msg)
	var c3 tea.Cmd
	if l.search.Focused() {
		l.search, c3 = l.search.Update(msg)
	}
	return tea.Batch(c1, c2, c3)
}

// refresh reloads the counts, the list and the search results.
func (l *listPane) refresh() tea.Cmd {
	cmds := []tea.Cmd{l.statsCmd(), l.browse.Refresh()}
	if l.query != "" {
		l.searchSeq++
		cmds = append(cmds, l.searchCmd(l.searchSeq, l.query, l.tabType()))
	}
	return tea.Batch(cmds...)
}

func (l *listPane) keySearch(k tea.KeyPressMsg) tea.Cmd {
	km := l.c.KeyMap
	switch k.String() {
	case "esc":
		l.search.Blur()
		l.search.SetValue("")
		l.searchSeq++ // drop a search in flight
		l.debounce.Stop()
		l.query, l.searching = "", false
		return nil
	case "enter":
		l.search.Blur()
		return nil
	case "up", "down", "pgup", "pgdown":
		_, cmd := l.list().HandleKey(k)
		return cmd
	}
	if key.Matches(k, km.Tab) {
		l.search.Blur()
		return nil
	}
	before := l.search.Value()
	var cmd tea.Cmd
	l.search, cmd = l.search.Update(k)
	if l.search.Value() == before {
		return cmd
	}
	l.searchSeq++
	if strings.TrimSpace(l.search.Value()) == "" {
		l.debounce.Stop()
		l.query, l.searching = "", false
		return cmd
	}
	return tea.Batch(cmd, l.debounce.Trigger(searchKey, searchDebounce, l.now()))
}

// key handles the list's own keys (moving, type tabs, esc clearing the
// search); it reports whether it used k.
func (l *listPane) key(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := l.c.KeyMap
	if ok, cmd := l.list().HandleKey(k); ok {
		return cmd, true
	}
	switch {
	case key.Matches(k, km.Left, km.Right):
		n := len(engvault.NodeTypes()) + 1
		if key.Matches(k, km.Left) {
			l.tab = (l.tab + n - 1) % n
		} else {
			l.tab = (l.tab + 1) % n
		}
		cmds := []tea.Cmd{l.browse.SetSource(listSource(l.src, l.tabType()))}
		if l.query != "" {
			l.searchSeq++
			cmds = append(cmds, l.searchCmd(l.searchSeq, l.query, l.tabType()))
		}
		return tea.Batch(cmds...), true
	case key.Matches(k, km.Back):
		if l.query != "" {
			l.search.SetValue("")
			l.searchSeq++
			l.query = ""
		}
		return nil, true
	}
	return nil, false
}

// ---- commands --------------------------------------------------------------

func (l *listPane) statsCmd() tea.Cmd {
	src, ctx := l.src, l.ctx()
	return func() tea.Msg {
		st, err := src.VaultStats(ctx)
		return statsMsg{stats: st, err: err}
	}
}

// listSource pages the vault, newest first, optionally of one type.
func listSource(src Source, t engvault.NodeType) vlist.Source[row] {
	return vlist.SourceFunc[row](func(ctx context.Context, off, lim int) ([]row, int, error) {
		p, err := src.ListNodes(ctx, engvault.ListOptions{Type: t, Offset: off, Limit: lim, Newest: true})
		if err != nil {
			return nil, 0, err
		}
		rows := make([]row, len(p.Nodes))
		for i, n := range p.Nodes {
			rows[i] = row{node: n, score: -1}
		}
		return rows, p.Total, nil
	})
}

// searchKey names the search's debounce ticks.
const searchKey = "vault.search"

// searchLimit bounds the ranked results shown for a query.
const searchLimit = 200

func searchRows(res []engvault.Scored) []row {
	rows := make([]row, len(res))
	for i, r := range res {
		rows[i] = row{node: r.Node, score: r.Score}
	}
	return rows
}

func (l *listPane) searchCmd(seq int, q string, t engvault.NodeType) tea.Cmd {
	src, ctx := l.src, l.ctx()
	return func() tea.Msg {
		// Embeddings would put a model call behind every keystroke; BM25
		// alone ranks as you type.
		res, err := src.SearchNodes(ctx, q, engvault.SearchOptions{Limit: searchLimit, Type: t, NoEmbeddings: true})
		return searchMsg{seq: seq, query: q, results: res, err: err}
	}
}

// ---- view ------------------------------------------------------------------

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
func (l *listPane) renderRow(r row, _ int, selected, focused bool, w int) string {
	n := &r.node
	k := rowKey{id: int64(n.ID), updated: n.UpdatedAt.UnixNano(), conf: n.Confidence, score: r.score, helpful: n.HelpfulCount,
		typ: string(n.Type), title: n.Title, text: n.Content, tags: strings.Join(n.Tags, ","), theme: l.c.Styles.Name,
		w: w, selected: selected, focused: focused}
	if out, ok := l.rows[k]; ok {
		return out
	}
	out := l.drawRow(r, selected, focused, w)
	if len(l.rows) >= maxRowCache {
		clear(l.rows)
	}
	l.rows[k] = out
	return out
}

func (l *listPane) drawRow(r row, selected, focused bool, w int) string {
	s := l.c.Styles
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
	// A teammate's node: its author before the title.
	team := ""
	if a := n.TeamAuthor(); a != "" && textW > 24 {
		team = "team " + a + " "
		textW -= lipgloss.Width(team)
	}
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
	if team != "" {
		text = s.Info.Render(team) + text
	}
	line := marker + " " + l.badge(n.Type) + " " + text + " " + right
	// The list trusts rows to be exactly w cells (vlist.SetExactRows).
	if lw := lipgloss.Width(line); lw > w {
		line = ansi.Truncate(line, w, "…")
	} else if lw < w {
		line += strings.Repeat(" ", w-lw)
	}
	return line
}

func (l *listPane) tabsView() string {
	s := l.c.Styles
	type tab struct {
		name, short string
		n           int
	}
	tabs := []tab{{"All", "All", -1}}
	for _, t := range engvault.NodeTypes() {
		tabs = append(tabs, tab{string(t), shortType[t], -1})
	}
	if l.stats != nil {
		tabs[0].n = l.stats.Nodes
		for i, t := range engvault.NodeTypes() {
			tabs[i+1].n = l.stats.ByType[string(t)]
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
			if i == l.tab {
				st = s.TabActive
			}
			parts[i] = st.Render(name + " " + n)
		}
		return strings.Join(parts, s.TabSep.Render("│"))
	}
	line := render(false, count)
	if lipgloss.Width(line) > l.width {
		line = render(false, compact)
	}
	if lipgloss.Width(line) > l.width {
		line = render(true, compact)
	}
	return ansi.Truncate(line, l.width, "…")
}

func (l *listPane) searchLine() string {
	s := l.c.Styles
	var left string
	switch {
	case l.search.Focused():
		left = l.search.View()
	case l.query != "":
		left = s.Primary.Render("/ ") + s.Text.Render(l.query) + s.Subtle.Render("  esc clears")
	default:
		left = s.Subtle.Render("/ search the vault…")
	}
	var right string
	switch {
	case l.searching:
		right = s.Muted.Render("searching…")
	case l.query != "":
		word := "results"
		if l.results.Len() == 1 {
			word = "result"
		}
		right = s.Muted.Render(fmt.Sprintf("%s ranked %s", count(l.results.Len()), word))
	case l.stats != nil:
		right = s.Muted.Render("newest first")
	}
	gap := l.width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return ansi.Truncate(left, l.width, "…")
	}
	return left + strings.Repeat(" ", gap) + right
}

// panel draws the list in a w×h panel.
func (l *listPane) panel(w, h int, focused bool) string {
	s := l.c.Styles
	lst := l.list()
	lst.SetFocused(focused)
	inner := w - 4
	title := s.PanelTitle
	if focused {
		title = s.PanelTitleActive
	}
	name := "Nodes"
	if l.query != "" {
		name = "Results"
	}
	if l.tab > 0 {
		name += " · " + string(l.tabType())
	}
	pos := ""
	if n := lst.Len(); n > 0 {
		pos = fmt.Sprintf("%s/%s", count(lst.Cursor()+1), count(n))
	}
	head := title.Render(name)
	if gap := inner - lipgloss.Width(head) - len(pos); gap > 0 {
		head += strings.Repeat(" ", gap) + s.Muted.Render(pos)
	}
	var body string
	switch {
	case lst.Len() == 0 && !lst.Loading():
		body = l.emptyList(inner)
	default:
		body = lst.View()
	}
	return l.box(head+"\n"+body, w, h, focused)
}

func (l *listPane) emptyList(w int) string {
	switch {
	case l.query != "":
		return l.c.Empty(clip(fmt.Sprintf("No node matches “%s”.", l.query), w), "Try other words, or esc to clear the search.")
	case l.tab > 0 && l.stats != nil && l.stats.Nodes > 0:
		return l.c.Empty(fmt.Sprintf("No %s nodes yet.", l.tabType()), "←/→ switch the type.")
	case l.browse.Err() != nil:
		return l.c.Styles.Error.Render(clip("Could not read the vault: "+l.browse.Err().Error(), w))
	}
	hint := lipgloss.Wrap("Import a pattern library: ctrl+p → Import, or run `nova import DIR` (a JSONL dump: `nova vault import FILE.jsonl`). Builds add what they learn.", w, " ")
	return l.c.Empty("The vault is empty.", hint)
}
