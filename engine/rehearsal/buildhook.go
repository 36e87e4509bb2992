package rehearsal

import (
	"context"
	"errors"
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
	// A resumed build asks again for a task it already rehearsed: answer
	// from that session instead of generating a second one.
	if prev, ok := h.previous(ctx, s, req); ok {
		return outcomeOf(prev)
	}
	ss, err := s.Rehearse(ctx, Request{
		Task: req.Task, Agent: req.Agent, BuildID: req.BuildID, Context: req.Context, KnowledgeIDs: req.KnowledgeIDs,
		Branches: req.Branches, Force: true, Autonomy: req.Autonomy, AutonomySet: true,
	})
	if err != nil {
		out := build.RehearsalOutcome{SessionID: ss.ID, Reason: err.Error()}
		for _, b := range ss.Branches {
			out.Tokens += b.Tokens
		}
		return out, err
	}
	return outcomeOf(ss)
}

// previous finds the newest session of this build's task that is still
// pending or was decided (failed sessions are regenerated).
func (h *Hook) previous(ctx context.Context, s *Service, req build.RehearsalRequest) (Session, bool) {
	if req.BuildID == "" {
		return Session{}, false
	}
	list, err := s.List(ctx, Filter{})
	if err != nil {
		return Session{}, false
	}
	for _, ss := range list { // newest first
		if ss.BuildID == req.BuildID && ss.TaskID == req.Task.ID && ss.Status != StatusFailed {
			return ss, true
		}
	}
	return Session{}, false
}

// ErrRejected means the user rejected every branch of the task's rehearsal.
var ErrRejected = errors.New("every branch was rejected")

func outcomeOf(ss Session) (build.RehearsalOutcome, error) {
	out := build.RehearsalOutcome{SessionID: ss.ID}
	for _, b := range ss.Branches {
		out.Tokens += b.Tokens
	}
	switch ss.Status {
	case StatusRejected:
		out.Reason = fmt.Sprintf("rehearsal %d: %s", ss.ID, cmpReason(ss.Reason))
		return out, fmt.Errorf("rehearsal %d: %w: %s", ss.ID, ErrRejected, cmpReason(ss.Reason))
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

func cmpReason(r string) string {
	if strings.TrimSpace(r) == "" {
		return "no reason given"
	}
	return r
}

func best(ss Session) string {
	r := ss.Ranked()
	if len(r) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s %.2f", r[0].BranchID, r[0].Score)
}
