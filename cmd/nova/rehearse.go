package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/rehearsal"
)

// rehearseOptions is `nova rehearse PRD TASK_ID`: a forced rehearsal of one
// task, printed as a session.
type rehearseOptions struct {
	*Env
	PRD, TaskID string
	Branches    int
	JSON        bool
}

func newRehearseCmd(env *Env, runF func(context.Context, *rehearseOptions) error) *cobra.Command {
	opts := &rehearseOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "rehearse PRD TASK_ID",
		Short: "Rehearse one task of a PRD: generate, score and store 2–3 alternative branches",
		Long: "Generates branches concurrently (minimal, idiomatic, defensive), scores them and stores the\n" +
			"session. Below autonomy 3 the session waits for `nova rehearsal approve|reject` or the TUI;\n" +
			"at autonomy 3 and above the best branch is applied. Needs the premium tier.",
		Args: exactArgs(2, "a PRD file and a task id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Branches != 0 && (opts.Branches < 2 || opts.Branches > rehearsal.MaxBranches) {
				return usagef("--branches must be 2 or 3, got %d", opts.Branches)
			}
			opts.PRD, opts.TaskID = args[0], args[1]
			return pick(runF, runRehearse)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the session as JSON")
	cmd.Flags().IntVar(&opts.Branches, "branches", 0, "number of branches, 2 or 3 (default: config rehearsal.branches)")
	return cmd
}

func runRehearse(ctx context.Context, opts *rehearseOptions) error {
	p, err := prd.Load(opts.abs(opts.PRD))
	if err != nil {
		return err
	}
	t, ok := p.Task(opts.TaskID)
	if !ok {
		ids := make([]string, len(p.Tasks))
		for i, x := range p.Tasks {
			ids[i] = x.ID
		}
		return usagef("task %q is not in %s (its tasks: %s)", opts.TaskID, opts.PRD, strings.Join(ids, ", "))
	}
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		// What would refuse the rehearsal is said before it is announced.
		if err := rehearsal.CheckTier(ws.Config().Tier); err != nil {
			return err
		}
		if r, err := ws.ListAgents(ctx); err == nil {
			ids := make([]string, 0, len(r.Agents))
			known := false
			for _, a := range r.Agents {
				ids = append(ids, a.ID)
				known = known || strings.EqualFold(a.ID, t.Agent)
			}
			if !known {
				return fmt.Errorf("task %s names agent %q, which is not on the team (the agents: %s)", t.ID, t.Agent, strings.Join(ids, ", "))
			}
		}
		opts.IO.Logf("rehearsing task %s (%s)…\n", t.ID, t.Title)
		ss, err := ws.Rehearse(ctx, rehearsal.Request{
			Task: t, Agent: t.Agent, Branches: opts.Branches, Force: true, ApplyAuto: true,
		})
		if err != nil {
			if opts.JSON && ss.ID != 0 {
				_ = opts.IO.PrintJSON(ss)
				return &reportedError{msg: err.Error()}
			}
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(ss)
		}
		opts.IO.Printf("%s", rehearsal.FormatSummary(ss))
		return nil
	})
}

// rehearsalCmd is `nova rehearsal list|show|approve|reject`.
func newRehearsalCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "rehearsal", Short: "List, show, approve and reject rehearsal sessions"}
	cmd.AddCommand(newRehearsalListCmd(env, nil), newRehearsalShowCmd(env, nil),
		newRehearsalApproveCmd(env, nil), newRehearsalRejectCmd(env, nil))
	return cmd
}

func sessionID(s string) (uint64, error) { return parseID(s, "rehearsal", "nova rehearsal list") }

// rehearsalListOptions is `nova rehearsal list`.
type rehearsalListOptions struct {
	*Env
	Status rehearsal.Status
	JSON   bool
}

func newRehearsalListCmd(env *Env, runF func(context.Context, *rehearsalListOptions) error) *cobra.Command {
	opts := &rehearsalListOptions{Env: env}
	var status string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List rehearsal sessions, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch rehearsal.Status(status) {
			case "", rehearsal.StatusPending, rehearsal.StatusApproved, rehearsal.StatusRejected, rehearsal.StatusFailed:
			default:
				return badValue("status", status, []string{"pending", "approved", "rejected", "failed"})
			}
			opts.Status = rehearsal.Status(status)
			return pick(runF, runRehearsalList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only pending, approved, rejected or failed sessions")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runRehearsalList(ctx context.Context, opts *rehearsalListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.ListRehearsals(ctx, rehearsal.Filter{Status: opts.Status})
		if err != nil {
			return err
		}
		if opts.JSON {
			if list == nil {
				list = []rehearsal.Session{}
			}
			return opts.IO.PrintJSON(list)
		}
		if len(list) == 0 {
			opts.IO.Printf("no rehearsals\n")
			return nil
		}
		opts.IO.Printf("%-5s %-9s %-10s %-8s %-9s %-6s %-17s %s\n", "ID", "STATUS", "TASK", "AGENT", "BRANCHES", "BEST", "CREATED", "WINNER")
		for _, s := range list {
			best := "-"
			if r := s.Ranked(); len(r) > 0 {
				best = fmt.Sprintf("%.2f", r[0].Score)
			}
			opts.IO.Printf("%-5d %-9s %-10s %-8s %-9d %-6s %-17s %s\n", s.ID, s.Status, clipLine(s.TaskID, 10), clipLine(s.AgentName, 8),
				len(s.Branches), best, s.CreatedAt.Local().Format("2006-01-02 15:04"), winnerText(s))
		}
		return nil
	})
}

// rehearsalShowOptions is `nova rehearsal show ID`.
type rehearsalShowOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newRehearsalShowCmd(env *Env, runF func(context.Context, *rehearsalShowOptions) error) *cobra.Command {
	opts := &rehearsalShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a session: branches, scores with evidence, decision",
		Args:  exactArgs(1, "a rehearsal id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := sessionID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runRehearsalShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runRehearsalShow(ctx context.Context, opts *rehearsalShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		ss, err := ws.GetRehearsal(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(ss)
		}
		p := opts.IO.Printf
		p("%s", rehearsal.FormatSummary(ss))
		for i, b := range ss.Branches {
			r, _ := ss.Result(b.ID)
			p("\nbranch %d %s (%s)\n", i+1, b.ID, b.Approach)
			for _, d := range []struct {
				n string
				d rehearsal.Dimension
			}{{"typeCheck", r.TypeCheck}, {"lineDelta", r.LineDelta}, {"selfAssessment", r.SelfAssessment}, {"tasteAlignment", r.TasteAlignment}} {
				p("  %-15s %s  %s\n", d.n, d.d.ScoreText(), d.d.Evidence)
			}
			for _, f := range b.Files {
				mark := "~"
				if f.New {
					mark = "+"
				}
				p("  %s %s\n", mark, f.Path)
			}
			if b.AgentNotes != "" {
				p("  notes: %s\n", clipLine(b.AgentNotes, 100))
			}
		}
		return nil
	})
}

// rehearsalDecideOptions is `nova rehearsal approve ID BRANCH` and
// `nova rehearsal reject ID` (both ask first).
type rehearsalDecideOptions struct {
	*Env
	ID     uint64
	Branch string // approve only
	Reason string
	Force  bool // approve only
	Yes    bool
	JSON   bool
}

func newRehearsalApproveCmd(env *Env, runF func(context.Context, *rehearsalDecideOptions) error) *cobra.Command {
	opts := &rehearsalDecideOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "approve ID BRANCH",
		Short: "Write one branch's files through the changeset path (BRANCH: branch id or 1-based number)",
		Args:  exactArgs(2, "a rehearsal id and a branch"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := sessionID(args[0])
			if err != nil {
				return err
			}
			opts.ID, opts.Branch = id, args[1]
			return pick(runF, runRehearsalApprove)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite files that changed on disk since the rehearsal")
	rehearsalDecideFlags(cmd, opts)
	return cmd
}

func rehearsalDecideFlags(cmd *cobra.Command, opts *rehearsalDecideOptions) {
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "why (stored with the decision and learned)")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
}

func runRehearsalApprove(ctx context.Context, opts *rehearsalDecideOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		id := opts.ID
		ss, err := ws.GetRehearsal(ctx, id)
		if err != nil {
			return err
		}
		if !ss.Pending() {
			return fmt.Errorf("rehearsal %d is %s; only pending sessions can be approved", id, ss.Status)
		}
		b, ok := ss.Branch(opts.Branch)
		if !ok {
			return usagef("rehearsal %d has no branch %q (%s)", id, opts.Branch, branchList(ss))
		}
		var paths []string
		for _, f := range b.Files {
			paths = append(paths, f.Path)
		}
		q := fmt.Sprintf("Approve branch %s of rehearsal %d and write %s: %s?", b.ID, id, plural(len(paths), "file", "files"), strings.Join(paths, ", "))
		if err := opts.confirm(ctx, opts.Yes, q, "apply", "applied"); err != nil {
			return err
		}
		ss, err = ws.ApproveRehearsal(ctx, id, b.ID, rehearsal.ApproveOptions{Reason: opts.Reason, Force: opts.Force})
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(ss)
		}
		opts.IO.Printf("approved %s (%s); wrote %s\n", b.ID, b.Approach, strings.Join(ss.Written, ", "))
		if ss.PreferenceID != 0 {
			opts.IO.Printf("learned preference #%d\n", ss.PreferenceID)
		}
		return nil
	})
}

func newRehearsalRejectCmd(env *Env, runF func(context.Context, *rehearsalDecideOptions) error) *cobra.Command {
	opts := &rehearsalDecideOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "reject ID",
		Short: "Reject every branch of a session (the task is blocked with the reason; asks first unless --yes)",
		Args:  exactArgs(1, "a rehearsal id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := sessionID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runRehearsalReject)(cmd.Context(), opts)
		},
	}
	rehearsalDecideFlags(cmd, opts)
	return cmd
}

func runRehearsalReject(ctx context.Context, opts *rehearsalDecideOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		ss, err := ws.GetRehearsal(ctx, opts.ID)
		if err != nil {
			return err
		}
		if ss.Pending() { // anything else gets the engine's own error
			q := fmt.Sprintf("Reject all %d branch(es) of rehearsal %d (task %s)?", len(ss.Branches), ss.ID, ss.TaskID)
			if err := opts.confirm(ctx, opts.Yes, q, "reject", "rejected"); err != nil {
				return err
			}
		}
		ss, err = ws.RejectRehearsal(ctx, opts.ID, opts.Reason)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(ss)
		}
		opts.IO.Printf("rejected rehearsal %d: %s\n", opts.ID, ss.Reason)
		return nil
	})
}

func winnerText(s rehearsal.Session) string {
	switch {
	case s.Winner == "":
		return "-"
	case s.Auto:
		return s.Winner + " (auto)"
	}
	return s.Winner
}

func branchList(ss rehearsal.Session) string {
	var out []string
	for i, b := range ss.Branches {
		out = append(out, fmt.Sprintf("%d or %s", i+1, b.ID))
	}
	if len(out) == 0 {
		return "it has no branches"
	}
	return "have " + strings.Join(out, ", ")
}
