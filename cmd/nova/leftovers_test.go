package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 26: a killed `db compact` left a large .nova/nova.db.compact and a
// killed `db recover` a hidden .nova-recover-* file; `doctor` named neither.
// Now doctor names both and `db compact` removes them.
func TestDoctorNamesLeftoversAndCompactRemovesThem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	compactLeft := filepath.Join(dir, ".nova", "nova.db.compact")
	recoverLeft := filepath.Join(dir, ".nova-recover-1234")
	require.NoError(t, os.WriteFile(compactLeft, make([]byte, 3<<20), 0o600))
	require.NoError(t, os.WriteFile(recoverLeft, make([]byte, 2048), 0o600))

	r := runNova(t, dir, nil, "doctor", "--json")
	var d struct {
		Checks []struct{ Name, Status, Detail, Hint string } `json:"checks"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d), r.stdout+r.stderr)
	found := false
	for _, c := range d.Checks {
		if c.Name == "leftovers" {
			found = true
			assert.Equal(t, "warn", c.Status)
			assert.Contains(t, c.Detail, "nova.db.compact (a killed compaction, 3.0 MiB)")
			assert.Contains(t, c.Detail, ".nova-recover-1234 (a killed recovery, 2.0 KiB)")
			assert.Contains(t, c.Hint, "nova db compact")
		}
	}
	require.True(t, found, "doctor has a leftovers line: %s", r.stdout)

	if testWorkspaceKind(t) == "owner" {
		stopTestOwner(t, dir)
	}
	r = runNova(t, dir, nil, "db", "compact", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "removed the leftover of a killed db compact")
	assert.Contains(t, r.stdout, "removed the leftover of a killed db recover")
	assert.NoFileExists(t, compactLeft)
	assert.NoFileExists(t, recoverLeft)

	r = runNova(t, dir, nil, "doctor", "--json")
	assert.NotContains(t, r.stdout, `"leftovers"`)
}
