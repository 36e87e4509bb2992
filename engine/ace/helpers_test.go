package ace_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

const smallModel = "llama3.2:3b"

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// logs collects diagnostics.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) Logf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, format)
	_ = a
}

func (l *logs) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

type env struct {
	db    *storage.DB
	sys   *ace.System
	m     *ace.Manager
	clock *clock
	logs  *logs
	srv   *ollamatest.Server
	vault *vault.Vault
	auto  int
}

type envOpt func(*env, *ace.Options)

func withOllama(srv *ollamatest.Server) envOpt {
	return func(e *env, o *ace.Options) {
		c, err := llm.New(llm.Config{Host: srv.URL(), Retries: -1})
		if err != nil {
			panic(err)
		}
		e.srv, o.LLM, o.SmallModel = srv, c, smallModel
	}
}

func withVault() envOpt {
	return func(e *env, o *ace.Options) {
		e.vault = vault.New(e.db, vault.Options{UserID: "tester", Now: e.clock.Now})
		o.Vault = func() ace.VaultAPI { return e.vault }
	}
}

func openDB(t testing.TB) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func newEnv(t testing.TB, opts ...envOpt) *env {
	t.Helper()
	e := &env{db: openDB(t), clock: newClock(), logs: &logs{}}
	o := ace.Options{Now: e.clock.Now, Logf: e.logs.Logf, Autonomy: func() int { return e.auto }}
	for _, fn := range opts {
		fn(e, &o)
	}
	e.sys = ace.New(e.db, o)
	e.m = e.sys.Playbooks()
	if e.vault != nil {
		t.Cleanup(func() { _ = e.vault.Close() })
	}
	return e
}

func ctx() context.Context { return context.Background() }

func addRule(t testing.TB, m *ace.Manager, agent, content string, conf float64, tags ...string) ace.Rule {
	t.Helper()
	r, _, err := m.AddRule(ctx(), agent, content, tags, conf)
	require.NoError(t, err)
	return r
}
