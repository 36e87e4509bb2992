package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/tools"
	hostilefiles "github.com/nova-dev/nova/internal/hostile"
	"github.com/nova-dev/nova/storage"
)

func TestDBBackupReplacesAFileOnlyWithForce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	out := filepath.Join(t.TempDir(), "b.db")
	r := runNova(t, dir, nil, "db", "backup", out)
	require.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, nil, "db", "backup", out)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "pass --force")
	r = runNova(t, dir, nil, "db", "backup", out, "--force", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"bytes"`)
}

// damageDB flips 200 bytes past the meta pages of the workspace database.
func damageDB(t *testing.T, dir string, seed uint64) string {
	t.Helper()
	stopTestOwner(t, dir) // the file is damaged while no nova has it open
	path := filepath.Join(dir, ".nova", "nova.db")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(seed, seed))
	for range 200 {
		i := 2*4096 + rng.IntN(len(raw)-2*4096)
		raw[i] ^= byte(1 + rng.IntN(255))
	}
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	return path
}

// Issue 11 from the CLI: a damaged database is reported as damaged by
// `db check --json` (never "does not exist"), every other command points
// to `db recover`, and `db recover FILE` writes a copy that opens.
func TestDamagedDatabaseCheckAndRecover(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	for i := range 40 {
		r := runNova(t, dir, nil, "vault", "add", "--type", "pattern", "--content", "Retry with backoff, note "+strconv.Itoa(i))
		require.Equal(t, 0, r.code, r.stderr)
	}
	path := damageDB(t, dir, 1)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	r := runNova(t, dir, nil, "db", "check", "--json")
	assert.Equal(t, 1, r.code)
	var check struct {
		OK       bool     `json:"ok"`
		Damaged  bool     `json:"damaged"`
		Counter  bool     `json:"counter"`
		Problems []string `json:"problems"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &check), r.stdout)
	assert.False(t, check.OK)
	assert.True(t, check.Damaged)
	assert.False(t, check.Counter)
	require.NotEmpty(t, check.Problems)
	assert.Contains(t, check.Problems[0], "nova db recover")

	r = runNova(t, dir, nil, "vault", "stats")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nova db recover")

	r = runNova(t, dir, nil, "db", "recover")
	assert.Equal(t, 2, r.code, "no FILE is bad usage")

	out := filepath.Join(dir, "recovered.db")
	r = runNova(t, dir, nil, "db", "recover", "recovered.db")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "vault_nodes")
	assert.Contains(t, r.stdout, "to use it: mv .nova/nova.db .nova/nova.db.damaged && mv recovered.db .nova/nova.db")
	assert.Contains(t, r.stderr, "warning: not everything could be read")
	assert.FileExists(t, out)

	r = runNova(t, dir, nil, "db", "recover", "recovered.db")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "recovered.db exists; choose a new file name")

	r = runNova(t, dir, nil, "db", "recover", "again.db", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Copied   int  `json:"copied"`
		Lost     int  `json:"lost"`
		Complete bool `json:"complete"`
		Buckets  []struct {
			Name   string `json:"name"`
			Copied int    `json:"copied"`
		} `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.Positive(t, rep.Copied)
	assert.False(t, rep.Complete)
	assert.NotEmpty(t, rep.Buckets)

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing wrote into the damaged file")

	// The next step the command printed works.
	require.NoError(t, os.Rename(path, path+".damaged"))
	require.NoError(t, os.Rename(out, path))
	r = runNova(t, dir, nil, "db", "check", "--json")
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = runNova(t, dir, nil, "vault", "stats")
	assert.Equal(t, 0, r.code, r.stderr)
	// The copy's full-text index is rebuilt from the nodes it holds, and new
	// nodes get new ids.
	r = runNova(t, dir, nil, "vault", "search", "retry backoff")
	assert.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, nil, "vault", "add", "--type", "pattern", "--content", "Written after the recovery")
	require.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, nil, "vault", "search", "written after the recovery")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Written after the recovery")
}

// The first signal cancels; a second exits at once with 128+signal.
func TestWatchSignalsSecondSignalExits(t *testing.T) {
	t.Parallel()
	sigs := make(chan os.Signal, 2)
	canceled, told := make(chan struct{}), make(chan struct{})
	exited := make(chan int, 1)
	go watchSignals(sigs, func() { close(canceled) }, func() { close(told) }, func(code int) { exited <- code })
	sigs <- syscall.SIGTERM
	<-canceled
	<-told
	select {
	case code := <-exited:
		t.Fatalf("exited (%d) after one signal", code)
	case <-time.After(50 * time.Millisecond):
	}
	sigs <- syscall.SIGINT
	select {
	case code := <-exited:
		assert.Equal(t, 130, code)
	case <-time.After(30 * time.Second):
		t.Fatal("a second signal did not exit")
	}
}

// Issue 11: ctrl+c / SIGTERM end any command within a second. A real
// process wired as main is (signalContext) runs a command that ignores its
// cancelled context; the first SIGINT cancels it (and says so), the second
// ends the process at once with 130.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	if os.Getenv("NOVA_SIGNAL_CHILD") == "1" {
		ctx, _ := signalContext(func() { _, _ = os.Stderr.WriteString("stopping\n") })
		_, _ = os.Stdout.WriteString("ready\n")
		<-ctx.Done()
		time.Sleep(time.Minute) // a command that does not stop
		os.Exit(3)
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSecondSignalExitsAtOnce$")
	cmd.Env = append(os.Environ(), "NOVA_SIGNAL_CHILD=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	waitLine := func(r *bufio.Scanner, want string) {
		t.Helper()
		for r.Scan() {
			if strings.Contains(r.Text(), want) {
				return
			}
		}
		t.Fatalf("the child never said %q", want)
	}
	waitLine(bufio.NewScanner(stdout), "ready")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	waitLine(bufio.NewScanner(stderr), "stopping")
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 130, ee.ExitCode())
	assert.Less(t, time.Since(start), 30*time.Second, "hang guard only")
}

// The real binary, mid-build on a slow model server: one SIGINT stops the
// build (resumable) and says a second one quits at once.
func TestFirstCtrlCSaysASecondQuits(t *testing.T) {
	t.Parallel()
	dir, _, env := buildWorkspace(t, 3*time.Second)
	writeFile(t, dir, "plan.json", smallPRD)
	cmd := binaryCmd(t, dir, env, "build", "run", "plan.json", "--headless", "--json")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	for sc.Scan() { // wait until a task runs (its model call takes 3 s)
		if strings.Contains(sc.Text(), `"running"`) {
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.ExitCode(), stderr.String())
	assert.Contains(t, stderr.String(), "press ctrl+c again to quit at once")
}

// interruptedApply leaves the state a kill -9 in the middle of `changes
// apply` leaves: the apply record in state applying, one of the two files
// written, the changeset pending. It returns the changeset id.
func interruptedApply(t *testing.T, dir string) uint64 {
	t.Helper()
	ctx := t.Context()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("A original\n"), 0o644))
	ws, err := engine.Open(ctx, engine.Options{Root: dir, Getenv: testGetenv(dir, nil), NoSync: true})
	require.NoError(t, err)
	d := ws.Changes().NewDraft(changes.Meta{Agent: "MARS"})
	id, err := d.Put(ctx, "a.txt", []byte("A proposed\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "b.txt", []byte("B proposed\n"))
	require.NoError(t, err)
	rec := changes.Applied{ChangesetID: id, State: changes.JournalApplying, StartedAt: time.Now(), Files: []changes.AppliedFile{
		{Path: "a.txt", Op: changes.OpModify, Before: []byte("A original\n"), BeforeHash: tools.SHA256([]byte("A original\n")),
			AfterHash: tools.SHA256([]byte("A proposed\n"))},
		{Path: "b.txt", Op: changes.OpCreate, BeforeHash: changes.Absent, AfterHash: tools.SHA256([]byte("B proposed\n"))},
	}}
	require.NoError(t, ws.DB().Update(func(tx *bolt.Tx) error {
		return storage.Codec[changes.Applied]{Version: 1}.Put(tx.Bucket(storage.BucketApplyJournal), storage.Key(id), rec)
	}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("A proposed\n"), 0o644))
	require.NoError(t, ws.Close())
	return id
}

// The command that opens a workspace after a crash mid-apply completes it
// and says so on stderr, once.
func TestStartupReportsARecoveredApply(t *testing.T) {
	t.Parallel()
	if testWorkspaceKind(t) != "direct" {
		t.Skip("builds the crashed state with the database in this process")
	}
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	id := interruptedApply(t, dir)

	// The first command that opens the database for writing (a listing
	// only reads; through an owner every command does).
	r := runNova(t, dir, nil, "vault", "add", "--type", "decision", "--content", "Keep the journal")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "nova: completed the interrupted apply of changeset "+strconv.FormatUint(id, 10)+" (2 files)")
	r = runNova(t, dir, nil, "changes", "show", strconv.FormatUint(id, 10), "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"status": "applied"`)
	b, err := os.ReadFile(filepath.Join(dir, "b.txt"))
	require.NoError(t, err)
	assert.Equal(t, "B proposed\n", string(b))

	r = runNova(t, dir, nil, "vault", "add", "--type", "decision", "--content", "Say it once")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "interrupted apply", "said once")
}

func TestRecoveryLinesNameConflictsAndProblems(t *testing.T) {
	t.Parallel()
	lines := engine.RecoveryLines(engine.Recovery{Applies: []changes.Recovered{{
		ID: 3, Completed: []string{"a.go"}, AlreadyWritten: []string{},
		Conflicts: []changes.Conflict{{Path: "b/new.txt", Reason: "changed on disk while an interrupted apply was pending"}},
	}}, Problem: "disk full"})
	assert.Equal(t, []string{
		"completed the interrupted apply of changeset 3 (1 file)",
		"changeset 3: b/new.txt changed on disk while an interrupted apply was pending; review it with `nova changes show 3`",
		"could not complete an interrupted apply (the changeset stays pending; the next start tries again): disk full",
	}, lines)
}

// Issue 11: `nova vault import` of a FIFO blocked in the open, of a link to
// /dev/zero streamed forever. Both are refused at once; `-` still reads a
// stream from stdin.
func TestVaultImportRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	fifo := filepath.Join(dir, "nodes.jsonl")
	hostilefiles.FIFO(t, fifo)
	zero := filepath.Join(dir, "zero.jsonl")
	hostilefiles.DevZeroLink(t, zero)
	for name, want := range map[string]string{"nodes.jsonl": "a named pipe", "zero.jsonl": "a device"} {
		done := make(chan result, 1)
		go func() { done <- runNova(t, dir, nil, "vault", "import", name) }()
		select {
		case r := <-done:
			assert.Equal(t, 1, r.code)
			assert.Contains(t, r.stderr, name+" is "+want+", not a regular file")
		case <-time.After(30 * time.Second):
			t.Fatalf("vault import %s hangs", name)
		}
	}
	r := runNovaStdin(t, dir, nil, `{"kind":"node","id":500,"type":"pattern","content":"From a pipe","confidence":0.5}`+"\n", "vault", "import", "-", "--json")
	assert.Equal(t, 0, r.code, r.stderr)
}

// A FIFO in .nova/agents made `agents validate` block forever; now it is a
// problem like any other, and a problem means exit 1 (a script can rely on
// `nova agents validate && …`).
func TestAgentsValidateReportsAFIFOAndFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	hostilefiles.FIFO(t, filepath.Join(dir, ".nova", "agents", "PIPE.yaml"))
	done := make(chan result, 1)
	go func() { done <- runNova(t, dir, nil, "agents", "validate") }()
	select {
	case r := <-done:
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, "PIPE.yaml")
		assert.Contains(t, r.stdout, "named pipe")
		assert.Contains(t, r.stdout, "1 problem")
	case <-time.After(30 * time.Second):
		t.Fatal("agents validate blocks on a FIFO")
	}
}
