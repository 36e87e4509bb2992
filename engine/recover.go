package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/changes"
)

// recoverApplies completes the changeset applies a crash interrupted (see
// changes.Store.Recover). It runs once when a workspace is opened for
// writing; what it did is kept for the surfaces (RecoveredApplies).
func (l *Local) recoverApplies(ctx context.Context) {
	// A plain store: nothing listens yet, and the agent runtime need not
	// be built for this.
	l.recovered, l.recoverErr = changes.New(l.db, l.ws.Root, changes.Options{}).Recover(ctx)
}

// RecoveredApplies says which interrupted applies the open completed, and
// the error that stopped it, if any (the changesets then stay pending).
func (l *Local) RecoveredApplies() ([]changes.Recovered, error) {
	return l.recovered, l.recoverErr
}
