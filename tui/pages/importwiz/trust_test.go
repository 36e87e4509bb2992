package importwiz

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// fill adds nodes until the vault holds n.
func fill(t *testing.T, ws *fakeWS, n int) {
	t.Helper()
	nodes := make([]vault.Node, n-stats(t, ws).Nodes)
	for i := range nodes {
		nodes[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("filler rule number %d", i), Confidence: 0.5}
	}
	_, err := ws.v.AddBatch(context.Background(), nodes)
	require.NoError(t, err)
}

// Regression (issue 10): an import over the tier's cap is shown and
// disabled before anything is written.
func TestImportOverTheCapIsDisabled(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	fill(t, ws, 495)
	m := newPage(t, ws, 120, 36)
	press(t, m, "enter")
	require.Equal(t, stepPreview, m.step, m.note)
	require.NotNil(t, m.preview.OverCap, "the preview says the import goes over the cap")
	assert.Contains(t, plain(m), "⊘ import disabled: the free tier keeps at most 500 nodes; this import would bring the vault to 502")

	press(t, m, "tab")
	require.Equal(t, stepOptions, m.step)
	assert.Contains(t, plain(m), "Import disabled: it would bring the vault to 502 nodes; the free tier keeps 500")
	assert.Contains(t, plain(m), "NOVA_TIER=premium")
	press(t, m, "enter")
	assert.Equal(t, stepOptions, m.step, "enter does not import")
	assert.Contains(t, m.note, "Import disabled")
	assert.Equal(t, 495, stats(t, ws).Nodes, "nothing was written")
	batches, err := ws.ListImports(context.Background())
	require.NoError(t, err)
	assert.Empty(t, batches)
}

func TestForgottenFilesAreCounted(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	m := newPage(t, ws, 120, 36)
	press(t, m, "enter", "tab", "enter")
	require.Equal(t, stepSummary, m.step, m.note)
	require.NotEmpty(t, m.result.Nodes)
	var id uint64
	for _, n := range m.result.Nodes {
		if n.ID != 0 {
			id = n.ID
			break
		}
	}
	require.NotZero(t, id)
	require.NoError(t, ws.ForgetNode(context.Background(), id))

	m2 := newPage(t, ws, 120, 36)
	press(t, m2, "enter")
	require.Equal(t, stepPreview, m2.step, m2.note)
	assert.Equal(t, 1, m2.preview.Forgotten)
	assert.Contains(t, plain(m2), "1 forgotten")
}

func TestGoldenOverTheCap(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newWS(t)
			fill(t, ws, 495)
			m := newPage(t, ws, size[0], size[1]-3)
			press(t, m, "enter")
			require.NotNil(t, m.preview.OverCap)
			checkFits(t, m, size[0], size[1]-3, "preview over the cap")
			t.Run("preview", func(t *testing.T) { golden.RequireEqual(t, pinned(t, m)) })
			press(t, m, "tab")
			checkFits(t, m, size[0], size[1]-3, "options over the cap")
			t.Run("options", func(t *testing.T) { golden.RequireEqual(t, pinned(t, m)) })
		})
	}
}

// Issue 32: the recent sources are nova's list: at 80×24 six do not fit
// the four rows, the panel says so, tab then pgdn/G move the › through
// them (newest first, as the engine lists them) and → opens the chosen one.
func TestRecentSourcesScroll(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	var dirs []string
	for i := range 6 {
		d := filepath.Join(ws.root, fmt.Sprintf("lib%d", i))
		require.NoError(t, os.MkdirAll(d, 0o755))
		dirs = append(dirs, d)
	}
	m := newPage(t, ws, 80, 24)
	driverOf(m).Send(recentMsg{dirs: dirs})
	out := plain(m)
	assert.Contains(t, out, "Recent sources")
	assert.Regexp(t, `1/6 · ↓ \d+ more`, out, "the hidden sources are counted")
	checkFits(t, m, 80, 24, "recent sources")
	press(t, m, "tab", "pgdown")
	r, _ := m.recentList.Selected()
	assert.NotEqual(t, dirs[0], r, "pgdn moved the cursor")
	press(t, m, "G")
	r, _ = m.recentList.Selected()
	assert.Equal(t, dirs[5], r)
	assert.Contains(t, plain(m), "6/6 · ↑")
	press(t, m, "right")
	assert.False(t, m.recentFocus)
	assert.Equal(t, dirs[5], m.picker.path, "→ opened the chosen source")
	var descs []string
	for _, g := range m.FullHelp() {
		for _, k := range g {
			descs = append(descs, k.Help().Key+" "+k.Help().Desc)
		}
	}
	assert.Contains(t, strings.Join(descs, ", "), "tab folders / recent sources")
}

// Issue 32: the folder picker is nova's list too: at 80×24 a folder with
// 40 subfolders shows the › on "this folder" and says how many lie below;
// pgdn and G move through them (hidden folders last) and → opens the
// highlighted one.
func TestPickerScrollsManyFolders(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	many := filepath.Join(ws.root, "many")
	for i := range 39 {
		require.NoError(t, os.MkdirAll(filepath.Join(many, fmt.Sprintf("dir%02d", i), "inner"), 0o755))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(many, ".hidden"), 0o755))
	m := newPage(t, ws, 80, 24)
	drive(t, m, m.picker.list(many))
	out := plain(m)
	assert.Contains(t, out, "40 folders · 0 markdown files here")
	assert.Contains(t, out, "› ./  (this folder)", "the marker shows the cursor")
	assert.Regexp(t, `1/41 · ↓ \d+ more`, out, "the hidden folders are counted")
	checkFits(t, m, 80, 24, "many folders")

	press(t, m, "pgdown")
	require.Positive(t, m.picker.rows.Cursor(), "pgdn moved the cursor")
	d, _ := m.picker.rows.Selected()
	out = plain(m)
	assert.Contains(t, out, "› "+d.name+"/")
	assert.Regexp(t, `\d+/41 · ↑ \d+ · ↓ \d+ more`, out)
	checkFits(t, m, 80, 24, "many folders, paged")

	press(t, m, "G")
	d, _ = m.picker.rows.Selected()
	assert.Equal(t, ".hidden", d.name, "hidden folders come last")
	assert.Contains(t, plain(m), "41/41 · ↑")

	press(t, m, "up", "right")
	assert.Equal(t, filepath.Join(many, "dir38"), m.picker.path, "→ opened the highlighted folder")
	out = plain(m)
	assert.Contains(t, out, "inner/")
	assert.NotContains(t, out, "41", "a short folder has no scroll note")
}
