package storage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

func openTemp(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".nova", "nova.db")
	db, err := Open(path, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db, path
}

func TestOpenCreatesBucketsAndSchema(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, SchemaVersion, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range Registry {
			assert.NotNil(t, tx.Bucket(name), "bucket %s", name)
		}
		return nil
	}))
}

func TestSecondOpenGetsInUseWithinTwoSeconds(t *testing.T) {
	t.Parallel()
	_, path := openTemp(t)
	start := time.Now()
	_, err := Open(path, Options{LockTimeout: 300 * time.Millisecond})
	elapsed := time.Since(start)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrInUse)
	assert.Contains(t, err.Error(), path)
	assert.Less(t, elapsed, 2*time.Second)

	_, err = Open(path, Options{ReadOnly: true, LockTimeout: 300 * time.Millisecond})
	assert.ErrorIs(t, err, ErrInUse, "a reader waits for the writer's lock and gives up clearly")
}

func TestReadOnlyOpensShareTheFile(t *testing.T) {
	t.Parallel()
	db, path := openTemp(t)
	require.NoError(t, db.Close())

	r1, err := Open(path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer func() { _ = r1.Close() }()
	r2, err := Open(path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer func() { _ = r2.Close() }()
	assert.True(t, r2.ReadOnly())
	assert.ErrorIs(t, r1.Update(func(*bolt.Tx) error { return nil }), ErrReadOnly)
	n, err := r1.Count(BucketVaultNodes)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
}

func TestReadOnlyWithoutDatabase(t *testing.T) {
	t.Parallel()
	_, err := Open(filepath.Join(t.TempDir(), "nova.db"), Options{ReadOnly: true})
	assert.ErrorIs(t, err, ErrNoDatabase)
}

func TestCorruptAndForeignFiles(t *testing.T) {
	t.Parallel()
	cases := map[string][]byte{
		"text":      []byte("this is a shopping list, not a database\n"),
		"short":     {0x01, 0x02},
		"zero page": make([]byte, 8192),
		"random":    bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 4096),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "nova.db")
			require.NoError(t, os.WriteFile(path, content, 0o600))
			_, err := Open(path, Options{})
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrCorrupt)
			assert.Contains(t, err.Error(), path)
			after, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.Equal(t, content, after, "a corrupt file is never rewritten")
		})
	}
}

func TestDamagedMetaPages(t *testing.T) {
	t.Parallel()
	db, path := openTemp(t)
	require.NoError(t, db.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	// Keep the magic but scribble over the rest of both meta pages.
	for _, off := range []int{0, 4096} {
		for i := off + 24; i < off+80 && i < len(raw); i++ {
			raw[i] ^= 0xff
		}
	}
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	_, err = Open(path, Options{})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrCorrupt)
}

func TestSchemaTooNew(t *testing.T) {
	t.Parallel()
	db, path := openTemp(t)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return writeSchema(tx, SchemaVersion+5) }))
	require.NoError(t, db.Close())
	_, err := Open(path, Options{})
	assert.ErrorIs(t, err, ErrSchemaTooNew)
}

func TestMigration1CreatesEveryBucket(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	raw, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	require.NoError(t, raw.Close())
	db, err := Open(path, Options{})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, name := range Registry {
			require.NotNil(t, tx.Bucket(name), string(name))
		}
		assert.NotNil(t, tx.Bucket(BucketMeta).Get(metaCreatedKey))
		return nil
	}))
}

func TestMigrationsAreOrderedAndRunOnce(t *testing.T) {
	t.Parallel()
	for i := 1; i < len(Migrations); i++ {
		assert.Equal(t, Migrations[i-1].Version+1, Migrations[i].Version, "migrations must be consecutive")
	}
	db, _ := openTemp(t)
	calls := 0
	extra := append(append([]Migration{}, Migrations...), Migration{
		Version: SchemaVersion + 1, Name: "test add bucket",
		Up: func(tx *bolt.Tx) error {
			calls++
			_, err := tx.CreateBucket([]byte("test_extra"))
			return err
		},
	})
	require.NoError(t, runMigrations(db, extra))
	require.NoError(t, runMigrations(db, extra))
	assert.Equal(t, 1, calls)
	v, err := db.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, SchemaVersion+1, v)
}

func TestFailingMigrationRollsBack(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	bad := append(append([]Migration{}, Migrations...),
		Migration{Version: SchemaVersion + 1, Name: "ok", Up: func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket([]byte("half"))
			return err
		}},
		Migration{Version: SchemaVersion + 2, Name: "boom", Up: func(*bolt.Tx) error { return os.ErrInvalid }},
	)
	err := runMigrations(db, bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "boom")
	v, _ := db.SchemaVersion()
	assert.Equal(t, SchemaVersion, v)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket([]byte("half")), "all migrations share one transaction")
		return nil
	}))
}

type rec struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

func TestCodecRoundTripAndCopy(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	c := Codec[rec]{Version: 2}
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		return c.Put(tx.Bucket(BucketSettings), []byte("k"), rec{Name: "alpha", N: 3})
	}))
	var got rec
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		var err error
		got, err = c.Get(tx.Bucket(BucketSettings), []byte("k"))
		return err
	}))
	assert.Equal(t, rec{Name: "alpha", N: 3}, got)

	_, err := c.Unmarshal([]byte(`{"name":"x"}`))
	assert.ErrorIs(t, err, ErrBadRecord)
	_, err = c.Unmarshal([]byte{codecMagic, 9, '{', '}'})
	assert.ErrorIs(t, err, ErrBadRecord)
	_, err = c.Unmarshal([]byte{codecMagic, 2, '{'})
	assert.ErrorIs(t, err, ErrBadRecord)

	up := Codec[rec]{Version: 3, Upgrade: func(from uint8, raw []byte) (rec, error) {
		old, err := Codec[rec]{Version: from}.Unmarshal(append([]byte{codecMagic, from}, raw...))
		old.N *= 10
		return old, err
	}}
	v2, err := c.Marshal(rec{Name: "b", N: 1})
	require.NoError(t, err)
	got, err = up.Unmarshal(v2)
	require.NoError(t, err)
	assert.Equal(t, 10, got.N)

	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		_, err := c.Get(tx.Bucket(BucketSettings), []byte("missing"))
		assert.ErrorIs(t, err, ErrNotFound)
		return nil
	}))
}

func TestKeysSortNumerically(t *testing.T) {
	t.Parallel()
	ids := []uint64{1, 2, 255, 256, 65536, 1 << 40}
	for i := 1; i < len(ids); i++ {
		assert.Negative(t, bytes.Compare(Key(ids[i-1]), Key(ids[i])))
	}
	assert.Equal(t, uint64(65536), ParseKey(Key(65536)))
	assert.Equal(t, uint64(0), ParseKey([]byte("short")))
}

func TestIndex(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	ix := Index{Bucket: BucketVaultIndex, Name: "tag"}
	other := Index{Bucket: BucketVaultIndex, Name: "type"}
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for _, id := range []uint64{3, 1, 2} {
			require.NoError(t, ix.Add(tx, "go", id))
		}
		require.NoError(t, ix.Add(tx, "golang", 9))
		require.NoError(t, other.Add(tx, "go", 7))
		return ix.Remove(tx, "go", 2)
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		var got []uint64
		ix.IDs(tx, "go", func(id uint64) bool { got = append(got, id); return true })
		assert.Equal(t, []uint64{1, 3}, got, "prefix scan must not leak into 'golang' or other indexes")
		assert.Equal(t, map[string]int{"go": 2, "golang": 1}, ix.Values(tx))
		return nil
	}))
}

func TestBackupRoundTrip(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	c := Codec[rec]{}
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(BucketVaultNodes)
		for i := 0; i < 500; i++ {
			id, _ := NextID(b)
			if err := c.Put(b, Key(id), rec{Name: "n" + strconv.Itoa(i), N: i}); err != nil {
				return err
			}
		}
		return nil
	}))
	backup := filepath.Join(t.TempDir(), "copy.db")
	n, err := db.BackupFile(backup, BackupOptions{})
	require.NoError(t, err)
	assert.Positive(t, n)

	_, err = db.BackupFile(db.Path(), BackupOptions{})
	assert.Error(t, err, "backing up onto the live file is refused")

	copyDB, err := Open(backup, Options{ReadOnly: true})
	require.NoError(t, err)
	defer func() { _ = copyDB.Close() }()
	count, err := copyDB.Count(BucketVaultNodes)
	require.NoError(t, err)
	assert.Equal(t, 500, count)
	require.NoError(t, copyDB.View(func(tx *bolt.Tx) error {
		r, err := c.Get(tx.Bucket(BucketVaultNodes), Key(250))
		assert.Equal(t, "n249", r.Name)
		return err
	}))
	assert.Empty(t, copyDB.Check())
}

func TestCompactKeepsData(t *testing.T) {
	t.Parallel()
	db, path := openTemp(t)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(BucketTraces)
		for i := uint64(1); i <= 2000; i++ {
			if err := b.Put(Key(i), bytes.Repeat([]byte("x"), 512)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(BucketTraces)
		for i := uint64(1); i <= 1900; i++ {
			if err := b.Delete(Key(i)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())
	st, err := Compact(path, Options{})
	require.NoError(t, err)
	assert.Less(t, st.After, st.Before)
	db2, err := Open(path, Options{})
	require.NoError(t, err)
	defer func() { _ = db2.Close() }()
	n, err := db2.Count(BucketTraces)
	require.NoError(t, err)
	assert.Equal(t, 100, n)
	assert.Empty(t, db2.Check())
}

func FuzzOpenGarbage(f *testing.F) {
	f.Add([]byte("hello"))
	f.Add(append(make([]byte, 16), 0xED, 0xDA, 0x0C, 0xED))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "nova.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Skip()
		}
		db, err := Open(path, Options{LockTimeout: 100 * time.Millisecond})
		if err == nil {
			_ = db.Close()
		}
	})
}

func TestReleaseMappedKeepsData(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	val := bytes.Repeat([]byte("x"), 3000)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(BucketSettings)
		for i := range 2000 {
			if err := b.Put(Key(uint64(i)), val); err != nil {
				return err
			}
		}
		return nil
	}))
	read := func() int {
		n := 0
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			return tx.Bucket(BucketSettings).ForEach(func(_, v []byte) error {
				if bytes.Equal(v, val) {
					n++
				}
				return nil
			})
		}))
		return n
	}
	require.Equal(t, 2000, read())
	db.ReleaseMapped()
	assert.Equal(t, 2000, read(), "pages dropped from the process are read again")
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		db.ReleaseMapped() // even under an open read transaction
		assert.Equal(t, val, tx.Bucket(BucketSettings).Get(Key(7)))
		return nil
	}))
}

// Children reads one parent's numbered children in order and nothing of
// its neighbours; All reads a bucket; a bad record names its key.
func TestCodecChildrenAndAll(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	c := Codec[rec]{Version: 1}
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("children_test"))
		if err != nil {
			return err
		}
		for _, p := range []uint64{1, 2, 3} {
			for n := 3; n >= 1; n-- { // written out of order
				if err := c.Put(b, ChildKey(p, n), rec{Name: fmt.Sprintf("%d/%d", p, n), N: n}); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("children_test"))
		kids, err := c.Children(b, 2)
		require.NoError(t, err)
		assert.Equal(t, []rec{{"2/1", 1}, {"2/2", 2}, {"2/3", 3}}, kids)
		none, err := c.Children(b, 9)
		require.NoError(t, err)
		assert.Equal(t, []rec{}, none)
		all, err := c.All(b)
		require.NoError(t, err)
		assert.Len(t, all, 9)
		assert.Equal(t, "1/1", all[0].Name)
		missing, err := c.All(nil)
		require.NoError(t, err)
		assert.Empty(t, missing)
		return nil
	}))
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("children_test")).Put(ChildKey(2, 2), []byte("{not a record"))
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		_, err := c.Children(tx.Bucket([]byte("children_test")), 2)
		assert.ErrorIs(t, err, ErrBadRecord)
		assert.Contains(t, err.Error(), fmt.Sprintf("%x", ChildKey(2, 2)))
		return nil
	}))
}
