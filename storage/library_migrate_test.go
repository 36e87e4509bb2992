package storage

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Migration 7 adds the library's buckets to a schema-6 database (trust,
// knowledge, the apply journal, the orchestrator and the vault index applied) and keeps what it held; running it again is harmless.
func TestMigration7CreatesLibraryBucketsAndKeepsData(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{Migrations: Migrations[:6]})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for _, name := range LibraryBuckets {
			assert.Nil(t, tx.Bucket(name), "%s belongs to migration 7", name)
		}
		if err := tx.Bucket(BucketBuilds).Put(Key(7), []byte("kept")); err != nil {
			return err
		}
		return tx.Bucket(BucketFacts).Put(Key(1), []byte("fact"))
	}))
	require.NoError(t, db.Close())

	db, err = Open(path, Options{Migrations: Migrations[:7]})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, 7, v)
	assert.Equal(t, Migrations[6].Version, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range LibraryBuckets {
			assert.NotNil(t, tx.Bucket(name), string(name))
		}
		assert.Equal(t, "kept", string(tx.Bucket(BucketBuilds).Get(Key(7))))
		assert.Equal(t, "fact", string(tx.Bucket(BucketFacts).Get(Key(1))))
		return nil
	}))
	require.NoError(t, db.Update(migrateLibrary))
}
