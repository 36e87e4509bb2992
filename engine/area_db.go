package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// DBVerbs are the verbs of the database file: backups and checks.
type DBVerbs interface {
	// BackupDB writes a consistent copy of the database to path. An existing
	// file is refused (ErrExists) unless o.Force.
	BackupDB(ctx context.Context, path string, o BackupOptions) (BackupReport, error)
	// CheckDB verifies every page of the database, runs bbolt's consistency
	// check and nova's counter check; problems are in the report (Damaged,
	// Counter say of which kind).
	//rpc:idempotent
	CheckDB(ctx context.Context) (CheckReport, error)
}

// dbArea implements DBVerbs over the workspace's services.
type dbArea struct{ *core }

var _ DBVerbs = dbArea{}

// BackupDB implements DBVerbs.
func (l dbArea) BackupDB(ctx context.Context, path string, o BackupOptions) (BackupReport, error) {
	if err := ctx.Err(); err != nil {
		return BackupReport{}, err
	}
	if !filepath.IsAbs(path) {
		return BackupReport{}, fmt.Errorf("backup %s: %w", path, ErrRelativePath)
	}
	n, err := l.db.BackupFile(path, storage.BackupOptions{Force: o.Force})
	if err != nil {
		return BackupReport{}, err
	}
	return BackupReport{File: path, Bytes: n, DBPath: l.ws.DBPath()}, nil
}

// CheckDB implements DBVerbs.
func (l dbArea) CheckDB(ctx context.Context) (CheckReport, error) {
	if err := ctx.Err(); err != nil {
		return CheckReport{}, err
	}
	rep := CheckReport{DBPath: l.ws.DBPath(), Problems: []string{}}
	rep.Schema, _ = l.db.SchemaVersion()
	for _, p := range l.db.Check() {
		rep.Problems = append(rep.Problems, p.Error())
		rep.Damaged = rep.Damaged || errors.Is(p, storage.ErrCorrupt)
		rep.Counter = rep.Counter || errors.Is(p, storage.ErrCounter)
	}
	rep.OK = len(rep.Problems) == 0
	return rep, nil
}

// The exclusive operations below (Compact, RecoverDB) are deliberately
// not verbs: they need the database file to themselves.

// Errors of the database verbs and exclusive operations that callers branch
// on (the CLI cannot import storage).
var (
	// ErrDamaged: the database file is damaged (a bad page, a cut or empty
	// file); nothing was written to it. It is storage.ErrCorrupt.
	ErrDamaged = storage.ErrCorrupt
	// ErrExists: a backup or recovery target, or UseBlueprint's output
	// file, already exists.
	ErrExists = storage.ErrExists
	// ErrCounter: an id counter is exhausted or below its largest id.
	ErrCounter = storage.ErrCounter
)

// CompactReport is the result of Compact.
type CompactReport struct {
	DBPath string `json:"dbPath"`
	Before int64  `json:"before"`
	After  int64  `json:"after"`
	// Removed are the leftovers of killed compactions and recoveries that
	// the compaction cleaned up (storage.FindLeftovers).
	Removed []storage.Leftover `json:"removed,omitempty"`
}

// Compact rewrites the database of the workspace at root without free
// pages. It is an exclusive operation, not a Workspace verb: it needs the
// database to itself (no owner, no clients) and says so otherwise
// (storage.ErrInUse).
func Compact(ctx context.Context, root string) (CompactReport, error) {
	if err := ctx.Err(); err != nil {
		return CompactReport{}, err
	}
	path := (&workspace.Workspace{Root: root}).DBPath()
	left := storage.FindLeftovers(path, root)
	st, err := storage.Compact(path, storage.Options{})
	if err != nil {
		return CompactReport{}, err
	}
	rep := CompactReport{DBPath: path, Before: st.Before, After: st.After}
	// The compaction has the workspace to itself: what killed compactions and
	// recoveries left behind is no one's (the compaction replaces its own
	// leftover; the others are removed here).
	_, err = storage.RemoveLeftovers(path, root)
	for _, l := range left {
		if _, serr := os.Lstat(l.Path); errors.Is(serr, fs.ErrNotExist) {
			rep.Removed = append(rep.Removed, l)
		}
	}
	return rep, err
}

// RecoverReport is the result of RecoverDB: per bucket what was copied and
// what was lost (storage.RecoverReport).
type RecoverReport = storage.RecoverReport

// BucketRecovery is one bucket's part of a RecoverReport.
type BucketRecovery = storage.BucketRecovery

// RecoverDB copies every readable bucket and record of the database of the
// workspace at root (damaged, or refused at open) into a new database file
// at dst, and reports what it lost. The source is only read (under a shared
// lock), never written; dst must not exist (ErrExists). Like Compact it is an
// exclusive operation, not a Workspace verb: it reads the file directly,
// without opening it (a damaged file does not open).
func RecoverDB(ctx context.Context, root, dst string) (RecoverReport, error) {
	if !filepath.IsAbs(dst) {
		return RecoverReport{}, fmt.Errorf("recover into %s: %w", dst, ErrRelativePath)
	}
	src := (&workspace.Workspace{Root: root}).DBPath()
	return storage.Recover(ctx, src, dst, storage.Options{})
}
