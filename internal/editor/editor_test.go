package editor

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestNamePrefersVisualThenEditor(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "nvim", Name(env(map[string]string{"VISUAL": "nvim", "EDITOR": "nano"})))
	assert.Equal(t, "nano", Name(env(map[string]string{"EDITOR": "nano"})))
	if runtime.GOOS != "windows" {
		assert.Equal(t, "vi", Name(env(nil)))
	}
}

// The variable may carry arguments, and the path may hold spaces and quotes.
func TestCommandRunsTheEditorOnThePath(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("a shell script editor")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "ed.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s|' \"$1\" >> \"$2\"\n"), 0o755))
	target := filepath.Join(dir, "it's a file.go")
	require.NoError(t, os.WriteFile(target, nil, 0o644))
	cmd := Command(env(map[string]string{"EDITOR": script + " --flag"}), target)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "--flag|", string(got))
}
