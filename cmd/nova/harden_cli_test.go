package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDBBackupReplacesAFileOnlyWithForce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	out := filepath.Join(t.TempDir(), "b.db")
	r := runNova(t, dir, nil, "db", "backup", out)
	require.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, nil, "db", "backup", out)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "pass --force")
	r = runNova(t, dir, nil, "db", "backup", out, "--force", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"bytes"`)
}

// damageDB flips 200 bytes past the meta pages of the workspace database.
func damageDB(t *testing.T, dir string, seed uint64) string {
	t.Helper()
	path := filepath.Join(dir, ".nova", "nova.db")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(seed, seed))
	for range 200 {
		i := 2*4096 + rng.IntN(len(raw)-2*4096)
		raw[i] ^= byte(1 + rng.IntN(255))
	}
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	return path
}

// Issue 11 from the CLI: a damaged database is reported as damaged by
// `db check --json` (never "does not exist"), every other command points
// to `db recover`, and `db recover FILE` writes a copy that opens.
func TestDamagedDatabaseCheckAndRecover(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	for i := range 40 {
		r := runNova(t, dir, nil, "vault", "add", "--type", "pattern", "--content", "Retry with backoff, note "+strconv.Itoa(i))
		require.Equal(t, 0, r.code, r.stderr)
	}
	path := damageDB(t, dir, 1)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	r := runNova(t, dir, nil, "db", "check", "--json")
	assert.Equal(t, 1, r.code)
	var check struct {
		OK       bool     `json:"ok"`
		Damaged  bool     `json:"damaged"`
		Counter  bool     `json:"counter"`
		Problems []string `json:"problems"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &check), r.stdout)
	assert.False(t, check.OK)
	assert.True(t, check.Damaged)
	assert.False(t, check.Counter)
	require.NotEmpty(t, check.Problems)
	assert.Contains(t, check.Problems[0], "nova db recover")

	r = runNova(t, dir, nil, "vault", "stats")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nova db recover")

	r = runNova(t, dir, nil, "db", "recover")
	assert.Equal(t, 2, r.code, "no FILE is bad usage")

	out := filepath.Join(dir, "recovered.db")
	r = runNova(t, dir, nil, "db", "recover", "recovered.db")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "vault_nodes")
	assert.Contains(t, r.stdout, "to use it: mv .nova/nova.db .nova/nova.db.damaged && mv recovered.db .nova/nova.db")
	assert.Contains(t, r.stderr, "warning: not everything could be read")
	assert.FileExists(t, out)

	r = runNova(t, dir, nil, "db", "recover", "recovered.db")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "recovered.db exists; choose a new file name")

	r = runNova(t, dir, nil, "db", "recover", "again.db", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Copied   int  `json:"copied"`
		Lost     int  `json:"lost"`
		Complete bool `json:"complete"`
		Buckets  []struct {
			Name   string `json:"name"`
			Copied int    `json:"copied"`
		} `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.Positive(t, rep.Copied)
	assert.False(t, rep.Complete)
	assert.NotEmpty(t, rep.Buckets)

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing wrote into the damaged file")

	// The next step the command printed works.
	require.NoError(t, os.Rename(path, path+".damaged"))
	require.NoError(t, os.Rename(out, path))
	r = runNova(t, dir, nil, "db", "check", "--json")
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = runNova(t, dir, nil, "vault", "stats")
	assert.Equal(t, 0, r.code, r.stderr)
}
