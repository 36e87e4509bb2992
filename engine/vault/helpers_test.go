package vault_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

// testEnv is a vault on a real bbolt file with a settable clock and a
// record of the change events.
type testEnv struct {
	t     *testing.T
	path  string
	db    *storage.DB
	v     *vault.Vault
	clock *vaulttest.Clock

	mu      sync.Mutex
	changes []vault.Change
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newEnv(t *testing.T, opt ...func(*vault.Options)) *testEnv {
	t.Helper()
	e := &testEnv{t: t, path: filepath.Join(t.TempDir(), "nova.db"), clock: vaulttest.NewClock(t0)}
	db, err := storage.Open(e.path, storage.Options{NoSync: true})
	require.NoError(t, err)
	e.db = db
	e.v = vault.New(db, e.options(opt...))
	t.Cleanup(func() {
		_ = e.v.Close()
		_ = e.db.Close()
	})
	return e
}

func (e *testEnv) options(opt ...func(*vault.Options)) vault.Options {
	o := vault.Options{
		Now: e.clock.Now,
		OnChange: func(c vault.Change) {
			e.mu.Lock()
			e.changes = append(e.changes, c)
			e.mu.Unlock()
		},
	}
	for _, f := range opt {
		f(&o)
	}
	return o
}

// reopen closes the database and opens it again (optionally read-only).
func (e *testEnv) reopen(readOnly bool, opt ...func(*vault.Options)) {
	e.t.Helper()
	_ = e.v.Close()
	require.NoError(e.t, e.db.Close())
	db, err := storage.Open(e.path, storage.Options{ReadOnly: readOnly, NoSync: true})
	require.NoError(e.t, err)
	e.db = db
	e.v = vault.New(db, e.options(opt...))
}

func (e *testEnv) ops() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, c := range e.changes {
		out = append(out, c.Op)
	}
	return out
}

func (e *testEnv) add(n vault.Node) vault.Node {
	e.t.Helper()
	got, err := e.v.Add(e.t.Context(), n)
	require.NoError(e.t, err)
	return got
}

func (e *testEnv) link(from, to uint64, rel vault.Relation) vault.Edge {
	e.t.Helper()
	edge, err := e.v.Link(e.t.Context(), from, to, rel, 0)
	require.NoError(e.t, err)
	return edge
}

// verify asserts the vault is consistent.
func (e *testEnv) verify() {
	e.t.Helper()
	problems, err := e.v.Verify(e.t.Context())
	require.NoError(e.t, err)
	require.Empty(e.t, problems)
}

func ids(nodes []vault.Node) []uint64 {
	out := make([]uint64, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID
	}
	return out
}

func scoredIDs(hits []vault.Scored) []uint64 {
	out := make([]uint64, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func withTier(tier string) func(*vault.Options) { return func(o *vault.Options) { o.Tier = tier } }

func withOptIn(o *vault.Options) { o.OptInGlobal = true }
