package engine

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/run"
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
}

// Count is how many builds and runs there are.
func (w RunningWork) Count() int { return len(w.Builds) + len(w.GoalRuns) + len(w.WorkflowRuns) }

// String names the work for people: "build 3, goal run 2 and workflow
// runs 5, 6" ("" when nothing runs).
func (w RunningWork) String() string {
	var parts []string
	for _, k := range []struct {
		one, many string
		ids       []uint64
	}{{"build", "builds", w.Builds}, {"goal run", "goal runs", w.GoalRuns}, {"workflow run", "workflow runs", w.WorkflowRuns}} {
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
	w := RunningWork{Builds: []uint64{}, GoalRuns: append([]uint64{}, l.runs.Running(run.KindGoal)...),
		WorkflowRuns: append([]uint64{}, l.runs.Running(run.KindWorkflow)...)}
	// A build that works for a run (a goal run's build, a workflow step's:
	// its parent in the index of runs) is its run's to resume.
	idx := l.RunIndex()
	for _, id := range l.runs.Running(run.KindBuild) {
		rec, err := idx.Get(ctx, run.Key{Kind: run.KindBuild, ID: id})
		if err != nil {
			return RunningWork{}, err
		}
		if rec.Parent == (run.Key{}) || !l.runs.Active(rec.Parent) {
			w.Builds = append(w.Builds, id)
		}
	}
	return w, nil
}

// Keys are the work's runs as keys of the run registry, runs first (their
// builds are theirs): goal runs, workflow runs, builds.
func (w RunningWork) Keys() []run.Key {
	var keys []run.Key
	for _, k := range []struct {
		kind run.Kind
		ids  []uint64
	}{{run.KindGoal, w.GoalRuns}, {run.KindWorkflow, w.WorkflowRuns}, {run.KindBuild, w.Builds}} {
		for _, id := range k.ids {
			keys = append(keys, run.Key{Kind: k.kind, ID: id})
		}
	}
	return keys
}

// stopWorkflowRuns interrupts the workflow runs running in this process
// before the database closes (Close), waiting at most a few seconds: each
// pauses with its step resumable.
func (l *Local) stopWorkflowRuns() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.runs.Shutdown(ctx, run.KindWorkflow)
}
