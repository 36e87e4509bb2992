package changes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

// RevertOptions configures Revert.
type RevertOptions struct {
	// Force restores files that changed since the changeset was applied,
	// overwriting those changes.
	Force bool `json:"force,omitempty"`
}

// RevertReport says what Revert did.
type RevertReport struct {
	// ID is the changeset that was reverted.
	ID uint64 `json:"id"`
	// Revert is the new changeset that undid it (applied; revert it to
	// bring the change back).
	Revert Changeset `json:"revert"`
	// Restored lists the files given back their content from before the
	// apply, Removed the files the change had created.
	Restored []string `json:"restored"`
	Removed  []string `json:"removed"`
	// Unchanged lists files that already held their content from before
	// the apply (nothing to do).
	Unchanged []string `json:"unchanged,omitempty"`
	// Overwritten lists files changed since the apply that Force
	// overwrote.
	Overwritten []Conflict `json:"overwritten,omitempty"`
	// Commit / CommitError: the git commit of the revert (git.commitOnApply).
	Commit      string `json:"commit,omitempty"`
	CommitError string `json:"commitError,omitempty"`
	// Learned is set by the engine when it learned from this revert (the
	// user's rejection of the change, once per change): DemotedRules
	// playbook rules and DemotedNodes vault nodes that shaped it lost
	// confidence.
	Learned      bool `json:"learned"`
	DemotedRules int  `json:"demotedRules,omitempty"`
	DemotedNodes int  `json:"demotedNodes,omitempty"`
}

// Revert undoes an applied changeset from its apply record (the one record
// the recoverable apply writes): each file the apply wrote gets back its
// content from right before the apply (with its mode), and a file the apply
// created is removed. Each file must still hold exactly what the apply
// wrote; one changed since stops the revert with a *ConflictError (Revert
// set) naming it, unless opts.Force. The revert is itself a changeset
// (RevertOf = id), staged and applied at once through Apply, with its own
// apply record, so it can be reverted in turn. The reverted changeset is
// marked StatusReverted (RevertedBy).
func (s *Store) Revert(ctx context.Context, id uint64, opts RevertOptions) (RevertReport, error) {
	rep := RevertReport{ID: id, Restored: []string{}, Removed: []string{}}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	s.revertMu.Lock()
	defer s.revertMu.Unlock()
	cs, err := s.Get(ctx, id)
	if err != nil {
		return rep, err
	}
	switch cs.Status {
	case StatusApplied:
	case StatusReverted:
		last, back, err := FollowReverts(ctx, s.Get, cs)
		if err != nil {
			return rep, err
		}
		return rep, fmt.Errorf("revert changeset %d: %w: it was %s", id, ErrReverted, RevertedHint(cs, last, back))
	default:
		return rep, fmt.Errorf("revert changeset %d: %w (it is %s; only applied changesets can be reverted)", id, ErrNotApplied, cs.Status)
	}
	rec, err := s.Journal(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return rep, fmt.Errorf("revert changeset %d: %w: it was applied by an older nova, which kept no copy of what it replaced", id, ErrNoRecord)
	}
	if err != nil {
		return rep, err
	}
	root, err := s.openRoot()
	if err != nil {
		return rep, err
	}
	files, conflicts, unchanged, err := s.revertFiles(root, cs, rec)
	_ = root.Close()
	if err != nil {
		return rep, err
	}
	rep.Unchanged = unchanged
	if len(conflicts) > 0 && !opts.Force {
		return rep, &ConflictError{ID: id, Conflicts: conflicts, Revert: true}
	}
	if len(files) == 0 {
		return rep, fmt.Errorf("revert changeset %d: %w: every file it wrote already holds its content from before", id, ErrNothingToRevert)
	}

	rv, err := s.createRevert(cs, files)
	if err != nil {
		return rep, err
	}
	s.notify(Notice{ID: rv.ID, Action: "staged", Status: rv.Status, Files: len(rv.Files)})
	ap, err := s.Apply(ctx, rv.ID, ApplyOptions(opts))
	var ce *ConflictError
	switch {
	case errors.As(err, &ce):
		// A file changed between the check and the apply: nothing was
		// written; drop the revert changeset and report it as the revert's
		// conflict.
		_, _ = s.Discard(context.WithoutCancel(ctx), rv.ID)
		return rep, &ConflictError{ID: id, Conflicts: ce.Conflicts, Revert: true}
	case err != nil:
		return rep, fmt.Errorf("revert changeset %d: %w (changeset %d holds the rest of the revert: apply it to finish)", id, err, rv.ID)
	}
	// What force overwrote, in the revert's words ("modified since the
	// apply"), not the apply's ("modified on disk" against the revert's own
	// staging); one entry per file.
	rep.Revert, rep.Overwritten = ap.Changeset, conflicts
	seen := map[string]bool{}
	for _, c := range conflicts {
		seen[c.Path] = true
	}
	for _, c := range ap.Overwritten {
		if !seen[c.Path] {
			rep.Overwritten = append(rep.Overwritten, c)
		}
	}
	rep.Commit, rep.CommitError = ap.Commit, ap.CommitError
	for _, f := range rv.Files {
		if f.Op == OpDelete {
			rep.Removed = append(rep.Removed, f.Path)
		} else {
			rep.Restored = append(rep.Restored, f.Path)
		}
	}
	now := s.opts.Now().UTC()
	if _, err := s.updateTx(id, func(tx *bolt.Tx, c *Changeset) error {
		c.Status, c.RevertedBy, c.RevertedAt = StatusReverted, rv.ID, now
		return setJournal(tx, id, func(a *Applied) { a.State, a.UpdatedAt = JournalReverted, now })
	}); err != nil {
		return rep, fmt.Errorf("reverted changeset %d (changeset %d) but could not record it: %w", id, rv.ID, err)
	}
	s.notify(Notice{ID: id, Action: "reverted", Status: StatusReverted, Files: len(cs.Files)})
	return rep, nil
}

// revertFiles builds the files of the revert of cs from its apply record:
// for each file the apply wrote, the content it had before. A file whose
// disk content is neither what the apply wrote nor what it replaced is a
// conflict (it is still reverted when forced); one that already holds its
// old content is left alone.
func (s *Store) revertFiles(root *os.Root, cs Changeset, rec Applied) (files []File, conflicts []Conflict, unchanged []string, err error) {
	now := s.opts.Now().UTC()
	for _, af := range rec.Files {
		if !af.Done || af.BeforeHash == af.AfterHash {
			continue
		}
		cur, err := diskHash(root, af.Path)
		if err != nil {
			return nil, nil, nil, err
		}
		if cur == af.BeforeHash {
			unchanged = append(unchanged, af.Path)
			continue
		}
		if cur != af.AfterHash {
			reason := "modified since the apply"
			switch {
			case cur == Absent:
				reason = "deleted since the apply"
			case af.AfterHash == Absent:
				reason = "created again since the apply"
			case cur == "dir":
				reason = "is now a directory"
			}
			conflicts = append(conflicts, Conflict{Path: af.Path, Reason: reason})
		}
		f := File{Path: af.Path, Status: FilePending, BaseHash: af.AfterHash, ProposedHash: af.BeforeHash,
			Mode: af.BeforeMode, StagedAt: now}
		// What the apply wrote is what the revert replaces: the diff shows it.
		if orig, ok := cs.File(af.Path); ok && orig.ProposedHash == af.AfterHash {
			f.Original, f.OriginalBinary = orig.Proposed, orig.ProposedBinary()
		}
		switch {
		case af.BeforeHash == Absent:
			f.Op = OpDelete
		case af.AfterHash == Absent:
			f.Op = OpCreate
		default:
			f.Op = OpModify
		}
		if f.Op != OpDelete {
			if utf8.Valid(af.Before) {
				f.Proposed = string(af.Before)
			} else {
				f.ProposedData = append([]byte{}, af.Before...)
			}
		}
		files = append(files, f)
	}
	return files, conflicts, unchanged, nil
}

// createRevert stores the revert of cs as a new pending changeset.
func (s *Store) createRevert(cs Changeset, files []File) (Changeset, error) {
	now := s.opts.Now().UTC()
	subject := firstLine(cs.Task)
	if subject == "" {
		subject = fmt.Sprintf("changeset %d", cs.ID)
	}
	rv := Changeset{Task: clip(fmt.Sprintf("Revert %q", subject), 500), Status: StatusPending, Files: files,
		RevertOf: cs.ID, CreatedAt: now, UpdatedAt: now}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketChangesets)
		id, err := storage.NextID(b)
		if err != nil {
			return err
		}
		rv.ID = id
		return codec.Put(b, storage.Key(id), rv)
	})
	if err != nil {
		return Changeset{}, fmt.Errorf("stage the revert of changeset %d: %w", cs.ID, err)
	}
	return rv, nil
}

// setJournal modifies a changeset's apply record inside tx.
func setJournal(tx *bolt.Tx, id uint64, fn func(*Applied)) error {
	b := tx.Bucket(storage.BucketApplyJournal)
	rec, err := journalCodec.Get(b, storage.Key(id))
	if err != nil {
		return err
	}
	fn(&rec)
	return journalCodec.Put(b, storage.Key(id), rec)
}

// MarkRevertLearned records that the revert of changeset id was learned
// from, and reports whether this call was the first to do so: a change is
// learned from once, however often it is reverted (a revert of its revert's
// revert undoes it again, and is not learned again).
func (s *Store) MarkRevertLearned(ctx context.Context, id uint64) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	first := false
	err := s.db.Update(func(tx *bolt.Tx) error {
		return setJournal(tx, id, func(a *Applied) {
			if !a.RevertLearned {
				a.RevertLearned, first = true, true
				a.UpdatedAt = time.Now().UTC()
			}
		})
	})
	if err != nil {
		return false, fmt.Errorf("record the revert of changeset %d: %w", id, err)
	}
	return first, nil
}

// OriginOf follows a chain of reverts back to the change it started from:
// the revert of a revert of C is about C. It returns id itself for a
// changeset that is not a revert.
func (s *Store) OriginOf(ctx context.Context, id uint64) (Changeset, error) {
	seen := map[uint64]bool{}
	for {
		cs, err := s.Get(ctx, id)
		if err != nil {
			return cs, err
		}
		if cs.RevertOf == 0 || seen[cs.RevertOf] {
			return cs, nil
		}
		seen[id] = true
		id = cs.RevertOf
	}
}

// EditFile replaces the proposed content of one pending file of a pending
// changeset with the user's version (`nova changes edit`, `e` on the
// Changes screen): what gets applied is the edited content.
func (s *Store) EditFile(ctx context.Context, id uint64, path, content string) (Changeset, error) {
	if err := ctx.Err(); err != nil {
		return Changeset{}, err
	}
	if !utf8.ValidString(content) {
		return Changeset{}, fmt.Errorf("edit %s: %w: the content is not valid UTF-8 text", path, ErrNotEditable)
	}
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	cs, err := s.update(id, func(cs *Changeset) error {
		if cs.Status != StatusPending {
			return fmt.Errorf("edit changeset %d: %w (it is %s)", id, ErrNotPending, cs.Status)
		}
		for i := range cs.Files {
			f := &cs.Files[i]
			if f.Path != path {
				continue
			}
			if f.Status != FilePending {
				return fmt.Errorf("edit %s: %w: it is already %s", path, ErrNotEditable, f.Status)
			}
			if f.ProposedBinary() {
				return fmt.Errorf("edit %s: %w: the proposal is binary", path, ErrNotEditable)
			}
			f.Proposed, f.ProposedHash, f.Edited = content, tools.SHA256([]byte(content)), true
			if f.BaseHash == Absent {
				f.Op = OpCreate
			} else {
				f.Op = OpModify
			}
			return nil
		}
		return fmt.Errorf("edit changeset %d: %w: it has no file %s", id, ErrNotEditable, path)
	})
	if err != nil {
		return Changeset{}, err
	}
	s.notify(Notice{ID: id, Action: "edited", Status: cs.Status, Files: len(cs.Files)})
	return cs, nil
}

// FollowReverts follows a reverted changeset's chain of reverts (cs reverted
// by R1, R1 reverted by R2, …) to its last link, the one applied now, and
// reports whether the change is back in place (an even number of reverts
// after cs: the last one brought it back) or undone. get reads a
// changeset; a chain longer than the store, or a broken link, ends there.
func FollowReverts(ctx context.Context, get func(context.Context, uint64) (Changeset, error), cs Changeset) (last Changeset, back bool, err error) {
	last, back = cs, true
	seen := map[uint64]bool{cs.ID: true}
	for last.Status == StatusReverted && last.RevertedBy != 0 && !seen[last.RevertedBy] {
		next, err := get(ctx, last.RevertedBy)
		if err != nil {
			return Changeset{}, false, err
		}
		seen[next.ID] = true
		last, back = next, !back
	}
	return last, back, nil
}

// RevertedHint says, after "changeset N was ", what became of the reverted
// changeset cs and what to revert to undo or bring back its change, from the
// end of its chain (FollowReverts).
func RevertedHint(cs, last Changeset, back bool) string {
	switch {
	case last.ID == cs.RevertedBy:
		return fmt.Sprintf("already reverted by changeset %d; revert %d to bring the change back", last.ID, last.ID)
	case back:
		return fmt.Sprintf("reverted by changeset %d and brought back by changeset %d; revert %d to undo the change again", cs.RevertedBy, last.ID, last.ID)
	}
	return fmt.Sprintf("reverted by changeset %d, brought back, and undone again by changeset %d; revert %d to bring the change back", cs.RevertedBy, last.ID, last.ID)
}
