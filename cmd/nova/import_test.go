package main

import (
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// importJSON is the CLI contract of `nova import --json`.
type importJSON struct {
	Batch        uint64 `json:"batch"`
	DryRun       bool   `json:"dryRun"`
	Files        int    `json:"files"`
	Loaded       int    `json:"loaded"`
	Skipped      int    `json:"skipped"`
	Errors       int    `json:"errors"`
	Unchanged    int    `json:"unchanged"`
	Meta         int    `json:"meta"`
	ErrorDetails []struct {
		Path   string `json:"path"`
		Reason string `json:"reason"`
	} `json:"errorDetails"`
	Nodes []map[string]any `json:"nodes"`
}

func corpusPath(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test")
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "corpus", "nova26", "bistrolens-knowledge")
	if _, err := os.Stat(c); err != nil {
		t.Skip("corpus not present")
	}
	return c
}

// countMarkdown counts *.md files and the meta files among them under root.
func countMarkdown(t *testing.T, root string) (all, meta int) {
	t.Helper()
	metaName := regexp.MustCompile(`(?i)^(readme\.md|index\.md|kiro-.*\.md|extraction-.*\.md)$`)
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".md") {
			all++
			if metaName.MatchString(d.Name()) {
				meta++
			}
		}
		return nil
	}))
	return all, meta
}

// dbCounts counts the workspace's vault nodes and edges (through the CLI, so it works
// whichever kind of workspace the suite runs on).
func dbCounts(t *testing.T, dir string) (nodes, edges int) {
	t.Helper()
	st := vaultStats(t, dir)
	return st.Nodes, st.Edges
}

func fileHash(t *testing.T, p string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	return sha256.Sum256(data)
}

func TestImportCorpusCLI(t *testing.T) {
	t.Parallel()
	corpus := corpusPath(t)
	all, meta := countMarkdown(t, corpus)
	dir := t.TempDir()

	r := runNova(t, dir, nil, "init", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var ini struct {
		StarterPatterns struct {
			Batch  uint64 `json:"batch"`
			Loaded int    `json:"loaded"`
		} `json:"starterPatterns"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ini))
	starterAll, starterMeta := countMarkdown(t, filepath.Join(dir, ".nova", "patterns"))
	assert.Equal(t, starterAll-starterMeta, ini.StarterPatterns.Loaded, "nova init imports the starter library")
	assert.NotZero(t, ini.StarterPatterns.Batch)
	n0, e0 := dbCounts(t, dir)
	assert.Equal(t, starterAll-starterMeta, n0)

	// Re-init: the starter import is idempotent.
	r = runNova(t, dir, nil, "init", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ini))
	assert.Zero(t, ini.StarterPatterns.Batch)
	n, e := dbCounts(t, dir)
	assert.Equal(t, [2]int{n0, e0}, [2]int{n, e})

	// Dry run: the report, and not a byte written.
	dbFile := filepath.Join(dir, ".nova", "nova.db")
	before := fileHash(t, dbFile)
	r = runNova(t, dir, nil, "import", corpus, "--dry-run", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var dry importJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &dry), r.stdout)
	assert.True(t, dry.DryRun)
	assert.Zero(t, dry.Batch)
	assert.Equal(t, all, dry.Files)
	assert.Equal(t, before, fileHash(t, dbFile), "--dry-run writes nothing")

	r = runNova(t, dir, nil, "import", corpus, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var res importJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.NotZero(t, res.Batch)
	assert.Equal(t, all, res.Files)
	assert.Equal(t, meta, res.Meta)
	assert.Zero(t, res.Errors)
	assert.Empty(t, res.ErrorDetails)
	assert.Equal(t, all-meta, res.Loaded, "no near-duplicates in the corpus at the default threshold")
	assert.Equal(t, meta, res.Skipped)
	assert.Equal(t, dry.Loaded, res.Loaded)
	require.Len(t, res.Nodes, all)
	for _, nd := range res.Nodes {
		for _, k := range []string{"title", "category", "type", "priority", "reusability", "codeExamples", "sourceFile", "action"} {
			assert.Contains(t, nd, k)
		}
	}
	n1, e1 := dbCounts(t, dir)
	assert.Equal(t, n0+res.Loaded, n1)
	assert.Greater(t, e1, e0)

	// Re-import: nothing to do.
	r = runNova(t, dir, nil, "import", corpus, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var again importJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &again))
	assert.Zero(t, again.Batch)
	assert.Zero(t, again.Loaded)
	assert.Equal(t, all-meta, again.Unchanged)

	// List: newest first, both batches.
	r = runNova(t, dir, nil, "import", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var list []struct {
		ID     uint64 `json:"id"`
		Source string `json:"source"`
		Added  int    `json:"added"`
		Undone bool   `json:"undone"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	require.Len(t, list, 2)
	assert.Equal(t, res.Batch, list[0].ID)
	assert.Equal(t, res.Loaded, list[0].Added)
	r = runNova(t, dir, nil, "import", "list")
	assert.Contains(t, r.stdout, "BATCH")

	// Undo restores the counts exactly.
	r = runNova(t, dir, nil, "import", "undo", "last")
	assert.Equal(t, 2, r.code, "undo asks first; without a terminal it needs --yes")
	r = runNova(t, dir, nil, "import", "undo", "last", "--json", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	var undo struct {
		Batch        uint64 `json:"batch"`
		NodesRemoved int    `json:"nodesRemoved"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &undo))
	assert.Equal(t, res.Batch, undo.Batch)
	assert.Equal(t, res.Loaded, undo.NodesRemoved)
	n, e = dbCounts(t, dir)
	assert.Equal(t, [2]int{n0, e0}, [2]int{n, e})

	r = runNova(t, dir, nil, "import", "undo", "2")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "already undone")
	r = runNova(t, dir, nil, "import", "undo", "99")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "not found")
	r = runNova(t, dir, nil, "import", "undo", "two")
	assert.Equal(t, 2, r.code)
}

func TestImportCLIBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	r := runNova(t, dir, nil, "import")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, nil, "import", ".", "--confidence", "2")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--confidence")
	r = runNova(t, dir, nil, "import", ".", "--dedup-threshold", "0")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, nil, "import", filepath.Join(dir, "nope"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nope")

	// A library with a broken file and a link out of the library: the good files import,
	// the bad ones are reported, and the exit code says something failed.
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# Secret\n\nNot for import.\n"), 0o644))
	lib := filepath.Join(t.TempDir(), "lib")
	require.NoError(t, os.MkdirAll(filepath.Join(lib, "01-a"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "01-a", "good.md"), []byte("# Good Pattern\n\nA pattern that imports fine.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "01-a", "empty.md"), []byte("\n\n"), 0o644))
	wantErrors := 1
	if runtime.GOOS != "windows" {
		require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(lib, "01-a", "escape.md")))
		wantErrors++
	}
	before := dbHash(t, dir)
	r = runNova(t, dir, nil, "import", lib, "--json", "--user", "team")
	assert.Equal(t, 1, r.code, r.stderr)
	var res importJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.Equal(t, 1, res.Loaded)
	assert.Equal(t, wantErrors, res.Errors)
	require.Len(t, res.ErrorDetails, wantErrors)
	for _, d := range res.ErrorDetails {
		assert.NotEmpty(t, d.Reason)
		if strings.HasSuffix(d.Path, "escape.md") {
			assert.Contains(t, d.Reason, "symlink")
		}
	}
	assert.NotEqual(t, before, dbHash(t, dir), "the good file was imported")

	r = runNova(t, dir, nil, "import", lib)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "empty.md")
	assert.Contains(t, r.stderr, "could not be imported")

	// Split and a user from the flags.
	r = runNova(t, dir, nil, "import", "undo", "last", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
}

func dbHash(t *testing.T, dir string) [32]byte {
	t.Helper()
	return fileHash(t, filepath.Join(dir, ".nova", "nova.db"))
}

func TestImportSplitCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	n0, e0 := dbCounts(t, dir)
	lib := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(lib, "05-retries"), 0o755))
	doc := "# Retry Kit\n\nTwo patterns.\n\n## Pattern 1: Backoff\n\nWait longer each time.\n\n## Pattern 2: Budget\n\nCap the share of retries.\n"
	require.NoError(t, os.WriteFile(filepath.Join(lib, "05-retries", "kit.md"), []byte(doc), 0o644))
	r := runNova(t, dir, nil, "import", lib, "--split", "--user", "me", "--confidence", "0.5", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var res importJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	assert.Equal(t, 1, res.Loaded)
	require.Len(t, res.Nodes, 3, "the file and its two sections")
	assert.Equal(t, "05-retries/kit.md", res.Nodes[1]["parentSource"])
	assert.InDelta(t, 0.55, res.Nodes[0]["confidence"], 1e-9, "base 0.5 + default reusability 5 × 0.01")
	n, e := dbCounts(t, dir)
	assert.Equal(t, n0+3, n)
	assert.Equal(t, e0+2, e, "two refines edges")
}
