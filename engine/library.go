package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
	"github.com/nova-dev/nova/engine/checks"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/skills"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

// Library verbs (skills, workflows, blueprints; issue 14). They follow the
// facade's rules (ctx first, plain values in and out, error last) so that
// they can join the Workspace interface as they are; docs/library.md
// describes the formats.

// Topics and event types of the library. Like every event they are plain
// data: a screen reads the state it needs with the verbs below.
const (
	// TopicSkill carries a skill run started by RunSkill: EventLog per step
	// (TaskID the step name, Status the tool status), then EventDone or
	// EventFailed (RunID is the agent run that holds its traces; Op the
	// caller's SkillRunOptions.Op).
	TopicSkill Topic = "skill"
	// TopicWorkflow carries workflow runs: EventStep for each step
	// transition (RunID the workflow run id, TaskID the step id, BuildID the
	// step's build, Status the step status, Done/Total the finished and all
	// steps), EventDone / EventFailed when the run ends, EventChanged when
	// it is created, running or paused, and when a step's build is created
	// (TaskID the step, BuildID the build, before the build runs). Op is the caller's
	// RunWorkflowOptions.Op. A step's live stream is the TopicBuild and
	// TopicAgent events of its BuildID.
	TopicWorkflow Topic = "workflow"
	// TopicBlueprint: EventChanged when a blueprint is added (Status
	// "added"), used for a build (Status "used", BuildID), or when a build
	// made from one finishes (Status "done" or "failed", BuildID).
	TopicBlueprint Topic = "blueprint"
)

// EventStep reports a workflow step transition.
const EventStep EventType = "step"

// LibraryTopics lists the library's topics (beside Topics()).
func LibraryTopics() []Topic { return []Topic{TopicSkill, TopicWorkflow, TopicBlueprint} }

// libraryState is the library of a Local, built on first use.
type libraryState struct {
	once     sync.Once
	runs     *workflow.Engine
	bps      *blueprint.Store
	defaults fs.FS
	// policy maps a running workflow run id to its RunWorkflowOptions.
	policy sync.Map
}

func (l *core) library() *libraryState {
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
			Runs:    l.runs,
		})
	})
	return ls
}

// registerLibraryTools adds runSkill and generateUIComponent to the agent
// tool registry (runtime.go calls it once). runSkill reads the skills at
// every call and records each step as a trace of the calling run.
func (l *core) registerLibraryTools(reg *tools.Registry) {
	_ = reg.Register(skills.Tool(skills.ToolDeps{
		Skills: func() *skills.Registry { r, _ := l.skillRegistry(); return r },
		Tools:  func() *tools.Registry { return reg },
		OnStep: func(env *tools.Env, sr skills.StepResult) {
			if env != nil && env.RunID != 0 {
				l.traceSkillStep(env.RunID, 0, sr)
			}
		},
	}))
	_ = reg.Register(skills.UITool())
}

func (l *core) traceSkillStep(runID uint64, step int, sr skills.StepResult) {
	_, hash := tools.CanonicalArgs(json.RawMessage(sr.Args))
	out := sr.Output
	if out == "" {
		out = sr.Error
	}
	_, _ = l.Runs().AddTrace(agents.Trace{RunID: runID, Step: step, Tool: sr.Tool, Args: json.RawMessage(cmp.Or(sr.Args, "{}")),
		ArgsHash: hash, Status: sr.Status, Duration: sr.Duration, Output: out, Evidence: sr.Evidence, Time: l.now().UTC()})
}

func (l *core) knownAgents() func(string) bool {
	if roster, _ := l.Agents(); roster != nil && roster.Len() > 0 {
		return roster.Has
	}
	return nil
}

func problems(errs []error) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func values(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// --- skills ----------------------------------------------------------------------

// skillRegistry loads the built-ins, then .nova/skills/ (a file with a
// built-in's name replaces it); problems with files come beside.
func (l *core) skillRegistry() (*skills.Registry, []error) {
	return skills.Load(filepath.Join(l.Dir(), "skills"), l.Tools().Get, l.knownAgents())
}

// SkillList is ListSkills' result.
type SkillList struct {
	Skills []skills.Skill `json:"skills"`
	// Problems are the files that did not load, "file:line: field: message".
	Problems []string `json:"problems"`
}

// SkillDetail is GetSkill's result.
type SkillDetail struct {
	Skill skills.Skill `json:"skill"`
	// Builtin is true for a skill shipped in the binary.
	Builtin bool `json:"builtin"`
	// YAML is the skill's file.
	YAML string `json:"yaml"`
}

func skillNotFound(reg *skills.Registry, loadErrs []error, name string) error {
	for _, e := range loadErrs {
		if strings.Contains(e.Error(), name) {
			return fmt.Errorf("skill %s cannot run: %w", name, e)
		}
	}
	var names []string
	for _, s := range reg.ListAll() {
		names = append(names, s.Name)
	}
	return fmt.Errorf("%w: %q (available: %s)", skills.ErrNotFound, name, strings.Join(names, ", "))
}

// SkillRunOptions configures RunSkill.
type SkillRunOptions struct {
	// Agent runs the skill (its permissions apply). Empty: the first agent
	// the skill names, else researcher.
	Agent string `json:"agent,omitempty"`
	// Inputs are the skill's inputs (--input k=v).
	Inputs map[string]string `json:"inputs,omitempty"`
	// Approvals answers runCommand steps.
	Approvals ApprovalPolicy `json:"approvals,omitempty"`
	// Op is copied into the run's events.
	Op string `json:"op,omitempty"`
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

func (l *core) runSkill(ctx context.Context, name string, opts SkillRunOptions, inputs map[string]any, buildID, taskID string) (SkillRunResult, error) {
	reg, loadErrs := l.skillRegistry()
	sk, ok := reg.Get(name)
	if !ok {
		return SkillRunResult{}, skillNotFound(reg, loadErrs, name)
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
	if _, err := params.Resolve(sk.Inputs, inputs); err != nil {
		return SkillRunResult{}, fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	rt := l.runtime()
	task := "skill " + sk.Name + describeValues(inputs)
	run, err := rt.runs.Create(ctx, agents.Run{Agent: spec.ID, Task: task, TaskID: taskID, BuildID: buildID,
		Status: agents.RunRunning, Tier: "none", Model: "none (skills never call a model)", StartedAt: l.now().UTC()})
	if err != nil {
		return SkillRunResult{}, err
	}
	runID := strconv.FormatUint(run.ID, 10)
	draft := rt.changes.NewDraft(changes.Meta{RunID: run.ID, Agent: spec.ID, Task: task})
	offered := spec.Tools
	if offered == nil {
		offered = []string{}
	}
	set := rt.runner.Settings
	env := &tools.Env{Root: l.ws.Root, Agent: spec.ID, RunID: run.ID, Tools: offered, Stage: draft,
		Commands: set.Commands, Autonomy: set.Autonomy, Approve: l.approver(opts.Approvals, opts.Op, buildID, taskID)}
	step := 0
	runner := &skills.Runner{Skills: reg, Tools: rt.tools, OnStep: func(sr skills.StepResult) {
		step++
		l.traceSkillStep(run.ID, step, sr)
		l.Publish(Event{Type: EventLog, Topic: TopicSkill, RunID: runID, TaskID: sr.Name, Op: opts.Op,
			Status: string(sr.Status), Text: fmt.Sprintf("%s %s → %s", sr.Name, sr.Tool, sr.Status)})
	}}
	res := runner.Execute(ctx, sk.Name, env, skills.Context{Agent: spec.ID, Inputs: inputs})
	out := SkillRunResult{Result: res, RunID: run.ID, ChangesetID: draft.ID(), Prompt: skills.FormatForPrompt(res)}

	run.FinishedAt = l.now().UTC()
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
			Message: strings.TrimPrefix(res.FailedStep+": "+res.Error, ": "), RecoveryHints: []agents.RecoveryHint{agents.HintChangeStrategy}}
	}
	if err := rt.runs.Save(run); err != nil {
		return out, err
	}
	typ := EventDone
	if !res.Success {
		typ = EventFailed
	}
	l.Publish(Event{Type: typ, Topic: TopicSkill, RunID: runID, Op: opts.Op, Status: string(run.Status),
		Text: firstLineOf(out.Prompt) + statusSuffix(res)})
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
func (l *core) workflowEnv() workflow.Env {
	roster, _ := l.Agents()
	reg, _ := l.skillRegistry()
	env := workflow.Env{Skill: reg.Get, Permit: l.Tools().Permit, KnownAgent: l.knownAgents()}
	if env.KnownAgent != nil {
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

func (l *core) workflowLibrary() (*workflow.Library, []error) {
	return workflow.Load(l.library().defaults, filepath.Join(l.Dir(), "workflows"), l.workflowEnv())
}

// WorkflowList is ListWorkflows' result.
type WorkflowList struct {
	Workflows []workflow.Workflow `json:"workflows"`
	// Problems are the files that did not load, "file:line: field: message".
	Problems []string `json:"problems"`
}

// WorkflowDetail is GetWorkflow's result.
type WorkflowDetail struct {
	Workflow workflow.Workflow `json:"workflow"`
	Builtin  bool              `json:"builtin"`
	YAML     string            `json:"yaml"`
}

func (l *core) findWorkflow(id string) (workflow.Workflow, error) {
	lib, errs := l.workflowLibrary()
	w, ok := lib.Get(id)
	if ok {
		return w, nil
	}
	for _, e := range errs {
		var ye *workflow.FileError
		if errors.As(e, &ye) && strings.TrimSuffix(filepath.Base(ye.File), filepath.Ext(ye.File)) == id {
			return workflow.Workflow{}, fmt.Errorf("workflow %s cannot run: %w", id, e)
		}
	}
	return workflow.Workflow{}, fmt.Errorf("%w: %q (available: %s)", workflow.ErrNotFound, id, strings.Join(lib.IDs(), ", "))
}

// WorkflowOptions configures CreateWorkflowRun.
type WorkflowOptions struct {
	// Params are the workflow's parameters (--set k=v).
	Params map[string]string `json:"params,omitempty"`
	// Request is the text that triggered the run (a match), if any.
	Request string `json:"request,omitempty"`
	// Autonomy overrides the configured level for the steps' builds.
	Autonomy *int `json:"autonomy,omitempty"`
}

// RunWorkflowOptions configures RunWorkflow.
type RunWorkflowOptions struct {
	// Approvals answers the commands the steps' agents want to run.
	Approvals ApprovalPolicy `json:"approvals,omitempty"`
	// Op is copied into the run's events.
	Op string `json:"op,omitempty"`
	// Attended runs the steps' builds as RunBuildOptions.Attended does (the
	// TUI): they wait for a model server that went away and for the answer
	// of a task that asks the user. Unattended (the CLI), such a step ends
	// paused and the run pauses, resumable.
	Attended bool `json:"attended,omitempty"`
}

// libraryCounts are the library's numbers in the Summary.
func (l *core) libraryCounts(ctx context.Context) (runs, waiting, blueprints int, err error) {
	if runs, waiting, err = l.library().runs.Counts(ctx); err != nil {
		return 0, 0, 0, err
	}
	if blueprints, err = l.db.Count(storage.BucketBlueprints); err != nil {
		return 0, 0, 0, fmt.Errorf("count %s: %w", storage.BucketBlueprints, err)
	}
	return runs, waiting, blueprints, nil
}

func (l *core) workflowPolicy(runID uint64) RunWorkflowOptions {
	if v, ok := l.library().policy.Load(runID); ok {
		return v.(RunWorkflowOptions)
	}
	return RunWorkflowOptions{}
}

func (l *core) publishWorkflow(ev workflow.Event) {
	e := Event{Topic: TopicWorkflow, RunID: strconv.FormatUint(ev.RunID, 10), TaskID: ev.StepID, Status: ev.Status,
		Text: ev.Text, Done: ev.Done, Total: ev.Total, Op: l.workflowPolicy(ev.RunID).Op}
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
// steps through runSkill.
type workflowExec struct{ l *core }

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
		if req.CheckList != nil {
			checks = true // the step's own list (an empty one runs none)
		}
		p := &prd.PRD{Meta: prd.Meta{Name: fmt.Sprintf("workflow %s #%d · %s", req.Workflow, req.RunID, req.StepID), Version: "1"},
			Tasks: []prd.Task{{ID: req.StepID, Title: req.Title, Description: req.Task, Agent: spec.ID,
				Status: prd.StatusPending, Dependencies: []string{}, Checks: slices.Clone(req.CheckList)}}}
		b, err := eng.Create(ctx, p, fmt.Sprintf("workflow:%s#%d/%s", req.Workflow, req.RunID, req.StepID),
			build.Options{Autonomy: req.Autonomy, SkipChecks: !checks})
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
	key := strconv.FormatUint(id, 10)
	l.build.policy.Store(key, l.workflowPolicy(req.RunID).Approvals)
	defer l.build.policy.Delete(key)
	run := eng.Run
	if l.workflowPolicy(req.RunID).Attended {
		run = eng.RunAttended
	}
	b, err := run(ctx, id, req.Approve)
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
	pol := x.l.workflowPolicy(req.RunID)
	res, err := x.l.runSkill(ctx, req.Skill, SkillRunOptions{Agent: req.Agent, Approvals: pol.Approvals, Op: pol.Op},
		req.Inputs, "", req.StepID)
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
		return out, nil
	}
	if why, err := x.checkSkillStep(ctx, req, res.ChangesetID); err != nil {
		return out, err
	} else if why != "" {
		out.Status, out.Reason = workflow.OutcomeFailed, why
	}
	return out, nil
}

// checkSkillStep runs a skill step's checks (the step's own list, else the
// skill's) on a copy with the changes it staged: "" when they pass or there
// is nothing to check, else why the step fails. A skill step without a
// list of its own runs no check (as before checks lists existed).
func (x workflowExec) checkSkillStep(ctx context.Context, req workflow.SkillRequest, changesetID uint64) (string, error) {
	cmds := req.Checks
	if cmds == nil {
		if reg, _ := x.l.skillRegistry(); reg != nil {
			if sk, ok := reg.Get(req.Skill); ok {
				cmds = sk.Checks
			}
		}
	}
	if len(cmds) == 0 || changesetID == 0 {
		return "", nil
	}
	cs, err := x.l.Changes().Get(ctx, changesetID)
	if err != nil {
		return "", fmt.Errorf("skill step %s: %w", req.StepID, err)
	}
	cfg := x.l.Config()
	rs, err := checks.Runner{Root: x.l.ws.Root, Commands: cmds, Timeout: cfg.Commands.Timeout.D()}.Run(ctx, build.ChangesetFiles(cs))
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "the checks could not run: " + err.Error(), nil
	}
	for _, r := range rs {
		if !r.Passed {
			out := r.Output
			if len(out) > 1500 {
				out = "…" + out[len(out)-1500:]
			}
			return fmt.Sprintf("check: %s failed (%s)\n%s", r.Command, r.Detail, out), nil
		}
	}
	return "", nil
}

// --- blueprints ------------------------------------------------------------------

func (l *core) blueprints() *blueprint.Store { return l.library().bps }

func (l *core) addBlueprintSpec(ctx context.Context, spec blueprint.Spec, note string) (blueprint.AddResult, error) {
	if err := blueprint.Sample(ctx, spec, l.knownAgents()); err != nil {
		return blueprint.AddResult{}, fmt.Errorf("blueprint %s does not render a valid PRD with its defaults: %w", spec.Name, err)
	}
	res, err := l.blueprints().Add(ctx, spec, note)
	if err != nil {
		return res, err
	}
	if res.Changed {
		l.Publish(Event{Type: EventChanged, Topic: TopicBlueprint, Status: "added",
			Text: fmt.Sprintf("blueprint %s version %d", res.Blueprint.Name, res.Blueprint.Version)})
	}
	return res, nil
}

// SaveBlueprintOptions configures SaveBlueprint.
type SaveBlueprintOptions struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Params are "k=type:default" declarations (blueprint.ParseParamDecl).
	Params []string `json:"params,omitempty"`
}

// SaveBlueprintResult is what SaveBlueprint did.
type SaveBlueprintResult struct {
	blueprint.AddResult
	// Replaced counts the PRD values each parameter replaced; Warnings say
	// what will not work as expected (a default found nowhere).
	Replaced map[string]int `json:"replaced"`
	Warnings []string       `json:"warnings,omitempty"`
}

// UseOptions configures UseBlueprint.
type UseOptions struct {
	// Values are the parameters (--set k=v).
	Values map[string]string `json:"values,omitempty"`
	// Version renders an older version (0: the current one).
	Version int `json:"version,omitempty"`
	// Out writes the rendered PRD there (an absolute path). An existing
	// file is kept unless Overwrite is set (the CLI asks first).
	Out       string `json:"out,omitempty"`
	Overwrite bool   `json:"overwrite,omitempty"`
	// Build creates the build of the rendered PRD (run it with RunBuild).
	Build    bool `json:"build,omitempty"`
	Autonomy *int `json:"autonomy,omitempty"`
}

// UseResult is a rendered blueprint, and its build when one was created.
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

// blueprintHook counts every finished build whose PRD came from a
// blueprint (however it was started) toward the blueprint's evidence.
type blueprintHook struct{ l *core }

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
	err = h.l.blueprints().RecordUse(ctx, blueprint.Use{Blueprint: pv.Name, Version: pv.Version, BuildID: b.ID,
		Parameters: pv.Parameters, Status: status, Tokens: b.Tokens, Duration: dur, CreatedAt: b.CreatedAt, FinishedAt: b.FinishedAt})
	if err == nil {
		h.l.Publish(Event{Type: EventChanged, Topic: TopicBlueprint, Status: status, BuildID: strconv.FormatUint(b.ID, 10),
			Text: fmt.Sprintf("blueprint %s: build %d %s", pv.Name, b.ID, status)})
	}
}
