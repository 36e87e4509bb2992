package facts

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Counts says how many facts there are, by status (Home, `nova doctor`).
type Counts struct {
	// Valid facts hold and are found by searches (archived ones are not
	// counted here).
	Valid int `json:"valid"`
	// Review counts the valid facts flagged for review (a file they name
	// changed or vanished); part of Valid.
	Review int `json:"review"`
	// Closed counts superseded, invalidated and archived facts (kept,
	// hidden from searches).
	Closed int `json:"closed"`
	// User counts the valid user-level facts; part of Valid.
	User int `json:"user"`
	// Damaged counts stored facts that could not be read.
	Damaged int `json:"damaged,omitempty"`
}

func (c *Counts) add(f Fact, user bool) {
	if f.Status != StatusValid {
		c.Closed++
		return
	}
	c.Valid++
	if f.Review != "" {
		c.Review++
	}
	if user {
		c.User++
	}
}

// Counts counts the facts of both files (the workspace's and the user's)
// from the service's snapshot. Warnings say when the user-level file was
// left out (locked, damaged).
func (s *Service) Counts(ctx context.Context) (Counts, []string, error) {
	warn, err := s.ensure(ctx)
	if err != nil {
		return Counts{}, nil, err
	}
	var c Counts
	s.mu.RLock()
	for k, f := range s.mem.facts {
		c.add(f, k&userBit != 0)
	}
	s.mu.RUnlock()
	return c, warn, nil
}

// CountIn counts the facts stored in one open file, read-only (`nova
// doctor`, which never takes a write lock). user says whether db is the
// user-level file.
func CountIn(db *storage.DB, user bool) (Counts, error) {
	var c Counts
	err := db.View(func(tx *bolt.Tx) error {
		all, bad := allFacts(tx, user)
		for _, f := range all {
			c.add(f, user)
		}
		c.Damaged = bad
		return nil
	})
	if err != nil {
		return Counts{}, fmt.Errorf("count facts: %w", err)
	}
	return c, nil
}

// CountUserFile opens the user-level file at path read-only for a moment and
// counts its facts. No file yet is zero facts and no error; a locked,
// damaged or newer file wraps ErrUserUnavailable and says what to do.
func CountUserFile(path string) (Counts, error) {
	u := &userFile{path: path, timeout: DefaultUserLockTimeout}
	var c Counts
	err := u.do(true, func(db *storage.DB) error {
		var err error
		c, err = CountIn(db, true)
		return err
	})
	if errors.Is(err, errNoUserFile) {
		return Counts{}, nil
	}
	return c, err
}
