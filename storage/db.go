package storage

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DefaultLockTimeout is how long Open waits for another process's lock.
// It keeps "workspace in use" answers well under two seconds.
const DefaultLockTimeout = time.Second

// Sentinel errors callers branch on.
var (
	// ErrInUse means another process holds the database lock.
	ErrInUse = errors.New("workspace in use")
	// ErrCorrupt means the file is not a readable nova database.
	ErrCorrupt = errors.New("database is corrupt or not a nova database")
	// ErrSchemaTooNew means a newer nova wrote the database.
	ErrSchemaTooNew = errors.New("database was written by a newer nova")
	// ErrNoDatabase means a read-only open found no database file.
	ErrNoDatabase = errors.New("no database yet")
	// ErrReadOnly means a write was attempted on a read-only handle.
	ErrReadOnly = errors.New("database is open read-only")
	// ErrNotFound is returned by lookups of a missing record.
	ErrNotFound = errors.New("not found")
)

// Options configures Open.
type Options struct {
	// ReadOnly opens with a shared lock and never writes (no migrations).
	ReadOnly bool
	// LockTimeout overrides DefaultLockTimeout.
	LockTimeout time.Duration
	// NoSync trades durability for speed (tests and benchmarks only).
	NoSync bool
	// Migrations replaces the workspace schema's migrations (nil means
	// Migrations); the user-level file opens with UserMigrations.
	Migrations []Migration
}

// DB is an open nova database.
type DB struct {
	bolt     *bolt.DB
	path     string
	readOnly bool
}

// Open opens (creating if needed, unless read-only) the database at path,
// then runs pending migrations.
func Open(path string, opts Options) (db *DB, err error) {
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	if opts.ReadOnly {
		if _, statErr := os.Stat(path); errors.Is(statErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("open %s: %w (run a nova command that writes, or `nova init`)", path, ErrNoDatabase)
		}
	} else if dir := filepath.Dir(path); dir != "" {
		if mkErr := os.MkdirAll(dir, 0o755); mkErr != nil {
			return nil, fmt.Errorf("create database directory: %w", mkErr)
		}
	}
	if err := sniff(path); err != nil {
		return nil, err
	}
	defer func() {
		// bbolt may panic on a damaged file; turn it into a clear error.
		if r := recover(); r != nil {
			err = fmt.Errorf("open %s: %w (%v)", path, ErrCorrupt, r)
		}
	}()
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:  timeout,
		ReadOnly: opts.ReadOnly,
		NoSync:   opts.NoSync,
	})
	if err != nil {
		return nil, classifyOpenError(path, err)
	}
	db = &DB{bolt: bdb, path: path, readOnly: opts.ReadOnly}
	list := opts.Migrations
	if list == nil {
		list = Migrations
	}
	if err := runMigrations(db, list); err != nil {
		_ = bdb.Close()
		return nil, err
	}
	return db, nil
}

// sniff rejects a foreign file before bbolt touches it: bbolt's own check
// only looks at the meta pages and can be fooled by short or random files.
func sniff(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("open %s: %w (check the file's permissions)", path, err)
		}
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Size() == 0 {
		return nil // bbolt initialises an empty file
	}
	// A bbolt file starts with a page header (16 bytes) followed by the meta
	// magic 0xED0CDAED (little-endian on every platform bbolt supports).
	head := make([]byte, 20)
	if _, err := io.ReadFull(f, head); err != nil {
		return fmt.Errorf("open %s: %w (file is too short to be a database)", path, ErrCorrupt)
	}
	if head[16] != 0xED || head[17] != 0xDA || head[18] != 0x0C || head[19] != 0xED {
		return fmt.Errorf("open %s: %w (no bbolt header; move the file away or restore a backup)", path, ErrCorrupt)
	}
	return nil
}

func classifyOpenError(path string, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("%w: %s is locked by another nova process (close it, or retry in a moment)", ErrInUse, path)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch):
		return fmt.Errorf("open %s: %w (%w; restore a backup made with `nova db backup`, or move the file away)", path, ErrCorrupt, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("open %s: %w (check the permissions of .nova/)", path, err)
	}
	return fmt.Errorf("open %s: %w", path, err)
}

// Path returns the database file path.
func (db *DB) Path() string { return db.path }

// ReadOnly reports whether the handle is read-only.
func (db *DB) ReadOnly() bool { return db.readOnly }

// Bolt exposes the underlying handle for packages that need raw access.
func (db *DB) Bolt() *bolt.DB { return db.bolt }

// Close releases the file and its lock.
func (db *DB) Close() error {
	if db == nil || db.bolt == nil {
		return nil
	}
	return db.bolt.Close()
}

// View runs fn in a read transaction. A panic inside bbolt (damaged pages)
// is returned as ErrCorrupt.
func (db *DB) View(fn func(tx *bolt.Tx) error) (err error) {
	defer recoverCorrupt(&err)
	return db.bolt.View(fn)
}

// Update runs fn in a read-write transaction.
func (db *DB) Update(fn func(tx *bolt.Tx) error) (err error) {
	if db.readOnly {
		return ErrReadOnly
	}
	defer recoverCorrupt(&err)
	return db.bolt.Update(fn)
}

// Batch runs fn through bbolt's batcher (for concurrent small writers).
func (db *DB) Batch(fn func(tx *bolt.Tx) error) (err error) {
	if db.readOnly {
		return ErrReadOnly
	}
	defer recoverCorrupt(&err)
	return db.bolt.Batch(fn)
}

func recoverCorrupt(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", ErrCorrupt, r)
	}
}

// SchemaVersion returns the stored schema version.
func (db *DB) SchemaVersion() (int, error) {
	var v int
	err := db.View(func(tx *bolt.Tx) error {
		v = readSchema(tx)
		return nil
	})
	return v, err
}

// Count returns the number of keys in a top-level bucket (0 if absent).
func (db *DB) Count(bucket []byte) (int, error) {
	n := 0
	err := db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		if b == nil {
			return nil
		}
		n = b.Stats().KeyN
		return nil
	})
	return n, err
}
