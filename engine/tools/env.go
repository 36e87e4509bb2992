package tools

import (
	"context"
	"time"
)

// Env is what one run gives its tools: where the workspace is, who is
// calling, where writes are staged, and the command policy.
type Env struct {
	// Root is the workspace root.
	Root string
	// Agent is the calling agent's id; RunID its run.
	Agent string
	RunID uint64
	// BuildID and TaskID link the run to a build task ("" outside builds).
	BuildID, TaskID string
	// Tools are the tools the agent's spec lists; nil means every tool.
	Tools []string
	// Stage receives mutating tools' changes and overlays reads; nil makes
	// mutating tools fail with ErrNoStage.
	Stage Stage
	// Commands governs runCommand.
	Commands CommandPolicy
	// Autonomy is the workspace autonomy level (0..5); runCommand asks for
	// approval below 4.
	Autonomy int
	// Approve answers approval requests; nil denies them.
	Approve ApproveFunc
	// Board is the session board of the run's build or goal run; nil when
	// the run has none (the board tools then refuse).
	Board Board
}

// Board is what the session-board tools do on the run's board
// (engine/board implements it, bound to the calling agent and task). Each
// method returns the text the model sees; an error is a refusal the model
// can act on (an unknown id, a full board).
type Board interface {
	AddDecision(ctx context.Context, text string) (string, error)
	AddBlocker(ctx context.Context, text string) (string, error)
	ResolveBlocker(ctx context.Context, id, note string) (string, error)
	SetGoal(ctx context.Context, goal string) (string, error)
	ReadArtifact(ctx context.Context, id string) (string, error)
}

// Stage is the run's view of staged changes. engine/changes implements it
// (*changes.Draft). Paths are slash-separated and relative to the workspace
// root, already confined.
type Stage interface {
	// Lookup returns the staged state of rel; ok is false when the run has
	// not staged rel (the disk is then the truth).
	Lookup(ctx context.Context, rel string) (f StagedFile, ok bool, err error)
	// Put stages content for rel and returns the changeset id.
	Put(ctx context.Context, rel string, content []byte) (uint64, error)
	// Remove stages the deletion of rel and returns the changeset id.
	Remove(ctx context.Context, rel string) (uint64, error)
	// Staged lists the staged files, sorted by path.
	Staged(ctx context.Context) ([]StagedFile, error)
}

// StagedFile is one staged path.
type StagedFile struct {
	Path    string
	Content []byte
	Deleted bool
}

// CommandPolicy governs runCommand.
type CommandPolicy struct {
	// Allow lists allowlist entries, e.g. "go test": a command is listed
	// when its first words equal one entry's words; its other arguments are
	// checked by the program's argv rules (CheckArgv).
	Allow []string
	// Timeout bounds one command (default DefaultCommandTimeout).
	Timeout time.Duration
	// MaxOutput caps the captured output in bytes (default DefaultMaxOutput).
	MaxOutput int
	// Env lists the environment variables passed through to commands
	// (default PassEnv). Nothing else from nova's environment is passed.
	Env []string
	// Getenv reads them; nil means os.Getenv.
	Getenv func(string) string
	// Sandbox confines the commands (writes, network) where the platform
	// can.
	Sandbox SandboxPolicy
}

// ApproveFunc asks someone (the CLI's y/N prompt, the TUI's dialog) whether
// a request may go ahead. A false answer is a denial; an error (e.g. the
// context ended) is a denial too.
type ApproveFunc func(ctx context.Context, req ApprovalRequest) (bool, error)

// ApprovalRequest describes what needs approval.
type ApprovalRequest struct {
	// ID identifies the request (unique within a process).
	ID    string `json:"id"`
	RunID uint64 `json:"runId"`
	Agent string `json:"agent"`
	Tool  string `json:"tool"`
	// Command is the command line; Dir the workspace-relative directory.
	Command string `json:"command"`
	Dir     string `json:"dir"`
	// Reason says why approval is needed.
	Reason string `json:"reason"`
	// Unvetted is set when the command's arguments are not all allowed
	// (e.g. "option -toolexec runs another program"): autonomy never
	// skips such a request, and blanket approvals (--yes) do not cover it.
	Unvetted string `json:"unvetted,omitempty"`
}
