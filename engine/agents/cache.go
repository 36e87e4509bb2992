package agents

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// Cache loads a roster once per state of its directory: Load parses the spec files again
// only when one was added, removed or changed (name, size or modification time), so a build
// does not parse every agent's YAML for every task. The zero value is ready to use; it is
// safe for concurrent use. Rosters are read-only (Get returns copies), so one is shared.
type Cache struct {
	mu     sync.Mutex
	dir    string
	stamp  string
	roster *Roster
	errs   []error
}

// Load returns the roster of dir (see the package's Load), from the cache when the
// directory has not changed since it was read.
func (c *Cache) Load(dir string) (*Roster, []error) {
	stamp, ok := dirStamp(dir)
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok && c.roster != nil && c.dir == dir && c.stamp == stamp {
		return c.roster, c.errs
	}
	r, errs := Load(dir)
	if ok {
		c.dir, c.stamp, c.roster, c.errs = dir, stamp, r, errs
	}
	return r, errs
}

// dirStamp describes the spec files of dir by name, size and modification time.
func dirStamp(dir string) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	for _, e := range entries {
		if e.IsDir() || !isSpecFile(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return "", false
		}
		b.WriteString(e.Name())
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(info.Size(), 10))
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(info.ModTime().UnixNano(), 10))
		b.WriteByte('\n')
	}
	return b.String(), true
}
