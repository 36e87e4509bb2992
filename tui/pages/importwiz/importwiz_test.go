package importwiz

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

// fakeWS is a real engine over a temp workspace whose .nova/patterns holds the test
// library, on a fixed clock, without an embedding model (no network). im and v are its
// importer and vault, for checks.
type fakeWS struct {
	*engine.Local
	root string
	im   *importer.Importer
	v    *vault.Vault
}

// library is written for these tests: two categories, a meta file and a broken file.
var library = map[string]string{
	"README.md":                     "# Test library\n\nA meta file.\n",
	"01-caching/cache-aside.md":     "# Cache Aside\n\n**Priority:** P1\n**Reusability:** 9/10\n\nRead the cache first; on a miss load from the store and fill the cache.\n\n## Example\n\n```go\nv, ok := cache.Get(k)\n```\n",
	"01-caching/ttl-jitter.md":      "# TTL Jitter\n\nSpread expiry times so entries do not all expire in the same second.\n",
	"01-caching/write-through.md":   "# Write Through\n\nWrite to the store and the cache together to keep them consistent.\n",
	"02-testing/golden-files.md":    "# Golden Files\n\n**Reusability:** 7/10\n\nCompare rendered output with a checked-in file; regenerate it with -update.\n",
	"02-testing/table-driven.md":    "# Table Driven Tests\n\nList cases in a slice and run each as a named subtest.\n",
	"03-broken/empty.md":            "\n\n",
	"04-more/fuzz-every-parser.md":  "# Fuzz Every Parser\n\nEvery parser gets a fuzz target seeded with real inputs.\n",
	"04-more/keyboard-first-tui.md": "# Keyboard First TUI\n\nEvery action has a key; the mouse is optional.\n",
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func newWS(t *testing.T) *fakeWS {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(filepath.Join(root, ".nova", "patterns")))
	writeTree(t, filepath.Join(root, ".nova", "patterns"), library)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), []byte("version: 1\nmodels:\n  embed: \"\"\n"), 0o644))
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true,
		Getenv: func(string) string { return "" }, Now: func() time.Time { return clock }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return &fakeWS{Local: l, root: root, im: l.Importer(), v: l.Vault()}
}

func newPage(t *testing.T, ws Source, w, h int) *Model {
	t.Helper()
	c := &common.Common{
		Ctx:    context.Background(),
		Styles: themes.Build(themes.NovaDark),
		KeyMap: keymap.DefaultKeyMap(),
	}
	m := New(c, ws)
	// A blinking cursor is a timer; tests have no use for it.
	st := c.Styles.TextInput
	st.Cursor.Blink = false
	for _, in := range []*textinput.Model{&m.filter, &m.form.confidence, &m.form.threshold, &m.form.user} {
		in.SetStyles(st)
	}
	m.SetSize(w, h)
	drivers.Store(m, tuitest.DriveComponent(t, m))
	t.Cleanup(func() { drivers.Delete(m) })
	drive(t, m, m.Init())
	return m
}

// drivers holds the test runtime of each page newPage built.
var drivers sync.Map // *Model -> *tuitest.Driver

func driverOf(m *Model) *tuitest.Driver {
	d, _ := drivers.Load(m)
	return d.(*tuitest.Driver)
}

// drive runs cmd and feeds every resulting message back into m until it
// settles.
func drive(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	driverOf(m).Run(cmd)
}

// press sends keys ("enter", "esc", "tab", "space", "up", "down", or runes).
func press(t *testing.T, m *Model, keys ...string) {
	t.Helper()
	driverOf(m).Press(keys...)
}

func pinned(t *testing.T, m *Model) string {
	t.Helper()
	return tuitest.Pinned(m.View())
}

// plain is the view without any escape sequence.
func plain(m *Model) string { return ansi.Strip(m.View()) }

func stats(t *testing.T, ws *fakeWS) vault.Stats {
	t.Helper()
	st, err := ws.v.Stats(context.Background())
	require.NoError(t, err)
	return st
}

// checkFits asserts the view is exactly h lines of at most w cells.
func checkFits(t *testing.T, m *Model, w, h int, what string) {
	t.Helper()
	lines := strings.Split(plain(m), "\n")
	assert.Len(t, lines, h, "%s %dx%d", what, w, h)
	for i, l := range lines {
		assert.LessOrEqual(t, lipgloss.Width(l), w, "%s %dx%d line %d: %q", what, w, h, i, l)
	}
}

// steps drives a page through every step, calling visit at each.
func steps(t *testing.T, m *Model, visit func(name string)) {
	t.Helper()
	visit("source")
	// A scan in progress (its state, as the progress messages leave it).
	saved := m.step
	m.step, m.source, m.prog = stepScan, m.defaultSource(), importer.Progress{Phase: importer.PhaseScan, Done: 4, Total: 9}
	visit("scan")
	m.step = saved
	press(t, m, "enter")
	require.Equal(t, stepPreview, m.step, m.note)
	visit("preview")
	press(t, m, "down", "enter")
	require.NotNil(t, m.detail)
	visit("detail")
	press(t, m, "esc", "tab")
	require.Equal(t, stepOptions, m.step)
	visit("options")
	saved = m.step
	m.step, m.prog = stepImport, importer.Progress{Phase: importer.PhaseWrite, Done: 3, Total: 8}
	visit("import")
	m.step = saved
	press(t, m, "enter")
	require.Equal(t, stepSummary, m.step, m.note)
	visit("summary")
	press(t, m, "u")
	require.True(t, m.confirm.Active())
	visit("undo_confirm")
	press(t, m, "y")
	require.NotNil(t, m.undone)
	visit("undone")
}

func TestGoldenSteps(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newWS(t)
			m := newPage(t, ws, size[0], size[1])
			steps(t, m, func(name string) {
				t.Run(name, func(t *testing.T) { golden.RequireEqual(t, pinned(t, m)) })
			})
		})
	}
}

func TestEveryStepFitsEverySize(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {160, 48}, {200, 60}, {250, 70}} {
		ws := newWS(t)
		m := newPage(t, ws, size[0], size[1])
		steps(t, m, func(name string) { checkFits(t, m, size[0], size[1], name) })
	}
}

func TestWizardImportsAndUndoes(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	m := newPage(t, ws, 120, 40)
	assert.Contains(t, plain(m), ".nova/patterns", "the shipped library is the default source")
	assert.Contains(t, plain(m), "01-caching/")

	press(t, m, "enter")
	require.Equal(t, stepPreview, m.step)
	assert.Equal(t, 9, m.preview.Files)
	assert.Equal(t, 7, m.preview.New)
	assert.Equal(t, 1, m.preview.Errors)
	assert.Zero(t, stats(t, ws).Nodes, "scanning writes nothing")

	press(t, m, "tab", "enter")
	require.Equal(t, stepSummary, m.step)
	require.NotNil(t, m.result)
	out := plain(m)
	assert.Contains(t, out, "Imported 7 of 9 files into the vault (batch 1)")
	assert.Contains(t, out, "03-broken/empty.md")
	assert.Contains(t, out, "empty file")
	st := stats(t, ws)
	assert.Equal(t, 7, st.Nodes)

	// The source is remembered.
	recents, err := ws.im.RecentSources(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(ws.root, ".nova", "patterns")}, recents)
	assert.Equal(t, recents, m.recents)

	// Open in the vault browser: a navigation to the vault with a node id.
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'v', Text: "v"})
	require.NotNil(t, cmd)
	nav, ok := cmd().(common.NavigateMsg)
	require.True(t, ok)
	assert.Equal(t, "vault", nav.Page)
	assert.NotNil(t, nav.Arg)

	helpHas := func(desc string) bool {
		for _, row := range m.FullHelp() {
			for _, b := range row {
				if b.Help().Desc == desc {
					return true
				}
			}
		}
		return false
	}
	assert.True(t, helpHas("undo this batch (asks first)"), "help lists undo while the batch can be undone")

	// Undo asks first; "n" keeps the batch.
	press(t, m, "u")
	assert.Contains(t, plain(m), "Undo import batch 1?")
	press(t, m, "n")
	assert.Equal(t, 7, stats(t, ws).Nodes)
	press(t, m, "u", "y")
	assert.Zero(t, stats(t, ws).Nodes)
	assert.Contains(t, plain(m), "Batch 1 undone")
	press(t, m, "u")
	assert.False(t, m.confirm.Active(), "an undone batch cannot be undone again")
	assert.False(t, helpHas("undo this batch (asks first)"), "help no longer offers undo once the batch is undone")
	for _, b := range m.ShortHelp() {
		assert.NotEqual(t, "u", b.Help().Key, "the short help drops undo too")
	}

	// Enter starts over at the source step, which now lists the recent source.
	press(t, m, "enter")
	assert.Equal(t, stepSource, m.step)
	assert.Contains(t, plain(m), "Recent sources")
}

func TestPreviewSortFilterToggle(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	m := newPage(t, ws, 160, 48)
	press(t, m, "enter")
	require.Equal(t, stepPreview, m.step)
	require.NotEmpty(t, m.rows)
	assert.Equal(t, "01-caching/cache-aside.md", m.rows[0].SourceFile, "path order first")

	press(t, m, "o")
	assert.Equal(t, "title", sortNames[m.sortBy])
	for i := 1; i < len(m.rows); i++ {
		assert.LessOrEqual(t, strings.ToLower(m.rows[i-1].Title), strings.ToLower(m.rows[i].Title))
	}
	press(t, m, "o", "o", "o", "o", "o", "o")
	assert.Equal(t, "path", sortNames[m.sortBy], "o cycles back")

	press(t, m, "/")
	assert.True(t, m.Capturing(), "the filter takes letters")
	press(t, m, "c", "a", "c", "h", "e")
	assert.Len(t, m.rows, 1)
	assert.Equal(t, "01-caching/cache-aside.md", m.rows[0].SourceFile)
	press(t, m, "enter")
	assert.False(t, m.Capturing())
	assert.Contains(t, plain(m), "/ cache")

	// space excludes the row; the preview counts follow.
	press(t, m, "space")
	assert.True(t, m.excluded["01-caching/cache-aside.md"])
	assert.Equal(t, 1, m.preview.Excluded)
	assert.Equal(t, 6, m.preview.New)
	press(t, m, "esc")
	assert.Len(t, m.rows, 9, "esc clears the filter first")
	press(t, m, "tab", "enter")
	require.Equal(t, stepSummary, m.step)
	assert.Equal(t, 6, stats(t, ws).Nodes, "the excluded file is not imported")
	assert.Equal(t, 1, m.result.Excluded)

	// Meta files and failures cannot be toggled.
	m2 := newPage(t, newWS(t), 120, 40)
	press(t, m2, "enter")
	for i, r := range m2.rows {
		if r.SourceFile == "README.md" || r.SourceFile == "03-broken/empty.md" {
			m2.tbl.SetCursor(i)
			press(t, m2, "space")
			assert.False(t, m2.excluded[r.SourceFile], r.SourceFile)
		}
	}
}

func TestOptionsAndDryRun(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	m := newPage(t, ws, 120, 40)
	press(t, m, "enter", "tab")
	require.Equal(t, stepOptions, m.step)
	assert.False(t, m.Capturing(), "the first field is a switch: ? and q still work")

	// A bad confidence is refused with a message and nothing starts.
	press(t, m, "down")
	assert.True(t, m.Capturing())
	press(t, m, "backspace", "backspace", "backspace", "backspace", "9")
	press(t, m, "enter")
	assert.Equal(t, stepOptions, m.step)
	assert.Contains(t, plain(m), "base confidence")
	press(t, m, "backspace", "0", ".", "9")
	// Down to the user field: a new namespace.
	press(t, m, "down", "down")
	for range len("bistrolens-import") {
		press(t, m, "backspace")
	}
	press(t, m, "t", "e", "a", "m")
	// Dry run on.
	press(t, m, "down", "space")
	require.True(t, m.form.dryRun)
	press(t, m, "enter")
	require.Equal(t, stepSummary, m.step)
	assert.True(t, m.result.DryRun)
	assert.Contains(t, plain(m), "Dry run: 7 of 9 files would be imported. Nothing was written.")
	assert.Zero(t, stats(t, ws).Nodes)
	press(t, m, "u")
	assert.False(t, m.confirm.Active(), "nothing to undo after a dry run")

	// The real import with the same options: user and base confidence applied.
	press(t, m, "enter", "enter", "tab")
	assert.True(t, m.form.dryRun, "options are kept for the next import")
	press(t, m, "up", "space", "down", "down")
	require.False(t, m.form.dryRun)
	press(t, m, "backspace", "backspace", "backspace", "backspace", "0", ".", "9")
	press(t, m, "down", "down")
	for range len("bistrolens-import") {
		press(t, m, "backspace")
	}
	press(t, m, "t", "e", "a", "m", "enter")
	require.Equal(t, stepSummary, m.step, m.note)
	page, err := ws.v.List(context.Background(), vault.ListOptions{UserID: "team"})
	require.NoError(t, err)
	assert.Equal(t, 7, page.Total)
	n, err := ws.v.Get(context.Background(), m.result.Nodes[0].ID)
	require.NoError(t, err)
	assert.InDelta(t, 0.99, n.Confidence, 1e-9, "0.9 + 9×0.01")
}

func TestEscGoesBackAStep(t *testing.T) {
	t.Parallel()
	m := newPage(t, newWS(t), 100, 30)
	press(t, m, "enter")
	require.Equal(t, stepPreview, m.step)
	press(t, m, "enter")
	require.NotNil(t, m.detail)
	press(t, m, "esc")
	assert.Nil(t, m.detail)
	assert.Equal(t, stepPreview, m.step)
	press(t, m, "tab")
	assert.Equal(t, stepOptions, m.step)
	press(t, m, "esc")
	assert.Equal(t, stepPreview, m.step)
	press(t, m, "esc")
	assert.Equal(t, stepSource, m.step)
	for _, st := range []step{stepSource, stepScan, stepPreview, stepOptions, stepImport, stepSummary} {
		m.step = st
		assert.NotEmpty(t, m.FullHelp(), "? help on every step (%d)", st)
		assert.NotEmpty(t, m.ShortHelp())
	}
}

func TestCancelledImportWritesNothing(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	m := newPage(t, ws, 120, 40)
	press(t, m, "enter", "tab")
	cmd := m.startImport()
	require.Equal(t, stepImport, m.step)
	assert.Contains(t, plain(m), "esc cancels")
	press(t, m, "esc") // before the import even ran: its context is cancelled
	assert.Equal(t, stepOptions, m.step)
	assert.Contains(t, plain(m), "nothing was written")
	drive(t, m, cmd)
	assert.Equal(t, stepOptions, m.step, "the abandoned import's result is dropped")
	assert.Zero(t, stats(t, ws).Nodes)
	list, err := ws.im.Batches(context.Background())
	require.NoError(t, err)
	assert.Empty(t, list)
}

func TestPickerNavigation(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeTree(t, filepath.Join(ws.root, "other"), map[string]string{"x/a.md": "# A\n\nAlpha.\n"})
	m := newPage(t, ws, 100, 30)
	press(t, m, "left") // .nova
	press(t, m, "left") // workspace root
	assert.Contains(t, plain(m), "other/")
	for i, d := range m.picker.dirs {
		if d.name == "other" {
			m.picker.rows.SetCursor(i + 1)
		}
	}
	press(t, m, "right")
	assert.Equal(t, filepath.Join(ws.root, "other"), m.picker.path)
	assert.Contains(t, plain(m), "x/")
	press(t, m, "enter")
	require.Equal(t, stepPreview, m.step)
	assert.Equal(t, 1, m.preview.New)

	// An empty folder: the empty state.
	require.NoError(t, os.MkdirAll(filepath.Join(ws.root, "empty"), 0o755))
	press(t, m, "esc")
	drive(t, m, m.picker.list(filepath.Join(ws.root, "empty")))
	press(t, m, "enter")
	require.Equal(t, stepPreview, m.step)
	assert.Contains(t, plain(m), "No markdown files in empty")

	// A folder that vanished: the scan fails with a clear note, back on the source step.
	press(t, m, "esc")
	drive(t, m, m.picker.list(filepath.Join(ws.root, "gone")))
	assert.Contains(t, plain(m), "cannot read this folder")
	press(t, m, "enter")
	assert.Equal(t, stepSource, m.step)
	assert.Contains(t, plain(m), "Cannot import gone")
}

func TestScanOfAFolderThatCannotBeRead(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	m := newPage(t, ws, 100, 30)
	drive(t, m, m.startScan(filepath.Join(ws.root, "gone")))
	assert.Equal(t, stepSource, m.step, "a failed scan goes back to the source step")
	assert.Contains(t, plain(m), "Cannot import")
	assert.Empty(t, stats(t, ws).Nodes, "nothing is written")
}

func TestTypedPathWithCompletion(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeTree(t, filepath.Join(ws.root, "libs", "go-patterns"), map[string]string{"errors/wrap.md": "# Wrap\n\nWrap errors with context.\n"})
	m := newPage(t, ws, 100, 30)
	// Relative paths start at the workspace: "li" + tab completes the folder.
	press(t, m, ".")
	require.True(t, m.Capturing(), "the path field takes letters")
	press(t, m, "/", "l", "i", "tab")
	assert.Equal(t, "./libs/", m.path.Value())
	press(t, m, "tab")
	assert.Equal(t, "./libs/go-patterns/", m.path.Value())
	out := plain(m)
	assert.Contains(t, out, "✓ folder")
	// A typo is refused as you type; enter does nothing.
	press(t, m, "x")
	assert.Contains(t, plain(m), "✗ no such folder")
	press(t, m, "enter")
	assert.Equal(t, stepSource, m.step)
	press(t, m, "backspace", "enter")
	require.Equal(t, stepPreview, m.step, m.note)
	assert.Contains(t, plain(m), "libs/go-patterns", "the typed folder is scanned")
	assert.Contains(t, plain(m), "Wrap")

	// esc leaves the field for the folder list; q is a letter while typing.
	press(t, m, "esc")
	require.Equal(t, stepSource, m.step)
	press(t, m, "/")
	assert.True(t, m.path.Focused())
	assert.Equal(t, "/", m.path.Value(), "/ starts an absolute path")
	press(t, m, "esc")
	assert.False(t, m.Capturing())
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		m := newPage(t, ws, size[0], size[1]-3)
		press(t, m, "~")
		checkFits(t, m, size[0], size[1]-3, "typed path")
	}
}
