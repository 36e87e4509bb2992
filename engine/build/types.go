// Package build runs PRDs: the Ralph loop. It schedules a plan's tasks by
// their dependencies (lower phase first, then file order), assembles each
// task's prompt (agent role through the runner, the task, dependency outputs
// as lazy artifacts, vault context ≤ 15 %, playbook context ≤ 10 %,
// knowledge hits), executes it through the agent loop or a rehearsal, gates
// the result (output, confinement, check commands on a temporary copy,
// optional MERCURY judge), decides (done / retry once / blocked), applies
// the changeset at autonomy ≥ 3, and learns (vault, playbook).
//
// Every state change is committed to bbolt (buckets builds and build_tasks)
// before its event is published, so a build killed at any moment is resumed
// by Run (or Go) again without redoing done tasks; a task that was running when the
// process died is re-run.
//
// The package never imports engine (the facade); engine/build.go wires it.
package build

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/run"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no build has this id.
	ErrNotFound = errors.New("build not found")
	// ErrActive: the build is already running in this process.
	ErrActive = fmt.Errorf("build is %w", run.ErrActive)
	// ErrNotActive: Pause or Cancel of a build that is not running here.
	ErrNotActive = fmt.Errorf("build is %w", run.ErrNotActive)
	// ErrFinished: Resume or Pause of a build that has finished (every task
	// done, or failed with tasks blocked).
	ErrFinished = errors.New("build is already finished")
	// ErrNotWaiting: AnswerTask for a task that is not asking the user.
	ErrNotWaiting = errors.New("task is not waiting for an answer")
	// ErrBudget is the reason a build stops when budgets.buildTokens is spent.
	ErrBudget = errors.New("build token budget exhausted")
)

// Status is the state of a build: the one status machine of every kind of
// run (engine/run).
type Status = run.Status

// Build states. A build is "running" or "waiting" only while a process runs
// it (Active); one stored so by a process that died is read back as
// "interrupted" (resumable), never as running. Finished (done, failed) means
// nothing is left to run without the user changing something.
const (
	StatusRunning = run.Running
	// StatusWaiting: running, but paused on something outside the work (the
	// model server is unreachable, a task asks the user); Reason says what.
	StatusWaiting  = run.Waiting
	StatusPaused   = run.Paused   // paused by the user, or waiting for a choice: resumable
	StatusCanceled = run.Canceled // canceled by the user: resumable
	// StatusInterrupted: stopped by a quit, ctrl+c or a crash, or a headless
	// run that gave up waiting for the model server: resumable.
	StatusInterrupted = run.Interrupted
	StatusDone        = run.Done   // every task done
	StatusFailed      = run.Failed // tasks blocked, or the token budget is spent
)

// TaskStatus is the state of one task of a build.
type TaskStatus string

// Task states.
const (
	TaskPending TaskStatus = "pending"
	TaskRunning TaskStatus = "running"
	TaskDone    TaskStatus = "done"
	TaskBlocked TaskStatus = "blocked"
	// TaskWaiting: the task waits for something outside the work (see
	// Task.WaitFor): the model server, a rehearsal choice, the user's answer.
	TaskWaiting TaskStatus = "waiting"
)

// What a waiting task waits for (Task.WaitFor).
const (
	WaitOllama    = "ollama"    // the model server is unreachable
	WaitRehearsal = "rehearsal" // the user's choice of a rehearsal branch
	WaitUser      = "user"      // the user's answer to the task's question (ask_user)
	WaitBlocker   = "blocker"   // an open blocker on the board, raised by a task it depends on
)

// Build is one run of a PRD (bucket builds).
type Build struct {
	ID      uint64 `json:"id"`
	Name    string `json:"name"`
	PRDPath string `json:"prdPath,omitempty"`
	Status  Status `json:"status"`
	// Reason explains paused, canceled and failed builds.
	Reason   string `json:"reason,omitempty"`
	Autonomy int    `json:"autonomy"`
	Tier     string `json:"tier"`
	// Rehearse forces rehearsal for every task (needs a RehearsalHook).
	Rehearse bool `json:"rehearse,omitempty"`
	// SkipChecks leaves out the check-command gates (a workflow step whose
	// agent cannot change files: the checks would only judge the workspace).
	SkipChecks bool `json:"skipChecks,omitempty"`
	// Tokens used so far; TokenBudget the cap (0 = none).
	Tokens      int `json:"tokens"`
	TokenBudget int `json:"tokenBudget,omitempty"`
	// Counts per task status.
	Total  int                `json:"total"`
	Counts map[TaskStatus]int `json:"counts"`
	Wisdom WisdomImpact       `json:"wisdom"`
	// Resumes counts Resume calls.
	Resumes int `json:"resumes,omitempty"`
	// LargeCalls counts attempts the build escalated to the large tier
	// (capped by Config.MaxLargeCalls); BudgetWarned is set once half the
	// token budget is used (one budgetWarning event per build).
	LargeCalls   int       `json:"largeCalls,omitempty"`
	BudgetWarned bool      `json:"budgetWarned,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	FinishedAt   time.Time `json:"finishedAt,omitzero"`
	// PRD is the plan as it was when the build started (resume needs no file).
	PRD json.RawMessage `json:"prd,omitempty"`
	// Board is the key of the session board its tasks share ("" = the
	// build's own, BoardKey); a goal run's build uses the run's board.
	Board string `json:"board,omitempty"`
	// GoalRunID is set on the build that carries a goal run's delegations;
	// Led says a lead delegates its tasks one by one (AddTask): recovery
	// hints that change the agent or ask the user go back to the lead
	// instead of being acted on here.
	GoalRunID uint64 `json:"goalRunId,omitempty"`
	Led       bool   `json:"led,omitempty"`
	// Active is true while this process runs the build (not stored).
	Active bool `json:"active"`
}

// Summary is the build without its PRD (for lists).
func (b Build) Summary() Build { b.PRD = nil; return b }

// BoardKey is the key of the build's session board: Board when set, else
// "build:ID".
func (b Build) BoardKey() string {
	if b.Board != "" {
		return b.Board
	}
	return "build:" + idString(b.ID)
}

// WisdomImpact is what a build taught the vault.
type WisdomImpact struct {
	// Learned counts new vault nodes; Strengthened existing nodes an
	// equivalent lesson reinforced.
	Learned      int `json:"learned"`
	Strengthened int `json:"strengthened"`
	// Reinforced counts injected nodes credited after a success.
	Reinforced int `json:"reinforced"`
	// Mistakes counts failures recorded as Mistake nodes.
	Mistakes int `json:"mistakes"`
}

// GateResult is one gate's verdict on an attempt.
type GateResult struct {
	Name     string        `json:"name"` // output, confinement, check:<cmd>, judge
	Passed   bool          `json:"passed"`
	Score    float64       `json:"score"`
	Detail   string        `json:"detail,omitempty"`
	Output   string        `json:"output,omitempty"` // command output (bounded)
	Duration time.Duration `json:"duration"`
	Skipped  bool          `json:"skipped,omitempty"`
	// NothingRan marks a check gate whose command found nothing to run (no
	// packages yet): it passes, but does not verify the task.
	NothingRan bool `json:"nothingRan,omitempty"`
}

// Attempt is one execution of a task.
type Attempt struct {
	N           int           `json:"n"`
	RunID       uint64        `json:"runId,omitempty"`
	SessionID   uint64        `json:"sessionId,omitempty"` // rehearsal session
	ChangesetID uint64        `json:"changesetId,omitempty"`
	Passed      bool          `json:"passed"`
	Score       float64       `json:"score"`
	Reason      string        `json:"reason,omitempty"`
	Gates       []GateResult  `json:"gates"`
	Tokens      int           `json:"tokens"`
	Duration    time.Duration `json:"duration"`
	StartedAt   time.Time     `json:"startedAt"`
	Interrupted bool          `json:"interrupted,omitempty"`
	// Kind is the failure kind of a failed attempt (engine/failure).
	Kind failure.Kind `json:"kind,omitempty"`
	// Agent and Tier ran the attempt (they change on escalation or a switch).
	Agent string `json:"agent,omitempty"`
	Tier  string `json:"tier,omitempty"`
	// Verdict is the verifier's verdict on the attempt's run.
	Verdict *agents.Verdict `json:"verdict,omitempty"`
	// Hints are the failed run's recovery hints; SuggestedAgent the
	// specialist a switch_specialist hint names.
	Hints          []agents.RecoveryHint `json:"hints,omitempty"`
	SuggestedAgent string                `json:"suggestedAgent,omitempty"`
	// Hypothesis is why the failed run probably failed, HintNotes what each
	// hint means for it (agents.Failure).
	Hypothesis string            `json:"hypothesis,omitempty"`
	HintNotes  []agents.HintNote `json:"hintNotes,omitempty"`
}

// Task is the state of one PRD task inside a build (bucket build_tasks).
type Task struct {
	BuildID      uint64     `json:"buildId"`
	Ordinal      int        `json:"ordinal"` // file order
	ID           string     `json:"id"`
	Title        string     `json:"title"`
	Description  string     `json:"description"`
	Agent        string     `json:"agent"`
	Phase        int        `json:"phase"`
	Dependencies []string   `json:"dependencies"`
	Status       TaskStatus `json:"status"`
	Reason       string     `json:"reason,omitempty"`
	// WaitFor says what a waiting task waits for (WaitOllama, WaitRehearsal,
	// WaitUser); Question is what it asks the user; Answer the user's last
	// answer (fed into the next attempt).
	WaitFor  string `json:"waitFor,omitempty"`
	Question string `json:"question,omitempty"`
	Answer   string `json:"answer,omitempty"`
	// Verdict is the verifier's verdict on the last attempt, with its
	// evidence lines (Checks); Warning is set when the task was marked done
	// although the verdict was inconclusive (verify.inconclusive: warn).
	Verdict *agents.Verdict `json:"verdict,omitempty"`
	Warning string          `json:"warning,omitempty"`
	// Verified is true when something executed the change of the task's
	// passing attempt: the run's verdict passed (a configured check on the
	// final changeset, or a command the agent ran after its last write) or
	// the build's check gates ran and passed. A done task that changed
	// files and is not Verified is shown as "done (unverified)"
	// (agents.DisplayStatus) and is never applied automatically.
	Verified bool `json:"verified"`
	// Checks, when not nil, replace the workspace's check commands for this
	// task (a PRD task's or a workflow step's own checks; empty: none).
	Checks []string `json:"checks,omitzero"`
	// Critical marks a task the rest depends on (a PRD task's critical):
	// when its run runs out of time, the next attempt runs a tier up.
	Critical bool `json:"critical,omitempty"`
	// Tier is the model tier the next attempt runs on ("" = the agent's);
	// Escalations counts tier escalations; SwitchedFrom is the agent the PRD
	// named when a switch_specialist hint moved the task to another one.
	Tier         string `json:"tier,omitempty"`
	Escalations  int    `json:"escalations,omitempty"`
	SwitchedFrom string `json:"switchedFrom,omitempty"`
	// Attempts counts finished attempts (interrupted ones excluded);
	// Interruptions counts runs cut by a crash, ctrl+c or cancel.
	Attempts      int `json:"attempts"`
	Interruptions int `json:"interruptions,omitempty"`
	// Output is the agent's final output (also in .nova/output/<build>/<task>.md).
	Output     string `json:"output,omitempty"`
	OutputPath string `json:"outputPath,omitempty"`
	// ChangesetID is the changeset of the passing attempt; Applied says
	// whether it was applied (autonomy ≥ 3); ApplyError why not.
	ChangesetID uint64        `json:"changesetId,omitempty"`
	Applied     bool          `json:"applied,omitempty"`
	ApplyError  string        `json:"applyError,omitempty"`
	Score       float64       `json:"score"`
	Gates       []GateResult  `json:"gates"`
	History     []Attempt     `json:"history"`
	Tokens      int           `json:"tokens"`
	Duration    time.Duration `json:"duration"`
	Rehearsed   bool          `json:"rehearsed,omitempty"`
	// Include are board artifacts whose full content goes into the task's
	// prompt (a lead's includeArtifacts).
	Include []uint64 `json:"include,omitempty"`
	// Handoff is how the task ended (summary, artifacts, constraints for the
	// next agent, suggested next agent, open questions), set when it is done
	// or blocked.
	Handoff *board.Handoff `json:"handoff,omitempty"`
	// Provenance: what was injected into the prompt.
	VaultNodeIDs []uint64 `json:"vaultNodeIds"`
	WisdomIDs    []uint64 `json:"wisdomIds"`
	RuleIDs      []string `json:"ruleIds"`
	// KnowledgeIDs are the facts, docs and patterns injected by the
	// knowledge hook ("fact:f3", "docs:local:…", "vault:12").
	KnowledgeIDs []string `json:"knowledgeIds"`
	// CodeMapPaths are the workspace files the repository map block showed
	// (engine/codemap), most relevant first.
	CodeMapPaths []string  `json:"codeMapPaths,omitempty"`
	StartedAt    time.Time `json:"startedAt,omitzero"`
	FinishedAt   time.Time `json:"finishedAt,omitzero"`
}

// PRDTask returns the task as a prd.Task.
func (t Task) PRDTask() prd.Task {
	return prd.Task{ID: t.ID, Title: t.Title, Description: t.Description, Agent: t.Agent,
		Status: prd.Status(t.Status), Dependencies: append([]string(nil), t.Dependencies...),
		Phase: t.Phase, Attempts: t.Attempts, Output: t.Output, Error: t.Reason, Checks: slices.Clone(t.Checks), Critical: t.Critical}
}

// Phase groups a build's tasks (for the Build page).
type Phase struct {
	Phase int    `json:"phase"`
	Tasks []Task `json:"tasks"`
	// Done counts the phase's done tasks.
	Done int `json:"done"`
}

// GroupByPhase groups tasks by phase, ascending, keeping file order.
func GroupByPhase(tasks []Task) []Phase {
	var out []Phase
	idx := map[int]int{}
	for _, t := range tasks {
		i, ok := idx[t.Phase]
		if !ok {
			i = len(out)
			idx[t.Phase] = i
			out = append(out, Phase{Phase: t.Phase})
		}
		out[i].Tasks = append(out[i].Tasks, t)
		if t.Status == TaskDone {
			out[i].Done++
		}
	}
	for i := 1; i < len(out); i++ { // insertion sort: few phases
		for j := i; j > 0 && out[j].Phase < out[j-1].Phase; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
