package playbooks

import (
	"context"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
)

// Source is what the Playbooks page needs from the engine; *ace.Manager
// implements it. The page calls it only from tea.Cmds.
type Source interface {
	List(ctx context.Context) ([]ace.Summary, error)
	GetPlaybook(ctx context.Context, agent string) (ace.Playbook, error)
	History(ctx context.Context, agent string) ([]ace.Version, error)
	ListPending(ctx context.Context) ([]ace.Pending, error)
	Approve(ctx context.Context, id uint64) (ace.Playbook, error)
	Reject(ctx context.Context, id uint64) (ace.Pending, error)
	AddRule(ctx context.Context, agent, content string, tags []string, confidence float64) (ace.Rule, ace.Playbook, error)
	EditRule(ctx context.Context, agent, ruleID, content string, tags []string, confidence float64) (ace.Rule, error)
	DeleteRule(ctx context.Context, agent, ruleID string) error
}

var _ Source = (*ace.Manager)(nil)

// sourceFor finds the playbook manager of a workspace: the facade's when it
// has one, else a manager over the workspace's database.
// A workspace whose ACE panics (a test fake without the capability) has
// none: the page then says so.
func sourceFor(ws engine.Workspace) (src Source) {
	defer func() {
		if recover() != nil {
			src = nil
		}
	}()
	if w, ok := ws.(interface{ ACE() *ace.System }); ok {
		if sys := w.ACE(); sys != nil {
			if m := sys.Playbooks(); m != nil {
				return m
			}
		}
	}
	if l, ok := ws.(*engine.Local); ok {
		return ace.NewManager(l.DB(), nil, nil)
	}
	return nil
}
