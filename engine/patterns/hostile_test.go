package patterns

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
)

// Issue 11: a non-UTF-8 file name failed to import with "open: invalid
// argument"; the error now names the file and the reason. FIFOs and links
// to /dev/zero are refused without blocking.
func TestScanNamesBadFileNamesAndSpecialFiles(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("needs a file system that stores non-UTF-8 names")
	}
	dir := t.TempDir()
	hostile.Write(t, dir, "good.md", "# Good\n\nUse small handlers.\n")
	bad := "caf\xe9.md" // Latin-1 "café"
	require.NoError(t, os.WriteFile(filepath.Join(dir, bad), []byte("# Café\n\nText.\n"), 0o600))
	hostile.FIFO(t, filepath.Join(dir, "pipe.md"))
	hostile.DevZeroLink(t, filepath.Join(dir, "zero.md"))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Scan(ctx, dir, ScanOptions{})
	require.NoError(t, err)
	byPath := map[string]*FileError{}
	for i := range res.Errors {
		byPath[res.Errors[i].Path] = &res.Errors[i]
	}
	fe := byPath[bad]
	require.NotNil(t, fe, "%+v", res.Errors)
	assert.ErrorIs(t, fe.Err, ErrBadName)
	assert.Contains(t, fe.Reason, "file name is not valid UTF-8")
	assert.Contains(t, fe.Reason, `"caf\xe9.md"`)
	assert.NotContains(t, fe.Reason, "invalid argument")
	require.NotNil(t, byPath["pipe.md"])
	assert.ErrorIs(t, byPath["pipe.md"].Err, ErrNotRegular, byPath["pipe.md"].Reason)
	require.NotNil(t, byPath["zero.md"])
	assert.ErrorIs(t, byPath["zero.md"].Err, ErrSymlinkEscape, byPath["zero.md"].Reason)
	assert.Equal(t, 1, res.Counts.Parsed)
	assert.NotContains(t, fe.Reason, "\xe9", "the reason itself is valid text")
}
