package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Leftover is a temporary file that a killed `db compact` or `db recover`
// left behind: a compaction copy (<db>.compact beside the database) or a
// recovery copy (.nova-recover-* in the folder it was written to). Either
// may be hundreds of MB; neither is ever opened by nova.
type Leftover struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // "compaction" | "recovery"
	Size int64  `json:"size"`
}

// CompactSuffix is the name suffix of a compaction's temporary copy.
const CompactSuffix = ".compact"

// RecoverPrefix starts the name of a recovery's temporary copy.
const RecoverPrefix = ".nova-recover-"

// FindLeftovers lists the compaction copy of the database at dbPath and
// the recovery copies in dbPath's folder and in dirs (the workspace root,
// where `db recover FILE` is usually pointed), sorted by path. Folders that
// cannot be read are skipped.
func FindLeftovers(dbPath string, dirs ...string) []Leftover {
	var out []Leftover
	if fi, err := os.Lstat(dbPath + CompactSuffix); err == nil && fi.Mode().IsRegular() {
		out = append(out, Leftover{Path: dbPath + CompactSuffix, Kind: "compaction", Size: fi.Size()})
	}
	seen := map[string]bool{}
	for _, dir := range append([]string{filepath.Dir(dbPath)}, dirs...) {
		if dir == "" || seen[filepath.Clean(dir)] {
			continue
		}
		seen[filepath.Clean(dir)] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), RecoverPrefix) || !e.Type().IsRegular() {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue
			}
			out = append(out, Leftover{Path: filepath.Join(dir, e.Name()), Kind: "recovery", Size: info.Size()})
		}
	}
	slices.SortFunc(out, func(a, b Leftover) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// RemoveLeftovers removes the leftovers FindLeftovers lists, except a file
// another process holds open under a bbolt lock (a recovery still running
// elsewhere). It returns what it removed; an error names each file it could
// not remove.
func RemoveLeftovers(dbPath string, dirs ...string) ([]Leftover, error) {
	var removed []Leftover
	var errs []error
	for _, l := range FindLeftovers(dbPath, dirs...) {
		if locked(l.Path) {
			continue
		}
		if err := os.Remove(l.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", l.Path, err))
			continue
		}
		removed = append(removed, l)
	}
	return removed, errors.Join(errs...)
}

// locked says whether another process holds a lock on the file (bbolt
// locks a database it has open).
func locked(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	return flockExclusiveNow(f) != nil
}
