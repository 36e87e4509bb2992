package goal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/storage"
)

var (
	runCodec  = storage.Codec[Run]{Version: 1}
	turnCodec = storage.Codec[Turn]{Version: 1}
)

// Store persists goal runs and their turns (buckets goal_runs and
// goal_turns; their layout is in storage/doc.go).
type Store struct {
	db  *storage.DB
	now func() time.Time
}

// NewStore wraps the database.
func NewStore(db *storage.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

func turnKey(runID uint64, n int) []byte { return storage.ChildKey(runID, n) }

// create stores a new run (its id is set).
func (s *Store) create(ctx context.Context, r *Run) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketGoalRuns)
		id, err := storage.NextID(b)
		if err != nil {
			return err
		}
		r.ID = id
		r.CreatedAt, r.UpdatedAt = s.now(), s.now()
		return putRun(tx, *r)
	})
}

// Get returns a run.
func (s *Store) Get(ctx context.Context, id uint64) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	var r Run
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		r, err = getTx(tx, id)
		return err
	})
	return r, err
}

func getTx(tx *bolt.Tx, id uint64) (Run, error) {
	r, err := runCodec.Get(tx.Bucket(storage.BucketGoalRuns), storage.Key(id))
	if errors.Is(err, storage.ErrNotFound) {
		return Run{}, fmt.Errorf("%w: %d", ErrNotFound, id)
	}
	if r.Agents == nil {
		r.Agents = []string{}
	}
	return r, err
}

// List returns every run, newest first.
func (s *Store) List(ctx context.Context) ([]Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Run
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		out, err = runCodec.All(tx.Bucket(storage.BucketGoalRuns))
		return err
	})
	for i := range out {
		if out[i].Agents == nil {
			out[i].Agents = []string{}
		}
	}
	slices.Reverse(out)
	return out, err
}

// Turns returns a run's turns, oldest first.
func (s *Store) Turns(ctx context.Context, id uint64) ([]Turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Turn{}
	err := s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(storage.BucketGoalRuns).Get(storage.Key(id)) == nil {
			return fmt.Errorf("%w: %d", ErrNotFound, id)
		}
		var err error
		if out, err = turnCodec.Children(tx.Bucket(storage.BucketGoalTurns), id); err != nil {
			return fmt.Errorf("goal run %d turns: %w", id, err)
		}
		return nil
	})
	return out, err
}

// update changes a run (and optionally writes a turn) in one transaction.
func (s *Store) update(id uint64, turn *Turn, fn func(r *Run) error) (Run, error) {
	var out Run
	err := s.db.Update(func(tx *bolt.Tx) error {
		r, err := getTx(tx, id)
		if err != nil {
			return err
		}
		if fn != nil {
			if err := fn(&r); err != nil {
				return err
			}
		}
		if turn != nil {
			turn.RunID = id
			if err := turnCodec.Put(tx.Bucket(storage.BucketGoalTurns), turnKey(id, turn.N), *turn); err != nil {
				return err
			}
		}
		r.UpdatedAt = s.now()
		out = r
		return putRun(tx, r)
	})
	return out, err
}

// putRun stores r and its record in the index of every run (engine/run).
func putRun(tx *bolt.Tx, r Run) error {
	if err := runCodec.Put(tx.Bucket(storage.BucketGoalRuns), storage.Key(r.ID), r); err != nil {
		return err
	}
	return run.Put(tx, run.Record{Kind: run.KindGoal, ID: r.ID, Status: r.Status.Run(), Title: r.Goal, Reason: r.Reason,
		Created: r.CreatedAt, Updated: r.UpdatedAt})
}
