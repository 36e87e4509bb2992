package storage

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
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
	// ErrCorrupt means the file is not a readable nova database: damaged
	// (a fault in its memory map, a bad page, a 0-byte file) or foreign.
	ErrCorrupt = errors.New("database is corrupt or not a nova database")
	// ErrSchemaTooNew means a newer nova wrote the database.
	ErrSchemaTooNew = errors.New("database was written by a newer nova")
	// ErrNoDatabase means a read-only open found no database file.
	ErrNoDatabase = errors.New("no database yet")
	// ErrReadOnly means a write was attempted on a read-only handle.
	ErrReadOnly = errors.New("database is open read-only")
	// ErrNeedsMigration means a read-only open met an older schema that
	// could not be migrated first (another process holds the file).
	ErrNeedsMigration = errors.New("database needs migrating")
	// ErrNotFound is returned by lookups of a missing record.
	ErrNotFound = errors.New("not found")
	// ErrUnmapped means bbolt could not map the grown file into memory (mmap
	// failed: out of memory or address space). The transaction that grew it
	// was rolled back; what earlier transactions committed stays. The handle
	// refuses every later read and write (bbolt has no mapping left).
	ErrUnmapped = errors.New("the database could not be mapped into memory")
)

// initialMmapSize is the size bbolt maps the file with from the start (see Open).
const initialMmapSize = 1 << 30

// allocSize is how far past its data bbolt grows the file. bbolt's default (16 MiB, used
// once the mapping is larger than that, which initialMmapSize makes it from the start)
// would give every workspace's file a 16 MiB tail of zeros: a small file would look large,
// and a file cut short by a crash or a copy would still hold all its pages, so the open's
// verification could not tell (TestAnyChangeAfterTheCloseIsVerifiedInFull).
const allocSize = 64 << 10

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

	// noFingerprint: leave no fingerprint sidecar on close (a temporary
	// file that is renamed afterwards, as Recover's).
	noFingerprint bool
	// noUpgrade: a read-only open of an older schema fails instead of
	// migrating first (upgradeThenOpen's second open).
	noUpgrade bool
	// initialMmap replaces initialMmapSize (tests of a failing remap).
	initialMmap int
}

// DB is an open nova database.
type DB struct {
	bolt     *bolt.DB
	path     string
	readOnly bool
	// damaged is set once a read or write met a damaged page: from then on
	// every write is refused, so nothing is written into a damaged file.
	damaged atomic.Bool
	// unmapped is set once bbolt failed to map the file (ErrUnmapped).
	unmapped atomic.Bool

	// verified says how much Open verified; sidecar is the fingerprint it
	// found beside the file, if any (fingerprint.go).
	verified      verifyMode
	sidecar       *fingerprint
	noFingerprint bool
	closed        atomic.Bool
}

// whatToDo ends every message about a damaged database.
const whatToDo = "nothing was written to it; copy what is readable into a new file with `nova db recover FILE`, or restore a backup made with `nova db backup`"

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
	if err := sniff(path, timeout); err != nil {
		return nil, err
	}
	// Before bbolt maps the file: its structure, read with bounds checks
	// (rawpages.go). bbolt trusts its pages; a damaged one faults, panics
	// or sends its cursor round a loop forever, on any read. Every page,
	// unless the file is exactly as a nova left it (fingerprint.go).
	mode, sidecar, err := verifyLocked(path, timeout)
	if err != nil {
		return nil, err
	}
	var bdb *bolt.DB
	err = guarded(func() error {
		var oerr error
		bdb, oerr = bolt.Open(path, 0o600, &bolt.Options{
			Timeout:  timeout,
			ReadOnly: opts.ReadOnly,
			NoSync:   opts.NoSync,
			// Address space only (pages are read on demand): a transaction that grows the
			// file past the mapping makes bbolt remap and copy every node it holds into the
			// heap, which made a 100k-node import spend a third of its time and memory there.
			InitialMmapSize: cmp.Or(opts.initialMmap, initialMmapSize),
		})
		return oerr
	})
	if errors.Is(err, ErrCorrupt) {
		return nil, fmt.Errorf("open %s: %w%s", path, err, withWhatToDo(err))
	}
	if err != nil {
		return nil, classifyOpenError(path, err)
	}
	bdb.AllocSize = allocSize
	db = &DB{bolt: bdb, path: path, readOnly: opts.ReadOnly,
		verified: mode, sidecar: sidecar, noFingerprint: opts.noFingerprint}
	list := opts.Migrations
	if list == nil {
		list = Migrations
	}
	if err := runMigrations(db, list); err != nil {
		_ = bdb.Close()
		if opts.ReadOnly && errors.Is(err, ErrNeedsMigration) && !opts.noUpgrade {
			return upgradeThenOpen(path, opts, err)
		}
		return nil, err
	}
	if err := db.RepairCounters(); err != nil {
		_ = bdb.Close()
		return nil, err
	}
	return db, nil
}

// stillEmpty says whether the file at path is still empty once no nova
// holds its lock, looking again for a moment (a creator takes the lock just
// after creating the file). A lock held longer is ErrInUse.
func stillEmpty(path string, timeout time.Duration) (bool, error) {
	deadline := time.Now().Add(250 * time.Millisecond)
	for {
		f, err := os.Open(path)
		if err != nil {
			return false, nil // gone or unreadable: the open reports it
		}
		if err := flockShared(f, timeout); err != nil {
			_ = f.Close()
			return false, fmt.Errorf("%w: %s is locked by another nova process (close it, or retry in a moment)", ErrInUse, path)
		}
		st, err := f.Stat()
		_ = f.Close() // releases the lock
		if err != nil || st.Size() > 0 {
			return false, nil
		}
		if time.Now().After(deadline) {
			return true, nil
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// upgradeThenOpen serves a read of a file an older nova wrote: the first
// command after an upgrade is often a read (`vault list`, `knowledge
// search`), and refusing it would make users run a write for nothing. The
// schema is migrated once under the exclusive lock (migrations only add
// buckets), then the file is opened read-only again. When another process
// holds the file, it is that process's to migrate: the original error
// stands, with what to do.
func upgradeThenOpen(path string, opts Options, readErr error) (*DB, error) {
	w := opts
	w.ReadOnly = false
	wdb, err := Open(path, w)
	if err != nil {
		if errors.Is(err, ErrInUse) {
			return nil, fmt.Errorf("%w; another nova process has it open", readErr)
		}
		return nil, err
	}
	if err := wdb.Close(); err != nil {
		return nil, fmt.Errorf("close after migrating %s: %w", path, err)
	}
	opts.noUpgrade = true
	return Open(path, opts)
}

// sniff rejects a foreign file before bbolt touches it: bbolt's own check
// only looks at the meta pages and can be fooled by short or random files.
func sniff(path string, timeout time.Duration) error {
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
		// A nova creating the database holds its lock while bbolt writes
		// the first pages, and the file exists, empty, for a moment before
		// it takes the lock: two novas started together on a new workspace
		// must not call it damaged.
		empty, err := stillEmpty(path, timeout)
		if err != nil {
			return err
		}
		if !empty {
			return sniff(path, timeout)
		}
		// bbolt would silently initialise it as a new database (and a
		// read-only open fails with "bad file descriptor"): a 0-byte
		// nova.db is a database that lost everything, say so.
		return fmt.Errorf("open %s: %w: the file is empty (0 bytes), its data is lost; move it away to start a new database, or restore a backup made with `nova db backup`", path, ErrCorrupt)
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

// ReleaseMapped drops the pages of the database file mapped into this process (they stay
// in the page cache; a later read maps them again). Bulk writes call it between their
// transactions: without it every page they touch stays counted in the process's resident
// memory until it exits.
func (db *DB) ReleaseMapped() {
	if db == nil || db.bolt == nil {
		return
	}
	releaseMapped(db.bolt, db.path)
}

// Close releases the file and its lock. A writable handle first records
// the fingerprint of the file it leaves behind (fingerprint.go), so that
// the next open can skip verifying every page.
func (db *DB) Close() error {
	if db == nil || db.bolt == nil || db.closed.Swap(true) {
		return nil
	}
	db.leaveFingerprint()
	return db.bolt.Close()
}

// View runs fn in a read transaction. A fault in the memory map or a panic
// inside bbolt (damaged pages) is returned as ErrCorrupt, and the handle
// refuses writes from then on.
func (db *DB) View(fn func(tx *bolt.Tx) error) error {
	if err := db.mapped(); err != nil {
		return err
	}
	return db.guard(func() error { return db.bolt.View(fn) })
}

// Update runs fn in a read-write transaction. It is refused on a read-only
// handle and on a database known to be damaged.
func (db *DB) Update(fn func(tx *bolt.Tx) error) error {
	if err := db.writable(); err != nil {
		return err
	}
	return db.guard(func() error { return db.bolt.Update(fn) })
}

// Batch runs fn through bbolt's batcher (for concurrent small writers).
func (db *DB) Batch(fn func(tx *bolt.Tx) error) error {
	if err := db.writable(); err != nil {
		return err
	}
	// bbolt may run fn on its own goroutine: guard it there too.
	return db.guard(func() error {
		return db.bolt.Batch(func(tx *bolt.Tx) error {
			return guarded(func() error { return fn(tx) })
		})
	})
}

// Damaged reports whether this handle has met a damaged page.
func (db *DB) Damaged() bool { return db.damaged.Load() }

func (db *DB) writable() error {
	if db.readOnly {
		return ErrReadOnly
	}
	if db.damaged.Load() {
		return fmt.Errorf("write to %s: %w (a damaged page was found earlier); %s", db.path, ErrCorrupt, whatToDo)
	}
	return nil
}

// mapped refuses any transaction once bbolt lost its mapping.
func (db *DB) mapped() error {
	if db.unmapped.Load() {
		return fmt.Errorf("%s: %w earlier (out of memory?); nothing more is read or written through this handle: restart nova, with more memory if a limit is set", db.path, ErrUnmapped)
	}
	return nil
}

// mmapFailed says whether a bbolt error is a failed (re)map: after one,
// bbolt holds no mapping of the file.
func mmapFailed(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "mmap allocate error") || strings.Contains(msg, "isn't correctly mapped")
}

func (db *DB) guard(fn func() error) error {
	if err := db.mapped(); err != nil {
		return err
	}
	err := guarded(fn)
	if mmapFailed(err) {
		db.unmapped.Store(true)
		return fmt.Errorf("%s: %w (%w): the transaction that grew the file was rolled back, what earlier ones committed stays; restart nova, with more memory if a limit is set", db.path, ErrUnmapped, err)
	}
	var ce *corruptError
	if errors.As(err, &ce) && ce.damaged {
		db.damaged.Store(true)
	}
	return err
}

// corruptError is a panic or memory fault recovered from bbolt.
type corruptError struct {
	value   any
	damaged bool // a fault in the map, or a panic raised inside bbolt
}

func (e *corruptError) Error() string {
	if e.damaged {
		return fmt.Sprintf("%v: a damaged page was read (%v); %s", ErrCorrupt, e.value, whatToDo)
	}
	return fmt.Sprintf("%v: %v", ErrCorrupt, e.value)
}

// withWhatToDo appends the advice unless err already carries it.
func withWhatToDo(err error) string {
	var ce *corruptError
	if errors.As(err, &ce) && ce.damaged {
		return ""
	}
	return "; " + whatToDo
}

func (e *corruptError) Unwrap() error { return ErrCorrupt }

// guarded runs fn with memory faults turned into panics
// (debug.SetPanicOnFault: bbolt reads its pages through a memory map, and a
// truncated file makes a read past its end fault, which otherwise kills
// the process with "unexpected fault address"), and recovers any panic
// into a *corruptError wrapping ErrCorrupt. SetPanicOnFault is per
// goroutine, so fn must not hand bbolt memory to other goroutines.
func guarded(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			err = &corruptError{value: r, damaged: isFault(r) || panickedInBolt()}
		}
	}()
	return fn()
}

// isFault reports a memory fault turned into a panic by SetPanicOnFault.
func isFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	return ok
}

// panickedInBolt reports whether the panic being recovered was raised in
// bbolt's code (a bad page), not in a caller's closure. It is called from
// the deferred function, while the panicking frames are still on the stack.
func panickedInBolt() bool {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs) // from runtime.gopanic down
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		// The first frame outside the runtime (sigpanic, panicIndex, …)
		// is the code that panicked.
		if !strings.HasPrefix(f.Function, "runtime.") {
			return strings.HasPrefix(f.Function, "go.etcd.io/bbolt")
		}
		if !more {
			return false
		}
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
