package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/owner"
	runengine "github.com/nova-dev/nova/engine/run"
)

// serveOptions is `nova serve`: a headless owner of the workspace.
type serveOptions struct {
	*Env
	JSON bool
	// Resume is the work to resume once serving (a hand-over's, which its
	// old owner interrupted): builds, goal runs, workflow runs. UntilIdle
	// stops serving once they ended and no other nova is attached.
	Resume    engine.RunningWork
	UntilIdle bool
	// ready, when set (tests), receives the report once it listens.
	ready func(serveReport)
}

func newServeCmd(env *Env, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{Env: env}
	var resume, resumeGoals, resumeWorkflows, resumeChats string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Own the workspace without a TUI and serve it to other nova processes",
		Long: "nova serve opens the workspace's database and serves it on .nova/nova.sock until\n" +
			"Ctrl-C (SIGINT) or SIGTERM: every other nova on the workspace works through it, and\n" +
			"the vault's index stays warm. It fails if another nova already owns the workspace.\n" +
			"A TUI that quits while builds, goal runs or workflow runs go on can hand them over to one\n" +
			"(it starts it with the --resume flags and --until-idle).",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.Resume.Builds, err = idsFlag(resume, buildID); err != nil {
				return err
			}
			if opts.Resume.GoalRuns, err = idsFlag(resumeGoals, goalRunID); err != nil {
				return err
			}
			if opts.Resume.WorkflowRuns, err = idsFlag(resumeWorkflows, workflowRunID); err != nil {
				return err
			}
			if opts.Resume.ChatSessions, err = idsFlag(resumeChats, chatSessionID); err != nil {
				return err
			}
			if len(opts.Resume.ChatSessions) == 0 {
				opts.Resume.ChatSessions = nil // omitted, as RunningWork leaves it
			}
			return pick(runF, runServe)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print where it listens as one JSON document")
	cmd.Flags().StringVar(&resume, "resume", "", "resume these builds (comma-separated ids) once serving, unattended")
	cmd.Flags().StringVar(&resumeGoals, "resume-goal-runs", "", "resume these goal runs (comma-separated ids) once serving, unattended")
	cmd.Flags().StringVar(&resumeWorkflows, "resume-workflow-runs", "", "resume these workflow runs (comma-separated ids) once serving, unattended")
	cmd.Flags().StringVar(&resumeChats, "resume-chat", "", "resume the interrupted turns of these chat sessions (comma-separated ids) once serving")
	cmd.Flags().BoolVar(&opts.UntilIdle, "until-idle", false, "stop once the resumed work ended and no other nova is attached")
	return cmd
}

// serveReport is what `nova serve --json` prints once it listens.
type serveReport struct {
	Root     string    `json:"root"`
	Socket   string    `json:"socket"`
	PID      int       `json:"pid"`
	Protocol int       `json:"protocol"`
	Version  string    `json:"version"`
	Since    time.Time `json:"since"`
	// Resumed are the builds a hand-over interrupted, resumed here;
	// ResumedGoalRuns and ResumedWorkflowRuns its runs.
	Resumed             []uint64 `json:"resumed"`
	ResumedGoalRuns     []uint64 `json:"resumedGoalRuns"`
	ResumedWorkflowRuns []uint64 `json:"resumedWorkflowRuns"`
}

// idsFlag parses a comma-separated list of ids ("" is none).
func idsFlag(list string, parse func(string) (uint64, error)) ([]uint64, error) {
	ids := []uint64{}
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		id, err := parse(f)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// runServe owns the workspace (or takes it over from the nova that started
// it, see owner.Handover) and serves it until ctx ends (SIGINT, SIGTERM):
// exit 0. Another owner, or a workspace that cannot be opened: exit 1.
func runServe(ctx context.Context, opts *serveOptions) error {
	root, err := opts.root()
	if err != nil {
		return err
	}
	o, err := owner.Serve(ctx, ownerOptions(opts.Env, root))
	if err != nil {
		return err
	}
	info := o.Info()
	rep := serveReport{Root: info.Root, Socket: info.Socket, PID: info.PID, Protocol: info.Protocol,
		Version: info.Version, Since: info.Since,
		Resumed:             append([]uint64{}, opts.Resume.Builds...),
		ResumedGoalRuns:     append([]uint64{}, opts.Resume.GoalRuns...),
		ResumedWorkflowRuns: append([]uint64{}, opts.Resume.WorkflowRuns...)}
	// The work runs in this process until it stops; stopping interrupts it
	// (resumable).
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	running := resumeWork(work, opts.Env, o.Value(), opts.Resume)
	if opts.JSON {
		if err := opts.IO.PrintJSON(rep); err != nil {
			_ = o.Close()
			return err
		}
	} else {
		opts.IO.Printf("nova: serving %s on %s (pid %d, protocol %d); stop with Ctrl-C\n",
			rep.Root, rep.Socket, rep.PID, rep.Protocol)
		for _, j := range resumeJobs(o.Value(), opts.Resume) {
			opts.IO.Printf("nova: resuming %s %d\n", j.noun, j.id)
		}
	}
	if opts.ready != nil {
		opts.ready(rep)
	}
	waitCtx := ctx
	if opts.UntilIdle {
		var stop context.CancelFunc
		waitCtx, stop = context.WithCancel(ctx)
		defer stop()
		go func() {
			untilIdle(waitCtx, running, func() int { return len(o.Clients()) })
			opts.IO.Logf("nova: idle (nothing runs, no nova attached): stopping\n")
			stop()
		}()
	}
	if err := o.Wait(waitCtx); err != nil {
		return fmt.Errorf("stop serving: %w", err)
	}
	return nil
}

// resumeJob is one piece of a hand-over's work to resume: its kind's
// noun ("build", "goal run", "workflow run"), its id, and the call that
// runs it to its end, saying how it ended.
type resumeJob struct {
	noun string
	id   uint64
	run  func(ctx context.Context) (string, error)
}

// resumers run one kind of run to its end, unattended, saying how it
// ended: the hand-over's one way to resume a run of any kind.
var resumers = map[runengine.Kind]struct {
	noun string
	run  func(ctx context.Context, ws engine.Workspace, id uint64) (string, error)
}{
	runengine.KindGoal: {"goal run", func(ctx context.Context, ws engine.Workspace, id uint64) (string, error) {
		r, err := ws.RunGoal(ctx, id, engine.RunGoalOptions{Approvals: engine.ApproveNone})
		return strings.TrimSpace(string(r.Status) + " " + r.Reason), err
	}},
	runengine.KindWorkflow: {"workflow run", func(ctx context.Context, ws engine.Workspace, id uint64) (string, error) {
		r, err := ws.RunWorkflow(ctx, id, engine.RunWorkflowOptions{Approvals: engine.ApproveNone})
		if errors.Is(err, workflow.ErrFinished) {
			return "done (before the hand-over)", nil
		}
		return strings.TrimSpace(string(r.Status) + " " + r.Reason), err
	}},
	runengine.KindChat: {"chat session", func(ctx context.Context, ws engine.Workspace, id uint64) (string, error) {
		t, err := ws.ChatResume(ctx, id, "")
		if errors.Is(err, chat.ErrNothingToResume) {
			return "done (before the hand-over)", nil
		}
		return strings.TrimSpace(fmt.Sprintf("turn %d %s", t.N, t.Status)), err
	}},
	runengine.KindBuild: {"build", func(ctx context.Context, ws engine.Workspace, id uint64) (string, error) {
		b, err := ws.RunBuild(ctx, id, engine.RunBuildOptions{Approvals: engine.ApproveNone})
		return strings.TrimSpace(string(b.Status) + " " + b.Reason), err
	}},
}

// resumeJobs is the work to resume, one job a run of any kind, runs first
// (their builds are theirs). Nobody may be there to answer: it runs
// unattended, approvals denied and logged, as a headless run does.
func resumeJobs(ws engine.Workspace, w engine.RunningWork) []resumeJob {
	var jobs []resumeJob
	for _, k := range w.Keys() {
		r, ok := resumers[k.Kind]
		if !ok {
			continue
		}
		jobs = append(jobs, resumeJob{noun: r.noun, id: k.ID, run: func(ctx context.Context) (string, error) {
			return r.run(ctx, ws, k.ID)
		}})
	}
	return jobs
}

// resumeWork resumes a hand-over's work in the background (done work is
// not redone: each resume verb goes on where the run stopped); the
// returned channel closes when all of it ended.
func resumeWork(ctx context.Context, env *Env, ws engine.Workspace, w engine.RunningWork) <-chan struct{} {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, j := range resumeJobs(ws, w) {
		wg.Go(func() {
			end, err := j.run(ctx)
			if err != nil {
				env.IO.Logf("nova: %s %d: %v\n", j.noun, j.id, err)
				return
			}
			env.IO.Logf("nova: %s %d %s\n", j.noun, j.id, end)
		})
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// idleEvery is how often an --until-idle owner looks for clients.
const idleEvery = time.Second

// untilIdle returns when the resumed work ended and no client was attached at
// two looks in a row (a client between two commands reconnects quickly).
func untilIdle(ctx context.Context, work <-chan struct{}, clients func() int) {
	select {
	case <-ctx.Done():
		return
	case <-work:
	}
	idle := 0
	t := time.NewTicker(idleEvery)
	defer t.Stop()
	for idle < 2 {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if clients() == 0 {
			idle++
		} else {
			idle = 0
		}
	}
}
