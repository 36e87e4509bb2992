package workflow

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/tmpl"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/engine/tools"
)

// Outcome statuses of one step execution.
const (
	OutcomeDone   = "done"
	OutcomeFailed = "failed"
	// OutcomePaused: the step stopped without finishing (interrupted,
	// canceled, waiting for a choice, the model server down); the run
	// pauses and a resume continues the same step.
	OutcomePaused = "paused"
)

// TaskRequest asks the executor to run an agent step as a one-task build.
type TaskRequest struct {
	RunID    uint64
	Workflow string
	StepID   string
	Agent    string
	Title    string
	// Task is the rendered task with its input sections.
	Task string
	// BuildID continues this build (a resumed step); 0 makes a new one.
	BuildID uint64
	// Created must be called with the new build's id before it runs, so
	// that a crash leaves the run resumable.
	Created func(buildID uint64) error
	// Checks runs the check-command gates; nil: when the agent can change
	// files (the executor knows the agent).
	Checks *bool
	// CheckList, when not nil, replaces the workspace's check commands for
	// the step (the step's `checks: [..]`; empty: none).
	CheckList []string
	Autonomy  *int
	Approve   tools.ApproveFunc
}

// SkillRequest asks the executor to run a skill step.
type SkillRequest struct {
	RunID    uint64
	Workflow string
	StepID   string
	Agent    string
	Skill    string
	Inputs   map[string]any
	Approve  tools.ApproveFunc
	// Checks are the step's own check commands (nil: none given; the
	// executor falls back to the skill's own checks).
	Checks []string
}

// Outcome is what a step execution produced.
type Outcome struct {
	Status      string // OutcomeDone, OutcomeFailed, OutcomePaused
	Output      string
	Reason      string
	BuildID     uint64
	AgentRunID  uint64
	ChangesetID uint64
	Applied     bool
	Tokens      int
	Duration    time.Duration
}

// Executor runs steps (the facade implements it with the build engine and
// the skill runner).
type Executor interface {
	RunTask(ctx context.Context, req TaskRequest) (Outcome, error)
	RunSkill(ctx context.Context, req SkillRequest) (Outcome, error)
}

// Event kinds.
const (
	KindStep    = "step"    // a step transition (Status is the step status)
	KindDone    = "done"    // the run finished with no unhandled failure
	KindFailed  = "failed"  // a step failed (without continueOnFailure)
	KindChanged = "changed" // created, running, paused, resumed; a step's build created (StepID, BuildID)
)

// Event is published after the state it describes is committed.
type Event struct {
	Kind    string
	RunID   uint64
	StepID  string
	BuildID uint64
	Status  string
	Text    string
	Done    int
	Total   int
	Payload any // StepState for KindStep, Run otherwise
}

// Deps are an Engine's collaborators.
type Deps struct {
	Store   *Store
	Exec    Executor
	Publish func(Event)
	Logf    func(format string, args ...any)
	// Runs is the registry of the runs active in this process, shared by
	// every kind of run (nil = a registry of the engine's own).
	Runs *run.Registry
}

// Engine creates and runs workflow runs.
type Engine struct {
	d Deps
}

// key is workflow run id's key in the run registry.
func key(id uint64) run.Key { return run.Key{Kind: run.KindWorkflow, ID: id} }

// Sentinel errors of the engine.
var (
	ErrActive    = fmt.Errorf("workflow run is %w", run.ErrActive)
	ErrNotActive = fmt.Errorf("workflow run is %w", run.ErrNotActive)
	ErrFinished  = errors.New("workflow run is already done")
)

// New returns an engine.
func New(d Deps) *Engine {
	if d.Publish == nil {
		d.Publish = func(Event) {}
	}
	if d.Logf == nil {
		d.Logf = func(string, ...any) {}
	}
	if d.Runs == nil {
		d.Runs = run.NewRegistry()
	}
	return &Engine{d: d}
}

// Store returns the run store.
func (e *Engine) Store() *Store { return e.d.Store }

// CreateOptions configures a new run.
type CreateOptions struct {
	// Request is the text that triggered the run (match), if any.
	Request string
	// Autonomy overrides the configured level for the steps' builds.
	Autonomy *int
}

// Create resolves the parameters (a bad or missing one is an error naming
// it, wrapping params.ErrUsage) and stores a new run; nothing runs yet.
func (e *Engine) Create(ctx context.Context, w Workflow, given map[string]any, opts CreateOptions) (Run, error) {
	values, err := params.Resolve(w.Params, given)
	if err != nil {
		return Run{}, err
	}
	if opts.Autonomy != nil && (*opts.Autonomy < 0 || *opts.Autonomy > 5) {
		return Run{}, fmt.Errorf("autonomy must be between 0 and 5, got %d", *opts.Autonomy)
	}
	now := time.Now().UTC()
	r := Run{Workflow: w.ID, Name: w.Name, Status: RunPaused, Reason: "not started", Params: values,
		Request: opts.Request, Autonomy: opts.Autonomy, Definition: w, CreatedAt: now, UpdatedAt: now}
	for _, s := range w.Steps {
		r.Steps = append(r.Steps, StepState{ID: s.ID, Title: s.Label(), Kind: s.Kind(), Agent: s.Agent, Skill: s.Skill,
			Status: StepPending, ContinueOnFailure: s.ContinueOnFailure})
	}
	if err := e.d.Store.create(ctx, &r); err != nil {
		return Run{}, fmt.Errorf("create workflow run: %w", err)
	}
	e.publish(KindChanged, r, "", "workflow run created")
	return r, nil
}

// Get returns a run (Active set when this process runs it).
func (e *Engine) Get(ctx context.Context, id uint64) (Run, error) {
	r, err := e.d.Store.Get(ctx, id)
	r.Active = err == nil && e.isActive(id)
	return r, err
}

// List returns runs newest first.
func (e *Engine) List(ctx context.Context, limit int) ([]Run, error) {
	rs, err := e.d.Store.List(ctx, limit)
	for i := range rs {
		rs[i].Active = e.isActive(rs[i].ID)
	}
	return rs, err
}

// Counts returns how many runs there are and how many wait to be resumed:
// paused (including created but not started) or stored as running while no
// process runs them (interrupted).
func (e *Engine) Counts(ctx context.Context) (total, waiting int, err error) {
	recs, err := run.NewIndex(e.d.Store.db).List(ctx, run.KindWorkflow)
	if err != nil {
		return 0, 0, fmt.Errorf("count workflow runs: %w", err)
	}
	for _, r := range recs {
		if st := r.Seen(e.isActive(r.ID)); st == run.Paused || st == run.Interrupted {
			waiting++
		}
	}
	return len(recs), waiting, nil
}

func (e *Engine) isActive(id uint64) bool { return e.d.Runs.Active(key(id)) }

// RunOptions configures Run and Go.
type RunOptions struct {
	// Approve answers runCommand approvals of the steps' agents (nil: the
	// executor's default).
	Approve tools.ApproveFunc
}

// Run runs (or resumes) a run and returns when it stops: done, failed,
// paused (a step did not finish, or ctx ended). Done and skipped steps are
// never re-run; a step that was running continues its build; a failed
// step of a failed run runs again (a fresh build).
func (e *Engine) Run(ctx context.Context, id uint64, opts RunOptions) (Run, error) {
	c, err := e.claim(id)
	if err != nil {
		return Run{}, err
	}
	return e.run(ctx, id, c, opts)
}

// Go runs (or resumes) a run in the background; stop it with Cancel.
func (e *Engine) Go(id uint64, opts RunOptions) error {
	r, err := e.d.Store.Get(context.Background(), id)
	if err != nil {
		return err
	}
	if r.Status == RunDone {
		return fmt.Errorf("%w: %d", ErrFinished, id)
	}
	c, err := e.claim(id)
	if err != nil {
		return err
	}
	go func() {
		if _, err := e.run(context.Background(), id, c, opts); err != nil && !errors.Is(err, context.Canceled) {
			e.d.Logf("workflow run %d: %v\n", id, err)
		}
	}()
	return nil
}

// Cancel stops a running run; the step that was running is interrupted
// and the run is paused (resumable).
func (e *Engine) Cancel(id uint64) error {
	if e.d.Runs.Cancel(key(id)) != nil {
		return fmt.Errorf("%w: %d", ErrNotActive, id)
	}
	return nil
}

// Wait blocks until the run stops running in this process (or ctx ends).
func (e *Engine) Wait(ctx context.Context, id uint64) error { return e.d.Runs.Wait(ctx, key(id)) }

func (e *Engine) claim(id uint64) (*run.Control, error) {
	c, err := e.d.Runs.Claim(key(id))
	if err != nil {
		return nil, fmt.Errorf("%w: %d", ErrActive, id)
	}
	return c, nil
}
func (e *Engine) publish(kind string, r Run, stepID, text string) {
	done, total := r.Counts()
	ev := Event{Kind: kind, RunID: r.ID, Status: string(r.Status), Text: text, Done: done, Total: total, Payload: r}
	if stepID != "" {
		for _, s := range r.Steps {
			if s.ID == stepID {
				ev.StepID, ev.BuildID, ev.Status, ev.Payload = s.ID, s.BuildID, string(s.Status), s
			}
		}
	}
	e.d.Publish(ev)
}

func (e *Engine) run(ctx context.Context, id uint64, c *run.Control, opts RunOptions) (_ Run, err error) {
	defer e.d.Runs.Release(c)
	ctx, cancel := c.Context(ctx)
	defer cancel()
	r, err := e.d.Store.update(id, func(r *Run) error {
		if r.Status == RunDone {
			return fmt.Errorf("%w: %d", ErrFinished, r.ID)
		}
		if r.Status != RunPaused || r.Reason != "not started" {
			r.Resumes++
		}
		for i := range r.Steps {
			if s := &r.Steps[i]; s.Status == StepFailed && !s.ContinueOnFailure {
				// A failed run's failed step runs again, in a fresh build.
				s.Status, s.Reason, s.BuildID, s.FinishedAt = StepPending, "", 0, time.Time{}
			}
		}
		r.Status, r.Reason, r.FinishedAt = RunRunning, "", time.Time{}
		return nil
	})
	if err != nil {
		return r, err
	}
	r.Active = true
	e.publish(KindChanged, r, "", "workflow run "+strconv.FormatUint(id, 10)+" running")

	for i := range r.Steps {
		st := r.Steps[i]
		if st.Status == StepDone || st.Status == StepSkipped || st.Status == StepFailed {
			continue
		}
		if ctx.Err() != nil {
			return e.pause(id, c, "interrupted before step "+st.ID)
		}
		def := r.Definition.Steps[i]
		data := templateData(r)
		if def.Condition != "" && st.Status == StepPending {
			ok, err := evalCondition(ctx, def.Condition, data)
			if err != nil {
				if ctx.Err() != nil {
					return e.pause(id, c, "interrupted at step "+st.ID)
				}
				return e.fail(id, fmt.Sprintf("step %s: condition %q: %v", st.ID, def.Condition, err))
			}
			if !ok {
				r, err = e.d.Store.update(id, func(r *Run) error {
					s := &r.Steps[i]
					s.Status, s.Reason, s.FinishedAt = StepSkipped, fmt.Sprintf("skipped: condition %q is false", def.Condition), time.Now().UTC()
					return nil
				})
				if err != nil {
					return r, err
				}
				e.publish(KindStep, r, st.ID, fmt.Sprintf("%s skipped: condition %q is false", st.ID, def.Condition))
				continue
			}
		}
		var task string
		var inputs map[string]any
		if def.Kind() == "skill" {
			inputs, err = renderWith(ctx, def.With, data)
			if err == nil {
				task = describeInputs(def.Skill, inputs)
			}
		} else {
			task, err = renderTask(ctx, def, data)
		}
		if err != nil {
			if ctx.Err() != nil {
				return e.pause(id, c, "interrupted at step "+st.ID)
			}
			return e.fail(id, fmt.Sprintf("step %s: %v", st.ID, err))
		}
		resume := st.Status == StepRunning && st.BuildID != 0
		r, err = e.d.Store.update(id, func(r *Run) error {
			s := &r.Steps[i]
			if !resume {
				s.Task = task
			}
			s.Status, s.Reason, s.StartedAt = StepRunning, "", time.Now().UTC()
			s.Attempts++
			return nil
		})
		if err != nil {
			return r, err
		}
		e.publish(KindStep, r, st.ID, fmt.Sprintf("%s running (%s)", st.ID, st.Agent))

		var out Outcome
		var xerr error
		if def.Kind() == "skill" {
			out, xerr = e.d.Exec.RunSkill(ctx, SkillRequest{RunID: id, Workflow: r.Workflow, StepID: st.ID, Agent: def.Agent,
				Skill: def.Skill, Inputs: inputs, Approve: opts.Approve, Checks: def.Checks.Commands()})
		} else {
			out, xerr = e.d.Exec.RunTask(ctx, TaskRequest{RunID: id, Workflow: r.Workflow, StepID: st.ID, Agent: def.Agent,
				Title: r.Name + ": " + def.Label(), Task: r.Steps[i].Task, BuildID: r.Steps[i].BuildID,
				Checks: def.Checks.Switch(), CheckList: def.Checks.Commands(), Autonomy: r.Autonomy, Approve: opts.Approve,
				Created: func(buildID uint64) error {
					r, err := e.d.Store.update(id, func(r *Run) error { r.Steps[i].BuildID = buildID; return nil })
					if err != nil {
						return err
					}
					// Followers learn the step's build before it runs, so
					// they can show its live stream (TopicBuild, TopicAgent).
					e.publish(KindChanged, r, st.ID, fmt.Sprintf("%s runs in build %d", st.ID, buildID))
					return nil
				}})
		}
		switch {
		case ctx.Err() != nil || errors.Is(xerr, context.Canceled):
			return e.stepPaused(id, c, i, out, "interrupted")
		case xerr != nil:
			out = Outcome{Status: OutcomeFailed, Reason: xerr.Error(), BuildID: out.BuildID}
		}
		if out.Status == OutcomePaused {
			return e.stepPaused(id, c, i, out, out.Reason)
		}
		r, err = e.d.Store.update(id, func(r *Run) error {
			s := &r.Steps[i]
			s.Output, s.Reason, s.FinishedAt = out.Output, out.Reason, time.Now().UTC()
			s.ChangesetID, s.Applied, s.Tokens, s.Duration = out.ChangesetID, out.Applied, s.Tokens+out.Tokens, s.Duration+out.Duration
			if out.BuildID != 0 {
				s.BuildID = out.BuildID
			}
			if out.AgentRunID != 0 {
				s.AgentRunID = out.AgentRunID
			}
			if out.Status == OutcomeDone {
				s.Status, s.Reason = StepDone, ""
			} else {
				s.Status = StepFailed
				if s.Reason == "" {
					s.Reason = "the step failed"
				}
			}
			return nil
		})
		if err != nil {
			return r, err
		}
		text := st.ID + " " + string(r.Steps[i].Status)
		if r.Steps[i].Reason != "" {
			text += ": " + firstLine(r.Steps[i].Reason)
		}
		e.publish(KindStep, r, st.ID, text)
		if r.Steps[i].Status == StepFailed && !def.ContinueOnFailure {
			return e.fail(id, fmt.Sprintf("step %s failed: %s", st.ID, firstLine(r.Steps[i].Reason)))
		}
	}
	r, err = e.d.Store.update(id, func(r *Run) error {
		r.Status, r.Reason, r.FinishedAt = RunDone, "", time.Now().UTC()
		return nil
	})
	if err != nil {
		return r, err
	}
	finished, total := r.Counts()
	e.publish(KindDone, r, "", fmt.Sprintf("workflow %s done: %d/%d steps finished (%s)", r.Workflow, finished, total, stepSummary(r)))
	return r, nil
}

func (e *Engine) stepPaused(id uint64, c *run.Control, i int, out Outcome, why string) (Run, error) {
	r, err := e.d.Store.update(id, func(r *Run) error {
		s := &r.Steps[i]
		if out.BuildID != 0 {
			s.BuildID = out.BuildID
		}
		s.Tokens += out.Tokens
		if s.BuildID == 0 {
			s.Status = StepPending // nothing to continue: start it again
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	return e.pause(id, c, fmt.Sprintf("step %s %s", r.Steps[i].ID, why))
}

func (e *Engine) pause(id uint64, c *run.Control, why string) (Run, error) {
	if c.Canceled() {
		why = "canceled by the user"
	}
	r, err := e.d.Store.update(id, func(r *Run) error {
		r.Status, r.Reason = RunPaused, why+"; `nova workflow resume "+strconv.FormatUint(id, 10)+"` continues it"
		return nil
	})
	if err != nil {
		return r, err
	}
	e.publish(KindChanged, r, "", "workflow run "+strconv.FormatUint(id, 10)+" paused: "+r.Reason)
	return r, nil
}

func (e *Engine) fail(id uint64, why string) (Run, error) {
	r, err := e.d.Store.update(id, func(r *Run) error {
		r.Status, r.Reason, r.FinishedAt = RunFailed, why, time.Now().UTC()
		return nil
	})
	if err != nil {
		return r, err
	}
	e.publish(KindFailed, r, "", fmt.Sprintf("workflow %s failed: %s", r.Workflow, why))
	return r, nil
}

func stepSummary(r Run) string {
	var parts []string
	for _, s := range r.Steps {
		parts = append(parts, s.ID+" "+string(s.Status))
	}
	return strings.Join(parts, ", ")
}

// templateData is what a step's templates and condition see: the
// parameters, every step's result by id, workflow and run.
func templateData(r Run) map[string]any {
	data := make(map[string]any, len(r.Params)+len(r.Steps)+2)
	for k, v := range r.Params {
		data[k] = v
	}
	for _, s := range r.Steps {
		data[s.ID] = map[string]any{
			"output": s.Output, "status": string(s.Status), "reason": s.Reason,
			"done": s.Status == StepDone, "failed": s.Status == StepFailed, "skipped": s.Status == StepSkipped,
			"buildId": int(s.BuildID), "changesetId": int(s.ChangesetID), "applied": s.Applied,
		}
	}
	data["workflow"] = map[string]any{"id": r.Workflow, "name": r.Name}
	data["run"] = map[string]any{"id": int(r.ID)}
	return data
}

func evalCondition(ctx context.Context, cond string, data map[string]any) (bool, error) {
	x, err := tmpl.ParseExpr(cond)
	if err != nil {
		return false, err
	}
	return x.Eval(ctx, data)
}

// renderTask renders an agent step's task and appends its input sections.
func renderTask(ctx context.Context, s Step, data map[string]any) (string, error) {
	task, err := tmpl.Render(ctx, s.Task, data)
	if err != nil {
		return "", fmt.Errorf("task: %w", err)
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(task))
	for _, k := range sortedKeys(s.Input) {
		v, err := tmpl.Render(ctx, s.Input[k], data)
		if err != nil {
			return "", fmt.Errorf("input %s: %w", k, err)
		}
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		fmt.Fprintf(&b, "\n\n## %s\n%s", k, v)
	}
	return b.String(), nil
}

func renderWith(ctx context.Context, with map[string]any, data map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(with))
	for _, k := range sortedKeys(with) {
		v, err := renderAny(ctx, with[k], data)
		if err != nil {
			return nil, fmt.Errorf("with %s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

func renderAny(ctx context.Context, v any, data map[string]any) (any, error) {
	switch x := v.(type) {
	case string:
		return tmpl.Render(ctx, x, data)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := renderAny(ctx, e, data)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func describeInputs(skill string, in map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(in) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, in[k]))
	}
	return "skill " + skill + " " + strings.Join(parts, " ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
