package changes_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/storage"
)

// binaryOriginal is a file that is not UTF-8 text (kept whole by the apply
// record, restored byte for byte).
var binaryOriginal = []byte{0x89, 'P', 'N', 'G', 0xff, 0xfe, 0x00, 0x01, 0x80}

// applied stages and applies a changeset that modifies a.txt, replaces the
// binary logo.bin with text, creates new/b.txt and deletes run.sh (mode
// 0755), and returns its id. The originals are on disk before.
func applied(t *testing.T, f *fixture) uint64 {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "logo.bin"), binaryOriginal, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	d := f.store.NewDraft(changes.Meta{RunID: 2, Agent: "MARS", Task: "tidy the repo"})
	id, err := d.Put(ctx, "a.txt", []byte("A changed\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "logo.bin", []byte("now text\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "new/b.txt", []byte("B new\n"))
	require.NoError(t, err)
	_, err = d.Remove(ctx, "run.sh")
	require.NoError(t, err)
	_, err = f.store.Apply(ctx, id, changes.ApplyOptions{})
	require.NoError(t, err)
	return id
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Mode().Perm()
}

// Issue 17: a revert restores an applied change exactly: original bytes
// (binary too) and modes, created files removed, deleted ones back. The
// revert is a changeset of its own.
func TestRevertRestoresExactly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	id := applied(t, f)

	rep, err := f.store.Revert(ctx, id, changes.RevertOptions{})
	require.NoError(t, err)
	assert.Equal(t, "A original\n", f.read(t, "a.txt"))
	logo, err := os.ReadFile(filepath.Join(f.root, "logo.bin"))
	require.NoError(t, err)
	assert.Equal(t, binaryOriginal, logo, "binary content restored byte for byte")
	assert.Equal(t, os.FileMode(0o600), mode(t, filepath.Join(f.root, "logo.bin")))
	assert.NoFileExists(t, filepath.Join(f.root, "new/b.txt"), "a file the change created is removed")
	assert.Equal(t, "#!/bin/sh\necho hi\n", f.read(t, "run.sh"))
	assert.Equal(t, os.FileMode(0o755), mode(t, filepath.Join(f.root, "run.sh")), "a deleted file comes back with its mode")

	assert.ElementsMatch(t, []string{"a.txt", "logo.bin", "run.sh"}, rep.Restored)
	assert.Equal(t, []string{"new/b.txt"}, rep.Removed)
	rv := rep.Revert
	assert.Equal(t, changes.StatusApplied, rv.Status)
	assert.Equal(t, id, rv.RevertOf)
	assert.Equal(t, `Revert "tidy the repo"`, rv.Task)
	orig, err := f.store.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusReverted, orig.Status)
	assert.Equal(t, rv.ID, orig.RevertedBy)
	rec, err := f.store.Journal(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, changes.JournalReverted, rec.State)

	// The revert's diff shows what it undoes; the binary file is named.
	full, err := f.store.Get(ctx, rv.ID)
	require.NoError(t, err)
	assert.Contains(t, full.Diff(), "-A changed\n+A original")
	assert.Contains(t, full.Diff(), "Binary file logo.bin differs")

	_, err = f.store.Revert(ctx, id, changes.RevertOptions{})
	require.ErrorIs(t, err, changes.ErrReverted)
	assert.Contains(t, err.Error(), "revert")
}

// A file changed since the apply is never overwritten silently: the revert
// is refused, naming it, and nothing changes (no file, no changeset);
// --force restores it anyway.
func TestRevertRefusesAFileChangedSince(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	id := applied(t, f)
	f.write(t, "a.txt", "A edited by hand\n")
	before, err := f.store.List(ctx, changes.Filter{})
	require.NoError(t, err)

	_, err = f.store.Revert(ctx, id, changes.RevertOptions{})
	var ce *changes.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.True(t, ce.Revert)
	require.Len(t, ce.Conflicts, 1)
	assert.Equal(t, "a.txt", ce.Conflicts[0].Path)
	assert.Equal(t, "modified since the apply", ce.Conflicts[0].Reason)
	assert.Contains(t, err.Error(), "a.txt (modified since the apply)")
	assert.Equal(t, "A edited by hand\n", f.read(t, "a.txt"))
	assert.FileExists(t, filepath.Join(f.root, "new/b.txt"), "nothing reverted")
	after, err := f.store.List(ctx, changes.Filter{})
	require.NoError(t, err)
	assert.Len(t, after, len(before), "no revert changeset is left behind")

	rep, err := f.store.Revert(ctx, id, changes.RevertOptions{Force: true})
	require.NoError(t, err)
	assert.Equal(t, "A original\n", f.read(t, "a.txt"))
	require.Len(t, rep.Overwritten, 1)
	assert.Equal(t, "a.txt", rep.Overwritten[0].Path)
}

// Reverts are changesets: reverting the revert brings the change back, and
// the chain leads back to the change it started from.
func TestRevertTheRevert(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	id := applied(t, f)
	r1, err := f.store.Revert(ctx, id, changes.RevertOptions{})
	require.NoError(t, err)
	r2, err := f.store.Revert(ctx, r1.Revert.ID, changes.RevertOptions{})
	require.NoError(t, err)
	assert.Equal(t, "A changed\n", f.read(t, "a.txt"))
	assert.Equal(t, "B new\n", f.read(t, "new/b.txt"))
	assert.Equal(t, "now text\n", f.read(t, "logo.bin"))
	assert.NoFileExists(t, filepath.Join(f.root, "run.sh"))
	assert.Equal(t, r1.Revert.ID, r2.Revert.RevertOf)
	assert.True(t, strings.HasPrefix(r2.Revert.Task, `Revert "Revert`), r2.Revert.Task)

	origin, err := f.store.OriginOf(ctx, r2.Revert.ID)
	require.NoError(t, err)
	assert.Equal(t, id, origin.ID)

	// And once more: the change is undone again.
	_, err = f.store.Revert(ctx, r2.Revert.ID, changes.RevertOptions{})
	require.NoError(t, err)
	assert.Equal(t, "A original\n", f.read(t, "a.txt"))
	logo, err := os.ReadFile(filepath.Join(f.root, "logo.bin"))
	require.NoError(t, err)
	assert.Equal(t, binaryOriginal, logo)
}

func TestRevertRefusesWhatCannotBeReverted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	d := f.store.NewDraft(changes.Meta{Agent: "MARS"})
	id, err := d.Put(ctx, "a.txt", []byte("A changed\n"))
	require.NoError(t, err)
	_, err = f.store.Revert(ctx, id, changes.RevertOptions{})
	require.ErrorIs(t, err, changes.ErrNotApplied)
	_, err = f.store.Revert(ctx, 99, changes.RevertOptions{})
	require.ErrorIs(t, err, changes.ErrNotFound)

	// Applied by a nova that kept no record.
	_, err = f.store.Apply(ctx, id, changes.ApplyOptions{})
	require.NoError(t, err)
	require.NoError(t, f.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(storage.BucketApplyJournal).Delete(storage.Key(id))
	}))
	_, err = f.store.Revert(ctx, id, changes.RevertOptions{})
	require.ErrorIs(t, err, changes.ErrNoRecord)

	// Everything already back by hand: nothing to do.
	d = f.store.NewDraft(changes.Meta{Agent: "MARS"})
	id2, err := d.Put(ctx, "c.txt", []byte("C\n"))
	require.NoError(t, err)
	_, err = f.store.Apply(ctx, id2, changes.ApplyOptions{})
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(f.root, "c.txt")))
	_, err = f.store.Revert(ctx, id2, changes.RevertOptions{})
	require.ErrorIs(t, err, changes.ErrNothingToRevert)
}

func TestMarkRevertLearnedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	id := applied(t, f)
	first, err := f.store.MarkRevertLearned(ctx, id)
	require.NoError(t, err)
	assert.True(t, first)
	again, err := f.store.MarkRevertLearned(ctx, id)
	require.NoError(t, err)
	assert.False(t, again)
}

// The edited proposal is what gets applied, and the diff follows it.
func TestEditFileChangesWhatIsApplied(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	d := f.store.NewDraft(changes.Meta{Agent: "MARS"})
	id, err := d.Put(ctx, "a.txt", []byte("A from the model\n"))
	require.NoError(t, err)
	cs, err := f.store.EditFile(ctx, id, "a.txt", "A as I want it\n")
	require.NoError(t, err)
	fl, _ := cs.File("a.txt")
	assert.True(t, fl.Edited)
	assert.Contains(t, cs.Diff(), "+A as I want it")
	assert.NotContains(t, cs.Diff(), "from the model")

	_, err = f.store.EditFile(ctx, id, "nope.txt", "x")
	require.ErrorIs(t, err, changes.ErrNotEditable)
	_, err = f.store.EditFile(ctx, id, "a.txt", "\xff\xfe")
	require.ErrorIs(t, err, changes.ErrNotEditable)

	_, err = f.store.Apply(ctx, id, changes.ApplyOptions{})
	require.NoError(t, err)
	assert.Equal(t, "A as I want it\n", f.read(t, "a.txt"))
	_, err = f.store.EditFile(ctx, id, "a.txt", "too late\n")
	require.ErrorIs(t, err, changes.ErrNotPending)
}

// git runs git in dir and returns its output without the final newlines.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimRight(string(out), "\n")
}

// Issue 17: with git.commitOnApply, an apply makes one commit of exactly
// the files the changeset wrote: a file staged by the user beforehand stays
// staged and uncommitted, an unstaged edit stays unstaged.
func TestCommitOnApplyCommitsOnlyTheChangesetsFiles(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := newFixture(t, map[string]string{"a.txt": "A original\n", "mine.txt": "mine\n", "wip.txt": "wip\n", "gone.txt": "old\n"})
	git(t, f.root, "init", "-q", "-b", "main")
	git(t, f.root, "config", "user.name", "Test")
	git(t, f.root, "config", "user.email", "test@example.com")
	git(t, f.root, "config", "commit.gpgsign", "false")
	git(t, f.root, "add", "-A")
	git(t, f.root, "commit", "-q", "-m", "base")
	f.write(t, "mine.txt", "mine, staged by me\n")
	git(t, f.root, "add", "mine.txt")
	f.write(t, "wip.txt", "wip, not staged\n")

	ctx := context.Background()
	store := changes.New(f.db, f.root, changes.Options{CommitOnApply: func() bool { return true }})
	d := store.NewDraft(changes.Meta{Agent: "MARS", Task: "Add a health endpoint\nwith a test", BuildID: "4", TaskID: "t-003"})
	id, err := d.Put(ctx, "a.txt", []byte("A changed\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "internal/health.go", []byte("package internal\n"))
	require.NoError(t, err)
	_, err = d.Remove(ctx, "gone.txt")
	require.NoError(t, err)
	rep, err := store.Apply(ctx, id, changes.ApplyOptions{})
	require.NoError(t, err)
	require.Empty(t, rep.CommitError)
	require.NotEmpty(t, rep.Commit)
	assert.Equal(t, rep.Commit, git(t, f.root, "rev-parse", "HEAD"))
	assert.Equal(t, rep.Commit, rep.Changeset.Commit)

	files := strings.Fields(git(t, f.root, "show", "--name-only", "--format=", "HEAD"))
	assert.ElementsMatch(t, []string{"a.txt", "gone.txt", "internal/health.go"}, files, "only the changeset's files")
	msg := git(t, f.root, "log", "-1", "--format=%B")
	assert.True(t, strings.HasPrefix(msg, "Add a health endpoint\n\nApplied by nova: changeset"), msg)
	assert.Contains(t, msg, "written by MARS (build 4, task t-003)")
	assert.Equal(t, "M  mine.txt", git(t, f.root, "status", "--porcelain", "--", "mine.txt"), "the user's staged file stays staged")
	assert.Equal(t, " M wip.txt", git(t, f.root, "status", "--porcelain", "--", "wip.txt"), "the user's unstaged edit stays unstaged")
	assert.Equal(t, 2, strings.Count(git(t, f.root, "log", "--format=%H"), "\n")+1, "one commit")

	// A revert is a changeset: it is committed too, as a revert.
	rrep, err := store.Revert(ctx, id, changes.RevertOptions{})
	require.NoError(t, err)
	require.Empty(t, rrep.CommitError)
	assert.True(t, strings.HasPrefix(git(t, f.root, "log", "-1", "--format=%s"), `Revert "Add a health endpoint"`))
	assert.Equal(t, "A original\n", git(t, f.root, "show", "HEAD:a.txt")+"\n")
	assert.Equal(t, "M  mine.txt", git(t, f.root, "status", "--porcelain", "--", "mine.txt"))
}

// Outside a git repository the apply still happens; the report says why
// there is no commit.
func TestCommitOnApplyOutsideGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.txt": "A original\n"})
	ctx := context.Background()
	store := changes.New(f.db, f.root, changes.Options{CommitOnApply: func() bool { return true }})
	d := store.NewDraft(changes.Meta{Agent: "MARS"})
	id, err := d.Put(ctx, "a.txt", []byte("A changed\n"))
	require.NoError(t, err)
	rep, err := store.Apply(ctx, id, changes.ApplyOptions{})
	require.NoError(t, err)
	assert.Equal(t, "A changed\n", f.read(t, "a.txt"))
	assert.Empty(t, rep.Commit)
	assert.Contains(t, rep.CommitError, "not a git repository")
}
