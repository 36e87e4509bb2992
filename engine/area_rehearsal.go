package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/rehearsal"
)

// RehearsalVerbs are the verbs of rehearsals: alternative branches for a task, scored.
type RehearsalVerbs interface {
	// Rehearse generates, scores and stores 2–3 alternative branches for a
	// task (blocking; TopicRehearsal events).
	Rehearse(ctx context.Context, req rehearsal.Request) (rehearsal.Session, error)
	// ListRehearsals lists sessions, newest first (without file contents).
	//rpc:idempotent
	ListRehearsals(ctx context.Context, f rehearsal.Filter) ([]rehearsal.Session, error)
	// GetRehearsal returns a session with its branches' files.
	//rpc:idempotent
	GetRehearsal(ctx context.Context, id uint64) (rehearsal.Session, error)
	// ApproveRehearsal writes one branch (an id or a 1-based number) through
	// the changeset path and learns the choice.
	ApproveRehearsal(ctx context.Context, id uint64, branch string, o rehearsal.ApproveOptions) (rehearsal.Session, error)
	// RejectRehearsal rejects every branch of a session.
	RejectRehearsal(ctx context.Context, id uint64, reason string) (rehearsal.Session, error)
	// RegenerateRehearsal rejects a pending session and rehearses its task
	// again (blocking).
	RegenerateRehearsal(ctx context.Context, id uint64) (rehearsal.Session, error)
}

// rehearsalArea implements RehearsalVerbs over the workspace's services.
type rehearsalArea struct{ *core }

var _ RehearsalVerbs = rehearsalArea{}

// Rehearse implements RehearsalVerbs.
func (l rehearsalArea) Rehearse(ctx context.Context, req rehearsal.Request) (rehearsal.Session, error) {
	return l.Rehearsals().Rehearse(ctx, req)
}

// ListRehearsals implements RehearsalVerbs: sessions without file contents.
func (l rehearsalArea) ListRehearsals(ctx context.Context, f rehearsal.Filter) ([]rehearsal.Session, error) {
	list, err := l.Rehearsals().List(ctx, f)
	for i := range list {
		list[i] = rehearsal.Brief(list[i])
	}
	return list, err
}

// GetRehearsal implements RehearsalVerbs.
func (l rehearsalArea) GetRehearsal(ctx context.Context, id uint64) (rehearsal.Session, error) {
	return l.Rehearsals().Get(ctx, id)
}

// ApproveRehearsal implements RehearsalVerbs.
func (l rehearsalArea) ApproveRehearsal(ctx context.Context, id uint64, branch string, o rehearsal.ApproveOptions) (rehearsal.Session, error) {
	return l.Rehearsals().Approve(ctx, id, branch, o)
}

// RejectRehearsal implements RehearsalVerbs.
func (l rehearsalArea) RejectRehearsal(ctx context.Context, id uint64, reason string) (rehearsal.Session, error) {
	return l.Rehearsals().Reject(ctx, id, reason)
}

// RegenerateRehearsal implements RehearsalVerbs.
func (l rehearsalArea) RegenerateRehearsal(ctx context.Context, id uint64) (rehearsal.Session, error) {
	return l.Rehearsals().Regenerate(ctx, id)
}
