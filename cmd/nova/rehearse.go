package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/rehearsal"
)

// rehearseCmd is `nova rehearse PRD TASK_ID`: a forced rehearsal of one
// task, printed as a session.
func (a *app) rehearseCmd() *cobra.Command {
	var (
		asJSON   bool
		branches int
	)
	cmd := &cobra.Command{
		Use:   "rehearse PRD TASK_ID",
		Short: "Rehearse one task of a PRD: generate, score and store 2–3 alternative branches",
		Long: "Generates branches concurrently (minimal, idiomatic, defensive), scores them and stores the\n" +
			"session. Below autonomy 3 the session waits for `nova rehearsal approve|reject` or the TUI;\n" +
			"at autonomy 3 and above the best branch is applied. Needs the premium tier.",
		Args: exactArgs(2, "a PRD file and a task id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if branches != 0 && (branches < 2 || branches > rehearsal.MaxBranches) {
				return usagef("--branches must be 2 or 3, got %d", branches)
			}
			p, err := prd.Load(args[0])
			if err != nil {
				return err
			}
			t, ok := p.Task(args[1])
			if !ok {
				return usagef("task %q is not in %s", args[1], args[0])
			}
			ws, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			a.logf("rehearsing task %s (%s)…\n", t.ID, t.Title)
			ss, err := ws.Rehearsals().Rehearse(cmd.Context(), rehearsal.Request{
				Task: t, Agent: t.Agent, Branches: branches, Force: true, ApplyAuto: true,
			})
			if err != nil {
				if asJSON && ss.ID != 0 {
					_ = a.printJSON(ss)
					return &reportedError{msg: err.Error()}
				}
				return err
			}
			if asJSON {
				return a.printJSON(ss)
			}
			a.printf("%s", rehearsal.FormatSummary(ss))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session as JSON")
	cmd.Flags().IntVar(&branches, "branches", 0, "number of branches, 2 or 3 (default: config rehearsal.branches)")
	return cmd
}

// rehearsalCmd is `nova rehearsal list|show|approve|reject`.
func (a *app) rehearsalCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "rehearsal", Short: "List, show, approve and reject rehearsal sessions"}
	var (
		asJSON bool
		status string
		yes    bool
		force  bool
		reason string
	)
	list := &cobra.Command{
		Use:   "list",
		Short: "List rehearsal sessions, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch rehearsal.Status(status) {
			case "", rehearsal.StatusPending, rehearsal.StatusApproved, rehearsal.StatusRejected, rehearsal.StatusFailed:
			default:
				return usagef("--status must be pending, approved, rejected or failed, got %q", status)
			}
			ws, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			list, err := ws.Rehearsals().List(cmd.Context(), rehearsal.Filter{Status: rehearsal.Status(status)})
			if err != nil {
				return err
			}
			if asJSON {
				out := make([]rehearsal.Session, len(list))
				for i, s := range list {
					out[i] = rehearsal.Brief(s)
				}
				return a.printJSON(out)
			}
			if len(list) == 0 {
				a.printf("no rehearsals\n")
				return nil
			}
			a.printf("%-5s %-9s %-10s %-8s %-9s %-6s %-17s %s\n", "ID", "STATUS", "TASK", "AGENT", "BRANCHES", "BEST", "CREATED", "WINNER")
			for _, s := range list {
				best := "-"
				if r := s.Ranked(); len(r) > 0 {
					best = fmt.Sprintf("%.2f", r[0].Score)
				}
				a.printf("%-5d %-9s %-10s %-8s %-9d %-6s %-17s %s\n", s.ID, s.Status, clipLine(s.TaskID, 10), clipLine(s.AgentName, 8),
					len(s.Branches), best, s.CreatedAt.Local().Format("2006-01-02 15:04"), winnerText(s))
			}
			return nil
		},
	}
	list.Flags().StringVar(&status, "status", "", "only pending, approved, rejected or failed sessions")

	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show a session: branches, scores with evidence, decision",
		Args:  exactArgs(1, "a rehearsal id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseSessionID(args[0])
			if err != nil {
				return err
			}
			ws, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			ss, err := ws.Rehearsals().Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(ss)
			}
			a.printf("%s", rehearsal.FormatSummary(ss))
			for i, b := range ss.Branches {
				r, _ := ss.Result(b.ID)
				a.printf("\nbranch %d %s (%s)\n", i+1, b.ID, b.Approach)
				for _, d := range []struct {
					n string
					d rehearsal.Dimension
				}{{"typeCheck", r.TypeCheck}, {"lineDelta", r.LineDelta}, {"selfAssessment", r.SelfAssessment}, {"tasteAlignment", r.TasteAlignment}} {
					a.printf("  %-15s %.2f  %s\n", d.n, d.d.Score, d.d.Evidence)
				}
				for _, f := range b.Files {
					mark := "~"
					if f.New {
						mark = "+"
					}
					a.printf("  %s %s\n", mark, f.Path)
				}
				if b.AgentNotes != "" {
					a.printf("  notes: %s\n", clipLine(b.AgentNotes, 100))
				}
			}
			return nil
		},
	}

	approve := &cobra.Command{
		Use:   "approve ID BRANCH",
		Short: "Write one branch's files through the changeset path (BRANCH: branch id or 1-based number)",
		Args:  exactArgs(2, "a rehearsal id and a branch"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseSessionID(args[0])
			if err != nil {
				return err
			}
			ws, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			svc := ws.Rehearsals()
			ss, err := svc.Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			if !ss.Pending() {
				return fmt.Errorf("rehearsal %d is %s; only pending sessions can be approved", id, ss.Status)
			}
			b, ok := ss.Branch(args[1])
			if !ok {
				return usagef("rehearsal %d has no branch %q (%s)", id, args[1], branchList(ss))
			}
			var paths []string
			for _, f := range b.Files {
				paths = append(paths, f.Path)
			}
			if ok, err := a.confirmChange(cmd, yes, fmt.Sprintf("Approve branch %s of rehearsal %d and write %d file(s): %s?",
				b.ID, id, len(paths), strings.Join(paths, ", ")), "apply"); !ok || err != nil {
				return err
			}
			ss, err = svc.Approve(cmd.Context(), id, b.ID, rehearsal.ApproveOptions{Reason: reason, Force: force})
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(ss)
			}
			a.printf("approved %s (%s); wrote %s\n", b.ID, b.Approach, strings.Join(ss.Written, ", "))
			if ss.PreferenceID != 0 {
				a.printf("learned preference #%d\n", ss.PreferenceID)
			}
			return nil
		},
	}
	approve.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	approve.Flags().BoolVar(&force, "force", false, "overwrite files that changed on disk since the rehearsal")

	reject := &cobra.Command{
		Use:   "reject ID",
		Short: "Reject every branch of a session (the task is blocked with the reason)",
		Args:  exactArgs(1, "a rehearsal id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseSessionID(args[0])
			if err != nil {
				return err
			}
			ws, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			ss, err := ws.Rehearsals().Reject(cmd.Context(), id, reason)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(ss)
			}
			a.printf("rejected rehearsal %d: %s\n", id, ss.Reason)
			return nil
		},
	}
	for _, c := range []*cobra.Command{approve, reject} {
		c.Flags().StringVar(&reason, "reason", "", "why (stored with the decision and learned)")
	}
	for _, c := range []*cobra.Command{list, show, approve, reject} {
		c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
		cmd.AddCommand(c)
	}
	return cmd
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

func parseSessionID(s string) (uint64, error) {
	id, ok := positiveID(s)
	if !ok {
		return 0, usagef("%q is not a rehearsal id (a positive number, see `nova rehearsal list`)", s)
	}
	return id, nil
}
