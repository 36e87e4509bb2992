package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nova-dev/nova/engine/goal"
)

// GoalVerbs are the verbs of goal runs (`nova run "GOAL"`).
type GoalVerbs interface {
	// CreateGoalRun stores a new goal run and its build (nothing runs until
	// RunGoal); the lead must be on the team.
	CreateGoalRun(ctx context.Context, text string, o GoalRunOptions) (goal.Run, error)
	// RunGoal runs (or resumes) a goal run to its end (blocking): the lead
	// decides turn by turn, delegations run as tasks of the run's build.
	// Progress: TopicGoal events with its id (and the build's and agents'
	// events, which carry it too). Canceling ctx stops it, interrupted and
	// resumable. A completed run is returned as it is.
	RunGoal(ctx context.Context, id uint64, o RunGoalOptions) (goal.Run, error)
	// ListGoalRuns lists goal runs, newest first.
	//rpc:idempotent
	ListGoalRuns(ctx context.Context) ([]goal.Run, error)
	// GetGoalRun returns a goal run with its turns, board and handoffs.
	//rpc:idempotent
	GetGoalRun(ctx context.Context, id uint64) (goal.Detail, error)
	// AnswerGoalRun answers the lead's question (EventGoalAsking). It
	// reports whether the run waits here and goes on at once; otherwise
	// RunGoal resumes it. goal.ErrNotAsking when the lead asked nothing.
	AnswerGoalRun(ctx context.Context, id uint64, text string) (resumed bool, err error)
	// CancelGoalRun stops a goal run running in the owning process now
	// (resumable).
	CancelGoalRun(ctx context.Context, id uint64) error
	// RunningGoalRuns lists the goal runs running in the owning process.
	//rpc:idempotent
	RunningGoalRuns(ctx context.Context) ([]uint64, error)
}

// goalArea implements GoalVerbs over the workspace's services.
type goalArea struct{ *core }

var _ GoalVerbs = goalArea{}

// CreateGoalRun implements GoalVerbs.
func (l goalArea) CreateGoalRun(ctx context.Context, g string, o GoalRunOptions) (goal.Run, error) {
	if l.db.ReadOnly() {
		return goal.Run{}, errors.New("the workspace is open read-only")
	}
	return l.Goals().Create(ctx, g, goal.CreateOptions{Lead: cmp.Or(o.Lead, l.Config().Orchestrator.Lead),
		Limits: goal.Limits{MaxTurns: o.MaxTurns, MaxTokens: o.MaxTokens, MaxDuration: o.MaxDuration}, Autonomy: o.Autonomy})
}

// RunGoal implements GoalVerbs: the run goes on on the caller's goroutine
// until the lead completes it, a limit stops it, the lead asks the user
// (unattended) or ctx is canceled (interrupted, resumable; the running
// delegation's staged work stays staged).
func (l goalArea) RunGoal(ctx context.Context, id uint64, o RunGoalOptions) (goal.Run, error) {
	eng := l.Goals()
	if o.MaxTurns > 0 || o.MaxTokens > 0 || o.MaxDuration > 0 {
		if _, err := eng.Raise(ctx, id, goal.Limits{MaxTurns: o.MaxTurns, MaxTokens: o.MaxTokens, MaxDuration: o.MaxDuration}); err != nil {
			return goal.Run{}, err
		}
	}
	r, err := eng.Run(ctx, id, goal.RunOptions{Attended: o.Attended, Approvals: string(o.Approvals)})
	if errors.Is(err, goal.ErrActive) {
		return r, fmt.Errorf("goal run %d is already running: %w", id, err)
	}
	return r, err
}

// ListGoalRuns implements GoalVerbs.
func (l goalArea) ListGoalRuns(ctx context.Context) ([]goal.Run, error) {
	return l.Goals().List(ctx)
}

// GetGoalRun implements GoalVerbs.
func (l goalArea) GetGoalRun(ctx context.Context, id uint64) (goal.Detail, error) {
	return l.Goals().Detail(ctx, id)
}

// AnswerGoalRun implements GoalVerbs.
func (l goalArea) AnswerGoalRun(ctx context.Context, id uint64, text string) (bool, error) {
	return l.Goals().Answer(ctx, id, text)
}

// CancelGoalRun implements GoalVerbs.
func (l goalArea) CancelGoalRun(ctx context.Context, id uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.Goals().Cancel(id)
}

// RunningGoalRuns implements GoalVerbs.
func (l goalArea) RunningGoalRuns(ctx context.Context) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.Goals().Running(), nil
}

// GoalRunOptions configure CreateGoalRun.
type GoalRunOptions struct {
	// Lead is the deciding agent ("" = orchestrator.lead, SUN).
	Lead string `json:"lead,omitempty"`
	// MaxTurns, MaxTokens and MaxDuration override the configured limits
	// where non-zero.
	MaxTurns    int           `json:"maxTurns,omitempty"`
	MaxTokens   int           `json:"maxTokens,omitempty"`
	MaxDuration time.Duration `json:"maxDuration,omitempty"`
	// Autonomy overrides the configured level for the delegations (nil =
	// config).
	Autonomy *int `json:"autonomy,omitempty"`
}

// RunGoalOptions configure RunGoal.
type RunGoalOptions struct {
	// Approvals answers the commands the delegated agents want to run.
	Approvals ApprovalPolicy `json:"approvals,omitempty"`
	// Attended: someone can answer (the TUI). The run then waits for an
	// unreachable model server until it is stopped and for the answer to
	// the lead's question; unattended (the CLI) it gives up after
	// ollama.waitLimit and ends paused on a question.
	Attended bool `json:"attended,omitempty"`
	// MaxTurns, MaxTokens and MaxDuration raise the run's limits for this
	// session and after (resume a run a limit stopped); 0 keeps them.
	MaxTurns    int           `json:"maxTurns,omitempty"`
	MaxTokens   int           `json:"maxTokens,omitempty"`
	MaxDuration time.Duration `json:"maxDuration,omitempty"`
}
