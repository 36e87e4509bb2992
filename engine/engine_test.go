package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// TestEngineNeverImportsUI enforces the layout rule: nothing under engine/
// depends on the Charm UI packages.
func TestEngineNeverImportsUI(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/nova-dev/nova/engine/...").CombinedOutput()
	require.NoError(t, err, string(out))
	deps := strings.Fields(string(out))
	require.NotEmpty(t, deps)
	for _, d := range deps {
		for _, banned := range []string{"charm.land/bubbletea", "charm.land/lipgloss", "charm.land/bubbles", "charm.land/glamour",
			"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/glamour"} {
			assert.False(t, strings.HasPrefix(d, banned), "engine depends on %s", d)
		}
	}
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func newWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	return root
}

func TestOpenSummaryAndTheme(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()

	sum, err := ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, storage.SchemaVersion, sum.SchemaVersion)
	assert.Equal(t, "free", sum.Tier)

	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := ws.Subscribe(sub)
	require.NoError(t, ws.SetTheme(ctx, "high-contrast"))
	select {
	case ev := <-ch:
		assert.Equal(t, engine.EventThemeChanged, ev.Type)
		assert.Equal(t, "high-contrast", ev.Text)
	case <-time.After(2 * time.Second):
		t.Fatal("no theme event")
	}
	assert.Equal(t, "high-contrast", ws.Config().Theme)
	data, err := os.ReadFile(filepath.Join(root, ".nova", "config.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "theme: high-contrast")
	assert.Contains(t, string(data), "# nova workspace configuration.", "comments survive")
}

func TestReadOnlyOpenRefusesWrites(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	rw, err := engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil)})
	require.NoError(t, err)
	require.NoError(t, rw.Close())

	ro, err := engine.Open(ctx, engine.Options{Root: root, ReadOnly: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ro.Close() }()
	assert.True(t, ro.Info().ReadOnly)
	assert.ErrorIs(t, ro.SetTheme(ctx, "nova-light"), storage.ErrReadOnly)
}

func TestSecondWriterGetsInUse(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	first, err := engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = first.Close() }()
	start := time.Now()
	_, err = engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil), LockTimeout: 200 * time.Millisecond})
	assert.ErrorIs(t, err, storage.ErrInUse)
	assert.Less(t, time.Since(start), 2*time.Second)
}

func TestBrokenConfigNamesFileAndLine(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	cfg := filepath.Join(root, ".nova", "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("tier: free\nrehearsal:\n  branches: 7\n"), 0o644))
	_, err := engine.Open(context.Background(), engine.Options{Root: root, Getenv: envOf(nil)})
	require.ErrorIs(t, err, workspace.ErrConfig)
	assert.Contains(t, err.Error(), cfg+":3: rehearsal.branches")
}

func checkByName(t *testing.T, rep engine.DoctorReport, name string) engine.Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, rep.Checks)
	return engine.Check{}
}

func TestDoctorHealthyAndMissingModels(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	cfg := workspace.Defaults()
	srv := ollamatest.New(t, ollamatest.WithModels(cfg.Models.Small, cfg.Models.Medium, cfg.Models.Large, cfg.Models.Embed))
	rep := engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
	assert.True(t, rep.OK, "%+v", rep.Checks)
	assert.True(t, checkByName(t, rep, "ollama").OK)
	assert.True(t, checkByName(t, rep, "models").OK)
	assert.Equal(t, "warn", checkByName(t, rep, "database").Status, "no database yet is only a warning")

	srv2 := ollamatest.New(t, ollamatest.WithModels(cfg.Models.Small))
	rep = engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv2.URL()})})
	assert.False(t, rep.OK)
	models := checkByName(t, rep, "models")
	assert.False(t, models.OK)
	assert.Contains(t, models.Detail, cfg.Models.Medium)
	assert.Contains(t, models.Hint, "ollama pull "+cfg.Models.Large)
	assert.Len(t, rep.Ollama.Models, 1)
}

func TestDoctorOllamaDown(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	rep := engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": "127.0.0.1:1"})})
	assert.False(t, rep.OK)
	c := checkByName(t, rep, "ollama")
	assert.False(t, c.OK)
	assert.Contains(t, c.Detail, "http://127.0.0.1:1")
	assert.Contains(t, c.Hint, "ollama serve")
	assert.Equal(t, "skip", checkByName(t, rep, "models").Status)
}

func TestDoctorWithoutWorkspaceAndWithLockedDB(t *testing.T) {
	t.Parallel()
	rep := engine.Doctor(context.Background(), engine.DoctorOptions{Start: t.TempDir(), Getenv: envOf(map[string]string{"OLLAMA_HOST": "127.0.0.1:1"})})
	assert.False(t, checkByName(t, rep, "workspace").OK)
	assert.Contains(t, checkByName(t, rep, "workspace").Hint, "nova init")

	root := newWorkspace(t)
	held, err := engine.Open(context.Background(), engine.Options{Root: root, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = held.Close() }()
	start := time.Now()
	rep = engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": "127.0.0.1:1"})})
	assert.Less(t, time.Since(start), 2*time.Second)
	db := checkByName(t, rep, "database")
	assert.Equal(t, "warn", db.Status)
	assert.Contains(t, db.Detail, "another nova process")
}

func TestDoctorCorruptDBAndBadConfig(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "nova.db"), []byte("not a database"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), []byte("autonomy: [\n"), 0o644))
	rep := engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": "127.0.0.1:1"})})
	assert.False(t, checkByName(t, rep, "config").OK)
	assert.Contains(t, checkByName(t, rep, "config").Detail, "config.yaml:1")
	dbc := checkByName(t, rep, "database")
	assert.False(t, dbc.OK)
	assert.Contains(t, dbc.Detail, "corrupt")
}

func TestOllamaStatusThroughFacade(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b"), ollamatest.WithVersion("0.9.9"))
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	st, err := ws.Ollama(context.Background())
	require.NoError(t, err)
	require.True(t, st.Reachable)
	assert.Equal(t, "0.9.9", st.Version)
	var small engine.TierModel
	for _, tm := range st.Tiers {
		if tm.Tier == "small" {
			small = tm
		}
	}
	assert.True(t, small.Installed)
}
