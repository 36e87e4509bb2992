package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	"github.com/nova-dev/nova/engine/owner"
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
// and through an owner"); `make test` runs the package once per kind:
//   - "direct" (the default): no other nova runs, so each command becomes
//     the owner of its workspace (opens the database in this process);
//   - "owner": another nova already owns the workspace (a test owner with
//     its own engine, serving on the real .nova/nova.sock), so each command
//     joins it as a client and works through the socket: same results,
//     exit codes and --json output.

// testWorkspaces maps a kind to the Env.Workspace factory of the commands a
// test runs; nil keeps openWorkspace.
var testWorkspaces = map[string]func(t testing.TB, env *Env) func(ctx context.Context) (engine.Workspace, error){
	"direct": nil,
	"owner":  ownedWorkspace,
}

// ownedWorkspace is the "owner" kind: the first command on a workspace
// starts its test owner (serving it with the command's environment until
// the test ends); every command then works through the socket.
func ownedWorkspace(t testing.TB, env *Env) func(ctx context.Context) (engine.Workspace, error) {
	return func(ctx context.Context) (engine.Workspace, error) {
		root, err := env.root()
		if err != nil {
			return nil, err
		}
		if err := testOwners.ensure(t, env, root); err != nil && !errors.Is(err, engine.ErrDamaged) {
			return nil, err
		}
		// A damaged database has no owner (none can open it): the command
		// meets the damage itself, as it would for a user.
		s, err := joinWorkspace(ctx, env, nil)
		if err != nil {
			return nil, err
		}
		if s.sess.Owner != nil {
			_ = s.ws.Close()
			return nil, fmt.Errorf("test owner of %s is gone: this command owned the workspace", root)
		}
		return s.ws, nil
	}
}

// testOwners are the owners of the "owner" kind, by workspace root.
var testOwners = ownerSet{m: map[string]*owner.Owner[*engine.Local]{}}

type ownerSet struct {
	mu sync.Mutex
	m  map[string]*owner.Owner[*engine.Local]
}

// stopTestOwner stops the test owner of the workspace in dir, if any (a
// test that needs the database file to itself, as a user would quit nova
// first); the next command starts it again.
func stopTestOwner(t testing.TB, dir string) {
	t.Helper()
	root, err := filepath.Abs(dir)
	require.NoError(t, err)
	testOwners.mu.Lock()
	o := testOwners.m[root]
	delete(testOwners.m, root)
	testOwners.mu.Unlock()
	if o != nil {
		require.NoError(t, o.Close())
	}
}

// syncTestOwner makes the test owner of dir's workspace run with getenv
// (restarting it when its settings differ), for a real nova process about
// to work through it with that environment.
func syncTestOwner(t testing.TB, dir string, getenv func(string) string) {
	t.Helper()
	if testWorkspaceKind(t) != "owner" {
		return
	}
	env := newEnv(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, getenv, dir)
	root, err := env.root()
	if err != nil {
		return // no workspace yet
	}
	if err := testOwners.ensure(t, env, root); err != nil {
		t.Logf("no test owner: %v", err) // the command reports it itself
	}
}

func (s *ownerSet) ensure(t testing.TB, env *Env, root string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.m[root]; o != nil {
		select {
		case <-o.Done():
		default:
			// A user whose owner runs with other settings restarts it (the
			// command says so): so does the test.
			diff, err := settingsDiff(env, root, o.Value().Config())
			if err != nil || len(diff) == 0 {
				return nil
			}
			_ = o.Close()
		}
	}
	// The owner is another nova: its own environment (the command's, as a
	// user's shell would give both), no stderr of the command's.
	oenv := newEnv(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, env.Getenv, env.Cwd)
	oenv.Version = env.Version
	o, err := owner.Serve(context.Background(), ownerOptions(oenv, root))
	if errors.Is(err, owner.ErrAlreadyServed) {
		return nil // a real nova process serves it (the test's own)
	}
	if err != nil {
		return fmt.Errorf("start the test owner: %w", err)
	}
	s.m[root] = o
	t.Cleanup(func() {
		s.mu.Lock()
		delete(s.m, root)
		s.mu.Unlock()
		_ = o.Close()
	})
	return nil
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
	if os.Getenv(testMCPServerEnv) != "" { // this binary is an MCP server for mcp_test.go
		os.Exit(serveTestMCP())
	}
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
	syncTestOwner(t, dir, func(k string) string {
		v := ""
		for _, kv := range cmd.Env {
			if name, val, _ := strings.Cut(kv, "="); name == k {
				v = val
			}
		}
		return v
	})
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
	// This test process holds the database, as a nova that does not serve
	// it would (an older nova, or an exclusive operation).
	stopTestOwner(t, dir)
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

// TestCommandsWorkThroughARunningNova: another nova (a real `nova serve`
// process) owns the workspace; reads, writes and listings work through it,
// doctor names it, exclusive operations are refused naming it; after a
// kill -9 of the owner the next command works (it owns the workspace
// itself). The bounds only catch hangs.
func TestCommandsWorkThroughARunningNova(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	srv := binaryCmd(t, dir, nil, "serve", "--json")
	stopTestOwner(t, dir) // the owner is the real process
	out, err := srv.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	var rep serveReport
	decoded := make(chan error, 1)
	go func() { decoded <- json.NewDecoder(out).Decode(&rep) }()
	select {
	case err := <-decoded:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("nova serve printed nothing")
	}
	assert.Equal(t, srv.Process.Pid, rep.PID)

	id := addNode(t, dir, "--type", "pattern", "--content", "Owners serve every window")
	var hits []struct {
		ID uint64 `json:"id"`
	}
	novaJSON(t, dir, &hits, "vault", "search", "owners serve")
	require.NotEmpty(t, hits)
	assert.Equal(t, id, hits[0].ID)
	var st statsJSON
	novaJSON(t, dir, &st, "vault", "stats")
	assert.Greater(t, st.Nodes, 1, "the starter library and the new node")
	novaOK(t, dir, "changes", "list", "--json")
	novaOK(t, dir, "db", "check")

	r := runNova(t, dir, nil, "doctor", "--json")
	var d struct {
		Owner  *struct{ PID int } `json:"owner"`
		Checks []struct {
			Name, Status, Detail string
		} `json:"checks"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &d), r.stdout)
	require.NotNil(t, d.Owner)
	assert.Equal(t, rep.PID, d.Owner.PID)
	for _, c := range d.Checks {
		switch c.Name {
		case "owner":
			assert.Contains(t, c.Detail, fmt.Sprintf("pid %d", rep.PID))
		case "database":
			assert.Equal(t, "pass", c.Status, c.Detail)
			assert.Contains(t, c.Detail, "checked by its owner")
		}
	}

	r = runNova(t, dir, nil, "db", "compact", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, fmt.Sprintf("db compact needs the workspace to itself, but nova pid %d owns it", rep.PID))

	// kill -9 of the owner: the next command takes over.
	require.NoError(t, srv.Process.Kill())
	_ = srv.Wait()
	r = runNova(t, dir, nil, "vault", "show", idStr(id), "--json")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Less(t, r.took, 30*time.Second)
	novaOK(t, dir, "db", "check")
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
	if testWorkspaceKind(t) == "owner" {
		// An exclusive operation: refused while another nova owns the
		// workspace, naming it; fine once it quit.
		r = runNova(t, dir, nil, "db", "compact", "--yes")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "db compact needs the workspace to itself, but nova pid")
		stopTestOwner(t, dir)
	}
	r = runNova(t, dir, nil, "db", "compact", "--yes")
	assert.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, nil, "db", "check")
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

// TestCommandsStartedTogetherAllWork: with no nova running, commands
// started at the same moment race to own the workspace; one wins, the
// others are its clients, and when the owner's own command ends first its
// clients finish as owners themselves. Every command succeeds and says
// nothing on stderr; every write is kept.
func TestCommandsStartedTogetherAllWork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	stopTestOwner(t, dir) // the real processes race among themselves
	bin := novaBinary(t)
	const rounds = 4
	for r := range rounds {
		var wg sync.WaitGroup
		for i, args := range [][]string{
			{"vault", "add", "--type", "pattern", "--content", fmt.Sprintf("Started together, round %d", r)},
			{"vault", "stats", "--json"},
			{"changes", "list", "--json"},
			{"vault", "search", "together"},
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(bin, args...)
				cmd.Dir = dir
				cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "OLLAMA_HOST=127.0.0.1:1"}
				var se bytes.Buffer
				cmd.Stderr = &se
				assert.NoError(t, cmd.Run(), "round %d command %d: %s", r, i, se.String())
				assert.Empty(t, se.String(), "round %d command %d", r, i)
			}()
		}
		wg.Wait()
	}
	res := runNova(t, dir, nil, "vault", "search", "started together", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, rounds, strings.Count(res.stdout, `"Started together, round`), "every write is kept")
	res = runNova(t, dir, nil, "db", "check")
	assert.Equal(t, 0, res.code, res.stderr)
}
