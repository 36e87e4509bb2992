package vault

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// Every engine call of the page runs in one of the commands below and comes
// back as one of these messages; Update and View do no I/O.

type statsMsg struct {
	stats engvault.Stats
	err   error
}

type searchTickMsg struct{ seq int }

type searchMsg struct {
	seq     int
	query   string
	results []engvault.Scored
	err     error
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

type graphMsg struct {
	seq   int
	root  uint64
	depth int
	nodes []engvault.Node
	edges []engvault.Edge
	err   error
}

type conflictsMsg struct {
	seq  int
	list []engvault.Conflict
	err  error
}

type actionMsg struct {
	op   string
	id   uint64
	node engvault.Node
	text string
	err  error
}

type refreshTickMsg struct{ seq int }

type pickTickMsg struct{ seq int }

type pickMsg struct {
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

func (m *Model) ctx() context.Context {
	if m.c.Ctx == nil {
		return context.Background()
	}
	return m.c.Ctx
}

func (m *Model) statsCmd() tea.Cmd {
	src, ctx := m.src, m.ctx()
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

// searchLimit bounds the ranked results shown for a query.
const searchLimit = 200

func searchRows(res []engvault.Scored) []row {
	rows := make([]row, len(res))
	for i, r := range res {
		rows[i] = row{node: r.Node, score: r.Score}
	}
	return rows
}

func (m *Model) searchCmd(seq int, q string, t engvault.NodeType) tea.Cmd {
	src, ctx := m.src, m.ctx()
	return func() tea.Msg {
		// Embeddings would put a model call behind every keystroke; BM25
		// alone ranks as you type.
		res, err := src.SearchNodes(ctx, q, engvault.SearchOptions{Limit: searchLimit, Type: t, NoEmbeddings: true})
		return searchMsg{seq: seq, query: q, results: res, err: err}
	}
}

func (m *Model) pickCmd(seq int, q string) tea.Cmd {
	src, ctx := m.src, m.ctx()
	return func() tea.Msg {
		res, err := src.SearchNodes(ctx, q, engvault.SearchOptions{Limit: 50, NoEmbeddings: true})
		return pickMsg{seq: seq, query: q, results: res, err: err}
	}
}

func (m *Model) detailCmd(id uint64, gen int) tea.Cmd {
	src, ctx := m.src, m.ctx()
	return func() tea.Msg {
		n, err := src.GetNode(ctx, id)
		if err != nil {
			return detailMsg{gen: gen, id: id, err: err}
		}
		groups, err := src.NodeNeighbours(ctx, id)
		if err != nil {
			return detailMsg{gen: gen, id: id, err: err}
		}
		d := &detailData{gen: gen, node: n, groups: groups}
		for _, g := range groups {
			for _, l := range g.Out {
				d.links = append(d.links, linkRow{rel: g.Relation, out: true, edge: l.Edge, node: l.Node})
			}
			for _, l := range g.In {
				d.links = append(d.links, linkRow{rel: g.Relation, out: false, edge: l.Edge, node: l.Node})
			}
		}
		return detailMsg{gen: gen, id: id, data: d}
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
		out, err := renderMarkdown(src, key.width, key.dark)
		return mdMsg{key: key, out: out, err: err}
	}
}

// renderMarkdown renders src with glamour's dark or light style, without
// the document margin (the pane has its own padding), wrapped to width.
func renderMarkdown(src string, width int, dark bool) (string, error) {
	style := styles.DarkStyleConfig
	if !dark {
		style = styles.LightStyleConfig
	}
	var zero uint
	style.Document.Margin = &zero
	style.Document.BlockPrefix, style.Document.BlockSuffix = "", ""
	r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(max(10, width)))
	if err != nil {
		return "", fmt.Errorf("markdown renderer: %w", err)
	}
	out, err := r.Render(src)
	if err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		// glamour pads every line to the wrap width with styled spaces.
		plain := ansi.Strip(l)
		if trimmed := strings.TrimRight(plain, " "); len(trimmed) < len(plain) {
			lines[i] = ansi.Truncate(l, ansi.StringWidth(trimmed), "") + "\x1b[m"
		}
	}
	return strings.Join(lines, "\n"), nil
}

// graphLimit bounds the nodes one graph view fetches.
const graphLimit = 400

func (m *Model) graphCmd(seq int, root uint64, depth int) tea.Cmd {
	src, ctx := m.src, m.ctx()
	return func() tea.Msg {
		steps, err := src.TraverseNodes(ctx, root, engvault.TraverseOptions{Depth: depth, Limit: graphLimit})
		if err != nil {
			return graphMsg{seq: seq, root: root, depth: depth, err: err}
		}
		in := make(map[uint64]bool, len(steps))
		nodes := make([]engvault.Node, 0, len(steps))
		for _, s := range steps {
			in[s.Node.ID] = true
			nodes = append(nodes, s.Node)
		}
		// Traverse gives the edge each node was reached by; the view also
		// needs the edges between reached nodes to mark cycles.
		seen := map[uint64]bool{}
		var edges []engvault.Edge
		for _, s := range steps {
			es, err := src.NodeEdges(ctx, s.Node.ID)
			if err != nil {
				return graphMsg{seq: seq, root: root, depth: depth, err: err}
			}
			for _, e := range es {
				if !seen[e.ID] && in[e.From] && in[e.To] {
					seen[e.ID] = true
					edges = append(edges, e)
				}
			}
		}
		return graphMsg{seq: seq, root: root, depth: depth, nodes: nodes, edges: edges}
	}
}

func (m *Model) conflictsCmd(seq int) tea.Cmd {
	src, ctx := m.src, m.ctx()
	return func() tea.Msg {
		list, err := src.ListConflicts(ctx)
		return conflictsMsg{seq: seq, list: list, err: err}
	}
}

func (m *Model) actionCmd(op string, id uint64, fn func(ctx context.Context, src Source) (engvault.Node, string, error)) tea.Cmd {
	src, ctx := m.src, m.ctx()
	return func() tea.Msg {
		n, text, err := fn(ctx, src)
		return actionMsg{op: op, id: id, node: n, text: text, err: err}
	}
}

func (m *Model) reinforceCmd(id uint64) tea.Cmd {
	return m.actionCmd("reinforce", id, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		n, err := src.ReinforceNode(ctx, id)
		if err != nil {
			return n, "", fmt.Errorf("reinforce #%d: %w", id, err)
		}
		return n, fmt.Sprintf("#%d reinforced: confidence %.2f", id, n.Confidence), nil
	})
}

func (m *Model) demoteCmd(id uint64) tea.Cmd {
	return m.actionCmd("demote", id, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		n, err := src.DemoteNode(ctx, id)
		if err != nil {
			return n, "", fmt.Errorf("demote #%d: %w", id, err)
		}
		return n, fmt.Sprintf("#%d demoted: confidence %.2f", id, n.Confidence), nil
	})
}

func (m *Model) forgetCmd(id uint64) tea.Cmd {
	return m.actionCmd("forget", id, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		if err := src.ForgetNode(ctx, id); err != nil {
			return engvault.Node{}, "", fmt.Errorf("forget #%d: %w", id, err)
		}
		return engvault.Node{}, fmt.Sprintf("#%d forgotten", id), nil
	})
}

func (m *Model) linkCmd(from, to uint64, rel engvault.Relation) tea.Cmd {
	return m.actionCmd("link", from, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		if _, err := src.LinkNodes(ctx, from, to, rel, 0); err != nil {
			return engvault.Node{}, "", fmt.Errorf("link #%d %s #%d: %w", from, rel, to, err)
		}
		return engvault.Node{}, fmt.Sprintf("linked #%d %s #%d", from, rel, to), nil
	})
}

func (m *Model) tagsCmd(id uint64, tags []string) tea.Cmd {
	return m.actionCmd("tags", id, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		n, err := src.UpdateNode(ctx, id, engvault.Patch{Tags: &tags})
		if err != nil {
			return n, "", fmt.Errorf("tags of #%d: %w", id, err)
		}
		if len(n.Tags) == 0 {
			return n, fmt.Sprintf("#%d has no tags", id), nil
		}
		return n, fmt.Sprintf("#%d tagged %s", id, strings.Join(n.Tags, ", ")), nil
	})
}

func warmCmd(ctx context.Context, src Source) tea.Cmd {
	return func() tea.Msg {
		_ = src.WarmVault(ctx) // builds the search index in the background; search works without
		return nil
	}
}

// parseTags splits a comma-separated tag list (the engine normalises).
func parseTags(s string) []string {
	out := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04")
}
