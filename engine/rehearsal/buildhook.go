package rehearsal

import (
	"context"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/prd"
)

// Hook adapts a Service to build.RehearsalHook. Service is called lazily so
// that building the hook costs nothing at Open.
type Hook struct {
	Service func() *Service
	// Log, when set, hears why a rehearsal did not run (e.g. the tier).
	Log func(string)
}

var _ build.RehearsalHook = (*Hook)(nil)

// ShouldRehearse implements build.RehearsalHook.
func (h *Hook) ShouldRehearse(t prd.Task) bool { return ShouldRehearse(t) }

// Rehearse implements build.RehearsalHook. On the free tier it refuses with
// ErrTier and logs "rehearsal would have run".
func (h *Hook) Rehearse(ctx context.Context, req build.RehearsalRequest) (build.RehearsalOutcome, error) {
	s := h.Service()
	if err := s.TierAllows(); err != nil {
		if h.Log != nil {
			h.Log(fmt.Sprintf("rehearsal would have run for task %s: %v", req.Task.ID, err))
		}
		return build.RehearsalOutcome{Reason: err.Error()}, err
	}
	ss, err := s.Rehearse(ctx, Request{
		Task: req.Task, Agent: req.Agent, BuildID: req.BuildID, Context: req.Context,
		Branches: req.Branches, Force: true, Autonomy: req.Autonomy,
	})
	out := build.RehearsalOutcome{SessionID: ss.ID}
	for _, b := range ss.Branches {
		out.Tokens += b.Tokens
	}
	if err != nil {
		out.Reason = err.Error()
		return out, err
	}
	switch ss.Status {
	case StatusPending:
		out.Waiting = true
		out.Reason = fmt.Sprintf("rehearsal %d waits for a decision (%d branches; best %s)", ss.ID, len(ss.Branches), best(ss))
	case StatusApproved:
		out.ChangesetID = ss.ChangesetID
		if b, ok := ss.Branch(ss.Winner); ok {
			out.Output = strings.TrimSpace(b.Description + "\n\n" + b.AgentNotes)
		}
	}
	return out, nil
}

func best(ss Session) string {
	r := ss.Ranked()
	if len(r) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s %.2f", r[0].BranchID, r[0].Score)
}
