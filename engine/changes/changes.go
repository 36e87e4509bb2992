// Package changes stages file changes in changesets kept in bbolt (bucket
// changesets) and applies them to the working tree only when asked.
//
// A run writes through a [Draft] (it implements tools.Stage): the first time
// a path is staged its base is captured (the content on disk and its sha256,
// or "absent" for a new file); later writes only replace the proposed
// content. Reads of the same run see the staged content. Nothing touches the
// disk until [Store.Apply].
//
// Apply is atomic per file (a temporary file in the same directory, then a
// rename), re-checks workspace confinement at apply time (through
// tools.Confine and os.Root), and refuses files that changed on disk since
// they were staged with a [*ConflictError] naming them, unless forced.
// Every state change is committed before Options.Notify hears of it.
package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	udiff "github.com/aymanbagabas/go-udiff"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

// Status is a changeset's state.
type Status string

// Changeset states.
const (
	StatusPending   Status = "pending"
	StatusApplied   Status = "applied"
	StatusDiscarded Status = "discarded"
	// StatusReverted: applied, then undone by a revert (RevertedBy).
	StatusReverted Status = "reverted"
)

// FileStatus is one file's state inside a changeset.
type FileStatus string

// File states.
const (
	FilePending   FileStatus = "pending"
	FileApplied   FileStatus = "applied"
	FileDiscarded FileStatus = "discarded"
)

// Op is what a staged file change does.
type Op string

// File operations.
const (
	OpCreate Op = "create"
	OpModify Op = "modify"
	OpDelete Op = "delete"
)

// Absent is the hash of a file that does not exist.
const Absent = tools.Absent

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no changeset has this id.
	ErrNotFound = errors.New("changeset not found")
	// ErrConflict is wrapped by *ConflictError.
	ErrConflict = errors.New("changed on disk since it was staged")
	// ErrNotPending: the changeset was already applied or discarded.
	ErrNotPending = errors.New("changeset is not pending")
	// ErrNotApplied: only an applied changeset can be reverted.
	ErrNotApplied = errors.New("changeset is not applied")
	// ErrReverted: the changeset was already reverted.
	ErrReverted = errors.New("changeset was already reverted")
	// ErrNoRecord: the changeset was applied without an apply record (by a
	// nova older than the record), so what it replaced is unknown.
	ErrNoRecord = errors.New("changeset has no apply record")
	// ErrNothingToRevert: every file already holds its content from before
	// the changeset.
	ErrNothingToRevert = errors.New("nothing to revert")
	// ErrNotEditable: the file cannot be edited (not pending, binary, or not
	// in the changeset).
	ErrNotEditable = errors.New("file cannot be edited")
)

// File is one staged path.
type File struct {
	// Path is slash-separated and relative to the workspace root.
	Path   string     `json:"path"`
	Op     Op         `json:"op"`
	Status FileStatus `json:"status"`
	// Original is the content on disk when the path was first staged ("" for
	// a new file, or for a binary file: see OriginalBinary).
	Original       string `json:"original"`
	OriginalBinary bool   `json:"originalBinary,omitempty"`
	// BaseHash is the sha256 of that content, or "absent".
	BaseHash string `json:"baseHash"`
	// Proposed is the content to write ("" for a deletion).
	Proposed string `json:"proposed"`
	// ProposedHash is the sha256 of Proposed, or "absent" for a deletion.
	ProposedHash string `json:"proposedHash"`
	// ProposedData holds the proposal instead of Proposed when it is not
	// UTF-8 text (a revert restoring a binary file): JSON strings cannot
	// carry such bytes. See Content.
	ProposedData []byte `json:"proposedData,omitempty"`
	// Mode is the permission bits a file the apply creates gets (a revert
	// restoring a deleted file); 0 means 0644. Existing files keep theirs.
	Mode fs.FileMode `json:"mode,omitempty"`
	// Edited is set when the user edited the proposal (EditFile).
	Edited    bool      `json:"edited,omitempty"`
	StagedAt  time.Time `json:"stagedAt"`
	AppliedAt time.Time `json:"appliedAt,omitzero"`
}

// Content is the proposed content as bytes (empty for a deletion).
func (f File) Content() []byte {
	if f.ProposedData != nil {
		return f.ProposedData
	}
	return []byte(f.Proposed)
}

// ProposedBinary reports a proposal that is not text (kept in ProposedData).
func (f File) ProposedBinary() bool { return f.ProposedData != nil }

// Changeset is a set of staged file changes.
type Changeset struct {
	ID          uint64    `json:"id"`
	RunID       uint64    `json:"runId,omitempty"`
	Agent       string    `json:"agent,omitempty"`
	Task        string    `json:"task,omitempty"`
	BuildID     string    `json:"buildId,omitempty"`
	TaskID      string    `json:"taskId,omitempty"`
	Status      Status    `json:"status"`
	Files       []File    `json:"files"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	AppliedAt   time.Time `json:"appliedAt,omitzero"`
	DiscardedAt time.Time `json:"discardedAt,omitzero"`
	// RevertOf is the changeset this one undoes (a revert); RevertedBy the
	// revert that undid this one, at RevertedAt.
	RevertOf   uint64    `json:"revertOf,omitempty"`
	RevertedBy uint64    `json:"revertedBy,omitempty"`
	RevertedAt time.Time `json:"revertedAt,omitzero"`
	// Commit is the git commit the apply made (git.commitOnApply).
	Commit string `json:"commit,omitempty"`
}

// File returns the staged file at path.
func (c Changeset) File(path string) (File, bool) {
	for _, f := range c.Files {
		if f.Path == path {
			return f, true
		}
	}
	return File{}, false
}

// Paths lists the staged paths in order.
func (c Changeset) Paths() []string {
	out := make([]string, len(c.Files))
	for i, f := range c.Files {
		out[i] = f.Path
	}
	return out
}

// Summary is a copy without file contents, for listings.
func (c Changeset) Summary() Changeset {
	c.Files = slices.Clone(c.Files)
	for i := range c.Files {
		c.Files[i].Original, c.Files[i].Proposed, c.Files[i].ProposedData = "", "", nil
	}
	return c
}

// Diff renders the file's change as a unified diff (a/path → b/path, with
// /dev/null for a created or deleted side).
func (f File) Diff() string {
	from, to := "a/"+f.Path, "b/"+f.Path
	switch f.Op {
	case OpCreate:
		from = "/dev/null"
	case OpDelete:
		to = "/dev/null"
	}
	if f.OriginalBinary || f.ProposedBinary() {
		return fmt.Sprintf("--- %s\n+++ %s\nBinary file %s differs\n", from, to, f.Path)
	}
	d := udiff.Unified(from, to, f.Original, f.Proposed)
	if d == "" {
		return fmt.Sprintf("--- %s\n+++ %s\n(no textual change)\n", from, to)
	}
	return d
}

// Diff renders every file's unified diff, in path order.
func (c Changeset) Diff() string {
	var b strings.Builder
	for _, f := range c.Files {
		b.WriteString(f.Diff())
	}
	return b.String()
}

// Notice tells Options.Notify what happened, after the commit.
type Notice struct {
	ID     uint64 `json:"id"`
	Action string `json:"action"` // staged | emptied | applied | discarded | edited | reverted
	Status Status `json:"status"`
	Files  int    `json:"files"`
}

// Options configures a Store.
type Options struct {
	// Notify is called after each committed change (it must not block).
	Notify func(Notice)
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// CommitOnApply, when it returns true, makes every apply that completes
	// a changeset one git commit of the files it wrote (git.commitOnApply).
	CommitOnApply func() bool
}

// Store reads and writes changesets.
type Store struct {
	db   *storage.DB
	root string
	opts Options
	// applyMu serialises Apply and Discard so that two callers cannot apply
	// one changeset twice; revertMu serialises reverts (a revert applies a
	// new changeset, under applyMu).
	applyMu  sync.Mutex
	revertMu sync.Mutex
	// afterWrite, when set (tests only: fault injection), runs after each
	// file an apply writes and before the apply is recorded: the window a
	// kill -9 can hit. An error stops the apply right there, as a kill would.
	afterWrite func(path string) error
}

var codec = storage.Codec[Changeset]{Version: 1}

// New returns a Store over db for the workspace at root.
func New(db *storage.DB, root string, opts Options) *Store {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{db: db, root: root, opts: opts}
}

// Root is the workspace root the store applies to.
func (s *Store) Root() string { return s.root }

func (s *Store) notify(n Notice) {
	if s.opts.Notify != nil {
		s.opts.Notify(n)
	}
}

// Filter narrows List.
type Filter struct {
	// Status keeps only changesets in this state ("" keeps all).
	Status Status
	// RunID keeps only the changeset of this run (0 keeps all).
	RunID uint64
	// Limit caps the result (0: no cap).
	Limit int
}

// List returns changesets, newest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Changeset, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Changeset{}
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketChangesets)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			cs, err := codec.Unmarshal(v)
			if err != nil {
				return fmt.Errorf("changeset %d: %w", storage.ParseKey(k), err)
			}
			if (f.Status != "" && cs.Status != f.Status) || (f.RunID != 0 && cs.RunID != f.RunID) {
				continue
			}
			out = append(out, cs)
			if f.Limit > 0 && len(out) == f.Limit {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list changesets: %w", err)
	}
	return out, nil
}

// statusCodec decodes only a changeset's status (the same record format):
// counting does not copy file contents out of the database.
var statusCodec = storage.Codec[struct {
	Status Status `json:"status"`
}]{Version: 1}

// CountPending is the number of changesets waiting for a decision.
func (s *Store) CountPending(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketChangesets)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			st, err := statusCodec.Unmarshal(v)
			if err != nil {
				return fmt.Errorf("changeset %d: %w", storage.ParseKey(k), err)
			}
			if st.Status == StatusPending {
				n++
			}
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("count pending changesets: %w", err)
	}
	return n, nil
}

// Get returns one changeset, or an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, id uint64) (Changeset, error) {
	if err := ctx.Err(); err != nil {
		return Changeset{}, err
	}
	var cs Changeset
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		cs, err = codec.Get(tx.Bucket(storage.BucketChangesets), storage.Key(id))
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return Changeset{}, fmt.Errorf("changeset %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Changeset{}, fmt.Errorf("read changeset %d: %w", id, err)
	}
	return cs, nil
}

// update reads, modifies and writes one changeset in a transaction.
func (s *Store) update(id uint64, fn func(cs *Changeset) error) (Changeset, error) {
	return s.updateTx(id, func(_ *bolt.Tx, cs *Changeset) error { return fn(cs) })
}

// updateTx is update with the transaction, for writes that must commit
// together with the changeset (the apply record).
func (s *Store) updateTx(id uint64, fn func(tx *bolt.Tx, cs *Changeset) error) (Changeset, error) {
	var out Changeset
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketChangesets)
		cs, err := codec.Get(b, storage.Key(id))
		if errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("changeset %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if err := fn(tx, &cs); err != nil {
			return err
		}
		cs.UpdatedAt = s.opts.Now().UTC()
		out = cs
		return codec.Put(b, storage.Key(id), cs)
	})
	return out, err
}

// Discard marks a pending changeset (and its pending files) discarded.
// Nothing on disk changes.
func (s *Store) Discard(ctx context.Context, id uint64) (Changeset, error) {
	if err := ctx.Err(); err != nil {
		return Changeset{}, err
	}
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	cs, err := s.update(id, func(cs *Changeset) error {
		if cs.Status != StatusPending {
			return fmt.Errorf("discard changeset %d: %w (it is %s)", id, ErrNotPending, cs.Status)
		}
		cs.Status = StatusDiscarded
		cs.DiscardedAt = s.opts.Now().UTC()
		for i := range cs.Files {
			if cs.Files[i].Status == FilePending {
				cs.Files[i].Status = FileDiscarded
			}
		}
		return nil
	})
	if err != nil {
		return Changeset{}, err
	}
	s.notify(Notice{ID: id, Action: "discarded", Status: cs.Status, Files: len(cs.Files)})
	return cs, nil
}
