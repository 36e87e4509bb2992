package rpcdemo

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/events"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/storage"
)

var (
	bucketItems = []byte("rpcdemo_items")
	bucketSteps = []byte("rpcdemo_steps")
)

// Store implements Demo over a nova database.
type Store struct {
	db  *storage.DB
	bus *events.Broker[Event]

	// OnFill, when set, is called inside Fill's transaction after item i
	// (tests use it to kill a client mid-request).
	OnFill func(i int)
	// OnStep, when set, is called after step i is committed.
	OnStep func(i int)

	mu sync.Mutex
}

var _ Demo = (*Store)(nil)

// Open opens (creating) the database at path, waiting at most lockTimeout
// for another process's lock (storage.ErrInUse after that).
func Open(path string, lockTimeout time.Duration) (*Store, error) {
	db, err := storage.Open(path, storage.Options{LockTimeout: lockTimeout, NoSync: true})
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketItems, bucketSteps} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return &Store{db: db, bus: events.New[Event](nil)}, nil
}

// Close implements Demo.
func (s *Store) Close() error {
	s.bus.Shutdown()
	return s.db.Close()
}

// Ping implements Demo.
func (s *Store) Ping(ctx context.Context) error { return ctx.Err() }

// Add implements Demo.
func (s *Store) Add(_ context.Context, a, b int) (int, error) { return a + b, nil }

// Join implements Demo.
func (s *Store) Join(_ context.Context, parts []string, sep string) (string, error) {
	return strings.Join(parts, sep), nil
}

func key(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// Put implements Demo.
func (s *Store) Put(ctx context.Context, it Item) (Item, error) {
	if err := ctx.Err(); err != nil {
		return Item{}, err
	}
	if strings.TrimSpace(it.Name) == "" {
		return Item{}, &ValidationError{Field: "name", Problems: []string{"empty"}, Err: ErrInvalid}
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketItems)
		if it.ID == 0 {
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			it.ID = seq
		}
		if it.At.IsZero() {
			it.At = time.Now().UTC().Truncate(time.Millisecond)
		}
		data, err := json.Marshal(it)
		if err != nil {
			return err
		}
		return b.Put(key(it.ID), data)
	})
	if err != nil {
		return Item{}, fmt.Errorf("put %q: %w", it.Name, err)
	}
	s.bus.Publish(Event{Type: "changed", Topic: "items", ID: it.ID, Text: it.Name})
	return it, nil
}

// Get implements Demo.
func (s *Store) Get(ctx context.Context, id uint64) (Item, error) {
	var it Item
	err := s.db.View(func(tx *bolt.Tx) error {
		data := tx.Bucket(bucketItems).Get(key(id))
		if data == nil {
			return fmt.Errorf("item %d: %w", id, ErrNotFound)
		}
		return json.Unmarshal(data, &it)
	})
	if err == nil {
		err = ctx.Err()
	}
	return it, err
}

// List implements Demo.
func (s *Store) List(ctx context.Context, limit int) ([]Item, error) {
	var out []Item
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketItems).ForEach(func(_, v []byte) error {
			if limit > 0 && len(out) >= limit {
				return nil
			}
			var it Item
			if err := json.Unmarshal(v, &it); err != nil {
				return err
			}
			out = append(out, it)
			return nil
		})
	})
	if err == nil {
		err = ctx.Err()
	}
	return out, err
}

// Count implements Demo.
func (s *Store) Count(_ context.Context) (int, error) {
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketItems).Stats().KeyN
		return nil
	})
	return n, err
}

// Tags implements Demo.
func (s *Store) Tags(ctx context.Context) (map[string]int, error) {
	items, err := s.List(ctx, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, it := range items {
		for _, t := range it.Tags {
			out[t]++
		}
	}
	return out, nil
}

// Pair implements Demo.
func (s *Store) Pair(ctx context.Context, id uint64) (Item, []string, error) {
	it, err := s.Get(ctx, id)
	if err != nil {
		return Item{}, nil, err
	}
	return it, it.Tags, nil
}

// Find implements Demo.
func (s *Store) Find(ctx context.Context, q *Query) (*Item, error) {
	if q == nil {
		return nil, nil
	}
	items, err := s.List(ctx, 0)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if it.Name == q.Name || (q.Prefix && strings.HasPrefix(it.Name, q.Name)) {
			return &it, nil
		}
	}
	return nil, nil
}

// Sum implements Demo.
func (s *Store) Sum(_ context.Context, xs ...int) (int, error) {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t, nil
}

// Version implements Demo.
func (s *Store) Version() string { return "demo 1" }

// Fail implements Demo.
func (s *Store) Fail(ctx context.Context, kind string) error {
	switch kind {
	case "notFound":
		return fmt.Errorf("look up item 42: %w", ErrNotFound)
	case "typed":
		return fmt.Errorf("save: %w", &ValidationError{Field: "name", Problems: []string{"empty", "too short"}, Err: ErrInvalid})
	case "kinded":
		return fmt.Errorf("reach backend: %w", ErrUnreachable)
	case "canceled":
		return fmt.Errorf("stop: %w", context.Canceled)
	case "inUse":
		return fmt.Errorf("open: %w", storage.ErrInUse)
	case "workFailed":
		return failure.New(failure.WorkFailed, fmt.Errorf("gate failed"))
	case "panic":
		panic("demo panic")
	case "":
		return ctx.Err()
	}
	return fmt.Errorf("plain failure %q", kind)
}

// Block implements Demo.
func (s *Store) Block(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

// Fill implements Demo.
func (s *Store) Fill(ctx context.Context, n int, pause time.Duration) (int, error) {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketItems)
		for i := range n {
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			data, err := json.Marshal(Item{ID: seq, Name: fmt.Sprintf("fill %d", i)})
			if err != nil {
				return err
			}
			if err := b.Put(key(seq), data); err != nil {
				return err
			}
			if s.OnFill != nil {
				s.OnFill(i)
			}
			if err := sleep(ctx, pause); err != nil {
				return err // rolls the whole transaction back
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("fill: %w", err)
	}
	s.bus.Publish(Event{Type: "changed", Topic: "items", Text: fmt.Sprintf("filled %d", n)})
	return n, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Steps implements Demo.
func (s *Store) Steps(ctx context.Context, total int, pause time.Duration) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		done := 0
		if err := s.db.View(func(tx *bolt.Tx) error {
			done = tx.Bucket(bucketSteps).Stats().KeyN
			return nil
		}); err != nil {
			return done, err
		}
		if done >= total {
			return done, nil
		}
		if err := sleep(ctx, pause); err != nil {
			return done, err
		}
		next := done + 1
		if err := s.db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketSteps).Put(key(uint64(next)), []byte(time.Now().UTC().Format(time.RFC3339Nano)))
		}); err != nil {
			return done, err
		}
		s.bus.Publish(Event{Type: "step", Topic: "steps", ID: uint64(next)})
		if s.OnStep != nil {
			s.OnStep(next)
		}
	}
}

// StepLog implements Demo.
func (s *Store) StepLog(_ context.Context) ([]int, error) {
	var out []int
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSteps).ForEach(func(k, _ []byte) error {
			out = append(out, int(binary.BigEndian.Uint64(k)))
			return nil
		})
	})
	sort.Ints(out)
	return out, err
}

// Subscribe implements Demo.
func (s *Store) Subscribe(ctx context.Context) <-chan Event { return s.bus.Subscribe(ctx) }

// Watch implements Demo.
func (s *Store) Watch(ctx context.Context, topic string, n int) (<-chan Event, error) {
	if n < 0 {
		return nil, fmt.Errorf("watch %d events: %w", n, ErrInvalid)
	}
	in := s.bus.Subscribe(ctx)
	out := make(chan Event)
	go func() {
		defer close(out)
		seen := 0
		for seen < n {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-in:
				if !ok {
					return
				}
				if ev.Topic != topic {
					continue
				}
				seen++
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// Callback implements Demo.
func (s *Store) Callback(fn func()) error {
	fn()
	return nil
}

// Publish sends an event to subscribers (tests).
func (s *Store) Publish(ev Event) { s.bus.Publish(ev) }

// Subscribers counts live subscriptions (tests).
func (s *Store) Subscribers() int { return s.bus.Subscribers() }
