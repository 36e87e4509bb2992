package storage

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// populated makes a database with records in several buckets (enough for
// many data pages) and returns its path and the record count per bucket.
func populated(t *testing.T) (string, map[string]int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(path, Options{NoSync: true})
	require.NoError(t, err)
	counts := map[string]int{}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range [][]byte{BucketVaultNodes, BucketVaultEdges, BucketChangesets, BucketRuns, BucketSettings} {
		n := 300
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(name)
			for range n {
				id, err := NextID(b)
				if err != nil {
					return err
				}
				val := make([]byte, 100+rng.IntN(400))
				for i := range val {
					val[i] = 'a' + byte(rng.IntN(26))
				}
				if err := b.Put(Key(id), val); err != nil {
					return err
				}
			}
			return nil
		}))
		counts[string(name)] = n
	}
	require.NoError(t, db.Close())
	return path, counts
}

// The three damages of issue 11.
func truncateHalf(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, st.Size()/2))
}

func flipBytes(seed uint64) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, seed))
		const page = 4096
		for range 200 { // data pages only: the meta pages 0 and 1 stay intact
			i := 2*page + rng.IntN(len(raw)-2*page)
			raw[i] ^= byte(1 + rng.IntN(255))
		}
		require.NoError(t, os.WriteFile(path, raw, 0o600))
	}
}

func emptyFile(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.Truncate(path, 0))
}

var damages = map[string]func(*testing.T, string){
	"truncated to half":         truncateHalf,
	"200 flipped bytes":         flipBytes(1),
	"200 flipped bytes, seed 2": flipBytes(2),
	"200 flipped bytes, seed 3": flipBytes(3),
	"0-byte file":               emptyFile,
}

// Issue 11: on a damaged file `db check`, `doctor`, `db backup`,
// `db compact` and `vault stats` died with "fatal error: fault"; flipped
// bytes were reported as "does not exist yet" and then written into; a
// 0-byte file was silently replaced. Now: no crash, damage is reported as
// ErrCorrupt, and the damaged file is never written to.
func TestDamagedDatabasesNeverCrashNorGetWritten(t *testing.T) {
	t.Parallel()
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path, _ := populated(t)
			damage(t, path)
			before, err := os.ReadFile(path)
			require.NoError(t, err)

			// A writable open (every write command) refuses the file.
			_, err = Open(path, Options{})
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrCorrupt)
			assert.NotErrorIs(t, err, ErrNoDatabase)
			if name != "0-byte file" {
				assert.Contains(t, err.Error(), "nova db recover")
			}

			// A read-only open (db check, doctor, listings) either refuses
			// or reads; every read and the check report the damage.
			ro, err := Open(path, Options{ReadOnly: true})
			if err != nil {
				assert.ErrorIs(t, err, ErrCorrupt)
				assert.NotErrorIs(t, err, ErrNoDatabase, "never \"does not exist yet\"")
			} else {
				assert.ErrorIs(t, ro.Update(func(*bolt.Tx) error { return nil }), ErrReadOnly)
				problems := ro.Check()
				assert.NotEmpty(t, problems, "db check reports the damage")
				for _, b := range Registry {
					_, _ = ro.Count(b) // must not crash
				}
				_ = ro.View(func(tx *bolt.Tx) error {
					return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
						return b.ForEach(func(_, _ []byte) error { return nil })
					})
				})
				out := filepath.Join(t.TempDir(), "backup.db")
				if _, err := ro.BackupFile(out, BackupOptions{}); err != nil {
					assert.ErrorIs(t, err, ErrCorrupt)
				}
				require.NoError(t, ro.Close())
			}

			// Compact refuses and leaves no temporary file behind.
			_, err = Compact(path, Options{})
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrCorrupt)
			_, statErr := os.Stat(path + ".compact")
			assert.ErrorIs(t, statErr, os.ErrNotExist, "compact cleans up after itself")

			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(before, after), "the damaged file was not written to")
		})
	}
}

func TestZeroByteDatabaseIsRefusedClearly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	for _, ro := range []bool{false, true} {
		_, err := Open(path, Options{ReadOnly: ro})
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrCorrupt)
		assert.Contains(t, err.Error(), "empty (0 bytes)")
		assert.NotContains(t, err.Error(), "bad file descriptor")
	}
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Zero(t, st.Size(), "not silently replaced by a fresh database")
}

// Two novas started together on a new workspace: the first creates the
// file and takes its lock a moment later; the second, seeing it empty
// meanwhile, waits for it instead of calling it damaged.
func TestAFileBeingCreatedIsNotDamaged(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nova.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600)) // created, not yet locked
	created := make(chan error, 1)
	go func() {
		time.Sleep(100 * time.Millisecond) // bbolt creates, then locks and writes the first pages
		bdb, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 10 * time.Second})
		if err == nil {
			err = bdb.Close()
		}
		created <- err
	}()
	db, err := Open(path, Options{NoSync: true, LockTimeout: 10 * time.Second})
	require.NoError(t, err, "an empty file whose creator is about to lock it is not damaged")
	require.NoError(t, db.Close())
	require.NoError(t, <-created)
}

// A handle that meets a damaged page refuses every later write.
func TestWritesStopAfterAFault(t *testing.T) {
	t.Parallel()
	path, _ := populated(t)
	db, err := Open(path, Options{})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	// Simulate bbolt panicking on a bad page inside a read.
	err = db.View(func(tx *bolt.Tx) error {
		tx.Bucket(BucketVaultNodes).Cursor().Seek(nil)
		var p *bolt.Bucket
		_ = p.Sequence() // nil *Bucket: the panic is raised inside bbolt
		return nil
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.True(t, db.Damaged())
	err = db.Update(func(*bolt.Tx) error { return nil })
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "damaged page")
}

// A panic in a caller's own code is an error, but it does not mark the
// database damaged.
func TestCallerPanicDoesNotMarkDamage(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	err := db.View(func(*bolt.Tx) error {
		var s []int
		_ = s[len(s)] // a bug in the caller: index out of range
		return nil
	})
	require.Error(t, err)
	assert.False(t, db.Damaged())
	assert.NoError(t, db.Update(func(*bolt.Tx) error { return nil }))
}

func TestBackupRefusesToOverwriteUnlessForced(t *testing.T) {
	t.Parallel()
	db, _ := openTemp(t)
	out := filepath.Join(t.TempDir(), "backup.db")
	require.NoError(t, os.WriteFile(out, []byte("precious"), 0o600))
	_, err := db.BackupFile(out, BackupOptions{})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrExists)
	assert.Contains(t, err.Error(), "--force")
	got, _ := os.ReadFile(out)
	assert.Equal(t, "precious", string(got))
	n, err := db.BackupFile(out, BackupOptions{Force: true})
	require.NoError(t, err)
	assert.Positive(t, n)
	check, err := Open(out, Options{ReadOnly: true})
	require.NoError(t, err)
	require.NoError(t, check.Close())
	entries, _ := os.ReadDir(filepath.Dir(out))
	assert.Len(t, entries, 1, "no temporary file left")
}

// storage.Recover copies every readable record into a new file and says
// what it lost.
// dropBuckets removes two top-level buckets and a nested one, as a damaged
// root or bucket page would lose them.
func dropBuckets(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{BucketVaultBodies, BucketVaultTerms} {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		return tx.Bucket(BucketWisdom).DeleteBucket(WisdomNested[0])
	}))
	require.NoError(t, db.Close())
}

func TestRecover(t *testing.T) {
	t.Parallel()
	for name, damage := range map[string]func(*testing.T, string){
		"intact":            func(*testing.T, string) {},
		"truncated to half": truncateHalf,
		"200 flipped bytes": flipBytes(1),
		"flipped, seed 3":   flipBytes(3),
		// A list of buckets that lost entries (a damaged root page loses
		// whole buckets): the copy must still have every bucket, or no
		// nova can use it as a workspace.
		"buckets lost": dropBuckets,
		// A damaged bucket header: its id counter past anything nova issues.
		"id counter damaged": func(t *testing.T, path string) {
			db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
			require.NoError(t, err)
			require.NoError(t, db.Update(func(tx *bolt.Tx) error {
				return tx.Bucket(BucketVaultNodes).SetSequence(1 << 60)
			}))
			require.NoError(t, db.Close())
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, counts := populated(t)
			damage(t, src)
			before, _ := os.ReadFile(src)
			dst := filepath.Join(t.TempDir(), "recovered.db")
			rep, err := Recover(t.Context(), src, dst, Options{})
			require.NoError(t, err)
			after, _ := os.ReadFile(src)
			assert.True(t, bytes.Equal(before, after), "the source is never written")

			db, err := Open(dst, Options{})
			require.NoError(t, err, "the recovered file opens for writing")
			defer func() { _ = db.Close() }()
			assert.Empty(t, db.Check(), "the recovered file is consistent")
			require.NoError(t, db.View(func(tx *bolt.Tx) error {
				for _, name := range Registry {
					assert.NotNil(t, tx.Bucket(name), "%s: the copy has every registered bucket", name)
				}
				for _, name := range WisdomNested {
					assert.NotNil(t, tx.Bucket(BucketWisdom).Bucket(name), "wisdom/%s", name)
				}
				for _, name := range RunIndexKinds {
					assert.NotNil(t, tx.Bucket(BucketRunIndex).Bucket(name), "run_index/%s", name)
				}
				return nil
			}))
			byName := map[string]BucketRecovery{}
			for _, b := range rep.Buckets {
				byName[b.Name] = b
			}
			total := 0
			for bucket, want := range counts {
				br, ok := byName[bucket]
				require.True(t, ok, bucket)
				n, err := db.Count([]byte(bucket))
				require.NoError(t, err)
				assert.Equal(t, br.Copied, n, "%s: the report counts what the file holds", bucket)
				assert.LessOrEqual(t, n, want)
				if br.Lost >= 0 {
					assert.Equal(t, want, br.Copied+br.Lost, "%s: copied + lost", bucket)
				} else if bucket != string(BucketSettings) && name != "truncated to half" {
					assert.Equal(t, want-br.Copied, br.LostAtMost, "%s: ids issued but not copied", bucket)
				}
				total += n
			}
			if name == "intact" {
				assert.True(t, rep.Complete)
				assert.Zero(t, rep.Lost)
				assert.Equal(t, 1500, total)
			} else {
				assert.False(t, rep.Complete, "a damaged file loses something: %+v", rep)
				if name != "truncated to half" {
					// Cutting the file loses the newest root page (bbolt
					// writes new pages at the end): nothing is reachable.
					assert.Positive(t, total, "something was saved")
				}
			}
			// The counters never go below what was copied.
			require.NoError(t, db.Update(func(tx *bolt.Tx) error {
				id, err := NextID(tx.Bucket(BucketVaultNodes))
				require.NoError(t, err)
				assert.Nil(t, tx.Bucket(BucketVaultNodes).Get(Key(id)), "a new id replaces nothing")
				return nil
			}))
			t.Logf("%s: copied %d, lost %d, buckets %s", name, rep.Copied, rep.Lost, summary(rep))
		})
	}
}

// The index of runs in a recovered file is made again from the runs it
// copied: it names every run copied and no other.
func TestRecoverMakesTheRunIndexAgain(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "nova.db")
	db, err := Open(src, Options{NoSync: true})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(BucketBuilds).Put(Key(5), []byte(`n`+"\x01"+`{"id":5,"name":"api","status":"paused"}`)); err != nil {
			return err
		}
		// A record of a run the copy does not have.
		return tx.Bucket(BucketRunIndex).Bucket([]byte("goal")).Put(Key(9), []byte(`n`+"\x01"+`{"kind":"goal","id":9,"status":"paused"}`))
	}))
	require.NoError(t, db.Close())
	dst := filepath.Join(t.TempDir(), "recovered.db")
	_, err = Recover(t.Context(), src, dst, Options{})
	require.NoError(t, err)
	db, err = Open(dst, Options{})
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		idx := tx.Bucket(BucketRunIndex)
		e, err := runIndexCodec.Get(idx.Bucket([]byte("build")), Key(5))
		require.NoError(t, err)
		assert.Equal(t, runIndexEntry{Kind: "build", ID: 5, Status: "paused", Title: "api"}, e)
		assert.Nil(t, idx.Bucket([]byte("goal")).Get(Key(9)))
		return nil
	}))
}

func summary(rep RecoverReport) string {
	var b bytes.Buffer
	for _, br := range rep.Buckets {
		if br.Copied > 0 || br.Lost != 0 {
			fmt.Fprintf(&b, "%s=%d/%d ", br.Name, br.Copied, br.Expected)
		}
	}
	return b.String()
}

func TestRecoverRefusesExistingTargetAndEmptySource(t *testing.T) {
	t.Parallel()
	src, _ := populated(t)
	dst := filepath.Join(t.TempDir(), "there.db")
	require.NoError(t, os.WriteFile(dst, []byte("keep"), 0o600))
	_, err := Recover(t.Context(), src, dst, Options{})
	assert.ErrorIs(t, err, ErrExists)
	_, err = Recover(t.Context(), src, src, Options{})
	require.Error(t, err)

	empty := filepath.Join(t.TempDir(), "nova.db")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	_, err = Recover(t.Context(), empty, filepath.Join(t.TempDir(), "out.db"), Options{})
	assert.ErrorIs(t, err, ErrCorrupt)
}

// FuzzDamagedDatabase flips bytes anywhere past the meta pages of a real
// database, or cuts it short: opening, checking, reading, backing up and
// recovering it must never crash, and nothing may write into it.
func FuzzDamagedDatabase(f *testing.F) {
	f.Add(uint64(1), uint16(200), uint32(0))
	f.Add(uint64(7), uint16(3), uint32(0))
	f.Add(uint64(9), uint16(0), uint32(40000))
	f.Add(uint64(11), uint16(1000), uint32(12288))
	var template []byte
	f.Fuzz(func(t *testing.T, seed uint64, flips uint16, cut uint32) {
		if template == nil {
			path, _ := populated(t)
			var err error
			template, err = os.ReadFile(path)
			require.NoError(t, err)
		}
		raw := bytes.Clone(template)
		rng := rand.New(rand.NewPCG(seed, seed))
		for range int(flips) % 2000 {
			i := 2*4096 + rng.IntN(len(raw)-2*4096)
			raw[i] ^= byte(1 + rng.IntN(255))
		}
		if cut > 0 && int(cut) < len(raw) {
			raw = raw[:cut]
		}
		path := filepath.Join(t.TempDir(), "nova.db")
		require.NoError(t, os.WriteFile(path, raw, 0o600))
		if db, err := Open(path, Options{NoSync: true}); err == nil {
			// Not detected as damaged (e.g. flips inside values): fine, the
			// file is then a valid database and may be written.
			_ = db.Close()
			return
		}
		if ro, err := Open(path, Options{ReadOnly: true}); err == nil {
			_ = ro.Check()
			for _, b := range Registry {
				_, _ = ro.Count(b)
			}
			_, _ = ro.Backup(io.Discard)
			_ = ro.Close()
		}
		_, _ = Recover(t.Context(), path, filepath.Join(t.TempDir(), "out.db"), Options{NoSync: true})
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		if !bytes.Equal(raw, after) {
			t.Fatal("a damaged file was written to")
		}
	})
}

func TestRecoverStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	src, _ := populated(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	dst := filepath.Join(t.TempDir(), "out.db")
	_, err := Recover(ctx, src, dst, Options{})
	assert.ErrorIs(t, err, context.Canceled)
	_, statErr := os.Stat(dst)
	assert.ErrorIs(t, statErr, os.ErrNotExist)
	entries, _ := os.ReadDir(filepath.Dir(dst))
	assert.Empty(t, entries, "no temporary file left")
}
