package storage

import (
	"errors"
	"fmt"
	"io"
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

// BackupFile writes a consistent copy to path atomically (temp file + rename).
func (db *DB) BackupFile(path string) (int64, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if same, _ := sameFile(abs, db.path); same {
		return 0, fmt.Errorf("backup: %s is the live database; choose another file", path)
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
		err = os.Rename(tmp.Name(), abs)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return 0, err
	}
	return n, nil
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

// Check runs bbolt's consistency check and returns every problem found.
func (db *DB) Check() []error {
	var problems []error
	err := db.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			problems = append(problems, e)
		}
		return nil
	})
	if err != nil {
		problems = append(problems, err)
	}
	return problems
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
		return st, fmt.Errorf("compact: %w", err)
	}
	cerr := bolt.Compact(dst, src.bolt, 64<<20)
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
