package ace

import (
	"context"
	"strings"

	"github.com/nova-dev/nova/engine/build"
)

// BuildHook adapts a System to build.PlaybookHook.
type BuildHook struct{ S *System }

var _ build.PlaybookHook = BuildHook{}

// NewBuildHook returns the build engine's playbook hook.
func NewBuildHook(s *System) build.PlaybookHook { return BuildHook{S: s} }

// Context implements build.PlaybookHook: the block and the ids of its rules
// (counted as applied). A task is "title\ndescription" or free text.
func (h BuildHook) Context(ctx context.Context, agent, task string, budgetTokens int) (string, []string, error) {
	inj, err := h.S.Context(ctx, agent, task, budgetTokens)
	if err != nil {
		return "", nil, err
	}
	return inj.Block, inj.RuleIDs, nil
}

// AfterTask implements build.PlaybookHook.
func (h BuildHook) AfterTask(ctx context.Context, r build.TaskResult) error {
	agent := r.Agent
	if agent == "" {
		agent = r.Task.Agent
	}
	title := r.Task.Title
	if strings.TrimSpace(title) == "" {
		title = r.Task.ID
	}
	_, err := h.S.AfterTask(ctx, Outcome{
		Agent: agent, TaskID: r.Task.ID, Title: title, Task: r.Task.Description, Output: r.Output,
		Success: r.Success, Reason: r.Reason, GateScore: r.GateScore, RuleIDs: r.RuleIDs, Autonomy: r.Autonomy,
		AutonomySet: true, // the build's autonomy governs everything in the build
	}, false)
	return err
}
