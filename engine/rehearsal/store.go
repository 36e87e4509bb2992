package rehearsal

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

var codec = storage.Codec[Session]{Version: 1}

var statusCodec = storage.Codec[struct {
	Status Status `json:"status"`
}]{Version: 1}

// Filter narrows List.
type Filter struct {
	// Status keeps only sessions in this state ("" keeps all).
	Status Status
	Limit  int
}

// List returns sessions newest first.
func (s *Service) List(ctx context.Context, f Filter) ([]Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Session{}
	err := s.DB.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketRehearsals)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			ss, err := codec.Unmarshal(v)
			if err != nil {
				return fmt.Errorf("rehearsal %d: %w", storage.ParseKey(k), err)
			}
			if f.Status != "" && ss.Status != f.Status {
				continue
			}
			out = append(out, ss)
			if f.Limit > 0 && len(out) == f.Limit {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list rehearsals: %w", err)
	}
	return out, nil
}

// Get returns one session, or an error wrapping ErrNotFound.
func (s *Service) Get(ctx context.Context, id uint64) (Session, error) {
	if err := ctx.Err(); err != nil {
		return Session{}, err
	}
	var ss Session
	err := s.DB.View(func(tx *bolt.Tx) error {
		var err error
		ss, err = codec.Get(tx.Bucket(storage.BucketRehearsals), storage.Key(id))
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return Session{}, fmt.Errorf("rehearsal %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("read rehearsal %d: %w", id, err)
	}
	return ss, nil
}

// CountPending is the number of sessions waiting for the user.
func (s *Service) CountPending(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	err := s.DB.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketRehearsals)
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, v []byte) error {
			st, err := statusCodec.Unmarshal(v)
			if err == nil && st.Status == StatusPending {
				n++
			}
			return nil
		})
	})
	return n, err
}

// save writes a session, allocating its id when it has none.
func (s *Service) save(ss *Session) error {
	ss.UpdatedAt = s.now()
	err := s.DB.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketRehearsals)
		if b == nil {
			return fmt.Errorf("bucket %s missing", storage.BucketRehearsals)
		}
		if ss.ID == 0 {
			id, err := storage.NextID(b)
			if err != nil {
				return err
			}
			ss.ID = id
		}
		return codec.Put(b, storage.Key(ss.ID), *ss)
	})
	if err != nil {
		return fmt.Errorf("save rehearsal: %w", err)
	}
	if s.Notify != nil {
		s.Notify(*ss)
	}
	return nil
}

// update reads, changes and writes a session in one transaction.
func (s *Service) update(ctx context.Context, id uint64, fn func(*Session) error) (Session, error) {
	if err := ctx.Err(); err != nil {
		return Session{}, err
	}
	var out Session
	err := s.DB.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketRehearsals)
		ss, err := codec.Get(b, storage.Key(id))
		if errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("rehearsal %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if err := fn(&ss); err != nil {
			return err
		}
		ss.UpdatedAt = s.now()
		out = ss
		return codec.Put(b, storage.Key(id), ss)
	})
	if err != nil {
		return Session{}, err
	}
	if s.Notify != nil {
		s.Notify(out)
	}
	return out, nil
}
