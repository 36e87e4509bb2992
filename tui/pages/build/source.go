package build

import (
	"context"
	"time"
)

// Source is what the Build page needs from the engine. The page talks to it
// only from tea.Cmds. sourceFor adapts an engine.Workspace; tests may pass
// their own (NewWithSource).
type Source interface {
	// List returns the builds, newest first.
	List(ctx context.Context) ([]Summary, error)
	// Get returns one build with its tasks in plan order.
	Get(ctx context.Context, id string) (Detail, error)
	// Start validates and starts the PRD at path; it returns the build id.
	Start(ctx context.Context, path string) (string, error)
	// Pause, Resume and Cancel control a running build.
	Pause(ctx context.Context, id string) error
	Resume(ctx context.Context, id string) error
	Cancel(ctx context.Context, id string) error
}

// Build and task states as the page shows them.
const (
	StatusPending  = "pending"
	StatusReady    = "ready"
	StatusRunning  = "running"
	StatusDone     = "done"
	StatusFailed   = "failed"
	StatusBlocked  = "blocked"
	StatusWaiting  = "waiting" // waiting for approval
	StatusPaused   = "paused"
	StatusCanceled = "canceled"
)

// Summary is one build in the builds list.
type Summary struct {
	ID       string
	Name     string // the PRD's name
	PRD      string // the PRD's path
	Status   string
	Started  time.Time
	Finished time.Time
	Done     int
	Total    int
	Reason   string // why a build paused, stopped or failed
	Tokens   int
	Active   bool // this process runs it
}

// Detail is a build with its tasks.
type Detail struct {
	Summary
	Tasks []Task
}

// Gate is one gate result of a task.
type Gate struct {
	Name   string
	Passed bool
	Score  float64
	Detail string
}

// Task is one build task as the page shows it.
type Task struct {
	ID, Title, Agent string
	Description      string
	Phase            int
	Status           string
	Deps             []string
	Attempts         int
	Started          time.Time
	Finished         time.Time
	Elapsed          time.Duration // stored duration of the finished attempts
	Rehearsed        bool
	Tokens           int
	GateScore        float64
	Gates            []Gate
	History          []Attempt // finished attempts, oldest first
	Reason           string
	Output           string
	ChangesetID      uint64
	// Provenance: what went into the task's prompt.
	VaultNodes []VaultRef
	Rules      []RuleRef
}

// Attempt is one finished attempt of a task (retries show here).
type Attempt struct {
	N        int
	Passed   bool
	Score    float64
	Reason   string
	Tokens   int
	Duration time.Duration
}

// VaultRef is one injected vault node.
type VaultRef struct {
	ID      uint64
	Type    string
	Content string
}

// RuleRef is one injected playbook rule.
type RuleRef struct {
	ID      string
	Agent   string
	Content string
}

// Duration is how long the task ran (until now when it still runs).
func (t Task) Duration(now time.Time) time.Duration {
	switch {
	case t.Status != StatusRunning && t.Elapsed > 0:
		return t.Elapsed
	case t.Started.IsZero():
		return 0
	case !t.Finished.IsZero():
		return t.Finished.Sub(t.Started)
	}
	return now.Sub(t.Started)
}

// Live reports whether a build still runs (or is paused).
func (s Summary) Live() bool {
	switch s.Status {
	case StatusRunning, StatusPaused, StatusPending, StatusWaiting:
		return true
	}
	return false
}
