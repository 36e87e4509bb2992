package engine

import (
	"context"
	"fmt"
)

// countPlanBuilds counts the builds of plans (Summary.Builds): a goal run's
// build only carries its delegations (build.Build.Led) and is counted as the
// goal run, never as a build of its own (a goal run stopped before its first
// delegation left a "paused 0/0" build that Home counted).
func (l *core) countPlanBuilds(ctx context.Context) (int, error) {
	bs, err := l.Builds().List(ctx)
	if err != nil {
		return 0, fmt.Errorf("count builds: %w", err)
	}
	n := 0
	for _, b := range bs {
		if !b.Led {
			n++
		}
	}
	return n, nil
}
