package vault_test

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/tui"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/pages/home"
	vaultpage "github.com/nova-dev/nova/tui/pages/vault"
	"github.com/nova-dev/nova/tui/tuitest"
)

// fixedNow is the clock of the test vaults, so timestamps in goldens are
// stable.
var fixedNow = time.Date(2025, 3, 14, 9, 26, 0, 0, time.UTC)

// testWS is a real engine over a t.TempDir() workspace that runs on a
// fixed clock and whose Ollama is reported offline without a probe. v is
// its vault, for fixtures.
type testWS struct {
	*engine.Local
	v *engvault.Vault
}

func (w *testWS) Ollama(context.Context) (engine.OllamaStatus, error) {
	return engine.OllamaStatus{Host: "http://127.0.0.1:11434", Error: "connection refused"}, nil
}

func newWS(t testing.TB) *testWS {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	l, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true,
		Getenv: func(string) string { return "" }, Now: vaulttest.NewClock(fixedNow).Now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return &testWS{Local: l, v: l.Vault()}
}

type fixtureNode struct {
	typ     engvault.NodeType
	title   string
	content string
	body    string
	tags    []string
	conf    float64
	helpful int
	source  string
	user    string
	global  bool
}

var fixtureNodes = []fixtureNode{
	{engvault.Pattern, "Wrap errors with context", "Wrap every returned error with `fmt.Errorf(\"…: %w\", err)` so the chain names each layer it crossed.",
		"## Why\n\nA bare `err` loses where it failed.\n\n- name the operation\n- keep `%w` so `errors.Is` still works\n\n```go\nreturn fmt.Errorf(\"open config: %w\", err)\n```",
		[]string{"errors", "go"}, 0.86, 7, "patterns/errors/wrap.md", "", false},
	{engvault.Strategy, "Return early on failure", "Handle the error first and return; keep the happy path unindented.", "", []string{"errors", "style"}, 0.74, 3, "patterns/style/early-return.md", "", false},
	{engvault.Mistake, "Panicking on bad input", "A parser panicked on a truncated YAML file and took the whole TUI down.", "", []string{"errors", "parsing"}, 0.62, 0, "build:7/task:t3", "", false},
	{engvault.Preference, "Prefer errors.Join for many failures", "When several checks fail, report them all with errors.Join instead of the first one.", "", []string{"errors"}, 0.7, 1, "manual", "", false},
	{engvault.Decision, "Store everything in one bbolt file", "All workspace state lives in .nova/nova.db; no side files.", "", []string{"storage"}, 0.9, 12, "manual", "", false},
	{engvault.Pattern, "Table-driven tests", "Write tests as a table of cases run in a loop with t.Run.", "", []string{"testing", "go"}, 0.81, 5, "patterns/testing/tables.md", "", false},
	{engvault.Mistake, "Asserting on exact float output", "A test compared a float64 score with == and failed on another CPU.", "", []string{"testing"}, 0.55, 0, "build:9/task:t1", "", false},
	{engvault.Strategy, "Debounce search as you type", "Wait ~150 ms after the last keystroke before querying; drop stale results by sequence number.", "", []string{"tui", "performance"}, 0.68, 2, "manual", "", false},
	{engvault.Preference, "Ignore errors from Close", "Errors from Close on read-only files can be ignored.", "", []string{"errors"}, 0.4, 0, "manual", "", false},
	{engvault.Decision, "Render markdown off the UI goroutine", "Glamour runs in a command and its output is cached per width.", "", []string{"tui", "performance"}, 0.77, 4, "manual", "team", true},
	{engvault.Pattern, "Virtualise long lists", "Render only the visible window and page rows from the store.", "", []string{"tui", "performance"}, 0.83, 6, "patterns/tui/virtual-list.md", "", false},
	{engvault.Preference, "Short commit subjects", "Keep the first line of a commit under 60 characters.", "", []string{"style"}, 0.5, 0, "manual", "", false},
}

var fixtureEdges = []struct {
	from, to uint64
	rel      engvault.Relation
}{
	{2, 1, engvault.Supports},
	{4, 1, engvault.Refines},
	{9, 1, engvault.Contradicts},
	{2, 3, engvault.Replaces},
	{4, 2, engvault.Supports},
	{8, 11, engvault.DependsOn},
	{10, 11, engvault.Supports},
	{11, 8, engvault.Refines},
	{7, 6, engvault.Contradicts},
	{10, 8, engvault.Supports},
}

// fill adds the fixture: ids 1…12 in order, ten edges, two conflicts.
func fill(t testing.TB, v *engvault.Vault) {
	t.Helper()
	ctx := context.Background()
	for i, f := range fixtureNodes {
		n, err := v.Add(ctx, engvault.Node{Type: f.typ, Title: f.title, Content: f.content, Body: f.body, Tags: f.tags,
			Confidence: f.conf, HelpfulCount: f.helpful, Source: f.source, UserID: f.user, IsGlobal: f.global})
		require.NoError(t, err)
		require.Equal(t, uint64(i+1), n.ID)
	}
	for _, e := range fixtureEdges {
		_, err := v.Link(ctx, e.from, e.to, e.rel, 0.9)
		require.NoError(t, err)
	}
}

// app is the root model with Home and the vault page, driven by the shared
// test runtime.
type app struct {
	*tuitest.ModelDriver
	page *vaultpage.Model
}

// newApp builds the root model with Home and the vault page, sized, on the
// vault page, with every start-up command run.
func newApp(t testing.TB, ws *testWS, w, h int) *app {
	t.Helper()
	return newAppOver(t, ws, w, h)
}

// newAppOver is newApp over any workspace (a test's wrapper of testWS).
func newAppOver(t testing.TB, ws engine.Workspace, w, h int) *app {
	t.Helper()
	var page *vaultpage.Model
	pages := []tui.PageFactory{
		{ID: home.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return home.New(c, ws) }},
		{ID: vaultpage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { page = vaultpage.New(c, ws); return page }},
	}
	m := tui.New(t.Context(), ws, tui.Options{Pages: pages})
	d := tuitest.DriveModel(t, m)
	d.Run(m.Init())
	d.Send(tea.WindowSizeMsg{Width: w, Height: h})
	d.Press("alt+2")
	return &app{ModelDriver: d, page: page}
}
