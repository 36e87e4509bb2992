package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// stagedByMARS runs MARS through the fake server so that it stages
// health.go (new) and an edit of main.go: changeset 1, pending.
func stagedByMARS(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir, srv, env := agentWorkspace(t)
	srv.Enqueue(
		call("writeFile", map[string]any{"path": "health.go", "content": healthGo}),
		call("editFile", map[string]any{"path": "main.go",
			"search":  "\thttp.ListenAndServe(",
			"replace": "\thttp.HandleFunc(\"/healthz\", health)\n\thttp.ListenAndServe("}),
		ollamatest.Text("Added health.go and registered it in main.go."),
	)
	r := runNova(t, dir, env, "agent", "run", "MARS", "add a health check endpoint")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	return dir, env
}

// Issue 17: `nova changes revert` restores an applied change exactly and
// refuses when a file changed since; the revert can be reverted.
func TestChangesRevert(t *testing.T) {
	t.Parallel()
	dir, _ := stagedByMARS(t)
	r := runNova(t, dir, nil, "changes", "revert", "1", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "changeset 1 is pending; only applied changesets can be reverted")

	r = runNova(t, dir, nil, "changes", "apply", "1", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	applied := readFile(t, dir, "main.go")

	// Off a terminal it needs --yes, and changes nothing without it.
	r = runNova(t, dir, nil, "changes", "revert", "1")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "pass --yes")
	assert.FileExists(t, filepath.Join(dir, "health.go"))

	// A file changed since the apply: refused, named, nothing touched.
	writeFile(t, dir, "main.go", applied+"// my own line\n")
	r = runNova(t, dir, nil, "changes", "revert", "1", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "main.go (modified since the apply)")
	assert.Contains(t, r.stderr, "--force")
	assert.FileExists(t, filepath.Join(dir, "health.go"))
	assert.Contains(t, readFile(t, dir, "main.go"), "// my own line")

	r = runNova(t, dir, nil, "changes", "revert", "1", "--yes", "--json")
	assert.Equal(t, 1, r.code)
	var refused struct {
		OK        bool `json:"ok"`
		Conflicts []struct {
			Path string `json:"path"`
		} `json:"conflicts"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &refused), r.stdout)
	assert.False(t, refused.OK)
	require.Len(t, refused.Conflicts, 1)
	assert.Equal(t, "main.go", refused.Conflicts[0].Path)

	// Put back what the apply wrote: the revert restores exactly.
	writeFile(t, dir, "main.go", applied)
	r = runNova(t, dir, nil, "changes", "revert", "1", "--yes", "--reason", "the endpoint is not wanted")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "reverted changeset 1 with changeset 2")
	assert.Contains(t, r.stdout, "restored main.go")
	assert.Contains(t, r.stdout, "removed health.go (created by the change)")
	assert.Contains(t, r.stdout, "learned as a rejection by MARS's playbook")
	assert.Contains(t, r.stdout, "to bring it back: nova changes revert 2")
	assert.Equal(t, mainGo, readFile(t, dir, "main.go"))
	assert.NoFileExists(t, filepath.Join(dir, "health.go"))

	r = runNova(t, dir, nil, "changes", "show", "1")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "changeset 1 (reverted)")
	assert.Contains(t, r.stdout, "reverted by changeset 2")
	r = runNova(t, dir, nil, "changes", "list", "--status", "reverted", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"revertedBy": 2`)

	r = runNova(t, dir, nil, "changes", "revert", "1", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "already reverted by changeset 2")

	// Revert the revert: the change is back, and nothing is learned.
	r = runNova(t, dir, nil, "changes", "revert", "2", "--yes", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		ID      uint64 `json:"id"`
		Learned bool   `json:"learned"`
		Revert  struct {
			ID       uint64 `json:"id"`
			RevertOf uint64 `json:"revertOf"`
			Status   string `json:"status"`
		} `json:"revert"`
		Restored []string `json:"restored"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.Equal(t, uint64(2), rep.ID)
	assert.Equal(t, uint64(3), rep.Revert.ID)
	assert.Equal(t, uint64(2), rep.Revert.RevertOf)
	assert.Equal(t, "applied", rep.Revert.Status)
	assert.False(t, rep.Learned)
	assert.ElementsMatch(t, []string{"health.go", "main.go"}, rep.Restored)
	assert.Equal(t, applied, readFile(t, dir, "main.go"))
	assert.Equal(t, healthGo, readFile(t, dir, "health.go"))
}

// A fake $EDITOR (a shell script) edits the staged file: the edit is what
// gets applied, and the diff shows it.
func TestChangesEditWithAFakeEditor(t *testing.T) {
	t.Parallel()
	dir, _ := stagedByMARS(t)
	script := filepath.Join(t.TempDir(), "fake-editor.sh")
	// Replaces the model's comment with the user's, in place (as an editor saves).
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nsed 's/health answers 200 while the process is up./health is edited by hand./' \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"\n"), 0o755))
	env := map[string]string{"EDITOR": script}

	r := runNova(t, dir, env, "changes", "edit", "1")
	assert.Equal(t, 2, r.code, "two files: --file is needed")
	assert.Contains(t, r.stderr, "choose one with --file: health.go, main.go")

	r = runNova(t, dir, env, "changes", "edit", "1", "--file", "health.go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "edited health.go in changeset 1")

	r = runNova(t, dir, nil, "changes", "show", "1")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "+ health.go (create, pending, edited)")
	assert.Contains(t, r.stdout, "+// health is edited by hand.")
	assert.NotContains(t, r.stdout, "while the process is up")

	// An editor that saves nothing new changes nothing.
	r = runNova(t, dir, map[string]string{"EDITOR": "true"}, "changes", "edit", "1", "--file", "health.go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "no change")

	// A failing editor changes nothing either.
	r = runNova(t, dir, map[string]string{"EDITOR": "false"}, "changes", "edit", "1", "--file", "main.go")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nothing changed")

	r = runNova(t, dir, nil, "changes", "apply", "1", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, readFile(t, dir, "health.go"), "// health is edited by hand.")

	r = runNova(t, dir, env, "changes", "edit", "1", "--file", "health.go")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "only pending changesets can be edited")
}

// git.commitOnApply from the CLI: one commit, only the changeset's files.
func TestChangesApplyCommitsWhenAsked(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, _ := stagedByMARS(t)
	gitIn := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimRight(string(out), "\n")
	}
	gitIn("init", "-q", "-b", "main")
	gitIn("config", "user.name", "Test")
	gitIn("config", "user.email", "test@example.com")
	gitIn("add", "main.go", "go.mod")
	gitIn("commit", "-q", "-m", "base")
	writeFile(t, dir, "notes.txt", "mine\n")
	gitIn("add", "notes.txt")
	cfg := readFile(t, dir, ".nova/config.yaml")
	writeFile(t, dir, ".nova/config.yaml", strings.Replace(cfg, "commitOnApply: false", "commitOnApply: true", 1))

	r := runNova(t, dir, map[string]string{"GIT_CONFIG_GLOBAL": "/dev/null"}, "changes", "apply", "1", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "committed ")
	assert.Equal(t, "add a health check endpoint", gitIn("log", "-1", "--format=%s"))
	assert.ElementsMatch(t, []string{"health.go", "main.go"}, strings.Fields(gitIn("show", "--name-only", "--format=", "HEAD")))
	assert.Equal(t, "A  notes.txt", gitIn("status", "--porcelain", "--", "notes.txt"), "what the user staged stays staged")
}
