package patterns

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readFile reads exactly what the file has when it is read, whatever Stat said, and never
// more than maxSize+1 bytes.
func TestReadFileSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		content       string
		size, maxSize int64
		want          string
	}{
		{"exact", "hello world", 11, 100, "hello world"},
		{"empty", "", 0, 100, ""},
		{"shrank after stat", "hello", 11, 100, "hello"},
		{"shrank to nothing", "", 11, 100, ""},
		{"grew after stat", "hello world, and more", 11, 100, "hello world, and more"},
		{"grew past the limit", strings.Repeat("x", 50), 5, 20, strings.Repeat("x", 21)},
		{"at the limit", strings.Repeat("x", 20), 20, 20, strings.Repeat("x", 20)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range []io.Reader{strings.NewReader(tc.content), iotest.OneByteReader(strings.NewReader(tc.content)), iotest.HalfReader(strings.NewReader(tc.content))} {
				got, err := readFile(r, tc.size, tc.maxSize)
				require.NoError(t, err)
				assert.Equal(t, tc.want, string(got))
			}
		})
	}
	errRead := errors.New("disk on fire")
	_, err := readFile(iotest.ErrReader(errRead), 10, 100)
	assert.ErrorIs(t, err, errRead)
	_, err = readFile(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(errRead)), 3, 100)
	assert.ErrorIs(t, err, errRead, "an error where the end should be is an error")
}

// A scan worker opens each folder as a Root of its own: a folder that is (or became) a
// symlink leading out of the library is refused, nested folders and files in the library's
// root folder are read, and errors name the whole path.
func TestOpenerFolderRoots(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "lib")
	outside := filepath.Join(base, "outside")
	writeFiles(t, root, map[string]string{"top.md": goodPattern, "a/b/c/deep.md": goodPattern, "a/one.md": goodPattern, "inner/x.md": goodPattern})
	writeFiles(t, outside, map[string]string{"x.md": "# Secret\n\nOutside the library.\n"})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Skipf("symlinks not supported: %v", err)
	}
	require.NoError(t, os.Symlink("inner", filepath.Join(root, "in")))
	o := opener{fsys: openRootFS(t, root)}
	defer o.close()
	for _, name := range []string{"top.md", "a/b/c/deep.md", "a/one.md", "a/b/c/deep.md", "top.md", "inner/x.md", "in/x.md"} {
		f, err := o.open(name)
		if assert.NoError(t, err, name) {
			data, err := io.ReadAll(f)
			assert.NoError(t, err)
			assert.Equal(t, goodPattern, string(data), name)
			assert.NoError(t, f.Close())
		}
	}
	_, err := o.open("out/x.md")
	assert.Error(t, err, "a folder symlinked out of the library must not be opened")
	_, err = o.open("a/missing.md")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	var pe *fs.PathError
	if assert.ErrorAs(t, err, &pe) {
		assert.Equal(t, "a/missing.md", pe.Path)
	}
}

// openRootFS opens root as the scan does (an os.Root and its FS), closed when the test ends.
func openRootFS(t *testing.T, root string) rootFS {
	t.Helper()
	r, err := os.OpenRoot(root)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	rf, ok := r.FS().(rootFSys)
	require.True(t, ok, "os.Root's FS implements rootFSys")
	return rootFS{rootFSys: rf, root: r}
}
