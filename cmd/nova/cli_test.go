package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/storage"
)

var novaBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "nova-cli-test")
	if err != nil {
		panic(err)
	}
	novaBin = filepath.Join(dir, "nova")
	if runtime.GOOS == "windows" {
		novaBin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", novaBin, ".").CombinedOutput()
	if err != nil {
		panic("build nova: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

func runNova(t *testing.T, dir string, env map[string]string, args ...string) result {
	t.Helper()
	cmd := exec.Command(novaBin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "OLLAMA_HOST=127.0.0.1:1"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
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

func TestInitVersionDoctor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
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

func TestSecondProcessAnswersWithinTwoSeconds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	// This test process holds the database, as a running nova would.
	held, err := storage.Open(filepath.Join(dir, ".nova", "nova.db"), storage.Options{})
	require.NoError(t, err)
	defer func() { _ = held.Close() }()

	r := runNova(t, dir, nil, "doctor", "--json")
	assert.Less(t, r.took, 2*time.Second)
	var d doctorJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d))
	for _, c := range d.Checks {
		if c.Name == "database" {
			assert.Contains(t, c.Detail, "another nova process")
		}
	}

	r = runNova(t, dir, nil, "db", "check")
	assert.Equal(t, 1, r.code)
	assert.Less(t, r.took, 2*time.Second)
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
	assert.Equal(t, 0, r.code, r.stderr)
}

func TestBadInputExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
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
