package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/changes"
)

// stagedMany initialises a workspace with a build of its starter PRD and
// stages three changesets: 1 and 2 from that build's tasks, 3 from a lone
// agent run. It returns the directory and the build id.
func stagedMany(t *testing.T) (string, uint64) {
	t.Helper()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	stopTestOwner(t, dir)
	ctx := t.Context()
	ws, err := engine.Open(ctx, engine.Options{Root: dir, Getenv: testGetenv(dir, nil), NoSync: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, ws.Close()) }()
	b, err := ws.CreateBuild(ctx, filepath.Join(dir, ".nova", "prds", "prd-health-endpoint.json"), engine.BuildOptions{})
	require.NoError(t, err)
	bid := strconv.FormatUint(b.ID, 10)
	for i, m := range []changes.Meta{{Agent: "MARS", BuildID: bid, TaskID: "t1"}, {Agent: "SATURN", BuildID: bid, TaskID: "t2"}, {Agent: "MARS"}} {
		_, err := ws.Changes().NewDraft(m).Put(ctx, "f"+strconv.Itoa(i+1)+".txt", []byte("staged "+strconv.Itoa(i+1)+"\n"))
		require.NoError(t, err)
	}
	return dir, b.ID
}

// Issue 32: `nova changes apply 1 3` applies several changesets with one
// question; a usage error names the forms.
func TestChangesApplySeveralIDs(t *testing.T) {
	t.Parallel()
	dir, _ := stagedMany(t)
	r := runNova(t, dir, nil, "changes", "apply", "3", "1")
	assert.Equal(t, 2, r.code, "off a terminal it needs --yes")
	assert.NoFileExists(t, filepath.Join(dir, "f1.txt"))

	r = runNova(t, dir, nil, "changes", "apply", "3", "1", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "applied changeset 1: f1.txt\napplied changeset 3: f3.txt\napplied 2 changesets\n", "oldest first")
	assert.FileExists(t, filepath.Join(dir, "f1.txt"))
	assert.FileExists(t, filepath.Join(dir, "f3.txt"))
	assert.NoFileExists(t, filepath.Join(dir, "f2.txt"))

	r = runNova(t, dir, nil, "changes", "apply", "2", "1", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "changeset 1 is applied; only pending changesets can be applied")
	assert.NoFileExists(t, filepath.Join(dir, "f2.txt"), "nothing is applied when one id is not pending")

	r = runNova(t, dir, nil, "changes", "apply")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--build N")
	r = runNova(t, dir, nil, "changes", "apply", "2", "--build", "1")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "not both")
}

// Issue 32: `nova changes apply --build N` applies every pending changeset
// of the build, and only those.
func TestChangesApplyABuild(t *testing.T) {
	t.Parallel()
	dir, bid := stagedMany(t)
	b := strconv.FormatUint(bid, 10)
	r := runNova(t, dir, nil, "changes", "apply", "--build", b, "--yes", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var reps []changes.ApplyReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &reps), r.stdout)
	require.Len(t, reps, 2)
	assert.Equal(t, []string{"f1.txt"}, reps[0].Applied)
	assert.Equal(t, []string{"f2.txt"}, reps[1].Applied)
	got, err := os.ReadFile(filepath.Join(dir, "f2.txt"))
	require.NoError(t, err)
	assert.Equal(t, "staged 2\n", string(got))
	assert.NoFileExists(t, filepath.Join(dir, "f3.txt"), "the lone run's changeset is not the build's")

	r = runNova(t, dir, nil, "changes", "apply", "--build", b, "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "build "+b+" has no pending changesets")
	r = runNova(t, dir, nil, "changes", "apply", "--build", "99", "--yes")
	assert.Equal(t, 1, r.code)
	r = runNova(t, dir, nil, "changes", "apply", "--run", "99", "--yes")
	assert.Equal(t, 1, r.code)
}
