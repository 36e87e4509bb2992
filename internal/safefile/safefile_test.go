package safefile

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := hostile.Write(t, dir, "ok.txt", "hello")
	data, err := ReadFile(ok, 5)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(data))

	_, err = ReadFile(ok, 4)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), ok)

	_, err = ReadFile(filepath.Join(dir, "missing"), 10)
	assert.ErrorIs(t, err, os.ErrNotExist)

	_, err = ReadFile(dir, 10)
	assert.ErrorIs(t, err, ErrNotRegular)

	fifo := filepath.Join(dir, "fifo")
	hostile.FIFO(t, fifo)
	zero := filepath.Join(dir, "zero")
	hostile.DevZeroLink(t, zero)
	for _, p := range []string{fifo, zero} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(p, 1<<20); done <- err }()
		select {
		case err := <-done:
			assert.ErrorIs(t, err, ErrNotRegular, p)
			var se *Error
			require.ErrorAs(t, err, &se)
			assert.Contains(t, []string{"a named pipe", "a device"}, se.Detail)
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) blocked", p)
		}
	}
}

func TestReadFS(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"a.yaml": {Data: []byte("x: 1\n")}, "d": {Mode: os.ModeDir}}
	data, err := ReadFS(fsys, "a.yaml", 10)
	require.NoError(t, err)
	assert.Equal(t, "x: 1\n", string(data))
	_, err = ReadFS(fsys, "a.yaml", 2)
	assert.ErrorIs(t, err, ErrTooLarge)
	_, err = ReadFS(fsys, "d", 10)
	assert.ErrorIs(t, err, ErrNotRegular)
}
