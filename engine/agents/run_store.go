package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/secrets"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

// ErrRunNotFound: no run has this id.
var ErrRunNotFound = errors.New("run not found")

// RunStore keeps runs and their tool traces (buckets runs and traces; their
// layout is in storage/doc.go: a trace's key starts with its run's, so a
// prefix scan lists one run's traces in order).
type RunStore struct {
	db *storage.DB
}

// NewRunStore returns a RunStore over db.
func NewRunStore(db *storage.DB) *RunStore { return &RunStore{db: db} }

var (
	runCodec   = storage.Codec[Run]{Version: 1}
	traceCodec = storage.Codec[Trace]{Version: 1}
)

// Create stores a new run and assigns its id.
func (s *RunStore) Create(ctx context.Context, r Run) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketRuns)
		if b == nil {
			return fmt.Errorf("bucket %s missing", storage.BucketRuns)
		}
		id, err := storage.NextID(b)
		if err != nil {
			return err
		}
		r.ID = id
		return runCodec.Put(b, storage.Key(id), r)
	})
	if err != nil {
		return Run{}, fmt.Errorf("create run: %w", err)
	}
	return r, nil
}

// Save overwrites a run (by its id). It does not take a context: a
// finished run is recorded even when the caller's context has ended.
func (s *RunStore) Save(r Run) error {
	if r.ID == 0 {
		return errors.New("save run: no id")
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		return runCodec.Put(tx.Bucket(storage.BucketRuns), storage.Key(r.ID), r)
	})
	if err != nil {
		return fmt.Errorf("save run %d: %w", r.ID, err)
	}
	return nil
}

// Get returns one run, or an error wrapping ErrRunNotFound.
func (s *RunStore) Get(ctx context.Context, id uint64) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	var r Run
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		r, err = runCodec.Get(tx.Bucket(storage.BucketRuns), storage.Key(id))
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return Run{}, fmt.Errorf("run %d: %w", id, ErrRunNotFound)
	}
	if err != nil {
		return Run{}, fmt.Errorf("read run %d: %w", id, err)
	}
	return r, nil
}

// RunFilter narrows List.
type RunFilter struct {
	Agent  string    // "" keeps all (case-insensitive match otherwise)
	Status RunStatus // "" keeps all
	Limit  int       // 0: no cap
}

// List returns runs newest first.
func (s *RunStore) List(ctx context.Context, f RunFilter) ([]Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Run{}
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketRuns)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			r, err := runCodec.Unmarshal(v)
			if err != nil {
				return fmt.Errorf("run %d: %w", storage.ParseKey(k), err)
			}
			if (f.Agent != "" && !equalFold(r.Agent, f.Agent)) || (f.Status != "" && r.Status != f.Status) {
				continue
			}
			out = append(out, r)
			if f.Limit > 0 && len(out) == f.Limit {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// AddTrace records one tool invocation and assigns its id. What is stored
// is redacted (secrets.Redact): the output, the arguments (a file written,
// a command run) and the commands of the evidence; a key a tool read is
// never kept in the database. The trace returned is the caller's, with its
// id: the run goes on with what the tool really did.
func (s *RunStore) AddTrace(t Trace) (Trace, error) {
	stored := redactTrace(t)
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketTraces)
		if b == nil {
			return fmt.Errorf("bucket %s missing", storage.BucketTraces)
		}
		id, err := storage.NextID(b)
		if err != nil {
			return err
		}
		t.ID, stored.ID = id, id
		return traceCodec.Put(b, traceKey(t.RunID, id), stored)
	})
	if err != nil {
		return Trace{}, fmt.Errorf("record trace: %w", err)
	}
	return t, nil
}

// Traces lists a run's traces in order.
func (s *RunStore) Traces(ctx context.Context, runID uint64) ([]Trace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Trace{}
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketTraces)
		if b == nil {
			return nil
		}
		prefix := storage.Key(runID)
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			t, err := traceCodec.Unmarshal(v)
			if err != nil {
				return fmt.Errorf("trace %x: %w", k, err)
			}
			out = append(out, t)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list traces of run %d: %w", runID, err)
	}
	return out, nil
}

func traceKey(runID, id uint64) []byte {
	return append(storage.Key(runID), storage.Key(id)...)
}

func equalFold(a, b string) bool { return len(a) == len(b) && bytes.EqualFold([]byte(a), []byte(b)) }

// redactTrace is the copy of t that is stored.
func redactTrace(t Trace) Trace {
	t.Output = secrets.Redact(t.Output)
	if len(t.Args) > 0 {
		t.Args = json.RawMessage(secrets.RedactJSON(t.Args))
	}
	if len(t.Evidence) > 0 {
		ev := make([]tools.Evidence, len(t.Evidence))
		copy(ev, t.Evidence)
		for i := range ev {
			ev[i].Command = secrets.Redact(ev[i].Command)
		}
		t.Evidence = ev
	}
	return t
}
