//go:build unix

package patterns

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A named pipe called *.md must not block the scan (opening a FIFO waits for a writer).
func TestScanNamedPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a/good.md": goodPattern})
	if err := syscall.Mkfifo(filepath.Join(dir, "a", "pipe.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	res, err := Scan(context.Background(), dir, ScanOptions{})
	require.NoError(t, err)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "a/pipe.md", res.Errors[0].Path)
	assert.ErrorIs(t, res.Errors[0].Err, ErrNotRegular)
	assert.Equal(t, 1, res.Counts.Parsed)
}
