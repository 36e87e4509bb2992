package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
	"github.com/nova-dev/nova/internal/yamlguard"
)

func hostileWorkspace(t *testing.T) (root, cfg string) {
	t.Helper()
	root = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, DirName), 0o755))
	return root, filepath.Join(root, DirName, ConfigName)
}

// loadWithin fails the test when Load takes longer than a hang bound.
func loadWithin(t *testing.T, root string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := Load(root, func(string) string { return "" }); done <- err }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Load hung")
		return nil
	}
}

// Issue 11: config.yaml with "x: " and 100,000 '[' took 27 s and 15 GB for
// every command.
func TestDeepConfigIsRefused(t *testing.T) {
	t.Parallel()
	root, cfg := hostileWorkspace(t)
	require.NoError(t, os.WriteFile(cfg, []byte("tier: free\n"+hostile.DeepYAML("x", 100_000)), 0o644))
	err := loadWithin(t, root)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrConfig)
	assert.ErrorIs(t, err, yamlguard.ErrTooDeep)
	assert.Contains(t, err.Error(), cfg+":2")
	assert.Contains(t, err.Error(), "depth limit")
}

// Issue 11: a 50 MB userId ran out of memory.
func TestHugeConfigIsRefusedOnTheBytesRead(t *testing.T) {
	t.Parallel()
	root, cfg := hostileWorkspace(t)
	require.NoError(t, os.WriteFile(cfg, []byte("userId: "+strings.Repeat("u", 50<<20)+"\n"), 0o644))
	err := loadWithin(t, root)
	require.Error(t, err)
	assert.ErrorIs(t, err, yamlguard.ErrTooLarge)
	assert.Contains(t, err.Error(), "size limit")
	assert.Contains(t, err.Error(), cfg)
}

func TestAliasBombConfigIsRefused(t *testing.T) {
	t.Parallel()
	root, cfg := hostileWorkspace(t)
	bomb := strings.Split(hostile.AliasBombPRD(), "meta:")[0]
	require.NoError(t, os.WriteFile(cfg, []byte(strings.ReplaceAll(bomb, "i: &i", "userId: &i")), 0o644))
	err := loadWithin(t, root)
	require.Error(t, err)
	assert.ErrorIs(t, err, yamlguard.ErrAliases)
}

func TestSpecialConfigFilesAreRefused(t *testing.T) {
	t.Parallel()
	for name, mk := range map[string]func(testing.TB, string){"fifo": hostile.FIFO, "zero": hostile.DevZeroLink} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root, cfg := hostileWorkspace(t)
			mk(t, cfg)
			err := loadWithin(t, root)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "not a regular file")
			err = SetConfigValue(cfg, "theme", "nova-light")
			require.Error(t, err)
		})
	}
}
