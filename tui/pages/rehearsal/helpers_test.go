package rehearsal

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
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	rh "github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// testWS is a real premium workspace whose engine talks to a fake Ollama
// and runs on a fixed clock. svc is its rehearsal service, for fixtures.
type testWS struct {
	*engine.Local
	svc  *rh.Service
	root string
}

func newWS(t testing.TB, script rehearsaltest.Script) *testWS {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"),
		ollamatest.WithHandler(rehearsaltest.Handler(script, 0, nil)))
	env := map[string]string{"OLLAMA_HOST": srv.URL(), "NOVA_TIER": "premium"}
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true,
		Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return epoch }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	w := &testWS{Local: l, svc: l.Rehearsals(), root: root}
	w.write(t, "calc/calc.go", "package calc\n")
	return w
}

func (w *testWS) write(t testing.TB, rel, content string) {
	t.Helper()
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func (w *testWS) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(w.root, filepath.FromSlash(rel)))
	return err == nil
}

func (w *testWS) read(t testing.TB, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(b)
}

// rehearse stores a pending session with n branches.
func (w *testWS) rehearse(t testing.TB, n int) rh.Session {
	t.Helper()
	ss, err := w.svc.Rehearse(context.Background(), rh.Request{
		Task: taskT1(), Branches: n, Force: true})
	require.NoError(t, err)
	return ss
}

type harness struct {
	t testing.TB
	m *Model
	d *tuitest.Driver
}

func newPage(t testing.TB, ws Source, w, h int) *harness {
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
