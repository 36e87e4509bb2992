package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/workspace"
)

// Plan and build verbs of the Workspace facade (engine/build.go wires the
// build engine).

// ListPlans implements Workspace: the plans in .nova/prds/, each parsed and
// validated against the roster (any agent is accepted when it is
// unreadable).
func (l *Local) ListPlans(ctx context.Context) ([]PlanFile, error) {
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

// WritePlan implements Workspace: SUN (the large model, else the medium one)
// writes a PRD for goal with the roster's agents; a plan that does not
// validate is kept under .nova/prds/rejected/ and named in the error.
func (l *Local) WritePlan(ctx context.Context, goal, out string) (WrittenPlan, error) {
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

// PlannerModel is the model WritePlan asks: the large tier, else the medium.
func PlannerModel(cfg workspace.Config) string {
	if cfg.Models.Large != "" {
		return cfg.Models.Large
	}
	return cfg.Models.Medium
}

// ListBuilds implements Workspace.
func (l *Local) ListBuilds(ctx context.Context) ([]build.Build, error) {
	return l.Builds().List(ctx)
}

// GetBuild implements Workspace.
func (l *Local) GetBuild(ctx context.Context, id uint64) (build.Build, error) {
	return l.Builds().Get(ctx, id)
}

// BuildTasks implements Workspace.
func (l *Local) BuildTasks(ctx context.Context, id uint64) ([]build.Task, error) {
	return l.Builds().Tasks(ctx, id)
}

// CreateBuild implements Workspace.
func (l *Local) CreateBuild(ctx context.Context, prdPath string, o BuildOptions) (build.Build, error) {
	if !filepath.IsAbs(prdPath) {
		return build.Build{}, fmt.Errorf("prd %s: %w", prdPath, ErrRelativePath)
	}
	p, err := prd.Load(prdPath)
	if err != nil {
		return build.Build{}, err
	}
	return l.Builds().Create(ctx, p, prdPath, build.Options{Autonomy: o.Autonomy, Rehearse: o.Rehearse})
}

// RunBuild implements Workspace: the build runs on the caller's goroutine
// until it ends, pauses or ctx is canceled; its agents' approvals follow
// o.Approvals.
func (l *Local) RunBuild(ctx context.Context, id uint64, o RunBuildOptions) (build.Build, error) {
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

// PauseBuild implements Workspace.
func (l *Local) PauseBuild(ctx context.Context, id uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.Builds().Pause(id)
}

// CancelBuild implements Workspace.
func (l *Local) CancelBuild(ctx context.Context, id uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.Builds().Cancel(id)
}

// AnswerTask implements Workspace.
func (l *Local) AnswerTask(ctx context.Context, buildID uint64, taskID, text string) (bool, error) {
	return l.Builds().AnswerTask(ctx, buildID, taskID, text)
}

// RunningBuilds implements Workspace: the builds running in this process.
func (l *Local) RunningBuilds(ctx context.Context) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids := l.Builds().Running()
	if ids == nil {
		ids = []uint64{}
	}
	return ids, nil
}
