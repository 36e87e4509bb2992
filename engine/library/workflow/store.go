package workflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/storage"
)

// RunStatus is the state of a workflow run.
type RunStatus string

// Run states. A paused or failed run is resumable; a run stored as
// running but not active in this process was interrupted (resumable too).
const (
	RunRunning RunStatus = "running"
	RunPaused  RunStatus = "paused"
	RunDone    RunStatus = "done"
	RunFailed  RunStatus = "failed"
)

// Run is s in the status machine every kind of run shares (engine/run):
// the same words.
func (s RunStatus) Run() run.Status { return run.Status(s) }

// StepStatus is the state of one step of a run.
type StepStatus string

// Step states.
const (
	StepPending StepStatus = "pending"
	StepRunning StepStatus = "running"
	StepDone    StepStatus = "done"
	StepFailed  StepStatus = "failed"
	StepSkipped StepStatus = "skipped"
)

// Run is one run of a workflow (bucket workflow_runs, its own id space).
type Run struct {
	ID       uint64    `json:"id"`
	Workflow string    `json:"workflow"`
	Name     string    `json:"name"`
	Status   RunStatus `json:"status"`
	// Reason explains paused and failed runs.
	Reason string `json:"reason,omitempty"`
	// Params are the resolved parameters.
	Params map[string]any `json:"params"`
	// Request is the text that triggered the run, when a match started it.
	Request  string `json:"request,omitempty"`
	Autonomy *int   `json:"autonomy,omitempty"`
	// Definition is the workflow as it was when the run was created
	// (a resume needs no file).
	Definition Workflow    `json:"definition"`
	Steps      []StepState `json:"steps"`
	Resumes    int         `json:"resumes,omitempty"`
	CreatedAt  time.Time   `json:"createdAt"`
	UpdatedAt  time.Time   `json:"updatedAt"`
	FinishedAt time.Time   `json:"finishedAt,omitzero"`
	// Active is true while this process runs it (not stored).
	Active bool `json:"active"`
}

// Counts returns how many steps have finished (done, failed or skipped)
// and how many there are.
func (r Run) Counts() (finished, total int) {
	for _, s := range r.Steps {
		if s.Status == StepDone || s.Status == StepFailed || s.Status == StepSkipped {
			finished++
		}
	}
	return finished, len(r.Steps)
}

// StepState is one step of a run.
type StepState struct {
	ID     string     `json:"id"`
	Title  string     `json:"title"`
	Kind   string     `json:"kind"` // "agent" or "skill"
	Agent  string     `json:"agent"`
	Skill  string     `json:"skill,omitempty"`
	Status StepStatus `json:"status"`
	// Reason says why the step was skipped or failed.
	Reason string `json:"reason,omitempty"`
	// Task is the rendered task (agent steps) or inputs (skill steps).
	Task string `json:"task,omitempty"`
	// BuildID is the step's one-task build (agent steps); AgentRunID the
	// agent run that recorded a skill step's traces.
	BuildID     uint64        `json:"buildId,omitempty"`
	AgentRunID  uint64        `json:"agentRunId,omitempty"`
	Output      string        `json:"output,omitempty"`
	ChangesetID uint64        `json:"changesetId,omitempty"`
	Applied     bool          `json:"applied,omitempty"`
	Tokens      int           `json:"tokens,omitempty"`
	Duration    time.Duration `json:"duration,omitempty"`
	// Attempts counts the times the step started.
	Attempts          int       `json:"attempts,omitempty"`
	ContinueOnFailure bool      `json:"continueOnFailure,omitempty"`
	StartedAt         time.Time `json:"startedAt,omitzero"`
	FinishedAt        time.Time `json:"finishedAt,omitzero"`
}

// Store keeps workflow runs.
type Store struct{ db *storage.DB }

// NewStore returns a store over db.
func NewStore(db *storage.DB) *Store { return &Store{db: db} }

var runCodec = storage.Codec[Run]{Version: 1}

// ErrRunNotFound: no workflow run has this id.
var ErrRunNotFound = errors.New("workflow run not found")

func (s *Store) create(ctx context.Context, r *Run) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketWorkflowRuns)
		if b == nil {
			return fmt.Errorf("bucket %s missing (run a nova command that writes to migrate the database)", storage.BucketWorkflowRuns)
		}
		id, err := storage.NextID(b)
		if err != nil {
			return err
		}
		r.ID = id
		return putRun(tx, *r)
	})
}

// update applies fn to the stored run and saves it. It does not take a
// context: a step's outcome is recorded even when the caller's context
// has ended.
func (s *Store) update(id uint64, fn func(r *Run) error) (Run, error) {
	var out Run
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketWorkflowRuns)
		r, err := runCodec.Get(b, storage.Key(id))
		if errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("%w: %d", ErrRunNotFound, id)
		}
		if err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
		r.UpdatedAt = time.Now().UTC()
		out = r
		return putRun(tx, r)
	})
	return out, err
}

// putRun stores r and its record in the index of every run (engine/run);
// its steps' builds work for it.
func putRun(tx *bolt.Tx, r Run) error {
	if err := runCodec.Put(tx.Bucket(storage.BucketWorkflowRuns), storage.Key(r.ID), r); err != nil {
		return err
	}
	k := key(r.ID)
	if err := run.Put(tx, run.Record{Kind: k.Kind, ID: r.ID, Status: r.Status.Run(), Title: cmp.Or(r.Name, r.Workflow),
		Reason: r.Reason, Created: r.CreatedAt, Updated: r.UpdatedAt}); err != nil {
		return err
	}
	for _, s := range r.Steps {
		if s.BuildID != 0 {
			if err := run.Adopt(tx, run.Key{Kind: run.KindBuild, ID: s.BuildID}, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// Get returns a run.
func (s *Store) Get(ctx context.Context, id uint64) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	var r Run
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		r, err = runCodec.Get(tx.Bucket(storage.BucketWorkflowRuns), storage.Key(id))
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return Run{}, fmt.Errorf("%w: %d (see `nova workflow runs`)", ErrRunNotFound, id)
	}
	if err != nil {
		return Run{}, fmt.Errorf("read workflow run %d: %w", id, err)
	}
	return r, nil
}

// List returns runs newest first (limit 0: all).
func (s *Store) List(ctx context.Context, limit int) ([]Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Run{}
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketWorkflowRuns)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			r, err := runCodec.Unmarshal(v)
			if err != nil {
				return fmt.Errorf("workflow run %d: %w", storage.ParseKey(k), err)
			}
			out = append(out, r)
			if limit > 0 && len(out) == limit {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list workflow runs: %w", err)
	}
	return out, nil
}
