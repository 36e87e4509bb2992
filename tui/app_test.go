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
	"github.com/nova-dev/nova/tui/common"
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
	subs    int      // Subscribe calls
	running []uint64 // RunningWork's builds
	goals   []uint64 // its goal runs
	flows   []uint64 // its workflow runs
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
func (f *fakeWS) Config() workspace.Config { f.mu.Lock(); defer f.mu.Unlock(); return f.cfg }
func (f *fakeWS) Subscribe(context.Context) <-chan engine.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs++
	return f.events
}
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
func (f *fakeWS) RunningWork(context.Context) (engine.RunningWork, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return engine.RunningWork{Builds: append([]uint64{}, f.running...), GoalRuns: append([]uint64{}, f.goals...),
		WorkflowRuns: append([]uint64{}, f.flows...)}, nil
}

// newModel builds the root model over ws, runs its start-up commands and
// sizes it, driven by the shared test runtime.
func newModel(t *testing.T, ws engine.Workspace, w, h int) *tuitest.ModelDriver {
	t.Helper()
	m := tui.New(context.Background(), ws, tui.Options{Now: func() time.Time { return fakeNow }})
	d := tuitest.DriveModel(t, m)
	d.Run(m.Init())
	d.Send(tea.WindowSizeMsg{Width: w, Height: h})
	return d
}

// fakeNow is two hours after the fake workspace's clock: ages on screen
// ("2h ago") do not change from one day to the next.
var fakeNow = time.Date(2026, 3, 14, 11, 30, 0, 0, time.UTC)

func TestGoldenViews(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("home_%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			m := newModel(t, newFake(t), size[0], size[1])
			golden.RequireEqual(t, m.Pinned())
		})
		t.Run(fmt.Sprintf("help_%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			m := newModel(t, newFake(t), size[0], size[1])
			m.Press("?")
			golden.RequireEqual(t, m.Pinned())
		})
	}
}

func TestLayoutFitsEverySize(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {160, 48}, {200, 60}, {250, 70}} {
		m := newModel(t, newFake(t), size[0], size[1])
		for _, overlay := range []string{"", "?"} {
			if overlay != "" {
				m.Press(overlay)
			}
			lines := strings.Split(m.Plain(), "\n")
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
	out := m.Plain()
	assert.Contains(t, out, "nova needs a bigger window")
	assert.Contains(t, out, "60×20")
	m.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	assert.Contains(t, m.Plain(), "Workspace")
}

func TestHomeShowsCountsAndOllama(t *testing.T) {
	t.Parallel()
	out := newModel(t, newFake(t), 160, 48).Plain()
	for _, want := range []string{"42", "vault nodes", "approvals", "online", "qwen2.5-coder:14b", "ollama pull qwen2.5-coder:14b", "/home/dev/shop"} {
		assert.Contains(t, out, want)
	}
	ws := newFake(t)
	ws.ollama = engine.OllamaStatus{Host: "http://127.0.0.1:1", Error: "connection refused"}
	ws.sum.VaultNodes = 0
	out = newModel(t, ws, 120, 40).Plain()
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
	// The debounce fires after 150ms; the drain waits for it.
	m.Send(common.EventMsg{Event: engine.Event{Type: engine.EventChanged, Topic: engine.TopicVault}})
	assert.Contains(t, m.Plain(), "4242")
}

// The owner drops a window that fell far behind (suspended with ctrl+z)
// with a last event: the window says so, subscribes again and reloads
// (issue 26, finding 10).
func TestDroppedStreamResubscribesAndReloads(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	m := newModel(t, ws, 120, 40)
	ws.mu.Lock()
	before := ws.subs
	ws.sum.VaultNodes = 4343
	ws.mu.Unlock()
	m.Send(common.EventMsg{Event: engine.Event{Type: engine.EventDropped, Done: 1025,
		Text: "dropped: you fell 1025 events behind; reconnect"}})
	out := m.Plain()
	assert.Contains(t, out, "dropped: you fell 1025 events behind")
	assert.Contains(t, out, "4343", "pages reload")
	ws.mu.Lock()
	assert.Equal(t, before+1, ws.subs, "the window subscribes again")
	ws.mu.Unlock()
}

func TestPaletteSwitchesAndPersistsTheme(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	m := newModel(t, ws, 120, 40)
	m.Press("ctrl+p")
	assert.Contains(t, m.Plain(), "Commands")
	m.Type("light")
	out := m.Plain()
	assert.Contains(t, out, "nova-light")
	assert.NotContains(t, out, "high-contrast", "the list filters as you type")
	m.Press("enter")
	assert.NotContains(t, m.Plain(), "Commands", "palette closes")
	assert.Equal(t, "nova-light", m.Model().(*tui.Model).Common().Styles.Name)
	ws.mu.Lock()
	assert.Equal(t, []string{"nova-light"}, ws.themes, "the choice is persisted through the workspace")
	ws.mu.Unlock()
	assert.Contains(t, m.Plain(), "saved to config.yaml")
}

func TestUserThemeAndUnknownTheme(t *testing.T) {
	t.Parallel()
	reg := themes.NewRegistry()
	ws := newFake(t)
	ws.cfg.Theme = "missing-one"
	m := tui.New(context.Background(), ws, tui.Options{Themes: reg})
	d := tuitest.DriveModel(t, m)
	d.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	assert.Equal(t, themes.DefaultName, m.Common().Styles.Name, "an unknown theme falls back to the default")
	assert.Contains(t, d.Plain(), "unknown theme")
}

// quits follows a quit key through the running-builds check: it reports
// whether the model quit (tea.QuitMsg) and the model after it.
func TestQuitKeys(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 100, 30)
	m.Press("q")
	assert.True(t, m.Quit, "no build runs: q quits at once")
	m = newModel(t, newFake(t), 100, 30)
	m.Press("ctrl+c")
	assert.True(t, m.Quit, "ctrl+c too")
	// q inside the palette filters instead of quitting.
	m = newModel(t, newFake(t), 100, 30)
	m.Press("ctrl+p", "q")
	assert.False(t, m.Quit, "q in the palette is typed")
	assert.Contains(t, m.Plain(), "Commands")
}

func TestErrorsShowInStatusBar(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 120, 30)
	m.Send(common.ErrMsg{Err: errors.New("vault is locked")})
	assert.Contains(t, m.Plain(), "vault is locked")
	m.Send(common.ErrMsg{Err: context.Canceled})
	assert.Contains(t, m.Plain(), "vault is locked", "a cancellation is not reported as a failure")
}

func TestHomeShowsRunningBuildsAndApprovals(t *testing.T) {
	t.Parallel()
	ws := newFake(t)
	ws.sum.RunningBuilds = 1
	out := newModel(t, ws, 120, 40).Plain()
	assert.Contains(t, out, "1 build running")
	assert.Contains(t, out, "2 approvals wait for you")
	// Where every tab fits with its key (200 columns), the labels name the
	// real keys; narrower, keys give way first (issue 32: every screen
	// stays in view).
	wide := newModel(t, ws, 200, 48).Plain()
	assert.Contains(t, wide, "alt+6 Build", "tab labels name the real keys")
	assert.Contains(t, wide, "alt+7 Playbooks")
}

func TestBuildAndPlaybooksPagesFitAndHelp(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}, {250, 70}} {
		m := newModel(t, newFake(t), size[0], size[1])
		for _, page := range []struct {
			key   string
			title string
		}{{"alt+6", "Build"}, {"alt+7", "Playbooks"}} {
			m.Press(page.key)
			for _, overlay := range []string{"", "?"} {
				if overlay != "" {
					m.Press(overlay)
					assert.Contains(t, m.Plain(), "Keys — "+page.title)
				}
				lines := strings.Split(m.Plain(), "\n")
				assert.Len(t, lines, size[1], "%s %dx%d", page.title, size[0], size[1])
				for i, l := range lines {
					assert.LessOrEqual(t, lipgloss.Width(l), size[0], "%s %dx%d line %d", page.title, size[0], size[1], i)
				}
				if overlay != "" {
					m.Press("?") // close the help again
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
	m.Press("q")
	require.False(t, m.Quit, "a running build: q asks")
	out := m.Plain()
	assert.Contains(t, out, "Quit while a build runs?")
	assert.Contains(t, out, "Build 3 is running")
	assert.Contains(t, out, "resume 3`", "it says how to continue")

	// enter answers the focused button: Stay.
	m.Press("enter")
	assert.NotContains(t, m.Plain(), "Quit while a build runs?", "stayed")
	m.Press("q")
	require.False(t, m.Quit)
	m.Press("esc")
	assert.NotContains(t, m.Plain(), "Quit while a build runs?", "esc stays too")

	// y quits (and interrupts).
	m.Press("q", "y")
	assert.True(t, m.Quit)

	// ctrl+c asks as well; ctrl+c again quits at once.
	m = newModel(t, ws, 100, 30)
	m.Press("ctrl+c")
	require.False(t, m.Quit)
	m.Press("ctrl+c")
	assert.True(t, m.Quit)
}

func TestGoldenQuitQuestion(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {180, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newFake(t)
			ws.running = []uint64{3, 4}
			m := newModel(t, ws, size[0], size[1])
			m.Press("q")
			require.False(t, m.Quit)
			lines := strings.Split(m.Plain(), "\n")
			assert.Len(t, lines, size[1])
			golden.RequireEqual(t, m.Pinned())
		})
	}
}

// alt+9 opens the ninth screen (Knowledge) and alt+0 the tenth (Run); the
// tab bar and the palette name the same keys.
func TestAltZeroOpensTheTenthScreen(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 200, 48)
	assert.Contains(t, m.Plain(), "alt+0 Run")
	for _, page := range []struct {
		key, title string
	}{{"alt+9", "Knowledge"}, {"alt+0", "Run"}} {
		m.Press(page.key)
		assert.Equal(t, strings.ToLower(page.title), m.Model().(*tui.Model).ActivePage())
		m.Press("?")
		assert.Contains(t, m.Plain(), "Keys — "+page.title)
		m.Press("?") // close the help again
	}
	m.Press("ctrl+p")
	m.Type("know")
	assert.Contains(t, m.Plain(), "alt+9")
	m.Press("esc", "ctrl+p")
	m.Type("Run")
	assert.Contains(t, m.Plain(), "alt+0")
}

// The Library is the eleventh screen: no digit is left, so alt+l opens it;
// the tab bar and the palette name alt+l, and `]` from Run reaches it too.
func TestAltLOpensTheLibrary(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 180, 48)
	m.Press("alt+l")
	assert.Equal(t, "library", m.Model().(*tui.Model).ActivePage())
	assert.Contains(t, m.Plain(), "alt+l Library")
	m.Press("?")
	assert.Contains(t, m.Plain(), "Keys — Library")
	m.Press("?", "alt+0", "]")
	assert.Equal(t, "library", m.Model().(*tui.Model).ActivePage(), "] from Run")
	m.Press("ctrl+p")
	m.Type("Libr")
	assert.Contains(t, m.Plain(), "alt+l")
}

// Issue 32: at 120 columns the tab bar shows every screen (keys are left
// out where they do not fit: the help and the palette list them); at 80 it
// scrolls.
func TestEveryTabFitsAt120Columns(t *testing.T) {
	t.Parallel()
	m := newModel(t, newFake(t), 120, 40)
	head := strings.Split(m.Plain(), "\n")[0]
	for _, title := range []string{"Home", "Vault", "Import", "Agents", "Changes", "Build", "Playbooks", "Rehearsal", "Knowledge", "Run", "Library", "Chat"} {
		assert.Contains(t, head, title)
	}
	wide := strings.Split(newModel(t, newFake(t), 180, 50).Plain(), "\n")[0]
	assert.Contains(t, wide, "alt+1 Home", "wider, the active tab keeps its key")
	assert.NotContains(t, head, "›")
	assert.NotContains(t, head, "‹")
	small := strings.Split(newModel(t, newFake(t), 80, 24).Plain(), "\n")[0]
	assert.Contains(t, small, "›", "at 80 columns the bar scrolls")
}
