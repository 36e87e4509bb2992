package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/engine/workspace"
)

// BuildVerbs are the verbs of plans (PRDs), builds and the work running in the owning process.
type BuildVerbs interface {
	// ListPlans lists the plans in .nova/prds/, each parsed and validated.
	//rpc:idempotent
	ListPlans(ctx context.Context) ([]PlanFile, error)
	// WritePlan asks SUN for a PRD for a goal, validates it and saves it
	// (blocking; to out, or under .nova/prds/).
	WritePlan(ctx context.Context, goal, out string) (WrittenPlan, error)
	// ListBuilds lists builds, newest first.
	//rpc:idempotent
	ListBuilds(ctx context.Context) ([]build.Build, error)
	// GetBuild returns one build.
	//rpc:idempotent
	GetBuild(ctx context.Context, id uint64) (build.Build, error)
	// BuildTasks returns a build's tasks in plan order.
	//rpc:idempotent
	BuildTasks(ctx context.Context, id uint64) ([]build.Task, error)
	// CreateBuild loads and validates a PRD and stores a new build of it;
	// nothing runs until RunBuild.
	CreateBuild(ctx context.Context, prdPath string, o BuildOptions) (build.Build, error)
	// RunBuild runs (or resumes) a build to its end (blocking): done tasks
	// are not re-run. Progress: TopicBuild events with its id. Canceling ctx
	// stops it, interrupted and resumable. Unattended (the default) it gives
	// up waiting for the model server after ollama.waitLimit and ends paused
	// when tasks ask the user; o.Attended waits for both until stopped.
	RunBuild(ctx context.Context, id uint64, o RunBuildOptions) (build.Build, error)
	// AnswerTask answers a build task that asks the user (EventTaskAsking):
	// the answer goes into its next attempt. It reports whether the build
	// runs here and continues at once; otherwise RunBuild resumes it.
	// build.ErrNotWaiting when the task asks nothing.
	AnswerTask(ctx context.Context, buildID uint64, taskID, text string) (resumed bool, err error)
	// RunningBuilds lists the builds running in the process that owns the
	// workspace (quitting it interrupts them, resumable).
	//rpc:idempotent
	RunningBuilds(ctx context.Context) ([]uint64, error)
	// PauseBuild stops a running build after its current tasks.
	PauseBuild(ctx context.Context, id uint64) error
	// CancelBuild stops a running build now (resumable).
	CancelBuild(ctx context.Context, id uint64) error
	// RunningWork lists the work running in the owning process: its goal
	// runs, its workflow runs, and the builds running on their own (not a
	// goal run's or a workflow step's). Quitting it interrupts them,
	// resumable; a hand-over resumes exactly these in the new owner.
	//rpc:idempotent
	RunningWork(ctx context.Context) (RunningWork, error)
}

// buildArea implements BuildVerbs over the workspace's services.
type buildArea struct{ *core }

var _ BuildVerbs = buildArea{}

// ListPlans implements BuildVerbs: the plans in .nova/prds/, each parsed and
// validated against the roster (any agent is accepted when it is
// unreadable).
func (l buildArea) ListPlans(ctx context.Context) ([]PlanFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var known func(string) bool
	if roster, _ := l.Agents(); roster != nil {
		known = roster.Has
	}
	files, err := build.ListPlans(l.ws.Path("prds"), known)
	if err != nil {
		return nil, err
	}
	out := make([]PlanFile, len(files))
	for i, f := range files {
		out[i] = PlanFile{Path: f.Path, Name: f.Name, Title: f.Title, Tasks: f.Tasks}
		if f.Err != nil {
			out[i].Problem = f.Err.Error()
		}
	}
	return out, nil
}

// WritePlan implements BuildVerbs: SUN (the large model, else the medium one)
// writes a PRD for goal with the roster's agents; a plan that does not
// validate is kept under .nova/prds/rejected/ and named in the error.
func (l buildArea) WritePlan(ctx context.Context, goal, out string) (WrittenPlan, error) {
	goal = strings.TrimSpace(goal)
	if goal == "" {
		return WrittenPlan{}, fmt.Errorf("%w: empty goal", build.ErrPlan)
	}
	if out != "" && !filepath.IsAbs(out) {
		return WrittenPlan{}, fmt.Errorf("plan output %s: %w", out, ErrRelativePath)
	}
	roster, _ := l.Agents()
	var agentsList []string
	system := ""
	for _, s := range roster.List() {
		role := []rune(strings.ReplaceAll(s.Role, "\n", " "))
		if len(role) > 100 {
			role = append(role[:100], '…')
		}
		agentsList = append(agentsList, s.ID+": "+string(role))
		if strings.EqualFold(s.ID, "SUN") {
			system = s.Role
		}
	}
	p, warns, err := build.Plan(ctx, l.llm, build.PlanRequest{Goal: goal, Model: PlannerModel(l.Config()), Agents: agentsList,
		KnownAgent: roster.Has, System: system})
	if err != nil {
		var ve *prd.ValidationError
		if p != nil && errors.As(err, &ve) {
			// Keep the rejected plan for inspection, never under prds/.
			also := ""
			for _, w := range warns {
				also += "\nwarning: " + w
			}
			if path, serr := build.SavePlan(l.ws.Path("prds", "rejected"), p); serr == nil {
				return WrittenPlan{}, fmt.Errorf("%w%s\n(the rejected plan is in %s)", err, also, path)
			}
		}
		return WrittenPlan{}, err
	}
	if p.Meta.Name == "" {
		p.Meta.Name = goal
	}
	path := out
	if out != "" {
		err = p.Save(out)
	} else {
		path, err = build.SavePlan(l.ws.Path("prds"), p)
	}
	if err != nil {
		return WrittenPlan{}, fmt.Errorf("save plan: %w", err)
	}
	return WrittenPlan{Path: path, PRD: *p, Warnings: warns}, nil
}

// ListBuilds implements BuildVerbs.
func (l buildArea) ListBuilds(ctx context.Context) ([]build.Build, error) {
	return l.Builds().List(ctx)
}

// GetBuild implements BuildVerbs.
func (l buildArea) GetBuild(ctx context.Context, id uint64) (build.Build, error) {
	return l.Builds().Get(ctx, id)
}

// BuildTasks implements BuildVerbs.
func (l buildArea) BuildTasks(ctx context.Context, id uint64) ([]build.Task, error) {
	return l.Builds().Tasks(ctx, id)
}

// CreateBuild implements BuildVerbs.
func (l buildArea) CreateBuild(ctx context.Context, prdPath string, o BuildOptions) (build.Build, error) {
	if !filepath.IsAbs(prdPath) {
		return build.Build{}, fmt.Errorf("prd %s: %w", prdPath, ErrRelativePath)
	}
	p, err := prd.Load(prdPath)
	if err != nil {
		return build.Build{}, err
	}
	return l.Builds().Create(ctx, p, prdPath, build.Options{Autonomy: o.Autonomy, Rehearse: o.Rehearse})
}

// RunBuild implements BuildVerbs: the build runs on the caller's goroutine
// until it ends, pauses or ctx is canceled; its agents' approvals follow
// o.Approvals.
func (l buildArea) RunBuild(ctx context.Context, id uint64, o RunBuildOptions) (build.Build, error) {
	key := strconv.FormatUint(id, 10)
	l.build.policy.Store(key, o.Approvals)
	defer l.build.policy.Delete(key)
	run := l.Builds().Run
	if o.Attended {
		run = l.Builds().RunAttended
	}
	b, err := run(ctx, id, nil)
	if errors.Is(err, build.ErrActive) {
		return b, fmt.Errorf("build %d is already running: %w", id, err)
	}
	return b, err
}

// PauseBuild implements BuildVerbs.
func (l buildArea) PauseBuild(ctx context.Context, id uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.Builds().Pause(id)
}

// CancelBuild implements BuildVerbs.
func (l buildArea) CancelBuild(ctx context.Context, id uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.Builds().Cancel(id)
}

// AnswerTask implements BuildVerbs.
func (l buildArea) AnswerTask(ctx context.Context, buildID uint64, taskID, text string) (bool, error) {
	return l.Builds().AnswerTask(ctx, buildID, taskID, text)
}

// RunningBuilds implements BuildVerbs: the builds running in this process.
func (l buildArea) RunningBuilds(ctx context.Context) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids := l.Builds().Running()
	if ids == nil {
		ids = []uint64{}
	}
	return ids, nil
}

// RunningWork implements BuildVerbs.
func (l buildArea) RunningWork(ctx context.Context) (RunningWork, error) {
	if err := ctx.Err(); err != nil {
		return RunningWork{}, err
	}
	w := RunningWork{Builds: []uint64{}, GoalRuns: append([]uint64{}, l.runs.Running(run.KindGoal)...),
		WorkflowRuns: append([]uint64{}, l.runs.Running(run.KindWorkflow)...), ChatSessions: l.chatRunningWork()}
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

// PlannerModel is the model WritePlan asks: the large tier, else the medium.
func PlannerModel(cfg workspace.Config) string {
	if cfg.Models.Large != "" {
		return cfg.Models.Large
	}
	return cfg.Models.Medium
}

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

// Keys are the work's runs as keys, runs first (their builds are theirs):
// goal runs, workflow runs, chat sessions (keyed by session: a hand-over
// resumes a session's running turn), builds.
func (w RunningWork) Keys() []run.Key {
	var keys []run.Key
	for _, k := range []struct {
		kind run.Kind
		ids  []uint64
	}{{run.KindGoal, w.GoalRuns}, {run.KindWorkflow, w.WorkflowRuns}, {run.KindChat, w.ChatSessions}, {run.KindBuild, w.Builds}} {
		for _, id := range k.ids {
			keys = append(keys, run.Key{Kind: k.kind, ID: id})
		}
	}
	return keys
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

// stopWorkflowRuns interrupts the workflow runs running in this process
// before the database closes (Close), waiting at most a few seconds: each
// pauses with its step resumable.
func (l *core) stopWorkflowRuns() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.runs.Shutdown(ctx, run.KindWorkflow)
}
