package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/storage"
)

// The CLI tests run commands in this process: runNova builds the command
// tree around an Env of buffers (no terminal, so destructive commands need
// --yes) and returns what a user would see. Only the tests that need a real
// process (signals, a kill -9, cold-process benchmarks) build the binary,
// once, through novaBinary.
//
// The whole suite runs against one kind of workspace at a time, chosen by
// NOVA_CLI_WORKSPACE (DESIGN: "the whole CLI test suite runs both directly
// and through an owner"): "direct" (the default) opens the database in this
// process, as openWorkspace does today. A transport adds its kind to
// testWorkspaces (e.g. "owner": serve the workspace from another engine and
// hand out its remote client) and CI runs the package once per kind.

// testWorkspaces maps a kind to the Env.Workspace factory of the commands a
// test runs; nil keeps openWorkspace.
var testWorkspaces = map[string]func(t testing.TB, env *Env) func(ctx context.Context, readOnly bool) (engine.Workspace, error){
	"direct": nil,
}

// testWorkspaceKind is the kind this run uses.
func testWorkspaceKind(t testing.TB) string {
	kind := os.Getenv("NOVA_CLI_WORKSPACE")
	if kind == "" {
		kind = "direct"
	}
	if _, ok := testWorkspaces[kind]; !ok {
		t.Fatalf("NOVA_CLI_WORKSPACE=%s: no such kind of test workspace", kind)
	}
	return kind
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// novaBinary builds the nova binary once per test run. NOVA_TEST_BINARY names a binary
// to use instead (built by the caller, kept after the run: profiling a benchmark's child
// processes needs their symbols after the test binary has exited).
func novaBinary(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("NOVA_TEST_BINARY"); p != "" {
		return p
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "nova-cli-test")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "nova")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build nova: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return binPath
}

type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// testGetenv is the environment of a test command: HOME in the test's
// directory, Ollama on a dead port unless env says otherwise.
func testGetenv(dir string, env map[string]string) func(string) string {
	base := map[string]string{"HOME": dir, "NO_COLOR": "1", "OLLAMA_HOST": "127.0.0.1:1"}
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return base[k]
	}
}

// newTestEnv is an Env of buffers in dir: stdin from stdin, not a terminal.
func newTestEnv(t testing.TB, dir string, env map[string]string, stdin string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var so, se bytes.Buffer
	e := newEnv(&IOStreams{In: strings.NewReader(stdin), Out: &so, ErrOut: &se}, testGetenv(dir, env), dir)
	if f := testWorkspaces[testWorkspaceKind(t)]; f != nil {
		e.Workspace = f(t, e)
	}
	return e, &so, &se
}

// runNova runs one nova command line in dir, in this process.
func runNova(t *testing.T, dir string, env map[string]string, args ...string) result {
	t.Helper()
	return runNovaStdin(t, dir, env, "", args...)
}

// runNovaStdin is runNova with stdin.
func runNovaStdin(t *testing.T, dir string, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	e, so, se := newTestEnv(t, dir, env, stdin)
	start := time.Now()
	code := run(t.Context(), e, args)
	return result{stdout: so.String(), stderr: se.String(), code: code, took: time.Since(start)}
}

// binaryCmd is the real binary run in dir with the test environment.
func binaryCmd(t *testing.T, dir string, env map[string]string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(novaBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "OLLAMA_HOST=127.0.0.1:1"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// runBinary runs the real binary: the end-to-end tests.
func runBinary(t *testing.T, dir string, env map[string]string, args ...string) result {
	t.Helper()
	cmd := binaryCmd(t, dir, env, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: so.String(), stderr: se.String(), took: time.Since(start)}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

type doctorJSON struct {
	Workspace string `json:"workspace"`
	OK        bool   `json:"ok"`
	Checks    []struct {
		Name   string `json:"name"`
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	} `json:"checks"`
}

// TestInitVersionDoctor runs the real binary end to end.
func TestInitVersionDoctor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runNova := runBinaryAs // end to end
	r := runNova(t, dir, nil, "init")
	require.Equal(t, 0, r.code, r.stderr)
	assert.FileExists(t, filepath.Join(dir, ".nova", "config.yaml"))
	assert.FileExists(t, filepath.Join(dir, ".nova", "nova.db"))
	assert.DirExists(t, filepath.Join(dir, ".nova", "agents"))
	assert.DirExists(t, filepath.Join(dir, ".nova", "patterns"))

	// Idempotent, and a user edit survives.
	cfg := filepath.Join(dir, ".nova", "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("tier: premium\n"), 0o644))
	r = runNova(t, dir, nil, "init", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Created []string `json:"created"`
		Kept    []string `json:"kept"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.Empty(t, rep.Created)
	assert.Contains(t, rep.Kept, "config.yaml")
	data, _ := os.ReadFile(cfg)
	assert.Equal(t, "tier: premium\n", string(data))

	r = runNova(t, dir, nil, "version", "--json")
	require.Equal(t, 0, r.code)
	var v map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v))
	assert.NotEmpty(t, v["version"])

	// Doctor against a dead Ollama port: exit 1, one readable JSON document.
	r = runNova(t, dir, nil, "doctor", "--json")
	assert.Equal(t, 1, r.code)
	var d doctorJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d), r.stdout)
	assert.False(t, d.OK)
	byName := map[string]bool{}
	for _, c := range d.Checks {
		byName[c.Name] = c.OK
		assert.NotEmpty(t, c.Detail, c.Name)
	}
	assert.True(t, byName["workspace"])
	assert.True(t, byName["config"])
	assert.True(t, byName["database"])
	assert.False(t, byName["ollama"])
	assert.Empty(t, r.stderr, "--json keeps stderr quiet unless something is wrong with nova itself")

	r = runNova(t, dir, nil, "doctor")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "cannot reach Ollama at http://127.0.0.1:1")
	assert.Contains(t, r.stdout, "ollama serve")
}

func TestDoctorHealthyAgainstFakeOllama(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b", "nomic-embed-text"))
	r := runNova(t, dir, map[string]string{"OLLAMA_HOST": srv.URL()}, "doctor", "--json")
	assert.Equal(t, 0, r.code, r.stdout)
}

// TestSecondProcessDoesNotHang: a command on a workspace another process
// holds answers at once (the bounds only catch a hang; speed is measured in
// benchmarks).
func TestSecondProcessDoesNotHang(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	// This test process holds the database, as a running nova would.
	held, err := storage.Open(filepath.Join(dir, ".nova", "nova.db"), storage.Options{})
	require.NoError(t, err)
	defer func() { _ = held.Close() }()

	r := runNova(t, dir, nil, "doctor", "--json")
	assert.Less(t, r.took, 30*time.Second)
	var d doctorJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d))
	for _, c := range d.Checks {
		if c.Name == "database" {
			assert.Contains(t, c.Detail, "another nova process")
		}
	}

	r = runNova(t, dir, nil, "db", "check")
	assert.Equal(t, 1, r.code)
	assert.Less(t, r.took, 30*time.Second)
	assert.Contains(t, r.stderr, "workspace in use")
	assert.Contains(t, r.stderr, "nova.db")
}

func TestDBBackupCompactCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	backup := filepath.Join(t.TempDir(), "nova-backup.db")
	r := runNova(t, dir, nil, "db", "backup", backup)
	require.Equal(t, 0, r.code, r.stderr)
	copyDB, err := storage.Open(backup, storage.Options{ReadOnly: true})
	require.NoError(t, err)
	v, err := copyDB.SchemaVersion()
	require.NoError(t, err)
	assert.Equal(t, storage.SchemaVersion, v)
	require.NoError(t, copyDB.Close())

	r = runNova(t, dir, nil, "db", "check", "--json")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, `"ok": true`)
	r = runNova(t, dir, nil, "db", "compact")
	assert.Equal(t, 2, r.code, "compact rewrites the database: off a terminal it needs --yes")
	assert.Contains(t, r.stderr, "pass --yes")
	r = runNova(t, dir, nil, "db", "compact", "--yes")
	assert.Equal(t, 0, r.code, r.stderr)
}

// TestBadInputExitCodes runs the real binary: exit codes as a shell sees them.
func TestBadInputExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runNova := runBinaryAs // end to end
	r := runNova(t, dir, nil, "frobnicate")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "frobnicate")
	r = runNova(t, dir, nil, "version", "--nope")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, nil, "db", "backup")
	assert.Equal(t, 2, r.code)

	// No workspace: clear message, exit 1.
	r = runNova(t, dir, nil, "db", "check")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nova init")

	// Broken config names file, line and field.
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".nova", "config.yaml"), []byte("tier: free\nautonomy: 12\n"), 0o644))
	r = runNova(t, dir, nil, "db", "check")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "config.yaml:2")
	assert.Contains(t, r.stderr, "autonomy")

	// Corrupt database: clear error, no panic, file untouched.
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".nova", "config.yaml"), []byte("tier: free\n"), 0o644))
	dbPath := filepath.Join(dir, ".nova", "nova.db")
	require.NoError(t, os.WriteFile(dbPath, []byte("garbage garbage garbage"), 0o600))
	r = runNova(t, dir, nil, "db", "check")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "corrupt")
	assert.NotContains(t, r.stderr, "panic")
	data, _ := os.ReadFile(dbPath)
	assert.Equal(t, "garbage garbage garbage", string(data))

	// The TUI without a terminal or workspace fails cleanly too.
	r = runNova(t, t.TempDir(), nil)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no nova workspace found")
}

func TestInitUnwritableDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A file where .nova must go makes the directory unwritable for nova.
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".nova"), []byte("x"), 0o644))
	r := runNova(t, dir, nil, "init")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, ".nova")
}

// runBinaryAs has runNova's signature, for tests that run end to end.
func runBinaryAs(t *testing.T, dir string, env map[string]string, args ...string) result {
	t.Helper()
	return runBinary(t, dir, env, args...)
}
