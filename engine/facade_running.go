package engine

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/library/workflow"
)

// RunningWork is the work running in the owning process (RunningWork):
// what quitting it interrupts, and what a hand-over resumes elsewhere.
type RunningWork struct {
	// Builds run on their own (`nova build run`, the Build screen): a goal
	// run's build and a workflow step's build are not listed, their run
	// resumes them.
	Builds []uint64 `json:"builds"`
	// GoalRuns and WorkflowRuns are the runs going on.
	GoalRuns     []uint64 `json:"goalRuns"`
	WorkflowRuns []uint64 `json:"workflowRuns"`
	// ChatSessions are the chat sessions with a turn running.
	ChatSessions []uint64 `json:"chatSessions,omitempty"`
}

// Count is how many builds and runs there are.
func (w RunningWork) Count() int {
	return len(w.Builds) + len(w.GoalRuns) + len(w.WorkflowRuns) + len(w.ChatSessions)
}

// String names the work for people: "build 3, goal run 2 and workflow
// runs 5, 6" ("" when nothing runs).
func (w RunningWork) String() string {
	var parts []string
	for _, k := range []struct {
		one, many string
		ids       []uint64
	}{{"build", "builds", w.Builds}, {"goal run", "goal runs", w.GoalRuns}, {"workflow run", "workflow runs", w.WorkflowRuns},
		{"chat session", "chat sessions", w.ChatSessions}} {
		ids := make([]string, len(k.ids))
		for i, id := range k.ids {
			ids[i] = strconv.FormatUint(id, 10)
		}
		switch len(ids) {
		case 0:
		case 1:
			parts = append(parts, k.one+" "+ids[0])
		default:
			parts = append(parts, k.many+" "+strings.Join(ids, ", "))
		}
	}
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// RunningWork implements Workspace.
func (l *Local) RunningWork(ctx context.Context) (RunningWork, error) {
	if err := ctx.Err(); err != nil {
		return RunningWork{}, err
	}
	w := RunningWork{Builds: []uint64{}, GoalRuns: append([]uint64{}, l.Goals().Running()...),
		WorkflowRuns: append([]uint64{}, l.library().runs.Running()...), ChatSessions: l.chatRunningWork()}
	// The builds the runs carry, read from the runs themselves (a goal
	// run's build is made when it is created; a workflow step's build is
	// recorded on the step before it runs).
	carried := map[uint64]bool{}
	for _, id := range w.GoalRuns {
		r, err := l.Goals().Get(ctx, id)
		if err != nil {
			return RunningWork{}, err
		}
		carried[r.BuildID] = true
	}
	for _, id := range w.WorkflowRuns {
		r, err := l.library().runs.Get(ctx, id)
		if err != nil {
			return RunningWork{}, err
		}
		for _, s := range r.Steps {
			if s.BuildID != 0 && s.Status == workflow.StepRunning {
				carried[s.BuildID] = true
			}
		}
	}
	for _, id := range l.Builds().Running() {
		if !carried[id] {
			w.Builds = append(w.Builds, id)
		}
	}
	slices.Sort(w.Builds)
	return w, nil
}

// stopWorkflowRuns interrupts the workflow runs running in this process
// before the database closes (Close), waiting at most a few seconds: each
// pauses with its step resumable.
func (l *Local) stopWorkflowRuns() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.library().runs.Shutdown(ctx)
}
