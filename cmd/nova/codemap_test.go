package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nova map lists the ranked files with their signatures; --task ranks for
// a task and --block prints the prompt block; --json is machine-readable;
// nova map show PATH outlines one file (relative to the current directory)
// and says why a broken file is left out.
func TestMapCommand(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	files := map[string]string{
		"go.mod":         "module shop\n\ngo 1.22\n",
		"store/store.go": "package store\n\n// SaveOrder stores an order.\nfunc SaveOrder(id int) error { return nil }\n",
		"api/api.go":     "package api\n\nimport \"shop/store\"\n\n// Create creates.\nfunc Create() error { return store.SaveOrder(1) }\n",
		"web/app.ts":     "export function checkout(n: number): string { return `${n}` }\n",
		"broken.py":      "def broken(:\n",
	}
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	r := runNova(t, dir, nil, "map")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "code map: 3 files (go 2, typescript 1)")
	assert.Contains(t, r.stdout, "left out: 1 does not parse")
	assert.Contains(t, r.stdout, "language servers:")
	assert.Contains(t, r.stdout, "  1. store/store.go")
	assert.Contains(t, r.stdout, "func SaveOrder(id int) error")

	r = runNova(t, dir, nil, "map", "--task", "fix checkout in the web app", "--block", "--tier", "small")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "<code_map>")
	assert.Contains(t, r.stdout, "web/app.ts")

	r = runNova(t, dir, nil, "map", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var res struct {
		Stats struct {
			Files int `json:"files"`
		} `json:"stats"`
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	assert.Equal(t, 3, res.Stats.Files)
	require.NotEmpty(t, res.Files)

	r = runNova(t, filepath.Join(dir, "api"), nil, "map", "show", "api.go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "api/api.go (go), 1 definitions")
	assert.Contains(t, r.stdout, "func Create() error")

	r = runNova(t, dir, nil, "map", "show", "broken.py")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "left out of the map: does not parse")

	r = runNova(t, dir, nil, "map", "show", "../outside.go")
	assert.NotEqual(t, 0, r.code)
}
