// Package graphview draws a node's neighbourhood in a graph as a tree in the
// terminal:
//
//	◉ [PAT] #1 Wrap errors with context
//	├─ supports ─▶ [STR] #2 Return early on failure
//	│  └─◀ refines ── [PRF] #4 Prefer errors.Join
//	└─◀ contradicts ── [MIS] #3 Panic on bad input
//	   └─ depends_on ─▶ ↺ #1 Wrap errors with context
//
// The tree is the breadth-first spanning tree from the root over the edges
// given (in both directions; the arrow shows the edge's real direction).
// An edge that would reach a node already drawn is shown once as a
// reference marked ↺ instead of repeating the subtree, so cycles end. Edges
// flagged Conflict are drawn with the EdgeConflict style.
//
// The component holds no engine types: the owner converts its data into a
// Graph. It has a cursor over the lines; Selected returns the node of the
// cursor line.
package graphview

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/tui/common"
)

// Node is one vertex.
type Node struct {
	ID uint64
	// Kind is passed to the badge function (SetBadge), e.g. a node type.
	Kind  string
	Title string
	// Note is drawn after the title, muted (e.g. a confidence).
	Note string
}

// Edge is one directed, labelled edge.
type Edge struct {
	ID       uint64
	From, To uint64
	Relation string
	// Conflict highlights the edge (e.g. contradicts).
	Conflict bool
}

// Graph is what the view draws.
type Graph struct {
	Root  uint64
	Nodes []Node
	Edges []Edge
}

type lineKind uint8

const (
	kindRoot lineKind = iota
	kindChild
	kindRef // an edge to a node drawn elsewhere (a cycle or a cross link)
)

type line struct {
	kind   lineKind
	indent string // the tree guides of the ancestors
	last   bool
	edge   Edge
	out    bool // the edge leaves the parent
	node   uint64
	depth  int
}

// Model is the graph view.
type Model struct {
	c      *common.Common
	graph  Graph
	nodes  map[uint64]Node
	lines  []line
	cursor int
	top    int
	width  int
	height int
	depth  int // deepest level drawn
	refs   int
	badge  func(kind string) string
}

// SetBadge sets the function drawing a node's badge from its Kind (called
// at View time, so it may use the current theme).
func (m *Model) SetBadge(fn func(kind string) string) { m.badge = fn }

// Select moves the cursor to the first line showing node id.
func (m *Model) Select(id uint64) bool {
	for i, l := range m.lines {
		if l.node == id && l.kind != kindRef {
			m.cursor = i
			m.clamp()
			return true
		}
	}
	return false
}

// New returns an empty view.
func New(c *common.Common) *Model { return &Model{c: c, nodes: map[uint64]Node{}} }

// SetGraph replaces the graph; the cursor goes back to the root.
func (m *Model) SetGraph(g Graph) {
	m.graph = g
	m.nodes = make(map[uint64]Node, len(g.Nodes))
	for _, n := range g.Nodes {
		m.nodes[n.ID] = n
	}
	m.build()
	m.cursor, m.top = 0, 0
}

// Graph returns the graph shown.
func (m *Model) Graph() Graph { return m.graph }

// Lines returns the number of lines of the tree.
func (m *Model) Lines() int { return len(m.lines) }

// Stats returns the nodes drawn, the deepest level and the ↺ references.
func (m *Model) Stats() (nodes, depth, refs int) { return len(m.nodes), m.depth, m.refs }

// Selected returns the node on the cursor line.
func (m *Model) Selected() (uint64, bool) {
	if m.cursor < 0 || m.cursor >= len(m.lines) {
		return 0, false
	}
	return m.lines[m.cursor].node, true
}

// build computes the spanning tree and the lines.
func (m *Model) build() {
	m.lines, m.depth, m.refs = nil, 0, 0
	if _, ok := m.nodes[m.graph.Root]; !ok {
		return
	}
	edges := slices.Clone(m.graph.Edges)
	slices.SortFunc(edges, func(a, b Edge) int { return cmp.Compare(a.ID, b.ID) })
	adj := map[uint64][]Edge{}
	for _, e := range edges {
		_, okF := m.nodes[e.From]
		_, okT := m.nodes[e.To]
		if !okF || !okT || e.From == e.To {
			continue
		}
		adj[e.From] = append(adj[e.From], e)
		adj[e.To] = append(adj[e.To], e)
	}
	other := func(e Edge, u uint64) uint64 {
		if e.From == u {
			return e.To
		}
		return e.From
	}
	// Breadth first: each node's parent edge is the first edge (by id) that
	// reaches it from the shallowest level.
	parent := map[uint64]uint64{} // node -> edge id
	seen := map[uint64]bool{m.graph.Root: true}
	treeEdge := map[uint64]bool{}
	frontier := []uint64{m.graph.Root}
	for len(frontier) > 0 {
		var next []uint64
		for _, u := range frontier {
			for _, e := range adj[u] {
				v := other(e, u)
				if seen[v] {
					continue
				}
				seen[v] = true
				parent[v] = e.ID
				treeEdge[e.ID] = true
				next = append(next, v)
			}
		}
		frontier = next
	}
	// Preorder of the tree, to attach each non-tree edge once, at the end
	// drawn first.
	order := map[uint64]int{}
	var walk func(u uint64)
	walk = func(u uint64) {
		order[u] = len(order)
		for _, e := range adj[u] {
			if v := other(e, u); treeEdge[e.ID] && parent[v] == e.ID && v != m.graph.Root {
				walk(v)
			}
		}
	}
	walk(m.graph.Root)
	type entry struct {
		e   Edge
		ref bool
		v   uint64
	}
	children := func(u uint64) []entry {
		var out []entry
		for _, e := range adj[u] {
			v := other(e, u)
			if _, drawn := order[v]; !drawn {
				continue
			}
			switch {
			case treeEdge[e.ID] && parent[v] == e.ID && v != m.graph.Root:
				out = append(out, entry{e: e, v: v})
			case !treeEdge[e.ID] && order[u] < order[v]:
				out = append(out, entry{e: e, v: v, ref: true})
			}
		}
		return out
	}
	m.lines = append(m.lines, line{kind: kindRoot, node: m.graph.Root})
	var emit func(u uint64, indent string, depth int)
	emit = func(u uint64, indent string, depth int) {
		kids := children(u)
		for i, k := range kids {
			last := i == len(kids)-1
			l := line{kind: kindChild, indent: indent, last: last, edge: k.e, out: k.e.From == u, node: k.v, depth: depth}
			if k.ref {
				l.kind = kindRef
				m.refs++
			}
			m.depth = max(m.depth, depth)
			m.lines = append(m.lines, l)
			if !k.ref {
				guide := "│  "
				if last {
					guide = "   "
				}
				emit(k.v, indent+guide, depth+1)
			}
		}
	}
	emit(m.graph.Root, "", 1)
}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.clamp()
}

// Update implements common.Component: cursor movement.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || len(m.lines) == 0 {
		return m, nil
	}
	km := m.c.KeyMap
	step := max(1, m.height-1)
	switch {
	case key.Matches(k, km.Up):
		m.cursor--
	case key.Matches(k, km.Down):
		m.cursor++
	case key.Matches(k, km.PageUp):
		m.cursor -= step
	case key.Matches(k, km.PageDown):
		m.cursor += step
	case key.Matches(k, km.Top):
		m.cursor = 0
	case key.Matches(k, km.Bottom):
		m.cursor = len(m.lines) - 1
	}
	m.clamp()
	return m, nil
}

func (m *Model) clamp() {
	m.cursor = min(max(m.cursor, 0), max(0, len(m.lines)-1))
	h := max(1, m.height)
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+h {
		m.top = m.cursor - h + 1
	}
	m.top = min(max(m.top, 0), max(0, len(m.lines)-h))
}

// View implements common.Component: exactly height lines.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	out := make([]string, 0, m.height)
	for i := m.top; i < len(m.lines) && len(out) < m.height; i++ {
		out = append(out, m.renderLine(m.lines[i], i == m.cursor))
	}
	for len(out) < m.height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

func (m *Model) renderLine(l line, selected bool) string {
	s := m.c.Styles
	var b strings.Builder
	if selected {
		b.WriteString(s.Cursor.Render("›"))
	} else {
		b.WriteString(" ")
	}
	n := m.nodes[l.node]
	label := fmt.Sprintf("#%d %s", n.ID, n.Title)
	switch l.kind {
	case kindRoot:
		b.WriteString(s.Title.Render("◉") + " ")
	default:
		b.WriteString(s.Tree.Render(l.indent))
		branch := "├─"
		if l.last {
			branch = "└─"
		}
		rel := s.EdgeLabel
		if l.edge.Conflict {
			rel = s.EdgeConflict
		}
		if l.out {
			b.WriteString(s.Tree.Render(branch+" ") + rel.Render(l.edge.Relation) + s.Tree.Render(" ─▶ "))
		} else {
			b.WriteString(s.Tree.Render(branch+"◀ ") + rel.Render(l.edge.Relation) + s.Tree.Render(" ── "))
		}
	}
	if l.kind == kindRef {
		b.WriteString(s.Subtle.Render("↺ " + label))
	} else {
		if m.badge != nil {
			if badge := m.badge(n.Kind); badge != "" {
				b.WriteString(badge + " ")
			}
		}
		if selected {
			b.WriteString(s.Selected.Render(label))
		} else {
			b.WriteString(s.Text.Render(label))
		}
		if n.Note != "" {
			b.WriteString(" " + s.Muted.Render(n.Note))
		}
	}
	line := b.String()
	if lipgloss.Width(line) > m.width {
		line = ansi.Truncate(line, m.width, "…")
	}
	return line
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km := m.c.KeyMap
	return []key.Binding{km.Up, km.Down}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km := m.c.KeyMap
	return [][]key.Binding{{km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom}}
}

var _ common.Component = (*Model)(nil)
