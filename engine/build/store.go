package build

import (
	"bytes"
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
	buildCodec = storage.Codec[Build]{Version: 1}
	taskCodec  = storage.Codec[Task]{Version: 1}
)

// Store persists builds (bucket builds, key = build id) and their tasks
// (bucket build_tasks, key = build id + task ordinal, both big-endian).
type Store struct {
	db *storage.DB
}

// NewStore wraps the database.
func NewStore(db *storage.DB) *Store { return &Store{db: db} }

func taskKey(buildID uint64, ordinal int) []byte {
	return append(storage.Key(buildID), storage.Key(uint64(ordinal))...)
}

// create stores a new build and its tasks in one transaction.
func (s *Store) create(ctx context.Context, b *Build, tasks []Task) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		bb := tx.Bucket(storage.BucketBuilds)
		id, err := storage.NextID(bb)
		if err != nil {
			return err
		}
		b.ID = id
		tb := tx.Bucket(storage.BucketBuildTasks)
		for i := range tasks {
			tasks[i].BuildID = id
			if err := taskCodec.Put(tb, taskKey(id, tasks[i].Ordinal), tasks[i]); err != nil {
				return err
			}
		}
		b.Counts = countOf(tasks)
		return putBuild(tx, *b)
	})
}

// putBuild stores b and its record in the index of every run (engine/run).
func putBuild(tx *bolt.Tx, b Build) error {
	if err := buildCodec.Put(tx.Bucket(storage.BucketBuilds), storage.Key(b.ID), b); err != nil {
		return err
	}
	rec := run.Record{Kind: run.KindBuild, ID: b.ID, Status: b.Status, Title: b.Name, Reason: b.Reason,
		Created: b.CreatedAt, Updated: b.UpdatedAt}
	if b.GoalRunID != 0 {
		rec.Parent = run.Key{Kind: run.KindGoal, ID: b.GoalRunID}
	}
	return run.Put(tx, rec)
}

func countOf(tasks []Task) map[TaskStatus]int {
	m := map[TaskStatus]int{}
	for _, t := range tasks {
		m[t.Status]++
	}
	return m
}

// saveTask commits a task and refreshes its build's counts and tokens in
// one transaction; mut may change the build too.
func (s *Store) saveTask(t Task, mut func(b *Build)) (Build, error) {
	var out Build
	err := s.db.Update(func(tx *bolt.Tx) error {
		tb := tx.Bucket(storage.BucketBuildTasks)
		key := taskKey(t.BuildID, t.Ordinal)
		old, err := taskCodec.Get(tb, key)
		if err != nil {
			return fmt.Errorf("build %d task %s: %w", t.BuildID, t.ID, err)
		}
		if err := taskCodec.Put(tb, key, t); err != nil {
			return err
		}
		bb := tx.Bucket(storage.BucketBuilds)
		b, err := buildCodec.Get(bb, storage.Key(t.BuildID))
		if err != nil {
			return err
		}
		// Counts move with the one task (no re-read of every task).
		if b.Counts == nil {
			b.Counts = map[TaskStatus]int{}
		}
		if old.Status != t.Status {
			b.Counts[old.Status]--
			if b.Counts[old.Status] <= 0 {
				delete(b.Counts, old.Status)
			}
			b.Counts[t.Status]++
		}
		if mut != nil {
			mut(&b)
		}
		b.UpdatedAt = time.Now()
		out = b
		return putBuild(tx, b)
	})
	return out, err
}

// updateBuild changes a build in one transaction.
func (s *Store) updateBuild(id uint64, fn func(b *Build, tasks []Task) ([]Task, error)) (Build, error) {
	var out Build
	err := s.db.Update(func(tx *bolt.Tx) error {
		bb := tx.Bucket(storage.BucketBuilds)
		b, err := buildCodec.Get(bb, storage.Key(id))
		if errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("%w: %d", ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		tasks, err := tasksTx(tx, id)
		if err != nil {
			return err
		}
		changed, err := fn(&b, tasks)
		if err != nil {
			return err
		}
		tb := tx.Bucket(storage.BucketBuildTasks)
		for _, t := range changed {
			if err := taskCodec.Put(tb, taskKey(id, t.Ordinal), t); err != nil {
				return err
			}
		}
		if len(changed) > 0 {
			tasks, err = tasksTx(tx, id)
			if err != nil {
				return err
			}
		}
		b.Counts = countOf(tasks)
		b.UpdatedAt = time.Now()
		out = b
		return putBuild(tx, b)
	})
	return out, err
}

func tasksTx(tx *bolt.Tx, id uint64) ([]Task, error) {
	prefix := storage.Key(id)
	c := tx.Bucket(storage.BucketBuildTasks).Cursor()
	var out []Task
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		t, err := taskCodec.Unmarshal(v)
		if err != nil {
			return nil, fmt.Errorf("build %d task %x: %w", id, k, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// Get returns a build.
func (s *Store) Get(ctx context.Context, id uint64) (Build, error) {
	if err := ctx.Err(); err != nil {
		return Build{}, err
	}
	var b Build
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(storage.BucketBuilds).Get(storage.Key(id))
		if v == nil {
			return fmt.Errorf("%w: %d", ErrNotFound, id)
		}
		var err error
		b, err = buildCodec.Unmarshal(v)
		return err
	})
	return b, err
}

// Tasks returns a build's tasks in file order.
func (s *Store) Tasks(ctx context.Context, id uint64) ([]Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Task
	err := s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(storage.BucketBuilds).Get(storage.Key(id)) == nil {
			return fmt.Errorf("%w: %d", ErrNotFound, id)
		}
		var err error
		out, err = tasksTx(tx, id)
		return err
	})
	return out, err
}

// List returns every build, newest first, without their PRDs.
func (s *Store) List(ctx context.Context) ([]Build, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Build{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(storage.BucketBuilds).ForEach(func(_, v []byte) error {
			b, err := buildCodec.Unmarshal(v)
			if err != nil {
				return err
			}
			out = append(out, b.Summary())
			return nil
		})
	})
	slices.Reverse(out)
	return out, err
}
