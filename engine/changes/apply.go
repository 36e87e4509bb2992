package changes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/plural"
)

// Conflict is a staged file whose disk content no longer matches its base.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ConflictError lists the files that changed on disk since they were
// staged. errors.Is(err, ErrConflict) holds.
type ConflictError struct {
	ID        uint64
	Conflicts []Conflict
	// Revert: the conflicts stopped a revert of changeset ID (the files
	// changed since it was applied), not an apply.
	Revert bool
}

func (e *ConflictError) Error() string {
	parts := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		parts[i] = c.Path + " (" + c.Reason + ")"
	}
	if e.Revert {
		return fmt.Sprintf("changeset %d cannot be reverted: %s changed since it was applied: %s; review them, then revert with force to overwrite those changes",
			e.ID, plural.Count(len(e.Conflicts), "file", "files"), strings.Join(parts, ", "))
	}
	return fmt.Sprintf("changeset %d: %s changed on disk since they were staged: %s; review them, then apply with force to overwrite",
		e.ID, plural.Count(len(e.Conflicts), "file", "files"), strings.Join(parts, ", "))
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// ApplyOptions configures Apply.
type ApplyOptions struct {
	// Force overwrites files that changed on disk since they were staged.
	Force bool
}

// ApplyReport says what Apply did.
type ApplyReport struct {
	ID uint64 `json:"id"`
	// Applied lists the paths written or deleted by this call.
	Applied []string `json:"applied"`
	// Overwritten lists conflicting paths that Force overwrote.
	Overwritten []Conflict `json:"overwritten,omitempty"`
	Changeset   Changeset  `json:"changeset"`
	// Commit is the git commit of the files the changeset wrote
	// (git.commitOnApply), CommitError why there is none when one was due.
	Commit      string `json:"commit,omitempty"`
	CommitError string `json:"commitError,omitempty"`
}

// Conflicts checks a changeset's pending files against the disk without
// changing anything.
func (s *Store) Conflicts(ctx context.Context, id uint64) ([]Conflict, error) {
	cs, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	root, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer func() { _ = root.Close() }()
	var out []Conflict
	for _, f := range cs.Files {
		if f.Status != FilePending {
			continue
		}
		if c, ok, err := s.conflict(root, f); err != nil {
			return nil, err
		} else if ok {
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *Store) openRoot() (*os.Root, error) {
	rootReal, err := tools.RealRoot(s.root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", s.root, err)
	}
	r, err := os.OpenRoot(rootReal)
	if err != nil {
		return nil, fmt.Errorf("open workspace root: %w", err)
	}
	return r, nil
}

// conflict re-confines f's path and compares the disk with its base.
func (s *Store) conflict(root *os.Root, f File) (Conflict, bool, error) {
	rel, _, err := tools.ConfineRel(s.root, f.Path)
	if err != nil {
		return Conflict{}, false, fmt.Errorf("apply %s: %w", f.Path, err)
	}
	if rel != f.Path {
		// A directory on the path became a symlink (inside the workspace)
		// since staging: the bytes would land somewhere else.
		return Conflict{}, false, fmt.Errorf("apply %s: %w: the path now resolves to %s", f.Path, tools.ErrPolicyDenied, rel)
	}
	cur, err := diskHash(root, f.Path)
	if err != nil {
		return Conflict{}, false, err
	}
	if cur == f.BaseHash || cur == f.ProposedHash {
		// The proposed content already on disk is no conflict: it is what
		// an interrupted apply (or the user) wrote, and counts as applied.
		return Conflict{}, false, nil
	}
	reason := "modified on disk"
	switch {
	case f.BaseHash == Absent:
		reason = "created on disk"
	case cur == Absent:
		reason = "deleted on disk"
	case cur == "dir":
		reason = "is now a directory"
	}
	return Conflict{Path: f.Path, Reason: reason}, true, nil
}

func diskHash(root *os.Root, rel string) (string, error) {
	fi, err := root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Absent, nil
	case err != nil:
		return "", fmt.Errorf("apply %s: %w", rel, err)
	case fi.IsDir():
		return "dir", nil
	}
	data, _, err := readRegular(root, rel, tools.MaxReadBytes)
	if err != nil {
		return "", fmt.Errorf("apply %s: %w", rel, err)
	}
	return tools.SHA256(data), nil
}

// Apply writes a pending changeset to the working tree. It first checks
// every pending file: confinement again (a *ConflictError is not returned
// for that: the error wraps tools.ErrPolicyDenied) and disk content against
// the staged base. Conflicts stop the whole apply, naming the files, unless
// opts.Force. Then each file is written atomically (temporary file in the
// same directory, then rename) or removed. If a write fails, the files
// already written are recorded as applied, the changeset stays pending, and
// a later Apply finishes the rest.
func (s *Store) Apply(ctx context.Context, id uint64, opts ApplyOptions) (ApplyReport, error) {
	if err := ctx.Err(); err != nil {
		return ApplyReport{}, err
	}
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	rep := ApplyReport{ID: id, Applied: []string{}}
	cs, err := s.Get(ctx, id)
	if err != nil {
		return rep, err
	}
	if cs.Status != StatusPending {
		return rep, fmt.Errorf("apply changeset %d: %w (it is %s)", id, ErrNotPending, cs.Status)
	}
	root, err := s.openRoot()
	if err != nil {
		return rep, err
	}
	defer func() { _ = root.Close() }()

	var conflicts []Conflict
	already := map[string]bool{} // pending files whose disk already holds the proposal
	var toWrite, held []File
	for _, f := range cs.Files {
		if f.Status != FilePending {
			continue
		}
		c, ok, err := s.conflict(root, f)
		if err != nil {
			return rep, err
		}
		if ok {
			conflicts = append(conflicts, c)
		}
		if cur, err := diskHash(root, f.Path); err == nil && cur == f.ProposedHash {
			already[f.Path] = true
			held = append(held, f)
			continue
		}
		toWrite = append(toWrite, f)
	}
	if len(conflicts) > 0 && !opts.Force {
		return rep, &ConflictError{ID: id, Conflicts: conflicts}
	}
	rep.Overwritten = conflicts

	// The apply record, with the original contents, is committed before the
	// first file is written: a kill at any later moment is completed by
	// Recover at the next open, and revert restores from the same record.
	// Files the disk already held in their proposed form are recorded too,
	// with the content they were staged over: without them an apply that
	// wrote nothing left no record, and its revert blamed an older nova.
	if len(toWrite) > 0 || len(held) > 0 {
		if err := s.beginJournal(root, id, toWrite, held...); err != nil {
			return rep, err
		}
	}
	applied := maps.Clone(already)
	var writeErr error
	for _, f := range toWrite {
		if err := ctx.Err(); err != nil {
			writeErr = err
			break
		}
		if err := writeOne(root, f); err != nil {
			writeErr = fmt.Errorf("apply %s: %w", f.Path, err)
			break
		}
		applied[f.Path] = true
		rep.Applied = append(rep.Applied, f.Path)
		if s.afterWrite != nil {
			if err := s.afterWrite(f.Path); err != nil {
				return rep, err // as if killed: nothing more is recorded
			}
		}
	}
	for p := range already {
		rep.Applied = append(rep.Applied, p)
	}

	now := s.opts.Now().UTC()
	final, err := s.updateTx(id, func(tx *bolt.Tx, c *Changeset) error {
		markApplied(c, applied, now)
		return finishTx(tx, *c, now, false)
	})
	if err != nil {
		// The disk changed but the record did not: Recover completes it at
		// the next open; say so plainly.
		return rep, fmt.Errorf("applied %s of changeset %d but could not record it (the next nova start completes it): %w", plural.Count(len(applied), "file", "files"), id, err)
	}
	rep.Changeset = final
	if writeErr == nil && final.Status == StatusApplied && s.opts.CommitOnApply != nil && s.opts.CommitOnApply() {
		s.commitApplied(ctx, &rep)
	}
	if len(applied) > 0 {
		s.notify(Notice{ID: id, Action: "applied", Status: rep.Changeset.Status, Files: len(final.Files)})
	}
	return rep, writeErr
}

// writeOne applies one file through root, which refuses any escape at the
// system-call level (symlinks swapped in after the checks included).
func writeOne(root *os.Root, f File) error {
	if f.Op == OpDelete {
		err := root.Remove(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	dir := path.Dir(f.Path)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	mode := fs.FileMode(0o644)
	if f.Mode.Perm() != 0 {
		mode = f.Mode.Perm()
	}
	if fi, err := root.Stat(f.Path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", f.Path)
		}
		mode = fi.Mode().Perm()
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(dir, ".nova-apply-"+hex.EncodeToString(rnd[:])+".tmp")
	tf, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	cleanup := func() { _ = root.Remove(tmp) }
	if _, err := tf.Write(f.Content()); err != nil {
		_ = tf.Close()
		cleanup()
		return err
	}
	if err := tf.Sync(); err != nil {
		_ = tf.Close()
		cleanup()
		return err
	}
	if err := tf.Close(); err != nil {
		cleanup()
		return err
	}
	if err := root.Chmod(tmp, mode); err != nil {
		cleanup()
		return err
	}
	if err := root.Rename(tmp, f.Path); err != nil {
		cleanup()
		return err
	}
	return nil
}
