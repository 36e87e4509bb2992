package codemap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/storage"
)

// DefaultMaxFiles bounds how many source files one map holds.
const DefaultMaxFiles = 20000

// Options configure a Map (config codemap:).
type Options struct {
	// MaxFiles bounds the files mapped (0: DefaultMaxFiles).
	MaxFiles int
	// Exclude are glob patterns (path.Match) of workspace paths or base
	// names never mapped, on top of .gitignore.
	Exclude []string
	// Workers parse in parallel (0: GOMAXPROCS).
	Workers int
}

// Map is the repository map of one workspace. It is safe for concurrent
// use; updates are serialised.
type Map struct {
	db   *storage.DB
	root string
	opts Options

	upd sync.Mutex // one update at a time

	mu    sync.RWMutex
	snap  *snapshot // the map in memory (nil until the first update)
	stats Stats

	// recs are the file records as of database transaction recsTx: an
	// update whose read sees the same transaction reuses them.
	recs   map[string]fileRec
	recsTx int
}

// snapshot is the map in memory: every mapped file's symbols and the
// definitions by name.
type snapshot struct {
	files  map[string]FileSyms
	hashes map[string]string
	skips  map[string]string // path → why it is left out
	byName map[string][]string
}

// New returns the map of the workspace at root kept in db.
func New(db *storage.DB, root string, opts Options) *Map {
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	return &Map{db: db, root: root, opts: opts}
}

// seen is one source file found by the walk.
type seen struct {
	path  string
	size  int64
	mtime int64
}

// Update brings the map up to date with the workspace: it walks the
// source files, reads only those whose size or modification time changed,
// parses only those whose content hash changed, and forgets files that are
// gone. Files it cannot map are recorded with the reason and left out.
func (m *Map) Update(ctx context.Context) (Stats, error) {
	m.upd.Lock()
	defer m.upd.Unlock()
	found, err := m.walk(ctx)
	if err != nil {
		return Stats{}, err
	}
	var recs map[string]fileRec
	txID := 0
	if err := m.db.View(func(tx *bolt.Tx) error {
		txID = tx.ID()
		if m.recs != nil && txID == m.recsTx {
			recs = m.recs
			return nil
		}
		var err error
		recs, err = loadRecs(tx)
		return err
	}); err != nil {
		return Stats{}, fmt.Errorf("code map: read: %w", err)
	}
	var todo []seen
	var changes []change
	present := make(map[string]bool, len(found))
	for _, f := range found {
		present[f.path] = true
		r, ok := recs[f.path]
		if ok && r.V == parserVersion && r.Size == f.size && r.MTime == f.mtime {
			continue
		}
		todo = append(todo, f)
	}
	for p := range recs {
		if !present[p] {
			changes = append(changes, change{path: p, gone: true})
		}
	}
	if len(todo) == 0 && len(changes) == 0 && m.snap != nil && m.recs != nil && txID == m.recsTx {
		m.mu.RLock()
		st := m.stats
		m.mu.RUnlock()
		st.Parsed, st.Removed = 0, 0
		return st, nil // nothing changed since the last update
	}
	parsed := m.parseAll(ctx, todo, recs)
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	changes = append(changes, parsed...)
	if len(changes) > 0 && !m.db.ReadOnly() {
		if err := m.db.Update(func(tx *bolt.Tx) error {
			txID = tx.ID()
			return writeChanges(tx, changes)
		}); err != nil {
			m.recs = nil
			return Stats{}, fmt.Errorf("code map: write: %w", err)
		}
	}
	final, st, err := m.refresh(recs, changes)
	if err != nil {
		m.recs = nil
		return Stats{}, err
	}
	m.recs, m.recsTx = final, txID
	if m.db.ReadOnly() {
		m.recs = nil // nothing was written: the next update compares with the database again
	}
	return st, nil
}

// walk lists the workspace's source files: not following symlinks (so a
// symlink loop is never entered), skipping .gitignore'd paths, dependency
// and build directories and the configured excludes.
func (m *Map) walk(ctx context.Context) ([]seen, error) {
	rootReal, err := tools.RealRoot(m.root)
	if err != nil {
		return nil, fmt.Errorf("code map: %w", err)
	}
	ig := &tools.Ignorer{}
	var out []seen
	err = filepath.WalkDir(rootReal, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == rootReal {
				return err
			}
			return nil
		}
		rel, rerr := filepath.Rel(rootReal, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".") || ig.Ignored(rel, true) || m.excluded(rel)) {
				return filepath.SkipDir
			}
			dir := rel
			if dir == "." {
				dir = ""
			}
			if data, err := safefile.ReadFile(filepath.Join(p, ".gitignore"), 1<<20); err == nil {
				ig.Add(dir, data)
			}
			return nil
		}
		if !d.Type().IsRegular() || LangOf(d.Name()) == "" || ig.Ignored(rel, false) || m.excluded(rel) {
			return nil // symlinks and devices are not followed
		}
		if len(out) >= m.opts.MaxFiles {
			return filepath.SkipAll
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		out = append(out, seen{path: rel, size: info.Size(), mtime: info.ModTime().UnixNano()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("code map: walk: %w", err)
	}
	return out, nil
}

func (m *Map) excluded(rel string) bool {
	for _, pat := range m.opts.Exclude {
		if ok, _ := path.Match(pat, rel); ok {
			return true
		}
		if ok, _ := path.Match(pat, path.Base(rel)); ok {
			return true
		}
	}
	return false
}

// parseAll reads and parses files in parallel.
func (m *Map) parseAll(ctx context.Context, todo []seen, recs map[string]fileRec) []change {
	out := make([]change, len(todo))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(m.opts.Workers, max(1, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = m.parseOne(ctx, todo[i], recs[todo[i].path])
			}
		}()
	}
	for i := range todo {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

func (m *Map) parseOne(ctx context.Context, f seen, old fileRec) change {
	c := change{path: f.path, rec: fileRec{Size: f.size, MTime: f.mtime, Lang: LangOf(f.path), V: parserVersion}}
	if f.size > MaxFileBytes {
		c.rec.Skip = SkipTooLarge
		return c
	}
	src, err := safefile.ReadFile(filepath.Join(m.root, filepath.FromSlash(f.path)), MaxFileBytes)
	if err != nil {
		c.rec.Skip = SkipRead
		if errors.Is(err, os.ErrNotExist) {
			c.gone = true
		}
		return c
	}
	sum := sha256.Sum256(src)
	c.rec.Hash = hex.EncodeToString(sum[:])
	if old.Hash == c.rec.Hash && old.V == parserVersion {
		c.rec.Skip = old.Skip // same content: only the stat changed
		return c
	}
	syms, err := Parse(ctx, f.path, src)
	switch {
	case errors.Is(err, ErrSkipped):
		c.rec.Skip = skipReason(err)
	case err != nil:
		c.rec.Skip = SkipParse
	default:
		c.syms = &syms
	}
	return c
}

// skipReason is the screen reason inside a Parse error.
func skipReason(err error) string {
	msg := err.Error()
	for _, r := range []string{SkipTooLarge, SkipMinified, SkipBinary, SkipNotUTF8} {
		if strings.Contains(msg, r) {
			return r
		}
	}
	return SkipParse
}

// refresh updates the snapshot in memory from what changed (loading it
// whole the first time, and any file another process re-mapped).
func (m *Map) refresh(recs map[string]fileRec, changes []change) (map[string]fileRec, Stats, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	final := make(map[string]fileRec, len(recs))
	for p, r := range recs {
		final[p] = r
	}
	parsedN, removed := 0, 0
	for _, c := range changes {
		if c.gone {
			delete(final, c.path)
			removed++
			continue
		}
		final[c.path] = c.rec
		if c.syms != nil {
			parsedN++
		}
	}
	// Readers keep the old snapshot: build a new one.
	s := &snapshot{files: map[string]FileSyms{}, hashes: map[string]string{}, skips: map[string]string{}}
	var need []string // nil: all
	if old := m.snap; old != nil {
		s.files, s.hashes = maps.Clone(old.files), maps.Clone(old.hashes)
		need = []string{}
		for p, r := range final {
			if r.Skip == "" && s.hashes[p] != r.Hash {
				need = append(need, p)
			}
		}
	}
	fresh := map[string]FileSyms{}
	for _, c := range changes {
		if c.syms != nil {
			fresh[c.path] = *c.syms
		}
	}
	if need == nil || len(need) > len(fresh) {
		var loaded map[string]FileSyms
		if err := m.db.View(func(tx *bolt.Tx) error {
			var err error
			loaded, err = loadSyms(tx, need)
			return err
		}); err != nil {
			return nil, Stats{}, fmt.Errorf("code map: read: %w", err)
		}
		for p, fs := range loaded {
			if _, ok := fresh[p]; !ok {
				fresh[p] = fs
			}
		}
	}
	changed := map[string]bool{} // paths whose symbols differ from the old snapshot's
	for p := range s.files {
		if r, ok := final[p]; !ok || r.Skip != "" {
			delete(s.files, p)
			delete(s.hashes, p)
			changed[p] = true
		}
	}
	for p, r := range final {
		if r.Skip != "" {
			s.skips[p] = r.Skip
			continue
		}
		if fs, ok := fresh[p]; ok {
			s.files[p], s.hashes[p] = fs, r.Hash
			changed[p] = true
		}
	}
	if old := m.snap; old != nil {
		// Only the changed files' names move.
		s.byName = maps.Clone(old.byName)
		for p := range changed {
			for _, name := range defNames(old.files[p].Defs) {
				s.byName[name] = without(s.byName[name], p)
				if len(s.byName[name]) == 0 {
					delete(s.byName, name)
				}
			}
			if fs, ok := s.files[p]; ok {
				for _, name := range defNames(fs.Defs) {
					s.byName[name] = with(s.byName[name], p)
				}
			}
		}
	} else {
		s.byName = map[string][]string{}
		for p, fs := range s.files {
			for _, name := range defNames(fs.Defs) {
				s.byName[name] = append(s.byName[name], p)
			}
		}
		for _, ps := range s.byName {
			sort.Strings(ps)
		}
	}
	st := Stats{Parsed: parsedN, Removed: removed, Skipped: map[string]int{}, Langs: map[string]int{}}
	for _, fs := range s.files {
		st.Files++
		st.Langs[fs.Lang]++
		st.Defs += len(fs.Defs)
	}
	for _, why := range s.skips {
		st.Skipped[why]++
	}
	m.snap, m.stats = s, st
	return final, st, nil
}

// defNames are the distinct names of defs.
func defNames(defs []Def) []string {
	seen := make(map[string]bool, len(defs))
	out := make([]string, 0, len(defs))
	for _, d := range defs {
		if !seen[d.Name] {
			seen[d.Name] = true
			out = append(out, d.Name)
		}
	}
	return out
}

// without is sorted ps less p, as a new slice (snapshots share the old).
func without(ps []string, p string) []string {
	i, ok := slices.BinarySearch(ps, p)
	if !ok {
		return ps
	}
	return slices.Concat(ps[:i:i], ps[i+1:])
}

// with is sorted ps with p, as a new slice.
func with(ps []string, p string) []string {
	i, ok := slices.BinarySearch(ps, p)
	if ok {
		return ps
	}
	return slices.Concat(ps[:i:i], []string{p}, ps[i:])
}

// current is the snapshot, updating the map first.
func (m *Map) current(ctx context.Context) (*snapshot, error) {
	if _, err := m.Update(ctx); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.snap, nil
}

// Stats are the figures of the last update.
func (m *Map) Stats() Stats {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.stats
}
