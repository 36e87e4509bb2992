package graphview

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
)

func newView(g Graph, w, h int) *Model {
	c := &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c)
	m.SetBadge(func(kind string) string { return "[" + kind + "]" })
	m.SetSize(w, h)
	m.SetGraph(g)
	return m
}

func nodes(ids ...uint64) []Node {
	var out []Node
	for _, id := range ids {
		out = append(out, Node{ID: id, Kind: "N", Title: "node"})
	}
	return out
}

func TestTreeWithDirectionsAndCycle(t *testing.T) {
	t.Parallel()
	g := Graph{Root: 1, Nodes: nodes(1, 2, 3, 4), Edges: []Edge{
		{ID: 1, From: 1, To: 2, Relation: "supports"},
		{ID: 2, From: 3, To: 1, Relation: "contradicts", Conflict: true},
		{ID: 3, From: 2, To: 4, Relation: "refines"},
		{ID: 4, From: 4, To: 1, Relation: "depends_on"}, // closes the cycle 1-2-4
	}}
	m := newView(g, 80, 10)
	out := ansi.Strip(m.View())
	want := []string{
		"›◉ [N] #1 node",
		" ├─ supports ─▶ [N] #2 node",
		" │  └─ refines ─▶ ↺ #4 node",
		" ├─◀ contradicts ── [N] #3 node",
		" └─◀ depends_on ── [N] #4 node",
	}
	lines := strings.Split(out, "\n")
	for i, w := range want {
		assert.Equal(t, w, strings.TrimRight(lines[i], " "))
	}
	// #4 hangs off the root (BFS: depth 1); the edge 2 → 4 becomes a ↺ ref
	// under #2, drawn once.
	assert.Equal(t, 1, strings.Count(out, "[N] #4"))
	n, depth, refs := m.Stats()
	assert.Equal(t, 4, n)
	assert.Equal(t, 2, depth)
	assert.Equal(t, 1, refs)
	// The contradicts label uses the conflict style.
	assert.Contains(t, m.View(), m.c.Styles.EdgeConflict.Render("contradicts"))
}

func TestSelfLoopsAndUnknownNodesAreIgnored(t *testing.T) {
	t.Parallel()
	g := Graph{Root: 1, Nodes: nodes(1, 2), Edges: []Edge{
		{ID: 1, From: 1, To: 1, Relation: "supports"},
		{ID: 2, From: 1, To: 99, Relation: "supports"},
		{ID: 3, From: 2, To: 1, Relation: "refines"},
		{ID: 4, From: 1, To: 2, Relation: "supports"}, // a second edge between 1 and 2
	}}
	m := newView(g, 80, 10)
	assert.Equal(t, 3, m.Lines(), "root, #2, and the second edge as a ref")
	assert.NotContains(t, ansi.Strip(m.View()), "#99")
}

func TestCursorScrollsAndSelects(t *testing.T) {
	t.Parallel()
	var ns []Node
	var es []Edge
	for i := uint64(1); i <= 50; i++ {
		ns = append(ns, Node{ID: i, Title: "n"})
		if i > 1 {
			es = append(es, Edge{ID: i, From: 1, To: i, Relation: "supports"})
		}
	}
	m := newView(Graph{Root: 1, Nodes: ns, Edges: es}, 40, 5)
	id, ok := m.Selected()
	require.True(t, ok)
	assert.Equal(t, uint64(1), id)
	m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	id, _ = m.Selected()
	assert.Equal(t, uint64(50), id)
	out := m.View()
	assert.Len(t, strings.Split(out, "\n"), 5)
	assert.Contains(t, ansi.Strip(out), "#50")
	for _, l := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, lipgloss.Width(l), 40)
	}
	assert.True(t, m.Select(7))
	id, _ = m.Selected()
	assert.Equal(t, uint64(7), id)
	assert.False(t, m.Select(404))
}

func TestEmptyGraph(t *testing.T) {
	t.Parallel()
	m := newView(Graph{Root: 3}, 40, 3)
	assert.Zero(t, m.Lines())
	_, ok := m.Selected()
	assert.False(t, ok)
	assert.Len(t, strings.Split(m.View(), "\n"), 3)
}
