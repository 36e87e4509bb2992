package goal

import (
	"errors"
	"fmt"
	"time"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/run"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no goal run has this id.
	ErrNotFound = errors.New("goal run not found")
	// ErrActive: the run is already running in this process.
	ErrActive = fmt.Errorf("goal run is %w", run.ErrActive)
	// ErrNotActive: Cancel of a run that does not run in this process.
	ErrNotActive = fmt.Errorf("goal run is %w", run.ErrNotActive)
	// ErrNotAsking: an answer for a run whose lead asked nothing.
	ErrNotAsking = errors.New("the goal run is not waiting for an answer")
	// ErrEmptyGoal: a run needs a goal.
	ErrEmptyGoal = errors.New("the goal is empty")
)

// Status is the state of a goal run.
type Status string

// Goal run states. A run is "running" or "waiting" only while a process
// runs it; one stored so by a process that died reads as interrupted.
const (
	StatusRunning Status = "running"
	// StatusWaiting: running, but waiting for the model server or for the
	// user's answer to an escalation (Reason says which).
	StatusWaiting Status = "waiting"
	// StatusPaused: the lead asked the user (headless); `nova run answer`,
	// then `nova run resume`.
	StatusPaused Status = "paused"
	// StatusInterrupted: ctrl+c, a quit, a crash, or a headless run that gave
	// up waiting for the model server: resumable.
	StatusInterrupted Status = "interrupted"
	// StatusCompleted: the lead completed the goal (Summary).
	StatusCompleted Status = "completed"
	// StatusStopped: a limit was reached or the loop was stuck (Reason);
	// resumable after raising the limit.
	StatusStopped Status = "stopped"
	// StatusFailed: the lead could not go on (a misconfiguration, a failing
	// model); resumable once fixed.
	StatusFailed Status = "failed"
)

// Finished reports whether a run with this status does not go on by itself.
func (s Status) Finished() bool {
	return s == StatusCompleted || s == StatusStopped || s == StatusFailed
}

// Run is s in the status machine every kind of run shares (engine/run): a
// completed run is done; a stopped one (a limit, a stuck loop) failed.
func (s Status) Run() run.Status {
	switch s {
	case StatusCompleted:
		return run.Done
	case StatusStopped:
		return run.Failed
	}
	return run.Status(s)
}

// Limits bound a run (config orchestrator.*).
type Limits struct {
	// MaxTurns counts the lead's decisions, rejected ones included.
	MaxTurns int `json:"maxTurns"`
	// MaxTokens counts the lead's and the delegations' tokens (0 = none).
	MaxTokens int `json:"maxTokens"`
	// MaxDuration bounds the active wall time over every session (ns; 0 =
	// none).
	MaxDuration time.Duration `json:"maxDuration"`
	// Shares split MaxTokens between the roles (percent; zero: no split).
	Shares Shares `json:"shares,omitzero"`
}

// Shares split a run's token budget between the lead, the specialists
// that only read and answer (research), and those that change files
// (implement): the seed's 10/30/60 by default (orchestrator.budgetShares).
type Shares struct {
	Lead      int `json:"lead"`
	Research  int `json:"research"`
	Implement int `json:"implement"`
}

// Roles of a run's token budget.
const (
	RoleResearch  = "research"
	RoleImplement = "implement"
)

// Of returns role's share of max tokens (0: no cap for it).
func (s Shares) Of(role string, max int) int {
	pct := 0
	switch role {
	case RoleResearch:
		pct = s.Research
	case RoleImplement:
		pct = s.Implement
	default:
		pct = s.Lead
	}
	if pct <= 0 || max <= 0 {
		return 0
	}
	return max * pct / 100
}

// Run is one goal run (bucket goal_runs).
type Run struct {
	ID   uint64 `json:"id"`
	Goal string `json:"goal"`
	// Lead is the agent that decides.
	Lead   string `json:"lead"`
	Status Status `json:"status"`
	// Reason explains waiting, paused, interrupted, stopped and failed runs.
	Reason string `json:"reason,omitempty"`
	// Summary is the lead's summary of a completed run.
	Summary string `json:"summary,omitempty"`
	// Question is the lead's open question to the user (escalate), until
	// answered.
	Question string `json:"question,omitempty"`
	// BuildID is the build that carries the delegations; Board the run's
	// session board ("run:ID").
	BuildID uint64 `json:"buildId"`
	Board   string `json:"board"`
	// Turns counts the lead's turns; Delegations the tasks delegated;
	// Agents the specialists delegated to, in order of first use.
	Turns       int      `json:"turns"`
	Delegations int      `json:"delegations"`
	Agents      []string `json:"agents"`
	// Tokens used by the lead and by the delegations.
	Tokens     int `json:"tokens"`
	LeadTokens int `json:"leadTokens"`
	// RoleTokens are the delegations' tokens by role (RoleResearch,
	// RoleImplement).
	RoleTokens map[string]int `json:"roleTokens,omitempty"`
	// Elapsed is the active wall time over every session (ns).
	Elapsed  time.Duration `json:"elapsed"`
	Limits   Limits        `json:"limits"`
	Autonomy *int          `json:"autonomy,omitempty"`
	// Resumes counts the sessions after the first.
	Resumes    int       `json:"resumes,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	// Active is true while this process runs it (not stored).
	Active bool `json:"active"`
}

// Action is what a lead decides.
type Action string

// Actions.
const (
	ActionDelegate Action = "delegate"
	ActionComplete Action = "complete"
	ActionEscalate Action = "escalate"
)

// Decision is one decision of the lead (DecisionSchema).
type Decision struct {
	Action Action `json:"action"`
	// Reasoning is the lead's short reasoning, shown in the timeline.
	Reasoning string `json:"reasoning"`
	// Agent, Task and IncludeArtifacts describe a delegation.
	Agent            string   `json:"agent,omitempty"`
	Task             string   `json:"task,omitempty"`
	IncludeArtifacts []string `json:"includeArtifacts,omitempty"`
	// Summary completes the run; Question escalates.
	Summary  string `json:"summary,omitempty"`
	Question string `json:"question,omitempty"`
	// KeyDecision, Goal and ResolveBlockers update the board.
	KeyDecision     string   `json:"keyDecision,omitempty"`
	Goal            string   `json:"goal,omitempty"`
	ResolveBlockers []string `json:"resolveBlockers,omitempty"`
	// Confidence is how sure the lead is of the decision, 0 to 1 (nil: it
	// did not say). Below the configured threshold a delegation or a
	// completion becomes a question to the user.
	Confidence *float64 `json:"confidence,omitempty"`
}

// TurnKind classifies a turn.
type TurnKind string

// Turn kinds.
const (
	// TurnDecision: a valid decision, acted on.
	TurnDecision TurnKind = "decision"
	// TurnRejected: a decision that did not validate (Rejected says why); it
	// never ran.
	TurnRejected TurnKind = "rejected"
	// TurnInvalid: the lead's reply was not a decision at all (bad JSON, an
	// empty reply), after the structured-output retry.
	TurnInvalid TurnKind = "invalid"
)

// Turn is one turn of the lead (bucket goal_turns).
type Turn struct {
	RunID uint64   `json:"runId"`
	N     int      `json:"n"`
	Kind  TurnKind `json:"kind"`
	// Decision is what the lead decided (also when it was rejected).
	Decision *Decision `json:"decision,omitempty"`
	// Rejected says why the decision was refused (TurnRejected,
	// TurnInvalid).
	Rejected string `json:"rejected,omitempty"`
	// Notes say what of a decision taken was ignored (Validated.Notes).
	Notes []string `json:"notes,omitempty"`
	// TaskID is the delegation's task of the run's build; Outcome what came
	// of it (nil while it runs).
	TaskID  string   `json:"taskId,omitempty"`
	Outcome *Outcome `json:"outcome,omitempty"`
	// Answer is the user's answer to an escalation.
	Answer string `json:"answer,omitempty"`
	// Tokens are the lead's tokens for the turn.
	Tokens     int       `json:"tokens"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
}

// Outcome is what a delegation came to, as the lead reads it.
type Outcome struct {
	// Status is the task's status: done, blocked, waiting, pending.
	Status string `json:"status"`
	// Verdict is the verifier's verdict on the last attempt, Problems its
	// evidence lines when it did not pass.
	Verdict  string   `json:"verdict,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// Kind is the failure kind of a failed last attempt; Hints its recovery
	// hints; Suggested the agent a switch_specialist hint names.
	Kind  failure.Kind `json:"kind,omitempty"`
	Hints []string     `json:"hints,omitempty"`
	// Hypothesis is why the last attempt probably failed (the agent run's
	// failure report).
	Hypothesis string `json:"hypothesis,omitempty"`
	Suggested  string `json:"suggested,omitempty"`
	// Reason says why a task is not done.
	Reason   string `json:"reason,omitempty"`
	Attempts int    `json:"attempts"`
	Tokens   int    `json:"tokens"`
	// ChangesetID is the staged changeset of a done task; Applied whether
	// it was applied (autonomy ≥ 3).
	ChangesetID uint64         `json:"changesetId,omitempty"`
	Applied     bool           `json:"applied,omitempty"`
	Handoff     *board.Handoff `json:"handoff,omitempty"`
}

// Passed reports whether the delegation's task is done.
func (o Outcome) Passed() bool { return o.Status == "done" }

// Detail is a run with its turns and board (GetGoalRun).
type Detail struct {
	Run      Run             `json:"run"`
	Turns    []Turn          `json:"turns"`
	Board    board.Board     `json:"board"`
	Handoffs []board.Handoff `json:"handoffs"`
}
