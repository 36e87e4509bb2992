package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/tools"
)

func (a *app) agentCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "agent", Short: "Run one task through an agent"}
	var (
		tier   string
		asJSON bool
		yes    bool
	)
	run := &cobra.Command{
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
			ws, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			p := &progress{w: a.stderr}
			opts := engine.RunOptions{Tier: tier, OnEvent: p.event}
			if yes {
				opts.Approve = func(context.Context, tools.ApprovalRequest) (bool, error) { return true, nil }
			} else {
				opts.Approve = a.promptApproval
			}
			res, err := ws.RunAgent(cmd.Context(), args[0], args[1], opts)
			if err != nil {
				if engine.IsCanceled(err) {
					a.logf("canceled\n")
					return &reportedError{msg: "canceled"}
				}
				if errors.Is(err, agents.ErrUnknownAgent) {
					return fmt.Errorf("%w\n(list the agents with `nova agents list`)", err)
				}
				return err
			}
			if asJSON {
				if err := a.printJSON(res); err != nil {
					return err
				}
			} else {
				a.printRun(res)
			}
			if !res.Outcome.OK {
				return &reportedError{msg: "agent run failed"}
			}
			return nil
		},
	}
	run.Flags().StringVar(&tier, "tier", "", "start on this model tier (small, medium, large) instead of the agent's")
	run.Flags().BoolVar(&asJSON, "json", false, "print the run (outcome, tokens, changeset, verdict) as JSON")
	run.Flags().BoolVarP(&yes, "yes", "y", false, "approve the agent's allowlisted commands without asking")
	cmd.AddCommand(run)
	return cmd
}

// printRun writes a run's outcome for people.
func (a *app) printRun(r engine.RunResult) {
	m := r.Outcome.Meta
	stats := fmt.Sprintf("%s, %d steps, %d tool calls, %d+%d tokens, tier %s",
		m.Duration.Round(10*time.Millisecond), m.Steps, m.ToolCalls, m.PromptTokens, m.EvalTokens, m.Tier)
	if m.Escalations > 0 {
		stats += fmt.Sprintf(", %d escalation(s)", m.Escalations)
	}
	if r.Outcome.OK {
		a.printf("✓ %s finished run %d (%s)\n\n%s\n\n", r.Agent, r.ID, stats, r.Outcome.Result)
	} else {
		f := r.Outcome.Failure
		kind := string(f.Kind)
		if f.Cause != "" {
			kind += "/" + f.Cause
		}
		a.printf("✗ %s failed run %d: %s (%s)\n  %s\n", r.Agent, r.ID, kind, stats, f.Message)
		if len(f.RecoveryHints) > 0 {
			hints := make([]string, len(f.RecoveryHints))
			for i, h := range f.RecoveryHints {
				hints[i] = string(h)
			}
			a.printf("  hints: %s\n", strings.Join(hints, ", "))
		}
		if f.PartialResult != "" {
			a.printf("  partial result:\n%s\n", indent(f.PartialResult, "    "))
		}
		a.printf("\n")
	}
	if r.ChangesetID != 0 {
		a.printf("changeset %d: %d file(s) staged: %s\n  review: nova changes show %d\n  apply:  nova changes apply %d\n",
			r.ChangesetID, len(r.Files), strings.Join(r.Files, ", "), r.ChangesetID, r.ChangesetID)
	} else {
		a.printf("changeset: none (no files were changed)\n")
	}
	a.printf("verdict: %s\n", r.Verdict.Status)
	for _, c := range r.Verdict.Checks {
		a.printf("  %-12s %-13s %s: %s\n", c.Status, c.Tier, c.Subject, c.Detail)
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// progress prints a run's events on stderr, one line each (no token
// deltas: the outcome on stdout carries the text).
type progress struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *progress) event(ev agents.Event) {
	var line string
	switch ev.Type {
	case agents.EventStart:
		line = fmt.Sprintf("▶ %s (run %d, %s tier, %s): %s", ev.Agent, ev.RunID, ev.Tier, ev.Model, clipLine(ev.Text, 100))
	case agents.EventToolCall:
		line = fmt.Sprintf("  → %s %s", ev.Tool, clipLine(ev.Args, 110))
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
	case agents.EventApproval:
		line = fmt.Sprintf("  approval %s: %s", ev.Status, ev.Args)
	default:
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = fmt.Fprintln(p.w, line)
}

func clipLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

var (
	stdinOnce   sync.Once
	stdinReader *bufio.Reader
	promptMu    sync.Mutex
)

func stdin() *bufio.Reader {
	stdinOnce.Do(func() { stdinReader = bufio.NewReader(os.Stdin) })
	return stdinReader
}

// confirm asks a yes/no question on stderr and reads the answer from stdin;
// anything but y/yes (including end of input) is no.
func (a *app) confirm(ctx context.Context, question string) (bool, error) {
	promptMu.Lock()
	defer promptMu.Unlock()
	a.logf("%s [y/N] ", question)
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		line, err := stdin().ReadString('\n')
		ch <- answer{line, err}
	}()
	select {
	case <-ctx.Done():
		a.logf("\n")
		return false, ctx.Err()
	case ans := <-ch:
		if ans.err != nil && ans.line == "" {
			a.logf("\n")
			return false, nil
		}
		switch strings.ToLower(strings.TrimSpace(ans.line)) {
		case "y", "yes":
			return true, nil
		}
		return false, nil
	}
}

// promptApproval is the CLI's answer to a runCommand approval request.
func (a *app) promptApproval(ctx context.Context, req tools.ApprovalRequest) (bool, error) {
	dir := req.Dir
	if dir == "." {
		dir = "the workspace root"
	}
	return a.confirm(ctx, fmt.Sprintf("%s wants to run `%s` in %s. Allow?", req.Agent, req.Command, dir))
}
