package engine

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// Database verbs of the Workspace facade, and the exclusive operations that
// are deliberately not verbs.

// BackupDB implements Workspace.
func (l *Local) BackupDB(ctx context.Context, path string) (BackupReport, error) {
	if err := ctx.Err(); err != nil {
		return BackupReport{}, err
	}
	if !filepath.IsAbs(path) {
		return BackupReport{}, fmt.Errorf("backup %s: %w", path, ErrRelativePath)
	}
	n, err := l.db.BackupFile(path)
	if err != nil {
		return BackupReport{}, err
	}
	return BackupReport{File: path, Bytes: n, DBPath: l.ws.DBPath()}, nil
}

// CheckDB implements Workspace.
func (l *Local) CheckDB(ctx context.Context) (CheckReport, error) {
	if err := ctx.Err(); err != nil {
		return CheckReport{}, err
	}
	rep := CheckReport{DBPath: l.ws.DBPath(), Problems: []string{}}
	for _, p := range l.db.Check() {
		rep.Problems = append(rep.Problems, p.Error())
	}
	rep.OK = len(rep.Problems) == 0
	return rep, nil
}

// CompactReport is the result of Compact.
type CompactReport struct {
	DBPath string `json:"dbPath"`
	Before int64  `json:"before"`
	After  int64  `json:"after"`
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
	st, err := storage.Compact(path, storage.Options{})
	if err != nil {
		return CompactReport{}, err
	}
	return CompactReport{DBPath: path, Before: st.Before, After: st.After}, nil
}
