package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/skills"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/tools"
)

// Topics and event types of the library (skills, workflows, blueprints).
const (
	// TopicSkill carries a skill run started by RunSkill: EventLog per step
	// (TaskID the step name), then EventDone or EventFailed (RunID is the
	// agent run that holds its traces).
	TopicSkill = "skill"
	// TopicWorkflow carries workflow runs: EventStep for each step
	// transition (RunID the workflow run id, TaskID the step id, BuildID
	// the step's build, Status the step status, Payload a
	// workflow.StepState), EventDone / EventFailed when the run ends,
	// EventChanged when it is created, running or paused (Payload a
	// workflow.Run). A step's live stream is the Topic "build" and "agent"
	// events of its BuildID.
	TopicWorkflow = "workflow"
	// TopicBlueprint says a blueprint was added or used (EventChanged).
	TopicBlueprint = "blueprint"
)

// EventStep reports a workflow step transition.
const EventStep EventType = "step"

// libraryState is the library of a Local, built on first use.
type libraryState struct {
	once     sync.Once
	runs     *workflow.Engine
	bps      *blueprint.Store
	defaults fs.FS
}

func (l *Local) library() *libraryState {
	ls := &l.lib
	ls.once.Do(func() {
		ls.bps = blueprint.NewStore(l.db)
		if sub, err := fs.Sub(nova.Defaults, ".nova/workflows"); err == nil {
			ls.defaults = sub
		}
		ls.runs = workflow.New(workflow.Deps{
			Store:   workflow.NewStore(l.db),
			Exec:    workflowExec{l: l},
			Publish: l.publishWorkflow,
		})
	})
	return ls
}

// registerLibraryTools adds runSkill and generateUIComponent to the agent
// tool registry (runtime.go calls it once). runSkill reads the skills at
// every call and records each step as a trace of the calling run.
func (l *Local) registerLibraryTools(reg *tools.Registry) {
	_ = reg.Register(skills.Tool(skills.ToolDeps{
		Skills: func() *skills.Registry { r, _ := l.Skills(); return r },
		Tools:  func() *tools.Registry { return reg },
		OnStep: func(env *tools.Env, sr skills.StepResult) {
			if env != nil && env.RunID != 0 {
				l.traceSkillStep(env.RunID, 0, sr)
			}
		},
	}))
	_ = reg.Register(skills.UITool())
}

func (l *Local) traceSkillStep(runID uint64, step int, sr skills.StepResult) {
	_, hash := tools.CanonicalArgs(json.RawMessage(sr.Args))
	out := sr.Output
	if out == "" {
		out = sr.Error
	}
	_, _ = l.Runs().AddTrace(agents.Trace{RunID: runID, Step: step, Tool: sr.Tool, Args: json.RawMessage(cmp.Or(sr.Args, "{}")),
		ArgsHash: hash, Status: sr.Status, Duration: sr.Duration, Output: out, Evidence: sr.Evidence, Time: time.Now().UTC()})
}

// --- skills ----------------------------------------------------------------------

// Skills loads the skill registry: the built-ins, then .nova/skills/ (a
// file with a built-in's name replaces it). Problems with files are
// returned beside the skills that loaded, each as "file:line: field: message".
func (l *Local) Skills() (*skills.Registry, []error) {
	roster, _ := l.Agents()
	var known skills.KnownAgent
	if roster != nil && roster.Len() > 0 {
		known = roster.Has
	}
	return skills.Load(filepath.Join(l.Dir(), "skills"), l.Tools().Get, known)
}

// SkillRunOptions configures RunSkill.
type SkillRunOptions struct {
	// Agent runs the skill (its permissions apply). Empty: the first agent
	// the skill names, else researcher.
	Agent string
	// Inputs are the skill's inputs (text from --input k=v, or typed).
	Inputs map[string]any
	// Approve answers runCommand approvals (nil: EventNeedsApproval).
	Approve tools.ApproveFunc
}

// SkillRunResult is a finished skill run: the runner's result, the agent
// run that holds its traces, and the changeset of any staged writes.
type SkillRunResult struct {
	skills.Result
	RunID       uint64 `json:"runId"`
	ChangesetID uint64 `json:"changesetId,omitempty"`
	// Prompt is the result as an agent sees it (≤ 1,000 characters).
	Prompt string `json:"prompt"`
}

// RunSkill runs a skill outside the agent loop (the CLI's `skills run`,
// the Library screen, workflow skill steps) with the agent's permissions,
// confinement and staging, recorded as an agent run with one trace per
// step. An unknown skill wraps skills.ErrNotFound; bad or missing inputs
// wrap params.ErrUsage and name the input; both before anything runs. A
// skill that fails is not an error: see Result.Success.
func (l *Local) RunSkill(ctx context.Context, name string, opts SkillRunOptions) (SkillRunResult, error) {
	reg, loadErrs := l.Skills()
	sk, ok := reg.Get(name)
	if !ok {
		for _, e := range loadErrs {
			if strings.Contains(e.Error(), name) {
				return SkillRunResult{}, fmt.Errorf("skill %s cannot run: %w", name, e)
			}
		}
		var names []string
		for _, s := range reg.ListAll() {
			names = append(names, s.Name)
		}
		return SkillRunResult{}, fmt.Errorf("%w: %q (available: %s)", skills.ErrNotFound, name, strings.Join(names, ", "))
	}
	roster, _ := l.Agents()
	agent := opts.Agent
	if agent == "" {
		agent = "researcher"
		if len(sk.Agents) > 0 {
			agent = sk.Agents[0]
		}
	}
	spec, err := roster.Get(agent)
	if err != nil {
		return SkillRunResult{}, fmt.Errorf("%w (known: %s)", err, strings.Join(roster.IDs(), ", "))
	}
	if !sk.For(spec.ID) {
		return SkillRunResult{}, fmt.Errorf("%w: skill %s is for %s, not %s", params.ErrUsage, sk.Name, strings.Join(sk.Agents, ", "), spec.ID)
	}
	if _, err := params.Resolve(sk.Inputs, opts.Inputs); err != nil {
		return SkillRunResult{}, fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	rt := l.runtime()
	task := "skill " + sk.Name + describeValues(opts.Inputs)
	run, err := rt.runs.Create(ctx, agents.Run{Agent: spec.ID, Task: task, Status: agents.RunRunning, Tier: "none",
		Model: "none (skills never call a model)", StartedAt: time.Now().UTC()})
	if err != nil {
		return SkillRunResult{}, err
	}
	draft := rt.changes.NewDraft(changes.Meta{RunID: run.ID, Agent: spec.ID, Task: task})
	offered := spec.Tools
	if offered == nil {
		offered = []string{}
	}
	approve := opts.Approve
	if approve == nil {
		approve = l.askSubscribers
	} else {
		inner := approve
		approve = func(ctx context.Context, req tools.ApprovalRequest) (bool, error) {
			l.Publish(approvalEvent(req))
			return inner(ctx, req)
		}
	}
	set := rt.runner.Settings
	env := &tools.Env{Root: l.ws.Root, Agent: spec.ID, RunID: run.ID, Tools: offered, Stage: draft,
		Commands: set.Commands, Autonomy: set.Autonomy, Approve: approve}
	step := 0
	runner := &skills.Runner{Skills: reg, Tools: rt.tools, OnStep: func(sr skills.StepResult) {
		step++
		l.traceSkillStep(run.ID, step, sr)
		l.Publish(Event{Type: EventLog, Topic: TopicSkill, RunID: strconv.FormatUint(run.ID, 10), TaskID: sr.Name,
			Status: string(sr.Status), Text: fmt.Sprintf("%s %s → %s", sr.Name, sr.Tool, sr.Status), Payload: sr})
	}}
	res := runner.Execute(ctx, sk.Name, env, skills.Context{Agent: spec.ID, Inputs: opts.Inputs})
	out := SkillRunResult{Result: res, RunID: run.ID, ChangesetID: draft.ID(), Prompt: skills.FormatForPrompt(res)}

	run.FinishedAt = time.Now().UTC()
	run.ChangesetID = out.ChangesetID
	run.Outcome = agents.SpecialistOutcome{OK: res.Success, Result: out.Prompt,
		Meta: agents.RunMeta{Duration: time.Duration(res.DurationMs) * time.Millisecond, ToolCalls: len(res.Steps), Steps: len(res.Steps)}}
	run.Status = agents.RunDone
	if staged, err := draft.Staged(context.WithoutCancel(ctx)); err == nil {
		for _, f := range staged {
			run.Files = append(run.Files, f.Path)
		}
	}
	if !res.Success {
		run.Status = agents.RunFailed
		if errors.Is(ctx.Err(), context.Canceled) {
			run.Status = agents.RunCanceled
		}
		run.Outcome.Failure = &agents.Failure{Kind: agents.FailToolError, Cause: "skill_step_failed",
			Message: cmp.Or(strings.TrimSpace(res.FailedStep+": "+res.Error), res.Error), RecoveryHints: []agents.RecoveryHint{agents.HintChangeStrategy}}
	}
	if err := rt.runs.Save(run); err != nil {
		return out, err
	}
	typ := EventDone
	if !res.Success {
		typ = EventFailed
	}
	l.Publish(Event{Type: typ, Topic: TopicSkill, RunID: strconv.FormatUint(run.ID, 10), Status: string(run.Status),
		Text: firstLineOf(out.Prompt) + statusSuffix(res), Payload: out})
	return out, nil
}

func statusSuffix(res skills.Result) string {
	if res.Success {
		return ""
	}
	return fmt.Sprintf(" — failed at %s: %s", cmp.Or(res.FailedStep, "the start"), res.Error)
}

func describeValues(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%v", k, m[k])
	}
	return b.String()
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// --- workflows -------------------------------------------------------------------

// workflowEnv is what workflow files are validated against: the roster,
// the skills and the tool registry.
func (l *Local) workflowEnv() workflow.Env {
	roster, _ := l.Agents()
	reg, _ := l.Skills()
	env := workflow.Env{Skill: reg.Get, Permit: l.Tools().Permit}
	if roster != nil && roster.Len() > 0 {
		env.KnownAgent = roster.Has
		env.AgentTools = func(id string) []string {
			s, err := roster.Get(id)
			if err != nil {
				return nil
			}
			if s.Tools == nil {
				return []string{}
			}
			return s.Tools
		}
	}
	return env
}

// Workflows loads the workflows: the five shipped in the binary, then
// .nova/workflows/ (a file with a shipped id replaces it). Problems with
// files are returned beside the workflows that loaded.
func (l *Local) Workflows() (*workflow.Library, []error) {
	return workflow.Load(l.library().defaults, filepath.Join(l.Dir(), "workflows"), l.workflowEnv())
}

// WorkflowRuns is the workflow run engine: Run (synchronous), Go
// (background), Cancel, Wait, Get, List. Progress is published with Topic
// "workflow".
func (l *Local) WorkflowRuns() *workflow.Engine { return l.library().runs }

// MatchWorkflows returns the workflows a request triggers, best first,
// with parameter values read from the text.
func (l *Local) MatchWorkflows(text string) ([]workflow.Match, error) {
	lib, _ := l.Workflows()
	return workflow.Matches(text, lib.List()), nil
}

// CreateWorkflowRun checks a workflow's parameters (a missing or bad one
// wraps params.ErrUsage and names it: exit 2) and stores a new run; start
// it with WorkflowRuns().Run or Go. An unknown id wraps
// workflow.ErrNotFound; a workflow whose file is invalid returns the file's
// problems.
func (l *Local) CreateWorkflowRun(ctx context.Context, id string, given map[string]any, opts workflow.CreateOptions) (workflow.Run, error) {
	lib, errs := l.Workflows()
	w, ok := lib.Get(id)
	if !ok {
		for _, e := range errs {
			var ye *workflow.FileError
			if errors.As(e, &ye) && strings.TrimSuffix(filepath.Base(ye.File), filepath.Ext(ye.File)) == id {
				return workflow.Run{}, fmt.Errorf("workflow %s cannot run: %w", id, e)
			}
		}
		return workflow.Run{}, fmt.Errorf("%w: %q (available: %s)", workflow.ErrNotFound, id, strings.Join(lib.IDs(), ", "))
	}
	return l.WorkflowRuns().Create(ctx, w, given, opts)
}

func (l *Local) publishWorkflow(ev workflow.Event) {
	e := Event{Topic: TopicWorkflow, RunID: strconv.FormatUint(ev.RunID, 10), TaskID: ev.StepID, Status: ev.Status,
		Text: ev.Text, Done: ev.Done, Total: ev.Total, Payload: ev.Payload}
	if ev.BuildID != 0 {
		e.BuildID = strconv.FormatUint(ev.BuildID, 10)
	}
	switch ev.Kind {
	case workflow.KindStep:
		e.Type = EventStep
	case workflow.KindDone:
		e.Type = EventDone
	case workflow.KindFailed:
		e.Type = EventFailed
	case workflow.KindChanged:
		e.Type = EventChanged
	default:
		e.Type = EventLog
	}
	l.Publish(e)
}

// workflowExec runs workflow steps: agent steps as one-task builds, skill
// steps through RunSkill.
type workflowExec struct{ l *Local }

// maxSkillStepOutput bounds what a skill step hands to later steps.
const maxSkillStepOutput = 16 << 10

func (x workflowExec) RunTask(ctx context.Context, req workflow.TaskRequest) (workflow.Outcome, error) {
	l := x.l
	eng := l.Builds()
	id := req.BuildID
	if id != 0 {
		b, err := eng.Get(ctx, id)
		switch {
		case errors.Is(err, build.ErrNotFound):
			id = 0 // the build is gone: start the step again
		case err != nil:
			return workflow.Outcome{BuildID: id}, err
		case b.Status == build.StatusDone || b.Status == build.StatusFailed:
			return x.outcome(ctx, b)
		}
	}
	if id == 0 {
		roster, _ := l.Agents()
		spec, err := roster.Get(req.Agent)
		if err != nil {
			return workflow.Outcome{Status: workflow.OutcomeFailed, Reason: err.Error()}, nil
		}
		checks := spec.CanWrite()
		if req.Checks != nil {
			checks = *req.Checks
		}
		p := &prd.PRD{Meta: prd.Meta{Name: fmt.Sprintf("workflow %s #%d · %s", req.Workflow, req.RunID, req.StepID), Version: "1"},
			Tasks: []prd.Task{{ID: req.StepID, Title: req.Title, Description: req.Task, Agent: spec.ID,
				Status: prd.StatusPending, Dependencies: []string{}}}}
		b, err := eng.Create(ctx, p, fmt.Sprintf("workflow:%s#%d/%s", req.Workflow, req.RunID, req.StepID),
			build.Options{Autonomy: req.Autonomy, SkipChecks: !checks, Approve: req.Approve})
		if err != nil {
			return workflow.Outcome{Status: workflow.OutcomeFailed, Reason: err.Error()}, nil
		}
		id = b.ID
		if req.Created != nil {
			if err := req.Created(id); err != nil {
				return workflow.Outcome{BuildID: id}, err
			}
		}
	}
	b, err := eng.Run(ctx, id, req.Approve)
	if err != nil {
		if errors.Is(err, build.ErrActive) {
			return workflow.Outcome{Status: workflow.OutcomePaused, BuildID: id, Reason: "its build is already running"}, nil
		}
		return workflow.Outcome{BuildID: id}, err
	}
	if b.ID == 0 {
		b.ID = id
	}
	return x.outcome(ctx, b)
}

// outcome reads a step's build into its outcome.
func (x workflowExec) outcome(ctx context.Context, b build.Build) (workflow.Outcome, error) {
	out := workflow.Outcome{BuildID: b.ID, Tokens: b.Tokens}
	ts, err := x.l.Builds().Tasks(context.WithoutCancel(ctx), b.ID)
	if err != nil {
		return out, err
	}
	if len(ts) > 0 {
		t := ts[0]
		out.Output, out.ChangesetID, out.Applied, out.Duration = t.Output, t.ChangesetID, t.Applied, t.Duration
		out.Reason = t.Reason
	}
	switch b.Status {
	case build.StatusDone:
		out.Status, out.Reason = workflow.OutcomeDone, ""
	case build.StatusFailed:
		out.Status = workflow.OutcomeFailed
		out.Reason = cmp.Or(out.Reason, b.Reason)
	default:
		out.Status, out.Reason = workflow.OutcomePaused, cmp.Or(b.Reason, "its build stopped")
	}
	return out, nil
}

func (x workflowExec) RunSkill(ctx context.Context, req workflow.SkillRequest) (workflow.Outcome, error) {
	res, err := x.l.RunSkill(ctx, req.Skill, SkillRunOptions{Agent: req.Agent, Inputs: req.Inputs, Approve: req.Approve})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return workflow.Outcome{}, err
		}
		return workflow.Outcome{Status: workflow.OutcomeFailed, Reason: err.Error()}, nil
	}
	var b strings.Builder
	for _, s := range res.Steps {
		if o, ok := res.StepResults[s.Name]; ok {
			fmt.Fprintf(&b, "### %s (%s)\n%s\n\n", s.Name, s.Tool, strings.TrimSpace(o))
		}
	}
	text := strings.TrimSpace(b.String())
	if len(text) > maxSkillStepOutput {
		text = text[:maxSkillStepOutput] + "\n…[truncated; the full results are in the traces of run " + strconv.FormatUint(res.RunID, 10) + "]"
	}
	out := workflow.Outcome{Status: workflow.OutcomeDone, Output: text, AgentRunID: res.RunID, ChangesetID: res.ChangesetID,
		Duration: time.Duration(res.DurationMs) * time.Millisecond}
	if !res.Success {
		if errors.Is(ctx.Err(), context.Canceled) {
			return out, ctx.Err()
		}
		out.Status = workflow.OutcomeFailed
		out.Reason = fmt.Sprintf("skill %s failed at %s: %s", req.Skill, cmp.Or(res.FailedStep, "the start"), res.Error)
	}
	return out, nil
}

// --- blueprints ------------------------------------------------------------------

// Blueprints is the blueprint store (list, show, history, versions).
func (l *Local) Blueprints() *blueprint.Store { return l.library().bps }

// AddBlueprint reads a blueprint file, checks it (the file's problems as
// "file:line: field: message", wrapping blueprint.ErrInvalid; a template
// that does not render a valid PRD with the defaults, wrapping
// blueprint.ErrRender) and stores it: a new name is version 1, an
// unchanged spec adds no version, a changed one adds version n+1 with note
// (or a description of the change).
func (l *Local) AddBlueprint(ctx context.Context, path, note string) (blueprint.AddResult, error) {
	info, err := os.Stat(path)
	if err != nil {
		return blueprint.AddResult{}, fmt.Errorf("read blueprint: %w", err)
	}
	if !info.Mode().IsRegular() {
		return blueprint.AddResult{}, fmt.Errorf("read blueprint: %s is not a regular file", path)
	}
	if info.Size() > blueprint.MaxFileSize {
		return blueprint.AddResult{}, fmt.Errorf("%w: %s is %d bytes, larger than the %d-byte limit of a blueprint file", blueprint.ErrInvalid, path, info.Size(), blueprint.MaxFileSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return blueprint.AddResult{}, fmt.Errorf("read blueprint: %w", err)
	}
	spec, errs := blueprint.Parse(path, data)
	if len(errs) > 0 {
		return blueprint.AddResult{}, errors.Join(errs...)
	}
	return l.addBlueprintSpec(ctx, spec, note)
}

func (l *Local) addBlueprintSpec(ctx context.Context, spec blueprint.Spec, note string) (blueprint.AddResult, error) {
	roster, _ := l.Agents()
	var known func(string) bool
	if roster != nil && roster.Len() > 0 {
		known = roster.Has
	}
	if err := blueprint.Sample(ctx, spec, known); err != nil {
		return blueprint.AddResult{}, fmt.Errorf("blueprint %s does not render a valid PRD with its defaults: %w", spec.Name, err)
	}
	res, err := l.Blueprints().Add(ctx, spec, note)
	if err != nil {
		return res, err
	}
	if res.Changed {
		l.Publish(Event{Type: EventChanged, Topic: TopicBlueprint, Status: "added",
			Text: fmt.Sprintf("blueprint %s version %d", res.Blueprint.Name, res.Blueprint.Version), Payload: res.Blueprint})
	}
	return res, nil
}

// SaveBlueprintResult is what SaveBlueprint did.
type SaveBlueprintResult struct {
	blueprint.AddResult
	// Replaced counts the PRD values each parameter replaced; Warnings say
	// what will not work as expected (a default found nowhere).
	Replaced map[string]int `json:"replaced"`
	Warnings []string       `json:"warnings,omitempty"`
}

// SaveBlueprint turns a finished build's PRD into a blueprint named name.
// Each decl is "k=type:default" (see blueprint.ParseParamDecl); every whole
// string value of the PRD equal to a default becomes its placeholder, never
// a substring. A bad decl wraps params.ErrUsage; a build that has not
// finished is refused.
func (l *Local) SaveBlueprint(ctx context.Context, buildID uint64, name, description string, decls []string) (SaveBlueprintResult, error) {
	var ds []blueprint.ParamDecl
	for _, s := range decls {
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
	if description == "" {
		description = fmt.Sprintf("Saved from build %d (%s).", buildID, b.Name)
	}
	sr, err := blueprint.FromPRD(name, description, p, ds)
	if err != nil {
		return SaveBlueprintResult{}, err
	}
	note := fmt.Sprintf("saved from build %d (%s)", buildID, b.Status)
	res, err := l.addBlueprintSpec(ctx, sr.Spec, note)
	if err != nil {
		return SaveBlueprintResult{}, err
	}
	return SaveBlueprintResult{AddResult: res, Replaced: sr.Replaced, Warnings: sr.Warnings}, nil
}

// UseOptions configures UseBlueprint.
type UseOptions struct {
	// Version renders an older version (0: the current one).
	Version int
	// Out writes the rendered PRD there (JSON). An existing file is kept
	// unless Overwrite is set (the CLI asks first).
	Out       string
	Overwrite bool
	// Run creates the build and starts it in the background.
	Run      bool
	Autonomy *int
	Approve  tools.ApproveFunc
}

// UseResult is a rendered blueprint, and its build when it was run.
type UseResult struct {
	Blueprint string         `json:"blueprint"`
	Version   int            `json:"version"`
	Values    map[string]any `json:"values"`
	// PRD is the rendered PRD as written to a file.
	PRD json.RawMessage `json:"prd"`
	// Path is where it was written ("" when not).
	Path  string       `json:"path,omitempty"`
	Build *build.Build `json:"build,omitempty"`
}

// ErrExists: UseBlueprint would overwrite a file.
var ErrExists = errors.New("file exists")

// UseBlueprint renders a blueprint with values (a bad, unknown or missing
// parameter wraps params.ErrUsage and names it), writes the PRD to
// opts.Out, and with opts.Run creates its build, records the use and
// starts it. The build counts toward the blueprint's usage and evidence
// when it finishes.
func (l *Local) UseBlueprint(ctx context.Context, name string, values map[string]any, opts UseOptions) (UseResult, error) {
	bp, err := l.Blueprints().Get(ctx, name)
	if err != nil {
		return UseResult{}, err
	}
	spec, version := bp.Spec, bp.Version
	if opts.Version != 0 && opts.Version != bp.Version {
		v, err := l.Blueprints().Version(ctx, name, opts.Version)
		if err != nil {
			return UseResult{}, err
		}
		spec, version = v.Spec, opts.Version
	}
	roster, _ := l.Agents()
	var known func(string) bool
	if roster != nil && roster.Len() > 0 {
		known = roster.Has
	}
	r, err := blueprint.Render(ctx, spec, values, blueprint.RenderOptions{Version: version, KnownAgents: known})
	if err != nil {
		return UseResult{}, err
	}
	res := UseResult{Blueprint: name, Version: version, Values: r.Values, PRD: r.JSON}
	prdPath := fmt.Sprintf("blueprint:%s@%d", name, version)
	if opts.Out != "" {
		if _, err := os.Lstat(opts.Out); err == nil && !opts.Overwrite {
			return res, fmt.Errorf("%w: %s (choose another --out, or confirm overwriting it)", ErrExists, opts.Out)
		}
		if err := r.PRD.Save(opts.Out); err != nil {
			return res, err
		}
		res.Path, prdPath = opts.Out, opts.Out
	}
	if !opts.Run {
		return res, nil
	}
	eng := l.Builds()
	b, err := eng.Create(ctx, r.PRD, prdPath, build.Options{Autonomy: opts.Autonomy, Approve: opts.Approve})
	if err != nil {
		return res, err
	}
	if err := l.Blueprints().RecordUse(ctx, blueprint.Use{Blueprint: name, Version: version, BuildID: b.ID,
		Parameters: r.Values, Status: blueprint.UseRunning, CreatedAt: b.CreatedAt}); err != nil {
		return res, err
	}
	l.Publish(Event{Type: EventChanged, Topic: TopicBlueprint, Status: "used", BuildID: strconv.FormatUint(b.ID, 10),
		Text: fmt.Sprintf("blueprint %s version %d → build %d", name, version, b.ID)})
	if err := eng.Go(b.ID, opts.Approve); err != nil {
		return res, err
	}
	res.Build = &b
	return res, nil
}

// blueprintHook counts every finished build whose PRD came from a
// blueprint (however it was started) toward the blueprint's evidence.
type blueprintHook struct{ l *Local }

func (h blueprintHook) BuildFinished(ctx context.Context, b build.Build, tasks []build.Task) {
	p, err := prd.Parse("build.json", b.PRD)
	if err != nil {
		return
	}
	pv, ok := blueprint.ProvenanceOf(p)
	if !ok {
		return
	}
	var dur time.Duration
	for _, t := range tasks {
		dur += t.Duration
	}
	status := blueprint.UseFailed
	if b.Status == build.StatusDone {
		status = blueprint.UseDone
	}
	err = h.l.Blueprints().RecordUse(ctx, blueprint.Use{Blueprint: pv.Name, Version: pv.Version, BuildID: b.ID,
		Parameters: pv.Parameters, Status: status, Tokens: b.Tokens, Duration: dur, CreatedAt: b.CreatedAt, FinishedAt: b.FinishedAt})
	if err == nil {
		h.l.Publish(Event{Type: EventChanged, Topic: TopicBlueprint, Status: status, BuildID: strconv.FormatUint(b.ID, 10),
			Text: fmt.Sprintf("blueprint %s: build %d %s", pv.Name, b.ID, status)})
	}
}
