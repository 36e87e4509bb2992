package build

import (
	"context"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/tools"
)

// StoreBoards is the BoardHook over the session-board store
// (engine/board): Store returns it, built when a build first needs it.
type StoreBoards struct{ Store func() *board.Store }

var _ BoardHook = StoreBoards{}

// Context implements BoardHook.
func (h StoreBoards) Context(ctx context.Context, req BoardRequest) (string, error) {
	key, err := board.ParseKey(req.Board)
	if err != nil {
		return "", err
	}
	return h.Store().TaskBlock(ctx, key, req.Task.Include, req.Upstream)
}

// Blockers implements BoardHook.
func (h StoreBoards) Blockers(ctx context.Context, key string) (map[string][]string, error) {
	k, err := board.ParseKey(key)
	if err != nil {
		return nil, err
	}
	return h.Store().OpenBlockers(ctx, k)
}

// AfterTask implements BoardHook.
func (h StoreBoards) AfterTask(ctx context.Context, r BoardResult) (board.Handoff, error) {
	key, err := board.ParseKey(r.Board)
	if err != nil {
		return board.Handoff{}, err
	}
	// A done task whose staged files nothing executed shows as "done
	// (unverified)" to the user and to the next agent alike.
	status := agents.DisplayStatus(string(TaskDone), len(r.Files), r.Task.Verified)
	if !r.Passed {
		status = string(TaskBlocked)
	}
	return h.Store().Finish(ctx, key, board.TaskEnd{Task: r.Task.ID, Title: r.Task.Title, Agent: r.Task.Agent,
		Status: status, Passed: r.Passed, Reason: r.Reason, Output: r.Output, Files: r.Files,
		ChangesetID: r.Task.ChangesetID, Suggested: r.Suggested})
}

// Tools implements BoardHook.
func (h StoreBoards) Tools(key, agent, task string) tools.Board {
	k, err := board.ParseKey(key)
	if err != nil {
		return nil
	}
	return &board.Handle{Store: h.Store(), Key: k, Agent: agent, Task: task}
}
