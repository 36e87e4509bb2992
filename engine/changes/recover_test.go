package changes_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
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

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

var errKilled = errors.New("killed between write and record")

// stageTwo stages a modification of a.txt and the creation of b/new.txt.
func stageTwo(t *testing.T, s *changes.Store) uint64 {
	t.Helper()
	ctx := context.Background()
	d := s.NewDraft(changes.Meta{Agent: "MARS", Task: "two files"})
	id, err := d.Put(ctx, "a.txt", []byte("A proposed\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "b/new.txt", []byte("B proposed\n"))
	require.NoError(t, err)
	return id
}

// killAfterFirstWrite makes Apply stop right after writing its first file,
// as a kill -9 between the write and the record would.
func killAfterFirstWrite(s *changes.Store) {
	n := 0
	changes.SetAfterWrite(s, func(string) error {
		n++
		if n == 1 {
			return errKilled
		}
		return nil
	})
}

// Issue 11: a kill between writing a file and recording it left one of two
// files written and the changeset pending; a plain retry then failed with
// "changed on disk … (created)" on bytes nova itself wrote.
func TestRetryAfterAnInterruptedApply(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	id := stageTwo(t, f.store)
	killAfterFirstWrite(f.store)
	_, err := f.store.Apply(ctx, id, changes.ApplyOptions{})
	require.ErrorIs(t, err, errKilled)
	assert.Equal(t, "A proposed\n", f.read(t, "a.txt"), "the first file was written")
	assert.NoFileExists(t, filepath.Join(f.root, "b/new.txt"))
	cs, err := f.store.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusPending, cs.Status, "the kill came before the record")

	changes.SetAfterWrite(f.store, nil)
	rep, err := f.store.Apply(ctx, id, changes.ApplyOptions{})
	require.NoError(t, err, "a file already holding the proposal is no conflict")
	assert.Equal(t, changes.StatusApplied, rep.Changeset.Status)
	assert.Equal(t, "B proposed\n", f.read(t, "b/new.txt"))
	assertJournal(t, f.store, id, changes.JournalApplied)
}

// The same interruption is completed by Recover at the next open.
func TestRecoverCompletesAnInterruptedApply(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	id := stageTwo(t, f.store)
	killAfterFirstWrite(f.store)
	_, err := f.store.Apply(ctx, id, changes.ApplyOptions{})
	require.ErrorIs(t, err, errKilled)
	a, err := f.store.Journal(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, changes.JournalApplying, a.State, "the record was written before the first file")

	// "The next open": a new Store over the same database.
	s2 := changes.New(f.db, f.root, changes.Options{})
	got, err := s2.Recover(ctx)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, id, got[0].ID)
	assert.Equal(t, []string{"a.txt"}, got[0].AlreadyWritten)
	assert.Equal(t, []string{"b/new.txt"}, got[0].Completed)
	assert.Equal(t, changes.StatusApplied, got[0].Status)
	assert.Equal(t, "B proposed\n", f.read(t, "b/new.txt"))
	a = assertJournal(t, s2, id, changes.JournalApplied)
	assert.True(t, a.Recovered)

	again, err := s2.Recover(ctx)
	require.NoError(t, err)
	assert.Empty(t, again, "nothing left to recover")
}

// A file someone else changed meanwhile is not overwritten by Recover.
func TestRecoverLeavesThirdPartyChangesPending(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	id := stageTwo(t, f.store)
	killAfterFirstWrite(f.store)
	_, err := f.store.Apply(ctx, id, changes.ApplyOptions{})
	require.ErrorIs(t, err, errKilled)
	f.write(t, "b/new.txt", "the user's own file\n")

	got, err := changes.New(f.db, f.root, changes.Options{}).Recover(ctx)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Len(t, got[0].Conflicts, 1)
	assert.Equal(t, "b/new.txt", got[0].Conflicts[0].Path)
	assert.Equal(t, changes.StatusPending, got[0].Status)
	assert.Equal(t, "the user's own file\n", f.read(t, "b/new.txt"))
	cs, err := f.store.Get(ctx, id)
	require.NoError(t, err)
	st := map[string]changes.FileStatus{}
	for _, fl := range cs.Files {
		st[fl.Path] = fl.Status
	}
	assert.Equal(t, changes.FileApplied, st["a.txt"])
	assert.Equal(t, changes.FilePending, st["b/new.txt"])
	assertJournal(t, f.store, id, changes.JournalPartial)
}

// The record holds what was on disk right before the apply (the content a
// revert restores): the forced-over content, and binary files in full.
func TestJournalKeepsTheContentBeforeTheApply(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	bin := []byte{0, 1, 2, 0xff, 0xfe}
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "logo.bin"), bin, 0o600))
	d := f.store.NewDraft(changes.Meta{Agent: "MARS"})
	id, err := d.Put(ctx, "a.txt", []byte("A proposed\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "logo.bin", []byte("now text\n"))
	require.NoError(t, err)
	f.write(t, "a.txt", "edited by the user meanwhile\n")
	_, err = f.store.Apply(ctx, id, changes.ApplyOptions{Force: true})
	require.NoError(t, err)
	a := assertJournal(t, f.store, id, changes.JournalApplied)
	byPath := map[string]changes.AppliedFile{}
	for _, af := range a.Files {
		byPath[af.Path] = af
	}
	assert.Equal(t, "edited by the user meanwhile\n", string(byPath["a.txt"].Before))
	assert.Equal(t, tools.SHA256([]byte("A proposed\n")), byPath["a.txt"].AfterHash)
	assert.Equal(t, bin, byPath["logo.bin"].Before)
	assert.Equal(t, os.FileMode(0o600), byPath["logo.bin"].BeforeMode)
	assert.True(t, byPath["a.txt"].Done)
}

func assertJournal(t *testing.T, s *changes.Store, id uint64, want changes.JournalState) changes.Applied {
	t.Helper()
	a, err := s.Journal(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, want, a.State)
	return a
}

// TestApplyKilledBySIGKILL really kills a process in the middle of an
// apply (after its first file is on disk, before the apply is recorded)
// and checks that the next open completes it.
func TestApplyKilledBySIGKILL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a child process")
	}
	root, dbPath := t.TempDir(), filepath.Join(t.TempDir(), "nova.db")
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("A original\n"), 0o644))
	db, err := storage.Open(dbPath, storage.Options{})
	require.NoError(t, err)
	id := stageTwo(t, changes.New(db, root, changes.Options{}))
	require.NoError(t, db.Close())

	cmd := exec.Command(os.Args[0], "-test.run=^TestApplyChildProcess$")
	cmd.Env = append(os.Environ(), "NOVA_APPLY_CHILD="+root+"|"+dbPath+"|"+strconv.FormatUint(id, 10))
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(out)
	written := ""
	deadline := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "written "); ok {
			written = p
			break
		}
	}
	deadline.Stop()
	require.Equal(t, "a.txt", written, "the child wrote its first file")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	db, err = storage.Open(dbPath, storage.Options{})
	require.NoError(t, err, "the database survives the kill")
	defer func() { _ = db.Close() }()
	s := changes.New(db, root, changes.Options{})
	cs, err := s.Get(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, changes.StatusPending, cs.Status, "killed before the record")
	got, err := s.Recover(context.Background())
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, changes.StatusApplied, got[0].Status)
	for p, want := range map[string]string{"a.txt": "A proposed\n", "b/new.txt": "B proposed\n"} {
		b, err := os.ReadFile(filepath.Join(root, p))
		require.NoError(t, err)
		assert.Equal(t, want, string(b))
	}
	leftovers, _ := filepath.Glob(filepath.Join(root, "*", ".nova-apply-*"))
	assert.Empty(t, leftovers)
}

// TestApplyChildProcess is the child of TestApplyKilledBySIGKILL; it does
// nothing in a normal run.
func TestApplyChildProcess(t *testing.T) {
	spec := os.Getenv("NOVA_APPLY_CHILD")
	if spec == "" {
		t.Skip("only runs as the child of TestApplyKilledBySIGKILL")
	}
	parts := strings.Split(spec, "|")
	id, _ := strconv.ParseUint(parts[2], 10, 64)
	db, err := storage.Open(parts[1], storage.Options{})
	require.NoError(t, err)
	s := changes.New(db, parts[0], changes.Options{})
	changes.SetAfterWrite(s, func(p string) error {
		fmt.Println("written", p)
		time.Sleep(time.Minute) // the parent kills us here
		return nil
	})
	_, _ = s.Apply(context.Background(), id, changes.ApplyOptions{})
	t.Fatal("not killed")
}
