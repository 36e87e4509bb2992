package rehearsal

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

var epoch = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

type env struct {
	t     testing.TB
	root  string
	cfg   workspace.Config
	srv   *ollamatest.Server
	svc   *Service
	vault *vault.Vault
	store *changes.Store
	stats *rehearsaltest.Stats
}

// newEnv is a premium workspace in a temp dir (real bbolt), a fake Ollama
// answering per approach with script, and a Service over them.
func newEnv(t testing.TB, script rehearsaltest.Script, delay time.Duration) *env {
	t.Helper()
	root := t.TempDir()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	e := &env{t: t, root: root, stats: &rehearsaltest.Stats{}}
	e.srv = ollamatest.New(t, ollamatest.WithHandler(rehearsaltest.Handler(script, delay, e.stats)))
	client, err := llm.New(llm.Config{Host: e.srv.URL(), Retries: -1})
	require.NoError(t, err)
	e.cfg = workspace.Defaults()
	e.cfg.Tier = workspace.TierPremium
	e.cfg.Models.Large = "qwen2.5-coder:7b"
	e.cfg.Rehearsal.Concurrency = 3
	e.vault = vault.New(db, vault.Options{UserID: "local", Tier: "premium"})
	t.Cleanup(func() { _ = e.vault.Close() })
	e.store = changes.New(db, root, changes.Options{})
	e.svc = &Service{DB: db, Root: root, LLM: client, Changes: e.store, Vault: e.vault,
		Config: func() workspace.Config { return e.cfg }, Now: func() time.Time { return epoch }}
	e.write("calc/calc.go", "package calc\n")
	e.write("go.mod", "module example.com/calc\n\ngo 1.22\n")
	return e
}

func (e *env) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.root, filepath.FromSlash(rel))
	require.NoError(e.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(e.t, os.WriteFile(p, []byte(content), 0o644))
}

func (e *env) read(rel string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(rel)))
	if err != nil {
		return "", false
	}
	return string(b), true
}

func task(id, desc string) prd.Task {
	return prd.Task{ID: id, Title: "Add totals", Description: desc, Agent: "MARS"}
}

func (e *env) rehearse(n int) (Session, error) {
	return e.svc.Rehearse(context.Background(), Request{Task: task("T1", "Add a Total function to calc."), Branches: n, Force: true})
}
