package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/workspace"
)

// The agents commands read .nova/agents (engine.LoadRoster), so list and
// validate work on the files alone. show also names the tools the
// workspace offers an agent beyond its file (through the owner, or a short
// open of the database when there is one). `nova agent run` runs a task
// through the workspace.

func newAgentsCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "agents", Short: "List, show and validate the agent definitions (.nova/agents)"}
	cmd.AddCommand(newAgentsListCmd(env, nil), newAgentsShowCmd(env, nil), newAgentsValidateCmd(env, nil))
	return cmd
}

// agentsOptions is `nova agents list|show|validate`.
type agentsOptions struct {
	*Env
	// ID is the agent of show; Dir the directory of validate ("" = the
	// workspace's).
	ID, Dir string
	JSON    bool
}

// roster loads opts.Dir, or the workspace's .nova/agents.
func (opts *agentsOptions) roster() (engine.Roster, error) {
	dir := opts.Dir
	if dir == "" {
		root, err := opts.root()
		if err != nil {
			return engine.Roster{}, err
		}
		dir = filepath.Join(root, workspace.DirName, "agents")
	}
	return engine.LoadRoster(opts.abs(dir))
}

func newAgentsListCmd(env *Env, runF func(context.Context, *agentsOptions) error) *cobra.Command {
	opts := &agentsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the agents of the workspace",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runAgentsList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runAgentsList(_ context.Context, opts *agentsOptions) error {
	r, err := opts.roster()
	if err != nil {
		return err
	}
	if len(r.Problems) > 0 {
		opts.IO.Logf("warning: %s in agent files; those agents are left out (see `nova agents validate`)\n", plural(len(r.Problems), "problem", "problems"))
	}
	if opts.JSON {
		return opts.IO.PrintJSON(r.Agents)
	}
	if len(r.Agents) == 0 {
		opts.IO.Printf("no agents (add .nova/agents/<ID>.yaml files, or run `nova init`)\n")
		return nil
	}
	opts.IO.Printf("%-10s %-12s %-14s %-6s %s\n", "ID", "NAME", "TIER", "TOOLS", "DESCRIPTION")
	for _, s := range r.Agents {
		opts.IO.Printf("%-10s %-12s %-14s %-6d %s\n", s.ID, clipLine(s.Display.Name, 12),
			string(s.Tier)+"→"+string(s.MaxTier), len(s.Tools), clipLine(s.Display.Description, 70))
	}
	return nil
}

func newAgentsShowCmd(env *Env, runF func(context.Context, *agentsOptions) error) *cobra.Command {
	opts := &agentsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one agent's definition",
		Args:  exactArgs(1, "an agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return pick(runF, runAgentsShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runAgentsShow(ctx context.Context, opts *agentsOptions) error {
	r, err := opts.roster()
	if err != nil {
		return err
	}
	s, ok := r.Get(opts.ID)
	if !ok {
		for _, p := range r.Problems {
			if strings.EqualFold(strings.TrimSuffix(filepath.Base(p.File), filepath.Ext(p.File)), opts.ID) {
				return fmt.Errorf("agent %s is invalid: %s", opts.ID, p.Text)
			}
		}
		return fmt.Errorf("agent %q: %w (known: %s)", opts.ID, agents.ErrUnknownAgent, strings.Join(r.IDs(), ", "))
	}
	implicit := opts.implicitTools(ctx, s.ID)
	if opts.JSON {
		return opts.IO.PrintJSON(struct {
			agents.Spec
			ImplicitTools []string `json:"implicitTools,omitempty"`
		}{s, implicit})
	}
	p := opts.IO.Printf
	p("%s — %s %s\n%s\n\n", s.ID, s.Display.Name, s.Display.Emoji, s.Display.Description)
	if s.Domain != "" {
		p("domain:     %s\n", s.Domain)
	}
	p("tier:       %s (may escalate to %s)\n", s.Tier, s.MaxTier)
	p("tools:      %s\n", strings.Join(s.Tools, ", "))
	for _, a := range s.ToolMap {
		p("            %s (kb.specialist/1 name mapped)\n", a)
	}
	if len(implicit) > 0 {
		p("also:       %s (offered to it without being in its file)\n", strings.Join(implicit, ", "))
	}
	p("limits:     %d steps, %d tool calls, %s\n", s.Limits.MaxSteps, s.Limits.MaxToolCalls, s.Limits.Timeout)
	if s.ForcedReasoningInterval > 0 {
		p("reasoning:  forced every %d tool calls\n", s.ForcedReasoningInterval)
	}
	p("file:       %s\n", s.Source)
	for _, n := range s.Notes {
		p("note:       %s\n", n)
	}
	p("\nrole:\n%s\n", indent(s.Role, "  "))
	if s.StaticContext != "" {
		p("\nstatic context:\n%s\n", indent(s.StaticContext, "  "))
	}
	for i, ex := range s.Examples {
		p("\nexample %d:\n  input: %s\n  output:\n%s\n", i+1, ex.Input, indent(ex.Output, "    "))
	}
	return nil
}

// implicitTools are the tools the workspace offers agent id beyond its
// file's list (runSkill, the knowledge and board tools, …). They come from
// the workspace's tool registry, so they are known only for the
// workspace's own agents (not with --dir) and only when it has a database:
// the command then works through the owner, or opens it for a moment.
// Nothing is created, and any failure just leaves the line out.
func (opts *agentsOptions) implicitTools(ctx context.Context, id string) []string {
	if opts.Dir != "" {
		return nil
	}
	root, err := opts.root()
	if err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(root, workspace.DirName, workspace.DBName)); err != nil {
		return nil
	}
	ws, err := opts.Workspace(ctx)
	if err != nil {
		return nil
	}
	defer func() { _ = ws.Close() }() // a read: nothing to lose
	r, err := ws.ListAgents(ctx)
	if err != nil {
		return nil
	}
	for aid, names := range r.ImplicitTools {
		if strings.EqualFold(aid, id) {
			return names
		}
	}
	return nil
}

func newAgentsValidateCmd(env *Env, runF func(context.Context, *agentsOptions) error) *cobra.Command {
	opts := &agentsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Check every agent file and print every problem (exit 1 if any file is invalid)",
		Args:  maxArgs(1, "one directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = ""
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			return pick(runF, runAgentsValidate)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runAgentsValidate(_ context.Context, opts *agentsOptions) error {
	r, err := opts.roster()
	if err != nil {
		return err
	}
	if opts.Dir == "" { // the workspace's own agents: check the MCP servers they name
		if root, err := opts.root(); err == nil {
			if ws, err := workspace.Load(root, opts.Getenv); err == nil {
				engine.CheckMCPTools(&r, ws.Config.MCP)
			}
		}
	}
	if opts.JSON {
		type problem struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Field   string `json:"field"`
			Message string `json:"message"`
		}
		probs := []problem{}
		for _, p := range r.Problems {
			probs = append(probs, problem{File: p.File, Line: p.Line, Field: p.Field, Message: p.Message})
		}
		if err := opts.IO.PrintJSON(map[string]any{
			"ok": len(r.Problems) == 0, "dir": r.Dir, "files": r.Files, "valid": r.IDs(), "errors": probs,
		}); err != nil {
			return err
		}
	} else {
		for _, p := range r.Problems {
			opts.IO.Printf("%s\n", p.Text)
		}
		// Accepted, but read differently or not used: kb.specialist/1
		// fields and tool names (see `nova agents show ID`).
		for _, s := range r.Agents {
			for _, a := range s.ToolMap {
				opts.IO.Printf("%s: note: tools: %s\n", s.Source, a)
			}
			for _, n := range s.Notes {
				opts.IO.Printf("%s: note: %s\n", s.Source, n)
			}
		}
		opts.IO.Printf("%s in %s: %d valid, %s\n", plural(r.Files, "agent file", "agent files"), r.Dir, len(r.Agents), plural(len(r.Problems), "problem", "problems"))
	}
	if len(r.Problems) > 0 {
		return &reportedError{msg: plural(len(r.Problems), "problem", "problems") + " in agent files"}
	}
	return nil
}

// ---- agent run ----

func newAgentCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "agent", Short: "Run one task through an agent"}
	cmd.AddCommand(newAgentRunCmd(env, nil), newAgentRunsCmd(env))
	return cmd
}

// chatTiers are the model tiers a run can start on.
var chatTiers = []string{"small", "medium", "large"}

// agentRunOptions is `nova agent run AGENT "TASK"`.
type agentRunOptions struct {
	*Env
	Agent, Task string
	Tier        string
	// Yes approves the agent's allowlisted commands without asking.
	Yes  bool
	JSON bool
}

func newAgentRunCmd(env *Env, runF func(context.Context, *agentRunOptions) error) *cobra.Command {
	opts := &agentRunOptions{Env: env}
	cmd := &cobra.Command{
		Use:   `run AGENT "TASK"`,
		Short: "Run one task through an agent; file writes are staged in a changeset",
		Long: "Runs the agent loop on one task. Progress streams to stderr; the outcome, the changeset id\n" +
			"and the verifier's verdict go to stdout. Nothing is written to your files: review the\n" +
			"changeset with `nova changes show ID` and apply it with `nova changes apply ID`.\n" +
			"Commands the agent wants to run are put to you (y/N) below autonomy 4, unless --yes.\n" +
			"Exit code 1 when the run fails.",
		Args: exactArgs(2, `an agent id and a task ("nova agent run MARS \"add a health check\"")`),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(args[1]) == "" {
				return usagef("the task is empty")
			}
			if opts.Tier != "" && !slices.Contains(chatTiers, strings.ToLower(opts.Tier)) {
				return badValue("tier", opts.Tier, chatTiers)
			}
			opts.Agent, opts.Task = args[0], args[1]
			return pick(runF, runAgentRun)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Tier, "tier", "", "start on this model tier (small, medium or large) instead of the agent's")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the run (outcome, tokens, changeset, verdict) as JSON")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "approve the agent's allowlisted commands without asking")
	return cmd
}

func runAgentRun(ctx context.Context, opts *agentRunOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		op := engine.NewOp()
		ro := engine.RunOptions{Tier: opts.Tier, Op: op}
		if opts.Yes {
			ro.Approvals = engine.ApproveAll
		}
		// Follow this run's events: progress on stderr, approvals put to the user.
		subCtx, stopSub := context.WithCancel(context.WithoutCancel(ctx))
		defer stopSub()
		// followEvents subscribes again when the owner drops this stream
		// (the process was suspended and fell behind).
		events := followEvents(subCtx, ws)
		p := &progress{io: opts.IO}
		followed := make(chan struct{})
		go func() {
			defer close(followed)
			for ev := range events {
				if ev.Type == engine.EventDropped {
					opts.IO.Logf("%s (reconnected; progress lines in between are lost)\n", ev.Text)
					continue
				}
				if ev.Op != op || ev.Topic != engine.TopicAgent {
					continue
				}
				if ev.Type == engine.EventNeedsApproval && ev.Approval != nil && !opts.Yes {
					req := *ev.Approval
					go func() {
						ok, err := opts.Prompt(ctx, approvalQuestion(req))
						if err == nil {
							err = ws.AnswerApproval(ctx, req.ID, ok)
						}
						if err != nil && !engine.IsCanceled(err) {
							opts.IO.Logf("approval %s: %v\n", req.ID, err)
						}
					}()
					continue
				}
				if ev.Agent != nil {
					p.event(*ev.Agent)
				}
				if ev.Type == engine.EventDone || ev.Type == engine.EventFailed {
					return
				}
			}
		}()
		res, err := ws.RunAgent(ctx, opts.Agent, opts.Task, ro)
		if err == nil {
			// The run's last events may still be on their way (a remote
			// workspace): let them print before the outcome.
			select {
			case <-followed:
			case <-time.After(2 * time.Second):
			}
		}
		stopSub()
		if err != nil {
			if engine.IsCanceled(err) {
				opts.IO.Logf("canceled\n")
				return &reportedError{msg: "canceled"}
			}
			if errors.Is(err, agents.ErrUnknownAgent) {
				return fmt.Errorf("%w\n(list the agents with `nova agents list`)", err)
			}
			return err
		}
		if opts.JSON {
			if err := opts.IO.PrintJSON(res); err != nil {
				return err
			}
		} else {
			printRun(opts.IO, res)
		}
		if !res.Outcome.OK {
			return &reportedError{msg: "agent run failed"}
		}
		return nil
	})
}

func approvalQuestion(req tools.ApprovalRequest) string {
	if req.Dir == "" && req.Tool != tools.NameRunCommand {
		// An MCP tool: Command is "server.tool {args}".
		return fmt.Sprintf("%s wants to call the MCP tool `%s`. Allow?", req.Agent, req.Command)
	}
	dir := req.Dir
	if dir == "." {
		dir = "the workspace root"
	}
	if req.Unvetted != "" {
		// Arguments nova cannot vouch for: say which, so the user can judge.
		return fmt.Sprintf("%s wants to run `%s` in %s (careful: %s). Allow?", req.Agent, req.Command, dir, req.Unvetted)
	}
	return fmt.Sprintf("%s wants to run `%s` in %s. Allow?", req.Agent, req.Command, dir)
}

// printRun writes a run's outcome for people.
func printRun(io *IOStreams, r engine.RunResult) {
	m := r.Outcome.Meta
	stats := fmt.Sprintf("%s, %d steps, %d tool calls, %d+%d tokens, tier %s",
		m.Duration.Round(10*time.Millisecond), m.Steps, m.ToolCalls, m.PromptTokens, m.EvalTokens, m.Tier)
	if m.Escalations > 0 {
		stats += ", " + plural(m.Escalations, "escalation", "escalations")
	}
	if r.Outcome.OK {
		io.Printf("✓ %s finished run %d: %s (%s)\n\n%s\n\n", r.Agent, r.ID,
			agents.DisplayStatus(string(r.Status), len(r.Files), r.Verified), stats, r.Outcome.Result)
	} else {
		f := r.Outcome.Failure
		io.Printf("✗ %s failed run %d: %s (%s)\n  %s\n", r.Agent, r.ID, failureLabel(f), stats, f.Message)
		if f.Hypothesis != "" {
			io.Printf("  likely cause: %s\n", f.Hypothesis)
		}
		if len(f.HintNotes) > 0 {
			io.Printf("  next:\n")
			for _, n := range f.HintNotes {
				io.Printf("    %s: %s\n", n.Action, n.Note)
			}
		} else if len(f.RecoveryHints) > 0 {
			hints := make([]string, len(f.RecoveryHints))
			for i, h := range f.RecoveryHints {
				hints[i] = string(h)
			}
			io.Printf("  hints: %s\n", strings.Join(hints, ", "))
		}
		if f.PartialResult != "" {
			io.Printf("  partial result:\n%s\n", indent(f.PartialResult, "    "))
		}
		io.Printf("\n")
	}
	if r.ChangesetID != 0 {
		io.Printf("changeset %d: %s staged: %s\n  review: nova changes show %d\n  apply:  nova changes apply %d\n",
			r.ChangesetID, plural(len(r.Files), "file", "files"), strings.Join(r.Files, ", "), r.ChangesetID, r.ChangesetID)
	} else {
		io.Printf("changeset: none (no files were changed)\n")
	}
	io.Printf("verdict: %s\n", r.Verdict.Status)
	for _, c := range r.Verdict.Checks {
		io.Printf("  %-12s %-13s %s: %s\n", c.Status, c.Tier, c.Subject, c.Detail)
	}
	if agents.DisplayStatus(string(r.Status), len(r.Files), r.Verified) != string(r.Status) {
		io.Printf("status: done (unverified): nothing ran the changed code and passed; " +
			"add the project's build and test commands to checks: in .nova/config.yaml (`nova doctor` suggests them)\n")
	}
}

// failureLabel names a run failure for people: its class in nova's one list
// of failure kinds (engine/failure: what caused it, so what happens next),
// then the agent-level kind and the cause, e.g. "misconfigured
// (prompt_too_long)" or "workFailed (stuck/max_steps)". The agent-level kind
// "unknown" (a model-call failure) is left out: the class says it better.
func failureLabel(f *agents.Failure) string {
	detail := f.Cause
	if f.Kind != "" && f.Kind != agents.FailUnknown {
		detail = string(f.Kind)
		if f.Cause != "" {
			detail += "/" + f.Cause
		}
	}
	label := string(f.FailureKind())
	if detail != "" {
		label += " (" + detail + ")"
	}
	return label
}

// progress prints a run's events on stderr, one line each (no token
// deltas: the outcome on stdout carries the text).
type progress struct {
	mu sync.Mutex
	io *IOStreams
}

func (p *progress) event(ev agents.Event) {
	var line string
	switch ev.Type {
	case agents.EventStart:
		line = fmt.Sprintf("▶ %s (run %d, %s tier, %s): %s", ev.Agent, ev.RunID, ev.Tier, ev.Model, clipLine(ev.Text, 100))
	case agents.EventToolCall:
		line = fmt.Sprintf("  → %s %s", ev.Tool, clipLine(ev.Args, 110))
		if ev.Text != "" { // "tool call read from text (form …)"
			line += " [" + ev.Text + "]"
		}
	case agents.EventToolResult:
		mark := "✓"
		if ev.Status != string(tools.StatusOK) {
			mark = "✗"
		}
		line = fmt.Sprintf("    %s %s: %s", mark, ev.Status, clipLine(ev.Text, 110))
	case agents.EventFeedback:
		line = "  ! reply rejected (" + strings.ReplaceAll(ev.Status, "_", " ") + "), sent back to the model"
	case agents.EventReflect, agents.EventCompress, agents.EventTextMode:
		line = "  … " + ev.Text
	case agents.EventEscalate:
		line = "  ↑ " + ev.Text
	case agents.EventFit:
		line = "  ✂ " + ev.Text
	case agents.EventApproval:
		line = fmt.Sprintf("  approval %s: %s", ev.Status, ev.Args)
	case agents.EventCheck:
		switch ev.Status {
		case "running":
			line = "  ⚙ " + ev.Text
		case "passed":
			line = "    ✓ " + clipLine(ev.Text, 110)
		default:
			line = "    ✗ " + clipLine(ev.Text, 110)
		}
	default:
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.io.Logf("%s\n", line)
}
