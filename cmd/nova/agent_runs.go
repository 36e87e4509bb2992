package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
)

// `nova agent runs list|show`: the stored agent runs and, for one run,
// each tool call it made (arguments, status, result, timing, the rule an
// edit matched by and the text form a call was read from).

func newAgentRunsCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "runs", Short: "List stored agent runs and show one run's tool calls"}
	cmd.AddCommand(newAgentRunsListCmd(env, nil), newAgentRunsShowCmd(env, nil))
	return cmd
}

// agentRunsOptions is `nova agent runs list|show`.
type agentRunsOptions struct {
	*Env
	Agent string
	Limit int
	ID    uint64
	JSON  bool
}

func newAgentRunsListCmd(env *Env, runF func(context.Context, *agentRunsOptions) error) *cobra.Command {
	opts := &agentRunsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List stored agent runs, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Limit < 0 {
				return usagef("--limit must be 0 (all) or more, got %d", opts.Limit)
			}
			return pick(runF, runAgentRunsList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "only this agent's runs")
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "at most this many runs (0: all)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runAgentRunsList(ctx context.Context, opts *agentRunsOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		runs, err := ws.ListRuns(ctx, agents.RunFilter{Agent: opts.Agent, Limit: opts.Limit})
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(runs)
		}
		if len(runs) == 0 {
			opts.IO.Printf("no agent runs yet (start one: nova agent run AGENT \"TASK\")\n")
			return nil
		}
		for _, r := range runs {
			status := agents.DisplayStatus(string(r.Status), len(r.Files), r.Verified)
			where := ""
			if r.BuildID != "" {
				where = fmt.Sprintf("  build %s/%s", r.BuildID, r.TaskID)
			}
			opts.IO.Printf("%4d  %-12s %-18s %-6s %s  %s%s\n", r.ID, r.Agent, status, r.Tier,
				r.StartedAt.Local().Format("2006-01-02 15:04"), clipLine(r.Label(), 60), where)
		}
		opts.IO.Printf("details and tool calls: nova agent runs show ID\n")
		return nil
	})
}

func newAgentRunsShowCmd(env *Env, runF func(context.Context, *agentRunsOptions) error) *cobra.Command {
	opts := &agentRunsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one agent run and each tool call it made",
		Args:  exactArgs(1, "a run id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "run", "nova agent runs list")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runAgentRunsShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the run, its traces and their readable lines as JSON")
	return cmd
}

func runAgentRunsShow(ctx context.Context, opts *agentRunsOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		rt, err := ws.GetRunTrace(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(rt)
		}
		r := rt.Run
		p := opts.IO.Printf
		p("run %d: %s, %s (tier %s, %s)\n", r.ID, r.Agent, agents.DisplayStatus(string(r.Status), len(r.Files), r.Verified), r.Tier, r.Model)
		if r.Title != "" {
			p("request: %s\n", clipLine(r.Title, 200))
		} else {
			p("task: %s\n", clipLine(r.Task, 200))
		}
		if r.BuildID != "" {
			p("build: %s, task %s\n", r.BuildID, r.TaskID)
		}
		if !r.FinishedAt.IsZero() {
			p("took: %s\n", r.FinishedAt.Sub(r.StartedAt).Round(time.Millisecond))
		}
		if r.Progress != nil {
			p("progress: %s\n", r.Progress.Line())
		}
		if f := r.Outcome.Failure; f != nil {
			p("failed: %s: %s\n", failureLabel(f), clipLine(f.Message, 200))
			if f.Hypothesis != "" {
				p("likely cause: %s\n", f.Hypothesis)
			}
			for _, n := range f.HintNotes {
				p("  %s: %s\n", n.Action, n.Note)
			}
		}
		if r.Verdict.Status != "" {
			p("verdict: %s\n", r.Verdict.Status)
		}
		if r.ChangesetID != 0 {
			p("changeset: %d (%s)\n", r.ChangesetID, strings.Join(r.Files, ", "))
		}
		p("\n%s:\n", plural(len(rt.Lines), "tool call", "tool calls"))
		for _, l := range rt.Lines {
			p("%s\n", traceText(l))
		}
		return nil
	})
}

// traceText is one tool call for people, a header line and indented
// details.
func traceText(l agents.TraceLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d step %d  %s  %s  %s", l.ID, l.Step, l.Tool, l.Status, shortDuration(l.Duration))
	if l.Via != "" {
		fmt.Fprintf(&b, "  via %s", l.Via)
	}
	if l.Rule != "" {
		fmt.Fprintf(&b, "  rule %s", l.Rule)
	}
	if l.Edit != "" {
		fmt.Fprintf(&b, "  edit %s", l.Edit)
	}
	fmt.Fprintf(&b, "\n  args:   %s", clipLine(l.Args, 200))
	fmt.Fprintf(&b, "\n  result: %s", clipLine(l.Result, 300))
	return b.String()
}

// shortDuration rounds to milliseconds, or microseconds under one.
func shortDuration(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
