package storage

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// Backup writes a consistent copy of the database to w (tx.WriteTo inside a
// read transaction, so writers are not blocked).
func (db *DB) Backup(w io.Writer) (int64, error) {
	var n int64
	err := db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("backup: %w", err)
	}
	return n, nil
}

// ErrExists means a backup (or recovery) target already exists.
var ErrExists = errors.New("file already exists")

// BackupOptions configures BackupFile.
type BackupOptions struct {
	// Force replaces an existing file at the target path.
	Force bool
}

// BackupFile writes a consistent copy to path atomically (temp file, then
// a rename). An existing file is never replaced unless opts.Force: the
// error wraps ErrExists and says to pass --force.
func (db *DB) BackupFile(path string, opts BackupOptions) (int64, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if same, _ := sameFile(abs, db.path); same {
		return 0, fmt.Errorf("backup: %s is the live database; choose another file", path)
	}
	if _, err := os.Lstat(abs); err == nil && !opts.Force {
		return 0, existsError("backup", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), ".nova-backup-*")
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	n, err := db.Backup(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = place(tmp.Name(), abs, opts.Force)
		if errors.Is(err, fs.ErrExist) {
			err = existsError("backup", path)
		}
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return 0, err
	}
	return n, nil
}

func existsError(op, path string) error {
	return fmt.Errorf("%s: %s: %w; choose another name, or pass --force to replace it", op, path, ErrExists)
}

// place moves tmp to dst: a rename when replacing is allowed, otherwise a
// hard link (which fails if dst appeared meanwhile) and removing tmp.
func place(tmp, dst string, replace bool) error {
	if replace {
		return os.Rename(tmp, dst)
	}
	if err := os.Link(tmp, dst); err != nil {
		return err
	}
	return os.Remove(tmp)
}

func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// Check runs bbolt's consistency check, then nova's own: a sequence bucket
// whose counter is below its largest id (the next id would replace a
// record). It returns every problem found; a fault while reading is one
// more problem wrapping ErrCorrupt.
func (db *DB) Check() []error {
	// The structure first, with bounds checks, inside a read transaction
	// so that the pages read are not reused meanwhile.
	var rawErr error
	if err := db.View(func(*bolt.Tx) error { rawErr = rawVerify(db.path); return nil }); err != nil {
		return []error{err}
	}
	if rawErr != nil {
		return []error{rawErr}
	}
	if err := db.View(walk); err != nil {
		return []error{err}
	}
	var problems []error
	err := db.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			problems = append(problems, e)
		}
		problems = append(problems, checkCounters(tx)...)
		return nil
	})
	if err != nil {
		problems = append(problems, err)
	}
	return problems
}

// checkCounters compares each sequence bucket's counter with its largest
// 8-byte key.
func checkCounters(tx *bolt.Tx) []error {
	var out []error
	for _, name := range SequenceBuckets {
		b := tx.Bucket(name)
		if b == nil {
			continue
		}
		k, _ := b.Cursor().Last()
		if len(k) != 8 {
			continue
		}
		if last := ParseKey(k); last > b.Sequence() {
			out = append(out, fmt.Errorf("bucket %s: %w: counter is %d but the largest id is %d (the next new record would replace #%d)",
				name, ErrCounter, b.Sequence(), last, b.Sequence()+1))
		}
	}
	return out
}

// counterPastRange says whether any sequence bucket's counter is above
// MaxImportID: nova never issues such ids itself, only an import of an
// older nova could move a counter there (and at MaxID it is exhausted).
func counterPastRange(tx *bolt.Tx) bool {
	for _, name := range SequenceBuckets {
		if b := tx.Bucket(name); b != nil && b.Sequence() > MaxImportID {
			return true
		}
	}
	return false
}

// repairCounters brings every counter above MaxImportID back to the
// largest id at or below it that a record holds, so new records get ids
// again (an id 2^53 imported by an older nova blocked every later add,
// even after that record was forgotten). Records with ids above the range
// keep them; NextID skips any id a record holds.
func repairCounters(tx *bolt.Tx) error {
	for _, name := range SequenceBuckets {
		b := tx.Bucket(name)
		if b == nil || b.Sequence() <= MaxImportID {
			continue
		}
		c := b.Cursor()
		k, _ := c.Seek(Key(MaxImportID + 1))
		if k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
		var last uint64
		for ; k != nil; k, _ = c.Prev() {
			if id := ParseKey(k); id != 0 && id <= MaxImportID {
				last = id
				break
			}
		}
		if err := b.SetSequence(last); err != nil {
			return fmt.Errorf("repair the counter of %s: %w", name, err)
		}
	}
	return nil
}

// RepairCounters repairs counters moved past the range nova issues ids in
// (see repairCounters); a no-op write-free check when none is. Open calls
// it on every writable open.
func (db *DB) RepairCounters() error {
	if db.readOnly {
		return nil
	}
	past := false
	if err := db.View(func(tx *bolt.Tx) error { past = counterPastRange(tx); return nil }); err != nil {
		return err
	}
	if !past {
		return nil
	}
	return db.Update(repairCounters)
}

// CompactStats reports a compaction.
type CompactStats struct {
	Before int64 `json:"before"`
	After  int64 `json:"after"`
}

// Compact rewrites the database at path into a fresh file, dropping free
// pages, then replaces the original. The database must not be open.
func Compact(path string, opts Options) (CompactStats, error) {
	var st CompactStats
	src, err := Open(path, opts)
	if err != nil {
		return st, err
	}
	if fi, err := os.Stat(path); err == nil {
		st.Before = fi.Size()
	}
	tmpPath := path + ".compact"
	_ = os.Remove(tmpPath)
	dst, err := bolt.Open(tmpPath, 0o600, &bolt.Options{Timeout: DefaultLockTimeout})
	if err != nil {
		_ = src.Close()
		_ = os.Remove(tmpPath)
		return st, fmt.Errorf("compact: %w", err)
	}
	// Guarded: a damaged page that the open's check missed must not crash
	// the process nor leave the temporary file behind.
	cerr := src.guard(func() error { return bolt.Compact(dst, src.bolt, 64<<20) })
	closeErr := errors.Join(dst.Close(), src.Close())
	if cerr != nil || closeErr != nil {
		_ = os.Remove(tmpPath)
		return st, fmt.Errorf("compact: %w", errors.Join(cerr, closeErr))
	}
	if err := os.Rename(tmpPath, path); err != nil {
		_ = os.Remove(tmpPath)
		return st, fmt.Errorf("compact: replace database: %w", err)
	}
	if fi, err := os.Stat(path); err == nil {
		st.After = fi.Size()
	}
	return st, nil
}
