//go:build linux || darwin

package patterns

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readFast reads files of a Root by name in their kept-open folder; whatever it cannot vouch
// for goes the general way, so the outcome is always the general one.
func TestReadFastMatchesGeneralRead(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "lib")
	outside := filepath.Join(base, "outside")
	writeFiles(t, root, map[string]string{
		"top.md": goodPattern, "a/one.md": goodPattern, "a/two.md": "# Two\n\nsecond file words\n",
		"b/c/deep.md": goodPattern, "a/big.md": strings.Repeat("x", 300),
	})
	writeFiles(t, outside, map[string]string{"x.md": "# Secret\n\nOutside the library.\n"})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Skipf("symlinks not supported: %v", err)
	}
	require.NoError(t, os.Symlink("one.md", filepath.Join(root, "a", "link.md")))
	require.NoError(t, os.Symlink("../../outside/x.md", filepath.Join(root, "a", "escape.md")))
	if err := syscall.Mkfifo(filepath.Join(root, "a", "pipe.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	o := &opener{fsys: openRootFS(t, root)}
	defer o.close()

	read := func(name string) ([]byte, error) {
		// The walk saw a regular file; what is there now decides.
		return readCandidate(o, candidate{path: name}, 200)
	}
	for _, name := range []string{"a/one.md", "a/two.md", "b/c/deep.md", "a/one.md", "top.md", "a/link.md"} {
		data, err := read(name)
		require.NoError(t, err, name)
		want, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(data), name)
	}
	data, ok, err := o.readFast("a/one.md", 200)
	assert.True(t, ok, "a regular file in a folder is read the fast way")
	assert.NoError(t, err)
	assert.Equal(t, goodPattern, string(data))
	for _, name := range []string{"top.md", "a/link.md", "out/x.md", "a/escape.md", "a/missing.md"} {
		_, ok, _ := o.readFast(name, 200)
		assert.False(t, ok, "%s goes the general way", name)
	}

	_, err = read("a/big.md")
	assert.ErrorIs(t, err, ErrTooLarge)
	_, err = read("out/x.md")
	assert.Error(t, err, "a folder symlinked out of the library is refused")
	_, err = read("a/escape.md")
	assert.Error(t, err, "a symlink leading out of the library is refused")
	// A FIFO where the walk saw a file: refused at once, the open does not wait for a writer.
	_, err = read("a/pipe.md")
	assert.ErrorIs(t, err, ErrNotRegular)
}

// rootFS lists a folder as the Root's own FS does (names, order, types, Info), without a
// stat per entry, and refuses a folder that leads out of the library.
func TestRootFSReadDirMatchesRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "lib")
	outside := filepath.Join(base, "outside")
	writeFiles(t, root, map[string]string{"top.md": goodPattern, "a/one.md": goodPattern, "a/B.md": goodPattern, "a/sub/deep.md": goodPattern, "a/.hidden/x.md": goodPattern})
	writeFiles(t, outside, map[string]string{"x.md": goodPattern})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Skipf("symlinks not supported: %v", err)
	}
	require.NoError(t, os.Symlink("one.md", filepath.Join(root, "a", "link.md")))
	if err := syscall.Mkfifo(filepath.Join(root, "a", "pipe.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	fsys := openRootFS(t, root)
	rf := fsys.rootFSys
	for _, dir := range []string{".", "a", "a/sub", "a/.hidden"} {
		want, err := rf.ReadDir(dir)
		require.NoError(t, err)
		got, err := fsys.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, got, len(want), dir)
		for i := range want {
			assert.Equal(t, want[i].Name(), got[i].Name(), dir)
			assert.Equal(t, want[i].Type(), got[i].Type(), "%s/%s", dir, want[i].Name())
			assert.Equal(t, want[i].IsDir(), got[i].IsDir())
			wi, err := want[i].Info()
			require.NoError(t, err)
			gi, err := got[i].Info()
			require.NoError(t, err)
			assert.Equal(t, wi.Mode(), gi.Mode())
			assert.Equal(t, wi.Size(), gi.Size())
		}
	}
	_, err := fsys.ReadDir("out")
	assert.Error(t, err, "a folder symlinked out of the library is not listed")
	_, err = fsys.ReadDir("missing")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// readWhole takes a file in one read only when the read stops at the size fstat gave; a file
// that grew or shrank since is left, its offset unmoved, to readFile, which reads what is
// there.
func TestReadWholeOnlyAtTheStatSize(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), "f.md")
	content := "# Title\n\nsome words\n"
	require.NoError(t, os.WriteFile(name, []byte(content), 0o644))
	f, err := os.Open(name)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	fd := int(f.Fd())
	size := int64(len(content))

	data, ok := readWhole(fd, size)
	assert.True(t, ok)
	assert.Equal(t, content, string(data))
	for _, stale := range []int64{size - 5, size + 5, 0} { // grew after stat, shrank, was empty
		data, ok = readWhole(fd, stale)
		assert.False(t, ok, "stat size %d", stale)
		assert.Nil(t, data)
		off, err := f.Seek(0, io.SeekCurrent)
		require.NoError(t, err)
		assert.Zero(t, off, "readWhole leaves the offset at the start")
		got, err := readFile(fdReader(fd), stale, 1000)
		require.NoError(t, err)
		assert.Equal(t, content, string(got), "stat size %d", stale)
		_, err = f.Seek(0, io.SeekStart)
		require.NoError(t, err)
	}
	empty := filepath.Join(t.TempDir(), "empty.md")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	e, err := os.Open(empty)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	data, ok = readWhole(int(e.Fd()), 0)
	assert.True(t, ok)
	assert.Empty(t, data)
}
