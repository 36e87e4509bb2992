package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nova-dev/nova/engine/goal"
)

// Goal-run verbs of the Workspace facade (engine/goal.go wires the engine).

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

// CreateGoalRun implements Workspace.
func (l *Local) CreateGoalRun(ctx context.Context, g string, o GoalRunOptions) (goal.Run, error) {
	if l.db.ReadOnly() {
		return goal.Run{}, errors.New("the workspace is open read-only")
	}
	return l.Goals().Create(ctx, g, goal.CreateOptions{Lead: cmp.Or(o.Lead, l.Config().Orchestrator.Lead),
		Limits: goal.Limits{MaxTurns: o.MaxTurns, MaxTokens: o.MaxTokens, MaxDuration: o.MaxDuration}, Autonomy: o.Autonomy})
}

// RunGoal implements Workspace: the run goes on on the caller's goroutine
// until the lead completes it, a limit stops it, the lead asks the user
// (unattended) or ctx is canceled (interrupted, resumable; the running
// delegation's staged work stays staged).
func (l *Local) RunGoal(ctx context.Context, id uint64, o RunGoalOptions) (goal.Run, error) {
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

// ListGoalRuns implements Workspace.
func (l *Local) ListGoalRuns(ctx context.Context) ([]goal.Run, error) {
	return l.Goals().List(ctx)
}

// GetGoalRun implements Workspace.
func (l *Local) GetGoalRun(ctx context.Context, id uint64) (goal.Detail, error) {
	return l.Goals().Detail(ctx, id)
}

// AnswerGoalRun implements Workspace.
func (l *Local) AnswerGoalRun(ctx context.Context, id uint64, text string) (bool, error) {
	return l.Goals().Answer(ctx, id, text)
}

// CancelGoalRun implements Workspace.
func (l *Local) CancelGoalRun(ctx context.Context, id uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.Goals().Cancel(id)
}

// RunningGoalRuns implements Workspace.
func (l *Local) RunningGoalRuns(ctx context.Context) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.Goals().Running(), nil
}
