package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/rpc"
)

// runState is where a followed build or run is, as read from the
// workspace.
type runState int

const (
	// runGoing: a process runs it.
	runGoing runState = iota
	// runStopped: it stopped midway, resumable, and no process runs it: a
	// hand-over's new owner resumes it within seconds.
	runStopped
	// runEnded: it ended (done, failed, paused on a question, canceled…).
	runEnded
)

// follower is how a CLI command follows one long run — a build, a goal run
// or a workflow run — whose blocking call (RunBuild, RunGoal, RunWorkflow)
// may run in another nova, the workspace's owner: the run's name and
// commands, and how to read its state.
type follower[T any] struct {
	noun   string // "build", "goal run", "workflow run"
	id     uint64
	resume string // "nova build resume 3"
	show   string // "nova build show 3"
	// get reads the run: its value, its status (for messages) and state.
	get func(ctx context.Context) (v T, status string, st runState, err error)
	// end is the run's last event as its state tells it: shown in place
	// of the real one when that was lost (see showEnd).
	end func(v T) engine.Event
}

// printEventJSON prints one event as a line of JSON (a follower's --json
// output).
func printEventJSON(env *Env, ev engine.Event) {
	// Published events are redacted already; an end event this command
	// makes up from the run record is not (RedactEvent is idempotent).
	line, _ := json.Marshal(engine.RedactEvent(ev))
	_, _ = fmt.Fprintf(env.IO.Out, "%s\n", line)
}

// printEvents shows events with show until show reports the run's last
// event (sawEnd is then set) or the stream ends; printed closes then.
func printEvents(events <-chan engine.Event, show func(engine.Event) bool) (printed <-chan struct{}, sawEnd *atomic.Bool) {
	done, end := make(chan struct{}), new(atomic.Bool)
	go func() {
		defer close(done)
		for ev := range events {
			if show(ev) {
				end.Store(true)
				return
			}
		}
	}()
	return done, end
}

// showEnd makes sure the run's end is shown once it ended: the printer
// (which closes printed, and sets sawEnd when it showed the run's last
// event) is stopped, and when it never saw that event (published while a
// follower waited for the next owner's stream, so lost) show gets one
// made from the run's state, v. A --json reader always gets the end.
func (f follower[T]) showEnd(v T, printed <-chan struct{}, stopSub func(), sawEnd *atomic.Bool, show func(engine.Event) bool) {
	stopSub()
	<-printed
	if !sawEnd.Load() {
		ev := f.end(v)
		ev.Time = time.Now()
		show(ev)
	}
}

// settle turns the end of the run's call into the run's end as the command
// reports it. printed closes once the event printer saw the run's last
// event; stopSub ends the event stream.
//
//   - The owning nova stopped serving while it ran the run (its TUI quit,
//     maybe handing the run over to a headless `nova serve`): follow the run
//     wherever it goes on, until it ends (its end), or stays stopped with
//     nobody resuming it (an error with the resume command). Ctrl-C stops
//     following, not the run.
//   - Ctrl-C: the run stops where it runs (maybe in another process); its
//     stopped state is the end, as when it stops in this process (the call
//     itself only says "canceled").
func (f follower[T]) settle(ctx context.Context, env *Env, printed <-chan struct{}, stopSub func(), v T, err error) (T, error) {
	switch {
	case err != nil && ctx.Err() == nil && (errors.Is(err, rpc.ErrConnLost) || engine.IsCanceled(err)):
		env.IO.Logf("nova: the nova that ran %s %d stopped serving; following the %s (ctrl+c stops following, not the %s)\n",
			f.noun, f.id, f.noun, f.noun)
		got, err := f.await(ctx, printed)
		if err != nil {
			if ctx.Err() != nil {
				env.IO.Logf("nova: stopped following %s %d (`%s` tells how it goes)\n", f.noun, f.id, f.show)
				return got, &reportedError{msg: "canceled"}
			}
			return got, fmt.Errorf("%s %d: %w; resume it with `%s`", f.noun, f.id, err, f.resume)
		}
		v = got
	case err != nil && ctx.Err() != nil:
		select {
		case <-printed:
		case <-time.After(5 * time.Second):
		}
		stopSub()
		<-printed
		// The run stops where it runs: through an owner, this call
		// returned at once while the owner still winds the run down, so
		// its state is read until it leaves "going" (bounded).
		gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			got, _, st, gerr := f.get(gctx)
			if gerr == nil && st != runGoing {
				return got, nil
			}
			select {
			case <-gctx.Done():
				return v, err
			case <-tick.C:
			}
		}
	case err != nil:
		stopSub()
		<-printed
		return v, err
	}
	select {
	case <-printed:
	case <-time.After(2 * time.Second):
	}
	return v, nil
}

// await waits for a run that goes on elsewhere to end: its state is read
// every second and when its last event was printed (events can be lost
// while a client follows a new owner). A run that stays stopped with no
// process running it (its owner was killed, or quit without handing it
// over) ends the wait with errStopped after stoppedPolls looks; one that
// went on and stopped again ended there.
func (f follower[T]) await(ctx context.Context, printed <-chan struct{}) (T, error) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	stopped, wentOn := 0, false
	for {
		select {
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		case <-printed:
			printed = nil // its last event: read the end below
		case <-tick.C:
		}
		v, status, st, err := f.get(ctx)
		switch {
		case err != nil:
			stopped = 0
		case st == runEnded || (st == runStopped && wentOn):
			return v, nil
		case st == runStopped:
			if stopped++; stopped >= stoppedPolls {
				return v, fmt.Errorf("%w (%s)", errStopped, status)
			}
		default:
			stopped, wentOn = 0, true
		}
	}
}

// followEvents is ws's event stream for following a run until ctx ends.
// A stream that ends before (its owner went away for longer than a client
// waits for one: a slow hand-over) is opened again, so that the run's
// events from its next owner still arrive; those published in between are
// lost (the run's state is read at its end). The first subscription is
// made before followEvents returns, so that nothing published after it
// is missed.
func followEvents(ctx context.Context, ws engine.Workspace) <-chan engine.Event {
	first := ws.Subscribe(ctx)
	out := make(chan engine.Event)
	go func() {
		defer close(out)
		for events := first; ; events = ws.Subscribe(ctx) {
			for ev := range events {
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(resubscribeEvery):
			}
		}
	}()
	return out
}

// resubscribeEvery spaces the attempts to open a follower's event stream
// again.
const resubscribeEvery = 250 * time.Millisecond

// stoppedPolls is how many looks, a second apart, a followed run may stay
// stopped before await gives up on it.
const stoppedPolls = 8

// errStopped: a followed run stopped and nobody resumed it.
var errStopped = errors.New("it stopped and no nova resumed it")

// stateOf is a run's state from what its store and engine say: going
// while a process runs it, stopped when it stopped midway, else ended.
func stateOf(going, stopped bool) runState {
	switch {
	case going:
		return runGoing
	case stopped:
		return runStopped
	}
	return runEnded
}

// missedEnd is the reason an end event built from a run's state gives when the run has none
// of its own.
const missedEnd = "read from its state (its own last event was missed while following it)"

// printTimed prints one event line, stamped with the event's local time.
func printTimed(env *Env, ev engine.Event, line string) {
	env.IO.Printf("%s %s\n", ev.Time.Local().Format("15:04:05"), line)
}

func buildFollower(ws engine.Workspace, id uint64) follower[build.Build] {
	return follower[build.Build]{noun: "build", id: id,
		resume: fmt.Sprintf("nova build resume %d", id), show: fmt.Sprintf("nova build show %d", id),
		get: func(ctx context.Context) (build.Build, string, runState, error) {
			b, err := ws.GetBuild(ctx, id)
			going := b.Active || b.Status == build.StatusRunning || b.Status == build.StatusWaiting
			return b, string(b.Status), stateOf(going, b.Status == build.StatusInterrupted), err
		},
		end: func(b build.Build) engine.Event {
			ev := engine.Event{Topic: engine.TopicBuild, BuildID: strconv.FormatUint(id, 10), Status: string(b.Status),
				Type: endType(b.Status == build.StatusDone, b.Status == build.StatusFailed)}
			ev.Text = "build " + ev.Status + ": " + orText(b.Reason, missedEnd)
			return ev
		}}
}

func goalFollower(ws engine.Workspace, id uint64) follower[goal.Run] {
	return follower[goal.Run]{noun: "goal run", id: id,
		resume: fmt.Sprintf("nova run resume %d", id), show: fmt.Sprintf("nova run show %d", id),
		get: func(ctx context.Context) (goal.Run, string, runState, error) {
			d, err := ws.GetGoalRun(ctx, id)
			r := d.Run
			going := r.Active || r.Status == goal.StatusRunning || r.Status == goal.StatusWaiting
			return r, string(r.Status), stateOf(going, r.Status == goal.StatusInterrupted), err
		},
		end: func(r goal.Run) engine.Event {
			ev := engine.Event{Topic: engine.TopicGoal, GoalRunID: strconv.FormatUint(id, 10), Status: string(r.Status),
				Type: endType(r.Status == goal.StatusCompleted, r.Status == goal.StatusFailed)}
			ev.Text = "run " + ev.Status + ": " + orText(r.Reason, missedEnd)
			return ev
		}}
}

// workflowFollower: a workflow run a quit interrupts pauses (its step
// resumable), so a paused run that no process runs is stopped, not ended.
func workflowFollower(ws engine.Workspace, id uint64) follower[workflow.Run] {
	return follower[workflow.Run]{noun: "workflow run", id: id,
		resume: fmt.Sprintf("nova workflow resume %d", id), show: fmt.Sprintf("nova workflow status %d", id),
		get: func(ctx context.Context) (workflow.Run, string, runState, error) {
			r, err := ws.GetWorkflowRun(ctx, id)
			ended := r.Status == workflow.RunDone || r.Status == workflow.RunFailed
			return r, string(r.Status), stateOf(r.Active, !ended), err
		},
		end: func(r workflow.Run) engine.Event {
			return engine.Event{Topic: engine.TopicWorkflow, RunID: strconv.FormatUint(id, 10), Status: string(r.Status),
				Type: endType(r.Status == workflow.RunDone, r.Status == workflow.RunFailed),
				Text: orText(r.Reason, missedEnd)}
		}}
}

// endType is the type of a run's last event: done, failed, or a change of
// status (paused, interrupted, …).
func endType(done, failed bool) engine.EventType {
	switch {
	case done:
		return engine.EventDone
	case failed:
		return engine.EventFailed
	}
	return engine.EventChanged
}

func orText(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}
