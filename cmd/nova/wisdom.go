package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/vault"
)

func newWisdomCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "wisdom",
		Short: "Global wisdom: high-confidence nodes shared (sanitized) across users",
		Long: "Global wisdom holds sanitized copies of high-confidence (≥ 0.85) vault nodes of users who\n" +
			"opted in (vault.optInGlobal). A pattern is pending until 3 distinct users back it, active\n" +
			"afterwards, and demoted for good after 3 harm reports. Each user may promote 5 nodes a\n" +
			"week. Prompts get the best active patterns: 4 on the free tier, 12 on premium.",
	}
	cmd.AddCommand(newWisdomListCmd(env, nil), newWisdomPromoteCmd(env, nil), newWisdomReportCmd(env, nil),
		newWisdomStatsCmd(env, nil), newWisdomCollectCmd(env, nil), newWisdomEndorseCmd(env, nil), newWisdomOptInCmd(env, nil))
	return cmd
}

func patternLine(io *IOStreams, p vault.WisdomPattern) {
	io.Printf("%-5d %-8s %-5.2f %-7d %-7d %s\n", p.ID, p.Status, p.Score, len(p.Backers), len(p.HarmReports), clipLine(p.Node.Content, 70))
}

// wisdomListOptions is `nova wisdom list`.
type wisdomListOptions struct {
	*Env
	Status vault.WisdomStatus
	JSON   bool
}

func newWisdomListCmd(env *Env, runF func(context.Context, *wisdomListOptions) error) *cobra.Command {
	opts := &wisdomListOptions{Env: env}
	var status string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List global-wisdom patterns, best score first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := vault.ParseWisdomStatus(status)
			if err != nil {
				return err
			}
			opts.Status = st
			return pick(runF, runWisdomList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only pending, active or demoted patterns")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of patterns")
	return cmd
}

func runWisdomList(ctx context.Context, opts *wisdomListOptions) error {
	return opts.withWorkspace(ctx, true, func(ws engine.Workspace) error {
		ps, err := ws.ListWisdom(ctx, opts.Status)
		if err != nil {
			return err
		}
		if opts.JSON {
			if ps == nil {
				ps = []vault.WisdomPattern{}
			}
			return opts.IO.PrintJSON(ps)
		}
		if len(ps) == 0 {
			opts.IO.Printf("no wisdom patterns\n")
			return nil
		}
		opts.IO.Printf("%-5s %-8s %-5s %-7s %-7s %s\n", "ID", "STATUS", "SCORE", "BACKERS", "REPORTS", "CONTENT")
		for _, p := range ps {
			patternLine(opts.IO, p)
		}
		return nil
	})
}

// wisdomPromoteOptions is `nova wisdom promote NODE`.
type wisdomPromoteOptions struct {
	*Env
	NodeID uint64
	JSON   bool
}

func newWisdomPromoteCmd(env *Env, runF func(context.Context, *wisdomPromoteOptions) error) *cobra.Command {
	opts := &wisdomPromoteOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "promote NODE",
		Short: "Share a vault node (confidence ≥ 0.85, opted-in user) as global wisdom",
		Long: "Share a vault node as global wisdom on behalf of its user. The node is copied with file\n" +
			"paths, secrets, e-mails, URLs, ids and project names removed; the original is untouched.\n" +
			"A copy similar to an existing pattern (word Jaccard ≥ 0.7) backs that pattern instead.",
		Args: exactArgs(1, "a vault node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "node", "")
			if err != nil {
				return err
			}
			opts.NodeID = id
			return pick(runF, runWisdomPromote)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {pattern,merged,already}")
	return cmd
}

func runWisdomPromote(ctx context.Context, opts *wisdomPromoteOptions) error {
	return opts.withWorkspace(ctx, false, func(ws engine.Workspace) error {
		res, err := ws.PromoteWisdom(ctx, opts.NodeID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res)
		}
		p, id := res.Pattern, opts.NodeID
		switch {
		case res.Already:
			opts.IO.Printf("node #%d was already promoted as pattern #%d (%s)\n", id, p.ID, p.Status)
		case res.Merged:
			opts.IO.Printf("node #%d backs existing pattern #%d (%d backers, %s)\n", id, p.ID, len(p.Backers), p.Status)
		default:
			opts.IO.Printf("promoted node #%d as pattern #%d (%s until %d users back it)\n", id, p.ID, p.Status, vault.BackersToActivate)
		}
		return nil
	})
}

// wisdomReportOptions is `nova wisdom report-harm ID`.
type wisdomReportOptions struct {
	*Env
	ID           uint64
	Reason, User string
	JSON         bool
}

func newWisdomReportCmd(env *Env, runF func(context.Context, *wisdomReportOptions) error) *cobra.Command {
	opts := &wisdomReportOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "report-harm ID",
		Short: "Report that a global-wisdom pattern did harm (3 reports demote it)",
		Args:  exactArgs(1, "a wisdom pattern id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "wisdom pattern", "")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runWisdomReport)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "what went wrong")
	cmd.Flags().StringVar(&opts.User, "user", "", "reporting user (default: config userId)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the pattern as JSON")
	return cmd
}

func runWisdomReport(ctx context.Context, opts *wisdomReportOptions) error {
	return opts.withWorkspace(ctx, false, func(ws engine.Workspace) error {
		p, err := ws.ReportWisdomHarm(ctx, opts.ID, opts.User, opts.Reason)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(p)
		}
		opts.IO.Printf("pattern #%d: %d harm report(s), %s\n", p.ID, len(p.HarmReports), p.Status)
		return nil
	})
}

// wisdomStatsOptions is `nova wisdom stats`.
type wisdomStatsOptions struct {
	*Env
	JSON bool
}

func newWisdomStatsCmd(env *Env, runF func(context.Context, *wisdomStatsOptions) error) *cobra.Command {
	opts := &wisdomStatsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count patterns by status, backers and harm reports",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runWisdomStats)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the counts as JSON")
	return cmd
}

func runWisdomStats(ctx context.Context, opts *wisdomStatsOptions) error {
	return opts.withWorkspace(ctx, true, func(ws engine.Workspace) error {
		st, err := ws.WisdomStats(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(st)
		}
		opts.IO.Printf("patterns %d: %d active, %d pending, %d demoted; %d backers, %d harm reports, average score %.2f\n",
			st.Patterns, st.Active, st.Pending, st.Demoted, st.Backers, st.HarmReports, st.AvgScore)
		if !st.OptedIn {
			opts.IO.Printf("you have not opted in (set vault.optInGlobal: true in .nova/config.yaml)\n")
		}
		return nil
	})
}

// wisdomCollectOptions is `nova wisdom collect`.
type wisdomCollectOptions struct {
	*Env
	DryRun bool
	JSON   bool
}

func newWisdomCollectCmd(env *Env, runF func(context.Context, *wisdomCollectOptions) error) *cobra.Command {
	opts := &wisdomCollectOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "collect",
		Short: "Promote every eligible node (confidence ≥ 0.85, opted-in user, not yet shared)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runWisdomCollect)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "only list the candidates")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

func runWisdomCollect(ctx context.Context, opts *wisdomCollectOptions) error {
	return opts.withWorkspace(ctx, opts.DryRun, func(ws engine.Workspace) error {
		if opts.DryRun {
			nodes, err := ws.WisdomCandidates(ctx)
			if err != nil {
				return err
			}
			if opts.JSON {
				if nodes == nil {
					nodes = []vault.Node{}
				}
				return opts.IO.PrintJSON(nodes)
			}
			opts.IO.Printf("%d candidate node(s)\n", len(nodes))
			nodeTable(opts.IO, nodes)
			return nil
		}
		rep, err := ws.CollectWisdom(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(rep)
		}
		opts.IO.Printf("%d new pattern(s), %d backed, %d skipped\n", len(rep.Created), len(rep.Merged), len(rep.Skipped))
		for _, s := range rep.Skipped {
			opts.IO.Printf("  skipped #%d: %s\n", s.NodeID, s.Reason)
		}
		return nil
	})
}

// wisdomEndorseOptions is `nova wisdom endorse ID`.
type wisdomEndorseOptions struct {
	*Env
	ID   uint64
	User string
	JSON bool
}

func newWisdomEndorseCmd(env *Env, runF func(context.Context, *wisdomEndorseOptions) error) *cobra.Command {
	opts := &wisdomEndorseOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "endorse ID",
		Short: "Back a pattern as a user (3 distinct backers activate it)",
		Args:  exactArgs(1, "a wisdom pattern id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "wisdom pattern", "")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runWisdomEndorse)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.User, "user", "", "backing user (default: config userId)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the pattern as JSON")
	return cmd
}

func runWisdomEndorse(ctx context.Context, opts *wisdomEndorseOptions) error {
	return opts.withWorkspace(ctx, false, func(ws engine.Workspace) error {
		p, err := ws.EndorseWisdom(ctx, opts.ID, opts.User)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(p)
		}
		opts.IO.Printf("pattern #%d: %d backer(s), %s\n", p.ID, len(p.Backers), p.Status)
		return nil
	})
}

// wisdomOptInOptions is `nova wisdom optin on|off`.
type wisdomOptInOptions struct {
	*Env
	On   bool
	User string
}

func newWisdomOptInCmd(env *Env, runF func(context.Context, *wisdomOptInOptions) error) *cobra.Command {
	opts := &wisdomOptInOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "optin on|off",
		Short: "Record whether a user shares high-confidence nodes (overrides vault.optInGlobal)",
		Args:  exactArgs(1, "on or off"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch strings.ToLower(args[0]) {
			case "on", "yes", "true":
				opts.On = true
			case "off", "no", "false":
				opts.On = false
			default:
				return usagef("expected on or off, got %q", args[0])
			}
			return pick(runF, runWisdomOptIn)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.User, "user", "", "the user (default: config userId)")
	return cmd
}

func runWisdomOptIn(ctx context.Context, opts *wisdomOptInOptions) error {
	return opts.withWorkspace(ctx, false, func(ws engine.Workspace) error {
		user := opts.User
		if user == "" {
			user = ws.Config().UserID
		}
		if err := ws.SetWisdomOptIn(ctx, user, opts.On); err != nil {
			return err
		}
		opts.IO.Printf("user %q %s global wisdom\n", user, map[bool]string{true: "shares with", false: "does not share with"}[opts.On])
		return nil
	})
}
