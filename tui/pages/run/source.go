package run

import (
	"context"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/workspace"
)

// Source is what the Run page needs from the engine: a subset of
// engine.Workspace's verbs. The page calls it only from tea.Cmds (Config
// does no I/O).
type Source interface {
	Config() workspace.Config
	CreateGoalRun(ctx context.Context, text string, o engine.GoalRunOptions) (goal.Run, error)
	// RunGoal blocks until the run ends, pauses or is canceled (the page
	// runs it in a tea.Cmd); its progress arrives as events.
	RunGoal(ctx context.Context, id uint64, o engine.RunGoalOptions) (goal.Run, error)
	ListGoalRuns(ctx context.Context) ([]goal.Run, error)
	GetGoalRun(ctx context.Context, id uint64) (goal.Detail, error)
	AnswerGoalRun(ctx context.Context, id uint64, text string) (resumed bool, err error)
	CancelGoalRun(ctx context.Context, id uint64) error
	ReadArtifact(ctx context.Context, id uint64) (board.Artifact, error)
	ResolveBlocker(ctx context.Context, key, id, note string) (board.Blocker, error)
	AnswerApproval(ctx context.Context, id string, approve bool) error
}
