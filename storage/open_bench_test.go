package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/vault/vaulttest"
	"github.com/nova-dev/nova/storage"
)

var (
	open100kOnce sync.Once
	open100kDir  string
	open100kErr  error
)

// vault100k is a database holding a 100,000-node vault (vaulttest: realistic
// lengths, 40 % with a body) and its full-text index snapshot, as a real
// session leaves it.
func vault100k(b *testing.B) string {
	b.Helper()
	open100kOnce.Do(func() {
		open100kDir, open100kErr = os.MkdirTemp("", "nova-open-bench")
		if open100kErr != nil {
			return
		}
		path := filepath.Join(open100kDir, "nova.db")
		db, err := storage.Open(path, storage.Options{NoSync: true})
		if err != nil {
			open100kErr = err
			return
		}
		ctx := context.Background()
		v := vault.New(db, vault.Options{Tier: vault.TierPremium})
		open100kErr = vaulttest.Fill(ctx, v, 100_000, 7, vaulttest.Options{})
		if open100kErr == nil {
			open100kErr = v.WaitIndex(ctx)
		}
		_ = v.Close()
		_ = db.Close()
	})
	if open100kErr != nil {
		b.Fatal(open100kErr)
	}
	return filepath.Join(open100kDir, "nova.db")
}

// BenchmarkOpen100k is what every nova process pays to open the database of
// a 100k-node vault (a writable open and close, nothing written):
//   - full: every page verified before bbolt maps the file (what every open
//     did before the fingerprint, and what an open after an outside change
//     still does; its close records the fingerprint again);
//   - fingerprint: the file is as the last nova left it, only the cheap
//     checks run (the common path).
func BenchmarkOpen100k(b *testing.B) {
	path := vault100k(b)
	if st, err := os.Stat(path); err == nil {
		b.Logf("database: %.1f MB", float64(st.Size())/(1<<20))
	}
	open := func(b *testing.B) {
		db, err := storage.Open(path, storage.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			_ = os.Remove(path + ".fingerprint")
			open(b)
		}
	})
	b.Run("fingerprint", func(b *testing.B) {
		open(b) // leaves the fingerprint
		for b.Loop() {
			open(b)
		}
	})
}

func TestMain(m *testing.M) {
	code := m.Run()
	if open100kDir != "" {
		_ = os.RemoveAll(open100kDir)
	}
	os.Exit(code)
}
