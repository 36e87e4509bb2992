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
	"github.com/nova-dev/nova/engine/agents"
)

func newPlaybookCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "playbook",
		Short: "Per-agent playbooks: learned rules, versions, pending deltas",
		Long: "Each agent has a playbook of rules learned from build outcomes (ACE: generator, reflector,\n" +
			"curator), written by you, or taken from global wisdom. Every change is a new version with its\n" +
			"diff in the history. Low-confidence self-improvement deltas wait in a queue for your review.",
	}
	cmd.AddCommand(newPlaybookListCmd(env, nil), newPlaybookShowCmd(env, nil), newPlaybookHistoryCmd(env, nil),
		newPlaybookDiffCmd(env, nil), newPlaybookPendingCmd(env, nil),
		newPlaybookDecideCmd(env, true, nil), newPlaybookDecideCmd(env, false, nil),
		newPlaybookAddCmd(env, nil), newPlaybookEditCmd(env, nil), newPlaybookDeleteCmd(env, nil), newPlaybookReviewCmd(env, nil))
	return cmd
}

func percent(f float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", f*100)
}

// playbookOptions is a playbook command about one agent (or none): list,
// history, pending.
type playbookOptions struct {
	*Env
	Agent string
	JSON  bool
}

func newPlaybookListCmd(env *Env, runF func(context.Context, *playbookOptions) error) *cobra.Command {
	opts := &playbookOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List playbooks: agent, version, rule count, success rate",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runPlaybookList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runPlaybookList(ctx context.Context, opts *playbookOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.ListPlaybooks(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if list == nil {
				list = []ace.Summary{}
			}
			return opts.IO.PrintJSON(list)
		}
		if len(list) == 0 {
			opts.IO.Printf("no playbooks yet (they grow from builds, or `nova playbook add AGENT \"rule\"`)\n")
			return nil
		}
		opts.IO.Printf("%-10s %-8s %-6s %-6s %s\n", "AGENT", "VERSION", "RULES", "TASKS", "SUCCESS")
		for _, p := range list {
			opts.IO.Printf("%-10s %-8d %-6d %-6d %s\n", p.Agent, p.Version, p.Rules, p.Tasks, percent(p.SuccessRate, p.Tasks))
		}
		return nil
	})
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

// playbookShowOptions is `nova playbook show AGENT`.
type playbookShowOptions struct {
	*Env
	Agent  string
	Filter ace.RuleFilter
	Sort   ace.SortKey
	JSON   bool
}

func newPlaybookShowCmd(env *Env, runF func(context.Context, *playbookShowOptions) error) *cobra.Command {
	opts := &playbookShowOptions{Env: env}
	var source, kind, sort string
	cmd := &cobra.Command{
		Use:   "show AGENT",
		Short: "Show an agent's rules (filter with --source/--kind/--tag, order with --sort)",
		Args:  exactArgs(1, "an agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if source != "" && !ace.Source(source).Valid() {
				return badValue("source", source, []string{"learned", "manual", "global", "vault", "team"})
			}
			if kind != "" && !ace.Kind(kind).Valid() {
				return badValue("kind", kind, []string{"strategy", "mistake", "preference", "pattern"})
			}
			key, err := ace.ParseSortKey(sort)
			if err != nil {
				return badValue("sort", sort, []string{"id", "confidence", "applied", "success", "updated"})
			}
			opts.Agent, opts.Sort = args[0], key
			opts.Filter.Source, opts.Filter.Kind = ace.Source(source), ace.Kind(kind)
			return pick(runF, runPlaybookShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&source, "source", "", "only rules from learned, manual, global, vault (adapted from vault preferences) or team (teammates' shared rules)")
	cmd.Flags().StringVar(&kind, "kind", "", "only strategy, mistake, preference or pattern rules")
	cmd.Flags().StringVar(&opts.Filter.Tag, "tag", "", "only rules with this tag")
	cmd.Flags().StringVar(&sort, "sort", "", "order by id (default), confidence, applied, success or updated")
	return cmd
}

func runPlaybookShow(ctx context.Context, opts *playbookShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		if err := knownAgent(ctx, ws, opts.Agent); err != nil {
			return err
		}
		p, err := ws.GetPlaybook(ctx, opts.Agent)
		if err != nil {
			return err
		}
		rules := ace.FilterRules(p.Rules, opts.Filter, opts.Sort)
		view := playbookView{Playbook: p, SuccessRate: p.SuccessRate(), Rules: make([]ruleView, len(rules))}
		for i, r := range rules {
			view.Rules[i] = ruleView{Rule: r, SuccessRate: r.SuccessRate()}
		}
		if opts.JSON {
			return opts.IO.PrintJSON(view)
		}
		opts.IO.Printf("%s playbook, version %d: %s, %s, success %s\n",
			p.Agent, p.Version, plural(len(p.Rules), "rule", "rules"), plural(p.Tasks, "task", "tasks"), percent(p.SuccessRate(), p.Tasks))
		if len(view.Rules) == 0 {
			opts.IO.Printf("no rules\n")
			return nil
		}
		idW := 6 // team rules' ids are longer (t and 10 hex digits)
		for _, r := range view.Rules {
			idW = max(idW, len(r.ID))
		}
		opts.IO.Printf("%-*s %-8s %-10s %-5s %-8s %-7s %s\n", idW, "ID", "SOURCE", "KIND", "CONF", "APPLIED", "SUCCESS", "RULE")
		for _, r := range view.Rules {
			text := clipLine(r.Content, 70)
			if r.Team != nil {
				// A teammate's rule: its author, and a newer version left
				// unapplied over a local edit.
				text += "  [team: " + r.Team.Author
				if r.Team.Newer != "" {
					text += "; edited here, a newer version is not applied"
				}
				text += "]"
			}
			opts.IO.Printf("%-*s %-8s %-10s %-5.2f %-8d %-7s %s\n", idW, r.ID, r.Source, r.Kind, r.Confidence,
				r.AppliedCount, percent(r.SuccessRate, r.AppliedCount), text)
		}
		return nil
	})
}

// playbookDiffOptions is `nova playbook diff AGENT FROM TO`.
type playbookDiffOptions struct {
	*Env
	Agent    string
	From, To int
	JSON     bool
}

func newPlaybookDiffCmd(env *Env, runF func(context.Context, *playbookDiffOptions) error) *cobra.Command {
	opts := &playbookDiffOptions{Env: env}
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
			opts.Agent, opts.From, opts.To = args[0], from, to
			return pick(runF, runPlaybookDiff)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runPlaybookDiff(ctx context.Context, opts *playbookDiffOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		if err := knownAgent(ctx, ws, opts.Agent); err != nil {
			return err
		}
		diff, err := ws.PlaybookDiff(ctx, opts.Agent, opts.From, opts.To)
		if err != nil {
			return err
		}
		if opts.JSON {
			if diff == nil {
				diff = []ace.Change{}
			}
			return opts.IO.PrintJSON(diff)
		}
		if len(diff) == 0 {
			opts.IO.Printf("no changes\n")
			return nil
		}
		printChanges(opts.IO, diff)
		return nil
	})
}

func printChanges(io *IOStreams, cs []ace.Change) {
	for _, c := range cs {
		switch c.Op {
		case ace.OpAdd:
			io.Printf("  + %s %s\n", c.RuleID, clipLine(c.After.Content, 90))
		case ace.OpRemove:
			io.Printf("  - %s %s\n", c.RuleID, clipLine(c.Before.Content, 90))
		default:
			io.Printf("  ~ %s %s\n", c.RuleID, clipLine(c.After.Content, 90))
			if c.Before.Content != c.After.Content {
				io.Printf("      was: %s\n", clipLine(c.Before.Content, 85))
			}
		}
	}
}

func newPlaybookHistoryCmd(env *Env, runF func(context.Context, *playbookOptions) error) *cobra.Command {
	opts := &playbookOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "history AGENT",
		Short: "Show an agent's playbook versions and what each changed, newest first",
		Args:  exactArgs(1, "an agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Agent = args[0]
			return pick(runF, runPlaybookHistory)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runPlaybookHistory(ctx context.Context, opts *playbookOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		if err := knownAgent(ctx, ws, opts.Agent); err != nil {
			return err
		}
		hist, err := ws.PlaybookHistory(ctx, opts.Agent)
		if err != nil {
			return err
		}
		if opts.JSON {
			if hist == nil {
				hist = []ace.Version{}
			}
			return opts.IO.PrintJSON(hist)
		}
		if len(hist) == 0 {
			opts.IO.Printf("no history\n")
			return nil
		}
		for _, v := range hist {
			opts.IO.Printf("v%d  %s  %s\n", v.Version, v.At.Local().Format("2006-01-02 15:04"), v.Origin)
			printChanges(opts.IO, v.Changes)
		}
		return nil
	})
}

func newPlaybookPendingCmd(env *Env, runF func(context.Context, *playbookOptions) error) *cobra.Command {
	opts := &playbookOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "pending",
		Short: "List deltas waiting for review",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runPlaybookPending)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runPlaybookPending(ctx context.Context, opts *playbookOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.ListPendingDeltas(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if list == nil {
				list = []ace.Pending{}
			}
			return opts.IO.PrintJSON(list)
		}
		if len(list) == 0 {
			opts.IO.Printf("no pending deltas\n")
			return nil
		}
		opts.IO.Printf("%-5s %-10s %-7s %-5s %-8s %s\n", "ID", "AGENT", "OP", "CONF", "ORIGIN", "DELTA")
		for _, p := range list {
			text := p.Delta.Content
			if p.Delta.RuleID != "" {
				text = strings.TrimSpace(p.Delta.RuleID + " " + text)
			}
			opts.IO.Printf("%-5d %-10s %-7s %-5.2f %-8s %s\n", p.ID, p.Agent, p.Delta.Op, p.Delta.Confidence, p.Origin, clipLine(text, 70))
		}
		return nil
	})
}

// playbookDecideOptions is `nova playbook approve|reject DELTA` (reject
// drops the delta: it asks first).
type playbookDecideOptions struct {
	*Env
	Approve bool
	ID      uint64
	Yes     bool
	JSON    bool
}

func newPlaybookDecideCmd(env *Env, approve bool, runF func(context.Context, *playbookDecideOptions) error) *cobra.Command {
	use, short := "approve DELTA", "Apply a pending delta to its playbook (a new version)"
	if !approve {
		use, short = "reject DELTA", "Drop a pending delta (asks first unless --yes)"
	}
	opts := &playbookDecideOptions{Env: env, Approve: approve}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1, "a pending delta id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "pending delta", "nova playbook pending")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runPlaybookDecide)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	if !approve {
		cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	}
	return cmd
}

func runPlaybookDecide(ctx context.Context, opts *playbookDecideOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		id := opts.ID
		if opts.Approve {
			p, err := ws.ApproveDelta(ctx, id)
			if err != nil {
				return err
			}
			if opts.JSON {
				return opts.IO.PrintJSON(map[string]any{"id": id, "approved": true, "agent": p.Agent, "version": p.Version})
			}
			opts.IO.Printf("approved delta %d: %s playbook is now version %d\n", id, p.Agent, p.Version)
			return nil
		}
		if err := opts.confirmReject(ctx, ws); err != nil {
			return err
		}
		p, err := ws.RejectDelta(ctx, id)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]any{"id": id, "approved": false, "agent": p.Agent})
		}
		opts.IO.Printf("rejected delta %d (%s)\n", id, p.Agent)
		return nil
	})
}

// confirmReject asks before a pending delta is dropped (an unknown id gets
// the engine's own error).
func (opts *playbookDecideOptions) confirmReject(ctx context.Context, ws engine.Workspace) error {
	list, err := ws.ListPendingDeltas(ctx)
	if err != nil {
		return err
	}
	for _, p := range list {
		if p.ID == opts.ID {
			q := fmt.Sprintf("Drop pending delta %d (%s %s: %s)?", p.ID, p.Agent, p.Delta.Op, clipLine(p.Delta.Content, 60))
			return opts.confirm(ctx, opts.Yes, q, "reject", "rejected")
		}
	}
	return nil
}

// playbookRuleOptions is `nova playbook add|edit|delete`.
type playbookRuleOptions struct {
	*Env
	Agent, RuleID, Text string
	// Tags replace the rule's tags (nil keeps them on edit).
	Tags       []string
	Confidence float64
	Yes        bool
	JSON       bool
}

func newPlaybookAddCmd(env *Env, runF func(context.Context, *playbookRuleOptions) error) *cobra.Command {
	opts := &playbookRuleOptions{Env: env}
	var tags string
	cmd := &cobra.Command{
		Use:   `add AGENT "RULE"`,
		Short: "Add a manual rule to an agent's playbook",
		Args:  exactArgs(2, `an agent id and a rule text`),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(args[1]) == "" {
				return usagef("the rule text is empty")
			}
			if opts.Confidence < 0 || opts.Confidence > 1 {
				return usagef("--confidence must be within 0 and 1, got %g", opts.Confidence)
			}
			opts.Agent, opts.Text, opts.Tags = args[0], args[1], splitTags(tags)
			return pick(runF, runPlaybookAdd)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&tags, "tags", "", "tags, comma-separated")
	cmd.Flags().Float64Var(&opts.Confidence, "confidence", 0, "confidence 0–1 (default 0.8)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the rule as JSON")
	return cmd
}

func runPlaybookAdd(ctx context.Context, opts *playbookRuleOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		if err := knownAgent(ctx, ws, opts.Agent); err != nil {
			return err
		}
		res, err := ws.AddRule(ctx, opts.Agent, opts.Text, opts.Tags, opts.Confidence)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res.Rule)
		}
		opts.IO.Printf("added %s to %s (version %d)\n", res.Rule.ID, res.Playbook.Agent, res.Playbook.Version)
		return nil
	})
}

func newPlaybookEditCmd(env *Env, runF func(context.Context, *playbookRuleOptions) error) *cobra.Command {
	opts := &playbookRuleOptions{Env: env}
	var tags string
	cmd := &cobra.Command{
		Use:   `edit AGENT RULE ["NEW TEXT"]`,
		Short: "Change a rule's text, tags or confidence",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 || len(args) > 3 {
				return usagef("expected an agent id, a rule id and optionally a new text, got %s", plural(len(args), "argument", "arguments"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Agent, opts.RuleID, opts.Text, opts.Tags = args[0], args[1], "", nil
			if len(args) == 3 {
				opts.Text = args[2]
			}
			if cmd.Flags().Changed("tags") {
				opts.Tags = splitTags(tags)
				if opts.Tags == nil {
					opts.Tags = []string{}
				}
			}
			if opts.Confidence < 0 || opts.Confidence > 1 {
				return usagef("--confidence must be within 0 and 1, got %g", opts.Confidence)
			}
			if opts.Text == "" && opts.Tags == nil && opts.Confidence == 0 {
				return usagef("nothing to change: give a new text, --tags or --confidence")
			}
			return pick(runF, runPlaybookEdit)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&tags, "tags", "", "replace the tags (comma-separated)")
	cmd.Flags().Float64Var(&opts.Confidence, "confidence", 0, "new confidence 0–1")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the rule as JSON")
	return cmd
}

func runPlaybookEdit(ctx context.Context, opts *playbookRuleOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.EditRule(ctx, opts.Agent, opts.RuleID, opts.Text, opts.Tags, opts.Confidence)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(r)
		}
		opts.IO.Printf("updated %s\n", r.ID)
		return nil
	})
}

func newPlaybookDeleteCmd(env *Env, runF func(context.Context, *playbookRuleOptions) error) *cobra.Command {
	opts := &playbookRuleOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "delete AGENT RULE",
		Short: "Delete a rule from an agent's playbook (asks first unless --yes)",
		Args:  exactArgs(2, "an agent id and a rule id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Agent, opts.RuleID = args[0], args[1]
			return pick(runF, runPlaybookDelete)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {agent, deleted}")
	return cmd
}

func runPlaybookDelete(ctx context.Context, opts *playbookRuleOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		p, err := ws.GetPlaybook(ctx, opts.Agent)
		if err != nil {
			return err
		}
		r, ok := p.Rule(opts.RuleID)
		if !ok {
			return fmt.Errorf("%s: %w: rule %s", p.Agent, ace.ErrNotFound, opts.RuleID)
		}
		q := fmt.Sprintf("Delete rule %s of %s (%s)?", r.ID, p.Agent, clipLine(r.Content, 60))
		if err := opts.confirm(ctx, opts.Yes, q, "delete", "deleted"); err != nil {
			return err
		}
		if err := ws.DeleteRule(ctx, opts.Agent, opts.RuleID); err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]string{"agent": p.Agent, "deleted": r.ID})
		}
		opts.IO.Printf("deleted %s from %s\n", r.ID, p.Agent)
		return nil
	})
}

// playbookReviewOptions is `nova playbook review AGENT`.
type playbookReviewOptions struct {
	*Env
	Agent string
	Force bool
	JSON  bool
}

func newPlaybookReviewCmd(env *Env, runF func(context.Context, *playbookReviewOptions) error) *cobra.Command {
	opts := &playbookReviewOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "review AGENT",
		Short: "Run the self-improvement review of an agent (due after 5 tasks, at most weekly)",
		Args:  exactArgs(1, "an agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Agent = args[0]
			return pick(runF, runPlaybookReview)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "run even when not due")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runPlaybookReview(ctx context.Context, opts *playbookReviewOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		if err := knownAgent(ctx, ws, opts.Agent); err != nil {
			return err
		}
		rep, err := ws.ReviewPlaybook(ctx, opts.Agent, opts.Force)
		if errors.Is(err, ace.ErrNotDue) {
			if opts.JSON {
				_ = opts.IO.PrintJSON(rep)
				return &reportedError{msg: err.Error()}
			}
			return fmt.Errorf("%w (use --force)", err)
		}
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(rep)
		}
		opts.IO.Printf("%s: success %.0f%% over %s, avg gate %.2f; strong %v, weak %v\n", rep.Agent,
			rep.Profile.SuccessRate*100, plural(len(rep.Profile.Window), "task", "tasks"), rep.Profile.AvgGateScore, rep.Profile.Strong, rep.Profile.Weak)
		for _, d := range rep.Curate.Decisions {
			opts.IO.Printf("  %-8s %.2f %s\n", d.Action, d.Delta.Confidence, clipLine(d.Delta.Content, 80))
		}
		if len(rep.Deltas) == 0 {
			opts.IO.Printf("  no changes proposed\n")
		}
		return nil
	})
}

// knownAgent refuses an agent that is neither in the roster nor has a
// playbook (a playbook outlives its agent file, and stays readable).
func knownAgent(ctx context.Context, ws engine.Workspace, agent string) error {
	roster, err := ws.ListAgents(ctx)
	if err != nil {
		return err
	}
	if roster.Has(agent) {
		return nil
	}
	p, err := ws.GetPlaybook(ctx, agent)
	if err == nil && (p.Version > 0 || len(p.Rules) > 0) {
		return nil
	}
	return fmt.Errorf("%w %q: not in the roster and it has no playbook (see `nova agents list`)", agents.ErrUnknownAgent, agent)
}
