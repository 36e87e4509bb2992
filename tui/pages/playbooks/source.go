package playbooks

import (
	"context"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
)

// Source is what the Playbooks page needs from the engine: a subset of
// engine.Workspace's verbs. The page calls it only from tea.Cmds.
type Source interface {
	ListPlaybooks(ctx context.Context) ([]ace.Summary, error)
	GetPlaybook(ctx context.Context, agent string) (ace.Playbook, error)
	PlaybookHistory(ctx context.Context, agent string) ([]ace.Version, error)
	ListPendingDeltas(ctx context.Context) ([]ace.Pending, error)
	ApproveDelta(ctx context.Context, id uint64) (ace.Playbook, error)
	RejectDelta(ctx context.Context, id uint64) (ace.Pending, error)
	AddRule(ctx context.Context, agent, content string, tags []string, confidence float64) (engine.RuleResult, error)
	EditRule(ctx context.Context, agent, ruleID, content string, tags []string, confidence float64) (ace.Rule, error)
	DeleteRule(ctx context.Context, agent, ruleID string) error
	// ListAgents gives the roster, so agents without a playbook yet are
	// listed too.
	ListAgents(ctx context.Context) (engine.Roster, error)
}
