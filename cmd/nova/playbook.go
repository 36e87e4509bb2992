package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
)

func (a *app) playbookCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "playbook",
		Short: "Per-agent playbooks: learned rules, versions, pending deltas",
		Long: "Each agent has a playbook of rules learned from build outcomes (ACE: generator, reflector,\n" +
			"curator), written by you, or taken from global wisdom. Every change is a new version with its\n" +
			"diff in the history. Low-confidence self-improvement deltas wait in a queue for your review.",
	}
	cmd.AddCommand(a.playbookListCmd(), a.playbookShowCmd(), a.playbookHistoryCmd(), a.playbookDiffCmd(),
		a.playbookPendingCmd(), a.playbookDecideCmd(true), a.playbookDecideCmd(false),
		a.playbookAddCmd(), a.playbookEditCmd(), a.playbookDeleteCmd(), a.playbookReviewCmd())
	return cmd
}

// withACE opens the workspace and runs fn with its playbook system;
// diagnostics (bad records and the like) go to stderr.
func (a *app) withACE(ctx context.Context, readOnly bool, fn func(ws *engine.Local, s *ace.System) error) error {
	ws, err := a.open(ctx, readOnly)
	if err != nil {
		return err
	}
	defer func() { _ = ws.Close() }()
	ws.SetACELog(a.logf)
	return fn(ws, ws.ACE())
}

func (a *app) playbookListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List playbooks: agent, version, rule count, success rate",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withACE(cmd.Context(), true, func(_ *engine.Local, s *ace.System) error {
				list, err := s.Playbooks().List(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(list)
				}
				if len(list) == 0 {
					a.printf("no playbooks yet (they grow from builds, or `nova playbook add AGENT \"rule\"`)\n")
					return nil
				}
				a.printf("%-10s %-8s %-6s %-6s %s\n", "AGENT", "VERSION", "RULES", "TASKS", "SUCCESS")
				for _, p := range list {
					a.printf("%-10s %-8d %-6d %-6d %s\n", p.Agent, p.Version, p.Rules, p.Tasks, percent(p.SuccessRate, p.Tasks))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func percent(f float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", f*100)
}

// playbookView is `show --json`: the playbook with each rule's success rate.
type playbookView struct {
	ace.Playbook
	SuccessRate float64    `json:"successRate"`
	Rules       []ruleView `json:"rules"`
}

type ruleView struct {
	ace.Rule
	SuccessRate float64 `json:"successRate"`
}

func (a *app) playbookShowCmd() *cobra.Command {
	var (
		asJSON                  bool
		source, kind, tag, sort string
	)
	cmd := &cobra.Command{
		Use:   "show AGENT",
		Short: "Show an agent's rules (filter with --source/--kind/--tag, order with --sort)",
		Args:  exactArgs(1, "an agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if source != "" && !ace.Source(source).Valid() {
				return usagef("--source must be learned, manual or global, got %q", source)
			}
			if kind != "" && !ace.Kind(kind).Valid() {
				return usagef("--kind must be strategy, mistake, preference or pattern, got %q", kind)
			}
			key, err := ace.ParseSortKey(sort)
			if err != nil {
				return usagef("--sort: %v", err)
			}
			return a.withACE(cmd.Context(), true, func(_ *engine.Local, s *ace.System) error {
				p, err := s.Playbooks().GetPlaybook(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				rules := ace.FilterRules(p.Rules, ace.RuleFilter{Source: ace.Source(source), Kind: ace.Kind(kind), Tag: tag}, key)
				view := playbookView{Playbook: p, SuccessRate: p.SuccessRate(), Rules: make([]ruleView, len(rules))}
				for i, r := range rules {
					view.Rules[i] = ruleView{Rule: r, SuccessRate: r.SuccessRate()}
				}
				if asJSON {
					return a.printJSON(view)
				}
				a.printf("%s playbook, version %d: %d rule(s), %d task(s), success %s\n",
					p.Agent, p.Version, len(p.Rules), p.Tasks, percent(p.SuccessRate(), p.Tasks))
				if len(view.Rules) == 0 {
					a.printf("no rules\n")
					return nil
				}
				a.printf("%-6s %-8s %-10s %-5s %-8s %-7s %s\n", "ID", "SOURCE", "KIND", "CONF", "APPLIED", "SUCCESS", "RULE")
				for _, r := range view.Rules {
					a.printf("%-6s %-8s %-10s %-5.2f %-8d %-7s %s\n", r.ID, r.Source, r.Kind, r.Confidence,
						r.AppliedCount, percent(r.SuccessRate, r.AppliedCount), clipLine(r.Content, 70))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&source, "source", "", "only rules from learned, manual or global")
	cmd.Flags().StringVar(&kind, "kind", "", "only strategy, mistake, preference or pattern rules")
	cmd.Flags().StringVar(&tag, "tag", "", "only rules with this tag")
	cmd.Flags().StringVar(&sort, "sort", "", "order by id (default), confidence, applied, success or updated")
	return cmd
}

func (a *app) playbookDiffCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff AGENT FROM TO",
		Short: "Show how an agent's rules changed between two versions",
		Args:  exactArgs(3, "an agent id and two version numbers"),
		RunE: func(cmd *cobra.Command, args []string) error {
			from, err1 := strconv.Atoi(args[1])
			to, err2 := strconv.Atoi(args[2])
			if err1 != nil || err2 != nil || from < 0 || to < from {
				return usagef("FROM and TO must be version numbers with 0 ≤ FROM ≤ TO, got %q %q", args[1], args[2])
			}
			return a.withACE(cmd.Context(), true, func(_ *engine.Local, s *ace.System) error {
				diff, err := s.Playbooks().Diff(cmd.Context(), args[0], from, to)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(diff)
				}
				if len(diff) == 0 {
					a.printf("no changes\n")
					return nil
				}
				a.printChanges(diff)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) printChanges(cs []ace.Change) {
	for _, c := range cs {
		switch c.Op {
		case ace.OpAdd:
			a.printf("  + %s %s\n", c.RuleID, clipLine(c.After.Content, 90))
		case ace.OpRemove:
			a.printf("  - %s %s\n", c.RuleID, clipLine(c.Before.Content, 90))
		default:
			a.printf("  ~ %s %s\n", c.RuleID, clipLine(c.After.Content, 90))
			if c.Before.Content != c.After.Content {
				a.printf("      was: %s\n", clipLine(c.Before.Content, 85))
			}
		}
	}
}

func (a *app) playbookHistoryCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "history AGENT",
		Short: "Show an agent's playbook versions and what each changed, newest first",
		Args:  exactArgs(1, "an agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withACE(cmd.Context(), true, func(_ *engine.Local, s *ace.System) error {
				hist, err := s.Playbooks().History(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(hist)
				}
				if len(hist) == 0 {
					a.printf("no history\n")
					return nil
				}
				for _, v := range hist {
					a.printf("v%d  %s  %s\n", v.Version, v.At.Local().Format("2006-01-02 15:04"), v.Origin)
					a.printChanges(v.Changes)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) playbookPendingCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "pending",
		Short: "List deltas waiting for review",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withACE(cmd.Context(), true, func(_ *engine.Local, s *ace.System) error {
				list, err := s.Playbooks().ListPending(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(list)
				}
				if len(list) == 0 {
					a.printf("no pending deltas\n")
					return nil
				}
				a.printf("%-5s %-10s %-7s %-5s %-8s %s\n", "ID", "AGENT", "OP", "CONF", "ORIGIN", "DELTA")
				for _, p := range list {
					text := p.Delta.Content
					if p.Delta.RuleID != "" {
						text = strings.TrimSpace(p.Delta.RuleID + " " + text)
					}
					a.printf("%-5d %-10s %-7s %-5.2f %-8s %s\n", p.ID, p.Agent, p.Delta.Op, p.Delta.Confidence, p.Origin, clipLine(text, 70))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func parseDeltaID(s string) (uint64, error) {
	id, ok := positiveID(s)
	if !ok {
		return 0, usagef("%q is not a pending delta id (a positive number, see `nova playbook pending`)", s)
	}
	return id, nil
}

func (a *app) playbookDecideCmd(approve bool) *cobra.Command {
	use, short := "approve DELTA", "Apply a pending delta to its playbook (a new version)"
	if !approve {
		use, short = "reject DELTA", "Drop a pending delta"
	}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1, "a pending delta id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseDeltaID(args[0])
			if err != nil {
				return err
			}
			return a.withACE(cmd.Context(), false, func(_ *engine.Local, s *ace.System) error {
				if approve {
					p, err := s.Approve(cmd.Context(), id)
					if err != nil {
						return err
					}
					if asJSON {
						return a.printJSON(map[string]any{"id": id, "approved": true, "agent": p.Agent, "version": p.Version})
					}
					a.printf("approved delta %d: %s playbook is now version %d\n", id, p.Agent, p.Version)
					return nil
				}
				p, err := s.Reject(cmd.Context(), id)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(map[string]any{"id": id, "approved": false, "agent": p.Agent})
				}
				a.printf("rejected delta %d (%s)\n", id, p.Agent)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) playbookAddCmd() *cobra.Command {
	var (
		tags       string
		confidence float64
		asJSON     bool
	)
	cmd := &cobra.Command{
		Use:   `add AGENT "RULE"`,
		Short: "Add a manual rule to an agent's playbook",
		Args:  exactArgs(2, `an agent id and a rule text`),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(args[1]) == "" {
				return usagef("the rule text is empty")
			}
			if confidence < 0 || confidence > 1 {
				return usagef("--confidence must be within 0 and 1, got %g", confidence)
			}
			return a.withACE(cmd.Context(), false, func(_ *engine.Local, s *ace.System) error {
				r, p, err := s.Playbooks().AddRule(cmd.Context(), args[0], args[1], splitTags(tags), confidence)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(r)
				}
				a.printf("added %s to %s (version %d)\n", r.ID, p.Agent, p.Version)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tags, "tags", "", "comma-separated tags")
	cmd.Flags().Float64Var(&confidence, "confidence", 0, "confidence 0–1 (default 0.8)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rule as JSON")
	return cmd
}

func (a *app) playbookEditCmd() *cobra.Command {
	var (
		tags       string
		confidence float64
		asJSON     bool
	)
	cmd := &cobra.Command{
		Use:   `edit AGENT RULE ["NEW TEXT"]`,
		Short: "Change a rule's text, tags or confidence",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 || len(args) > 3 {
				return usagef("expected an agent id, a rule id and optionally a new text, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			text := ""
			if len(args) == 3 {
				text = args[2]
			}
			var tagList []string
			if cmd.Flags().Changed("tags") {
				tagList = splitTags(tags)
				if tagList == nil {
					tagList = []string{}
				}
			}
			if confidence < 0 || confidence > 1 {
				return usagef("--confidence must be within 0 and 1, got %g", confidence)
			}
			if text == "" && tagList == nil && confidence == 0 {
				return usagef("nothing to change: give a new text, --tags or --confidence")
			}
			return a.withACE(cmd.Context(), false, func(_ *engine.Local, s *ace.System) error {
				r, err := s.Playbooks().EditRule(cmd.Context(), args[0], args[1], text, tagList, confidence)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(r)
				}
				a.printf("updated %s\n", r.ID)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tags, "tags", "", "replace the tags (comma-separated)")
	cmd.Flags().Float64Var(&confidence, "confidence", 0, "new confidence 0–1")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rule as JSON")
	return cmd
}

func (a *app) playbookDeleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete AGENT RULE",
		Short: "Delete a rule from an agent's playbook",
		Args:  exactArgs(2, "an agent id and a rule id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withACE(cmd.Context(), false, func(_ *engine.Local, s *ace.System) error {
				if err := s.Playbooks().DeleteRule(cmd.Context(), args[0], args[1]); err != nil {
					return err
				}
				a.printf("deleted %s from %s\n", args[1], strings.ToUpper(args[0]))
				return nil
			})
		},
	}
}

func (a *app) playbookReviewCmd() *cobra.Command {
	var (
		force  bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "review AGENT",
		Short: "Run the self-improvement review of an agent (due after 5 tasks, at most weekly)",
		Args:  exactArgs(1, "an agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withACE(cmd.Context(), false, func(_ *engine.Local, s *ace.System) error {
				rep, err := s.RunReview(cmd.Context(), args[0], force)
				if errors.Is(err, ace.ErrNotDue) {
					if asJSON {
						_ = a.printJSON(rep)
						return &reportedError{msg: err.Error()}
					}
					return fmt.Errorf("%w (use --force)", err)
				}
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(rep)
				}
				a.printf("%s: success %.0f%% over %d task(s), avg gate %.2f; strong %v, weak %v\n", rep.Agent,
					rep.Profile.SuccessRate*100, len(rep.Profile.Window), rep.Profile.AvgGateScore, rep.Profile.Strong, rep.Profile.Weak)
				for _, d := range rep.Curate.Decisions {
					a.printf("  %-8s %.2f %s\n", d.Action, d.Delta.Confidence, clipLine(d.Delta.Content, 80))
				}
				if len(rep.Deltas) == 0 {
					a.printf("  no changes proposed\n")
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "run even when not due")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
