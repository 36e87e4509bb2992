package changes_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

type fixture struct {
	root    string
	db      *storage.DB
	store   *changes.Store
	mu      sync.Mutex
	notices []changes.Notice
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	f := &fixture{root: t.TempDir()}
	for p, c := range files {
		f.write(t, p, c)
	}
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	f.db = db
	f.store = changes.New(db, f.root, changes.Options{Notify: func(n changes.Notice) {
		// Events come after the commit: the state is already readable.
		if n.Files > 0 {
			cs, err := changes.New(db, f.root, changes.Options{}).Get(context.Background(), n.ID)
			if err != nil || cs.Status != n.Status {
				panic("notice before commit")
			}
		}
		f.mu.Lock()
		f.notices = append(f.notices, n)
		f.mu.Unlock()
	}})
	return f
}

func (f *fixture) write(t *testing.T, p, c string) {
	t.Helper()
	abs := filepath.Join(f.root, filepath.FromSlash(p))
	require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
	require.NoError(t, os.WriteFile(abs, []byte(c), 0o644))
}

func (f *fixture) read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(p)))
	require.NoError(t, err)
	return string(b)
}

func TestStageApply(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"main.go": "package main\n", "old.txt": "bye\n"})
	ctx := context.Background()
	d := f.store.NewDraft(changes.Meta{RunID: 4, Agent: "MARS", Task: "health"})
	assert.Zero(t, d.ID(), "no changeset before the first write")

	id, err := d.Put(ctx, "internal/health/health.go", []byte("package health\n"))
	require.NoError(t, err)
	require.NotZero(t, id)
	_, err = d.Put(ctx, "main.go", []byte("package main\n\nfunc main() {}\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "main.go", []byte("package main\n\nfunc main() { serve() }\n"))
	require.NoError(t, err)
	_, err = d.Remove(ctx, "old.txt")
	require.NoError(t, err)

	sf, ok, err := d.Lookup(ctx, "main.go")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "package main\n\nfunc main() { serve() }\n", string(sf.Content))

	cs, err := f.store.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusPending, cs.Status)
	assert.Equal(t, uint64(4), cs.RunID)
	assert.Equal(t, "MARS", cs.Agent)
	require.Len(t, cs.Files, 3)
	byPath := map[string]changes.File{}
	for _, fl := range cs.Files {
		byPath[fl.Path] = fl
	}
	h := byPath["internal/health/health.go"]
	assert.Equal(t, changes.OpCreate, h.Op)
	assert.Equal(t, changes.Absent, h.BaseHash)
	m := byPath["main.go"]
	assert.Equal(t, changes.OpModify, m.Op)
	assert.Equal(t, "package main\n", m.Original, "the base is what was on disk at the first write")
	assert.Equal(t, tools.SHA256([]byte("package main\n")), m.BaseHash)
	assert.Equal(t, changes.OpDelete, byPath["old.txt"].Op)
	assert.Equal(t, changes.Absent, byPath["old.txt"].ProposedHash)

	diff := cs.Diff()
	assert.Contains(t, diff, "--- /dev/null\n+++ b/internal/health/health.go")
	assert.Contains(t, diff, "+func main() { serve() }")
	assert.Contains(t, diff, "--- a/old.txt\n+++ /dev/null")
	assert.Empty(t, cs.Summary().Files[0].Proposed)

	assert.NoFileExists(t, filepath.Join(f.root, "internal/health/health.go"))
	n, err := f.store.CountPending(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	rep, err := f.store.Apply(ctx, id, changes.ApplyOptions{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"internal/health/health.go", "main.go", "old.txt"}, rep.Applied)
	assert.Equal(t, "package health\n", f.read(t, "internal/health/health.go"))
	assert.Equal(t, "package main\n\nfunc main() { serve() }\n", f.read(t, "main.go"))
	assert.NoFileExists(t, filepath.Join(f.root, "old.txt"))
	assert.Equal(t, changes.StatusApplied, rep.Changeset.Status)
	for _, fl := range rep.Changeset.Files {
		assert.Equal(t, changes.FileApplied, fl.Status)
	}
	leftovers, _ := filepath.Glob(filepath.Join(f.root, "*", ".nova-apply-*"))
	assert.Empty(t, leftovers)

	_, err = f.store.Apply(ctx, id, changes.ApplyOptions{})
	assert.ErrorIs(t, err, changes.ErrNotPending)
	_, err = f.store.Discard(ctx, id)
	assert.ErrorIs(t, err, changes.ErrNotPending)
	_, err = f.store.Get(ctx, 999)
	assert.ErrorIs(t, err, changes.ErrNotFound)

	f.mu.Lock()
	last := f.notices[len(f.notices)-1]
	f.mu.Unlock()
	assert.Equal(t, "applied", last.Action)
}

func TestApplyConflictAndForce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.go": "a1\n", "b.go": "b1\n"})
	ctx := context.Background()
	d := f.store.NewDraft(changes.Meta{RunID: 1})
	id, err := d.Put(ctx, "a.go", []byte("a2\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "b.go", []byte("b2\n"))
	require.NoError(t, err)
	_, err = d.Put(ctx, "c.go", []byte("c2\n"))
	require.NoError(t, err)

	f.write(t, "a.go", "edited by hand\n")
	f.write(t, "c.go", "created meanwhile\n")

	conflicts, err := f.store.Conflicts(ctx, id)
	require.NoError(t, err)
	assert.Len(t, conflicts, 2)

	_, err = f.store.Apply(ctx, id, changes.ApplyOptions{})
	var ce *changes.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.ErrorIs(t, err, changes.ErrConflict)
	assert.Contains(t, err.Error(), "a.go (modified on disk)")
	assert.Contains(t, err.Error(), "c.go (created on disk)")
	assert.Equal(t, "b1\n", f.read(t, "b.go"), "a conflict stops the whole apply")
	cs, err := f.store.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusPending, cs.Status)

	rep, err := f.store.Apply(ctx, id, changes.ApplyOptions{Force: true})
	require.NoError(t, err)
	assert.Len(t, rep.Overwritten, 2)
	assert.Equal(t, "a2\n", f.read(t, "a.go"))
	assert.Equal(t, "c2\n", f.read(t, "c.go"))
}

func TestApplyRechecksConfinement(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	f := newFixture(t, map[string]string{"pkg/x.go": "x\n"})
	ctx := context.Background()
	d := f.store.NewDraft(changes.Meta{})
	id, err := d.Put(ctx, "pkg/x.go", []byte("y\n"))
	require.NoError(t, err)
	// After staging, pkg/ is replaced by a link to a directory outside.
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "x.go"), []byte("x\n"), 0o644))
	require.NoError(t, os.RemoveAll(filepath.Join(f.root, "pkg")))
	require.NoError(t, os.Symlink(outside, filepath.Join(f.root, "pkg")))

	_, err = f.store.Apply(ctx, id, changes.ApplyOptions{Force: true})
	require.Error(t, err)
	assert.ErrorIs(t, err, tools.ErrPolicyDenied)
	data, _ := os.ReadFile(filepath.Join(outside, "x.go"))
	assert.Equal(t, "x\n", string(data), "nothing is written outside the workspace")

	// Staging through such a link is refused from the start.
	_, err = d.Put(ctx, "pkg/new.go", []byte("z"))
	assert.ErrorIs(t, err, tools.ErrPolicyDenied)
}

func TestDraftNoOpsAndDiscard(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"a.go": "same\n", "bin.dat": "\x00\x01\x02"})
	ctx := context.Background()
	d := f.store.NewDraft(changes.Meta{})
	_, err := d.Put(ctx, "a.go", []byte("same\n"))
	require.NoError(t, err)
	assert.Zero(t, d.Len(), "writing what is on disk is no change")

	id, err := d.Put(ctx, "new.go", []byte("n\n"))
	require.NoError(t, err)
	_, err = d.Remove(ctx, "new.go")
	require.NoError(t, err)
	_, err = f.store.Get(ctx, id)
	assert.ErrorIs(t, err, changes.ErrNotFound, "an emptied draft leaves no changeset")

	id2, err := d.Put(ctx, "bin.dat", []byte("text now\n"))
	require.NoError(t, err)
	assert.Equal(t, id, id2, "the draft keeps its id")
	cs, err := f.store.Get(ctx, id2)
	require.NoError(t, err)
	assert.True(t, cs.Files[0].OriginalBinary)
	assert.Contains(t, cs.Files[0].Diff(), "Binary file bin.dat differs")

	_, err = d.Put(ctx, "bad.bin", []byte{0xff, 0xfe})
	assert.Error(t, err)

	cs, err = f.store.Discard(ctx, id2)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusDiscarded, cs.Status)
	assert.Equal(t, changes.FileDiscarded, cs.Files[0].Status)
	assert.Equal(t, "\x00\x01\x02", f.read(t, "bin.dat"))
	_, err = d.Put(ctx, "late.go", []byte("x"))
	assert.ErrorIs(t, err, changes.ErrNotPending, "a discarded changeset takes no more writes")
}

func TestListNewestFirst(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx := context.Background()
	var ids []uint64
	for i := range 3 {
		d := f.store.NewDraft(changes.Meta{RunID: uint64(i + 1)})
		id, err := d.Put(ctx, "f.go", []byte{byte('a' + i)})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	_, err := f.store.Discard(ctx, ids[0])
	require.NoError(t, err)
	all, err := f.store.List(ctx, changes.Filter{})
	require.NoError(t, err)
	require.Len(t, all, 3)
	assert.Equal(t, ids[2], all[0].ID)
	pending, err := f.store.List(ctx, changes.Filter{Status: changes.StatusPending})
	require.NoError(t, err)
	assert.Len(t, pending, 2)
	byRun, err := f.store.List(ctx, changes.Filter{RunID: 2})
	require.NoError(t, err)
	require.Len(t, byRun, 1)
	assert.Equal(t, ids[1], byRun[0].ID)
}

func TestReadOnlyStore(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(t.TempDir(), "nova.db")
	db, err := storage.Open(path, storage.Options{})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	ro, err := storage.Open(path, storage.Options{ReadOnly: true})
	require.NoError(t, err)
	defer func() { _ = ro.Close() }()
	s := changes.New(ro, root, changes.Options{})
	_, err = s.NewDraft(changes.Meta{}).Put(context.Background(), "x.go", []byte("x"))
	assert.ErrorIs(t, err, storage.ErrReadOnly)
	list, err := s.List(context.Background(), changes.Filter{})
	require.NoError(t, err)
	assert.Empty(t, list)
}
