package vault

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/graphview"
)

// Graph depths.
const (
	defaultDepth = 2
	maxDepth     = 5
)

// graphLimit bounds the nodes one graph view fetches.
const graphLimit = 400

// graphPane draws a node's neighbourhood as a tree (graphview), to a depth
// of 1–5, cycles marked once.
type graphPane struct {
	*shared
	width, height int

	graph   *graphview.Model
	nodes   []engvault.Node
	root    uint64
	depth   int
	seq     int
	loading bool
	err     error
}

type graphMsg struct {
	seq   int
	root  uint64
	depth int
	nodes []engvault.Node
	edges []engvault.Edge
	err   error
}

func newGraphPane(sh *shared) *graphPane {
	g := &graphPane{shared: sh, depth: defaultDepth, graph: graphview.New(sh.c)}
	g.graph.SetBadge(func(kind string) string { return g.badge(engvault.NodeType(kind)) })
	return g
}

func (g *graphPane) setSize(w, h int) {
	g.width, g.height = w, h
	g.graph.SetSize(max(1, w-4), max(1, g.panelHeight()-2))
}

func (g *graphPane) panelHeight() int { return max(3, g.height-topLines) }

// load shows root's neighbourhood to depth.
func (g *graphPane) load(root uint64, depth int) tea.Cmd {
	if root != g.root || depth != g.depth {
		g.loading = true
	}
	g.root, g.depth = root, depth
	g.seq++
	return g.graphCmd(g.seq, root, depth)
}

// node returns a node of the graph.
func (g *graphPane) node(id uint64) (engvault.Node, bool) {
	for _, n := range g.nodes {
		if n.ID == id {
			return n, true
		}
	}
	return engvault.Node{}, false
}

// selected is the id under the cursor.
func (g *graphPane) selected() (uint64, bool) { return g.graph.Selected() }

func (g *graphPane) update(msg tea.Msg) tea.Cmd {
	m, ok := msg.(graphMsg)
	if !ok || m.seq != g.seq {
		return nil
	}
	g.loading = false
	if m.err != nil {
		g.err = m.err
		return common.Failure(fmt.Errorf("graph of #%d: %w", m.root, m.err))
	}
	g.err = nil
	g.set(m)
	return nil
}

func (g *graphPane) set(msg graphMsg) {
	g.nodes = msg.nodes
	gr := graphview.Graph{Root: msg.root}
	for _, n := range msg.nodes {
		title := n.Title
		if title == "" {
			title = firstLine(n.Content)
		}
		gr.Nodes = append(gr.Nodes, graphview.Node{ID: n.ID, Kind: string(n.Type), Title: title, Note: fmt.Sprintf("%.2f", n.Confidence)})
	}
	for _, e := range msg.edges {
		gr.Edges = append(gr.Edges, graphview.Edge{ID: e.ID, From: e.From, To: e.To, Relation: string(e.Relation), Conflict: e.Relation == engvault.Contradicts})
	}
	keep, _ := g.graph.Selected()
	same := g.graph.Graph().Root == msg.root
	g.graph.SetGraph(gr)
	if same {
		g.graph.Select(keep)
	}
}

// key handles the graph's keys; it reports whether it used k.
func (g *graphPane) key(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := g.c.KeyMap
	switch {
	case key.Matches(k, g.keys.DepthMore):
		if g.depth < maxDepth {
			return g.load(g.root, g.depth+1), true
		}
		return nil, true
	case key.Matches(k, g.keys.DepthLess):
		if g.depth > 1 {
			return g.load(g.root, g.depth-1), true
		}
		return nil, true
	case key.Matches(k, g.keys.Depth):
		d := int(k.Code - '0')
		if d >= 1 && d <= maxDepth && d != g.depth {
			return g.load(g.root, d), true
		}
		return nil, true
	case key.Matches(k, km.Enter):
		if id, ok := g.graph.Selected(); ok {
			return send(jumpMsg{id: id}), true
		}
		return nil, true
	case key.Matches(k, km.Back, g.keys.HistoryBack):
		return send(backMsg{}), true
	case key.Matches(k, km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom):
		g.graph.Update(k)
		return nil, true
	}
	return nil, false
}

func (g *graphPane) graphCmd(seq int, root uint64, depth int) tea.Cmd {
	src, ctx := g.src, g.ctx()
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

// view draws the graph; root is the best node value the page knows for the
// root while the graph loads.
func (g *graphPane) view(root engvault.Node) string {
	s := g.c.Styles
	if n, ok := g.node(g.root); ok {
		root = n
	}
	head := s.Title.Render("Graph") + " " + g.badge(root.Type) + " " + s.Bold.Render(clip(fmt.Sprintf("#%d %s", root.ID, label(root)), max(10, g.width/2)))
	nodes, _, refs := g.graph.Stats()
	info := fmt.Sprintf("depth %d · %s", g.depth, plural(nodes, "node", "nodes"))
	if refs > 0 {
		info += fmt.Sprintf(" · %d ↺", refs)
	}
	if nodes >= graphLimit {
		info += " · first " + strconv.Itoa(graphLimit)
	}
	if g.loading {
		info += " · loading…"
	}
	headLine := head
	if gap := g.width - lipgloss.Width(head) - lipgloss.Width(info); gap > 0 {
		headLine += strings.Repeat(" ", gap) + s.Muted.Render(info)
	}
	legend := s.Tree.Render("─▶") + s.Subtle.Render(" out · ") + s.Tree.Render("◀─") + s.Subtle.Render(" in · ") +
		s.EdgeConflict.Render("contradicts") + s.Subtle.Render(" · ↺ cycle (shown once) · +/- or 1–5 depth · enter opens · esc back")
	var body string
	switch {
	case g.err != nil:
		body = s.Error.Render(clip(g.err.Error(), g.width-4))
	case g.graph.Lines() == 0:
		body = s.Subtle.Render("loading…")
	case g.graph.Lines() == 1:
		body = g.graph.View() // the root
		body = common.FitHeight(body, 2) + "\n" + s.Muted.Render("No links within depth "+strconv.Itoa(g.depth)+". L links this node to another.")
	default:
		body = g.graph.View()
	}
	panel := g.box(body, g.width, g.panelHeight(), true)
	return ansi.Truncate(headLine, g.width, "…") + "\n" + ansi.Truncate(legend, g.width, "…") + "\n" + panel
}
