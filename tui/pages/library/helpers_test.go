package library

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// sizes are the page's bodies under the header and the status bar (3
// lines) of an 80×24 and a 180×50 terminal.
var sizes = [][2]int{{80, 21}, {180, 47}}

// testSource is the page's Source plus the event stream the root pumps.
type testSource interface {
	Source
	Subscribe(ctx context.Context) <-chan engine.Event
}

// fakeSource is the real engine (skills, workflows, agents from the
// shipped defaults) with canned runs, blueprints and results where a test
// sets them, so goldens do not depend on wall-clock times or run speed.
type fakeSource struct {
	*engine.Local
	events chan engine.Event

	mu         sync.Mutex
	runs       []workflow.Run
	blueprints []blueprint.Summary
	details    map[string]blueprint.Details
	history    map[string][]blueprint.VersionRecord
	skillRes   *engine.SkillRunResult
	use        *engine.UseResult
	calls      []string
}

func (f *fakeSource) Subscribe(context.Context) <-chan engine.Event { return f.events }

func (f *fakeSource) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeSource) ListWorkflowRuns(ctx context.Context, limit int) ([]workflow.Run, error) {
	if f.runs == nil {
		return f.Local.ListWorkflowRuns(ctx, limit)
	}
	return f.runs, nil
}

func (f *fakeSource) GetWorkflowRun(ctx context.Context, id uint64) (workflow.Run, error) {
	for _, r := range f.runs {
		if r.ID == id {
			return r, nil
		}
	}
	return f.Local.GetWorkflowRun(ctx, id)
}

func (f *fakeSource) ListBlueprints(ctx context.Context) ([]blueprint.Summary, error) {
	if f.blueprints == nil {
		return f.Local.ListBlueprints(ctx)
	}
	return f.blueprints, nil
}

func (f *fakeSource) ShowBlueprint(ctx context.Context, name string) (blueprint.Details, error) {
	if d, ok := f.details[name]; ok {
		return d, nil
	}
	return f.Local.ShowBlueprint(ctx, name)
}

func (f *fakeSource) BlueprintHistory(ctx context.Context, name string) ([]blueprint.VersionRecord, error) {
	if h, ok := f.history[name]; ok {
		return h, nil
	}
	return f.Local.BlueprintHistory(ctx, name)
}

func (f *fakeSource) RunSkill(ctx context.Context, name string, o engine.SkillRunOptions) (engine.SkillRunResult, error) {
	f.record("RunSkill " + name)
	if f.skillRes != nil {
		return *f.skillRes, nil
	}
	return f.Local.RunSkill(ctx, name, o)
}

func (f *fakeSource) UseBlueprint(ctx context.Context, name string, o engine.UseOptions) (engine.UseResult, error) {
	f.record("UseBlueprint " + name)
	if f.use != nil && !o.Build {
		return *f.use, nil
	}
	return f.Local.UseBlueprint(ctx, name, o)
}

// newFake is the fake over a fresh workspace (no model server).
func newFake(t *testing.T) *fakeSource {
	t.Helper()
	l := tuitest.Workspace(t, epoch)
	return &fakeSource{Local: l, events: make(chan engine.Event, 256)}
}

// liveWorkspace is a real engine over a fresh workspace whose model server
// is the fake Ollama handler: the end-to-end tests of the page.
func liveWorkspace(t *testing.T, handler ollamatest.ChatFunc, files map[string]string) (*engine.Local, string) {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"), ollamatest.WithHandler(handler))
	env := map[string]string{"OLLAMA_HOST": srv.URL()}
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Defaults: nova.Defaults,
		Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l, root
}

// loop runs the page the way the root model does (tuitest.Driver):
// commands in goroutines, their messages back through Update, engine
// events pumped in. Keys are pressed without draining
// (PressAsync); toasts, errors and navigation are recorded, not handed to
// the page.
type loop struct {
	*tuitest.Driver
	t *testing.T
	m *Model
}

func newLoop(t *testing.T, src testSource, w, h int) *loop {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &common.Common{Ctx: ctx, Width: w, Height: h + 3, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, src)
	m.SetClock(func() time.Time { return epoch.Add(8 * time.Minute) })
	m.SetSize(w, h)
	l := &loop{Driver: tuitest.DriveComponent(t, m), t: t, m: m}
	l.Forward = func(tea.Msg) bool { return false }
	l.PumpEvents(src.Subscribe(ctx))
	l.Exec(m.Init())
	l.Until(func() bool {
		for p := range paneCount {
			if !m.loaded[p] {
				return false
			}
		}
		return m.agents != nil
	})
	return l
}

func writeTestFile(t *testing.T, root, p, content string) {
	t.Helper()
	full := filepath.Join(root, filepath.FromSlash(p))
	require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
	require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
}
