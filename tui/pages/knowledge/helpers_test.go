package knowledge

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
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/docs/docstest"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// clock is the engine's clock: the seeding sets it day by day, so the
// facts' timelines and the docs' ages differ; it stays put otherwise.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) day(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = epoch.Add(time.Duration(n) * 24 * time.Hour)
}

// today is "now" for the page and, after the seeding, for the engine.
const today = 30

// newWS opens a real engine over a fresh workspace: docs from a local
// Context7-compatible server, the user-level file under a temp NOVA_HOME,
// Ollama on a dead port, stored times from clk.
func newWS(t *testing.T) (*engine.Local, *docstest.Server, *clock) {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	d7 := docstest.New(t, docstest.Options{})
	env := map[string]string{"OLLAMA_HOST": "http://127.0.0.1:1", "CONTEXT7_API_URL": d7.URL(), "NOVA_HOME": filepath.Join(t.TempDir(), "home")}
	clk := &clock{}
	clk.day(today)
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Defaults: nova.Defaults,
		Getenv: func(k string) string { return env[k] }, Now: clk.now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l, d7, clk
}

// seed fills the workspace: facts at every scope (one corrected, one
// promoted), two vault nodes and three cached docs.
func seed(t *testing.T, ws *engine.Local, clk *clock) {
	t.Helper()
	ctx := context.Background()
	defer clk.day(today)
	d := 0
	add := func(content string, scope facts.Scope, tags ...string) facts.Fact {
		d += 3
		clk.day(d)
		f, err := ws.AddFact(ctx, facts.NewFact{Content: content, Scope: scope, Tags: tags})
		require.NoError(t, err)
		return f
	}
	add("I prefer small pull requests that do one thing", facts.User(), "review")
	old := add("Releases are cut from the main branch", facts.Workspace(), "release")
	clk.day(20)
	_, err := ws.CorrectFact(ctx, old.ID, "we release from release/* branches now", "Releases are cut from release/* branches after the freeze")
	require.NoError(t, err)
	add("API handlers return JSON errors with a code and a message field", facts.Workspace(), "api")
	lesson := add("The health endpoint needs no authentication", facts.Build("1"))
	clk.day(22)
	_, err = ws.PromoteFact(ctx, lesson.ID, facts.Workspace())
	require.NoError(t, err)
	add("MARS writes table-driven tests for every handler", facts.Agent("MARS"), "tests")
	_, err = ws.LearnNode(ctx, vault.Node{Type: vault.Pattern, Title: "Cut releases from a checklist",
		Content: "Every release follows the same checklist kept in the repository, so a release branch never depends on who cuts it."})
	require.NoError(t, err)
	_, err = ws.LearnNode(ctx, vault.Node{Type: vault.Strategy, Content: "Return problem details from API handlers instead of bare strings"})
	require.NoError(t, err)
	for i, q := range [][2]string{{"react", "hooks"}, {"zod", ""}, {"next.js", "routing"}} {
		clk.day([]int{18, 24, 28}[i]) // react is stale (TTL 7 days)
		r, err := ws.FetchDocs(ctx, q[0], q[1], docs.FetchOptions{})
		require.NoError(t, err)
		require.True(t, r.Available)
	}
}

// loop runs the page the way the root model does (tuitest.Driver):
// commands in goroutines, their messages back through Update. Keys are pressed without draining
// (PressAsync); toasts, errors and navigation are recorded, not handed to
// the page.
type loop struct {
	*tuitest.Driver
	t *testing.T
	m *Model
}

func newLoop(t *testing.T, src Source, w, h int) *loop {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &common.Common{Ctx: ctx, Width: w, Height: h + 3, Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, src)
	m.SetClock(func() time.Time { return epoch.Add(today * 24 * time.Hour) })
	m.SetSize(w, h)
	l := &loop{Driver: tuitest.DriveComponent(t, m), t: t, m: m}
	l.Forward = func(tea.Msg) bool { return false }
	l.Exec(m.Init())
	l.Until(func() bool { return m.factsLoaded && m.docsLoaded })
	return l
}

// search types q and waits for its results.
func (l *loop) search(q string) {
	l.t.Helper()
	l.PressAsync("/")
	l.TypeAsync(q)
	l.Until(func() bool { return l.m.result != nil && l.m.query == q && !l.m.searching })
	l.PressAsync("esc")
}

// opened waits until the detail pane shows ref, rendered.
func (l *loop) opened(ref string) {
	l.t.Helper()
	l.Until(func() bool {
		d := l.m.det
		return d != nil && !d.loading && (d.err != nil || d.lines != nil || d.item.Fact != nil) && (d.item.Ref == ref || d.ref == ref)
	})
	l.Settle(50 * time.Millisecond)
}

// failingSource fails every call: the error states.
type failingSource struct{ Source }

func (failingSource) ListFacts(context.Context, facts.ListOptions) (facts.ListResult, error) {
	return facts.ListResult{}, errBoom
}
func (failingSource) DocsList(context.Context, string) ([]docs.EntryInfo, error) { return nil, errBoom }

var errBoom = os.ErrPermission
