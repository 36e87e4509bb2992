package team

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/storage"
)

func newKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	return priv
}

// clock is a settable clock for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func openDB(t testing.TB, path string) *storage.DB {
	t.Helper()
	db, err := storage.Open(path, storage.Options{NoSync: true})
	require.NoError(t, err)
	return db
}

// newStore opens a store on a fresh database with its own key.
func newStore(t testing.TB, now func() time.Time) *Store {
	t.Helper()
	return newStoreAt(t, filepath.Join(t.TempDir(), "nova.db"), newKey(t), now)
}

func newStoreAt(t testing.TB, path string, key ed25519.PrivateKey, now func() time.Time) *Store {
	t.Helper()
	db := openDB(t, path)
	t.Cleanup(func() { _ = db.Close() })
	s, err := Open(Options{DB: db, Key: key, Now: now})
	require.NoError(t, err)
	return s
}

// admit signs a membership list of the given stores' keys with admin and
// gives it to every store.
func admit(t testing.TB, admin ed25519.PrivateKey, version uint64, stores ...*Store) []byte {
	t.Helper()
	m := Membership{Team: "t", Version: version, At: time.Now()}
	for _, s := range stores {
		m.Members = append(m.Members, s.Self())
	}
	_, data, err := SignMembership(m, admin)
	require.NoError(t, err)
	for _, s := range stores {
		_, err := s.SetMembership(context.Background(), data)
		require.NoError(t, err)
	}
	return data
}

// outboxData returns the encoded records waiting in s's outbox.
func outboxData(t testing.TB, s *Store) []Incoming {
	t.Helper()
	es, err := s.Outbox(1 << 20)
	require.NoError(t, err)
	out := make([]Incoming, 0, len(es))
	for _, e := range es {
		out = append(out, Incoming{Data: e.Data})
	}
	return out
}
