package vault_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
)

func TestGoldenViews(t *testing.T) {
	t.Parallel()
	views := []struct {
		name string
		keys []string
	}{
		{"list", nil},
		{"detail", []string{"G", "enter"}},                     // #1: markdown body, three links
		{"graph", []string{"G", "v"}},                          // neighbourhood of #1, depth 2, one cycle
		{"conflicts", []string{"c"}},                           // two contradicting pairs
		{"search", []string{"/", "w", "r", "a", "p", "enter"}}, // ranked results
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for _, v := range views {
			t.Run(fmt.Sprintf("%s_%dx%d", v.name, size[0], size[1]), func(t *testing.T) {
				t.Parallel()
				ws := newWS(t)
				fill(t, ws.v)
				a := newApp(t, ws, size[0], size[1])
				a.Press(v.keys...)
				golden.RequireEqual(t, a.Pinned())
			})
		}
	}
}

func TestListShowsNodesNewestFirstWithCounts(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	out := newApp(t, ws, 160, 48).Plain()
	for _, want := range []string{"All 12", "Strategy 2", "Mistake 2", "Preference 3", "Pattern 3", "Decision 2", "1/12", "#errors #go", "0.86", "✓12"} {
		assert.Contains(t, out, want)
	}
	assert.Less(t, strings.Index(out, "Short commit subjects"), strings.Index(out, "Wrap errors with context"), "newest first")

	// → switches to the Strategy tab: only strategies are listed.
	a := newApp(t, ws, 160, 48)
	a.Press("right")
	out = a.Plain()
	assert.Contains(t, out, "Debounce search as you type")
	assert.NotContains(t, out, "Short commit subjects")
	assert.Contains(t, out, "1/2")
}

func TestSearchAsYouTypeIsDebouncedAndRanked(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	a := newApp(t, ws, 160, 48)
	page := a.page
	a.Press("/")
	require.True(t, page.Capturing(), "the search box captures letters")
	// q would quit the app if the page did not capture it.
	a.Press("q")
	assert.False(t, a.Quit, "q types into the search box")
	a.Press("backspace")
	a.Type("debounce")
	out := a.Plain()
	assert.Contains(t, out, "1 ranked result")
	assert.Contains(t, out, "Debounce search as you type")
	assert.NotContains(t, out, "Table-driven tests", "only matches are listed")

	// esc clears the search and shows the whole vault again.
	a.Press("esc")
	assert.False(t, page.Capturing())
	out = a.Plain()
	assert.Contains(t, out, "Table-driven tests")
	assert.Contains(t, out, "newest first")

	// A query that matches nothing says so.
	a.Press("/")
	a.Type("zzyzx")
	assert.Contains(t, a.Plain(), "No node matches “zzyzx”")
}

func TestJumpToNeighbourAndBack(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		a := newApp(t, ws, size[0], size[1])
		a.Press("G", "enter") // detail of #1
		out := a.Plain()
		require.Contains(t, out, "#1 Wrap errors with context")
		require.Contains(t, out, "Links (3)")
		// Links: #2 supports, #9 contradicts, #4 refines (all incoming).
		a.Press("down", "enter")
		out = a.Plain()
		assert.Contains(t, out, "#9 Ignore errors from Close", "%v: jumped to the neighbour", size)
		assert.Contains(t, out, "Errors from Close on read-only files")
		// Follow #9's only link back to #1, then go back twice.
		a.Press("enter")
		assert.Contains(t, a.Plain(), "Links (3)")
		a.Press("backspace")
		assert.Contains(t, a.Plain(), "Errors from Close on read-only files", "%v: back returns to #9", size)
		a.Press("esc")
		out = a.Plain()
		assert.Contains(t, out, "Links (3)", "%v: back again returns to #1", size)
		if size[1] > 24 {
			assert.Contains(t, out, "loses where it failed", "the body is rendered as markdown")
			assert.Contains(t, out, "• name the operation")
		}
		// Without history, esc returns to the list.
		a.Press("esc")
		assert.Contains(t, a.Plain(), "12/12", "%v: the list keeps its cursor", size)
	}
}

func TestForgetNeedsConfirmation(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	ctx := context.Background()
	a := newApp(t, ws, 120, 40)
	page := a.page // cursor on #12, the newest

	a.Press("d")
	require.Contains(t, a.Plain(), "Forget node #12?")
	assert.True(t, page.Capturing(), "the dialog has the keyboard")
	a.Press("n")
	_, err := ws.v.Get(ctx, 12)
	require.NoError(t, err, "n keeps the node")
	assert.NotContains(t, a.Plain(), "Forget node #12?")

	a.Press("d", "enter")
	_, err = ws.v.Get(ctx, 12)
	require.NoError(t, err, "enter answers the focused button, which is Keep")

	a.Press("d", "esc")
	_, err = ws.v.Get(ctx, 12)
	require.NoError(t, err, "esc keeps the node")

	a.Press("d", "y")
	_, err = ws.v.Get(ctx, 12)
	require.ErrorIs(t, err, engvault.ErrNotFound, "y forgets")
	out := a.Plain()
	assert.NotContains(t, out, "Short commit subjects")
	assert.Contains(t, out, "All 11")
	assert.Contains(t, out, "#12 forgotten")
}

func TestReinforceAndDemoteChangeConfidence(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	ctx := context.Background()
	a := newApp(t, ws, 160, 48) // #12 at 0.50
	a.Press("+")
	n, err := ws.v.Get(ctx, 12)
	require.NoError(t, err)
	assert.InDelta(t, 0.55, n.Confidence, 1e-9)
	out := a.Plain()
	assert.Contains(t, out, "0.55")
	assert.Contains(t, out, "#12 reinforced")

	a.Press("-", "-")
	n, err = ws.v.Get(ctx, 12)
	require.NoError(t, err)
	assert.InDelta(t, 0.35, n.Confidence, 1e-9)
	assert.Contains(t, a.Plain(), "0.35")

	// In the detail the actions apply to the node shown.
	a.Press("G", "enter", "+")
	n, err = ws.v.Get(ctx, 1)
	require.NoError(t, err)
	assert.InDelta(t, 0.91, n.Confidence, 1e-9)
	out = a.Plain()
	assert.Contains(t, out, "0.91")
	assert.Contains(t, out, "#1 reinforced")
}

func TestLinkWithPickerAndRelation(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	a := newApp(t, ws, 120, 40)
	page := a.page // #12
	a.Press("L")
	require.True(t, page.Capturing())
	out := a.Plain()
	assert.Contains(t, out, "Link #12 Short commit subjects to…")
	assert.Contains(t, out, "#11 Virtualise long lists", "without a query the picker lists the vault")
	a.Type("driven")
	assert.Contains(t, a.Plain(), "#6 Table-driven tests")
	a.Press("enter")
	out = a.Plain()
	assert.Contains(t, out, "Choose the relation")
	a.Press("down", "down", "enter") // refines
	assert.False(t, page.Capturing())
	links, err := ws.v.Related(context.Background(), 12, engvault.Refines)
	require.NoError(t, err)
	require.Len(t, links, 1)
	assert.Equal(t, uint64(6), links[0].Node.ID)
	assert.Equal(t, "out", links[0].Direction)
	assert.Contains(t, a.Plain(), "linked #12 refines #6")

	// esc in the relation chooser goes back to the picker; esc there cancels.
	a.Press("L", "down", "enter", "esc")
	assert.Contains(t, a.Plain(), "to…")
	a.Press("esc")
	assert.False(t, page.Capturing())
	assert.NotContains(t, a.Plain(), "to…", "esc closes the picker")
}

func TestEditTags(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	a := newApp(t, ws, 120, 40)
	page := a.page // #12, tags [style]
	a.Press("t")
	require.True(t, page.Capturing())
	assert.Contains(t, a.Plain(), "Tags of #12")
	a.Type(", Git , #commits")
	a.Press("enter")
	n, err := ws.v.Get(context.Background(), 12)
	require.NoError(t, err)
	assert.Equal(t, []string{"style", "git", "commits"}, n.Tags)
	assert.Contains(t, a.Plain(), "#style #git #commits")
}

func TestGraphDepthAndCycles(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	a := newApp(t, ws, 160, 48)
	a.Press("G", "v")
	out := a.Plain()
	assert.Contains(t, out, "depth 2 · 5 nodes · 1 ↺")
	assert.Contains(t, out, "├─◀ supports ──  STR  #2 Return early on failure")
	assert.Contains(t, out, "└─◀ contradicts ──  PRF  #9 Ignore errors from Close")
	assert.Contains(t, out, "↺ #4 Prefer errors.Join for many failures", "the cycle 1-2-4 is marked, not repeated")
	assert.Equal(t, 1, strings.Count(out, "PRF  #4"), "#4 is drawn once")

	a.Press("1")
	assert.Contains(t, a.Plain(), "depth 1 · 4 nodes")
	a.Press("+", "+")
	assert.Contains(t, a.Plain(), "depth 3")
	a.Press("-")
	assert.Contains(t, a.Plain(), "depth 2")

	// enter opens the node under the cursor; back returns to the graph.
	a.Press("down", "enter")
	assert.Contains(t, a.Plain(), "#2 Return early on failure")
	assert.Contains(t, a.Plain(), "Links (3)")
	a.Press("esc")
	assert.Contains(t, a.Plain(), "depth 2 · 5 nodes")
	a.Press("v")
	assert.Contains(t, a.Plain(), "newest first", "v closes the graph")
}

func TestConflictsViewJumpsToEitherSide(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	a := newApp(t, ws, 160, 48)
	a.Press("c")
	out := a.Plain()
	assert.Contains(t, out, "2 contradicting pairs")
	assert.Contains(t, out, "Errors from Close on read-only files can be ignored.")
	assert.Contains(t, out, "Write tests as a table of cases")
	a.Press("right", "enter")
	assert.Contains(t, a.Plain(), "Links (3)", "→ then enter opens #1, the right side")
	a.Press("esc", "down", "enter")
	assert.Contains(t, a.Plain(), "#7 Asserting on exact float output")
	a.Press("esc", "c")
	assert.Contains(t, a.Plain(), "newest first")
}

func TestEmptyVaultExplainsImport(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		out := newApp(t, ws, size[0], size[1]).Plain()
		assert.Contains(t, out, "The vault is empty.")
		assert.Contains(t, out, "ctrl+p → Import")
		assert.Contains(t, out, "nova import DIR")
	}
	a := newApp(t, ws, 120, 40)
	a.Press("c")
	out := a.Plain()
	assert.Contains(t, out, "No conflicts.")
}

func TestRefreshesOnVaultEvents(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	a := newApp(t, ws, 160, 48)
	_, err := ws.v.Add(context.Background(), engvault.Node{Type: engvault.Decision, Title: "Arrived from a build", Content: "A node written by another part of nova."})
	require.NoError(t, err)
	assert.NotContains(t, a.Plain(), "Arrived from a build")
	a.Send(common.EventMsg{Event: engine.Event{Type: engine.EventChanged, Topic: engine.TopicVault}})
	out := a.Plain()
	assert.Contains(t, out, "Arrived from a build")
	assert.Contains(t, out, "All 13")
}

func TestNavigateOpensNode(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	a := newApp(t, ws, 160, 48)
	a.Send(common.NavigateMsg{Page: "vault", Arg: uint64(5)})
	assert.Contains(t, a.Plain(), "#5 Store everything in one bbolt file")
}

func TestHelpListsThePageKeys(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	a := newApp(t, ws, 160, 48)
	a.Press("?")
	out := a.Plain()
	for _, want := range []string{"Keys — Vault", "reinforce", "forget", "link", "tags", "graph", "conflicts", "type tab"} {
		assert.Contains(t, out, want)
	}
	a = newApp(t, ws, 160, 48)
	a.Press("G", "v", "?")
	out = a.Plain()
	for _, want := range []string{"deeper", "shallower", "1–5", "close graph"} {
		assert.Contains(t, out, want)
	}
}
