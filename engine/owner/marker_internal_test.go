package owner

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hand-over marker names the process that should own the workspace
// next; only a live other process, named recently, holds the others back.
func TestHandoverMarker(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, ".nova"), 0o755))
	loc := location{root: root}
	write := func(pid int) {
		require.NoError(t, os.WriteFile(handoverMarker(loc), []byte(strconv.Itoa(pid)+"\n"), 0o600))
	}
	assert.False(t, handingOver(loc), "no marker")
	write(os.Getppid())
	assert.True(t, handingOver(loc), "a live process is taking over")
	write(os.Getpid())
	assert.False(t, handingOver(loc), "this process is the one taking over")
	write(1 << 22) // above Linux's pid_max: no such process
	assert.False(t, handingOver(loc), "the new owner died")
	write(os.Getppid())
	old := time.Now().Add(-2 * markerTTL)
	require.NoError(t, os.Chtimes(handoverMarker(loc), old, old))
	assert.False(t, handingOver(loc), "a marker left long ago is stale")
	require.NoError(t, os.WriteFile(handoverMarker(loc), []byte("garbage"), 0o600))
	assert.False(t, handingOver(loc))
}
