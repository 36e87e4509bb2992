package build

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/internal/plural"
	"github.com/nova-dev/nova/storage"
)

// Config is what a build engine needs from the workspace configuration.
type Config struct {
	// Root is the workspace root; OutputDir receives <build>/<task>.md
	// (normally .nova/output).
	Root, OutputDir string
	Tier            string // "free" or "premium"
	Autonomy        int
	Parallelism     int // build.parallelism (default 1)
	// Checks are the check commands (config.checks), run on a temporary
	// copy of the workspace with the changeset applied.
	Checks       []string
	CheckTimeout time.Duration
	// CopyLimit bounds the temporary copy (zero = defaults).
	CopyLimit CopyLimit
	// Judge turns on the MERCURY judge gate with JudgeModel.
	Judge      bool
	JudgeModel string
	// PromptTokens is the prompt budget (config budgets.promptTokens); the
	// prompt-context provider (Deps.Context) gives each of its blocks its
	// share of it.
	PromptTokens int
	// BuildTokens caps a build's tokens (0 = no cap).
	BuildTokens int
	// Inconclusive is what an inconclusive verifier verdict does (config
	// verify.inconclusive): InconclusiveRetry (default), InconclusiveWarn or
	// InconclusiveFail.
	Inconclusive string
	// WaitLimit bounds how long a headless run (Run) waits for an
	// unreachable model server before it gives up, leaving the build
	// interrupted and resumable (config ollama.waitLimit; 0 = 10 minutes).
	// Background runs (Go, the TUI) wait until paused or canceled.
	WaitLimit time.Duration
	// WaitBackoff is the first pause between two checks of an unreachable
	// server; it doubles up to 30 s (0 = 1 s).
	WaitBackoff time.Duration
	// MaxEscalations caps tier escalations per task (config
	// build.maxEscalations; 0 = the default 2, negative = none);
	// MaxLargeCalls caps the attempts a build escalates to the large tier
	// (build.maxLargeCalls; 0 = the default 3, negative = none).
	MaxEscalations int
	MaxLargeCalls  int
}

// What an inconclusive verdict does (Config.Inconclusive).
const (
	// InconclusiveRetry: retry once with the verifier's evidence, then block
	// the task with it as the reason.
	InconclusiveRetry = "retry"
	// InconclusiveWarn: mark the task done with a visible warning.
	InconclusiveWarn = "warn"
	// InconclusiveFail: block the task at once with the evidence.
	InconclusiveFail = "fail"
)

// ExecRequest is one agent-loop execution of a task.
type ExecRequest struct {
	Agent   string
	Task    string   // the user message: task, description, retry feedback
	Extra   []string // context blocks for the system prompt
	BuildID string
	TaskID  string
	Approve tools.ApproveFunc
	// Tier is the model tier to start on ("" = the agent's own); set when
	// the build escalates a task.
	Tier string
	// Autonomy is the build's level: it governs the run's command approvals.
	Autonomy int
	// Board is the session board the run's board tools change (nil = none).
	Board tools.Board
	// Checks are the check commands the run executes on its changeset
	// before it finishes (agents.RunOptions.Checks): the same list the
	// build's check gates use, so their results can be reused. Never nil
	// from the engine; an empty list runs none.
	Checks *[]string
	// Critical: the task is marked critical (a timeout escalates the tier).
	Critical bool
}

// Runner runs a task's agent loop (the workspace's agent runtime in
// production). A failed run is not an error: see agents.Run.Outcome.
type Runner interface {
	RunTask(ctx context.Context, req ExecRequest) (agents.Run, error)
}

// RunnerFunc is a func that is a Runner.
type RunnerFunc func(ctx context.Context, req ExecRequest) (agents.Run, error)

// RunTask implements Runner.
func (f RunnerFunc) RunTask(ctx context.Context, req ExecRequest) (agents.Run, error) {
	return f(ctx, req)
}

// Event kinds published by the engine.
const (
	KindTask    = "task"    // a task transition (Status is the task status)
	KindDone    = "done"    // the build finished with every task done
	KindFailed  = "failed"  // the build finished with tasks blocked, or stopped by its budget
	KindChanged = "changed" // the build's state changed (paused, canceled, resumed, …)
	KindLog     = "log"     // a human-readable line
	// KindWaiting: a task waits for the model server (Text is the reason).
	KindWaiting = "taskWaiting"
	// KindAsking: a task asks the user (Text is the question).
	KindAsking = "taskAsking"
	// KindEscalated: a task is retried on the next tier or by another agent.
	KindEscalated = "taskEscalated"
	// KindBudget: the build used half of its token budget (once).
	KindBudget = "budgetWarning"
)

// Event is a build event; the facade turns it into an engine.Event with
// Topic "build". It is published after the state it describes is committed.
type Event struct {
	Kind    string
	BuildID uint64
	TaskID  string
	Status  string
	Text    string
	Done    int
	Total   int
	Payload any // Task for KindTask, Build otherwise
}

// Deps are the collaborators of an Engine.
type Deps struct {
	DB *storage.DB
	// Runner runs each task's agent.
	Runner  Runner
	Changes *changes.Store
	// Context gives the vault, wisdom, playbook and knowledge blocks of
	// each task's prompt (nil = none).
	Context promptctx.Provider
	// Vault learns from each task (lessons, credit for the injected
	// nodes); nil = vault off.
	Vault *vault.Vault
	// LLM is used by the judge gate, and to check whether an unreachable
	// model server is back (unless Ping is set).
	LLM llm.Provider
	// Ping reports whether the model server answers (nil error); nil means
	// LLM.Version. Host names the server in reasons (nil means LLM.Host).
	Ping func(ctx context.Context) error
	Host func() string
	// KnownAgents returns the roster's membership test, read when a build
	// is created (nil = no agent check).
	KnownAgents func() func(string) bool
	// Hooks are the optional collaborators (nil fields = off).
	Hooks   Hooks
	Publish func(Event)
	// Logf receives diagnostic lines (nil = dropped).
	Logf func(format string, args ...any)
	// Runs is the registry of the runs active in this process, shared by
	// every kind of run (nil = a registry of the engine's own).
	Runs *run.Registry
}

// Engine runs builds.
type Engine struct {
	cfg   Config
	d     Deps
	store *Store

	// mu guards learning: the builds whose knowledge is being learned after
	// they ended (KnowledgeLearner.KnowledgeAfterBuild): no longer running,
	// but Shutdown stops and waits for them.
	mu       sync.Mutex
	learning map[uint64]*learner
}

type learner struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// session is one run of a build in this process: its control in the run
// registry (pause, cancel, answers, wake) and what only a build needs.
type session struct {
	*run.Control
	// cancel stops the session's context (the store failed).
	cancel context.CancelFunc
	// waitLimit bounds waits for the model server (0 = until stopped);
	// gaveUp is set when a task gave up waiting, which stops the build.
	waitLimit time.Duration
	gaveUp    atomic.Value // string: the reason
	// headless: nobody can answer a question; asking tasks end the run.
	headless bool
}

// key is build id's key in the run registry.
func key(id uint64) run.Key { return run.Key{Kind: run.KindBuild, ID: id} }

// New returns an engine.
func New(cfg Config, d Deps) *Engine {
	if cfg.Parallelism < 1 {
		cfg.Parallelism = 1
	}
	if cfg.PromptTokens <= 0 {
		cfg.PromptTokens = vault.DefaultPromptTokens
	}
	switch cfg.Inconclusive {
	case InconclusiveRetry, InconclusiveWarn, InconclusiveFail:
	default:
		cfg.Inconclusive = InconclusiveRetry
	}
	if cfg.WaitLimit <= 0 {
		cfg.WaitLimit = 10 * time.Minute
	}
	if cfg.WaitBackoff <= 0 {
		cfg.WaitBackoff = time.Second
	}
	if cfg.MaxEscalations == 0 {
		cfg.MaxEscalations = 2
	}
	if cfg.MaxLargeCalls == 0 {
		cfg.MaxLargeCalls = 3
	}
	if cfg.CheckTimeout <= 0 {
		cfg.CheckTimeout = 2 * time.Minute
	}
	if cfg.OutputDir == "" {
		cfg.OutputDir = filepath.Join(cfg.Root, ".nova", "output")
	}
	if d.Publish == nil {
		d.Publish = func(Event) {}
	}
	if d.Logf == nil {
		d.Logf = func(string, ...any) {}
	}
	if d.Ping == nil {
		d.Ping = func(ctx context.Context) error {
			if d.LLM == nil {
				return nil
			}
			_, err := d.LLM.Version(ctx)
			return err
		}
	}
	if d.Host == nil {
		d.Host = func() string {
			if d.LLM == nil {
				return "its host"
			}
			return d.LLM.Host()
		}
	}
	if d.Runs == nil {
		d.Runs = run.NewRegistry()
	}
	return &Engine{cfg: cfg, d: d, store: NewStore(d.DB), learning: map[uint64]*learner{}}
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Store returns the build store.
func (e *Engine) Store() *Store { return e.store }

// Options configures a new build.
type Options struct {
	// Autonomy overrides the configured level (nil = config).
	Autonomy *int
	// Rehearse forces rehearsal of every task (premium tier, needs the hook).
	Rehearse bool
	// SkipChecks leaves out the check-command gates (see Build.SkipChecks).
	SkipChecks bool
	// Approve answers runCommand approvals of the agents (nil = the
	// executor's default: the TUI's dialog through events).
	Approve tools.ApproveFunc
}

// Validate checks a PRD against the roster; nothing starts until it passes.
func (e *Engine) Validate(p *prd.PRD) error {
	var known func(string) bool
	if e.d.KnownAgents != nil {
		known = e.d.KnownAgents()
	}
	return prd.Validate(p, known)
}

// Create validates a PRD and stores a new build of it (nothing runs yet).
// Tasks marked done in the PRD stay done; every other task starts pending.
func (e *Engine) Create(ctx context.Context, p *prd.PRD, prdPath string, opts Options) (Build, error) {
	if err := e.Validate(p); err != nil {
		return Build{}, err
	}
	raw, err := p.Marshal()
	if err != nil {
		return Build{}, fmt.Errorf("encode prd: %w", err)
	}
	autonomy := e.cfg.Autonomy
	if opts.Autonomy != nil {
		autonomy = *opts.Autonomy
	}
	if autonomy < 0 || autonomy > 5 {
		return Build{}, fmt.Errorf("autonomy must be between 0 and 5, got %d", autonomy)
	}
	now := time.Now()
	name := cmp.Or(strings.TrimSpace(p.Meta.Name), strings.TrimSuffix(filepath.Base(prdPath), filepath.Ext(prdPath)), "build")
	b := Build{Name: name, PRDPath: prdPath, Status: StatusPaused, Reason: "not started",
		Autonomy: autonomy, Tier: e.cfg.Tier, Rehearse: opts.Rehearse, SkipChecks: opts.SkipChecks, TokenBudget: e.cfg.BuildTokens,
		Total: len(p.Tasks), CreatedAt: now, UpdatedAt: now, PRD: json.RawMessage(raw)}
	tasks := make([]Task, len(p.Tasks))
	for i, pt := range p.Tasks {
		st := TaskPending
		if pt.Status.Normalize() == prd.StatusDone {
			st = TaskDone
		}
		tasks[i] = Task{Ordinal: i, ID: pt.ID, Title: pt.Title, Description: pt.Description, Agent: pt.Agent,
			Phase: pt.Phase, Dependencies: append([]string{}, pt.Dependencies...), Status: st, Checks: slices.Clone(pt.Checks), Critical: pt.Critical,
			Output: pt.Output, Gates: []GateResult{}, History: []Attempt{},
			VaultNodeIDs: []uint64{}, WisdomIDs: []uint64{}, RuleIDs: []string{}, KnowledgeIDs: []string{}}
	}
	if err := e.store.create(ctx, &b, tasks); err != nil {
		return Build{}, fmt.Errorf("create build: %w", err)
	}
	e.publish(Event{Kind: KindChanged, BuildID: b.ID, Status: string(b.Status), Text: "build created", Total: b.Total, Payload: b.Summary()})
	return b, nil
}

// LedOptions configure the build of a goal run (CreateLed).
type LedOptions struct {
	// Name names the build (the goal).
	Name string
	// GoalRunID is the goal run; Board the key of its session board.
	GoalRunID uint64
	Board     string
	// Autonomy overrides the configured level (nil = config).
	Autonomy *int
}

// CreateLed stores an empty build whose tasks a lead adds one at a time
// (AddTask), each run with Run. Its tasks have no dependencies; recovery
// hints that change the agent or ask the user go back to the lead, and the
// build has no token budget of its own (the goal run has one).
func (e *Engine) CreateLed(ctx context.Context, o LedOptions) (Build, error) {
	autonomy := e.cfg.Autonomy
	if o.Autonomy != nil {
		autonomy = *o.Autonomy
	}
	if autonomy < 0 || autonomy > 5 {
		return Build{}, fmt.Errorf("autonomy must be between 0 and 5, got %d", autonomy)
	}
	now := time.Now()
	b := Build{Name: cmp.Or(strings.TrimSpace(o.Name), "goal run"), Status: StatusPaused, Reason: "not started",
		Autonomy: autonomy, Tier: e.cfg.Tier, CreatedAt: now, UpdatedAt: now,
		Board: o.Board, GoalRunID: o.GoalRunID, Led: true}
	if err := e.store.create(ctx, &b, nil); err != nil {
		return Build{}, fmt.Errorf("create build: %w", err)
	}
	e.publish(Event{Kind: KindChanged, BuildID: b.ID, Status: string(b.Status), Text: "build created", Payload: b.Summary()})
	return b, nil
}

// TaskSpec is a task a lead adds to its build (AddTask).
type TaskSpec struct {
	ID          string
	Title       string
	Description string
	Agent       string
	// Include are board artifacts whose full content goes into the prompt.
	Include []uint64
}

// AddTask appends a pending task to a led build (not while it runs); Run
// then runs it.
func (e *Engine) AddTask(ctx context.Context, id uint64, spec TaskSpec) (Task, error) {
	if err := ctx.Err(); err != nil {
		return Task{}, err
	}
	if e.isActive(id) {
		return Task{}, fmt.Errorf("%w: %d", ErrActive, id)
	}
	var added Task
	b, err := e.store.updateBuild(id, func(b *Build, ts []Task) ([]Task, error) {
		if !b.Led {
			return nil, fmt.Errorf("build %d follows its PRD: tasks are added only to a goal run's build", id)
		}
		if slices.ContainsFunc(ts, func(t Task) bool { return t.ID == spec.ID }) {
			return nil, fmt.Errorf("build %d already has a task %q", id, spec.ID)
		}
		added = Task{BuildID: id, Ordinal: len(ts), ID: spec.ID, Title: spec.Title, Description: spec.Description,
			Agent: spec.Agent, Dependencies: []string{}, Status: TaskPending, Include: slices.Clone(spec.Include),
			Gates: []GateResult{}, History: []Attempt{}, VaultNodeIDs: []uint64{}, WisdomIDs: []uint64{}, RuleIDs: []string{}}
		b.Total = len(ts) + 1
		b.Status, b.Reason, b.FinishedAt = StatusPaused, "not started", time.Time{}
		return []Task{added}, nil
	})
	if err != nil {
		return Task{}, err
	}
	e.publishTask(added, string(added.Status), b)
	return added, nil
}

// Wake makes a build that waits in this process look again at what it
// waits for (a blocker resolved on its board).
func (e *Engine) Wake(id uint64) { e.d.Runs.Wake(key(id)) }

// List returns the builds, newest first (Active set for builds running in
// this process).
func (e *Engine) List(ctx context.Context) ([]Build, error) {
	bs, err := e.store.List(ctx)
	for i := range bs {
		e.present(&bs[i])
	}
	return bs, err
}

// Get returns one build.
func (e *Engine) Get(ctx context.Context, id uint64) (Build, error) {
	b, err := e.store.Get(ctx, id)
	if err == nil {
		e.present(&b)
	}
	return b, err
}

// present sets Active, and shows a build stored as running or waiting that
// no process runs (its process was killed) as interrupted.
func (e *Engine) present(b *Build) {
	b.Active = e.isActive(b.ID)
	if st := b.Status.OnOpen(); !b.Active && st != b.Status {
		b.Status = st
		b.Reason = fmt.Sprintf("interrupted: nova stopped while the build ran; `nova build resume %d` continues it", b.ID)
	}
}

// Running lists the ids of the builds running in this process (the TUI
// asks before quitting while there are any).
func (e *Engine) Running() []uint64 { return e.d.Runs.Running(run.KindBuild) }

// Tasks returns a build's tasks in file order.
func (e *Engine) Tasks(ctx context.Context, id uint64) ([]Task, error) { return e.store.Tasks(ctx, id) }

// Phases returns a build's tasks grouped by phase, ascending.
func (e *Engine) Phases(ctx context.Context, id uint64) ([]Phase, error) {
	ts, err := e.store.Tasks(ctx, id)
	if err != nil {
		return nil, err
	}
	return GroupByPhase(ts), nil
}

func (e *Engine) isActive(id uint64) bool { return e.d.Runs.Active(key(id)) }

// Pause stops scheduling new tasks of a running build; running tasks finish,
// then the build is paused (resumable). A finished build gives ErrFinished
// ("build 3 is already finished (done)"), one not running here ErrNotActive.
func (e *Engine) Pause(id uint64) error {
	if e.d.Runs.Pause(key(id)) != nil {
		if b, err := e.store.Get(context.Background(), id); err == nil && b.Status.Finished() {
			return fmt.Errorf("build %d: %w (%s); nothing to pause", id, ErrFinished, b.Status)
		} else if errors.Is(err, ErrNotFound) {
			return err
		}
		return fmt.Errorf("%w: %d", ErrNotActive, id)
	}
	e.publish(Event{Kind: KindLog, BuildID: id, Status: "pausing", Text: "pausing: running tasks finish first"})
	return nil
}

// Cancel stops a running build now; tasks that were running go back to
// pending (a resume re-runs them).
func (e *Engine) Cancel(id uint64) error {
	if e.d.Runs.Cancel(key(id)) != nil {
		return fmt.Errorf("%w: %d", ErrNotActive, id)
	}
	return nil
}

// Shutdown interrupts every build running in this process (as a quit does:
// running tasks go back to pending, the builds are interrupted and
// resumable) and waits for them to commit that, or for ctx to end.
func (e *Engine) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	ls := make([]*learner, 0, len(e.learning))
	for _, l := range e.learning {
		ls = append(ls, l)
	}
	e.mu.Unlock()
	for _, l := range ls {
		l.cancel()
	}
	if err := e.d.Runs.Shutdown(ctx, run.KindBuild); err != nil {
		return err
	}
	for _, l := range ls {
		select {
		case <-l.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Wait blocks until the build stops running in this process (or ctx ends).
func (e *Engine) Wait(ctx context.Context, id uint64) error { return e.d.Runs.Wait(ctx, key(id)) }

// Go runs (or resumes) a build in the background, detached from the
// caller's context: stop it with Pause or Cancel. approve may be nil. It
// waits for an unreachable model server and for the answers of tasks that
// ask the user (AnswerTask) until paused or canceled.
func (e *Engine) Go(id uint64, approve tools.ApproveFunc) error {
	b, err := e.store.Get(context.Background(), id)
	if err != nil {
		return err
	}
	if b.Status == StatusDone {
		return nil
	}
	c, err := e.claim(id)
	if err != nil {
		return err
	}
	ctx := c.start(context.Background())
	go func() { // background: waits for the server and for answers until stopped
		if _, err := e.run(ctx, id, c, approve); err != nil && !errors.Is(err, context.Canceled) {
			e.d.Logf("build %d: %v\n", id, err)
		}
	}()
	return nil
}

// Run runs (or resumes) a build headless and returns when it stops: done,
// failed, paused, canceled, or interrupted (ctx ended, or the model server
// stayed unreachable for WaitLimit), all but done and failed resumable. Done
// tasks are never re-run; tasks that were running when a previous process
// died, or waited for the model server, are re-run. Tasks that ask the user
// end the run (paused) until answered.
func (e *Engine) Run(ctx context.Context, id uint64, approve tools.ApproveFunc) (Build, error) {
	return e.runBlocking(ctx, id, approve, true)
}

// RunAttended is Run for a caller someone watches (the TUI): like Go, it
// waits for an unreachable model server and for the answers of tasks that
// ask the user until paused, canceled or ctx ends; like Run, it returns when
// the build stops.
func (e *Engine) RunAttended(ctx context.Context, id uint64, approve tools.ApproveFunc) (Build, error) {
	return e.runBlocking(ctx, id, approve, false)
}

func (e *Engine) runBlocking(ctx context.Context, id uint64, approve tools.ApproveFunc, headless bool) (Build, error) {
	b, err := e.store.Get(ctx, id)
	if err != nil || b.Status == StatusDone {
		return b, err // a done build has nothing left to run
	}
	c, err := e.claim(id)
	if err != nil {
		return Build{}, err
	}
	if headless {
		// Give up waiting for the model server after WaitLimit, and end the
		// run when only tasks asking the user are left.
		c.waitLimit, c.headless = e.cfg.WaitLimit, true
	}
	return e.run(c.start(ctx), id, c, approve)
}

// claim claims build id in the run registry.
func (e *Engine) claim(id uint64) (*session, error) {
	c, err := e.d.Runs.Claim(key(id))
	if err != nil {
		return nil, fmt.Errorf("%w: %d", ErrActive, id)
	}
	return &session{Control: c}, nil
}

// start derives the session's context from parent.
func (c *session) start(parent context.Context) context.Context {
	ctx, cancel := c.Context(parent)
	c.cancel = cancel
	return ctx
}

func (e *Engine) release(c *session) { e.d.Runs.Release(c.Control) }

func (e *Engine) publish(ev Event) { e.d.Publish(ev) }

func (e *Engine) logf(id uint64, taskID, format string, args ...any) {
	e.publish(Event{Kind: KindLog, BuildID: id, TaskID: taskID, Text: fmt.Sprintf(format, args...)})
}

// done is one finished task execution.
type done struct {
	task  Task
	build Build
	err   error
}

func (e *Engine) run(ctx context.Context, id uint64, c *session, approve tools.ApproveFunc) (_ Build, err error) {
	defer c.cancel()
	defer e.release(c) // a build that ended was released already: harmless
	var tasks []Task
	b, err := e.store.updateBuild(id, func(b *Build, ts []Task) ([]Task, error) {
		var changed []Task
		for _, t := range ts {
			switch t.Status {
			case TaskRunning: // interrupted by a crash: re-run
				t.Status = TaskPending
				t.Interruptions++
				if n := len(t.History); n > 0 && !t.History[n-1].Passed && t.History[n-1].Reason == "" {
					t.History[n-1].Interrupted = true
				}
				changed = append(changed, t)
			case TaskWaiting:
				if t.WaitFor == WaitUser {
					continue // still waiting for the user's answer (AnswerTask)
				}
				// A rehearsal is asked again (it finds its session); a task
				// that waited for the model server runs again.
				t.Status, t.WaitFor = TaskPending, ""
				changed = append(changed, t)
			}
		}
		if b.Status != StatusPaused || b.Reason != "not started" {
			b.Resumes++
		}
		b.Status, b.Reason, b.FinishedAt = StatusRunning, "", time.Time{}
		tasks = ts
		for _, ch := range changed {
			tasks[ch.Ordinal] = ch
		}
		return changed, nil
	})
	if err != nil {
		return b, err
	}
	b.Active = true
	e.publish(Event{Kind: KindChanged, BuildID: id, Status: string(b.Status), Text: "build running", Total: b.Total, Done: b.Counts[TaskDone], Payload: b.Summary()})

	results := make(chan done)
	inflight := map[string]bool{}
	var early []run.Answer // answers to tasks still in flight (applyEarly)
	stopReason := ""
	waitReason := ""
	var storeErr error
	for {
		if stopReason == "" {
			switch {
			case c.Canceled():
				stopReason = "canceled"
			case ctx.Err() != nil:
				stopReason = "interrupted"
			case c.gaveUp.Load() != nil:
				stopReason = "gaveUp"
			case c.Paused():
				stopReason = "paused"
			case b.TokenBudget > 0 && b.Tokens >= b.TokenBudget:
				stopReason = "budget"
			}
		}
		if stopReason == "" {
			if bh := e.d.Hooks.Board; bh != nil {
				tasks = e.holdBlocked(ctx, b, tasks, inflight, bh)
			}
			for _, t := range ready(tasks, inflight) {
				if len(inflight) >= e.cfg.Parallelism {
					break
				}
				inflight[t.ID] = true
				deps := depsOf(tasks, t)
				up := upstreamOf(tasks, t, b.Led)
				go func(t Task) {
					nt, nb, err := e.runTask(ctx, b, t, deps, up, approve, c)
					results <- done{task: nt, build: nb, err: err}
				}(t)
			}
		}
		if len(inflight) == 0 {
			why := idleReason(tasks)
			if stopReason != "" || c.headless || why == "" {
				break
			}
			// Interactive: only tasks asking the user or waiting for a
			// blocker are left. Wait for an answer (AnswerTask), a wake (a
			// blocker resolved), a pause or a cancel.
			if why != waitReason {
				waitReason = why
				e.setStatus(id, StatusWaiting, why)
			}
			select {
			case a := <-c.Answers():
				if t, ok := e.applyAnswer(id, tasks, a); ok {
					tasks[t.Ordinal] = t
				}
			case <-c.Wake():
			case <-ctx.Done():
			}
			if idleReason(tasks) == "" || c.Paused() {
				if waitReason != "" {
					waitReason = ""
					e.setStatus(id, StatusRunning, "")
				}
			}
			continue
		}
		if waitReason != "" {
			waitReason = ""
			e.setStatus(id, StatusRunning, "")
		}
		select {
		case r := <-results:
			delete(inflight, r.task.ID)
			if r.err != nil { // the store failed: stop, leave the build resumable
				storeErr = errors.Join(storeErr, r.err)
				stopReason = "error"
				c.cancel()
				continue
			}
			tasks[r.task.Ordinal] = r.task
			if r.build.ID != 0 {
				b.Tokens, b.Counts, b.Wisdom = r.build.Tokens, r.build.Counts, r.build.Wisdom
				b.LargeCalls = r.build.LargeCalls
			}
			// An answer that came in while its task was still finishing
			// (asking is committed and published before the task's result
			// reaches this loop) applies now.
			early = e.applyEarly(id, tasks, inflight, early)
		case a := <-c.Answers():
			if t, ok := e.applyAnswer(id, tasks, a); ok {
				tasks[t.Ordinal] = t
			} else if inflight[a.Task] {
				early = append(early, a)
			}
		}
	}
	fb, finished, err := e.finish(id, stopReason, c)
	if err == nil && storeErr == nil && ctx.Err() == nil {
		// The build has ended: it no longer runs (Running, Wait), while
		// what it taught is learned before Run returns.
		e.release(c)
		e.finishedHook(fb, finished)
		if !fb.Led { // a led build ends after each delegation: its goal run learns once, at its end (LearnLed)
			e.learnAfter(ctx, fb)
		}
	} else if err == nil {
		e.finishedHook(fb, finished)
	}
	if storeErr != nil {
		return fb, fmt.Errorf("build %d stopped: %w", id, storeErr)
	}
	return fb, err
}

// idleReason says what an attended build with nothing running waits for:
// the user's answers, or blockers on the board; "" when it waits for
// neither (it then ends).
func idleReason(tasks []Task) string {
	if ids := askingIDs(tasks); len(ids) > 0 {
		return "waiting for your answer on " + strings.Join(ids, ", ")
	}
	var held []string
	for _, t := range tasks {
		if t.Status == TaskWaiting && t.WaitFor == WaitBlocker {
			held = append(held, t.ID)
		}
	}
	if len(held) > 0 {
		return "waiting for blockers on the board to be resolved (" + strings.Join(held, ", ") + ")"
	}
	return ""
}

// holdBlocked makes pending tasks whose dependencies raised open blockers
// wait (WaitBlocker), and lets waiting ones go once those are resolved.
func (e *Engine) holdBlocked(ctx context.Context, b Build, tasks []Task, inflight map[string]bool, bh BoardHook) []Task {
	need := false
	for _, t := range tasks {
		if len(t.Dependencies) > 0 && (t.Status == TaskPending || (t.Status == TaskWaiting && t.WaitFor == WaitBlocker)) {
			need = true
			break
		}
	}
	if !need {
		return tasks
	}
	open, err := bh.Blockers(ctx, b.BoardKey())
	if err != nil {
		e.logf(b.ID, "", "board: %v", err)
		return tasks
	}
	for i, t := range tasks {
		if inflight[t.ID] {
			continue
		}
		var why []string
		for _, d := range t.Dependencies {
			for _, x := range open[d] {
				why = append(why, x+" (raised in "+d+")")
			}
		}
		switch {
		case t.Status == TaskPending && len(why) > 0:
			t.Status, t.WaitFor = TaskWaiting, WaitBlocker
			t.Reason = "waiting for blocker " + strings.Join(why, "; ")
		case t.Status == TaskWaiting && t.WaitFor == WaitBlocker && len(why) == 0:
			t.Status, t.WaitFor, t.Reason = TaskPending, "", "its blockers are resolved"
		default:
			continue
		}
		nb, err := e.commit(t, nil)
		if err != nil {
			e.d.Logf("build %d: %v\n", b.ID, err)
			continue
		}
		tasks[i] = t
		e.publishTask(t, string(t.Status), nb)
		if t.Status == TaskWaiting {
			e.publish(Event{Kind: KindWaiting, BuildID: t.BuildID, TaskID: t.ID, Status: string(t.Status), Text: t.ID + " " + t.Reason, Payload: t})
		}
	}
	return tasks
}

// upstreamOf lists the tasks whose handoffs' constraints reach t: its
// dependencies, or in a led build every task before it.
func upstreamOf(tasks []Task, t Task, led bool) []string {
	if !led {
		return slices.Clone(t.Dependencies)
	}
	var out []string
	for _, x := range tasks {
		if x.Ordinal < t.Ordinal {
			out = append(out, x.ID)
		}
	}
	return out
}

func askingIDs(tasks []Task) []string {
	var out []string
	for _, t := range tasks {
		if t.Status == TaskWaiting && t.WaitFor == WaitUser {
			out = append(out, t.ID)
		}
	}
	return out
}

// setStatus commits a running build's status and reason, then publishes it.
func (e *Engine) setStatus(id uint64, st Status, reason string) {
	b, err := e.store.updateBuild(id, func(b *Build, _ []Task) ([]Task, error) {
		b.Status, b.Reason = st, reason
		return nil, nil
	})
	if err != nil {
		e.d.Logf("build %d: %v\n", id, err)
		return
	}
	b.Active = true
	// Not "build <status>: …": that form marks the end of a run for
	// followers; the build goes on.
	text := "the build continues"
	if reason != "" {
		text = "the build waits: " + reason
	}
	e.publish(Event{Kind: KindChanged, BuildID: id, Status: string(st), Text: text, Total: b.Total, Done: b.Counts[TaskDone], Payload: b.Summary()})
}

// applyAnswer makes a task that asked the user pending again with the
// answer, in the store and in the running scheduler's view.
func (e *Engine) applyAnswer(id uint64, tasks []Task, a run.Answer) (Task, bool) {
	for _, t := range tasks {
		if t.ID != a.Task || t.Status != TaskWaiting || t.WaitFor != WaitUser {
			continue
		}
		t.Status, t.WaitFor, t.Answer, t.Reason = TaskPending, "", a.Text, "answered: "+firstLine(a.Text)
		nb, err := e.commit(t, nil)
		if err != nil {
			e.d.Logf("build %d: %v\n", id, err)
			return t, false
		}
		e.publishTask(t, "answered", nb)
		return t, true
	}
	return Task{}, false
}

// applyEarly applies the answers kept for tasks that were still in flight
// when they came and now ask; it returns those still to apply.
func (e *Engine) applyEarly(id uint64, tasks []Task, inflight map[string]bool, early []run.Answer) []run.Answer {
	if len(early) == 0 {
		return nil
	}
	var keep []run.Answer
	for _, a := range early {
		if inflight[a.Task] {
			keep = append(keep, a)
			continue
		}
		if t, ok := e.applyAnswer(id, tasks, a); ok {
			tasks[t.Ordinal] = t
		}
	}
	return keep
}

// AnswerTask answers a task that asks the user (it waits with WaitFor
// WaitUser after an ask_user recovery hint). The answer goes into the task's
// next attempt. When the build runs in this process the task runs again at
// once; otherwise it is pending and `build resume` continues the build
// (resumed reports which). A task that is not asking gives ErrNotWaiting.
func (e *Engine) AnswerTask(ctx context.Context, id uint64, taskID, text string) (resumed bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return false, fmt.Errorf("answer to task %s: the answer is empty", taskID)
	}
	ts, err := e.store.Tasks(ctx, id)
	if err != nil {
		return false, err
	}
	idx := slices.IndexFunc(ts, func(t Task) bool { return t.ID == taskID })
	if idx < 0 {
		return false, fmt.Errorf("build %d has no task %q", id, taskID)
	}
	if t := ts[idx]; t.Status != TaskWaiting || t.WaitFor != WaitUser {
		return false, fmt.Errorf("task %s of build %d is %s: %w", taskID, id, t.Status, ErrNotWaiting)
	}
	switch err := e.d.Runs.Answer(ctx, key(id), run.Answer{Task: taskID, Text: text}); {
	case err == nil:
		return true, nil
	case !errors.Is(err, run.ErrNotActive):
		return false, err
	}
	_, err = e.store.updateBuild(id, func(_ *Build, ts []Task) ([]Task, error) {
		t := ts[idx]
		if t.Status != TaskWaiting || t.WaitFor != WaitUser {
			return nil, fmt.Errorf("task %s of build %d is %s: %w", taskID, id, t.Status, ErrNotWaiting)
		}
		t.Status, t.WaitFor, t.Answer, t.Reason = TaskPending, "", text, "answered: "+firstLine(text)
		return []Task{t}, nil
	})
	if err != nil {
		return false, err
	}
	e.publish(Event{Kind: KindTask, BuildID: id, TaskID: taskID, Status: "answered", Text: taskID + " answered; `nova build resume` continues the build"})
	return false, nil
}

// finishedHook hands a build that ended done or failed to Hooks.Finished
// (once its end state is committed and published, and no longer running).
func (e *Engine) finishedHook(b Build, finished []Task) {
	if h := e.d.Hooks.Finished; h != nil && (b.Status == StatusDone || b.Status == StatusFailed) {
		h.BuildFinished(context.Background(), b, finished)
	}
}

// finish commits the build's end state, then publishes it; it returns the
// build and its tasks as committed.
func (e *Engine) finish(id uint64, stopReason string, c *session) (Build, []Task, error) {
	var kind string
	var finished []Task
	b, err := e.store.updateBuild(id, func(b *Build, ts []Task) ([]Task, error) {
		finished = ts
		var blocked, waiting, asked, held, pending []string
		for _, t := range ts {
			switch t.Status {
			case TaskBlocked:
				blocked = append(blocked, t.ID)
			case TaskWaiting:
				switch t.WaitFor {
				case WaitUser:
					asked = append(asked, t.ID)
				case WaitBlocker:
					held = append(held, t.ID)
				default:
					waiting = append(waiting, t.ID)
				}
			case TaskPending, TaskRunning:
				pending = append(pending, t.ID)
			}
		}
		notRun := len(pending) + len(waiting) + len(asked) + len(held)
		kind = KindChanged
		switch {
		case stopReason == "canceled":
			b.Status, b.Reason = StatusCanceled, fmt.Sprintf("canceled by the user; `nova build resume %d` continues it", id)
		case stopReason == "gaveUp":
			why, _ := c.gaveUp.Load().(string)
			b.Status, b.Reason = StatusInterrupted, fmt.Sprintf("%s; start it and run `nova build resume %d`", why, id)
		case stopReason == "interrupted" || stopReason == "error":
			b.Status, b.Reason = StatusInterrupted, fmt.Sprintf("interrupted; `nova build resume %d` continues it", id)
		case stopReason == "paused":
			b.Status, b.Reason = StatusPaused, "paused by the user"
		case stopReason == "budget":
			b.Status, kind = StatusFailed, KindFailed
			b.Reason = fmt.Sprintf("%v: used %d of %d tokens (budgets.buildTokens); %s not run: raise the budget and resume",
				ErrBudget, b.Tokens, b.TokenBudget, plural.Count(notRun, "task", "tasks"))
		case len(blocked)+notRun == 0:
			b.Status, b.Reason, kind = StatusDone, "", KindDone
		case len(asked) > 0 && len(blocked) == 0:
			b.Status = StatusPaused
			b.Reason = fmt.Sprintf("waiting for your answer on %s: `nova build answer %d TASK \"…\"`, then `nova build resume %d`",
				strings.Join(asked, ", "), id, id)
		case len(waiting) > 0 && len(blocked) == 0:
			b.Status = StatusPaused
			b.Reason = "waiting for a rehearsal choice on " + strings.Join(waiting, ", ")
		case len(held) > 0 && len(blocked) == 0:
			b.Status = StatusPaused
			b.Reason = fmt.Sprintf("%s wait for blockers on the board: resolve them (`nova build resolve %d BLOCKER`), then `nova build resume %d`",
				strings.Join(held, ", "), id, id)
		default:
			b.Status, kind = StatusFailed, KindFailed
			var why []string
			for _, t := range ts {
				if t.Status == TaskBlocked {
					why = append(why, t.ID+": "+firstLine(t.Reason))
				}
			}
			b.Reason = fmt.Sprintf("%s blocked (%s); %d not run", plural.Count(len(blocked), "task", "tasks"), strings.Join(why, "; "), notRun)
		}
		if b.Status.Finished() {
			b.FinishedAt = time.Now()
		}
		return nil, nil
	})
	if err != nil {
		return b, nil, err
	}
	text := fmt.Sprintf("build %s: %d/%d tasks done", b.Status, b.Counts[TaskDone], b.Total)
	if b.Reason != "" {
		text += " — " + b.Reason
	}
	if b.Status.Finished() {
		text += fmt.Sprintf("; wisdom: %d learned, %d strengthened, %d reinforced, %d mistakes",
			b.Wisdom.Learned, b.Wisdom.Strengthened, b.Wisdom.Reinforced, b.Wisdom.Mistakes)
	}
	if b.Led && kind != KindChanged {
		// A led build ends after each delegation; its goal run ends once,
		// with its own done or failed.
		kind = KindChanged
	}
	e.publish(Event{Kind: kind, BuildID: id, Status: string(b.Status), Text: text, Done: b.Counts[TaskDone], Total: b.Total, Payload: b.Summary()})
	return b, finished, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// ready returns the pending tasks whose dependencies are done, lower phase
// first, then file order (prd.Ready's rule, over the build's own states).
func ready(tasks []Task, inflight map[string]bool) []Task {
	st := make(map[string]TaskStatus, len(tasks))
	for _, t := range tasks {
		st[t.ID] = t.Status
	}
	var out []Task
	for _, t := range tasks {
		if t.Status != TaskPending || inflight[t.ID] {
			continue
		}
		ok := true
		for _, d := range t.Dependencies {
			if st[d] != TaskDone {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b Task) int { return cmp.Compare(a.Phase, b.Phase) })
	return out
}

func depsOf(tasks []Task, t Task) []Task {
	var out []Task
	for _, d := range t.Dependencies {
		for _, x := range tasks {
			if x.ID == d {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// idString formats a build id for events and paths.
func idString(id uint64) string { return strconv.FormatUint(id, 10) }

// ParseID parses a build id as printed ("7" or "#7").
func ParseID(s string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s), "#"), 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("build id %q: want a positive number", s)
	}
	return n, nil
}

// outputPath is where a task's output is written: <OutputDir>/<build>/<task>.md,
// the task id reduced to a safe file name.
func (e *Engine) outputPath(buildID uint64, taskID string) string {
	return filepath.Join(e.cfg.OutputDir, idString(buildID), safeName(taskID)+".md")
}

// safeName maps a task id to a file name, injectively and safely: an id
// made only of lower-case letters, digits, '.', '_' and '-' (not starting
// with '.', at most 80 bytes, not a name Windows reserves) is used as it
// is; any other id becomes a readable prefix, '~' and 16 hex digits of the
// id's sha256. '~' never appears in a verbatim name, so two ids never share
// a file (before, "a/b" and "a_b", ".." and "task", or two ids sharing a
// 100-byte prefix did, and one output overwrote the other), even on a
// case-insensitive file system.
func safeName(s string) string {
	if verbatimName(s) {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if b.Len() >= 60 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	prefix := strings.Trim(b.String(), "_")
	if prefix == "" {
		prefix = "task"
	}
	sum := sha256.Sum256([]byte(s))
	return prefix + "~" + hex.EncodeToString(sum[:8])
}

func verbatimName(s string) bool {
	if s == "" || len(s) > 80 || s[0] == '.' || strings.HasSuffix(s, ".") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	base, _, _ := strings.Cut(s, ".")
	switch base {
	case "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
		"lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9":
		return false
	}
	return true
}

func writeOutput(path string, t Task, body string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# %s — %s\n\nAgent: %s · phase %d · status %s\n\n", t.ID, t.Title, t.Agent, t.Phase, t.Status)
	sb.WriteString(body)
	sb.WriteByte('\n')
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(sb.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
