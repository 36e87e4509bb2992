package facts

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

var (
	factCodec = storage.Codec[Fact]{Version: 1}
	scopeIdx  = storage.Index{Bucket: storage.BucketFactsIndex, Name: "scope"}
	fileIdx   = storage.Index{Bucket: storage.BucketFactsIndex, Name: "file"}
	revKey    = []byte("~rev")
)

// UserPath is where the user-level file lives: $NOVA_HOME/user.db, else
// $XDG_DATA_HOME/nova/user.db, else $HOME/.local/share/nova/user.db; "" when
// none of them is set (user scope is then unavailable).
func UserPath(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case getenv("NOVA_HOME") != "":
		return filepath.Join(getenv("NOVA_HOME"), "user.db")
	case getenv("XDG_DATA_HOME") != "":
		return filepath.Join(getenv("XDG_DATA_HOME"), "nova", "user.db")
	case getenv("HOME") != "":
		return filepath.Join(getenv("HOME"), ".local", "share", "nova", "user.db")
	}
	return ""
}

// putFact stores f (a new fact when f.ID is empty, which gets the next id)
// and keeps the indexes and the change counter in step. old is the stored
// version being replaced (nil for a new fact).
func putFact(tx *bolt.Tx, user bool, f *Fact, old *Fact) error {
	b := tx.Bucket(storage.BucketFacts)
	if b == nil || tx.Bucket(storage.BucketFactsIndex) == nil {
		return fmt.Errorf("facts: %w (bucket missing)", storage.ErrCorrupt)
	}
	var id factID
	if f.ID == "" {
		n, err := storage.NextID(b)
		if err != nil {
			return err
		}
		id = factID{user: user, n: n}
		f.ID = id.String()
	} else {
		var err error
		if id, err = parseID(f.ID); err != nil {
			return err
		}
	}
	if old != nil {
		if err := scopeIdx.Remove(tx, old.Scope.String(), id.n); err != nil {
			return err
		}
		for _, fr := range old.Files {
			if err := fileIdx.Remove(tx, fr.Path, id.n); err != nil {
				return err
			}
		}
	}
	f.derive()
	if err := factCodec.Put(b, storage.Key(id.n), *f); err != nil {
		return err
	}
	if err := scopeIdx.Add(tx, f.Scope.String(), id.n); err != nil {
		return err
	}
	for _, fr := range f.Files {
		if err := fileIdx.Add(tx, fr.Path, id.n); err != nil {
			return err
		}
	}
	return bumpRev(tx)
}

func getFact(tx *bolt.Tx, id factID) (Fact, error) {
	f, err := factCodec.Get(tx.Bucket(storage.BucketFacts), storage.Key(id.n))
	if errors.Is(err, storage.ErrNotFound) {
		return f, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return f, fmt.Errorf("read fact %s: %w", id, err)
	}
	f.ID = id.String()
	f.derive()
	return f, nil
}

// allFacts decodes every fact of a file; damaged records are skipped and
// counted.
func allFacts(tx *bolt.Tx, user bool) ([]Fact, int) {
	b := tx.Bucket(storage.BucketFacts)
	if b == nil {
		return nil, 0
	}
	var out []Fact
	bad := 0
	_ = b.ForEach(func(k, v []byte) error {
		f, err := factCodec.Unmarshal(v)
		if err != nil || len(k) != 8 {
			bad++
			return nil
		}
		f.ID = factID{user: user, n: storage.ParseKey(k)}.String()
		f.derive()
		out = append(out, f)
		return nil
	})
	return out, bad
}

func readRev(tx *bolt.Tx) uint64 {
	b := tx.Bucket(storage.BucketFactsIndex)
	if b == nil {
		return 0
	}
	v := b.Get(revKey)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func bumpRev(tx *bolt.Tx) error {
	b := tx.Bucket(storage.BucketFactsIndex)
	v := make([]byte, 8)
	binary.BigEndian.PutUint64(v, readRev(tx)+1)
	return b.Put(revKey, v)
}

// userFile is the user-level facts file, opened briefly per operation.
type userFile struct {
	path    string
	timeout time.Duration
	mu      sync.Mutex // one open at a time in this process (flock is per file description)
}

// errNoUserFile: a read found no user file yet (no user facts).
var errNoUserFile = errors.New("no user-level facts yet")

// do opens the file (creating it for writes), runs fn and closes it. A
// locked, damaged or unreachable file is ErrUserUnavailable with what to do.
func (u *userFile) do(readOnly bool, fn func(db *storage.DB) error) error {
	if u.path == "" {
		return fmt.Errorf("%w: no user data directory (set NOVA_HOME, XDG_DATA_HOME or HOME)", ErrUserUnavailable)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if readOnly {
		if _, err := os.Stat(u.path); errors.Is(err, fs.ErrNotExist) {
			return errNoUserFile
		}
	}
	db, err := storage.Open(u.path, storage.Options{ReadOnly: readOnly, LockTimeout: u.timeout, Migrations: storage.UserMigrations})
	if err != nil {
		return u.describe(err)
	}
	defer func() { _ = db.Close() }()
	return fn(db)
}

func (u *userFile) describe(err error) error {
	switch {
	case errors.Is(err, storage.ErrNoDatabase):
		return errNoUserFile
	case errors.Is(err, storage.ErrInUse):
		return fmt.Errorf("%w: %s is locked by another nova process (try again in a moment)", ErrUserUnavailable, u.path)
	case errors.Is(err, storage.ErrCorrupt):
		return fmt.Errorf("%w: %s is damaged or not a nova file (move it away; a new one is made on the next user-level write)", ErrUserUnavailable, u.path)
	case errors.Is(err, storage.ErrSchemaTooNew):
		return fmt.Errorf("%w: %s was written by a newer nova (upgrade nova)", ErrUserUnavailable, u.path)
	}
	return fmt.Errorf("%w: %s: %w", ErrUserUnavailable, u.path, err)
}

// stamp identifies the file's current contents cheaply (no open).
type stamp struct {
	mod  time.Time
	size int64
	ok   bool
}

func (u *userFile) stamp() stamp {
	if u.path == "" {
		return stamp{}
	}
	st, err := os.Stat(u.path)
	if err != nil {
		return stamp{}
	}
	return stamp{mod: st.ModTime(), size: st.Size(), ok: true}
}
