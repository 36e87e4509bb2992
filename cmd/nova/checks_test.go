package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/workspace"
)

// git runs git in dir with a private HOME and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin:/usr/local/bin", "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// Issue 25: `nova init` writes the project's checks into config.yaml and
// says what it found; issue 32: the workspace's state never shows in git.
func TestInitDetectsChecksAndKeepsStateOutOfGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeFile(t, dir, "go.mod", "module example.com/app\n\ngo 1.26\n")
	writeFile(t, dir, "package.json", `{"scripts": {"test": "vitest run", "dev": "vite"}}`)
	writeFile(t, dir, "pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
	env := map[string]string{"HOME": t.TempDir()} // user-level files stay out of the repository

	r := runNova(t, dir, env, "init")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "checks detected from go.mod, package.json (pnpm-lock.yaml): go build ./..., go test ./..., pnpm test")
	cfg := readFile(t, dir, ".nova/config.yaml")
	assert.Contains(t, cfg, "# detected: go.mod -> go build, go test; package.json (pnpm-lock.yaml) -> pnpm test\nchecks:\n  - go build ./...\n  - go test ./...\n  - pnpm test\n")
	ws, err := workspace.Load(dir, func(string) string { return "" })
	require.NoError(t, err)
	assert.Equal(t, []string{"go build ./...", "go test ./...", "pnpm test"}, ws.Config.Checks)
	assert.Equal(t, []string{"go build", "go test", "go vet", "gofmt -l", "npm test", "npx tsc --noEmit"}, ws.Config.Commands.Allow,
		"the commands allowlist is not touched")

	// The database (and its lock and fingerprint) exist but git ignores them:
	// only the workspace's shareable files are offered.
	require.FileExists(t, filepath.Join(dir, ".nova", "nova.db"))
	status := git(t, dir, "status", "--porcelain", "--untracked-files=all")
	shareable := []string{".nova/.gitignore", ".nova/config.yaml", ".nova/agents/", ".nova/prds/", ".nova/workflows/",
		".nova/skills/", ".nova/blueprints/", ".nova/patterns/", ".nova/themes/", ".nova/templates/"}
	for line := range strings.Lines(status) {
		path := strings.TrimSpace(strings.TrimPrefix(line, "??"))
		if !strings.HasPrefix(path, ".nova/") {
			assert.Contains(t, []string{"go.mod", "package.json", "pnpm-lock.yaml"}, path)
			continue
		}
		ok := false
		for _, p := range shareable {
			ok = ok || path == p || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)
		}
		assert.True(t, ok, "git offers %s, which is nova state", path)
	}
	assert.Contains(t, status, ".nova/config.yaml")
	assert.NotContains(t, status, "nova.db")
	ignored := git(t, dir, "check-ignore", ".nova/nova.db", ".nova/nova.db.lock", ".nova/nova.sock", ".nova/output/3/t1.md")
	assert.Equal(t, 4, strings.Count(ignored, "\n"), "every one is ignored: %s", ignored)

	// A second init keeps the file (and the user's checks) as they are.
	writeFile(t, dir, ".nova/config.yaml", "checks: [make ci]\n")
	r = runNova(t, dir, env, "init", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Checks *workspace.Detected `json:"checks"`
		Kept   []string            `json:"kept"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.Nil(t, rep.Checks, "nothing is detected into a kept config.yaml")
	assert.Contains(t, rep.Kept, "config.yaml")
	assert.Contains(t, rep.Kept, ".gitignore")
	assert.Equal(t, "checks: [make ci]\n", readFile(t, dir, ".nova/config.yaml"))
}

// A project nova cannot read gets no checks, and init says so on stderr
// and in the file; doctor then warns.
func TestInitUnreadableProjectWritesNoChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/app\n")
	writeFile(t, dir, "package.json", `{"scripts": {"test": "jest",`)
	r := runNova(t, dir, nil, "init")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "warning: no checks detected: nova could not read package.json (not a valid package.json")
	assert.Contains(t, r.stdout, "checks: none written")
	cfg := readFile(t, dir, ".nova/config.yaml")
	assert.Contains(t, cfg, "# not detected: nova could not read package.json (")
	assert.Contains(t, cfg, "\nchecks: []\n")

	r = runNova(t, dir, nil, "init", "--json")
	require.Equal(t, 0, r.code)
	assert.Empty(t, r.stderr, "a kept config.yaml is not detected into again")
}

func TestDoctorWarnsWithoutChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b", "nomic-embed-text"))
	env := map[string]string{"OLLAMA_HOST": srv.URL()}

	r := runNova(t, dir, env, "doctor", "--json")
	assert.Equal(t, 0, r.code, "a warning does not fail doctor: %s", r.stdout)
	var d struct {
		Checks []struct {
			Name, Status, Detail, Hint string
		} `json:"checks"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d), r.stdout)
	found := false
	for _, c := range d.Checks {
		if c.Name == "checks" {
			found = true
			assert.Equal(t, "warn", c.Status)
			assert.Contains(t, c.Detail, "'done (unverified)'")
			assert.Contains(t, c.Hint, "add `checks: [go test ./...]` to .nova/config.yaml")
		}
	}
	assert.True(t, found, "doctor --json carries the checks line: %s", r.stdout)

	r = runNova(t, dir, env, "doctor")
	assert.Contains(t, r.stdout, "no checks: nothing runs the changed code")

	writeFile(t, dir, ".nova/config.yaml", "checks: [go test ./...]\n")
	r = runNova(t, dir, env, "doctor")
	assert.Contains(t, r.stdout, "1 configured: go test ./...")
}

// Issue 25: a run that staged a file while nothing executed it (no checks,
// no command) is shown as done (unverified), and --json says verified false.
func TestAgentRunWithoutChecksIsDoneUnverified(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	srv.Enqueue(
		call("writeFile", map[string]any{"path": "health.go", "content": healthGo}),
		ollamatest.Text("Added health.go with the health handler."),
	)
	r := runNova(t, dir, env, "agent", "run", "MARS", "add a health handler")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "✓ MARS finished run 1: done (unverified) (")
	assert.Contains(t, r.stdout, "status: done (unverified): nothing ran the changed code")
	assert.Contains(t, r.stdout, "checks: in .nova/config.yaml")

	srv.Enqueue(
		call("writeFile", map[string]any{"path": "health.go", "content": healthGo}),
		ollamatest.Text("Added health.go with the health handler."),
	)
	r = runNova(t, dir, env, "agent", "run", "MARS", "add a health handler", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var run struct {
		Status   string   `json:"status"`
		Files    []string `json:"files"`
		Verified *bool    `json:"verified"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &run), r.stdout)
	assert.Equal(t, "done", run.Status, "the stored status stays done; only its display says unverified")
	assert.Equal(t, []string{"health.go"}, run.Files)
	require.NotNil(t, run.Verified, "--json carries verified")
	assert.False(t, *run.Verified)

	// A run that changed nothing has nothing to verify.
	srv.Enqueue(ollamatest.Text("main.go serves on :8080."))
	r = runNova(t, dir, env, "agent", "run", "MARS", "where does it listen?")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "✓ MARS finished run 3: done (")
	assert.NotContains(t, r.stdout, "unverified")
}

// `nova build show` names a done task whose staged changes nothing executed
// "done (unverified)"; a verified one, and one that changed nothing, "done".
func TestBuildShowMarksUnverifiedTasks(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	io := &IOStreams{Out: &out, ErrOut: &out}
	tasks := []build.Task{
		{ID: "t1", Agent: "MARS", Phase: 1, Status: build.TaskDone, ChangesetID: 4, Title: "staged, nothing ran it"},
		{ID: "t2", Agent: "MARS", Phase: 1, Status: build.TaskDone, ChangesetID: 5, Verified: true, Title: "go test ran on it"},
		{ID: "t3", Agent: "EARTH", Phase: 1, Status: build.TaskDone, Title: "a spec, no files"},
		{ID: "t4", Agent: "MARS", Phase: 1, Status: build.TaskBlocked, ChangesetID: 6, Title: "blocked"},
	}
	printBuild(io, build.Build{ID: 2, Name: "b", Status: build.StatusDone, Total: 4}, tasks, nil)
	lines := map[string]string{}
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) > 0 {
			lines[f[0]] = line
		}
	}
	assert.Contains(t, lines["t1"], "done (unverified)")
	for _, id := range []string{"t2", "t3", "t4"} {
		assert.NotContains(t, lines[id], "unverified", id)
	}
	assert.Contains(t, lines["t2"], "MARS     done ")
	assert.Contains(t, lines["t4"], "blocked")
}

// A build whose task staged a file that nothing executed: `build show`
// names the task done (unverified), `build list` counts it, and --json
// carries verified false.
func TestBuildWithoutChecksListsUnverifiedTasks(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	writeFile(t, dir, "plan.json", `{"meta":{"name":"health"},"tasks":[
 {"id":"h-1","title":"health handler","description":"add health.go","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`)
	srv.Enqueue(
		call("writeFile", map[string]any{"path": "health.go", "content": healthGo}),
		ollamatest.Text("Added health.go with the health handler."),
	)
	r := runNova(t, dir, env, "build", "run", "plan.json", "--headless")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	r = runNova(t, dir, env, "build", "show", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "h-1        MARS     done (unverified)")

	r = runNova(t, dir, env, "build", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "health  (1 done (unverified))")

	r = runNova(t, dir, env, "build", "show", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"verified": false`)
}
