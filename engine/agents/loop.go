package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/checks"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/lazyre"
	"github.com/nova-dev/nova/internal/safefile"
)

// Loop defaults (Settings fields left at zero take these).
const (
	DefaultToolOutputBudget = 800
	DefaultCompressAt       = 6144
	DefaultKeepRecent       = 6
	// DefaultRepeatLimit identical calls (same tool, same arguments) with no
	// change in between stop a run as stuck.
	DefaultRepeatLimit = 3
	// DefaultEscalateAfter consecutive malformed replies move the run up a
	// tier; at the top tier DefaultMaxInvalid of them fail it.
	DefaultEscalateAfter = 2
	DefaultMaxInvalid    = 3
	// DefaultMaxDenials refused calls fail a run with policy_denied.
	DefaultMaxDenials = 3
	// DefaultMaxToolErrors consecutive tool errors fail a run with tool_error.
	DefaultMaxToolErrors = 5
	// maxRefits is how often a prompt the server refused as too long is
	// fitted again with a more cautious estimate.
	maxRefits = 3
)

// Settings tune the loop. Zero values take the defaults above.
type Settings struct {
	// ToolOutputBudget is how many characters of a tool's output the model
	// sees (config budgets.toolOutput).
	ToolOutputBudget int
	// CompressAt is the estimated history size (tokens, ceil(chars/4)) above
	// which older steps are summarised with the small tier.
	CompressAt int
	// KeepRecent is how many recent messages compression keeps verbatim.
	KeepRecent  int
	RepeatLimit int
	// StuckAfter tool calls in a row that find nothing new make a run
	// stuck (progress.go).
	StuckAfter    int
	EscalateAfter int
	MaxInvalid    int
	MaxDenials    int
	MaxToolErrors int
	// Autonomy is the workspace autonomy (runCommand approval below 4).
	Autonomy int
	// Commands governs runCommand.
	Commands tools.CommandPolicy
	// Temperature, when set, is sent with every model call.
	Temperature *float64
	// PromptTokens caps the prompt (config budgets.promptTokens) below what
	// the model's context leaves after the reply reserve; 0: no cap.
	PromptTokens int
	// EditFormat is how models write file changes (config
	// agents.editFormat; "" is auto), resolved per run from its tier
	// (ResolveEditFormat) and again when the run escalates.
	EditFormat EditFormat
}

func (s Settings) withDefaults() Settings {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&s.ToolOutputBudget, DefaultToolOutputBudget)
	def(&s.CompressAt, DefaultCompressAt)
	def(&s.KeepRecent, DefaultKeepRecent)
	def(&s.RepeatLimit, DefaultRepeatLimit)
	def(&s.StuckAfter, DefaultStuckAfter)
	def(&s.EscalateAfter, DefaultEscalateAfter)
	def(&s.MaxInvalid, DefaultMaxInvalid)
	def(&s.MaxDenials, DefaultMaxDenials)
	def(&s.MaxToolErrors, DefaultMaxToolErrors)
	return s
}

// Runner runs agents: a ReAct loop over the tool registry.
//
// Each step sends the history to the model: with native Ollama tool calls
// when the model supports them (asked once per model with Show; a chat
// refused for tools switches too), else in the Thought/Action/Action Input
// text format parsed by ParseReAct. Tool calls run through
// tools.Registry.Execute, each recorded as a Trace; writes are staged in the
// run's changeset (changes.Draft), never on disk. A reply without a tool
// call is the final answer.
//
// Guards: spec limits (maxSteps, maxToolCalls, timeout); the same call with
// the same arguments RepeatLimit times with no change in between stops the
// run as stuck; malformed replies, unknown tools and bad arguments are fed
// back as observations, and repeated ones escalate the tier (up to
// spec.maxTier) before failing with validation_failed; repeated policy
// denials and tool errors fail the run. Every forcedReasoningInterval tool
// calls a "stop and reflect" message is injected; tool outputs are cut to
// ToolOutputBudget characters (the trace keeps them whole); a history past
// CompressAt estimated tokens is summarised with the small tier. The result
// is verified (Verify) and stored with the run. It is safe for concurrent
// runs.
type Runner struct {
	LLM      llm.Provider
	Models   llm.Models
	Tools    *tools.Registry
	Changes  *changes.Store
	Runs     *RunStore
	Root     string
	Settings Settings
	// Checks are the check commands (config checks) run on a temporary copy
	// with the changeset applied when a run that staged files gives its
	// final answer (see checkAnswer); RunOptions.Checks replaces them for
	// one run. CheckTimeout bounds each command (0: checks.DefaultTimeout);
	// CheckLimit bounds the copy (zero: the checks' defaults).
	Checks       []string
	CheckTimeout time.Duration
	CheckLimit   checks.Limit
	// Diagnose, when set, shows the run's staged files to the workspace's
	// language servers after every staged edit: their errors come back to
	// the model in the same turn and fail the verdict (loop_lsp.go).
	Diagnose Diagnoser

	capMu sync.Mutex
	caps  map[string]bool // model -> native tool calling
}

// RunOptions configure one run.
type RunOptions struct {
	// Tier overrides the spec's starting tier (it may exceed maxTier, which
	// then rises to it).
	Tier llm.Tier
	// ExtraContext blocks go into the system prompt after the static context
	// (vault and playbook blocks, knowledge hits).
	ExtraContext []string
	// Approve answers runCommand approvals; nil denies them.
	Approve tools.ApproveFunc
	// OnEvent receives progress events on the run's goroutine; it must not
	// block for long.
	OnEvent func(Event)
	// TaskID and BuildID link the run to a build task.
	TaskID, BuildID string
	// Title names the run in listings when the task is a whole prompt.
	Title string
	// Meter, when set, also records the run's tokens (under "run:<id>" and
	// the task/build keys).
	Meter *llm.Meter
	// Autonomy, when set, replaces Settings.Autonomy for this run (a build's
	// own level governs its command approvals).
	Autonomy *int
	// Board is the session board of the run's build or goal run: the board
	// tools (addDecision, addBlocker, resolveBlocker, setGoal, readArtifact)
	// are offered only when it is set.
	Board tools.Board
	// Checks, when set, replaces Runner.Checks for this run (a task's own
	// checks; an empty list runs none).
	Checks *[]string
	// Critical marks a task others depend on: a run that runs out of time
	// hints escalate_model first (the seed's "critical timeout"), so the
	// next attempt runs on a larger tier instead of the same one again.
	Critical bool
}

// Sentinel errors of Run (failures of the agent are in the outcome instead).
var (
	ErrEmptyTask      = errors.New("empty task")
	ErrRunnerNotWired = errors.New("runner is not fully configured")
)

// Run runs spec on a task. The returned error is for problems that prevent
// or abort the run itself (a missing model configuration, the database,
// cancellation: context.Canceled is returned with the canceled run). A run
// that fails is not an error: see Run.Outcome and Run.Status.
func (r *Runner) Run(ctx context.Context, spec Spec, task string, opts RunOptions) (Run, error) {
	if r.LLM == nil || r.Tools == nil || r.Changes == nil || r.Runs == nil {
		return Run{}, ErrRunnerNotWired
	}
	if strings.TrimSpace(task) == "" {
		return Run{}, fmt.Errorf("run %s: %w", spec.ID, ErrEmptyTask)
	}
	spec = spec.WithDefaults()
	tier := opts.Tier
	if tier == "" {
		tier = llm.Tier(spec.Tier)
	}
	maxTier := llm.Tier(spec.MaxTier)
	if rank(tier) > rank(maxTier) {
		maxTier = tier
	}
	model, err := r.Models.For(tier)
	if err != nil {
		return Run{}, fmt.Errorf("run %s: %w", spec.ID, err)
	}
	run, err := r.Runs.Create(ctx, Run{
		Agent: spec.ID, Task: task, Title: opts.Title, TaskID: opts.TaskID, BuildID: opts.BuildID,
		Status: RunRunning, Tier: string(tier), Model: model, StartedAt: time.Now().UTC(),
		AnswerOnly: !spec.CanWrite(),
	})
	if err != nil {
		return Run{}, err
	}
	st := &loopState{
		r: r, spec: spec, opts: opts, run: &run,
		set: r.Settings.withDefaults(), tier: tier, maxTier: maxTier, model: model,
		meter: llm.NewMeter(), seen: map[string]int{},
	}
	st.meterKeys = []string{fmt.Sprintf("run:%d", run.ID)}
	if opts.TaskID != "" {
		st.meterKeys = append(st.meterKeys, "task:"+opts.TaskID)
	}
	if opts.BuildID != "" {
		st.meterKeys = append(st.meterKeys, "build:"+opts.BuildID)
	}
	st.draft = r.Changes.NewDraft(changes.Meta{RunID: run.ID, Agent: spec.ID, Task: task, BuildID: opts.BuildID, TaskID: opts.TaskID})
	offered := spec.Tools
	if offered == nil {
		offered = []string{}
	}
	if opts.Autonomy != nil {
		st.set.Autonomy = *opts.Autonomy
	}
	st.env = &tools.Env{
		Root: r.Root, Agent: spec.ID, RunID: run.ID, BuildID: opts.BuildID, TaskID: opts.TaskID, Tools: offered, Stage: st.draft,
		Commands: st.set.Commands, Autonomy: st.set.Autonomy,
	}
	if opts.Approve != nil {
		st.env.Approve = st.approve
	}
	st.allTools = r.Tools.For(spec.ID, offered)
	if opts.Board != nil {
		st.env.Board = opts.Board
	} else {
		// The session-board tools work only where there is a board.
		st.allTools = slices.DeleteFunc(st.allTools, func(t tools.Tool) bool { return t.Board })
	}
	st.agentTools = st.allTools
	st.applyTier()
	st.emit(Event{Type: EventStart, Tier: string(tier), Model: model, Text: task})

	limit := spec.Limits.TimeoutDuration()
	runCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := time.Now()
	outcome := st.loop(runCtx, ctx, limit)
	return st.finish(ctx, outcome, time.Since(start))
}

func rank(t llm.Tier) int {
	for i, l := range llm.Ladder {
		if l == t {
			return i
		}
	}
	return -1
}

// loopState is one run in progress.
type loopState struct {
	r       *Runner
	spec    Spec
	opts    RunOptions
	set     Settings
	run     *Run
	env     *tools.Env
	draft   *changes.Draft
	meter   *llm.Meter
	tier    llm.Tier
	maxTier llm.Tier
	model   string

	meterKeys  []string
	toolList   []tools.Tool // the tools the model is offered (fitPrompt may leave optional ones out)
	allTools   []tools.Tool // the tools of the run's tier and edit format (SelectTools)
	agentTools []tools.Tool // every tool the agent may use
	// format is the run's edit format for its current tier (never auto).
	format   EditFormat
	textMode bool
	msgs     []llm.Message
	meta     RunMeta

	toolCalls     int
	nextReflect   int
	invalidStreak int
	toolErrStreak int
	denials       int
	seen          map[string]int // tool + args hash -> calls since the last change
	recent        []string       // recent calls, for reports
	lastText      string
	traces        []Trace
	canceled      bool
	nudged        bool // the "no change was made" answer was sent

	// Prompt fitting: the model's window and the room for the prompt.
	window    llm.Window
	budget    int // tokens; 0: unknown, nothing is fitted
	fitStatus string
	fitting   bool

	checkState         // configured checks of the final answer (loop_checks.go)
	track      tracker // progress and findings (progress.go)
	lspState           // language servers' diagnostics of the staged files (loop_lsp.go)
}

// applyTier resolves the edit format and the tools offered for the run's
// current tier.
func (st *loopState) applyTier() {
	st.format = ResolveEditFormat(st.set.EditFormat, st.tier)
	st.allTools = SelectTools(st.agentTools, st.spec, st.tier, st.format)
	st.toolList = st.allTools
}

func (st *loopState) emit(ev Event) {
	if st.opts.OnEvent == nil {
		return
	}
	ev.RunID, ev.Agent = st.run.ID, st.spec.ID
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	st.opts.OnEvent(ev)
}

// approve wraps the caller's approval function with events.
func (st *loopState) approve(ctx context.Context, req tools.ApprovalRequest) (bool, error) {
	ok, err := st.opts.Approve(ctx, req)
	status := "denied"
	if ok && err == nil {
		status = "approved"
	}
	st.emit(Event{Type: EventApproval, Tool: req.Tool, Args: req.Command, Status: status, Text: req.ID})
	return ok, err
}

// loop runs steps until a final answer or a failure. runCtx carries the
// spec's timeout; parent is the caller's context.
func (st *loopState) loop(runCtx, parent context.Context, limit time.Duration) SpecialistOutcome {
	if err := st.canChat(runCtx); err != nil {
		return st.llmFailure(runCtx, parent, limit, err)
	}
	textMode, err := st.r.textMode(runCtx, st.model)
	if err != nil {
		return st.llmFailure(runCtx, parent, limit, err)
	}
	st.setTextMode(textMode)
	if err := st.fitPrompt(runCtx); err != nil {
		return st.llmFailure(runCtx, parent, limit, err)
	}
	st.nextReflect = st.spec.ForcedReasoningInterval

	for {
		if st.meta.Steps >= st.spec.Limits.MaxSteps {
			return st.fail(FailTimeout, "max_steps",
				fmt.Sprintf("reached the step limit (%d model calls) without a final answer", st.spec.Limits.MaxSteps),
				HintChangeStrategy, HintEscalateModel, HintRetry)
		}
		if runCtx.Err() != nil {
			return st.llmFailure(runCtx, parent, limit, runCtx.Err())
		}
		if st.meta.Steps > 0 && historyTokens(st.msgs) > st.set.CompressAt {
			st.compress(runCtx)
		}
		if err := st.ensureFits(runCtx); err != nil {
			return st.llmFailure(runCtx, parent, limit, err)
		}
		st.meta.Steps++
		st.emit(Event{Type: EventStep, Step: st.meta.Steps, Tier: string(st.tier), Model: st.model})

		res, err := st.chat(runCtx)
		if err != nil && !st.textMode && errors.Is(err, llm.ErrBadRequest) && runCtx.Err() == nil {
			// Most likely "model does not support tools": retry this step
			// in the text format.
			st.setTextMode(true)
			if ferr := st.fitPrompt(runCtx); ferr != nil {
				return st.llmFailure(runCtx, parent, limit, ferr)
			}
			res, err = st.chat(runCtx)
		}
		for refits := 0; err != nil && errors.Is(err, llm.ErrPromptTooLong) && refits < maxRefits && runCtx.Err() == nil; refits++ {
			// The server counted more tokens than the estimate: estimate
			// more cautiously for this model and fit again (each retry
			// sends a smaller prompt, never the same one).
			st.r.LLM.RaiseTokenFactor(st.model, 1.5)
			if ferr := st.refit(runCtx); ferr != nil {
				return st.llmFailure(runCtx, parent, limit, ferr)
			}
			res, err = st.chat(runCtx)
		}
		if err != nil && (errors.Is(err, llm.ErrLength) || errors.Is(err, llm.ErrRepetition)) && runCtx.Err() == nil {
			// The client already retried once with a changed request; a
			// larger model is the next thing to try. A cut or degenerate
			// reply is never taken as an answer.
			cause := "length"
			if errors.Is(err, llm.ErrRepetition) {
				cause = "repetition"
			}
			if st.escalate(runCtx, cause) {
				st.meta.Steps--
				continue
			}
		}
		if err != nil {
			return st.llmFailure(runCtx, parent, limit, err)
		}
		if out, done := st.handleReply(runCtx, res); done {
			if out, again := st.checkAnswer(runCtx, parent, out); !again {
				return out
			}
			continue
		}
		if st.spec.ForcedReasoningInterval > 0 && st.toolCalls >= st.nextReflect {
			for st.nextReflect <= st.toolCalls {
				st.nextReflect += st.spec.ForcedReasoningInterval
			}
			st.meta.Reflections++
			st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: reflectPrompt(st.textMode, st.toolCalls)})
			st.emit(Event{Type: EventReflect, Step: st.meta.Steps, Text: fmt.Sprintf("forced reasoning after %d tool calls", st.toolCalls)})
		}
	}
}

func (st *loopState) setTextMode(on bool) {
	if on && !st.textMode {
		st.emit(Event{Type: EventTextMode, Model: st.model, Text: "the model has no native tool calling; using the Thought/Action text format"})
	}
	st.textMode = on
	st.meta.TextMode = st.meta.TextMode || on
}

// chat makes one model call with the current history.
func (st *loopState) chat(ctx context.Context) (llm.ChatResult, error) {
	req := llm.ChatRequest{
		Model: st.model, Messages: st.msgs, Meter: st.meter, MeterKeys: st.meterKeys,
		Temperature: st.set.Temperature,
	}
	if !st.textMode {
		req.Tools = tools.LLMTools(st.toolList)
	}
	step := st.meta.Steps
	res, err := st.r.LLM.Chat(ctx, req, func(d llm.Delta) {
		if d.Reset {
			st.emit(Event{Type: EventDelta, Step: step, Reset: true})
			return
		}
		if d.Content != "" {
			st.emit(Event{Type: EventDelta, Step: step, Text: d.Content})
		}
	})
	st.meta.LLMCalls++
	if err == nil && st.opts.Meter != nil {
		st.opts.Meter.Record(res.Usage(), st.meterKeys...)
	}
	return res, err
}

// handleReply interprets one model reply: tool calls are executed and their
// observations appended; a final answer ends the run; anything malformed is
// sent back to the model.
func (st *loopState) handleReply(ctx context.Context, res llm.ChatResult) (SpecialistOutcome, bool) {
	content := strings.TrimSpace(res.Content)
	if content != "" {
		st.lastText = content
	}
	if len(res.ToolCalls) > 0 {
		msg := res.Message()
		msg.Thinking = ""
		st.msgs = append(st.msgs, msg)
		for _, tc := range res.ToolCalls {
			obs, out, stop := st.callTool(ctx, tools.Call{Name: tc.Name, Args: tc.Arguments})
			st.msgs = append(st.msgs, llm.Message{Role: llm.RoleTool, Content: obs, ToolName: tc.Name, ToolCallID: tc.ID})
			if stop {
				return out, true
			}
		}
		return SpecialistOutcome{}, false
	}
	if content == "" {
		return st.invalid(ctx, "", "empty_reply",
			"Your reply was empty. Call a tool, or give your final answer.")
	}

	// Tool calls the model wrote in its text (a JSON object, <tool_call>,
	// <function=…>, [TOOL_CALLS]) run like native ones.
	if calls := ParseTextToolCalls(content, toolNames(st.toolList)); len(calls) > 0 {
		return st.runTextCalls(ctx, content, calls)
	}

	// Edits written as text (whole files, SEARCH/REPLACE, diffs) run as
	// writeFile/editFile calls (loop_edits.go).
	if found, _, out, stop := st.applyTextEdits(ctx, content); found {
		return out, stop
	}

	parsed, perr := ParseReAct(content)
	switch {
	case perr == nil && parsed.Action != "":
		st.msgs = append(st.msgs, llm.Message{Role: llm.RoleAssistant, Content: content})
		obs, out, stop := st.callTool(ctx, tools.Call{Name: parsed.Action, Args: parsed.Input})
		st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: "Observation: " + obs})
		return out, stop
	case perr == nil && parsed.HasFinal:
		if strings.TrimSpace(parsed.Final) == "" {
			return st.invalid(ctx, content, "empty_answer", "Your Final Answer was empty. Say what you changed and why.")
		}
		return st.answer(content, parsed.Final)
	case errors.Is(perr, ErrBadActionInput):
		return st.invalid(ctx, content, "bad_action_input", fmt.Sprintf(
			"Observation: the Action Input of %s is not a JSON object. Write it as one JSON object on the Action Input line, e.g. {\"path\": \"main.go\"}.", parsed.Action))
	case parsed.Thought != "" || (st.textMode && looksLikeReAct(content)):
		return st.invalid(ctx, content, "no_action", "Observation: your reply had no Action and no Final Answer. "+
			"Continue with an Action and its Action Input, or finish with Final Answer:.")
	}
	// Plain prose with no ReAct labels: the model has answered.
	return st.answer(content, content)
}

// noChangeNudge answers, once per run, a final answer that changed nothing
// when the task asked for a change.
const noChangeNudge = "No change was made: call writeFile or editFile, or show the whole file in a fenced block with its path on the line before."

// answer takes a final answer, unless it is the first one of a run that
// should have changed something and did not (shouldHaveActed): that one is
// sent back once with noChangeNudge.
func (st *loopState) answer(content, result string) (SpecialistOutcome, bool) {
	if st.shouldHaveActed() {
		st.nudged = true
		st.msgs = append(st.msgs,
			llm.Message{Role: llm.RoleAssistant, Content: content},
			llm.Message{Role: llm.RoleUser, Content: noChangeNudge})
		st.emit(Event{Type: EventFeedback, Step: st.meta.Steps, Status: "no_change", Text: noChangeNudge})
		return SpecialistOutcome{}, false
	}
	return st.succeed(result), true
}

// shouldHaveActed: the agent can write (writeFile or editFile is offered),
// its task asks for a change (TaskAsksForChange), nothing is staged yet and
// the run has not been told so before.
func (st *loopState) shouldHaveActed() bool {
	if st.nudged || st.draft.Len() > 0 {
		return false
	}
	names := toolNames(st.toolList)
	if !slices.Contains(names, tools.NameWriteFile) && !slices.Contains(names, tools.NameEditFile) {
		return false
	}
	return TaskAsksForChange(st.run.Task)
}

// changeVerb is an imperative asking for a change at the start of a task.
var changeVerb = lazyre.New(`(?i)^[\s#>*_\-"'` + "`" + `]*(?:(?:prd\s+)?task(?:\s+[^:\n]{1,80})?:\s*)?(?:please\s+)?(?:fix|add|implement|change|update|refactor|write|create|modify|edit|rename)\b`)

// TaskAsksForChange reports whether a task asks for files to change: it
// names files with a change verb (ChangeTargets), or starts (after a
// "Task:" or a build's "PRD task ID:" prefix) with an imperative such as
// fix, add, implement, change, update, refactor, write or create.
func TaskAsksForChange(task string) bool {
	return changeVerb.MatchString(task) || len(ChangeTargets(task)) > 0
}

// runTextCalls executes the tool calls read from a reply's text through
// callTool, like native ones. The reply stays in the history as the
// assistant's text and the observations go back in one user message,
// "Observation (tool): …", in native mode too: the reply carries no native
// tool_calls for a tool message to answer, and chat templates render (or
// drop) a tool message without its call differently, while a user message
// reads the same in every template.
func (st *loopState) runTextCalls(ctx context.Context, content string, calls []TextToolCall) (SpecialistOutcome, bool) {
	st.msgs = append(st.msgs, llm.Message{Role: llm.RoleAssistant, Content: content})
	var obs []string
	defer func() {
		if len(obs) > 0 {
			st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: strings.Join(obs, "\n\n")})
		}
	}()
	for _, c := range calls {
		st.meta.TextToolCalls++
		o, out, stop := st.callToolVia(ctx, tools.Call{Name: c.Name, Args: c.Args}, c.Form)
		obs = append(obs, fmt.Sprintf("Observation (%s): %s", c.Name, o))
		if stop {
			return out, true
		}
	}
	return SpecialistOutcome{}, false
}

func toolNames(ts []tools.Tool) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return names
}

func looksLikeReAct(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "action:") || strings.Contains(l, "action input:")
}

// invalid records a malformed reply, feeds it back, and escalates or fails
// when they repeat.
func (st *loopState) invalid(ctx context.Context, content, cause, feedback string) (SpecialistOutcome, bool) {
	if content != "" {
		st.msgs = append(st.msgs, llm.Message{Role: llm.RoleAssistant, Content: content})
	}
	st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: feedback})
	st.emit(Event{Type: EventFeedback, Step: st.meta.Steps, Status: cause, Text: feedback})
	return st.countInvalid(ctx, cause)
}

// countInvalid counts a validation failure (malformed reply, unknown tool,
// bad arguments): repeated ones escalate the tier, then fail the run.
func (st *loopState) countInvalid(ctx context.Context, cause string) (SpecialistOutcome, bool) {
	st.invalidStreak++
	if st.invalidStreak >= st.set.EscalateAfter && st.escalate(ctx, cause) {
		st.invalidStreak = 0
		return SpecialistOutcome{}, false
	}
	if st.invalidStreak >= st.set.MaxInvalid {
		hints := []RecoveryHint{HintChangeStrategy, HintSwitchSpecialist}
		if _, ok := llm.Escalate(st.tier, llm.TierLarge); ok {
			hints = append([]RecoveryHint{HintEscalateModel}, hints...)
		}
		return st.fail(FailValidationFailed, cause, fmt.Sprintf(
			"the model produced %d invalid replies in a row on tier %s (%s); last problem: %s",
			st.invalidStreak, st.tier, st.model, strings.ReplaceAll(cause, "_", " ")), hints...), true
	}
	return SpecialistOutcome{}, false
}

// escalate moves the run one tier up the ladder, within maxTier.
func (st *loopState) escalate(ctx context.Context, cause string) bool {
	next, ok := llm.Escalate(st.tier, st.maxTier)
	if !ok {
		return false
	}
	model, err := st.r.Models.For(next)
	if err != nil {
		return false
	}
	textMode, err := st.r.textMode(ctx, model)
	if err != nil {
		return false
	}
	from, fromModel := st.tier, st.model
	st.tier, st.model = next, model
	// The new tier has its own edit format and tools (auto: the small
	// tier's whole files become tool calls).
	st.applyTier()
	if textMode != st.textMode {
		st.setTextMode(textMode)
	}
	// The new model has its own context: fit the prompt again.
	if err := st.refit(ctx); err != nil {
		st.tier, st.model = from, fromModel
		st.applyTier()
		return false
	}
	st.meta.Escalations++
	st.emit(Event{Type: EventEscalate, Tier: string(next), Model: model,
		Text: fmt.Sprintf("escalated from %s to %s after repeated %s", from, next, strings.ReplaceAll(cause, "_", " "))})
	return true
}

// callTool runs one call and returns the observation for the model. stop
// means the run ends with out.
func (st *loopState) callTool(ctx context.Context, call tools.Call) (obs string, out SpecialistOutcome, stop bool) {
	return st.callToolVia(ctx, call, "")
}

// callToolVia is callTool for a call the model wrote in another way than a
// native tool call: via names the form (Trace.Via), and the tool-call event
// says so.
func (st *loopState) callToolVia(ctx context.Context, call tools.Call, via string) (obs string, out SpecialistOutcome, stop bool) {
	if st.toolCalls >= st.spec.Limits.MaxToolCalls {
		return "not run: the tool call limit is reached", st.fail(FailTimeout, "max_tool_calls",
			fmt.Sprintf("reached the tool call limit (%d) without a final answer", st.spec.Limits.MaxToolCalls),
			HintChangeStrategy, HintRetry), true
	}
	st.toolCalls++
	canon, hash := tools.CanonicalArgs(call.Args)
	key := call.Name + "\x00" + hash
	st.seen[key]++
	st.recent = append(st.recent, call.Name+" "+clip(canon, 120))
	if len(st.recent) > 8 {
		st.recent = st.recent[1:]
	}
	if st.seen[key] >= st.set.RepeatLimit {
		report := fmt.Sprintf("stuck: called %s %d times with the same arguments %s and nothing changed in between. Recent calls:\n- %s",
			call.Name, st.seen[key], clip(canon, 200), strings.Join(st.recent, "\n- "))
		hints := []RecoveryHint{HintChangeStrategy, HintSwitchSpecialist}
		if _, ok := llm.Escalate(st.tier, st.maxTier); ok {
			hints = append(hints, HintEscalateModel)
		}
		return "not run: repeated call", st.fail(FailStuck, "repeated_call", report, hints...), true
	}
	ev := Event{Type: EventToolCall, Step: st.meta.Steps, Tool: call.Name, Args: canon}
	if via != "" {
		ev.Text = "tool call read from text (form " + via + ")"
	}
	st.emit(ev)

	res := st.r.Tools.Execute(ctx, st.env, call)
	tr, err := st.r.Runs.AddTrace(Trace{
		RunID: st.run.ID, Step: st.meta.Steps, Tool: res.Tool, Args: json.RawMessage(res.Args), ArgsHash: res.ArgsHash,
		Status: res.Status, Kind: res.Kind, Duration: res.Duration, Output: res.Output, Evidence: res.Evidence,
		Via: via, Time: time.Now().UTC(),
	})
	if err != nil {
		return "", st.fail(FailUnknown, "trace_write", "could not record the tool trace: "+err.Error(), HintRetry), true
	}
	st.traces = append(st.traces, tr)
	st.emit(Event{Type: EventToolResult, Step: st.meta.Steps, Tool: res.Tool, Status: string(res.Status),
		TraceID: tr.ID, Text: clip(firstLine(res.Output), 200)})
	stuckNote, stuckOut, stuck := st.observeProgress(ctx, tr)

	budget := st.set.ToolOutputBudget
	if t, ok := st.r.Tools.Get(res.Tool); ok && budget > 0 && t.OutputCap > budget {
		budget = t.OutputCap // a tool's own larger cap (runSkill, fetchDocs, queryKnowledge); 0 stays uncapped
	}
	args := json.RawMessage(res.Args)
	if note := tools.NoteLine(res.Notes); note != "" && budget > 0 {
		// The note about renamed or dropped arguments ends the output (nova's
		// own words, outside the untrusted block); keep it in sight when the
		// output is cut.
		obs = note
		if out := strings.TrimSuffix(strings.TrimSuffix(res.Output, note), "\n"); out != "" {
			obs = markUntrusted(res.Tool, args, TruncateOutput(out, budget, st.run.ID, tr.ID)) + "\n" + note
		}
	} else {
		obs = markUntrusted(res.Tool, args, TruncateOutput(res.Output, budget, st.run.ID, tr.ID))
	}
	if !res.OK() && res.Status != tools.StatusFailed {
		obs = fmt.Sprintf("ERROR (%s): %s", res.Kind, obs)
	}
	if stuck {
		return obs, stuckOut, true
	}
	if stuckNote != "" {
		obs += "\n\n" + stuckNote
	}

	if res.Mutating && res.Status == tools.StatusOK {
		// The staged state changed: earlier identical calls may now be
		// legitimate again.
		clear(st.seen)
		if note := st.diagnoseStaged(ctx); note != "" {
			obs += "\n" + note
		}
	}
	switch res.Status {
	case tools.StatusInvalid:
		st.toolErrStreak = 0
		if o, done := st.countInvalid(ctx, "invalid_tool_call"); done {
			return obs, o, true
		}
	case tools.StatusDenied:
		st.denials++
		st.invalidStreak, st.toolErrStreak = 0, 0
		if st.denials >= st.set.MaxDenials {
			return obs, st.fail(FailPolicyDenied, "denied", fmt.Sprintf(
				"%d tool calls were refused by policy; last: %s", st.denials, res.Output), HintAskUser, HintChangeStrategy), true
		}
	case tools.StatusError, tools.StatusTimeout:
		st.invalidStreak = 0
		st.toolErrStreak++
		if st.toolErrStreak >= st.set.MaxToolErrors {
			kind := FailToolError
			if res.Status == tools.StatusTimeout {
				kind = FailTimeout
			}
			return obs, st.fail(kind, "tool_errors", fmt.Sprintf(
				"%d tool calls in a row failed; last: %s", st.toolErrStreak, res.Output), HintChangeStrategy, HintRetry), true
		}
	default:
		st.invalidStreak, st.toolErrStreak = 0, 0
	}
	return obs, SpecialistOutcome{}, false
}

func (st *loopState) succeed(result string) SpecialistOutcome {
	return SpecialistOutcome{OK: true, Result: strings.TrimSpace(result)}
}

func (st *loopState) fail(kind FailureKind, cause, msg string, hints ...RecoveryHint) SpecialistOutcome {
	return st.failAs(classOf(kind, cause), kind, cause, msg, hints...)
}

// failAs is fail with an explicit failure class (engine/failure). A class
// the caller could not tell (unknown) is derived from kind and cause.
func (st *loopState) failAs(class failure.Kind, kind FailureKind, cause, msg string, hints ...RecoveryHint) SpecialistOutcome {
	if hints == nil {
		hints = []RecoveryHint{}
	}
	if !class.Valid() || class == failure.Unknown {
		class = classOf(kind, cause)
	}
	f := &Failure{
		Kind: kind, Class: class, Cause: cause, Message: msg, PartialResult: st.partial(), RecoveryHints: hints,
	}
	f.Hypothesis = Hypothesis(f, st.lastText)
	f.HintNotes = HintNotes(f)
	return SpecialistOutcome{Failure: f}
}

// partial is what the run had when it stopped.
func (st *loopState) partial() string {
	var b strings.Builder
	b.WriteString(clip(st.lastText, 2000))
	if n := st.draft.Len(); n > 0 {
		staged, _ := st.draft.Staged(context.Background())
		paths := make([]string, len(staged))
		for i, f := range staged {
			paths[i] = f.Path
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "staged in changeset %d: %s", st.draft.ID(), strings.Join(paths, ", "))
	}
	return b.String()
}

// llmFailure turns a model-call error (or the end of the run's context)
// into an outcome. Its class is the error's failure kind (engine/failure):
// a 400 is misconfigured, a 500 server, never unknown for a server answer.
func (st *loopState) llmFailure(runCtx, parent context.Context, limit time.Duration, err error) SpecialistOutcome {
	class := failure.Of(err)
	switch {
	case parent.Err() != nil:
		st.canceled = true
		return st.failAs(failure.Cancelled, FailUnknown, "canceled", "the run was canceled", HintRetry)
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		hints := []RecoveryHint{HintRetry, HintChangeStrategy}
		if _, ok := llm.Escalate(st.tier, st.maxTier); ok && st.opts.Critical {
			hints = append([]RecoveryHint{HintEscalateModel}, hints...)
		}
		return st.failAs(failure.Stalled, FailTimeout, "run_timeout", fmt.Sprintf("the run did not finish within its %s time limit", limit),
			hints...)
	case errors.Is(err, llm.ErrModelNotFound):
		return st.failAs(class, FailUnknown, "model_not_found", err.Error(), HintAskUser)
	case errors.Is(err, llm.ErrUnreachable):
		return st.failAs(class, FailUnknown, "ollama_unreachable", err.Error(), HintRetry, HintAskUser)
	case errors.Is(err, llm.ErrTimeout):
		return st.failAs(class, FailTimeout, "ollama_timeout", err.Error(), HintRetry, HintAskUser)
	case errors.Is(err, llm.ErrLength):
		return st.failAs(class, FailUnknown, "length", err.Error(), HintEscalateModel, HintChangeStrategy)
	case errors.Is(err, llm.ErrRepetition):
		return st.failAs(class, FailUnknown, "repetition", err.Error(), HintEscalateModel, HintChangeStrategy)
	case errors.Is(err, llm.ErrStreamCut):
		return st.failAs(class, FailUnknown, "stream_cut", err.Error(), HintRetry)
	case errors.Is(err, llm.ErrPromptTooLong):
		return st.failAs(class, FailUnknown, "prompt_too_long", err.Error(), HintAskUser)
	case errors.Is(err, llm.ErrBudgetExceeded):
		return st.failAs(class, FailUnknown, "budget_exceeded", err.Error(), HintAskUser)
	case errors.Is(err, llm.ErrAuth):
		return st.failAs(class, FailUnknown, "auth", err.Error(), HintAskUser)
	case errors.Is(err, llm.ErrBadRequest):
		return st.failAs(class, FailUnknown, "bad_request", err.Error(), HintEscalateModel, HintAskUser)
	case errors.Is(err, llm.ErrServer):
		return st.failAs(class, FailUnknown, "ollama_error", err.Error(), HintRetry, HintAskUser)
	}
	return st.failAs(class, FailUnknown, "error", err.Error(), HintRetry)
}

// finish verifies, records and announces the run.
func (st *loopState) finish(ctx context.Context, out SpecialistOutcome, took time.Duration) (Run, error) {
	u := st.meter.Total()
	st.meta.Duration = took
	st.meta.PromptTokens, st.meta.EvalTokens = u.PromptTokens, u.EvalTokens
	st.meta.ToolCalls = st.toolCalls
	st.meta.Tier, st.meta.Model = string(st.tier), st.model
	st.meta.EditFormat = string(st.format)
	out.Meta = st.meta

	run := *st.run
	run.Outcome = out
	run.ChangesetID = st.draft.ID()
	staged, _ := st.draft.Staged(context.Background())
	for _, f := range staged {
		run.Files = append(run.Files, f.Path)
	}
	// The verifier checks the answer's own claims: a handoff's constraints
	// and questions name files without claiming to change them.
	checked := out
	checked.Result = board.Body(out.Result)
	execs, checkRun := st.executionChecks(context.WithoutCancel(ctx))
	run.Verdict = Verify(VerifyInput{Outcome: checked, Traces: st.traces, StagedHash: st.stagedHash,
		StagedContent: st.stagedContent, Executions: execs, FastChecks: st.fastChecks(context.WithoutCancel(ctx))})
	run.Verified, run.Checked = run.Verdict.Status == VerdictPassed, checkRun
	run.FinishedAt = time.Now().UTC()
	switch {
	case st.canceled:
		run.Status = RunCanceled
	case out.OK:
		run.Status = RunDone
		run.Progress = &Progress{Percent: 100, Milestone: "done"}
	default:
		run.Status = RunFailed
	}
	if err := st.r.Runs.Save(run); err != nil {
		return run, err
	}
	*st.run = run
	ev := Event{Type: EventDone, Status: string(run.Status), Run: &run, Text: clip(out.Result, 500)}
	if !out.OK {
		ev.Type = EventFailed
		ev.Text = out.Failure.Message
	}
	st.emit(ev)
	if st.canceled {
		return run, context.Cause(ctx)
	}
	return run, nil
}

// stagedHash is the hash of path as the run leaves it.
func (st *loopState) stagedHash(path string) (string, error) {
	f, ok, err := st.draft.Lookup(context.Background(), path)
	if err != nil {
		return "", err
	}
	if ok {
		if f.Deleted {
			return tools.Absent, nil
		}
		return tools.SHA256(f.Content), nil
	}
	// Not staged (e.g. a write that restored the disk content): the disk.
	return diskHash(st.r.Root, path)
}

// stagedContent is path's content as the run leaves it: the changeset's,
// else the disk's.
func (st *loopState) stagedContent(path string) ([]byte, bool, error) {
	f, ok, err := st.draft.Lookup(context.Background(), path)
	if err != nil {
		return nil, false, err
	}
	if ok {
		return f.Content, !f.Deleted, nil
	}
	abs, err := tools.Confine(st.r.Root, path)
	if err != nil {
		return nil, false, err
	}
	data, err := safefile.ReadFile(abs, 256<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

func diskHash(root, path string) (string, error) {
	abs, err := tools.Confine(root, path)
	if err != nil {
		return "", err
	}
	data, err := safefile.ReadFile(abs, 256<<20) // never blocks on a FIFO
	if errors.Is(err, fs.ErrNotExist) {
		return tools.Absent, nil
	}
	if err != nil {
		return "", err
	}
	return tools.SHA256(data), nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// textMode reports whether model needs the text ReAct format (no native
// tool calling), asking Ollama once per model. A model Ollama does not
// have is an error; other failures of the question assume native tools
// (a chat refused for tools falls back later anyway).
func (r *Runner) textMode(ctx context.Context, model string) (bool, error) {
	r.capMu.Lock()
	native, ok := r.caps[model]
	r.capMu.Unlock()
	if ok {
		return !native, nil
	}
	info, err := r.LLM.ModelInfo(ctx, model)
	switch {
	case errors.Is(err, llm.ErrModelNotFound), errors.Is(err, llm.ErrUnreachable):
		return false, err
	case err != nil:
		return false, nil
	}
	native = info.Can("tools") || len(info.Capabilities) == 0
	r.capMu.Lock()
	if r.caps == nil {
		r.caps = map[string]bool{}
	}
	r.caps[model] = native
	r.capMu.Unlock()
	return !native, nil
}
