package vault_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	engvault "github.com/nova-dev/nova/engine/vault"
)

// fullVault is the fixture grown to the free tier's cap (500 nodes), then
// two learned nodes that made the tier cap archive the least confident
// ones: filler nodes #13 and #14.
func fullVault(t *testing.T) *testWS {
	t.Helper()
	ws := newWS(t)
	fill(t, ws.v)
	ctx := context.Background()
	var filler []engvault.Node
	for i := len(fixtureNodes); i < 500; i++ {
		conf := 0.5
		if i < len(fixtureNodes)+2 {
			conf = 0.2 // the first two are archived first
		}
		filler = append(filler, engvault.Node{Type: engvault.Strategy, Title: fmt.Sprintf("Filler rule %d", i+1),
			Content: fmt.Sprintf("A filler node that keeps the vault at its cap (%d).", i+1), Confidence: conf, Source: "manual"})
	}
	_, err := ws.v.AddBatch(ctx, filler)
	require.NoError(t, err)
	for _, c := range []string{"Check the exit code of every command a task runs.", "Pin tool versions in go.mod."} {
		_, err := ws.v.LearnAs(ctx, engvault.ByLearning, engvault.Node{Type: engvault.Pattern, Content: c, Confidence: 0.8})
		require.NoError(t, err)
	}
	list, err := ws.ListArchived(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2, "the cap archived two nodes")
	return ws
}

func TestArchiveGolden(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			a := newApp(t, fullVault(t), size[0], size[1])
			a.Press("a")
			golden.RequireEqual(t, a.Pinned())
			a.Press("enter")
			checkFits(t, a.Plain(), size, "restore dialog")
			a.Press("y")
			checkFits(t, a.Plain(), size, "refused restore")
		})
	}
}

func TestArchiveRestoreIsConfirmedAndRefusedOverTheCap(t *testing.T) {
	t.Parallel()
	ws := fullVault(t)
	ctx := context.Background()
	a := newApp(t, ws, 120, 40)
	a.Press("a")
	out := a.Plain()
	assert.Contains(t, out, "2 archived nodes")
	assert.Contains(t, out, "Filler rule 13")
	assert.Contains(t, out, "made room for a learned node", "why it was archived")

	a.Press("enter")
	require.Contains(t, a.Plain(), "Restore node #")
	assert.True(t, a.page.Capturing(), "the dialog has the keyboard")
	a.Press("enter")
	assert.Contains(t, a.Plain(), "2 archived nodes", "enter answers the focused button, which is Cancel")
	a.Press("enter", "n")
	assert.Contains(t, a.Plain(), "2 archived nodes", "n cancels")

	// The vault is at its cap: the restore is refused, shown as an error.
	a.Press("enter", "y")
	out = a.Plain()
	assert.Contains(t, out, "Restore refused: the vault is full.")
	assert.Contains(t, out, "free tier keeps at most 500 vault nodes")
	assert.Contains(t, out, "2 archived nodes", "nothing left the archive")
	require.NotEmpty(t, a.Errs)
	assert.ErrorIs(t, a.Errs[len(a.Errs)-1], engvault.ErrOverCap)

	// Room made by hand: the restore goes through.
	list, err := ws.ListArchived(ctx)
	require.NoError(t, err)
	first := list[a.page.ArchiveCursor()].Node.ID
	require.NoError(t, ws.ForgetNode(ctx, 500))
	a.Press("enter", "y")
	out = a.Plain()
	assert.Contains(t, out, fmt.Sprintf("#%d restored", first))
	assert.Contains(t, out, "1 archived node")
	assert.NotContains(t, out, "Restore refused", "the error is gone")
	_, err = ws.v.Get(ctx, first)
	require.NoError(t, err, "back in the vault with its id")

	// a closes the archive.
	a.Press("a")
	assert.Contains(t, a.Plain(), "newest first")
}

func TestArchiveEmpty(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	a := newApp(t, ws, 100, 30)
	a.Press("a")
	assert.Contains(t, a.Plain(), "The archive is empty.")
	a.Press("esc")
	assert.Contains(t, a.Plain(), "/ search the vault")
}

// Issue 32: the conflicts view is nova's list: at 80×24 five pairs do not
// fit, the view says where it is, pgdn and G move the › through the pairs.
func TestConflictsScrollThroughList(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	ctx := context.Background()
	for _, e := range [][2]uint64{{3, 5}, {10, 12}, {11, 2}} {
		_, err := ws.v.Link(ctx, e[0], e[1], engvault.Contradicts, 0.9)
		require.NoError(t, err)
	}
	a := newApp(t, ws, 80, 24)
	a.Press("c")
	out := a.Plain()
	assert.Contains(t, out, "5 contradicting pairs")
	assert.Contains(t, out, "› 1/5 contradicts")
	assert.Regexp(t, `1/5 · ↓ \d+ more`, out, "the hidden pairs are counted")
	checkFits(t, out, [2]int{80, 24}, "conflicts")
	a.Press("pgdown")
	assert.NotContains(t, a.Plain(), "› 1/5 contradicts", "pgdn moved the cursor")
	a.Press("G")
	out = a.Plain()
	assert.Contains(t, out, "› 5/5 contradicts")
	assert.Contains(t, out, "5/5 · ↑")
	a.Press("g")
	assert.Contains(t, a.Plain(), "› 1/5 contradicts")
}

// Issue 32: a node's links are nova's list in its detail: at 80×24 eleven
// links do not fit the half of the panel they get, the list says where it
// is, ↓ and G move the ›, enter follows the chosen link.
func TestDetailLinksScroll(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws.v)
	ctx := context.Background()
	for _, to := range []uint64{3, 5, 6, 7, 8, 10, 11, 12} {
		_, err := ws.v.Link(ctx, 1, to, engvault.Supports, 0.5)
		require.NoError(t, err)
	}
	a := newApp(t, ws, 80, 24)
	a.Press("G", "enter")
	out := a.Plain()
	assert.Contains(t, out, "Links (11)")
	assert.Regexp(t, `› supports`, out)
	assert.Regexp(t, `1/11 · ↓ \d+ more`, out, "the hidden links are counted")
	checkFits(t, out, [2]int{80, 24}, "detail links")
	a.Press("down")
	assert.Contains(t, a.Plain(), "2/11 · ")
	a.Press("G")
	out = a.Plain()
	assert.Contains(t, out, "11/11 · ↑")
	assert.Regexp(t, `›\s+(supports|refines|contradicts)?\s*[─◀▶]+\s+\S+\s+#4 `, out, "the last link, #4 (refines), is chosen")
	a.Press("enter")
	out = a.Plain()
	assert.Contains(t, out, "Links (2)", "enter followed the link: #4 has two")
	assert.NotContains(t, out, "Links (11)")
}
