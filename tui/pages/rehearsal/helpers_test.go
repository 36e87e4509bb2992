package rehearsal

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
	t      testing.TB
	m      *Model
	toasts []string
	errs   []error
	navs   []common.NavigateMsg
}

func newPage(t testing.TB, ws Source, w, h int) *harness {
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
	for steps := 0; len(queue) > 0 && steps < 500; steps++ {
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
		case <-time.After(20 * time.Second):
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
		case common.NavigateMsg:
			h.navs = append(h.navs, msg)
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		default:
			if isBlink(msg) {
				continue
			}
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// isBlink drops the text input's cursor blinking, which would loop.
func isBlink(msg tea.Msg) bool {
	t := fmtType(msg)
	return t == "cursor.BlinkMsg" || t == "cursor.initialBlinkMsg" || t == "cursor.blinkCanceled"
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
