package tui_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui"
	"github.com/nova-dev/nova/tui/tuitest"
)

// fakeWS is a deterministic workspace for golden views: a real engine over
// an empty temp workspace, with the header's facts (info, config, counts,
// Ollama) and the event stream replaced by fixed values.
type fakeWS struct {
	*engine.Local
	mu      sync.Mutex
	cfg     workspace.Config
	sum     engine.Summary
	ollama  engine.OllamaStatus
	themes  []string
	events  chan engine.Event
	running []uint64 // RunningBuilds
}

func newFake(t testing.TB) *fakeWS {
	cfg := workspace.Defaults()
	return &fakeWS{
		Local: tuitest.Workspace(t, time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)),
		cfg:   cfg,
		sum: engine.Summary{Root: "/home/dev/shop", Tier: "free", Autonomy: 2, Theme: cfg.Theme, SchemaVersion: 1,
			VaultNodes: 42, Playbooks: 3, Builds: 1, PendingApprovals: 2, Facts: 7, Docs: 3},
		ollama: engine.OllamaStatus{
			Host: "http://127.0.0.1:11434", Reachable: true, Version: "0.12.3",
			Models: []llm.Model{{Name: "qwen2.5-coder:1.5b"}, {Name: "qwen2.5-coder:7b"}},
			Tiers: []engine.TierModel{
				{Tier: "small", Model: "qwen2.5-coder:1.5b", Installed: true},
				{Tier: "medium", Model: "qwen2.5-coder:7b", Installed: true},
				{Tier: "large", Model: "qwen2.5-coder:14b"},
				{Tier: "embed", Model: "nomic-embed-text", Optional: true},
			},
		},
		events: make(chan engine.Event, 16),
	}
}

func (f *fakeWS) Info() engine.Info {
	return engine.Info{Root: "/home/dev/shop", DBPath: "/home/dev/shop/.nova/nova.db"}
}
func (f *fakeWS) Config() workspace.Config                      { f.mu.Lock(); defer f.mu.Unlock(); return f.cfg }
func (f *fakeWS) Subscribe(context.Context) <-chan engine.Event { return f.events }
func (f *fakeWS) Summary(context.Context) (engine.Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sum, nil
}
func (f *fakeWS) Ollama(context.Context) (engine.OllamaStatus, error) { return f.ollama, nil }
func (f *fakeWS) SetTheme(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.themes = append(f.themes, name)
	f.cfg.Theme = name
	return nil
}
func (f *fakeWS) Close() error { return nil } // the test closes the engine
func (f *fakeWS) RunningBuilds(context.Context) ([]uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]uint64{}, f.running...), nil
}

// drive runs cmd and feeds every resulting message back into m, level by
// level. Commands of one level run concurrently and share one deadline, so
// blocking ones (timers, the event wait) cost one wait per level, not one per
// command, and slow data fetches under load are not dropped.
func drive(t *testing.T, m tea.Model, cmd tea.Cmd) tea.Model {
	t.Helper()
	return driveWithin(m, cmd, 50*time.Millisecond)
}

func driveWithin(m tea.Model, cmd tea.Cmd, wait time.Duration) tea.Model {
	level := []tea.Cmd{cmd}
	for depth := 0; len(level) > 0 && depth < 20; depth++ {
		msgs := runLevel(level, wait)
		level = nil
		for _, msg := range msgs {
			switch msg := msg.(type) {
			case nil:
			case tea.BatchMsg:
				level = append(level, msg...)
			default:
				var next tea.Cmd
				m, next = m.Update(msg)
				level = append(level, next)
			}
		}
	}
	return m
}

// runLevel runs cmds concurrently and returns, in order, the messages of
// those that finished before the deadline (nil for the rest).
func runLevel(cmds []tea.Cmd, wait time.Duration) []tea.Msg {
	out := make([]tea.Msg, len(cmds))
	type res struct {
		i   int
		msg tea.Msg
	}
	ch := make(chan res, len(cmds))
	pending := 0
	for i, c := range cmds {
		if c == nil {
			continue
		}
		pending++
		go func(i int, c tea.Cmd) { ch <- res{i, c()} }(i, c)
	}
	deadline := time.After(wait)
	for pending > 0 {
		select {
		case r := <-ch:
			out[r.i] = r.msg
			pending--
		case <-deadline:
			return out
		}
	}
	return out
}

// runCmd runs a command but gives up on ones that block (ticks, waits).
func runCmd(c tea.Cmd) tea.Msg {
	return runLevel([]tea.Cmd{c}, 50*time.Millisecond)[0]
}

func newModel(t *testing.T, ws engine.Workspace, w, h int) tea.Model {
	t.Helper()
	m := tui.New(context.Background(), ws, tui.Options{})
	var model tea.Model = m
	// Start-up fetches may be slow on a loaded machine: give them time.
	model = driveWithin(model, model.Init(), 500*time.Millisecond)
	model, _ = model.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return model
}

func press(t *testing.T, m tea.Model, keys ...string) tea.Model {
	t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		m, cmd = m.Update(tuitest.Key(k))
		m = drive(t, m, cmd)
	}
	return m
}

// pinned renders the view through the ANSI256 colour profile, so goldens do
// not depend on the terminal running the tests.
func pinned(t *testing.T, m tea.Model) string {
	t.Helper()
	return tuitest.Pinned(m.View().Content)
}

func plain(m tea.Model) string { return tuitest.Plain(m.View().Content) }

func TestGoldenViews(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("home_%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			m := newModel(t, newFake(t), size[0], size[1])
			golden.RequireEqual(t, pinned(t, m))
		})
		t.Run(fmt.Sprintf("help_%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			m := press(t, newModel(t, newFake(t), size[0], size[1]), "?")
			golden.RequireEqual(t, pinned(t, m))
		})
	}
}

func TestLayoutFitsEverySize(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {160, 48}, {200, 60}, {250, 70}} {
		m := newModel(t, newFake(t), size[0], size[1])
		for _, overlay := range []string{"", "?"} {
			v := m
			if overlay != "" {
				v = press(t, m, overlay)
			}
			lines := strings.Split(plain(v), "\n")
			assert.Len(t, lines, size[1], "%dx%d overlay=%q", size[0], size[1], overlay)
			for i, l := range lines {
				assert.LessOrEqual(t, lipgloss.Width(l), size[0], "%dx%d line %d too wide: %q", size[0], size[1], i, l)
			}
		}
	}
}

func TestTooSmallTerminal(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 60, 20)
	out := plain(m)
	assert.Contains(t, out, "nova needs a bigger window")
	assert.Contains(t, out, "60×20")
	m, _ = m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	assert.Contains(t, plain(m), "Workspace")
}

func TestHomeShowsCountsAndOllama(t *testing.T) {
	t.Parallel()
	out := plain(newModel(t, newFake(t), 160, 48))
	for _, want := range []string{"42", "vault nodes", "approvals", "online", "qwen2.5-coder:14b", "ollama pull qwen2.5-coder:14b", "/home/dev/shop"} {
		assert.Contains(t, out, want)
	}
	ws := newFake(t)
	ws.ollama = engine.OllamaStatus{Host: "http://127.0.0.1:1", Error: "connection refused"}
	ws.sum.VaultNodes = 0
	out = plain(newModel(t, ws, 120, 40))
	assert.Contains(t, out, "offline")
	assert.Contains(t, out, "ollama serve")
	assert.Contains(t, out, "The vault is empty", "empty state guides the user")
}

func TestHomeRefreshesOnEvents(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	m := newModel(t, ws, 120, 40)
	ws.mu.Lock()
	ws.sum.VaultNodes = 4242
	ws.mu.Unlock()
	var cmd tea.Cmd
	m, cmd = m.Update(commonEvent(engine.Event{Type: engine.EventChanged, Topic: engine.TopicVault}))
	// The debounce tick fires after 150ms; run it for real.
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(plain(m), "4242") && time.Now().Before(deadline) {
		m = driveSlow(m, cmd)
		cmd = nil
	}
	assert.Contains(t, plain(m), "4242")
}

func TestPaletteSwitchesAndPersistsTheme(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	m := newModel(t, ws, 120, 40)
	m = press(t, m, "ctrl+p")
	assert.Contains(t, plain(m), "Commands")
	m = press(t, m, "l", "i", "g", "h", "t")
	out := plain(m)
	assert.Contains(t, out, "nova-light")
	assert.NotContains(t, out, "high-contrast", "the list filters as you type")
	m = press(t, m, "enter")
	assert.NotContains(t, plain(m), "Commands", "palette closes")
	assert.Equal(t, "nova-light", m.(*tui.Model).Common().Styles.Name)
	ws.mu.Lock()
	assert.Equal(t, []string{"nova-light"}, ws.themes, "the choice is persisted through the workspace")
	ws.mu.Unlock()
	assert.Contains(t, plain(m), "saved to config.yaml")
}

func TestUserThemeAndUnknownTheme(t *testing.T) {
	t.Parallel()
	reg := themes.NewRegistry()
	ws := newFake(t)
	ws.cfg.Theme = "missing-one"
	m := tui.New(context.Background(), ws, tui.Options{Themes: reg})
	var model tea.Model = m
	model, _ = model.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	assert.Equal(t, themes.DefaultName, m.Common().Styles.Name, "an unknown theme falls back to the default")
	assert.Contains(t, plain(model), "unknown theme")
}

// quits follows a quit key through the running-builds check: it reports
// whether the model quit (tea.QuitMsg) and the model after it.
func quits(t *testing.T, m tea.Model, k tea.KeyPressMsg) (tea.Model, bool) {
	t.Helper()
	m, cmd := m.Update(k)
	require.NotNil(t, cmd)
	msg := cmd()
	if _, ok := msg.(tea.QuitMsg); ok {
		return m, true
	}
	m, cmd = m.Update(msg) // the answer about running builds
	if cmd == nil {
		return m, false
	}
	_, ok := cmd().(tea.QuitMsg)
	return m, ok
}

func TestQuitKeys(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 100, 30)
	_, quit := quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	assert.True(t, quit, "no build runs: q quits at once")
	_, quit = quits(t, m, tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	assert.True(t, quit, "ctrl+c too")
	// q inside the palette filters instead of quitting.
	m = press(t, m, "ctrl+p")
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if cmd != nil {
		assert.NotEqual(t, tea.QuitMsg{}, runCmd(cmd))
	}
}

func TestErrorsShowInStatusBar(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 120, 30)
	m, _ = m.Update(commonErr(errors.New("vault is locked")))
	assert.Contains(t, plain(m), "vault is locked")
	m, _ = m.Update(commonErr(context.Canceled))
	assert.Contains(t, plain(m), "vault is locked", "a cancellation is not reported as a failure")
}

func TestHomeShowsRunningBuildsAndApprovals(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	ws.sum.RunningBuilds = 1
	out := plain(newModel(t, ws, 120, 40))
	assert.Contains(t, out, "1 build(s) running")
	assert.Contains(t, out, "2 approval(s) wait for you")
	assert.Contains(t, out, "6 Build")
	assert.Contains(t, out, "7 Playbooks")
}

func TestBuildAndPlaybooksPagesFitAndHelp(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}, {250, 70}} {
		m := newModel(t, newFake(t), size[0], size[1])
		for _, page := range []struct {
			key   rune
			title string
		}{{'6', "Build"}, {'7', "Playbooks"}} {
			var cmd tea.Cmd
			m, cmd = m.Update(tea.KeyPressMsg{Code: page.key, Mod: tea.ModAlt})
			m = drive(t, m, cmd)
			for _, overlay := range []string{"", "?"} {
				v := m
				if overlay != "" {
					v = press(t, m, overlay)
					assert.Contains(t, plain(v), "Keys — "+page.title)
				}
				lines := strings.Split(plain(v), "\n")
				assert.Len(t, lines, size[1], "%s %dx%d", page.title, size[0], size[1])
				for i, l := range lines {
					assert.LessOrEqual(t, lipgloss.Width(l), size[0], "%s %dx%d line %d", page.title, size[0], size[1], i)
				}
				if overlay != "" {
					m = press(t, v, "?") // close the help again
				}
			}
		}
	}
}

// Regression (issue 10): quitting while a build runs here interrupts it;
// the TUI asks first, and stays by default.
func TestQuitWhileABuildRunsAsksFirst(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	ws.running = []uint64{3}
	m := newModel(t, ws, 100, 30)
	m, quit := quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	require.False(t, quit, "a running build: q asks")
	out := plain(m)
	assert.Contains(t, out, "Quit while a build runs?")
	assert.Contains(t, out, "Build 3 is running")
	assert.Contains(t, out, "resume 3`", "it says how to continue")

	// enter answers the focused button: Stay.
	m = press(t, m, "enter")
	assert.NotContains(t, plain(m), "Quit while a build runs?", "stayed")
	m, quit = quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	require.False(t, quit)
	m = press(t, m, "esc")
	assert.NotContains(t, plain(m), "Quit while a build runs?", "esc stays too")

	// y quits (and interrupts).
	m, _ = quits(t, m, tea.KeyPressMsg{Code: 'q', Text: "q"})
	m, cmd := m.Update(tuitest.Key("y"))
	require.NotNil(t, cmd)
	_, cmd = m.Update(cmd())
	require.NotNil(t, cmd)
	assert.Equal(t, tea.QuitMsg{}, cmd())

	// ctrl+c asks as well; ctrl+c again quits at once.
	m, quit = quits(t, m, tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	require.False(t, quit)
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	require.NotNil(t, cmd)
	assert.Equal(t, tea.QuitMsg{}, cmd())
}

func TestGoldenQuitQuestion(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {180, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newFake(t)
			ws.running = []uint64{3, 4}
			m, quit := quits(t, newModel(t, ws, size[0], size[1]), tea.KeyPressMsg{Code: 'q', Text: "q"})
			require.False(t, quit)
			lines := strings.Split(plain(m), "\n")
			assert.Len(t, lines, size[1])
			golden.RequireEqual(t, pinned(t, m))
		})
	}
}

// alt+9 opens the ninth screen (Knowledge) and alt+0 the tenth (Run); the
// tab bar and the palette name the same keys.
func TestAltZeroOpensTheTenthScreen(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 160, 48)
	assert.Contains(t, plain(m), "0 Run")
	for _, page := range []struct {
		key   rune
		title string
	}{{'9', "Knowledge"}, {'0', "Run"}} {
		var cmd tea.Cmd
		m, cmd = m.Update(tea.KeyPressMsg{Code: page.key, Mod: tea.ModAlt})
		m = drive(t, m, cmd)
		m = press(t, m, "?")
		assert.Contains(t, plain(m), "Keys — "+page.title)
		m = press(t, m, "?") // close the help again
	}
	m = press(t, m, "ctrl+p", "k", "n", "o", "w")
	assert.Contains(t, plain(m), "alt+9")
	m = press(t, m, "esc", "ctrl+p", "R", "u", "n")
	assert.Contains(t, plain(m), "alt+0")
}

// The Library is the eleventh screen: no digit is left, so alt+l opens it
// and the palette says so; `]` from Run reaches it too.
func TestAltLOpensTheLibrary(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 160, 48)
	header, _, _ := strings.Cut(plain(m), "\n")
	assert.Contains(t, header, "Library")
	assert.NotContains(t, header, "0 Library", "its tab has no digit")
	var cmd tea.Cmd
	m, cmd = m.Update(tea.KeyPressMsg{Code: 'l', Mod: tea.ModAlt})
	m = drive(t, m, cmd)
	m = press(t, m, "?")
	assert.Contains(t, plain(m), "Keys — Library")
	m = press(t, m, "?")
	m, cmd = m.Update(tea.KeyPressMsg{Code: '0', Mod: tea.ModAlt})
	m = drive(t, m, cmd)
	m = press(t, m, "]", "?")
	assert.Contains(t, plain(m), "Keys — Library", "] from Run")
	m = press(t, m, "?", "ctrl+p", "L", "i", "b", "r")
	assert.Contains(t, plain(m), "alt+l")
}
