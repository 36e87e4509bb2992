package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/changes"
)

// ChangeVerbs are the verbs of changesets: the staged writes of agents and the user's decisions on them.
type ChangeVerbs interface {
	// ListChanges lists changesets, newest first.
	//rpc:idempotent
	ListChanges(ctx context.Context, f changes.Filter) ([]changes.Changeset, error)
	// GetChange returns a changeset with its files' contents.
	//rpc:idempotent
	GetChange(ctx context.Context, id uint64) (changes.Changeset, error)
	// ApplyChange writes a pending changeset as the user's decision (learned
	// by the agent's playbook and, with a reason, the vault).
	ApplyChange(ctx context.Context, id uint64, o changes.ApplyOptions, reason string) (changes.ApplyReport, error)
	// DiscardChange discards a pending changeset as the user's decision.
	DiscardChange(ctx context.Context, id uint64, reason string) (changes.Changeset, error)
	// RevertChange undoes an applied changeset as the user's decision: every
	// file it wrote gets back its content from before the apply (files it
	// created are removed), through a new changeset that can be reverted in
	// turn. A file changed since the apply stops it (*changes.ConflictError,
	// Revert set) unless o.Force. Undoing a change is learned once, like a
	// rejection (the agent's playbook, the rules and vault nodes that shaped
	// it); bringing it back by reverting the revert is not learned.
	RevertChange(ctx context.Context, id uint64, o changes.RevertOptions, reason string) (changes.RevertReport, error)
	// EditChange replaces the proposed content of one file of a pending
	// changeset with the user's version: what gets applied is the edit.
	EditChange(ctx context.Context, id uint64, path, content string) (changes.Changeset, error)
	// TakeRecoveredApplies reports, once, the applies that a crash
	// interrupted and that opening the workspace completed (or left pending
	// because a file changed meanwhile): the first caller gets them, to tell
	// the user; later calls get none.
	TakeRecoveredApplies(ctx context.Context) (Recovery, error)
}

// changeArea implements ChangeVerbs over the workspace's services.
type changeArea struct{ *core }

var _ ChangeVerbs = changeArea{}

// TakeRecoveredApplies implements ChangeVerbs: what the open recovered, handed
// out once.
func (l changeArea) TakeRecoveredApplies(ctx context.Context) (Recovery, error) {
	if err := ctx.Err(); err != nil {
		return Recovery{}, err
	}
	l.recoverMu.Lock()
	defer l.recoverMu.Unlock()
	rec := Recovery{Applies: []changes.Recovered{}}
	if l.recoverTaken {
		return rec, nil
	}
	l.recoverTaken = true
	rec.Applies = append(rec.Applies, l.recovered...)
	if l.recoverErr != nil {
		rec.Problem = l.recoverErr.Error()
	}
	return rec, nil
}

// ApplyChange applies a changeset as a user's decision: like
// Changes().Apply, and the approval (with an optional reason) is learned by
// the agent's playbook and, with a reason, by the vault. Use it from the
// user paths (the Changes page, `nova changes apply`).
func (l changeArea) ApplyChange(ctx context.Context, id uint64, opts changes.ApplyOptions, reason string) (changes.ApplyReport, error) {
	l.acs.deciding.Store(id, true)
	defer l.acs.deciding.Delete(id)
	rep, err := l.Changes().Apply(ctx, id, opts)
	if err == nil && rep.Changeset.Status == changes.StatusApplied {
		l.decisionSignal(ctx, rep.Changeset, true, reason)
	}
	return rep, err
}

// DiscardChange discards a changeset as a user's decision (see
// ApplyChange): the rejection and its reason are learned.
func (l changeArea) DiscardChange(ctx context.Context, id uint64, reason string) (changes.Changeset, error) {
	l.acs.deciding.Store(id, true)
	defer l.acs.deciding.Delete(id)
	cs, err := l.Changes().Discard(ctx, id)
	if err == nil {
		l.decisionSignal(ctx, cs, false, reason)
	}
	return cs, err
}

// ListChanges implements ChangeVerbs.
func (l changeArea) ListChanges(ctx context.Context, f changes.Filter) ([]changes.Changeset, error) {
	return l.Changes().List(ctx, f)
}

// GetChange implements ChangeVerbs.
func (l changeArea) GetChange(ctx context.Context, id uint64) (changes.Changeset, error) {
	return l.Changes().Get(ctx, id)
}

// RevertChange implements ChangeVerbs.
//
// DESIGN ("Revert"): a revert is a user decision like a rejection. It is
// learned once per change: reverting a change (or the revert of its revert,
// which undoes it again) records the rejection only the first time
// (changes.Store.MarkRevertLearned on the change the chain started from);
// reverting a revert brings the change back and is not learned at all, so
// nothing is counted twice.
func (l changeArea) RevertChange(ctx context.Context, id uint64, o changes.RevertOptions, reason string) (changes.RevertReport, error) {
	store := l.Changes()
	rep, err := store.Revert(ctx, id, o)
	if err != nil {
		return rep, err
	}
	origin, undoes, err := l.revertOrigin(ctx, id)
	if err != nil || !undoes {
		return rep, nil // the revert happened; a failed lookup only costs the lesson
	}
	first, err := store.MarkRevertLearned(context.WithoutCancel(ctx), origin.ID)
	if err != nil || !first {
		return rep, nil
	}
	rep.Learned = true
	rep.DemotedRules, rep.DemotedNodes = l.learnRejection(context.WithoutCancel(ctx), origin, reason)
	return rep, nil
}

// EditChange implements ChangeVerbs.
func (l changeArea) EditChange(ctx context.Context, id uint64, path, content string) (changes.Changeset, error) {
	return l.Changes().EditFile(ctx, id, path, content)
}
