package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/storage"
)

// Record is one run in the index of every run of every kind (bucket
// run_index/<kind>, key = the run's id). Each engine writes it in the
// transaction that changes the run's own record (Put); what a run is made
// of (tasks, turns, steps) stays in its engine's buckets.
type Record struct {
	Kind   Kind   `json:"kind"`
	ID     uint64 `json:"id"`
	Status Status `json:"status"`
	// Title names the run: a build's name, a goal run's goal, a workflow
	// run's name (cut to storage.RunIndexTitleMax bytes).
	Title   string    `json:"title"`
	Reason  string    `json:"reason,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Parent is the run this one works for (a goal run's build, a workflow
	// step's build): its parent resumes it, so it is never resumed alone.
	Parent Key `json:"parent,omitzero"`
}

// Key returns the record's key.
func (r Record) Key() Key { return Key{Kind: r.Kind, ID: r.ID} }

// Seen is the record's status as a caller should show it: as stored while
// the run is active in this process, else as OnOpen makes it (a run stored
// as running that no process runs was interrupted).
func (r Record) Seen(active bool) Status {
	if active {
		return r.Status
	}
	return r.Status.OnOpen()
}

var recordCodec = storage.Codec[Record]{Version: 1}

// ErrNoRecord: the index has no run with this key.
var ErrNoRecord = errors.New("run not in the index")

func kindBucket(tx *bolt.Tx, k Kind) (*bolt.Bucket, error) {
	idx := tx.Bucket(storage.BucketRunIndex)
	if idx == nil {
		return nil, fmt.Errorf("bucket %s: %w", storage.BucketRunIndex, storage.ErrNotFound)
	}
	b := idx.Bucket([]byte(k))
	if b == nil {
		return nil, fmt.Errorf("bucket %s/%s: %w", storage.BucketRunIndex, k, storage.ErrNotFound)
	}
	return b, nil
}

// Put writes rec into the index inside tx. A zero Created keeps the stored
// one, a zero Parent the stored parent (Adopt may have set it); Updated is
// rec's, or now.
func Put(tx *bolt.Tx, rec Record) error {
	b, err := kindBucket(tx, rec.Kind)
	if err != nil {
		return err
	}
	key := storage.Key(rec.ID)
	if old, err := recordCodec.Get(b, key); err == nil {
		if rec.Created.IsZero() {
			rec.Created = old.Created
		}
		if rec.Parent == (Key{}) {
			rec.Parent = old.Parent
		}
	}
	if rec.Updated.IsZero() {
		rec.Updated = time.Now().UTC()
	}
	rec.Title = storage.ClipRunTitle(rec.Title)
	return recordCodec.Put(b, key, rec)
}

// Adopt records inside tx that child works for parent (a workflow step's
// build, known once the step made it). A child not in the index is left
// alone.
func Adopt(tx *bolt.Tx, child, parent Key) error {
	b, err := kindBucket(tx, child.Kind)
	if err != nil {
		return err
	}
	key := storage.Key(child.ID)
	rec, err := recordCodec.Get(b, key)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && rec.Parent == parent) {
		return nil
	}
	if err != nil {
		return err
	}
	rec.Parent = parent
	return recordCodec.Put(b, key, rec)
}

// Index reads the index of every run and changes it on open.
type Index struct {
	db *storage.DB
}

// NewIndex returns the index of db.
func NewIndex(db *storage.DB) *Index { return &Index{db: db} }

// Get returns k's record (ErrNoRecord when the index has none).
func (x *Index) Get(ctx context.Context, k Key) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	var rec Record
	err := x.db.View(func(tx *bolt.Tx) error {
		b, err := kindBucket(tx, k.Kind)
		if err != nil {
			return err
		}
		rec, err = recordCodec.Get(b, storage.Key(k.ID))
		if errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("%s: %w", k, ErrNoRecord)
		}
		return err
	})
	return rec, err
}

// List returns the records of the given kinds (every kind when none is
// given), kind by kind, newest first within a kind.
func (x *Index) List(ctx context.Context, kinds ...Kind) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Record
	err := x.db.View(func(tx *bolt.Tx) error {
		idx := tx.Bucket(storage.BucketRunIndex)
		if idx == nil {
			return fmt.Errorf("bucket %s: %w", storage.BucketRunIndex, storage.ErrNotFound)
		}
		for _, name := range storage.RunIndexKinds {
			if len(kinds) > 0 && !slices.Contains(kinds, Kind(name)) {
				continue
			}
			b := idx.Bucket(name)
			if b == nil {
				continue
			}
			c := b.Cursor()
			for k, v := c.Last(); k != nil; k, v = c.Prev() {
				rec, err := recordCodec.Unmarshal(v)
				if err != nil {
					return fmt.Errorf("run index %s %d: %w", name, storage.ParseKey(k), err)
				}
				out = append(out, rec)
			}
		}
		return nil
	})
	return out, err
}

// Resumable lists the runs to resume, of the given kinds (every kind when
// none is given): those not active in reg whose status, as seen (Seen), can
// be resumed, and that work for no other run (their parent resumes them).
// Goal runs come first, then workflow runs, then builds (a run's own builds
// are its).
func (x *Index) Resumable(ctx context.Context, reg *Registry, kinds ...Kind) ([]Record, error) {
	recs, err := x.List(ctx, kinds...)
	if err != nil {
		return nil, err
	}
	out := recs[:0]
	for _, r := range recs {
		if r.Parent == (Key{}) && !reg.Active(r.Key()) && r.Seen(false).Resumable() {
			out = append(out, r)
		}
	}
	order := map[Kind]int{KindGoal: 0, KindWorkflow: 1, KindBuild: 2, KindChat: 3}
	slices.SortStableFunc(out, func(a, b Record) int { return order[a.Kind] - order[b.Kind] })
	return out, nil
}

// Interrupt is what opening the workspace does to the index: a run stored
// as running or waiting was running when its process died, so it becomes
// what Status.OnOpen says (interrupted). It returns the runs it changed.
// The process calling it must own the workspace (nothing runs yet).
func (x *Index) Interrupt(ctx context.Context) ([]Key, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Most opens find nothing to change: look first, write only then.
	recs, err := x.List(ctx)
	if err != nil {
		return nil, err
	}
	var stale []Record
	for _, rec := range recs {
		if rec.Status.OnOpen() != rec.Status {
			stale = append(stale, rec)
		}
	}
	if len(stale) == 0 {
		return nil, nil
	}
	var changed []Key
	err = x.db.Update(func(tx *bolt.Tx) error {
		now := time.Now().UTC()
		for _, rec := range stale {
			b, err := kindBucket(tx, rec.Kind)
			if err != nil {
				return err
			}
			cur, err := recordCodec.Get(b, storage.Key(rec.ID))
			if err != nil || cur.Status.OnOpen() == cur.Status {
				continue // gone, or changed since the look
			}
			cur.Status, cur.Updated = cur.Status.OnOpen(), now
			cur.Reason = "interrupted: nova stopped while it ran"
			if err := recordCodec.Put(b, storage.Key(cur.ID), cur); err != nil {
				return err
			}
			changed = append(changed, cur.Key())
		}
		return nil
	})
	return changed, err
}
