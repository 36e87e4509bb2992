package library

import (
	"context"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/workflow"
)

// Source is what the Library screen needs from the engine: a subset of
// engine.Workspace's verbs, copied verbatim. The page calls it only inside
// tea.Cmds.
type Source interface {
	// ListAgents names the agents a skill may run as.
	ListAgents(ctx context.Context) (engine.Roster, error)

	ListSkills(ctx context.Context, agent string) (engine.SkillList, error)
	GetSkill(ctx context.Context, name string) (engine.SkillDetail, error)
	RunSkill(ctx context.Context, name string, o engine.SkillRunOptions) (engine.SkillRunResult, error)

	ListWorkflows(ctx context.Context) (engine.WorkflowList, error)
	GetWorkflow(ctx context.Context, id string) (engine.WorkflowDetail, error)
	MatchWorkflows(ctx context.Context, text string) ([]workflow.Match, error)
	CreateWorkflowRun(ctx context.Context, id string, o engine.WorkflowOptions) (workflow.Run, error)
	RunWorkflow(ctx context.Context, runID uint64, o engine.RunWorkflowOptions) (workflow.Run, error)
	CancelWorkflowRun(ctx context.Context, runID uint64) error
	ListWorkflowRuns(ctx context.Context, limit int) ([]workflow.Run, error)
	GetWorkflowRun(ctx context.Context, runID uint64) (workflow.Run, error)

	ListBlueprints(ctx context.Context) ([]blueprint.Summary, error)
	ShowBlueprint(ctx context.Context, name string) (blueprint.Details, error)
	BlueprintHistory(ctx context.Context, name string) ([]blueprint.VersionRecord, error)
	UseBlueprint(ctx context.Context, name string, o engine.UseOptions) (engine.UseResult, error)
	RunBuild(ctx context.Context, id uint64, o engine.RunBuildOptions) (build.Build, error)

	// AnswerApproval answers a command a skill's step wants to run.
	AnswerApproval(ctx context.Context, id string, approve bool) error
}

var _ Source = engine.Workspace(nil)
