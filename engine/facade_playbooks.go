package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/rehearsal"
)

// Playbook and rehearsal verbs of the Workspace facade (engine/ace.go and
// engine/rehearsal.go wire the services).

// ListPlaybooks implements Workspace.
func (l *Local) ListPlaybooks(ctx context.Context) ([]ace.Summary, error) {
	return l.ACE().Playbooks().List(ctx)
}

// GetPlaybook implements Workspace.
func (l *Local) GetPlaybook(ctx context.Context, agent string) (ace.Playbook, error) {
	return l.ACE().Playbooks().GetPlaybook(ctx, agent)
}

// PlaybookHistory implements Workspace.
func (l *Local) PlaybookHistory(ctx context.Context, agent string) ([]ace.Version, error) {
	return l.ACE().Playbooks().History(ctx, agent)
}

// PlaybookDiff implements Workspace.
func (l *Local) PlaybookDiff(ctx context.Context, agent string, from, to int) ([]ace.Change, error) {
	return l.ACE().Playbooks().Diff(ctx, agent, from, to)
}

// ListPendingDeltas implements Workspace.
func (l *Local) ListPendingDeltas(ctx context.Context) ([]ace.Pending, error) {
	return l.ACE().Playbooks().ListPending(ctx)
}

// ApproveDelta implements Workspace.
func (l *Local) ApproveDelta(ctx context.Context, id uint64) (ace.Playbook, error) {
	return l.ACE().Approve(ctx, id)
}

// RejectDelta implements Workspace.
func (l *Local) RejectDelta(ctx context.Context, id uint64) (ace.Pending, error) {
	return l.ACE().Reject(ctx, id)
}

// AddRule implements Workspace.
func (l *Local) AddRule(ctx context.Context, agent, content string, tags []string, confidence float64) (RuleResult, error) {
	r, p, err := l.ACE().Playbooks().AddRule(ctx, agent, content, tags, confidence)
	return RuleResult{Rule: r, Playbook: p}, err
}

// EditRule implements Workspace.
func (l *Local) EditRule(ctx context.Context, agent, ruleID, content string, tags []string, confidence float64) (ace.Rule, error) {
	return l.ACE().Playbooks().EditRule(ctx, agent, ruleID, content, tags, confidence)
}

// DeleteRule implements Workspace.
func (l *Local) DeleteRule(ctx context.Context, agent, ruleID string) error {
	return l.ACE().Playbooks().DeleteRule(ctx, agent, ruleID)
}

// ReviewPlaybook implements Workspace.
func (l *Local) ReviewPlaybook(ctx context.Context, agent string, force bool) (ace.ReviewReport, error) {
	return l.ACE().RunReview(ctx, agent, force)
}

// Rehearse implements Workspace.
func (l *Local) Rehearse(ctx context.Context, req rehearsal.Request) (rehearsal.Session, error) {
	return l.Rehearsals().Rehearse(ctx, req)
}

// ListRehearsals implements Workspace: sessions without file contents.
func (l *Local) ListRehearsals(ctx context.Context, f rehearsal.Filter) ([]rehearsal.Session, error) {
	list, err := l.Rehearsals().List(ctx, f)
	for i := range list {
		list[i] = rehearsal.Brief(list[i])
	}
	return list, err
}

// GetRehearsal implements Workspace.
func (l *Local) GetRehearsal(ctx context.Context, id uint64) (rehearsal.Session, error) {
	return l.Rehearsals().Get(ctx, id)
}

// ApproveRehearsal implements Workspace.
func (l *Local) ApproveRehearsal(ctx context.Context, id uint64, branch string, o rehearsal.ApproveOptions) (rehearsal.Session, error) {
	return l.Rehearsals().Approve(ctx, id, branch, o)
}

// RejectRehearsal implements Workspace.
func (l *Local) RejectRehearsal(ctx context.Context, id uint64, reason string) (rehearsal.Session, error) {
	return l.Rehearsals().Reject(ctx, id, reason)
}

// RegenerateRehearsal implements Workspace.
func (l *Local) RegenerateRehearsal(ctx context.Context, id uint64) (rehearsal.Session, error) {
	return l.Rehearsals().Regenerate(ctx, id)
}
