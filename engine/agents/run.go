package agents

import (
	"encoding/json"
	"time"

	"github.com/nova-dev/nova/engine/checks"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/tools"
)

// FailureKind classifies why a run failed.
type FailureKind string

// Failure kinds.
const (
	FailToolError        FailureKind = "tool_error"
	FailTimeout          FailureKind = "timeout"
	FailValidationFailed FailureKind = "validation_failed"
	FailStuck            FailureKind = "stuck"
	FailPolicyDenied     FailureKind = "policy_denied"
	FailUnknown          FailureKind = "unknown"
)

// Class is the failure kind (engine/failure) a run failure of this kind has
// when nothing more precise is known.
func (k FailureKind) Class() failure.Kind {
	switch k {
	case FailValidationFailed:
		return failure.InvalidOutput
	case FailToolError, FailTimeout, FailStuck, FailPolicyDenied:
		return failure.WorkFailed
	}
	return failure.Unknown
}

// RecoveryHint suggests what the caller (a build, a user) may try next.
type RecoveryHint string

// Recovery hints.
const (
	HintRetry            RecoveryHint = "retry"
	HintEscalateModel    RecoveryHint = "escalate_model"
	HintChangeStrategy   RecoveryHint = "change_strategy"
	HintSwitchSpecialist RecoveryHint = "switch_specialist"
	HintAskUser          RecoveryHint = "ask_user"
)

// Failure describes a failed run.
type Failure struct {
	Kind    FailureKind `json:"kind"`
	Message string      `json:"message"`
	// Cause is a short machine-readable reason within the kind, e.g.
	// "ollama_unreachable", "model_not_found", "max_steps", "empty_reply".
	Cause string `json:"cause,omitempty"`
	// PartialResult is what the agent had produced when it stopped (its
	// last text, and the files it staged).
	PartialResult string         `json:"partialResult,omitempty"`
	RecoveryHints []RecoveryHint `json:"recoveryHints"`
	// Class is the failure's kind in nova's one list (engine/failure:
	// unreachable, misconfigured, stalled, length, repetition, invalidOutput,
	// workFailed, …): what caused it and so the policy callers apply (wait,
	// retry, escalate, learn; only workFailed is ever learned). Use
	// FailureKind, which also classifies records written before the field
	// existed.
	Class failure.Kind `json:"class,omitempty"`
	// SuggestedAgent names the specialist a switch_specialist hint points
	// to, when the run knows one.
	SuggestedAgent string `json:"suggestedAgent,omitempty"`
	// Hypothesis is why the run probably failed: from the model's last
	// text when it gives a reason, else from the kind, cause and message
	// (Hypothesis).
	Hypothesis string `json:"hypothesis,omitempty"`
	// HintNotes explain each recovery hint for this failure, in the order
	// of RecoveryHints (HintNotes).
	HintNotes []HintNote `json:"hintNotes,omitempty"`
}

// FailureKind is the failure kind of engine/failure that decides what a
// caller does about this failure: Class when set, else derived from Kind and
// Cause.
func (f *Failure) FailureKind() failure.Kind {
	if f == nil {
		return ""
	}
	if f.Class.Valid() {
		return f.Class
	}
	return classOf(f.Kind, f.Cause)
}

// classOf maps an agent failure (kind and cause) to a failure kind: the
// cause when it names an infrastructure or model-stop reason, else the
// kind's default (FailureKind.Class).
func classOf(kind FailureKind, cause string) failure.Kind {
	switch cause {
	case "canceled":
		return failure.Cancelled
	case "ollama_unreachable":
		return failure.Unreachable
	case "model_not_found", "bad_request", "auth", "budget_exceeded", "prompt_too_long":
		return failure.Misconfigured
	case "ollama_timeout", "run_timeout":
		return failure.Stalled
	case "stream_cut":
		return failure.Cut
	case "ollama_error":
		return failure.Server
	case "length":
		return failure.Length
	case "repetition":
		return failure.Repetition
	case "trace_write", "error":
		return failure.Unknown
	}
	return kind.Class()
}

// RunMeta measures a run.
type RunMeta struct {
	Duration     time.Duration `json:"duration"` // nanoseconds
	PromptTokens int           `json:"promptTokens"`
	EvalTokens   int           `json:"evalTokens"`
	LLMCalls     int           `json:"llmCalls"`
	Steps        int           `json:"steps"`
	ToolCalls    int           `json:"toolCalls"`
	Tier         string        `json:"tier"`
	Model        string        `json:"model"`
	Escalations  int           `json:"escalations"`
	Compressions int           `json:"compressions"`
	Reflections  int           `json:"reflections"`
	// TextMode is true when the model had no native tool calling and the
	// loop used the Thought/Action/Action Input format.
	TextMode bool `json:"textMode,omitempty"`
	// EditFormat is the edit format of the run's last tier (tools, whole
	// or diff; agents.editFormat).
	EditFormat string `json:"editFormat,omitempty"`
	// TextToolCalls counts the tool calls read from the reply text
	// (ParseTextToolCalls) rather than returned as native tool calls.
	TextToolCalls int `json:"textToolCalls,omitempty"`
}

// SpecialistOutcome is the result of one agent run: ok with a result, or a
// failure.
type SpecialistOutcome struct {
	OK      bool     `json:"ok"`
	Result  string   `json:"result,omitempty"`
	Failure *Failure `json:"failure,omitempty"`
	Meta    RunMeta  `json:"meta"`
}

// RunStatus is a run's lifecycle state.
type RunStatus string

// Run states.
const (
	RunRunning  RunStatus = "running"
	RunDone     RunStatus = "done"
	RunFailed   RunStatus = "failed"
	RunCanceled RunStatus = "canceled"
)

// VerdictStatus is the verifier's conclusion.
type VerdictStatus string

// Verdicts.
const (
	VerdictPassed       VerdictStatus = "passed"
	VerdictFailed       VerdictStatus = "failed"
	VerdictInconclusive VerdictStatus = "inconclusive"
	// VerdictUnverified: the evidence is consistent (every staged file
	// holds what the tools reported) but nothing executed the changed code:
	// no configured check ran on the changeset and the agent ran no command
	// after its last write. Passed needs an execution.
	VerdictUnverified VerdictStatus = "unverified"
)

// Verification tiers, strongest first: evidence (a staged content hash),
// execution (a command's exit code), claim (only the model's word).
const (
	TierEvidence  = "evidence"
	TierExecution = "execution"
	TierClaim     = "claim"
)

// Check is one verified claim.
type Check struct {
	Tier    string        `json:"tier"`
	Subject string        `json:"subject"` // a path or a command
	Status  VerdictStatus `json:"status"`
	Detail  string        `json:"detail"`
	TraceID uint64        `json:"traceId,omitempty"`
	// Output is a configured check's output (its tail), on checks whose
	// subject is "check: <command>".
	Output string `json:"output,omitempty"`
}

// Verdict is the verifier's report on a run.
type Verdict struct {
	Status VerdictStatus `json:"status"`
	Checks []Check       `json:"checks"`
}

// Label is the run as a listing names it: its title, else its task.
func (r Run) Label() string {
	if r.Title != "" {
		return r.Title
	}
	return r.Task
}

// Run is one agent run as stored in the runs bucket.
type Run struct {
	ID    uint64 `json:"id"`
	Agent string `json:"agent"`
	Task  string `json:"task"`
	// Title is what the run is about in a listing, when the task is a
	// whole prompt (a chat turn's history and message): the request.
	Title   string    `json:"title,omitempty"`
	TaskID  string    `json:"taskId,omitempty"`
	BuildID string    `json:"buildId,omitempty"`
	Status  RunStatus `json:"status"`
	// Tier and Model are where the run started; Outcome.Meta says where it
	// ended.
	Tier        string            `json:"tier"`
	Model       string            `json:"model"`
	Outcome     SpecialistOutcome `json:"outcome"`
	Verdict     Verdict           `json:"verdict"`
	ChangesetID uint64            `json:"changesetId,omitempty"`
	// Files are the paths staged in the changeset.
	Files []string `json:"files,omitempty"`
	// Verified is true when the verdict passed: something executed the
	// changed code after the last write (a configured check on the final
	// changeset, or a command the agent ran) and nothing failed. A run
	// that is done, changed files and is not Verified is shown as
	// "done (unverified)" (DisplayStatus).
	Verified bool `json:"verified"`
	// Checked is the last run of the configured checks (Runner.Checks) on
	// the run's changeset: what ran, on which content, with what result.
	// A build reuses it for its check gates when the changeset is the same.
	Checked *CheckRun `json:"checked,omitempty"`
	// AnswerOnly is true when the agent could not stage file changes (no
	// writeFile, editFile or deleteFile): its deliverable is its answer,
	// which a build judges as text (an investigate or review step).
	AnswerOnly bool `json:"answerOnly,omitempty"`
	// Progress is the last estimate of how far the run got (nil before
	// its first tool call).
	Progress   *Progress `json:"progress,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
}

// Trace is one recorded tool invocation of a run (bucket traces).
type Trace struct {
	ID    uint64 `json:"id"`
	RunID uint64 `json:"runId"`
	Step  int    `json:"step"`
	Tool  string `json:"tool"`
	// Args is the canonical JSON of the arguments; ArgsHash its sha256.
	Args     json.RawMessage `json:"args"`
	ArgsHash string          `json:"argsHash"`
	Status   tools.Status    `json:"status"`
	Kind     tools.Kind      `json:"kind,omitempty"`
	Duration time.Duration   `json:"duration"`
	// Output is the full output (what the model saw may be truncated).
	Output   string           `json:"output"`
	Evidence []tools.Evidence `json:"evidence,omitempty"`
	// Via says how the model wrote a call that was not a native tool
	// call: the text form it was read from (FormJSON, FormFencedJSON,
	// FormToolCallTag, FormFunctionTag, FormMistral); "" for a native call
	// or a ReAct Action.
	Via  string    `json:"via,omitempty"`
	Time time.Time `json:"time"`
}

// CheckRun is one run of the configured checks on a run's changeset.
type CheckRun struct {
	// Hash is checks.Hash of the files the checks ran on; Commands are the
	// check command lines in order.
	Hash     string          `json:"hash"`
	Commands []string        `json:"commands"`
	Results  []checks.Result `json:"results"`
	// Rounds counts the times a failing check was fed back to the model.
	Rounds int `json:"rounds,omitempty"`
}

// StatusUnverified is how a done run or task whose change nothing executed
// is shown.
const StatusUnverified = "done (unverified)"

// DisplayStatus is the status to show for a run or build task: "done
// (unverified)" for one that is done, changed files and whose change
// nothing executed; the status unchanged otherwise.
func DisplayStatus(status string, changedFiles int, verified bool) string {
	if status == string(RunDone) && changedFiles > 0 && !verified {
		return StatusUnverified
	}
	return status
}
