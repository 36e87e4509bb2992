package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/storage"
)

// Meta describes who stages into a Draft.
type Meta struct {
	RunID uint64
	Agent string
	Task  string
	// BuildID and TaskID link the changeset to a build task, so that one
	// staged by an attempt that was killed can be found and discarded when
	// the task runs again.
	BuildID, TaskID string
}

// Draft is one run's handle on its pending changeset. The changeset is
// created by the first staged change (a run that changes nothing leaves no
// changeset). It implements tools.Stage. It is safe for concurrent use.
type Draft struct {
	s    *Store
	meta Meta

	mu    sync.Mutex
	id    uint64
	files map[string]File // the record's files, mirrored in memory
}

var _ tools.Stage = (*Draft)(nil)

// NewDraft starts a draft for a run.
func (s *Store) NewDraft(meta Meta) *Draft {
	return &Draft{s: s, meta: meta, files: map[string]File{}}
}

// ID is the changeset id, 0 while nothing has been staged.
func (d *Draft) ID() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.id
}

// Len is the number of staged files.
func (d *Draft) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.files)
}

// Lookup implements tools.Stage.
func (d *Draft) Lookup(_ context.Context, rel string) (tools.StagedFile, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f, ok := d.files[rel]
	if !ok {
		return tools.StagedFile{}, false, nil
	}
	return stagedFile(f), true, nil
}

// Staged implements tools.Stage.
func (d *Draft) Staged(_ context.Context) ([]tools.StagedFile, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]tools.StagedFile, 0, len(d.files))
	for _, f := range d.files {
		out = append(out, stagedFile(f))
	}
	slices.SortFunc(out, func(a, b tools.StagedFile) int { return compareStrings(a.Path, b.Path) })
	return out, nil
}

func stagedFile(f File) tools.StagedFile {
	return tools.StagedFile{Path: f.Path, Content: []byte(f.Proposed), Deleted: f.Op == OpDelete}
}

// Put implements tools.Stage: it stages content for rel.
func (d *Draft) Put(ctx context.Context, rel string, content []byte) (uint64, error) {
	if !utf8.Valid(content) {
		return 0, errors.New("content is not valid UTF-8 text")
	}
	return d.stage(ctx, rel, func(f *File) bool {
		f.Proposed = string(content)
		f.ProposedHash = tools.SHA256(content)
		if f.BaseHash == Absent {
			f.Op = OpCreate
		} else {
			f.Op = OpModify
		}
		// Writing back what is on disk is no change at all.
		return f.BaseHash == f.ProposedHash
	})
}

// Remove implements tools.Stage: it stages the deletion of rel.
func (d *Draft) Remove(ctx context.Context, rel string) (uint64, error) {
	return d.stage(ctx, rel, func(f *File) bool {
		f.Op = OpDelete
		f.Proposed = ""
		f.ProposedHash = Absent
		// Deleting a file this run created undoes the creation.
		return f.BaseHash == Absent
	})
}

// stage captures rel's base on first use, lets change fill the proposal
// (returning true when the result is no change, which drops the entry), and
// commits the changeset.
func (d *Draft) stage(ctx context.Context, rel string, change func(*File) bool) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	crel, _, err := tools.ConfineRel(d.s.root, rel)
	if err != nil {
		return 0, err
	}
	rel = crel
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.s.opts.Now().UTC()
	f, ok := d.files[rel]
	if !ok {
		base, err := d.s.readBase(rel)
		if err != nil {
			return 0, err
		}
		f = base
		f.Status = FilePending
	}
	f.StagedAt = now
	noop := change(&f)

	next := maps.Clone(d.files)
	if noop {
		delete(next, rel)
	} else {
		next[rel] = f
	}
	id, err := d.commit(next, now)
	if err != nil {
		return 0, err
	}
	d.files = next
	action := "staged"
	if len(next) == 0 {
		action = "emptied"
	}
	d.s.notify(Notice{ID: id, Action: action, Status: StatusPending, Files: len(next)})
	return id, nil
}

// commit writes the draft's files; the first commit allocates the id. An
// empty draft removes its record (the id stays reserved for the draft).
func (d *Draft) commit(files map[string]File, now time.Time) (uint64, error) {
	id := d.id
	err := d.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketChangesets)
		if b == nil {
			return fmt.Errorf("bucket %s missing", storage.BucketChangesets)
		}
		if id == 0 {
			if len(files) == 0 {
				return nil
			}
			n, err := storage.NextID(b)
			if err != nil {
				return err
			}
			id = n
		}
		key := storage.Key(id)
		if len(files) == 0 {
			return b.Delete(key)
		}
		cs, err := codec.Get(b, key)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			cs = Changeset{ID: id, RunID: d.meta.RunID, Agent: d.meta.Agent, Task: d.meta.Task,
				BuildID: d.meta.BuildID, TaskID: d.meta.TaskID, Status: StatusPending, CreatedAt: now}
		case err != nil:
			return err
		case cs.Status != StatusPending:
			return fmt.Errorf("stage into changeset %d: %w (it is %s)", id, ErrNotPending, cs.Status)
		}
		cs.Files = sortedFiles(files)
		cs.UpdatedAt = now
		return codec.Put(b, key, cs)
	})
	if err != nil {
		return 0, fmt.Errorf("save changeset: %w", err)
	}
	d.id = id
	return id, nil
}

func sortedFiles(m map[string]File) []File {
	out := make([]File, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b File) int { return compareStrings(a.Path, b.Path) })
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// readBase captures what is on disk at rel now: the base of a staged file.
func (s *Store) readBase(rel string) (File, error) {
	crel, abs, err := tools.ConfineRel(s.root, rel)
	if err != nil {
		return File{}, err
	}
	f := File{Path: crel}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.BaseHash = Absent
		return f, nil
	case err != nil:
		return File{}, fmt.Errorf("stat %s: %w", crel, err)
	case fi.IsDir():
		return File{}, fmt.Errorf("%s is a directory", crel)
	case fi.Size() > tools.MaxReadBytes:
		return File{}, fmt.Errorf("%s is %d bytes, larger than the %d-byte limit", crel, fi.Size(), tools.MaxReadBytes)
	}
	data, err := safefile.ReadFile(abs, tools.MaxReadBytes) // never blocks on a FIFO
	if err != nil {
		return File{}, fmt.Errorf("read %s: %w", crel, err)
	}
	f.BaseHash = tools.SHA256(data)
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		f.Original = string(data)
	} else {
		f.OriginalBinary = true
	}
	return f, nil
}
