package rpcdemo

import (
	"context"
	"time"
)

// JobVerbs are the demo's resumable-job verbs, declared apart and embedded
// in Demo (as engine.Workspace embeds one interface per area).
type JobVerbs interface {
	// Steps runs a resumable job of total steps, one transaction per step,
	// and returns the number of steps done; it continues from the last
	// committed step (as `build resume` does).
	Steps(ctx context.Context, total int, pause time.Duration) (int, error)
	// StepLog returns the step numbers committed, in order (each once).
	//
	//rpc:idempotent
	StepLog(ctx context.Context) ([]int, error)
}
