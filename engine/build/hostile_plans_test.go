package build

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
	"github.com/nova-dev/nova/internal/yamlguard"
)

// Issue 11: the alias bomb in .nova/prds/ crashed the TUI's Build → n (it
// lists plans through ListPlans); a FIFO there blocked it.
func TestListPlansSurvivesHostileFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostile.Write(t, dir, "bomb.yaml", hostile.AliasBombPRD())
	hostile.FIFO(t, filepath.Join(dir, "pipe.json"))
	hostile.DevZeroLink(t, filepath.Join(dir, "zero.json"))
	hostile.Write(t, dir, "good.json", `{"meta":{"name":"ok"},"tasks":[{"id":"t1","title":"x","description":"d","agent":"MARS"}]}`)
	done := make(chan []PlanFile, 1)
	go func() {
		files, err := ListPlans(dir, func(string) bool { return true })
		assert.NoError(t, err)
		done <- files
	}()
	var files []PlanFile
	select {
	case files = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("ListPlans hung")
	}
	require.Len(t, files, 4)
	byName := map[string]PlanFile{}
	for _, f := range files {
		byName[f.Name] = f
	}
	assert.NoError(t, byName["good.json"].Err)
	assert.ErrorIs(t, byName["bomb.yaml"].Err, yamlguard.ErrAliases)
	assert.ErrorContains(t, byName["pipe.json"].Err, "named pipe")
	assert.ErrorContains(t, byName["zero.json"].Err, "device")
}
