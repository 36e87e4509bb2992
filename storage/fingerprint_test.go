//go:build linux || darwin || freebsd

package storage

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// openMode opens path and returns how much the open verified.
func openMode(t *testing.T, path string, opts Options) verifyMode {
	t.Helper()
	db, err := Open(path, opts)
	require.NoError(t, err)
	mode := db.verified
	require.NoError(t, db.Close())
	return mode
}

// A file exactly as the last nova left it is not walked again: only the
// cheap checks run. Closing a handle that wrote nothing leaves the file
// and the sidecar untouched.
func TestCleanCloseLetsTheNextOpenSkipThePageWalk(t *testing.T) {
	t.Parallel()
	path, _ := populated(t)
	require.FileExists(t, sidecarPath(path))
	assert.Equal(t, verifiedFingerprint, openMode(t, path, Options{}))

	st1, err := os.Stat(path)
	require.NoError(t, err)
	side1, err := os.ReadFile(sidecarPath(path))
	require.NoError(t, err)
	assert.Equal(t, verifiedFingerprint, openMode(t, path, Options{ReadOnly: true}))
	assert.Equal(t, verifiedFingerprint, openMode(t, path, Options{}))
	st2, err := os.Stat(path)
	require.NoError(t, err)
	side2, err := os.ReadFile(sidecarPath(path))
	require.NoError(t, err)
	assert.Equal(t, st1.ModTime(), st2.ModTime(), "an open that writes nothing changes nothing")
	assert.Equal(t, side1, side2)

	// A write moves the fingerprint along with it.
	db, err := Open(path, Options{})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return tx.Bucket(BucketSettings).Put([]byte("k"), []byte("v")) }))
	require.NoError(t, db.Close())
	assert.Equal(t, verifiedFingerprint, openMode(t, path, Options{}))
}

// Whatever changed the file after the last nova closed it, right away (in
// the same clock tick of the file system) or later, the next open walks
// every page. The flips of FuzzDamagedDatabase's seed build a loop in a
// bucket tree: trusted by mistake, bbolt's cursor would go round it until
// the process is killed.
func TestAnyChangeAfterTheCloseIsVerifiedInFull(t *testing.T) {
	t.Parallel()
	flipInPlace := func(seed uint64, flips int) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			t.Helper()
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(seed, seed))
			for range flips {
				i := 2*4096 + rng.IntN(len(raw)-2*4096)
				_, err := f.WriteAt([]byte{raw[i] ^ byte(1+rng.IntN(255))}, int64(i))
				require.NoError(t, err)
			}
			require.NoError(t, f.Close())
		}
	}
	cases := []struct {
		name    string
		change  func(*testing.T, string)
		corrupt bool
	}{
		// Seed and count picked for the layout populated() writes (they build the loop: "page
		// 27 is referenced twice"); re-pick them when that layout changes.
		{"a loop in a tree, written in place at once", flipInPlace(387, 17), true},
		{"200 bytes flipped in place at once", flipInPlace(1, 200), true},
		{"the file rewritten whole", flipBytes(2), true},
		{"cut short", truncateHalf, true},
		{"one byte inside a value (not damage bbolt sees)", func(t *testing.T, path string) {
			t.Helper()
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			require.NoError(t, err)
			st, err := f.Stat()
			require.NoError(t, err)
			// The last byte of the file: inside the last page, zero padding or a value.
			b := make([]byte, 1)
			_, err = f.ReadAt(b, st.Size()-1)
			require.NoError(t, err)
			_, err = f.WriteAt(b, st.Size()-1) // same byte: only the times change
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}, false},
		{"touched back to the recorded time", func(t *testing.T, path string) {
			t.Helper()
			fp, ok := readSidecar(path)
			require.True(t, ok)
			require.NoError(t, os.Chtimes(path, time.Time{}, time.Unix(0, fp.Mtime)))
		}, false},
		{"replaced by a copy of itself", func(t *testing.T, path string) {
			t.Helper()
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			tmp := path + ".copy"
			require.NoError(t, os.WriteFile(tmp, raw, 0o600))
			require.NoError(t, os.Rename(tmp, path))
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path, _ := populated(t)
			require.FileExists(t, sidecarPath(path))
			c.change(t, path)
			mode, _, err := verifyLocked(path, time.Second)
			if c.corrupt {
				require.Error(t, err)
				assert.ErrorIs(t, err, ErrCorrupt)
				_, err = Open(path, Options{})
				assert.ErrorIs(t, err, ErrCorrupt)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, verifiedFull, mode)
			// Verified and closed by a writer: trusted again.
			assert.Equal(t, verifiedFull, openMode(t, path, Options{}))
			assert.Equal(t, verifiedFingerprint, openMode(t, path, Options{}))
		})
	}
}

// A process killed after writing leaves the sidecar of an earlier state:
// the next open verifies everything.
func TestSidecarOfAnEarlierStateIsNotTrusted(t *testing.T) {
	t.Parallel()
	path, _ := populated(t)
	old, err := os.ReadFile(sidecarPath(path))
	require.NoError(t, err)
	db, err := Open(path, Options{})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return tx.Bucket(BucketSettings).Put([]byte("k"), []byte("v")) }))
	require.NoError(t, db.Close())
	require.NoError(t, os.WriteFile(sidecarPath(path), old, 0o600)) // as if the close never happened
	assert.Equal(t, verifiedFull, openMode(t, path, Options{}))
}

// Read-only handles never write, not even the sidecar; a handle that met
// a damaged page removes it, so the next open looks at every page.
func TestOnlyACleanWriterLeavesAFingerprint(t *testing.T) {
	t.Parallel()
	path, _ := populated(t)
	require.NoError(t, os.Remove(sidecarPath(path)))
	assert.Equal(t, verifiedFull, openMode(t, path, Options{ReadOnly: true}))
	assert.NoFileExists(t, sidecarPath(path), "a read-only open writes nothing")

	db, err := Open(path, Options{})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.FileExists(t, sidecarPath(path))

	db, err = Open(path, Options{})
	require.NoError(t, err)
	db.damaged.Store(true)
	require.NoError(t, db.Close())
	assert.NoFileExists(t, sidecarPath(path), "a damaged handle drops the fingerprint")
	assert.Equal(t, verifiedFull, openMode(t, path, Options{ReadOnly: true}))
}

// The sidecar is a workspace file like any other: garbage, a directory or
// a named pipe in its place is no fingerprint (and never blocks).
func TestHostileSidecarsAreNoFingerprint(t *testing.T) {
	t.Parallel()
	for name, plant := range map[string]func(string) error{
		"garbage":   func(p string) error { return os.WriteFile(p, []byte("{\"v\":1,\"size\":\"x\""), 0o600) },
		"directory": func(p string) error { return os.Mkdir(p, 0o700) },
		"fifo":      func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"huge":      func(p string) error { return os.WriteFile(p, make([]byte, 1<<20), 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path, _ := populated(t)
			require.NoError(t, os.Remove(sidecarPath(path)))
			require.NoError(t, plant(sidecarPath(path)))
			done := make(chan verifyMode, 1)
			go func() {
				mode, _, err := verifyLocked(path, time.Second)
				assert.NoError(t, err)
				done <- mode
			}()
			select {
			case mode := <-done:
				assert.Equal(t, verifiedFull, mode)
			case <-time.After(30 * time.Second):
				t.Fatal("reading the sidecar hangs")
			}
		})
	}
}

// Recover's temporary file leaves no sidecar behind.
func TestRecoverLeavesNoSidecar(t *testing.T) {
	t.Parallel()
	src, _ := populated(t)
	dst := filepath.Join(t.TempDir(), "out.db")
	_, err := Recover(t.Context(), src, dst, Options{NoSync: true})
	require.NoError(t, err)
	entries, err := os.ReadDir(filepath.Dir(dst))
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the recovered file")
	assert.Equal(t, "out.db", entries[0].Name())
}
