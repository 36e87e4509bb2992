package changes

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

// epoch is the fixed clock of the tests.
var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// testWS is a real workspace in a temp dir whose engine runs on a fixed
// clock, so goldens do not depend on the time they run. store is its
// changeset store, for staging fixtures.
type testWS struct {
	*engine.Local
	store *chg.Store
	root  string
}

func newWS(t *testing.T) *testWS {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true,
		Getenv: func(string) string { return "" }, Now: func() time.Time { return epoch }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return &testWS{Local: l, store: l.Changes(), root: root}
}

func (w *testWS) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func (w *testWS) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(b)
}

// stage puts files (path → proposed content, "" deletes) into a new
// changeset and returns its id.
func (w *testWS) stage(t *testing.T, meta chg.Meta, files ...[2]string) uint64 {
	t.Helper()
	d := w.store.NewDraft(meta)
	ctx := context.Background()
	for _, f := range files {
		var err error
		if f[1] == "" {
			_, err = d.Remove(ctx, f[0])
		} else {
			_, err = d.Put(ctx, f[0], []byte(f[1]))
		}
		require.NoError(t, err)
	}
	return d.ID()
}

type harness struct {
	t *testing.T
	m *Model
	d *tuitest.Driver
}

func newPage(t *testing.T, ws Source, w, h int) *harness {
	t.Helper()
	c := &common.Common{Ctx: context.Background(), Width: w, Height: h + 3,
		Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, ws)
	m.now = func() time.Time { return epoch.Add(90 * time.Minute) }
	m.SetSize(w, h)
	hs := &harness{t: t, m: m, d: tuitest.DriveComponent(t, m)}
	hs.run(m.Init())
	return hs
}

// run executes cmd and feeds every message back until it settles.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	h.d.Run(cmd)
}

func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	h.d.Send(msg)
}

func (h *harness) press(keys ...string) {
	h.t.Helper()
	h.d.Press(keys...)
}

func (h *harness) pinned() string { return h.d.Pinned() }

func (h *harness) plain() string { return h.d.Plain() }
