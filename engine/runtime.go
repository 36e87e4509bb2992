package engine

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/board"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/codemap"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/workspace"
)

// ErrNoSuchApproval: AnswerApproval got an id nobody is waiting for.
var ErrNoSuchApproval = errors.New("no approval request with this id is waiting")

// runRequest is RunOptions plus what only the engine's own callers set.
type runRequest struct {
	RunOptions
	// extra blocks are added to the system prompt (vault, playbook).
	extra []string
	// approve, when set, answers runCommand approvals instead of the policy
	// (the build engine's own answer).
	approve tools.ApproveFunc
	// taskID and buildID link the run to a build task.
	taskID, buildID string
	// autonomy, when set, replaces the configured autonomy for this run (a
	// build's level governs its runs' command approvals).
	autonomy *int
	// board is the session board of the run's build (board tools).
	board tools.Board
	// checks, when set, replace the configured checks for this run (a build
	// task's own list, the one its check gates use).
	checks *[]string
	// critical: a timeout hints a larger tier (agents.RunOptions.Critical).
	critical bool
	// noContext: the caller built the context blocks (a build task, a chat
	// turn); otherwise RunAgent adds the workspace's (promptContext).
	noContext bool
	// onEvent, when set, hears the run's events too (a chat turn).
	onEvent func(agents.Event)
	// title names the run in listings (a chat turn's message).
	title string
}

// maxRunEvents bounds the events kept per run for RunEvents, and
// maxRunLogs the number of runs kept.
const (
	maxRunEvents = 2000
	maxRunLogs   = 32
)

// runtimeState is the agent runtime of a Local, built on first use.
type runtimeState struct {
	once    sync.Once
	tools   *tools.Registry
	changes *changes.Store
	runs    *agents.RunStore
	runner  *agents.Runner
	roster  agents.Cache // agent specs, parsed again only when .nova/agents changes

	mu        sync.Mutex
	approvals map[string]pendingApproval
	logs      map[uint64][]agents.Event
	logOrder  []uint64
}

type pendingApproval struct {
	req    tools.ApprovalRequest
	answer chan bool
}

func (l *core) runtime() *runtimeState {
	rt := &l.rt
	rt.once.Do(func() {
		cfg := l.Config()
		rt.tools = tools.Core()
		l.registerLibraryTools(rt.tools)   // runSkill, generateUIComponent (library.go)
		l.registerKnowledgeTools(rt.tools) // knowledge.go
		_ = board.Register(rt.tools)       // fixed names, registered once: cannot clash
		l.registerCodeTools(rt.tools)      // findSymbol, references, outline (area_codemap.go)
		rt.changes = changes.New(l.db, l.ws.Root, changes.Options{Now: l.now, Notify: func(n changes.Notice) {
			l.Publish(Event{Type: EventChanged, Topic: TopicChanges, Status: string(n.Status),
				Text: fmt.Sprintf("changeset %d %s", n.ID, n.Action)})
			l.changeSignal(n) // a user's apply/discard teaches the agent's playbook (ace.go)
		}, CommitOnApply: func() bool { return l.Config().Git.CommitOnApply }})
		rt.runs = agents.NewRunStore(l.db)
		rt.runner = &agents.Runner{
			LLM:     l.llm,
			Models:  modelsOf(cfg),
			Tools:   rt.tools,
			Changes: rt.changes,
			Runs:    rt.runs,
			Root:    l.ws.Root,
			Settings: agents.Settings{
				ToolOutputBudget: cfg.Budgets.ToolOutput,
				CompressAt:       cfg.Budgets.PromptTokens * 3 / 4,
				PromptTokens:     cfg.Budgets.PromptTokens,
				Autonomy:         cfg.Autonomy,
				Commands:         CommandPolicy(cfg.Commands),
				EditFormat:       agents.EditFormat(cfg.Agents.EditFormat),
			},
			// A run that staged files runs the configured checks on them
			// before it finishes (verified means executed).
			Checks:       slices.Clone(cfg.Checks),
			CheckTimeout: cfg.Commands.Timeout.D(),
		}
		if d := l.diagnoser(); d != nil {
			rt.runner.Diagnose = d // language servers check every staged edit (area_codemap.go)
		}
		rt.approvals = map[string]pendingApproval{}
		rt.logs = map[uint64][]agents.Event{}
	})
	return rt
}

func modelsOf(cfg workspace.Config) llm.Models {
	return llm.Models{
		llm.TierSmall: cfg.Models.Small, llm.TierMedium: cfg.Models.Medium,
		llm.TierLarge: cfg.Models.Large, llm.TierEmbed: cfg.Models.Embed,
	}
}

// Agents loads the roster from .nova/agents. Good files are loaded even when
// others are bad; every problem is returned beside the roster.
func (l *core) Agents() (*agents.Roster, []error) {
	return l.rt.roster.Load(filepath.Join(l.Dir(), "agents"))
}

// Changes is the changeset store: list, get (files with original and
// proposed content, diffs), apply, discard.
func (l *core) Changes() *changes.Store { return l.runtime().changes }

// Runs is the store of agent runs (outcome, tokens, verdict) and their tool
// traces.
func (l *core) Runs() *agents.RunStore { return l.runtime().runs }

// Tools is the tool registry agents run with.
func (l *core) Tools() *tools.Registry { return l.runtime().tools }

// agentContext builds a standalone run's context blocks and publishes
// their provenance.
func (l *core) agentContext(ctx context.Context, agentID, task string, opts runRequest) []string {
	b, err := l.promptContext(ctx, promptctx.Request{Task: task, Agent: agentID, Tier: opts.Tier, PromptTokens: l.Config().Budgets.PromptTokens})
	if err != nil {
		l.Publish(Event{Type: EventLog, Topic: TopicAgent, Op: opts.Op, Text: "context: " + err.Error()})
	}
	if len(b.Provenance) > 0 {
		parts := make([]string, len(b.Provenance))
		for i, it := range b.Provenance {
			parts[i] = it.Block + " " + it.Title
		}
		l.Publish(Event{Type: EventLog, Topic: TopicAgent, Op: opts.Op, Text: "context: " + strings.Join(parts, ", ")})
	}
	return b.List()
}

func (l *core) runAgent(ctx context.Context, agentID, task string, opts runRequest) (RunResult, error) {
	rt := l.runtime()
	roster, loadErrs := l.Agents()
	spec, err := roster.Get(agentID)
	if err != nil {
		for _, e := range loadErrs {
			var se *agents.SpecError
			if errors.As(e, &se) && strings.EqualFold(strings.TrimSuffix(path.Base(filepath.ToSlash(se.File)), path.Ext(se.File)), agentID) {
				return RunResult{}, fmt.Errorf("agent %s cannot run: %w", agentID, e)
			}
		}
		return RunResult{}, fmt.Errorf("%w (known: %s)", err, strings.Join(roster.IDs(), ", "))
	}
	// MCP tools the agent lists start their servers now (first use).
	if spec, err = l.expandMCPTools(ctx, spec, opts.Op); err != nil {
		return RunResult{}, err
	}
	var tier llm.Tier
	if opts.Tier != "" {
		t, err := llm.ParseTier(opts.Tier)
		if err != nil || t == llm.TierEmbed {
			return RunResult{}, fmt.Errorf("tier %q: want small, medium or large", opts.Tier)
		}
		tier = t
	}
	if !opts.noContext && opts.buildID == "" && opts.taskID == "" {
		opts.extra = append(l.agentContext(ctx, spec.ID, task, opts), opts.extra...)
	}
	approve := opts.approve
	if approve == nil {
		approve = l.approver(opts.Approvals, opts.Op, opts.buildID, opts.taskID)
	} else {
		inner := approve
		approve = func(ctx context.Context, req tools.ApprovalRequest) (bool, error) {
			l.Publish(approvalEvent(req, opts.Op, opts.buildID, opts.taskID))
			return inner(ctx, req)
		}
	}
	extra := opts.extra
	if opts.buildID == "" && !slices.ContainsFunc(extra, func(b string) bool { return strings.HasPrefix(strings.TrimSpace(b), codemap.BlockTag) }) {
		// The repository map for the task (a build task has its own, with
		// provenance: build.go).
		mapTier := string(tier)
		if mapTier == "" {
			mapTier = string(spec.Tier)
		}
		if block, _ := l.mapBlock(ctx, task, mapTier); block != "" {
			extra = append(slices.Clone(extra), block)
		}
	}
	return rt.runner.Run(ctx, spec, task, agents.RunOptions{
		Tier: tier, ExtraContext: extra, Approve: approve,
		TaskID: opts.taskID, BuildID: opts.buildID, Title: opts.title, Autonomy: opts.autonomy, Board: opts.board, Checks: opts.checks, Critical: opts.critical,
		OnEvent: func(ev agents.Event) {
			if opts.onEvent != nil {
				opts.onEvent(ev)
			}
			l.logRunEvent(ev)
			e := engineEvent(ev)
			e.TaskID, e.BuildID, e.Op = opts.taskID, opts.buildID, opts.Op
			l.Publish(e)
		},
	})
}

// CommandPolicy is runCommand's policy from the commands: configuration.
func CommandPolicy(c workspace.CommandsConfig) tools.CommandPolicy {
	return tools.CommandPolicy{Allow: c.Allow, Timeout: c.Timeout.D(),
		Sandbox: tools.SandboxPolicy{Off: c.Sandbox == "off", Network: c.Network}}
}

// approver answers runCommand approvals by policy: ask the subscribers
// (EventNeedsApproval, AnswerApproval), allow all, or deny all with a log
// line (on the build's topic for a build task, so a headless build shows it).
func (l *core) approver(policy ApprovalPolicy, op, buildID, taskID string) tools.ApproveFunc {
	switch policy {
	case ApproveAll:
		return func(_ context.Context, req tools.ApprovalRequest) (bool, error) {
			if req.Unvetted != "" {
				// A blanket approval covers allowlisted commands whose
				// arguments nova vouches for, not -toolexec and the like.
				l.Publish(Event{Type: EventLog, Topic: approvalTopic(buildID), BuildID: buildID, TaskID: taskID, Op: op,
					RunID: strconv.FormatUint(req.RunID, 10),
					Text:  fmt.Sprintf("denied (not covered by approve-all): %s wants to run `%s`: %s", req.Agent, req.Command, req.Unvetted)})
				return false, nil
			}
			l.Publish(approvalEvent(req, op, buildID, taskID))
			return true, nil
		}
	case ApproveNone:
		return func(_ context.Context, req tools.ApprovalRequest) (bool, error) {
			l.Publish(Event{Type: EventLog, Topic: approvalTopic(buildID), BuildID: buildID, TaskID: taskID, Op: op,
				RunID: strconv.FormatUint(req.RunID, 10),
				Text:  fmt.Sprintf("denied (headless): %s wants to run `%s`", req.Agent, req.Command)})
			return false, nil
		}
	}
	return func(ctx context.Context, req tools.ApprovalRequest) (bool, error) {
		return l.askSubscribers(ctx, req, op, buildID, taskID)
	}
}

// engineEvent wraps a run event for the broker.
func engineEvent(ev agents.Event) Event {
	e := Event{Topic: TopicAgent, RunID: strconv.FormatUint(ev.RunID, 10), Time: ev.Time,
		Status: string(ev.Type), Text: ev.Text, Agent: &ev}
	switch ev.Type {
	case agents.EventDelta:
		e.Type = EventDelta
	case agents.EventStep:
		e.Type, e.Done = EventProgress, ev.Step
	case agents.EventDone:
		e.Type, e.Status = EventDone, ev.Status
	case agents.EventFailed:
		e.Type, e.Status = EventFailed, ev.Status
	default:
		e.Type = EventLog
		switch ev.Type {
		case agents.EventToolCall:
			e.Text = ev.Tool + " " + ev.Args
			if ev.Text != "" { // "tool call read from text (form …)"
				e.Text += " [" + ev.Text + "]"
			}
		case agents.EventToolResult:
			e.Text = ev.Tool + " → " + ev.Status + ": " + ev.Text
		}
	}
	return e
}

func approvalEvent(req tools.ApprovalRequest, op, buildID, taskID string) Event {
	return Event{
		Type: EventNeedsApproval, Topic: TopicAgent, RunID: strconv.FormatUint(req.RunID, 10), Status: req.ID,
		Op: op, BuildID: buildID, TaskID: taskID,
		Text:     approvalText(req),
		Approval: &req,
	}
}

// approvalTopic is where approval log lines go: the build's topic for a
// build task, so a headless build shows them.
func approvalTopic(buildID string) Topic {
	if buildID != "" {
		return TopicBuild
	}
	return TopicAgent
}

func approvalText(req tools.ApprovalRequest) string {
	if req.Unvetted != "" {
		return fmt.Sprintf("%s wants to run `%s` in %s (careful: %s)", req.Agent, req.Command, req.Dir, req.Unvetted)
	}
	return fmt.Sprintf("%s wants to run `%s` in %s", req.Agent, req.Command, req.Dir)
}

// askSubscribers publishes an approval request and waits for AnswerApproval.
func (l *core) askSubscribers(ctx context.Context, req tools.ApprovalRequest, op, buildID, taskID string) (bool, error) {
	rt := l.runtime()
	ch := make(chan bool, 1)
	rt.mu.Lock()
	rt.approvals[req.ID] = pendingApproval{req: req, answer: ch}
	rt.mu.Unlock()
	defer func() {
		rt.mu.Lock()
		delete(rt.approvals, req.ID)
		rt.mu.Unlock()
	}()
	l.Publish(approvalEvent(req, op, buildID, taskID))
	select {
	case ok := <-ch:
		return ok, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (l *core) pendingApprovalRequests() []tools.ApprovalRequest {
	rt := l.runtime()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := make([]tools.ApprovalRequest, 0, len(rt.approvals))
	for _, p := range rt.approvals {
		out = append(out, p.req)
	}
	return out
}

func (l *core) logRunEvent(ev agents.Event) {
	if ev.Type == agents.EventDelta {
		return
	}
	rt := l.runtime()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	log, ok := rt.logs[ev.RunID]
	if !ok {
		rt.logOrder = append(rt.logOrder, ev.RunID)
		if len(rt.logOrder) > maxRunLogs {
			delete(rt.logs, rt.logOrder[0])
			rt.logOrder = rt.logOrder[1:]
		}
	}
	if len(log) >= maxRunEvents {
		log = log[1:]
	}
	rt.logs[ev.RunID] = append(log, ev)
}

// pendingApprovals counts pending changesets and waiting approval requests
// (Summary.PendingApprovals).
func (l *core) pendingApprovals(ctx context.Context) (int, error) {
	n, err := l.Changes().CountPending(ctx)
	if err != nil {
		return 0, fmt.Errorf("count pending changesets: %w", err)
	}
	return n + len(l.pendingApprovalRequests()), nil
}
