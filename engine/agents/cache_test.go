package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCacheReloadsOnlyChangedDirectories(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shipped := func(id string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", ".nova", "agents", id+".yaml"))
		require.NoError(t, err)
		return string(b)
	}
	mars := shipped("MARS")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "MARS.yaml"), []byte(mars), 0o644))
	var c Cache
	r1, errs := c.Load(dir)
	require.Empty(t, errs)
	require.True(t, r1.Has("MARS"))
	r2, _ := c.Load(dir)
	assert.Same(t, r1, r2, "an unchanged directory is not read again")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "VENUS.yaml"), []byte(shipped("VENUS")), 0o644))
	r3, _ := c.Load(dir)
	assert.NotSame(t, r1, r3)
	assert.True(t, r3.Has("VENUS"), "a new file is seen")

	later := time.Now().Add(time.Minute)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "MARS.yaml"), []byte(strings.Replace(mars, "You are MARS", "You are MARS, for storage work", 1)), 0o644))
	require.NoError(t, os.Chtimes(filepath.Join(dir, "MARS.yaml"), later, later))
	r4, _ := c.Load(dir)
	s, err := r4.Get("MARS")
	require.NoError(t, err)
	assert.Contains(t, s.Role, "for storage work", "an edited file is read again")

	require.NoError(t, os.Remove(filepath.Join(dir, "VENUS.yaml")))
	r5, _ := c.Load(dir)
	assert.False(t, r5.Has("VENUS"), "a removed file is gone")
}
