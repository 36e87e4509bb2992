package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/ace"
)

// PlaybookVerbs are the verbs of ACE playbooks: rules, versions, deltas, reviews.
type PlaybookVerbs interface {
	// ListPlaybooks lists the playbooks: agent, version, rules, success.
	//rpc:idempotent
	ListPlaybooks(ctx context.Context) ([]ace.Summary, error)
	// GetPlaybook returns an agent's playbook.
	//rpc:idempotent
	GetPlaybook(ctx context.Context, agent string) (ace.Playbook, error)
	// PlaybookHistory lists an agent's versions, newest first.
	//rpc:idempotent
	PlaybookHistory(ctx context.Context, agent string) ([]ace.Version, error)
	// PlaybookDiff says how an agent's rules changed between two versions.
	//rpc:idempotent
	PlaybookDiff(ctx context.Context, agent string, from, to int) ([]ace.Change, error)
	// ListPendingDeltas lists the deltas waiting for review.
	//rpc:idempotent
	ListPendingDeltas(ctx context.Context) ([]ace.Pending, error)
	// ApproveDelta applies a pending delta (a new playbook version).
	ApproveDelta(ctx context.Context, id uint64) (ace.Playbook, error)
	// RejectDelta drops a pending delta.
	RejectDelta(ctx context.Context, id uint64) (ace.Pending, error)
	// AddRule adds a manual rule to an agent's playbook.
	AddRule(ctx context.Context, agent, content string, tags []string, confidence float64) (RuleResult, error)
	// EditRule changes a rule's text, tags (nil = keep) or confidence (0 =
	// keep).
	EditRule(ctx context.Context, agent, ruleID, content string, tags []string, confidence float64) (ace.Rule, error)
	// DeleteRule removes a rule from an agent's playbook.
	DeleteRule(ctx context.Context, agent, ruleID string) error
	// ReviewPlaybook runs the self-improvement review of an agent (ace.ErrNotDue
	// unless due or forced; the report is returned with that error too).
	ReviewPlaybook(ctx context.Context, agent string, force bool) (ace.ReviewReport, error)
	// RecordUserSignal learns from a user approving or rejecting an agent's
	// change, with an optional reason, at every autonomy level.
	RecordUserSignal(ctx context.Context, agent, taskType string, approved bool, reason string) (ace.SignalReport, error)
}

// playbookArea implements PlaybookVerbs over the workspace's services.
type playbookArea struct{ *core }

var _ PlaybookVerbs = playbookArea{}

// ListPlaybooks implements PlaybookVerbs.
func (l playbookArea) ListPlaybooks(ctx context.Context) ([]ace.Summary, error) {
	return l.ACE().Playbooks().List(ctx)
}

// GetPlaybook implements PlaybookVerbs.
func (l playbookArea) GetPlaybook(ctx context.Context, agent string) (ace.Playbook, error) {
	return l.ACE().Playbooks().GetPlaybook(ctx, agent)
}

// PlaybookHistory implements PlaybookVerbs.
func (l playbookArea) PlaybookHistory(ctx context.Context, agent string) ([]ace.Version, error) {
	return l.ACE().Playbooks().History(ctx, agent)
}

// PlaybookDiff implements PlaybookVerbs.
func (l playbookArea) PlaybookDiff(ctx context.Context, agent string, from, to int) ([]ace.Change, error) {
	return l.ACE().Playbooks().Diff(ctx, agent, from, to)
}

// ListPendingDeltas implements PlaybookVerbs.
func (l playbookArea) ListPendingDeltas(ctx context.Context) ([]ace.Pending, error) {
	return l.ACE().Playbooks().ListPending(ctx)
}

// ApproveDelta implements PlaybookVerbs.
func (l playbookArea) ApproveDelta(ctx context.Context, id uint64) (ace.Playbook, error) {
	return l.ACE().Approve(ctx, id)
}

// RejectDelta implements PlaybookVerbs.
func (l playbookArea) RejectDelta(ctx context.Context, id uint64) (ace.Pending, error) {
	return l.ACE().Reject(ctx, id)
}

// AddRule implements PlaybookVerbs.
func (l playbookArea) AddRule(ctx context.Context, agent, content string, tags []string, confidence float64) (RuleResult, error) {
	r, p, err := l.ACE().Playbooks().AddRule(ctx, agent, content, tags, confidence)
	return RuleResult{Rule: r, Playbook: p}, err
}

// EditRule implements PlaybookVerbs.
func (l playbookArea) EditRule(ctx context.Context, agent, ruleID, content string, tags []string, confidence float64) (ace.Rule, error) {
	return l.ACE().Playbooks().EditRule(ctx, agent, ruleID, content, tags, confidence)
}

// DeleteRule implements PlaybookVerbs.
func (l playbookArea) DeleteRule(ctx context.Context, agent, ruleID string) error {
	return l.ACE().Playbooks().DeleteRule(ctx, agent, ruleID)
}

// ReviewPlaybook implements PlaybookVerbs.
func (l playbookArea) ReviewPlaybook(ctx context.Context, agent string, force bool) (ace.ReviewReport, error) {
	return l.ACE().RunReview(ctx, agent, force)
}

// RecordUserSignal learns from a user approving or rejecting an agent's
// change (optionally with a reason), at every autonomy level.
func (l playbookArea) RecordUserSignal(ctx context.Context, agent, taskType string, approved bool, reason string) (ace.SignalReport, error) {
	return l.acs.sys.RecordUserSignal(ctx, agent, taskType, approved, reason)
}
