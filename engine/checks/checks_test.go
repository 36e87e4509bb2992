package checks_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/checks"
)

func needShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the tests use POSIX shell commands")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
}

func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(c), 0o644))
	}
	return root
}

func TestShellSyntaxIsAllowed(t *testing.T) {
	t.Parallel()
	needShell(t)
	root := workspace(t, map[string]string{"a.txt": "alpha\n"})
	rs, err := checks.Runner{Root: root, Commands: []string{
		"true && true",
		"true && false",
		"grep -q alpha a.txt | cat; test -f a.txt",
		`echo "$((1+2))" > out && grep -q 3 out`,
	}}.Run(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, rs, 4)
	assert.True(t, rs[0].Passed, rs[0].Detail)
	assert.False(t, rs[1].Passed)
	assert.Equal(t, 1, rs[1].ExitCode)
	assert.True(t, rs[2].Passed, rs[2].Detail)
	assert.True(t, rs[3].Passed, rs[3].Output)
	assert.False(t, checks.Passed(rs))
	assert.NoFileExists(t, filepath.Join(root, "out"), "commands run in the copy, never in the workspace")
}

func TestCopyPolicyAndProposedFiles(t *testing.T) {
	t.Parallel()
	needShell(t)
	root := workspace(t, map[string]string{
		"main.go": "package main\n", "gone.txt": "x", ".nova/nova.db": "db", ".git/HEAD": "ref",
		"web/node_modules/pkg/index.js": "x", "sub/.cache/c": "x", "sub/keep.go": "package sub\n",
	})
	require.NoError(t, os.Symlink(filepath.Join(root, "main.go"), filepath.Join(root, "link.go")))
	rs, err := checks.Runner{Root: root, Commands: []string{
		"test ! -e .nova && test ! -e .git && test ! -e web/node_modules && test ! -e sub/.cache",
		"test -f sub/keep.go && test ! -e link.go",
		"test -f new/file.go && test ! -e gone.txt",
	}}.Run(context.Background(), []checks.File{{Path: "new/file.go", Content: "package x\n"}, {Path: "gone.txt", Delete: true}})
	require.NoError(t, err)
	for _, r := range rs {
		assert.True(t, r.Passed, "%s: %s %s", r.Command, r.Detail, r.Output)
	}
	assert.FileExists(t, filepath.Join(root, "gone.txt"), "the workspace is untouched")

	_, err = checks.Runner{Root: root, Commands: []string{"true"}}.Run(context.Background(), []checks.File{{Path: "../escape.go", Content: "x"}})
	require.Error(t, err, "proposed paths stay inside the copy")
	_, err = checks.Runner{Root: root, Commands: []string{"true"}, Limit: checks.Limit{Files: 2}}.Run(context.Background(), nil)
	assert.ErrorIs(t, err, checks.ErrCopyTooLarge)
}

func TestTimeoutAndNoCommands(t *testing.T) {
	t.Parallel()
	needShell(t)
	root := workspace(t, map[string]string{"a": "x"})
	rs, err := checks.Runner{Root: root, Commands: []string{"sleep 5"}, Timeout: 100 * time.Millisecond}.Run(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.True(t, rs[0].TimedOut)
	assert.Contains(t, rs[0].Detail, "timed out")
	rs, err = checks.Runner{Root: root}.Run(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, rs)
	assert.False(t, checks.Passed(rs), "no check is not a pass")
}

func TestHashIdentifiesAChangeset(t *testing.T) {
	t.Parallel()
	a := []checks.File{{Path: "a.go", Content: "x"}, {Path: "b.go", Delete: true}}
	b := []checks.File{{Path: "b.go", Delete: true}, {Path: "a.go", Content: "x"}}
	assert.Equal(t, checks.Hash(a), checks.Hash(b), "order does not matter")
	assert.NotEqual(t, checks.Hash(a), checks.Hash([]checks.File{{Path: "a.go", Content: "y"}, {Path: "b.go", Delete: true}}))
	assert.NotEqual(t, checks.Hash([]checks.File{{Path: "a.go", Content: ""}}), checks.Hash([]checks.File{{Path: "a.go", Delete: true}}))
}

func TestLineProblem(t *testing.T) {
	t.Parallel()
	assert.Empty(t, checks.LineProblem("go test ./..."))
	assert.NotEmpty(t, checks.LineProblem(" \t"))
	assert.NotEmpty(t, checks.LineProblem("a\x00b"))
	assert.NotEmpty(t, checks.LineProblem(string(make([]byte, checks.MaxLine+1))))
}

func TestOnCommandReportsEachCommand(t *testing.T) {
	t.Parallel()
	needShell(t)
	var seen []string
	_, err := checks.Runner{Root: t.TempDir(), Commands: []string{"true", "false"}, OnCommand: func(c string) { seen = append(seen, c) }}.Run(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"true", "false"}, seen)
}

// A Go module with no packages yet: go build and go test find nothing to run.
// That is no failure (the change may add no Go file), and no evidence
// either.
func TestNothingToRunIsNoFailureAndNoEvidence(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n\ngo 1.22\n"), 0o644))
	rs, err := checks.Runner{Root: root, Commands: []string{"go build ./...", "go test ./..."}}.Run(t.Context(),
		[]checks.File{{Path: "notes.md", Content: "# notes\n"}})
	require.NoError(t, err)
	require.Len(t, rs, 2)
	for _, r := range rs {
		assert.True(t, r.Passed, "%s: %s", r.Command, r.Output)
		assert.True(t, r.NothingRan, r.Command)
		assert.Equal(t, "nothing to run: no packages matched", r.Detail)
	}
	rs, err = checks.Runner{Root: root, Commands: []string{"go test ./..."}}.Run(t.Context(),
		[]checks.File{{Path: "a.go", Content: "package x\n"}})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.True(t, rs[0].Passed, rs[0].Output)
	assert.False(t, rs[0].NothingRan, "a package was there to test")
}
