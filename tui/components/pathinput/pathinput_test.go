package pathinput_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/pathinput"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

func tree(t *testing.T) (base, home string) {
	t.Helper()
	root := t.TempDir()
	base, home = filepath.Join(root, "work"), filepath.Join(root, "home")
	for _, d := range []string{"work/patterns/errors", "work/patterns/testing", "work/prds", "work/.hidden", "home/libs/go-patterns"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for _, f := range []string{"work/patterns/README.md", "work/patterns/style.md", "work/prds/prd-shop.json", "home/libs/go-patterns/a.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644))
	}
	return base, home
}

func newInput(t *testing.T, kind pathinput.Kind, base, home string) (*pathinput.Model, *tuitest.Driver) {
	t.Helper()
	c := &common.Common{Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := pathinput.New(c, kind, base, home)
	m.SetWidth(70)
	d := tuitest.NewDriver(t, m.Update, func() string { return m.View(80) })
	return m, d
}

func TestCompletesAndValidatesAFolder(t *testing.T) {
	t.Parallel()
	base, home := tree(t)
	m, d := newInput(t, pathinput.Dir, base, home)
	d.Run(m.Focus(""))
	assert.Contains(t, d.Plain(), "tab completes")

	d.Type("pat")
	assert.Contains(t, d.Plain(), "✗ no such folder", "validated as you type")
	d.Press("tab")
	assert.Equal(t, "patterns/", m.Value(), "tab completes the only match")
	out := d.Plain()
	assert.Contains(t, out, "✓ folder · 2 markdown files directly in it")
	assert.Contains(t, out, "errors/  testing/", "the next level's choices")
	assert.True(t, m.Valid())
	assert.Equal(t, filepath.Join(base, "patterns")+"/", m.Resolve())

	d.Type("e")
	d.Press("tab")
	assert.Equal(t, "patterns/errors/", m.Value())

	// A file is not a folder.
	d.Run(m.Focus("patterns/style.md"))
	assert.Contains(t, d.Plain(), "✗ a file, not a folder")
	assert.False(t, m.Valid())
}

func TestTildeIsTheHomeFolder(t *testing.T) {
	t.Parallel()
	base, home := tree(t)
	m, d := newInput(t, pathinput.Dir, base, home)
	d.Run(m.Focus("~/li"))
	d.Press("tab")
	assert.Equal(t, "~/libs/", m.Value())
	d.Press("tab")
	assert.Equal(t, "~/libs/go-patterns/", m.Value())
	assert.True(t, m.Valid())
	assert.Equal(t, filepath.Join(home, "libs", "go-patterns")+"/", m.Resolve())
	assert.Contains(t, d.Plain(), "1 markdown file directly in it")
}

func TestFileKindOpensAnyFile(t *testing.T) {
	t.Parallel()
	base, home := tree(t)
	m, d := newInput(t, pathinput.File, base, home)
	d.Run(m.Focus("prds/"))
	assert.Contains(t, d.Plain(), "a folder: type a file in it")
	d.Press("tab")
	assert.Equal(t, "prds/prd-shop.json", m.Value(), "files complete too")
	assert.Contains(t, d.Plain(), "✓ file")
	assert.True(t, m.Valid())

	// Hidden entries are offered only when asked for.
	d.Run(m.Focus(""))
	d.Press("tab")
	assert.NotContains(t, m.Value(), ".hidden")
	out := d.Plain()
	assert.Contains(t, out, "patterns/  prds/")
	assert.NotContains(t, out, ".hidden")
}

func TestStaleLookupsAreDropped(t *testing.T) {
	t.Parallel()
	base, home := tree(t)
	m, d := newInput(t, pathinput.Dir, base, home)
	d.Run(m.Focus(""))
	// Keys typed faster than the look-ups answer: only the last one counts.
	d.Type("patterns")
	assert.True(t, m.Valid())
	assert.Contains(t, d.Plain(), "✓ folder")
	for _, l := range strings.Split(ansi.Strip(d.View()), "\n") {
		assert.LessOrEqual(t, ansi.StringWidth(l), 80)
	}
}
