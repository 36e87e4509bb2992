package changes

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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
	t      *testing.T
	m      *Model
	toasts []string
	errs   []error
}

func newPage(t *testing.T, ws Source, w, h int) *harness {
	t.Helper()
	c := &common.Common{Ctx: context.Background(), Width: w, Height: h + 3,
		Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, ws)
	m.now = func() time.Time { return epoch.Add(90 * time.Minute) }
	m.SetSize(w, h)
	hs := &harness{t: t, m: m}
	hs.run(m.Init())
	return hs
}

// run executes cmd and feeds every message back, breadth first.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0 && steps < 200; steps++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		var msg tea.Msg
		select {
		case msg = <-ch:
		case <-time.After(10 * time.Second):
			h.t.Fatal("command did not finish")
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case common.ToastMsg:
			h.toasts = append(h.toasts, msg.Text)
		case common.ErrMsg:
			h.errs = append(h.errs, msg.Err)
		default:
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyPressMsg { return tuitest.Key(k) }

func (h *harness) pinned() string {
	h.t.Helper()
	return tuitest.Pinned(h.m.View())
}

func (h *harness) plain() string { return ansi.Strip(h.m.View()) }
