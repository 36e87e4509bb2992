package build

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListPlans(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := `{"meta":{"name":"Tiny"},"tasks":[{"id":"a","title":"A","description":"x","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`
	unknownAgent := `{"meta":{"name":"Odd"},"tasks":[{"id":"a","title":"A","description":"x","agent":"NOBODY","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`
	for name, body := range map[string]string{"good.json": good, "odd.json": unknownAgent, "broken.yaml": "tasks: [\n", "notes.txt": "skip me"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub.json"), 0o755))

	known := func(id string) bool { return id == "MARS" }
	files, err := ListPlans(dir, known)
	require.NoError(t, err)
	require.Len(t, files, 3, "only plan files, no directories or other extensions")
	byName := map[string]PlanFile{}
	for _, f := range files {
		byName[f.Name] = f
	}
	assert.NoError(t, byName["good.json"].Err)
	assert.Equal(t, "Tiny", byName["good.json"].Title)
	assert.Equal(t, 1, byName["good.json"].Tasks)
	assert.ErrorContains(t, byName["odd.json"].Err, "NOBODY")
	assert.Error(t, byName["broken.yaml"].Err)

	files, err = ListPlans(dir, nil)
	require.NoError(t, err)
	for _, f := range files {
		if f.Name == "odd.json" {
			assert.NoError(t, f.Err, "without a roster any agent is accepted")
		}
	}

	_, err = ListPlans(filepath.Join(dir, "missing"), nil)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
