package engine

import (
	"context"
	"fmt"

	"github.com/nova-dev/nova/engine/changes"
)

// recoverApplies completes the changeset applies a crash interrupted (see
// changes.Store.Recover). It runs once when a workspace is opened for
// writing; what it did is kept for the surfaces (TakeRecoveredApplies).
func (l *core) recoverApplies(ctx context.Context) {
	// A plain store: nothing listens yet, and the agent runtime need not
	// be built for this.
	l.recovered, l.recoverErr = changes.New(l.db, l.ws.Root, changes.Options{}).Recover(ctx)
}

// RecoveredApplies says which interrupted applies the open completed, and
// the error that stopped it, if any (the changesets then stay pending).
// In-process wiring and tests; surfaces use TakeRecoveredApplies.
func (l *core) RecoveredApplies() ([]changes.Recovered, error) {
	return l.recovered, l.recoverErr
}

// RecoveryLines are the sentences that tell a user what a recovery did (the
// CLI prints them on stderr, the TUI shows them in Activity).
func RecoveryLines(rec Recovery) []string {
	var out []string
	for _, r := range rec.Applies {
		if n := len(r.Completed) + len(r.AlreadyWritten); n > 0 {
			files := "1 file"
			if n != 1 {
				files = fmt.Sprintf("%d files", n)
			}
			out = append(out, fmt.Sprintf("completed the interrupted apply of changeset %d (%s)", r.ID, files))
		}
		for _, c := range r.Conflicts {
			out = append(out, fmt.Sprintf("changeset %d: %s %s; review it with `nova changes show %d`", r.ID, c.Path, c.Reason, r.ID))
		}
	}
	if rec.Problem != "" {
		out = append(out, "could not complete an interrupted apply (the changeset stays pending; the next start tries again): "+rec.Problem)
	}
	return out
}
