package themes

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// Issue 11: a deeply nested theme killed the TUI at start. Hostile theme
// files are reported, good ones still load, nothing blocks.
func TestHostileThemesAreSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostile.Write(t, dir, "deep.yaml", "name: deep\n"+hostile.DeepYAML("colors", 10_000))
	hostile.Write(t, dir, "bomb.yaml", strings.Split(hostile.AliasBombPRD(), "meta:")[0])
	hostile.Write(t, dir, "big.yaml", "name: "+strings.Repeat("x", MaxThemeSize)+"\n")
	hostile.Write(t, dir, "good.yaml", "name: good\ndark: true\n")
	hostile.FIFO(t, filepath.Join(dir, "pipe.yaml"))
	hostile.DevZeroLink(t, filepath.Join(dir, "zero.yaml"))

	r := NewRegistry()
	done := make(chan []error, 1)
	go func() { done <- r.LoadDir(dir) }()
	var errs []error
	select {
	case errs = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("LoadDir hung")
	}
	_, err := r.Get("good")
	require.NoError(t, err)
	byFile := map[string]error{}
	for _, e := range errs {
		for _, n := range []string{"deep", "bomb", "big", "pipe", "zero"} {
			if strings.Contains(e.Error(), n+".yaml") {
				byFile[n] = e
			}
		}
	}
	require.Len(t, byFile, 5, "%v", errs)
	assert.ErrorIs(t, byFile["deep"], yamlguard.ErrTooDeep)
	assert.ErrorIs(t, byFile["bomb"], yamlguard.ErrAliases)
	assert.ErrorIs(t, byFile["big"], yamlguard.ErrTooLarge)
	assert.Contains(t, byFile["pipe"].Error(), "named pipe")
	assert.Contains(t, byFile["zero"].Error(), "device")
}
