package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/skills"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/internal/safefile"
)

// LibraryVerbs are the verbs of the library: skills, workflows and blueprints.
type LibraryVerbs interface {
	// ListSkills lists the skills (built-ins, then .nova/skills/) by name
	// with the problems of files that did not load; with agent set, only
	// those that agent may run (an unknown agent wraps agents.ErrUnknownAgent).
	ListSkills(ctx context.Context, agent string) (SkillList, error)
	// GetSkill returns one skill with its YAML (skills.ErrNotFound wrapped,
	// listing the skills, when none).
	GetSkill(ctx context.Context, name string) (SkillDetail, error)
	// RunSkill runs a skill's tool steps with an agent's permissions
	// (blocking; TopicSkill events carrying o.Op), recorded as an agent run
	// with one trace per step. Bad or missing inputs wrap params.ErrUsage
	// and name the input, before anything runs; a failed step is a result
	// (Success false, FailedStep), not an error.
	RunSkill(ctx context.Context, name string, o SkillRunOptions) (SkillRunResult, error)
	// ListWorkflows lists the workflows (shipped, then .nova/workflows/) by
	// id with the problems of files that did not load.
	ListWorkflows(ctx context.Context) (WorkflowList, error)
	// GetWorkflow returns one workflow with its YAML (workflow.ErrNotFound
	// wrapped when none).
	GetWorkflow(ctx context.Context, id string) (WorkflowDetail, error)
	// MatchWorkflows returns the workflows a request triggers, best first,
	// with parameter values read from the text ([] when none).
	MatchWorkflows(ctx context.Context, text string) ([]workflow.Match, error)
	// CreateWorkflowRun checks a workflow's parameters (a missing or bad
	// one wraps params.ErrUsage and names it) and stores a new run; nothing
	// runs until RunWorkflow.
	CreateWorkflowRun(ctx context.Context, id string, o WorkflowOptions) (workflow.Run, error)
	// RunWorkflow runs or resumes a workflow run (blocking): agent steps as
	// one-task builds, skill steps through RunSkill; TopicWorkflow events
	// (EventStep per step) carrying o.Op, and the steps' TopicBuild events.
	// It ends done, failed, or paused (a step's build stopped, or ctx was
	// canceled: resumable; done and skipped steps never run again).
	RunWorkflow(ctx context.Context, runID uint64, o RunWorkflowOptions) (workflow.Run, error)
	// CancelWorkflowRun stops a run running in the owning process; it
	// pauses, resumable.
	CancelWorkflowRun(ctx context.Context, runID uint64) error
	// ListWorkflowRuns lists workflow runs, newest first (limit 0: all). A
	// run stored as running but not Active was interrupted: resumable.
	ListWorkflowRuns(ctx context.Context, limit int) ([]workflow.Run, error)
	// GetWorkflowRun returns one workflow run with its steps.
	GetWorkflowRun(ctx context.Context, runID uint64) (workflow.Run, error)
	// AddBlueprint stores a blueprint file (an absolute path) as a new
	// blueprint or a new version of one (an unchanged spec adds none; note
	// describes the change). Problems of the file wrap blueprint.ErrInvalid
	// ("file:line: field: message"); a PRD template that does not render
	// with the defaults wraps blueprint.ErrRender.
	AddBlueprint(ctx context.Context, path, note string) (blueprint.AddResult, error)
	// SaveBlueprint turns a finished build's PRD into a blueprint: whole
	// string values equal to a parameter's default become its placeholder
	// (a bad declaration wraps params.ErrUsage).
	SaveBlueprint(ctx context.Context, buildID uint64, o SaveBlueprintOptions) (SaveBlueprintResult, error)
	// ListBlueprints lists the blueprints by name with status and evidence.
	ListBlueprints(ctx context.Context) ([]blueprint.Summary, error)
	// ShowBlueprint returns a blueprint with its status, evidence and uses
	// (blueprint.ErrNotFound wrapped when none).
	ShowBlueprint(ctx context.Context, name string) (blueprint.Details, error)
	// BlueprintHistory returns every version of a blueprint, oldest first.
	BlueprintHistory(ctx context.Context, name string) ([]blueprint.VersionRecord, error)
	// UseBlueprint renders a blueprint to a PRD (a bad, unknown or missing
	// parameter wraps params.ErrUsage and names it), writes it to o.Out
	// (an absolute path; an existing file wraps ErrExists unless
	// o.Overwrite) and with o.Build creates its build (run it with
	// RunBuild); the build counts toward the blueprint's evidence.
	UseBlueprint(ctx context.Context, name string, o UseOptions) (UseResult, error)
}

// libraryArea implements LibraryVerbs over the workspace's services.
type libraryArea struct{ *core }

var _ LibraryVerbs = libraryArea{}

// ListSkills lists the skills (built-ins and .nova/skills/) by name; with
// agent set, only those that agent may run (an unknown agent is an error
// wrapping agents.ErrUnknownAgent).
func (l libraryArea) ListSkills(ctx context.Context, agent string) (SkillList, error) {
	if err := ctx.Err(); err != nil {
		return SkillList{}, err
	}
	reg, errs := l.skillRegistry()
	out := SkillList{Skills: reg.ListAll(), Problems: problems(errs)}
	if agent != "" {
		roster, _ := l.Agents()
		spec, err := roster.Get(agent)
		if err != nil {
			return SkillList{}, fmt.Errorf("%w (known: %s)", err, strings.Join(roster.IDs(), ", "))
		}
		out.Skills = reg.ListForAgent(spec.ID)
	}
	if out.Skills == nil {
		out.Skills = []skills.Skill{}
	}
	return out, nil
}

// GetSkill returns one skill with its file; an unknown name wraps
// skills.ErrNotFound and lists the skills.
func (l libraryArea) GetSkill(ctx context.Context, name string) (SkillDetail, error) {
	if err := ctx.Err(); err != nil {
		return SkillDetail{}, err
	}
	reg, errs := l.skillRegistry()
	reg0, ok := reg.Lookup(name)
	if !ok {
		return SkillDetail{}, skillNotFound(reg, errs, name)
	}
	d := SkillDetail{Skill: reg0.Skill, Builtin: reg0.Source == skills.SourceBuiltin}
	if d.Builtin {
		d.YAML = string(skills.BuiltinFiles()[name+".yaml"])
	} else if data, err := safefile.ReadFile(reg0.Skill.Source, skills.MaxFileSize); err == nil {
		d.YAML = string(data)
	}
	return d, nil
}

// RunSkill runs a skill outside the agent loop (`nova skills run`, the
// Library screen, workflow skill steps) with the agent's permissions,
// confinement and staging, recorded as an agent run with one trace per
// step. An unknown skill wraps skills.ErrNotFound; a skill not for the
// agent, or bad or missing inputs, wrap params.ErrUsage and name the
// problem; all before anything runs. A skill that fails is not an error:
// see Result.Success.
func (l libraryArea) RunSkill(ctx context.Context, name string, opts SkillRunOptions) (SkillRunResult, error) {
	return l.runSkill(ctx, name, opts, values(opts.Inputs), "", "")
}

// ListWorkflows lists the workflows by id: the five shipped in the binary,
// then .nova/workflows/ (a file with a shipped id replaces it).
func (l libraryArea) ListWorkflows(ctx context.Context) (WorkflowList, error) {
	if err := ctx.Err(); err != nil {
		return WorkflowList{}, err
	}
	lib, errs := l.workflowLibrary()
	out := WorkflowList{Workflows: lib.List(), Problems: problems(errs)}
	if out.Workflows == nil {
		out.Workflows = []workflow.Workflow{}
	}
	return out, nil
}

// GetWorkflow returns one workflow with its file (its Params are what a
// terminal asks for; see params.Missing). An unknown id wraps
// workflow.ErrNotFound; a workflow whose file is invalid returns the file's
// problems.
func (l libraryArea) GetWorkflow(ctx context.Context, id string) (WorkflowDetail, error) {
	if err := ctx.Err(); err != nil {
		return WorkflowDetail{}, err
	}
	w, err := l.findWorkflow(id)
	if err != nil {
		return WorkflowDetail{}, err
	}
	d := WorkflowDetail{Workflow: w, Builtin: w.Source == workflow.SourceBuiltin}
	if d.Builtin {
		if data, err := fs.ReadFile(l.library().defaults, id+".yaml"); err == nil {
			d.YAML = string(data)
		}
	} else if data, err := safefile.ReadFile(w.Source, workflow.MaxFileSize); err == nil {
		d.YAML = string(data)
	}
	return d, nil
}

// MatchWorkflows returns the workflows a request triggers, best first,
// with parameter values read from the text (empty when none matches).
func (l libraryArea) MatchWorkflows(ctx context.Context, text string) ([]workflow.Match, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lib, _ := l.workflowLibrary()
	out := workflow.Matches(text, lib.List())
	if out == nil {
		out = []workflow.Match{}
	}
	return out, nil
}

// CreateWorkflowRun checks a workflow's parameters (a missing or bad one
// wraps params.ErrUsage and names it: exit 2) and stores a new run; nothing
// runs until RunWorkflow.
func (l libraryArea) CreateWorkflowRun(ctx context.Context, id string, o WorkflowOptions) (workflow.Run, error) {
	w, err := l.findWorkflow(id)
	if err != nil {
		return workflow.Run{}, err
	}
	return l.library().runs.Create(ctx, w, values(o.Params), workflow.CreateOptions{Request: o.Request, Autonomy: o.Autonomy})
}

// RunWorkflow runs (or resumes) a workflow run on the caller's goroutine
// until it ends (done, failed), pauses (a step did not finish) or ctx is
// canceled (then it pauses, resumable). Done and skipped steps are never
// re-run; a paused step continues its build; a failed run's failed step
// runs again.
func (l libraryArea) RunWorkflow(ctx context.Context, runID uint64, o RunWorkflowOptions) (workflow.Run, error) {
	ls := l.library()
	ls.policy.Store(runID, o)
	defer ls.policy.Delete(runID)
	return ls.runs.Run(ctx, runID, workflow.RunOptions{})
}

// CancelWorkflowRun stops a run running in this process; its step is
// interrupted and the run pauses (resumable).
func (l libraryArea) CancelWorkflowRun(ctx context.Context, runID uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.library().runs.Cancel(runID)
}

// ListWorkflowRuns returns workflow runs, newest first (limit 0: all). A
// run stored as running but not Active was interrupted: resumable.
func (l libraryArea) ListWorkflowRuns(ctx context.Context, limit int) ([]workflow.Run, error) {
	return l.library().runs.List(ctx, limit)
}

// GetWorkflowRun returns one run (ErrRunNotFound wrapped when none).
func (l libraryArea) GetWorkflowRun(ctx context.Context, runID uint64) (workflow.Run, error) {
	return l.library().runs.Get(ctx, runID)
}

// AddBlueprint reads a blueprint file (an absolute path), checks it (the
// file's problems as "file:line: field: message", wrapping
// blueprint.ErrInvalid; a template that does not render a valid PRD with
// the defaults, wrapping blueprint.ErrRender) and stores it: a new name is
// version 1, an unchanged spec adds no version, a changed one adds version
// n+1 with note (or a description of the change).
func (l libraryArea) AddBlueprint(ctx context.Context, path, note string) (blueprint.AddResult, error) {
	if !filepath.IsAbs(path) {
		return blueprint.AddResult{}, fmt.Errorf("blueprint %s: %w", path, ErrRelativePath)
	}
	data, err := blueprint.ReadFile(path) // regular, at most MaxFileSize bytes read
	if err != nil {
		return blueprint.AddResult{}, err
	}
	spec, errs := blueprint.Parse(path, data)
	if len(errs) > 0 {
		return blueprint.AddResult{}, errors.Join(errs...)
	}
	return l.addBlueprintSpec(ctx, spec, note)
}

// SaveBlueprint turns a finished build's PRD into a blueprint: every whole
// string value of the PRD equal to a parameter's default becomes its
// placeholder, never a substring. A bad declaration wraps params.ErrUsage;
// a build that has not finished is refused.
func (l libraryArea) SaveBlueprint(ctx context.Context, buildID uint64, o SaveBlueprintOptions) (SaveBlueprintResult, error) {
	var ds []blueprint.ParamDecl
	for _, s := range o.Params {
		d, err := blueprint.ParseParamDecl(s)
		if err != nil {
			return SaveBlueprintResult{}, err
		}
		ds = append(ds, d)
	}
	b, err := l.Builds().Get(ctx, buildID)
	if err != nil {
		return SaveBlueprintResult{}, err
	}
	if b.Status != build.StatusDone && b.Status != build.StatusFailed {
		return SaveBlueprintResult{}, fmt.Errorf("build %d is %s; save it as a blueprint once it has finished", buildID, b.Status)
	}
	p, err := prd.Parse(b.Name+".json", b.PRD)
	if err != nil {
		return SaveBlueprintResult{}, fmt.Errorf("build %d: its PRD: %w", buildID, err)
	}
	desc := cmp.Or(o.Description, fmt.Sprintf("Saved from build %d (%s).", buildID, b.Name))
	sr, err := blueprint.FromPRD(o.Name, desc, p, ds)
	if err != nil {
		return SaveBlueprintResult{}, err
	}
	res, err := l.addBlueprintSpec(ctx, sr.Spec, fmt.Sprintf("saved from build %d (%s)", buildID, b.Status))
	if err != nil {
		return SaveBlueprintResult{}, err
	}
	return SaveBlueprintResult{AddResult: res, Replaced: sr.Replaced, Warnings: sr.Warnings}, nil
}

// ListBlueprints lists the blueprints by name with their status and
// evidence.
func (l libraryArea) ListBlueprints(ctx context.Context) ([]blueprint.Summary, error) {
	return l.blueprints().List(ctx)
}

// ShowBlueprint returns a blueprint (current spec, versions) with its
// status, evidence and uses (newest first); ErrNotFound wrapped when none.
func (l libraryArea) ShowBlueprint(ctx context.Context, name string) (blueprint.Details, error) {
	return l.blueprints().Show(ctx, name)
}

// BlueprintHistory returns every version of a blueprint with its spec,
// oldest first.
func (l libraryArea) BlueprintHistory(ctx context.Context, name string) ([]blueprint.VersionRecord, error) {
	return l.blueprints().History(ctx, name)
}

// UseBlueprint renders a blueprint (a bad, unknown or missing parameter
// wraps params.ErrUsage and names it), writes the PRD to o.Out, and with
// o.Build creates its build and records the use; run it with RunBuild.
// Any build of a rendered PRD counts toward the blueprint's usage and
// evidence when it finishes.
func (l libraryArea) UseBlueprint(ctx context.Context, name string, o UseOptions) (UseResult, error) {
	if o.Out != "" && !filepath.IsAbs(o.Out) {
		return UseResult{}, fmt.Errorf("blueprint output %s: %w", o.Out, ErrRelativePath)
	}
	bp, err := l.blueprints().Get(ctx, name)
	if err != nil {
		return UseResult{}, err
	}
	spec, version := bp.Spec, bp.Version
	if o.Version != 0 && o.Version != bp.Version {
		v, err := l.blueprints().Version(ctx, name, o.Version)
		if err != nil {
			return UseResult{}, err
		}
		spec, version = v.Spec, o.Version
	}
	r, err := blueprint.Render(ctx, spec, values(o.Values), blueprint.RenderOptions{Version: version, KnownAgents: l.knownAgents()})
	if err != nil {
		return UseResult{}, err
	}
	res := UseResult{Blueprint: name, Version: version, Values: r.Values, PRD: r.JSON}
	prdPath := fmt.Sprintf("blueprint:%s@%d", name, version)
	if o.Out != "" {
		if _, err := os.Lstat(o.Out); err == nil && !o.Overwrite {
			return res, fmt.Errorf("%w: %s (choose another output, or confirm overwriting it)", ErrExists, o.Out)
		}
		if err := r.PRD.Save(o.Out); err != nil {
			return res, err
		}
		res.Path, prdPath = o.Out, o.Out
	}
	if !o.Build {
		return res, nil
	}
	b, err := l.Builds().Create(ctx, r.PRD, prdPath, build.Options{Autonomy: o.Autonomy})
	if err != nil {
		return res, err
	}
	if err := l.blueprints().RecordUse(ctx, blueprint.Use{Blueprint: name, Version: version, BuildID: b.ID,
		Parameters: r.Values, Status: blueprint.UseRunning, CreatedAt: b.CreatedAt}); err != nil {
		return res, err
	}
	l.Publish(Event{Type: EventChanged, Topic: TopicBlueprint, Status: "used", BuildID: strconv.FormatUint(b.ID, 10),
		Text: fmt.Sprintf("blueprint %s version %d → build %d", name, version, b.ID)})
	res.Build = &b
	return res, nil
}
