package vault_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	engvault "github.com/nova-dev/nova/engine/vault"
	vaultpage "github.com/nova-dev/nova/tui/pages/vault"
)

// archiveWS is the test workspace with an archive: nodes moved out of the
// vault (kept in memory here) that RestoreArchived puts back, or refuses as
// over the cap when full is set.
type archiveWS struct {
	*testWS
	mu       sync.Mutex
	archived []vaultpage.ArchivedNode
	full     bool
	restored []uint64
}

var _ vaultpage.ArchiveSource = (*archiveWS)(nil)

func (w *archiveWS) ListArchived(context.Context) ([]vaultpage.ArchivedNode, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.archived), nil
}

func (w *archiveWS) RestoreArchived(ctx context.Context, id uint64) (vaultpage.RestoreResult, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.full {
		return vaultpage.RestoreResult{}, fmt.Errorf("the free tier keeps 12 nodes and the vault holds 12: %w", vaultpage.ErrOverCap)
	}
	i := slices.IndexFunc(w.archived, func(a vaultpage.ArchivedNode) bool { return a.Node.ID == id })
	if i < 0 {
		return vaultpage.RestoreResult{}, engvault.ErrNotFound
	}
	a := w.archived[i]
	n := a.Node
	n.ID = 0
	if _, err := w.v.Add(ctx, n); err != nil {
		return vaultpage.RestoreResult{}, err
	}
	w.archived = slices.Delete(w.archived, i, i+1)
	w.restored = append(w.restored, id)
	return vaultpage.RestoreResult{Node: a.Node, Edges: len(a.Edges)}, nil
}

func newArchiveWS(t *testing.T) *archiveWS {
	t.Helper()
	ws := newWS(t)
	fill(t, ws.v)
	at := fixedNow.Add(-2 * time.Hour)
	return &archiveWS{testWS: ws, archived: []vaultpage.ArchivedNode{
		{Node: engvault.Node{ID: 31, Type: engvault.Strategy, Title: "Cache compiled templates", Content: "Parse each template once and keep it by source.", Confidence: 0.31, Source: "build:4/task:t2"},
			Edges: []engvault.Edge{{ID: 40, From: 31, To: 1, Relation: engvault.Supports}}, ArchivedAt: at,
			Reason: "made room for a learned node of confidence 0.72 (the free tier keeps 12 nodes)"},
		{Node: engvault.Node{ID: 27, Type: engvault.Mistake, Title: "Forgot to close the response body", Content: "An HTTP client leaked connections until the pool ran dry.", Confidence: 0.22, Source: "build:3/task:t5"},
			ArchivedAt: at.Add(-time.Hour), Reason: "made room for a learned node of confidence 0.64 (the free tier keeps 12 nodes)"},
	}}
}

func TestArchiveGolden(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newArchiveWS(t)
			a := newAppOver(t, ws, size[0], size[1])
			a.Press("a")
			golden.RequireEqual(t, a.Pinned())
			a.Press("enter")
			checkFits(t, a.Plain(), size, "restore dialog")
		})
	}
}

func TestArchiveRestoresAfterConfirmation(t *testing.T) {
	t.Parallel()
	ws := newArchiveWS(t)
	a := newAppOver(t, ws, 120, 40)
	a.Press("a")
	out := a.Plain()
	assert.Contains(t, out, "2 archived nodes")
	assert.Contains(t, out, "#31 Cache compiled templates")
	assert.Contains(t, out, "made room for a learned node", "why it was archived")

	a.Press("enter")
	require.Contains(t, a.Plain(), "Restore node #31?")
	assert.True(t, a.page.Capturing(), "the dialog has the keyboard")
	a.Press("enter")
	assert.Empty(t, ws.restored, "enter answers the focused button, which is Cancel")
	a.Press("enter", "n")
	assert.Empty(t, ws.restored, "n cancels")

	a.Press("enter", "y")
	assert.Equal(t, []uint64{31}, ws.restored)
	out = a.Plain()
	assert.Contains(t, out, "#31 restored with 1 link")
	assert.Contains(t, out, "1 archived node")
	assert.NotContains(t, out, "Cache compiled templates")

	// a closes the archive; the vault lists the restored node.
	a.Press("a")
	assert.Contains(t, a.Plain(), "newest first")
	st, err := ws.v.Stats(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 13, st.Nodes)
}

func TestArchiveShowsACapRefusalAsAnError(t *testing.T) {
	t.Parallel()
	ws := newArchiveWS(t)
	ws.full = true
	a := newAppOver(t, ws, 120, 40)
	a.Press("a", "down", "enter", "y")
	assert.Empty(t, ws.restored)
	out := a.Plain()
	assert.Contains(t, out, "restore #27")
	assert.Contains(t, out, "over the tier's vault node cap")
	assert.Contains(t, out, "The vault is full", "the view says what to do")
	assert.Contains(t, out, "2 archived nodes", "nothing left the archive")
	require.NotEmpty(t, a.Errs)
	assert.ErrorIs(t, a.Errs[len(a.Errs)-1], vaultpage.ErrOverCap)
}

func TestArchiveEmptyAndUnavailable(t *testing.T) {
	t.Parallel()
	ws := newArchiveWS(t)
	ws.archived = nil
	a := newAppOver(t, ws, 100, 30)
	a.Press("a")
	assert.Contains(t, a.Plain(), "The archive is empty.")

	plain := newWS(t) // no archive verbs
	b := newApp(t, plain, 100, 30)
	b.Press("a")
	assert.Contains(t, b.Plain(), "The archive is not available here.")
	b.Press("esc")
	assert.Contains(t, b.Plain(), "/ search the vault")
}
