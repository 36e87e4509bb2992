package changes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/storage"
)

// JournalState is where an apply stands.
type JournalState string

// Journal states.
const (
	// JournalApplying: the record is written, files are being written. A
	// record still in this state at the next open is an interrupted apply
	// (a crash, a kill -9), which Recover completes.
	JournalApplying JournalState = "applying"
	// JournalPartial: an apply stopped on an error (disk full, a file
	// changed since); the changeset stays pending and may be applied again.
	JournalPartial JournalState = "partial"
	// JournalApplied: every file of the changeset is on disk.
	JournalApplied JournalState = "applied"
	// JournalReverted: a revert restored the original contents.
	JournalReverted JournalState = "reverted"
)

// Applied is THE record of what applying a changeset changed on disk: for
// every file, its content right before nova wrote it (not the content at
// staging time: a forced apply overwrites whatever is there, and binary
// originals are kept here in full). It is written, in state
// JournalApplying, BEFORE the first file is written, and updated in the
// same transaction as the changeset when the apply ends. Two features read
// it, so it is designed once for both:
//
//   - recoverable apply: Recover finds records still "applying" (nova was
//     killed between writing a file and recording it) and completes them;
//   - revert (`nova changes revert`): a file whose disk content still hashes
//     to AfterHash is restored to Before (or removed when BeforeHash is
//     Absent); anything else changed since and is refused unless forced.
//
// Records live in bucket apply_journal, keyed by changeset id, and are kept
// after the apply (revert needs them).
type Applied struct {
	ChangesetID uint64        `json:"changesetId"`
	State       JournalState  `json:"state"`
	Files       []AppliedFile `json:"files"`
	StartedAt   time.Time     `json:"startedAt"`
	UpdatedAt   time.Time     `json:"updatedAt"`
	// Recovered is set when Recover completed an interrupted apply.
	Recovered bool `json:"recovered,omitempty"`
	// RevertLearned is set once a revert of the changeset was learned from
	// (MarkRevertLearned): never twice for the same change.
	RevertLearned bool `json:"revertLearned,omitempty"`
}

// AppliedFile is one file of an Applied record.
type AppliedFile struct {
	Path string `json:"path"`
	Op   Op     `json:"op"`
	// Before is the file's content right before the apply (nil when it did
	// not exist); BeforeHash its sha256, or Absent.
	Before     []byte      `json:"before,omitempty"`
	BeforeHash string      `json:"beforeHash"`
	BeforeMode fs.FileMode `json:"beforeMode,omitempty"`
	// AfterHash is what the apply writes: the staged ProposedHash (Absent
	// for a deletion).
	AfterHash string `json:"afterHash"`
	// Done is set once the file is written and recorded.
	Done bool `json:"done,omitempty"`
}

var journalCodec = storage.Codec[Applied]{Version: 1}

// Journal returns the apply record of a changeset (for revert, or to show
// what an apply replaced); the error wraps ErrNotFound when the changeset
// was never applied.
func (s *Store) Journal(ctx context.Context, id uint64) (Applied, error) {
	if err := ctx.Err(); err != nil {
		return Applied{}, err
	}
	var a Applied
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		a, err = journalCodec.Get(tx.Bucket(storage.BucketApplyJournal), storage.Key(id))
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return Applied{}, fmt.Errorf("apply record of changeset %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Applied{}, fmt.Errorf("read apply record of changeset %d: %w", id, err)
	}
	return a, nil
}

// beginJournal captures the current disk content of every file about to be
// written and commits the record (state applying) before anything is
// written. Files already in an earlier record of the same changeset keep
// their first Before: that is the true original. held are files the disk
// already holds in their proposed form: they are recorded with the content
// they were staged over (what a revert gives back), except a binary one,
// whose staged original is not kept.
func (s *Store) beginJournal(root *os.Root, id uint64, files []File, held ...File) error {
	captured := make([]AppliedFile, 0, len(files)+len(held))
	for _, f := range held {
		if f.OriginalBinary {
			continue
		}
		af := AppliedFile{Path: f.Path, Op: f.Op, AfterHash: f.ProposedHash, BeforeHash: f.BaseHash, BeforeMode: f.Mode}
		if f.BaseHash != Absent {
			af.Before = []byte(f.Original)
		}
		if _, mode, err := readRegular(root, f.Path, tools.MaxReadBytes); err == nil {
			af.BeforeMode = mode
		}
		captured = append(captured, af)
	}
	for _, f := range files {
		af := AppliedFile{Path: f.Path, Op: f.Op, AfterHash: f.ProposedHash}
		data, mode, err := readRegular(root, f.Path, tools.MaxReadBytes)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			af.BeforeHash = Absent
		case err != nil:
			return fmt.Errorf("apply %s: keep its original: %w", f.Path, err)
		default:
			af.Before, af.BeforeHash, af.BeforeMode = data, tools.SHA256(data), mode
		}
		captured = append(captured, af)
	}
	now := s.opts.Now().UTC()
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketApplyJournal)
		if b == nil {
			return fmt.Errorf("bucket %s missing: %w", storage.BucketApplyJournal, storage.ErrCorrupt)
		}
		rec, err := journalCodec.Get(b, storage.Key(id))
		switch {
		case errors.Is(err, storage.ErrNotFound):
			rec = Applied{ChangesetID: id, StartedAt: now}
		case err != nil:
			return err
		}
		have := map[string]int{}
		for i, f := range rec.Files {
			have[f.Path] = i
		}
		for _, af := range captured {
			if i, ok := have[af.Path]; ok {
				rec.Files[i].AfterHash, rec.Files[i].Op = af.AfterHash, af.Op
				continue
			}
			rec.Files = append(rec.Files, af)
		}
		rec.State, rec.UpdatedAt = JournalApplying, now
		return journalCodec.Put(b, storage.Key(id), rec)
	})
}

// finishTx records the end of an apply, inside the transaction that
// updates the changeset.
func finishTx(tx *bolt.Tx, cs Changeset, now time.Time, recovered bool) error {
	b := tx.Bucket(storage.BucketApplyJournal)
	rec, err := journalCodec.Get(b, storage.Key(cs.ID))
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	applied := map[string]bool{}
	for _, f := range cs.Files {
		applied[f.Path] = f.Status == FileApplied
	}
	for i := range rec.Files {
		rec.Files[i].Done = applied[rec.Files[i].Path]
	}
	rec.State = JournalPartial
	if cs.Status == StatusApplied {
		rec.State = JournalApplied
	}
	rec.UpdatedAt = now
	rec.Recovered = rec.Recovered || recovered
	return journalCodec.Put(b, storage.Key(cs.ID), rec)
}

// Recovered says what Recover did with one interrupted apply.
type Recovered struct {
	ID uint64 `json:"id"`
	// Completed lists the files Recover wrote; AlreadyWritten those the
	// interrupted apply had written but not recorded.
	Completed      []string `json:"completed"`
	AlreadyWritten []string `json:"alreadyWritten"`
	// Conflicts lists files changed by someone else meanwhile: they stay
	// pending, for the user to review.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	Status    Status     `json:"status"`
}

// Recover completes every apply that was interrupted (a record still in
// state applying: nova was killed between writing files and recording
// them). For each file of the record: content equal to what the apply
// writes counts as applied; content equal to the original is written now;
// anything else was changed by someone else and stays pending as a
// conflict. It runs when a workspace is opened for writing.
func (s *Store) Recover(ctx context.Context) ([]Recovered, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var open []Applied
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketApplyJournal)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			rec, err := journalCodec.Unmarshal(v)
			if err != nil {
				return fmt.Errorf("apply record %d: %w", storage.ParseKey(k), err)
			}
			if rec.State == JournalApplying {
				open = append(open, rec)
			}
			return nil
		})
	})
	if err != nil || len(open) == 0 {
		return nil, err
	}
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	root, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer func() { _ = root.Close() }()
	var out []Recovered
	for _, rec := range open {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r, err := s.recoverOne(root, rec)
		if err != nil {
			return out, fmt.Errorf("recover the apply of changeset %d: %w", rec.ChangesetID, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *Store) recoverOne(root *os.Root, rec Applied) (Recovered, error) {
	r := Recovered{ID: rec.ChangesetID, Completed: []string{}, AlreadyWritten: []string{}}
	cs, err := s.Get(context.Background(), rec.ChangesetID)
	if err != nil {
		return r, err
	}
	inRecord := map[string]AppliedFile{}
	for _, f := range rec.Files {
		inRecord[f.Path] = f
	}
	done := map[string]bool{}
	if cs.Status == StatusPending {
		for _, f := range cs.Files {
			af, ok := inRecord[f.Path]
			if f.Status != FilePending || !ok {
				continue
			}
			cur, err := diskHash(root, f.Path)
			if err != nil {
				return r, err
			}
			switch cur {
			case af.AfterHash:
				done[f.Path] = true
				r.AlreadyWritten = append(r.AlreadyWritten, f.Path)
			case af.BeforeHash:
				if err := writeOne(root, f); err != nil {
					return r, fmt.Errorf("apply %s: %w", f.Path, err)
				}
				done[f.Path] = true
				r.Completed = append(r.Completed, f.Path)
			default:
				r.Conflicts = append(r.Conflicts, Conflict{Path: f.Path, Reason: "changed on disk while an interrupted apply was pending"})
			}
		}
	}
	now := s.opts.Now().UTC()
	final, err := s.updateTx(rec.ChangesetID, func(tx *bolt.Tx, c *Changeset) error {
		markApplied(c, done, now)
		return finishTx(tx, *c, now, true)
	})
	if err != nil {
		return r, err
	}
	r.Status = final.Status
	if len(done) > 0 {
		s.notify(Notice{ID: final.ID, Action: "applied", Status: final.Status, Files: len(final.Files)})
	}
	return r, nil
}

// markApplied marks the files in done applied, and the changeset applied
// when no file is pending any more.
func markApplied(c *Changeset, done map[string]bool, now time.Time) {
	all := true
	for i := range c.Files {
		if done[c.Files[i].Path] && c.Files[i].Status == FilePending {
			c.Files[i].Status = FileApplied
			c.Files[i].AppliedAt = now
		}
		if c.Files[i].Status == FilePending {
			all = false
		}
	}
	if all && c.Status == StatusPending {
		c.Status = StatusApplied
		c.AppliedAt = now
	}
}

// readRegular reads rel through root: a regular file only (opened with
// O_NONBLOCK, so a FIFO never blocks), at most max bytes read.
func readRegular(root *os.Root, rel string, max int64) ([]byte, fs.FileMode, error) {
	f, err := root.OpenFile(rel, os.O_RDONLY|safefile.NonBlock, 0)
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", rel)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, 0, err
	}
	if int64(len(data)) > max {
		return nil, 0, fmt.Errorf("%s is larger than %d bytes", rel, max)
	}
	return data, st.Mode().Perm(), nil
}
