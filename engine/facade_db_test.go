package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/internal/hostile"
	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/storage"
)

func TestBackupRefusesAnExistingFileUnlessForced(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	out := filepath.Join(t.TempDir(), "backup.db")
	rep, err := ws.BackupDB(ctx, out, engine.BackupOptions{})
	require.NoError(t, err)
	assert.Positive(t, rep.Bytes)

	_, err = ws.BackupDB(ctx, out, engine.BackupOptions{})
	require.ErrorIs(t, err, engine.ErrExists)
	assert.Contains(t, err.Error(), "--force")

	_, err = ws.BackupDB(ctx, out, engine.BackupOptions{Force: true})
	require.NoError(t, err)
}

// A counter below its bucket's largest id is reported with Counter set.
func TestCheckReportsALowCounter(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	_, err = ws.LearnNode(ctx, vault.Node{Type: vault.Pattern, Content: "Counters never wrap"})
	require.NoError(t, err)
	require.NoError(t, ws.DB().Update(func(tx *bolt.Tx) error {
		return tx.Bucket(storage.BucketVaultNodes).SetSequence(0)
	}))
	rep, err := ws.CheckDB(ctx)
	require.NoError(t, err)
	assert.False(t, rep.OK)
	assert.True(t, rep.Counter)
	assert.False(t, rep.Damaged)
}

// A damaged database does not open (ErrDamaged); RecoverDB copies what is
// readable into a new file that does, and never touches the source.
func TestRecoverDBCopiesADamagedDatabase(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	for i := range 200 {
		_, err := ws.LearnNode(ctx, vault.Node{Type: vault.Pattern, Content: "Recoverable node number " + string(rune('a'+i%26)) + " " + filepath.Base(t.TempDir())})
		require.NoError(t, err)
	}
	require.NoError(t, ws.Close())
	dbPath := filepath.Join(root, ".nova", "nova.db")
	raw, err := os.ReadFile(dbPath)
	require.NoError(t, err)
	for i := len(raw) / 2; i < len(raw)/2+3*4096 && i < len(raw); i++ {
		raw[i] = 0xFF
	}
	require.NoError(t, os.WriteFile(dbPath, raw, 0o600))

	_, err = engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.ErrorIs(t, err, engine.ErrDamaged)

	_, err = engine.RecoverDB(ctx, root, "recovered.db")
	require.ErrorIs(t, err, engine.ErrRelativePath)
	out := filepath.Join(t.TempDir(), "recovered.db")
	rep, err := engine.RecoverDB(ctx, root, out)
	require.NoError(t, err)
	assert.False(t, rep.Complete, "pages were damaged")
	assert.NotEmpty(t, rep.Buckets)
	_, err = engine.RecoverDB(ctx, root, out)
	require.ErrorIs(t, err, engine.ErrExists)

	after, err := os.ReadFile(dbPath)
	require.NoError(t, err)
	assert.Equal(t, raw, after, "the damaged file is never written")

	// Put in place, the copy opens.
	require.NoError(t, os.Rename(dbPath, dbPath+".damaged"))
	require.NoError(t, os.Rename(out, dbPath))
	ws, err = engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	rep2, err := ws.CheckDB(ctx)
	require.NoError(t, err)
	assert.True(t, rep2.OK, rep2.Problems)
	require.NoError(t, ws.Close())
}

// The engine refuses special files too (a remote owner opens the path).
func TestImportVaultRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	fifo := filepath.Join(t.TempDir(), "nodes.jsonl")
	hostile.FIFO(t, fifo)
	done := make(chan error, 1)
	go func() {
		_, err := ws.ImportVault(ctx, fifo)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, safefile.ErrNotRegular)
	case <-time.After(30 * time.Second):
		t.Fatal("import of a FIFO hangs")
	}
	_, err = ws.ImportVault(ctx, "/dev/zero")
	require.ErrorIs(t, err, safefile.ErrNotRegular)
}
