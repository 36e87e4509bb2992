package goal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/internal/plural"
)

// Defaults of the limits and guards.
const (
	DefaultMaxTurns    = 12
	DefaultMaxTokens   = 200000
	DefaultMaxDuration = 30 * time.Minute
	// StuckRepeats identical delegations stop a run.
	StuckRepeats = 3
	// MaxUnusable rejected or invalid decisions in a row stop a run.
	MaxUnusable = 3
	// MaxGoalChars bounds a goal.
	MaxGoalChars = 8000
)

// LeadRequest is one question to the lead: its system prompt and the turn's
// message.
type LeadRequest struct {
	Lead   string
	System string
	Prompt string
}

// LeadReply is the lead's decision and the tokens it cost (also when the
// reply was unusable: err then says why).
type LeadReply struct {
	Decision Decision
	Tokens   int
}

// Delegation is one delegated task, for Deps.Delegate.
type Delegation struct {
	Run    Run
	TaskID string
	Agent  string
	Task   string
	// Title is a short title of the task (for lists).
	Title   string
	Include []uint64
	Options RunOptions
}

// Deps are an engine's collaborators (engine.Local wires them).
type Deps struct {
	Store  *Store
	Boards *board.Store
	// Team returns the roster (id and what each agent does).
	Team func(ctx context.Context) ([]Agent, error)
	// LeadRole returns the lead's own description ("" when it has none).
	LeadRole func(lead string) string
	// Ask asks the lead for a decision (structured output).
	Ask func(ctx context.Context, req LeadRequest) (LeadReply, error)
	// NewBuild creates the led build that carries a run's delegations.
	NewBuild func(ctx context.Context, r Run) (uint64, error)
	// Delegate runs one delegated task of the run's build to its end (it
	// adds the task when the build does not have it yet: a resumed
	// delegation goes on). An error means the delegation did not finish
	// (ctx ended, the model server stayed away): the run stops resumable.
	Delegate func(ctx context.Context, d Delegation) (Outcome, error)
	// VaultContext returns the taste-vault block for the goal (optional).
	VaultContext func(ctx context.Context, goal string) (string, error)
	// Ping reports whether the model server answers; Host names it.
	Ping func(ctx context.Context) error
	Host func() string
	// Publish receives events after the state they describe is committed.
	Publish func(Event)
	// Ended (optional) hears of a run that has ended (completed, stopped or
	// failed) before Run returns: the knowledge layer learns from its build.
	Ended func(ctx context.Context, r Run)
	// Runs is the registry of the runs active in this process, shared by
	// every kind of run (nil = a registry of the engine's own).
	Runs *run.Registry
}

// Config tunes an engine.
type Config struct {
	// Limits are the defaults of new runs.
	Limits Limits
	// WaitLimit bounds how long a headless run waits for an unreachable
	// model server (0 = 10 minutes); WaitBackoff is the first pause between
	// two checks (0 = 1 s), doubling up to 30 s.
	WaitLimit   time.Duration
	WaitBackoff time.Duration
	// MinConfidence: a delegation or completion the lead is less sure of
	// is asked of the user first (orchestrator.minConfidence; 0 = never).
	MinConfidence float64
}

// Event kinds (engine.Event types of TopicGoal).
const (
	KindDecision   = "leadDecision"      // a valid decision; Text is what, Status the action
	KindRejected   = "decisionRejected"  // a decision refused (or an unusable reply); Text why
	KindOutcome    = "delegationOutcome" // a delegation ended; Text is its outcome line, Status the task status
	KindWaiting    = "goalWaiting"       // the run waits for the model server; Text the reason
	KindAsking     = "goalAsking"        // the lead asks the user; Text the question
	KindChanged    = "changed"           // the run's state changed; an end reads "run <status>: …"
	KindDone       = "done"              // the lead completed the goal
	KindFailed     = "failed"            // the run stopped or failed
	KindDelegating = "delegation"        // a delegated task starts; TaskID, Agent, Text the task
)

// Event is a goal-run event; the facade publishes it on TopicGoal.
type Event struct {
	Kind   string
	RunID  uint64
	Turn   int
	TaskID string
	Agent  string
	Status string
	Text   string
}

// RunOptions configure one session of a run.
type RunOptions struct {
	// Attended: someone can answer (the TUI). The run waits for an
	// unreachable model server until stopped and for the answer to an
	// escalation; unattended runs give up after WaitLimit and end paused on
	// a question.
	Attended bool
	// Approvals is the approval policy of the delegations' commands (the
	// facade's ApprovalPolicy).
	Approvals string
}

// Engine runs goal runs.
type Engine struct {
	cfg Config
	d   Deps
}

// key is goal run id's key in the run registry.
func key(id uint64) run.Key { return run.Key{Kind: run.KindGoal, ID: id} }

// New returns an engine.
func New(cfg Config, d Deps) *Engine {
	if cfg.Limits.MaxTurns <= 0 {
		cfg.Limits.MaxTurns = DefaultMaxTurns
	}
	if cfg.WaitLimit <= 0 {
		cfg.WaitLimit = 10 * time.Minute
	}
	if cfg.WaitBackoff <= 0 {
		cfg.WaitBackoff = time.Second
	}
	if d.Publish == nil {
		d.Publish = func(Event) {}
	}
	if d.Host == nil {
		d.Host = func() string { return "its host" }
	}
	if d.Ping == nil {
		d.Ping = func(context.Context) error { return nil }
	}
	if d.LeadRole == nil {
		d.LeadRole = func(string) string { return "" }
	}
	if d.Runs == nil {
		d.Runs = run.NewRegistry()
	}
	return &Engine{cfg: cfg, d: d}
}

// Store returns the run store.
func (e *Engine) Store() *Store { return e.d.Store }

// CreateOptions configure a new run.
type CreateOptions struct {
	// Lead is the deciding agent ("" = SUN).
	Lead string
	// Limits override the configured ones where non-zero.
	Limits Limits
	// Autonomy overrides the configured level for the delegations.
	Autonomy *int
}

// DefaultLead is the lead when none is named.
const DefaultLead = "SUN"

// Create stores a new run of a goal (nothing runs until Run): the lead must
// be on the team; the goal becomes the board's goal.
func (e *Engine) Create(ctx context.Context, goalText string, o CreateOptions) (Run, error) {
	g := strings.TrimSpace(strings.ToValidUTF8(goalText, "\uFFFD"))
	if g == "" {
		return Run{}, ErrEmptyGoal
	}
	if n := len([]rune(g)); n > MaxGoalChars {
		return Run{}, fmt.Errorf("the goal is %d characters; keep it under %d (put details in a file the agents can read)", n, MaxGoalChars)
	}
	team, err := e.d.Team(ctx)
	if err != nil {
		return Run{}, err
	}
	lead := cmp.Or(strings.TrimSpace(o.Lead), DefaultLead)
	i := slices.IndexFunc(team, func(a Agent) bool { return strings.EqualFold(a.ID, lead) })
	if i < 0 {
		ids := make([]string, len(team))
		for j, a := range team {
			ids[j] = a.ID
		}
		return Run{}, fmt.Errorf("no agent %q to lead the run (the team: %s)", lead, strings.Join(ids, ", "))
	}
	limits := e.cfg.Limits
	if o.Limits.MaxTurns > 0 {
		limits.MaxTurns = o.Limits.MaxTurns
	}
	if o.Limits.MaxTokens > 0 {
		limits.MaxTokens = o.Limits.MaxTokens
	}
	if o.Limits.MaxDuration > 0 {
		limits.MaxDuration = o.Limits.MaxDuration
	}
	r := Run{Goal: g, Lead: team[i].ID, Status: StatusPaused, Reason: "not started", Limits: limits, Autonomy: o.Autonomy, Agents: []string{}}
	if err := e.d.Store.create(ctx, &r); err != nil {
		return Run{}, fmt.Errorf("create goal run: %w", err)
	}
	r.Board = board.RunKey(r.ID).String()
	bid, err := e.d.NewBuild(ctx, r)
	if err != nil {
		return Run{}, err
	}
	r, err = e.d.Store.update(r.ID, nil, func(x *Run) error {
		x.Board, x.BuildID = r.Board, bid
		return nil
	})
	if err != nil {
		return Run{}, err
	}
	if _, err := e.d.Boards.SetGoal(ctx, board.RunKey(r.ID), g, "user"); err != nil {
		return Run{}, err
	}
	e.publish(Event{Kind: KindChanged, RunID: r.ID, Status: string(r.Status), Text: "goal run created"})
	return r, nil
}

// Get returns a run (Active set; a run stored as running or waiting that
// no process runs reads as interrupted).
func (e *Engine) Get(ctx context.Context, id uint64) (Run, error) {
	r, err := e.d.Store.Get(ctx, id)
	if err == nil {
		e.present(&r)
	}
	return r, err
}

// List returns every run, newest first.
func (e *Engine) List(ctx context.Context) ([]Run, error) {
	rs, err := e.d.Store.List(ctx)
	for i := range rs {
		e.present(&rs[i])
	}
	return rs, err
}

// Detail returns a run with its turns, board and handoffs.
func (e *Engine) Detail(ctx context.Context, id uint64) (Detail, error) {
	r, err := e.Get(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	ts, err := e.d.Store.Turns(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	b, err := e.d.Boards.Get(ctx, board.RunKey(id))
	if err != nil {
		return Detail{}, err
	}
	hs, err := e.d.Boards.Handoffs(ctx, board.RunKey(id))
	if err != nil {
		return Detail{}, err
	}
	return Detail{Run: r, Turns: ts, Board: b, Handoffs: hs}, nil
}

func (e *Engine) present(r *Run) {
	r.Active = e.d.Runs.Active(key(r.ID))
	if st := r.Status.Run().OnOpen(); !r.Active && st == run.Interrupted && r.Status != StatusInterrupted {
		r.Status = StatusInterrupted
		r.Reason = fmt.Sprintf("interrupted: nova stopped while the run went on; `nova run resume %d` continues it", r.ID)
	}
}

// Running lists the runs running in this process.
func (e *Engine) Running() []uint64 { return e.d.Runs.Running(run.KindGoal) }

// Cancel stops a run running in this process now (resumable: the running
// delegation is interrupted, its staged work stays staged).
func (e *Engine) Cancel(id uint64) error {
	if e.d.Runs.Cancel(key(id)) != nil {
		return fmt.Errorf("%w: %d", ErrNotActive, id)
	}
	return nil
}

// Answer answers the lead's question (an escalation). While the run waits
// in this process it continues at once (resumed true); otherwise the answer
// is stored for the next `Run`.
func (e *Engine) Answer(ctx context.Context, id uint64, text string) (resumed bool, err error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return false, errors.New("the answer is empty")
	}
	r, err := e.d.Store.Get(ctx, id)
	if err != nil {
		return false, err
	}
	if r.Question == "" {
		return false, fmt.Errorf("goal run %d: %w", id, ErrNotAsking)
	}
	switch err := e.d.Runs.Answer(ctx, key(id), run.Answer{Text: text}); {
	case err == nil:
		return true, nil
	case !errors.Is(err, run.ErrNotActive):
		return false, err
	}
	ts, err := e.d.Store.Turns(ctx, id)
	if err != nil {
		return false, err
	}
	t, ok := openQuestion(ts)
	if !ok {
		return false, fmt.Errorf("goal run %d: %w", id, ErrNotAsking)
	}
	t.Answer = clipText(text, maxField)
	r, err = e.d.Store.update(id, &t, func(x *Run) error {
		x.Question = ""
		x.Reason = fmt.Sprintf("answered; `nova run resume %d` continues the run", id)
		return nil
	})
	if err != nil {
		return false, err
	}
	e.publish(Event{Kind: KindChanged, RunID: id, Turn: t.N, Status: string(r.Status), Text: "the user answered the lead"})
	return false, nil
}

// openQuestion is the last turn when it is an unanswered escalation.
func openQuestion(ts []Turn) (Turn, bool) {
	if len(ts) == 0 {
		return Turn{}, false
	}
	t := ts[len(ts)-1]
	if t.Kind == TurnDecision && t.Decision != nil && t.Decision.Action == ActionEscalate && t.Answer == "" {
		return t, true
	}
	return Turn{}, false
}

func (e *Engine) publish(ev Event) { e.d.Publish(ev) }

// errGaveUp: a headless run waited for the model server for WaitLimit.
var errGaveUp = errors.New("gave up waiting for the model server")

// session is one Run call.
type session struct {
	e       *Engine
	id      uint64
	c       *run.Control
	o       RunOptions
	start   time.Time
	base    time.Duration // Elapsed before this session
	vault   string        // the vault block, asked once per session
	vaultOK bool
	team    []Agent
}

func (s *session) elapsed() time.Duration { return s.base + time.Since(s.start) }

// commit updates the run (and a turn), keeping Elapsed current.
func (s *session) commit(turn *Turn, fn func(r *Run) error) (Run, error) {
	return s.e.d.Store.update(s.id, turn, func(r *Run) error {
		r.Elapsed = s.elapsed()
		if fn != nil {
			return fn(r)
		}
		return nil
	})
}

// Run runs (or resumes) a goal run until the lead completes it, a limit or
// a stuck loop stops it, the lead asks the user (unattended: paused), or
// ctx ends (interrupted, resumable). A completed run is returned as it is.
func (e *Engine) Run(ctx context.Context, id uint64, o RunOptions) (Run, error) {
	r, err := e.d.Store.Get(ctx, id)
	if err != nil || r.Status == StatusCompleted {
		return r, err
	}
	c, err := e.d.Runs.Claim(key(id))
	if err != nil {
		return Run{}, fmt.Errorf("%w: %d", ErrActive, id)
	}
	defer e.d.Runs.Release(c)
	ctx, cancel := c.Context(ctx)
	defer cancel()
	s := &session{e: e, id: id, c: c, o: o, start: time.Now(), base: r.Elapsed}
	r, err = s.commit(nil, func(x *Run) error {
		if x.Status != StatusPaused || x.Reason != "not started" {
			x.Resumes++
		}
		x.Status, x.Reason, x.FinishedAt = StatusRunning, "", time.Time{}
		return nil
	})
	if err != nil {
		return r, err
	}
	e.publish(Event{Kind: KindChanged, RunID: id, Status: string(r.Status), Text: "the run goes on"})
	status, reason, summary := s.loop(ctx, r)
	r, err = s.finish(status, reason, summary)
	if err == nil && r.Status.Finished() && ctx.Err() == nil && e.d.Ended != nil {
		e.d.Ended(ctx, r)
	}
	return r, err
}

// finish commits the end of a session and publishes it.
func (s *session) finish(status Status, reason, summary string) (Run, error) {
	r, err := s.commit(nil, func(x *Run) error {
		x.Status, x.Reason = status, reason
		if summary != "" {
			x.Summary = summary
		}
		if status.Finished() {
			x.FinishedAt = time.Now()
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	kind := KindChanged
	switch status {
	case StatusCompleted:
		kind = KindDone
	case StatusStopped, StatusFailed:
		kind = KindFailed
	}
	text := fmt.Sprintf("run %s: %s, %s, %s", r.Status, plural.Count(r.Turns, "turn", "turns"),
		plural.Count(r.Delegations, "delegation", "delegations"), plural.Count(r.Tokens, "token", "tokens"))
	if r.Reason != "" {
		text += " — " + r.Reason
	}
	if status == StatusCompleted && r.Summary != "" {
		text += " — " + oneLine(r.Summary, 300)
	}
	s.e.publish(Event{Kind: kind, RunID: r.ID, Turn: r.Turns, Status: string(r.Status), Text: text})
	return r, nil
}

// loop is the think → delegate → evaluate loop of one session. It returns
// the status the session ends in, with its reason (and the summary of a
// completed run).
func (s *session) loop(ctx context.Context, r Run) (Status, string, string) {
	e := s.e
	runCtx := ctx
	if r.Limits.MaxDuration > 0 {
		left := r.Limits.MaxDuration - r.Elapsed
		if left <= 0 {
			return StatusStopped, s.timeLimit(r), ""
		}
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, left)
		defer cancel()
	}
	stopped := func() (Status, string, bool) {
		switch {
		case s.c.Canceled():
			return StatusInterrupted, fmt.Sprintf("canceled by the user; `nova run resume %d` continues it", s.id), true
		case ctx.Err() != nil:
			return StatusInterrupted, fmt.Sprintf("interrupted; `nova run resume %d` continues it", s.id), true
		case runCtx.Err() != nil:
			return StatusStopped, s.timeLimit(r), true
		}
		return "", "", false
	}
	feedback := ""
	for {
		if st, why, ok := stopped(); ok {
			return st, why, ""
		}
		turns, err := e.d.Store.Turns(ctx, s.id)
		if err != nil {
			return StatusInterrupted, "store: " + err.Error(), ""
		}
		if r, err = e.d.Store.Get(ctx, s.id); err != nil {
			return StatusInterrupted, "store: " + err.Error(), ""
		}
		// A delegation that did not finish (a crash, ctrl+c, the server
		// went away) goes on before the lead decides anything new.
		if n := len(turns); n > 0 && turns[n-1].Kind == TurnDecision && turns[n-1].Decision != nil &&
			turns[n-1].Decision.Action == ActionDelegate && turns[n-1].Outcome == nil {
			if st, why, ok := s.delegate(runCtx, r, turns[n-1]); !ok {
				if st2, why2, stop := stopped(); stop {
					return st2, why2, ""
				}
				return st, why, ""
			}
			continue
		}
		// An open question waits for its answer.
		if q, ok := openQuestion(turns); ok {
			if !s.o.Attended {
				return StatusPaused, fmt.Sprintf("the lead asks: %s — answer with `nova run answer %d \"…\"`, then `nova run resume %d`",
					oneLine(q.Decision.Question, 300), s.id, s.id), ""
			}
			if st, why, ok := s.waitAnswer(runCtx, q); !ok {
				if st2, why2, stop := stopped(); stop {
					return st2, why2, ""
				}
				return st, why, ""
			}
			continue
		}
		if why := limitReached(r); why != "" {
			return StatusStopped, why, ""
		}
		if n := unusableStreak(turns); n >= MaxUnusable {
			return StatusStopped, fmt.Sprintf("the lead gave %d unusable decisions in a row (last: %s); resume to give it another go, or rephrase the goal",
				n, oneLine(turns[len(turns)-1].Rejected, 200)), ""
		}
		st, why, summary, done := s.turn(runCtx, r, turns, feedback)
		if done {
			if st2, why2, stop := stopped(); stop && st != StatusCompleted {
				return st2, why2, ""
			}
			return st, why, summary
		}
		feedback = why
	}
}

func (s *session) timeLimit(r Run) string {
	return fmt.Sprintf("reached the time limit (%s of active work; orchestrator.maxDuration)", r.Limits.MaxDuration.Round(time.Second))
}

// loadTeam reads the team once per session, with each member's record on
// earlier delegations: the lead learns whom to ask.
func (s *session) loadTeam(ctx context.Context, r Run) error {
	if s.team != nil {
		return nil
	}
	team, err := s.e.d.Team(ctx)
	if err != nil {
		return err
	}
	if rs, err := s.e.d.Store.Records(ctx, r.Goal); err == nil {
		for i := range team {
			team[i].Record = RecordOf(rs, team[i].ID).Line()
		}
	}
	s.team = team
	return nil
}

// role is the budget role of a team member: implement when it can stage
// changes, research otherwise (an agent the team does not list counts as
// implement, the larger share).
func (s *session) role(agent string) string {
	for _, a := range s.team {
		if strings.EqualFold(a.ID, agent) {
			if a.Writes {
				return RoleImplement
			}
			return RoleResearch
		}
	}
	return RoleImplement
}

// limitReached says which limit a run has reached ("" = none).
func limitReached(r Run) string {
	switch {
	case r.Limits.MaxTurns > 0 && r.Turns >= r.Limits.MaxTurns:
		return fmt.Sprintf("reached the turn limit (%d turns; orchestrator.maxTurns or --max-turns) before the lead completed the goal", r.Limits.MaxTurns)
	case r.Limits.MaxTokens > 0 && r.Tokens >= r.Limits.MaxTokens:
		return fmt.Sprintf("reached the token limit (%d of %d tokens; orchestrator.maxTokens)", r.Tokens, r.Limits.MaxTokens)
	}
	if lead := r.Limits.Shares.Of("lead", r.Limits.MaxTokens); lead > 0 && r.LeadTokens >= lead {
		return fmt.Sprintf("the lead used its share of the token budget (%d of %d tokens: %d%% of orchestrator.maxTokens, orchestrator.budgetShares.lead)",
			r.LeadTokens, lead, r.Limits.Shares.Lead)
	}
	return ""
}

// unusableStreak counts the rejected or invalid turns at the end.
func unusableStreak(ts []Turn) int {
	n := 0
	for i := len(ts) - 1; i >= 0 && (ts[i].Kind == TurnRejected || ts[i].Kind == TurnInvalid); i-- {
		n++
	}
	return n
}

// turn asks the lead for one decision and acts on it. done reports that
// the session ends (with st, why and summary); otherwise why is feedback
// for the lead's next turn ("" when the turn went well).
func (s *session) turn(ctx context.Context, r Run, turns []Turn, feedback string) (st Status, why, summary string, done bool) {
	e := s.e
	if err := s.loadTeam(ctx, r); err != nil {
		return StatusFailed, "the team: " + err.Error(), "", true
	}
	key := board.RunKey(s.id)
	b, err := e.d.Boards.Get(ctx, key)
	if err != nil {
		return StatusInterrupted, "board: " + err.Error(), "", true
	}
	if !s.vaultOK && e.d.VaultContext != nil {
		s.vault, _ = e.d.VaultContext(ctx, r.Goal) // the vault is context, not a reason to stop
		s.vaultOK = true
	}
	req := LeadRequest{Lead: r.Lead, System: leadSystem(r.Lead, e.d.LeadRole(r.Lead)), Prompt: leadPrompt(r, turns, b, s.team, s.vault, feedback)}
	started := time.Now()
	reply, err := s.ask(ctx, req)
	turn := Turn{N: r.Turns + 1, StartedAt: started, FinishedAt: time.Now(), Tokens: reply.Tokens}
	if err != nil {
		kind := failure.Of(err)
		switch {
		case kind == failure.Cancelled || ctx.Err() != nil:
			return StatusInterrupted, "", "", true // the caller says why
		case errors.Is(err, errGaveUp):
			return StatusInterrupted, fmt.Sprintf("%v; start it and run `nova run resume %d`", err, s.id), "", true
		case kind == failure.InvalidOutput || kind == failure.Length || kind == failure.Repetition:
			// Not a decision at all: recorded, the lead is told, it counts
			// towards the unusable streak.
			turn.Kind, turn.Rejected = TurnInvalid, oneLine(err.Error(), 400)
			if _, err := s.commit(&turn, func(x *Run) error { x.Turns++; x.Tokens += reply.Tokens; x.LeadTokens += reply.Tokens; return nil }); err != nil {
				return StatusInterrupted, "store: " + err.Error(), "", true
			}
			e.publish(Event{Kind: KindRejected, RunID: s.id, Turn: turn.N, Status: string(TurnInvalid), Text: "the lead's reply was not a decision: " + turn.Rejected})
			return "", "Your last reply was not a usable decision (" + turn.Rejected + "). Reply with one JSON decision.", "", false
		default:
			return StatusFailed, fmt.Sprintf("the lead (%s) could not decide: %v; fix it and run `nova run resume %d`", r.Lead, err, s.id), "", true
		}
	}
	d := reply.Decision
	turn.Decision = &d
	v, verr := Validate(d, Check{Lead: r.Lead, Agents: ids(s.team), Board: b, MinConfidence: e.cfg.MinConfidence, Artifact: func(id uint64) (board.Artifact, error) {
		return e.d.Boards.Artifact(ctx, id)
	}})
	if verr == nil && v.Action == ActionDelegate {
		// A role whose share of the budget is spent takes no more work.
		role := s.role(v.Agent)
		if share := r.Limits.Shares.Of(role, r.Limits.MaxTokens); share > 0 && r.RoleTokens[role] >= share {
			other := "a specialist that changes files"
			if role == RoleImplement {
				other = "a specialist that only reads"
			}
			verr = reject("the %s share of the token budget is spent (%d of %d tokens, orchestrator.budgetShares.%s): delegate to %s, or complete",
				role, r.RoleTokens[role], share, role, other)
		}
	}
	if verr == nil && v.Action == ActionDelegate {
		if n := repeats(turns, v.Decision); n+1 >= StuckRepeats {
			reason := fmt.Sprintf("stuck: the lead delegated the same task to %s %d times (%q)", v.Agent, n+1, oneLine(v.Task, 160))
			turn.Kind, turn.Rejected = TurnRejected, reason
			if _, err := s.commit(&turn, func(x *Run) error { x.Turns++; x.Tokens += reply.Tokens; x.LeadTokens += reply.Tokens; return nil }); err != nil {
				return StatusInterrupted, "store: " + err.Error(), "", true
			}
			e.publish(Event{Kind: KindRejected, RunID: s.id, Turn: turn.N, Status: string(TurnRejected), Text: reason})
			return StatusStopped, reason + "; rephrase the goal or change the team, then resume", "", true
		}
	}
	if verr != nil {
		var re *RejectError
		errors.As(verr, &re)
		turn.Kind, turn.Rejected = TurnRejected, re.Reason
		if _, err := s.commit(&turn, func(x *Run) error { x.Turns++; x.Tokens += reply.Tokens; x.LeadTokens += reply.Tokens; return nil }); err != nil {
			return StatusInterrupted, "store: " + err.Error(), "", true
		}
		e.publish(Event{Kind: KindRejected, RunID: s.id, Turn: turn.N, Status: string(TurnRejected), Text: re.Reason})
		return "", "Your last decision was rejected and did not run: " + re.Reason + ". Decide again.", "", false
	}
	vd := v.Decision
	turn.Decision, turn.Kind, turn.Notes = &vd, TurnDecision, v.Notes
	// The board first: what the decision records is there for the
	// delegation it starts.
	if _, err := e.d.Boards.Apply(ctx, key, r.Lead, board.Changes{Goal: v.Goal, Decision: v.KeyDecision, Resolve: v.ResolveBlockers,
		Note: "resolved by the lead: " + oneLine(v.Reasoning, 160)}); err != nil {
		return StatusInterrupted, "board: " + err.Error(), "", true
	}
	if v.Action == ActionDelegate {
		turn.TaskID = "t" + strconv.Itoa(turn.N)
	}
	r, err = s.commit(&turn, func(x *Run) error {
		x.Turns++
		x.Tokens += reply.Tokens
		x.LeadTokens += reply.Tokens
		switch v.Action {
		case ActionEscalate:
			x.Question = v.Question
		case ActionDelegate:
			x.Delegations++
			if !slices.Contains(x.Agents, v.Agent) {
				x.Agents = append(x.Agents, v.Agent)
			}
		}
		return nil
	})
	if err != nil {
		return StatusInterrupted, "store: " + err.Error(), "", true
	}
	text := decisionText(vd)
	if len(v.Notes) > 0 {
		text += " (" + strings.Join(v.Notes, "; ") + ")"
	}
	e.publish(Event{Kind: KindDecision, RunID: s.id, Turn: turn.N, TaskID: turn.TaskID, Agent: v.Agent, Status: string(v.Action),
		Text: text})
	switch v.Action {
	case ActionComplete:
		return StatusCompleted, "", v.Summary, true
	case ActionEscalate:
		e.publish(Event{Kind: KindAsking, RunID: s.id, Turn: turn.N, Status: string(v.Action), Text: v.Question})
		return "", "", "", false // the loop waits for the answer (or ends paused)
	}
	if st, why, ok := s.delegate(ctx, r, turn); !ok {
		return st, why, "", true
	}
	return "", "", "", false
}

func decisionText(d Decision) string {
	text := describe(d)
	if d.Reasoning != "" {
		text += " — " + oneLine(d.Reasoning, 300)
	}
	return text
}

func ids(team []Agent) []string {
	out := make([]string, len(team))
	for i, a := range team {
		out[i] = a.ID
	}
	return out
}

// repeats counts earlier delegations identical to d.
func repeats(ts []Turn, d Decision) int {
	n := 0
	for _, t := range ts {
		if t.Kind == TurnDecision && t.Decision != nil && t.Decision.Action == ActionDelegate && t.Decision.key() == d.key() {
			n++
		}
	}
	return n
}

// ask asks the lead, acting on failures by their kind (engine/failure): an
// unreachable model server is waited for as builds do (the run shows
// "waiting for ollama at HOST" and asks again when it is back; a headless run
// gives up after WaitLimit); other infrastructure failures get their
// policy's retries; the rest is returned.
func (s *session) ask(ctx context.Context, req LeadRequest) (LeadReply, error) {
	tries := map[failure.Kind]int{}
	for {
		reply, err := s.e.d.Ask(ctx, req)
		if err == nil || ctx.Err() != nil {
			return reply, err
		}
		kind := failure.Of(err)
		pol := kind.Policy()
		switch {
		case pol.Wait:
			if werr := s.waitServer(ctx); werr != nil {
				return LeadReply{}, werr
			}
		case pol.Infrastructure && tries[kind] < pol.Retries:
			tries[kind]++
		default:
			return reply, err
		}
	}
}

// waitServer waits until the model server answers again.
func (s *session) waitServer(ctx context.Context) error {
	e := s.e
	host := e.d.Host()
	reason := "waiting for ollama at " + host
	if r, err := s.commit(nil, func(x *Run) error { x.Status, x.Reason = StatusWaiting, reason; return nil }); err == nil {
		e.publish(Event{Kind: KindWaiting, RunID: s.id, Turn: r.Turns, Status: string(r.Status), Text: reason})
	}
	start := time.Now()
	pause := e.cfg.WaitBackoff
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := e.d.Ping(pctx)
		cancel()
		if err == nil {
			if r, err := s.commit(nil, func(x *Run) error { x.Status, x.Reason = StatusRunning, ""; return nil }); err == nil {
				e.publish(Event{Kind: KindChanged, RunID: s.id, Turn: r.Turns, Status: string(r.Status), Text: "ollama at " + host + " answers again; the run goes on"})
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !s.o.Attended && time.Since(start) >= e.cfg.WaitLimit {
			return fmt.Errorf("%w: ollama at %s did not answer for %s", errGaveUp, host, e.cfg.WaitLimit.Round(time.Second))
		}
		pause = min(pause*2, 30*time.Second)
	}
}

// waitAnswer waits (attended) for the user's answer to the lead's question.
func (s *session) waitAnswer(ctx context.Context, q Turn) (Status, string, bool) {
	e := s.e
	reason := "waiting for your answer: " + oneLine(q.Decision.Question, 300)
	if _, err := s.commit(nil, func(x *Run) error { x.Status, x.Reason = StatusWaiting, reason; return nil }); err == nil {
		e.publish(Event{Kind: KindChanged, RunID: s.id, Turn: q.N, Status: string(StatusWaiting), Text: "the run waits: " + reason})
	}
	select {
	case a := <-s.c.Answers():
		q.Answer = clipText(a.Text, maxField)
		r, err := s.commit(&q, func(x *Run) error { x.Question, x.Status, x.Reason = "", StatusRunning, ""; return nil })
		if err != nil {
			return StatusInterrupted, "store: " + err.Error(), false
		}
		e.publish(Event{Kind: KindChanged, RunID: s.id, Turn: q.N, Status: string(r.Status), Text: "the user answered the lead; the run goes on"})
		return "", "", true
	case <-ctx.Done():
		return StatusInterrupted, "", false
	}
}

// delegate runs (or resumes) a turn's delegation and records its outcome.
func (s *session) delegate(ctx context.Context, r Run, t Turn) (Status, string, bool) {
	e := s.e
	d := *t.Decision
	include := make([]uint64, 0, len(d.IncludeArtifacts))
	for _, a := range d.IncludeArtifacts {
		if id, err := board.ParseArtifactID(a); err == nil {
			include = append(include, id)
		}
	}
	e.publish(Event{Kind: KindDelegating, RunID: s.id, Turn: t.N, TaskID: t.TaskID, Agent: d.Agent, Status: "running", Text: oneLine(d.Task, 300)})
	out, err := e.d.Delegate(ctx, Delegation{Run: r, TaskID: t.TaskID, Agent: d.Agent, Task: d.Task, Title: oneLine(d.Task, 60),
		Include: include, Options: s.o})
	if err != nil {
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return StatusInterrupted, "", false
		}
		return StatusInterrupted, fmt.Sprintf("%s (%s) did not finish: %v; `nova run resume %d` continues it", t.TaskID, d.Agent,
			oneLine(err.Error(), 300), s.id), false
	}
	t.Outcome = &out
	t.FinishedAt = time.Now()
	_ = s.loadTeam(ctx, r) // a resumed delegation runs before the lead's first turn
	role := s.role(d.Agent)
	nr, err := s.commit(&t, func(x *Run) error {
		x.Tokens += out.Tokens
		if x.RoleTokens == nil {
			x.RoleTokens = map[string]int{}
		}
		x.RoleTokens[role] += out.Tokens
		return nil
	})
	if err != nil {
		return StatusInterrupted, "store: " + err.Error(), false
	}
	e.publish(Event{Kind: KindOutcome, RunID: s.id, Turn: t.N, TaskID: t.TaskID, Agent: d.Agent, Status: out.Status,
		Text: fmt.Sprintf("%s %s: %s", t.TaskID, d.Agent, out.Line())})
	_ = nr
	return "", "", true
}

// Raise raises a run's limits (for a resume after a limit stopped it);
// zero fields keep theirs.
func (e *Engine) Raise(ctx context.Context, id uint64, l Limits) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	return e.d.Store.update(id, nil, func(r *Run) error {
		if l.MaxTurns > 0 {
			r.Limits.MaxTurns = l.MaxTurns
		}
		if l.MaxTokens > 0 {
			r.Limits.MaxTokens = l.MaxTokens
		}
		if l.MaxDuration > 0 {
			r.Limits.MaxDuration = l.MaxDuration
		}
		return nil
	})
}
