package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	eng "github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/runview"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// newWS is a real workspace with the shipped roster, one broken agent file
// and (when srv is set) Ollama pointed at the fake server.
func newWS(t *testing.T, srv *ollamatest.Server) *engine.Local {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	broken := "schema: kb.specialist/1\nid: BROKEN\nrole: breaks things\ntools: [readFile, teleport]\nlimits:\n  timeout: soon\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "agents", "BROKEN.yaml"), []byte(broken), 0o644))
	host := "http://127.0.0.1:1"
	if srv != nil {
		host = srv.URL()
	}
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Getenv: func(k string) string {
		if k == "OLLAMA_HOST" {
			return host
		}
		return ""
	}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func seedRuns(t *testing.T, ws *engine.Local) {
	t.Helper()
	ctx := context.Background()
	for _, r := range []eng.Run{
		{Agent: "MARS", Task: "Add a /health endpoint", Status: eng.RunDone, StartedAt: epoch.Add(-3 * time.Hour),
			Outcome: eng.SpecialistOutcome{OK: true, Meta: eng.RunMeta{PromptTokens: 5120, EvalTokens: 610}},
			Verdict: eng.Verdict{Status: eng.VerdictPassed}, ChangesetID: 1},
		{Agent: "VENUS", Task: "Polish the settings form", Status: eng.RunFailed, StartedAt: epoch.Add(-20 * time.Minute),
			Outcome: eng.SpecialistOutcome{Failure: &eng.Failure{Kind: eng.FailTimeout, Message: "timed out"}, Meta: eng.RunMeta{PromptTokens: 14200, EvalTokens: 300}}},
	} {
		_, err := ws.Runs().Create(ctx, r)
		require.NoError(t, err)
	}
}

// loop is a small Bubble Tea runtime: commands run in goroutines, their
// messages come back to the page in order, and engine events are pumped
// like the root model does.
type loop struct {
	*tuitest.Driver
	t *testing.T
	m *Model
}

func newLoop(t *testing.T, ws Source, w, h int) *loop {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &common.Common{Ctx: ctx, Width: w, Height: h + 3, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, ws)
	m.now = func() time.Time { return epoch }
	m.SetSize(w, h)
	l := &loop{Driver: tuitest.DriveComponent(t, m), t: t, m: m}
	l.PumpEvents(ws.Subscribe(ctx))
	l.Exec(m.Init())
	l.until(func() bool { return m.loaded && (m.runs != nil || m.runsErr != nil) })
	return l
}

func (l *loop) until(cond func() bool) { l.t.Helper(); l.Until(cond) }
func (l *loop) plain() string          { return l.Plain() }
func (l *loop) pinned() string         { return l.Pinned() }

// press sends keys without waiting for what they start (tests wait with
// until).
func (l *loop) press(keys ...string) {
	for _, k := range keys {
		l.Dispatch(tuitest.Key(k))
	}
}

func (l *loop) typeText(s string) {
	for _, r := range s {
		if r == ' ' {
			l.press("space")
			continue
		}
		l.press(string(r))
	}
}

func selectAgent(l *loop, id string) {
	for i := range l.m.roster.Len() {
		l.m.roster.SetCursor(i)
		if l.m.selectedID() == id {
			return
		}
	}
	l.t.Fatalf("no agent %s", id)
}

func TestGoldenPages(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{160, 45}, {100, 27}, {80, 21}} {
		t.Run(fmt.Sprintf("agents_%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newWS(t, nil)
			seedRuns(t, ws)
			l := newLoop(t, ws, size[0], size[1])
			selectAgent(l, "MARS")
			golden.RequireEqual(t, l.pinned())
		})
	}
	t.Run("new_run_100x27", func(t *testing.T) {
		t.Parallel()
		l := newLoop(t, newWS(t, nil), 100, 27)
		selectAgent(l, "MARS")
		l.press("n")
		l.typeText("add a health check")
		assert.True(t, l.m.Capturing(), "typing the task owns the keyboard")
		golden.RequireEqual(t, l.pinned())
	})
}

func TestRosterDetailsAndInvalidFiles(t *testing.T) {
	t.Parallel()
	ws := newWS(t, nil)
	seedRuns(t, ws)
	l := newLoop(t, ws, 160, 45)
	selectAgent(l, "MARS")
	out := l.plain()
	for _, want := range []string{
		"Agents 23", "1 invalid", "Invalid agent files", "BROKEN.yaml", "teleport", "limits.timeout",
		"MARS — Mars", "domain backend", "tier medium → large", "16 steps · 40 tool calls · 10m0s",
		"readFile, listFiles, searchFiles, writeFile, editFile, runCommand", "Role", "You are MARS",
		"Recent runs", "VENUS", "failed", "14.5k tok · 20m ago", "5730 tok · 3h ago", "passed",
	} {
		assert.Contains(t, out, want)
	}
	l.press("j")
	assert.NotEqual(t, "MARS", l.m.selectedID(), "j moves the selection")
}

// failingSource is a Source whose every call fails, as a workspace whose
// database another process holds does.
type failingSource struct{ err error }

func (f failingSource) Subscribe(context.Context) <-chan engine.Event { return nil }
func (f failingSource) RunAgent(context.Context, string, string, engine.RunOptions) (engine.RunResult, error) {
	return engine.RunResult{}, f.err
}
func (f failingSource) AnswerApproval(context.Context, string, bool) error { return f.err }
func (f failingSource) ListAgents(context.Context) (engine.Roster, error) {
	return engine.Roster{}, f.err
}
func (f failingSource) ListRuns(context.Context, eng.RunFilter) ([]eng.Run, error) {
	return nil, f.err
}

func TestBrokenWorkspaceShowsError(t *testing.T) {
	t.Parallel()
	c := &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, failingSource{err: errors.New("workspace in use: .nova/nova.db is locked")})
	m.SetSize(100, 24)
	for _, cmd := range []tea.Cmd{m.loadRoster(), m.loadRuns()} {
		m.Update(cmd())
	}
	out := ansi.Strip(m.View())
	assert.Contains(t, out, "Could not load the agents")
	assert.Contains(t, out, "workspace in use")
}

func TestRunFromTheRoster(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	srv.Enqueue(
		ollamatest.Text("Let me look around.").WithToolCalls(ollamatest.Call("listFiles", map[string]any{})),
		ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "health.go", "content": "package main\n\n// health reports liveness.\nfunc health() string { return \"ok\" }\n"})),
		ollamatest.ToolCalls(ollamatest.Call("runCommand", map[string]any{"command": "go vet ./..."})),
		ollamatest.Text("Added health.go with a health function."),
	)
	ws := newWS(t, srv)
	l := newLoop(t, ws, 120, 36)
	selectAgent(l, "MARS")
	l.press("n")
	l.press("enter") // an empty task does nothing
	assert.Equal(t, modeInput, l.m.mode)
	l.typeText("add a health check")
	l.press("enter")
	require.Equal(t, modeRun, l.m.mode)

	// The approval comes over the engine bus, the run's own events over its
	// stream: on a busy machine the question can show before the earlier
	// tool calls are drawn.
	l.until(func() bool { return l.m.rv.WaitingApproval() && strings.Contains(l.plain(), "→ writeFile") })
	out := l.plain()
	assert.Contains(t, out, "Approve this command?")
	assert.Contains(t, out, "go vet ./...")
	assert.Contains(t, out, "→ writeFile")
	assert.True(t, l.m.Capturing(), "the approval owns the keyboard")
	l.press("n") // deny: nothing runs

	l.until(func() bool { return l.m.rv.Result() != nil })
	out = l.plain()
	assert.Contains(t, out, "✓ Done (unverified)")
	assert.Contains(t, out, "command denied")
	assert.Contains(t, out, "Added health.go")
	res := l.m.rv.Result()
	require.NotZero(t, res.ChangesetID)
	assert.Contains(t, out, fmt.Sprintf("changeset #%d · 1 file staged", res.ChangesetID))

	l.press("enter")
	l.until(func() bool { return len(l.Navs) > 0 })
	assert.Equal(t, common.NavigateMsg{Page: runview.ChangesPage, Arg: res.ChangesetID}, l.Navs[0])

	// esc goes back to the roster; the run is listed; enter reopens it.
	l.press("esc")
	assert.Equal(t, modeRoster, l.m.mode)
	// The list may first show the run as it was when it was read (running):
	// wait for the stored outcome.
	l.until(func() bool { return len(l.m.runs) > 0 && l.m.runs[0].Status == eng.RunDone })
	assert.Equal(t, "add a health check", l.m.runs[0].Task)
	// The command was denied: nothing ran health.go, so the run is done
	// unverified (its task no longer fits the row at this width).
	assert.False(t, l.m.runs[0].Verified)
	assert.Contains(t, l.plain(), "#1   MARS      done (unverified)")
	l.press("enter")
	assert.Equal(t, modeRun, l.m.mode)
}

func TestFitsEverySize(t *testing.T) {
	t.Parallel()
	ws := newWS(t, nil)
	seedRuns(t, ws)
	for _, size := range [][2]int{{80, 21}, {100, 27}, {120, 37}, {160, 45}, {200, 57}, {250, 67}} {
		l := newLoop(t, ws, size[0], size[1])
		for _, keys := range [][]string{nil, {"j", "j", "j"}, {"G"}, {"n"}} {
			l.press(keys...)
			lines := strings.Split(l.plain(), "\n")
			assert.Len(t, lines, size[1], "%v %v", size, keys)
			for i, ln := range lines {
				assert.LessOrEqual(t, lipgloss.Width(ln), size[0], "%v %v line %d: %q", size, keys, i, ln)
			}
		}
	}
}

// A kb.specialist/1 file's tool names and noted fields are shown with its
// details.
func TestSeedAgentDetails(t *testing.T) {
	t.Parallel()
	ws := newWS(t, nil)
	seed := "schema: kb.specialist/1\nid: SEEDY\nname: Seedy\nrole: Find code.\ntools: [fs:read, fs:list]\nllm:\n  temperature: 0.3\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws.Dir(), "agents", "SEEDY.yml"), []byte(seed), 0o644))
	l := newLoop(t, ws, 160, 45)
	selectAgent(l, "SEEDY")
	out := l.plain()
	assert.Contains(t, out, "readFile, listFiles, searchFiles")
	assert.Contains(t, out, "fs:list → listFiles, searchFiles (kb.specialist/1 name)")
	assert.Contains(t, out, "note: name: read as display.name")
}

// Issue 32: the screen starts on the roster's implementer, agents that
// write come first (under a heading, read-only ones under theirs), and a
// read-only agent's run dialog promises no staged writes.
func TestStartsOnTheImplementerAndGroupsWriters(t *testing.T) {
	t.Parallel()
	l := newLoop(t, newWS(t, nil), 100, 27)
	sp, ok := l.m.selected()
	require.True(t, ok)
	assert.Equal(t, "implementer", sp.ID)
	seenReadOnly := false
	for _, s := range l.m.specs {
		if s.ReadOnly() {
			seenReadOnly = true
		} else {
			assert.False(t, seenReadOnly, "%s writes but comes after a read-only agent", s.ID)
		}
	}
	assert.True(t, seenReadOnly)
	out := l.plain()
	assert.Contains(t, out, "── write files or run commands")

	selectAgent(l, "ANDROMEDA")
	l.press("n")
	out = l.plain()
	assert.Contains(t, out, "Read-only: it reads the workspace and answers")
	assert.NotContains(t, out, "staged as a changeset")
}

// Issue 32: the roster is nova's list component: at 80x24 it shows the ›
// marker and says how many agents are hidden; pgdn and G move the cursor
// (never onto a group's heading), and the help lists the page's own keys.
func TestRosterScrollsThroughTheListComponent(t *testing.T) {
	t.Parallel()
	l := newLoop(t, newWS(t, nil), 80, 24)
	out := l.plain()
	assert.Contains(t, out, "› 🛠️ implementer")
	assert.Regexp(t, `\d+/23 · (↑ \d+ · )?↓ \d+ more`, out, "hidden rows are counted")

	start := l.m.roster.Cursor()
	l.press("pgdown")
	assert.Greater(t, l.m.roster.Cursor(), start+1, "pgdn moves a page")
	l.press("G")
	assert.Equal(t, l.m.roster.Len()-1, l.m.roster.Cursor())
	out = l.plain()
	assert.Contains(t, out, "23/23 · ↑")
	last := l.m.specs[len(l.m.specs)-1].ID
	assert.Contains(t, out, "› ", "the marker follows the cursor")
	assert.Equal(t, last, l.m.selectedID())

	l.press("g")
	_, ok := l.m.selected()
	assert.True(t, ok, "top skips the first heading")
	assert.Equal(t, 1, l.m.roster.Cursor())
	for range l.m.roster.Len() {
		l.press("down")
		_, ok := l.m.selected()
		require.True(t, ok, "the cursor never rests on a heading (row %d)", l.m.roster.Cursor())
	}

	var short []string
	for _, b := range l.m.ShortHelp() {
		short = append(short, b.Help().Desc)
	}
	assert.Contains(t, short, "new run")
	assert.Contains(t, short, "open run")
	var full []string
	for _, g := range l.m.FullHelp() {
		for _, b := range g {
			full = append(full, b.Help().Desc)
		}
	}
	assert.Contains(t, full, "page down")
	assert.Contains(t, full, "bottom")
	l.press("n")
	short = short[:0]
	for _, b := range l.m.ShortHelp() {
		short = append(short, b.Help().Desc)
	}
	assert.Equal(t, []string{"start", "cancel"}, short)
}
