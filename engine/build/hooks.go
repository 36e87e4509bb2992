package build

import (
	"context"
	"time"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/tools"
)

// PlaybookHook is implemented by engine/ace: the build engine calls
// AfterTask once a task's outcome is committed (the playbook block of the
// prompt comes from the prompt-context provider, Deps.Context). A nil
// PlaybookHook learns nothing.
type PlaybookHook interface {
	// AfterTask records the rules applied and the outcome; at autonomy ≥ 3
	// it also runs the reflector and curator; it feeds self-improvement.
	AfterTask(ctx context.Context, r TaskResult) error
}

// RehearsalHook is implemented by engine/rehearsal. A nil RehearsalHook
// turns rehearsal off.
type RehearsalHook interface {
	// ShouldRehearse reports whether a task is risky enough to rehearse
	// (the engine only asks on the premium tier).
	ShouldRehearse(t prd.Task) bool
	// Rehearse generates, scores and (at autonomy ≥ 3) selects branches.
	// Below autonomy 3 it may return Waiting=true: the user must choose,
	// and the task waits (status "waiting") until the session is decided.
	Rehearse(ctx context.Context, req RehearsalRequest) (RehearsalOutcome, error)
}

// TaskResult is the committed outcome of one task attempt, handed to
// PlaybookHook.AfterTask.
type TaskResult struct {
	BuildID string   `json:"buildId"`
	Task    prd.Task `json:"task"`
	Agent   string   `json:"agent"`
	Output  string   `json:"output"`
	Success bool     `json:"success"`
	// Reason says why the task failed ("" on success).
	Reason string `json:"reason,omitempty"`
	// GateScore is the combined gate score, 0..1.
	GateScore   float64 `json:"gateScore"`
	ChangesetID uint64  `json:"changesetId,omitempty"`
	// VaultNodeIDs are the vault nodes injected into the prompt.
	VaultNodeIDs []uint64 `json:"vaultNodeIds"`
	// RuleIDs are the playbook rules injected into the prompt.
	RuleIDs  []string      `json:"ruleIds"`
	Autonomy int           `json:"autonomy"`
	Attempt  int           `json:"attempt"`
	Duration time.Duration `json:"duration"`
	Tokens   int           `json:"tokens"`
	// Rehearsed is true when the output came from a rehearsal session.
	Rehearsed bool `json:"rehearsed,omitempty"`
}

// RehearsalRequest asks engine/rehearsal to rehearse one build task.
type RehearsalRequest struct {
	BuildID string   `json:"buildId"`
	Task    prd.Task `json:"task"`
	Agent   string   `json:"agent"`
	// Context holds the prompt context blocks the agent loop would get
	// (dependency artifacts, vault, playbook, knowledge, retry feedback).
	Context []string `json:"context"`
	// KnowledgeIDs are the facts, docs and patterns the context carries
	// (provenance; the Rehearsal "why" panel links to them).
	KnowledgeIDs []string `json:"knowledgeIds,omitempty"`
	// Autonomy is the build's autonomy level.
	Autonomy int `json:"autonomy"`
	// Branches is the number of branches wanted (0 = the hook's default).
	Branches int `json:"branches,omitempty"`
}

// RehearsalOutcome is what a rehearsal produced.
type RehearsalOutcome struct {
	SessionID uint64 `json:"sessionId"`
	// ChangesetID is the changeset of the approved or auto-selected branch
	// (0 while Waiting or when no branch was valid).
	ChangesetID uint64 `json:"changesetId,omitempty"`
	// Waiting is true when the user must choose a branch (autonomy < 3).
	Waiting bool `json:"waiting"`
	// Reason explains a waiting or failed rehearsal.
	Reason string `json:"reason,omitempty"`
	// Output is the winning branch's description and notes (the task output).
	Output string `json:"output"`
	// Tokens used by the rehearsal.
	Tokens int `json:"tokens,omitempty"`
}

// Hooks are the optional collaborators of a build engine; nil = off.
type Hooks struct {
	// CodeMap renders the repository map into a task's prompt.
	CodeMap   CodeMapHook
	Playbook  PlaybookHook
	Rehearsal RehearsalHook
	Knowledge KnowledgeLearner
	Board     BoardHook
	Finished  FinishHook
}

// CodeMapHook is the repository map (engine/codemap, wired by the engine;
// the lead moves it behind promptctx). Block returns the map block of a
// task for the agent that runs it, sized for that agent's tier, and the
// workspace paths it shows (recorded on the task as provenance). A nil
// CodeMapHook leaves the map out of build prompts.
type CodeMapHook interface {
	Block(ctx context.Context, task, agent string) (block string, paths []string, err error)
}

// FinishHook hears of every build that ends done or failed, after the end
// state is committed and published and the build no longer runs, before
// the knowledge layer learns from it (the blueprint library counts the
// builds made from a blueprint and their outcome). It must not block long.
type FinishHook interface {
	BuildFinished(ctx context.Context, b Build, tasks []Task)
}

// BoardHook is the session board (engine/board, wired by the facade). A nil
// BoardHook turns boards off.
type BoardHook interface {
	// Context returns the board block of a task's prompt: the inline board,
	// the constraints of the handoffs of the tasks upstream, the full content
	// of the artifacts the task includes, and how to end with a handoff.
	Context(ctx context.Context, req BoardRequest) (string, error)
	// Blockers returns the open blockers of a board by the task that raised
	// them (id: text).
	Blockers(ctx context.Context, board string) (map[string][]string, error)
	// AfterTask registers what a finished task produced on the board (its
	// output, its staged files, the evidence of a failure), adds a line to
	// the history and stores the task's handoff, which it returns.
	AfterTask(ctx context.Context, r BoardResult) (board.Handoff, error)
	// Tools returns the board the task's agent changes with the board tools.
	Tools(board, agent, task string) tools.Board
}

// BoardRequest asks for a task's board block.
type BoardRequest struct {
	Board string `json:"board"`
	Task  Task   `json:"task"`
	// Upstream are the tasks whose handoffs' constraints reach this task:
	// its dependencies, or (in a led build) every earlier task.
	Upstream []string `json:"upstream"`
}

// BoardResult is a finished task for the board.
type BoardResult struct {
	Board string `json:"board"`
	Task  Task   `json:"task"`
	// Passed says whether the task is done; Reason why not.
	Passed bool   `json:"passed"`
	Reason string `json:"reason,omitempty"`
	// Output is the agent's answer; Files the staged files (path →
	// proposed content; deleted files are left out).
	Output string            `json:"output"`
	Files  map[string]string `json:"files,omitempty"`
	// Suggested is the agent a failed run suggests.
	Suggested string `json:"suggested,omitempty"`
}
