package storage

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// A database left at schema 2 (before the library) gains the library's
// buckets at open and keeps what it held.
func TestLibraryMigrationCreatesItsBucketsAndKeepsData(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	raw, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	require.NoError(t, raw.Update(func(tx *bolt.Tx) error {
		for _, name := range Registry {
			isLibrary := false
			for _, l := range LibraryBuckets {
				isLibrary = isLibrary || string(l) == string(name)
			}
			if isLibrary {
				continue // schema 2 did not have them
			}
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		if err := migrateTrust(tx); err != nil {
			return err
		}
		if err := writeSchema(tx, 2); err != nil {
			return err
		}
		return tx.Bucket(BucketBuilds).Put(Key(7), []byte("kept"))
	}))
	require.NoError(t, raw.Close())

	db, err := Open(path, Options{})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, SchemaVersion, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range LibraryBuckets {
			assert.NotNil(t, tx.Bucket(name), string(name))
		}
		assert.Equal(t, "kept", string(tx.Bucket(BucketBuilds).Get(Key(7))))
		return nil
	}))
	// Running it again is harmless.
	require.NoError(t, db.Update(migrateLibrary))
}
