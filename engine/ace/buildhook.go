package ace

import (
	"context"
	"errors"
	"strings"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/storage"
)

// BuildHook adapts a System to build.PlaybookHook (learning after each
// task) and to promptctx.PlaybookSource (the playbook block of a prompt).
type BuildHook struct{ S *System }

var (
	_ build.PlaybookHook        = BuildHook{}
	_ promptctx.PlaybookSource  = BuildHook{}
	_ promptctx.AppliedRecorder = BuildHook{}
)

// NewBuildHook returns the playbook hook of builds and prompt context.
func NewBuildHook(s *System) BuildHook { return BuildHook{S: s} }

// Context implements promptctx.PlaybookSource: the block and the ids of its rules
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

// Applied implements promptctx.AppliedRecorder: the rules of a reused
// playbook block are counted as applied, as Context counts them.
func (h BuildHook) Applied(ctx context.Context, agent string, ids []string) error {
	err := h.S.Playbooks().IncrementApplied(ctx, agent, ids)
	if errors.Is(err, storage.ErrReadOnly) {
		return nil
	}
	return err
}
