package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/run"
)

// interruptRuns is what opening the workspace does to runs of every kind
// (builds, goal runs, workflow runs, chat turns): one stored as running or
// waiting was running when its process died, so the index of runs says it
// is interrupted (run.Status.OnOpen). Only the owner of the workspace (a
// writable open) does it; an index it cannot read leaves the open alone:
// each engine still shows such a run as interrupted.
func (l *core) interruptRuns(ctx context.Context, logf func(string, ...any)) {
	if _, err := run.NewIndex(l.db).Interrupt(ctx); err != nil && logf != nil {
		logf("nova: the index of runs: %v\n", err)
	}
}

// RunIndex is the index of every run of every kind (engine/run): what is
// running, what can be resumed, what a hand-over resumes.
func (l *core) RunIndex() *run.Index { return run.NewIndex(l.db) }
