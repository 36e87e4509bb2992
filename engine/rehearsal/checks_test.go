package rehearsal

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One check runner (issue 10): rehearsal scoring runs checks through
// engine/checks, like the build's gates: `true && true` passes in both, a
// failing command fails in both, and the copy leaves out the same folders.
func TestChecksUseTheSharedRunner(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shell commands")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".nova"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644))
	files := []File{{Path: "pkg/new.go", ProposedContent: "package pkg\n"}}

	ok, out, err := CheckRunner{Root: root, Checks: []string{"true && true", "test -f pkg/new.go && ! test -e .nova"}}.Run(context.Background(), files)
	require.NoError(t, err)
	assert.True(t, ok, out)
	assert.Contains(t, out, "$ true && true")

	ok, out, err = CheckRunner{Root: root, Checks: []string{"true && false"}}.Run(context.Background(), files)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Contains(t, out, "exit status 1")
}
