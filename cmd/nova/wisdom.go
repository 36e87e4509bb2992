package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/vault"
)

func (a *app) wisdomCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "wisdom",
		Short: "Global wisdom: high-confidence nodes shared (sanitized) across users",
		Long: "Global wisdom holds sanitized copies of high-confidence (≥ 0.85) vault nodes of users who\n" +
			"opted in (vault.optInGlobal). A pattern is pending until 3 distinct users back it, active\n" +
			"afterwards, and demoted for good after 3 harm reports. Each user may promote 5 nodes a\n" +
			"week. Prompts get the best active patterns: 4 on the free tier, 12 on premium.",
	}
	cmd.AddCommand(a.wisdomListCmd(), a.wisdomPromoteCmd(), a.wisdomReportCmd(), a.wisdomStatsCmd(),
		a.wisdomCollectCmd(), a.wisdomEndorseCmd(), a.wisdomOptInCmd())
	return cmd
}

func (a *app) withWisdom(cmd *cobra.Command, readOnly bool, fn func(ws *engine.Local, w *vault.Wisdom) error) error {
	return a.withVault(cmd.Context(), readOnly, func(ws *engine.Local, v *vault.Vault) error { return fn(ws, v.Wisdom()) })
}

func (a *app) patternLine(p vault.WisdomPattern) {
	a.printf("%-5d %-8s %-5.2f %-7d %-7d %s\n", p.ID, p.Status, p.Score, len(p.Backers), len(p.HarmReports), clipLine(p.Node.Content, 70))
}

func (a *app) wisdomListCmd() *cobra.Command {
	var (
		status string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List global-wisdom patterns, best score first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := vault.ParseWisdomStatus(status)
			if err != nil {
				return err
			}
			return a.withWisdom(cmd, true, func(_ *engine.Local, w *vault.Wisdom) error {
				ps, err := w.List(cmd.Context(), st)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(ps)
				}
				if len(ps) == 0 {
					a.printf("no wisdom patterns\n")
					return nil
				}
				a.printf("%-5s %-8s %-5s %-7s %-7s %s\n", "ID", "STATUS", "SCORE", "BACKERS", "REPORTS", "CONTENT")
				for _, p := range ps {
					a.patternLine(p)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only pending, active or demoted patterns")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of patterns")
	return cmd
}

func (a *app) wisdomPromoteCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "promote NODE",
		Short: "Share a vault node (confidence ≥ 0.85, opted-in user) as global wisdom",
		Long: "Share a vault node as global wisdom on behalf of its user. The node is copied with file\n" +
			"paths, secrets, e-mails, URLs, ids and project names removed; the original is untouched.\n" +
			"A copy similar to an existing pattern (word Jaccard ≥ 0.7) backs that pattern instead.",
		Args: exactArgs(1, "a vault node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseNodeID(args[0], "node")
			if err != nil {
				return err
			}
			return a.withWisdom(cmd, false, func(_ *engine.Local, w *vault.Wisdom) error {
				res, err := w.Promote(cmd.Context(), id)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(res)
				}
				p := res.Pattern
				switch {
				case res.Already:
					a.printf("node #%d was already promoted as pattern #%d (%s)\n", id, p.ID, p.Status)
				case res.Merged:
					a.printf("node #%d backs existing pattern #%d (%d backers, %s)\n", id, p.ID, len(p.Backers), p.Status)
				default:
					a.printf("promoted node #%d as pattern #%d (%s until %d users back it)\n", id, p.ID, p.Status, vault.BackersToActivate)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {pattern,merged,already}")
	return cmd
}

func (a *app) wisdomReportCmd() *cobra.Command {
	var (
		reason, user string
		asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "report-harm ID",
		Short: "Report that a global-wisdom pattern did harm (3 reports demote it)",
		Args:  exactArgs(1, "a wisdom pattern id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseNodeID(args[0], "wisdom pattern")
			if err != nil {
				return err
			}
			if err := noUserFlag(user); err != nil {
				return err
			}
			return a.withWisdom(cmd, false, func(_ *engine.Local, w *vault.Wisdom) error {
				p, err := w.ReportHarm(cmd.Context(), id, reason)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(p)
				}
				a.printf("pattern #%d: %d harm report(s), %s\n", p.ID, len(p.HarmReports), p.Status)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "what went wrong")
	cmd.Flags().StringVar(&user, "user", "", "reporting user (default: config userId)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the pattern as JSON")
	return cmd
}

func (a *app) wisdomStatsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count patterns by status, backers and harm reports",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withWisdom(cmd, true, func(_ *engine.Local, w *vault.Wisdom) error {
				st, err := w.Stats(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(st)
				}
				a.printf("patterns %d: %d active, %d pending, %d demoted; %d backers, %d harm reports, average score %.2f\n",
					st.Patterns, st.Active, st.Pending, st.Demoted, st.Backers, st.HarmReports, st.AvgScore)
				if !st.OptedIn {
					a.printf("you have not opted in (set vault.optInGlobal: true in .nova/config.yaml)\n")
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the counts as JSON")
	return cmd
}

func (a *app) wisdomCollectCmd() *cobra.Command {
	var dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "collect",
		Short: "Promote every eligible node (confidence ≥ 0.85, opted-in user, not yet shared)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withWisdom(cmd, dryRun, func(_ *engine.Local, w *vault.Wisdom) error {
				if dryRun {
					nodes, err := w.Candidates(cmd.Context())
					if err != nil {
						return err
					}
					if asJSON {
						return a.printJSON(nodes)
					}
					a.printf("%d candidate node(s)\n", len(nodes))
					nodeTable(a, nodes)
					return nil
				}
				rep, err := w.Collect(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(rep)
				}
				a.printf("%d new pattern(s), %d backed, %d skipped\n", len(rep.Created), len(rep.Merged), len(rep.Skipped))
				for _, s := range rep.Skipped {
					a.printf("  skipped #%d: %s\n", s.NodeID, s.Reason)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "only list the candidates")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func (a *app) wisdomEndorseCmd() *cobra.Command {
	var (
		user   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "endorse ID",
		Short: "Back a pattern as a user (3 distinct backers activate it)",
		Args:  exactArgs(1, "a wisdom pattern id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseNodeID(args[0], "wisdom pattern")
			if err != nil {
				return err
			}
			if err := noUserFlag(user); err != nil {
				return err
			}
			return a.withWisdom(cmd, false, func(_ *engine.Local, w *vault.Wisdom) error {
				p, err := w.Endorse(cmd.Context(), id)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(p)
				}
				a.printf("pattern #%d: %d backer(s), %s\n", p.ID, len(p.Backers), p.Status)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&user, "user", "", "backing user (default: config userId)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the pattern as JSON")
	return cmd
}

func (a *app) wisdomOptInCmd() *cobra.Command {
	var user string
	cmd := &cobra.Command{
		Use:   "optin on|off",
		Short: "Record whether a user shares high-confidence nodes (overrides vault.optInGlobal)",
		Args:  exactArgs(1, "on or off"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var on bool
			switch strings.ToLower(args[0]) {
			case "on", "yes", "true":
				on = true
			case "off", "no", "false":
			default:
				return usagef("expected on or off, got %q", args[0])
			}
			if err := noUserFlag(user); err != nil {
				return err
			}
			return a.withWisdom(cmd, false, func(ws *engine.Local, w *vault.Wisdom) error {
				if err := w.SetOptIn(cmd.Context(), on); err != nil {
					return err
				}
				a.printf("%s %s global wisdom\n", ws.Identity(), map[bool]string{true: "shares with", false: "does not share with"}[on])
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&user, "user", "", "the user (default: config userId)")
	return cmd
}

// noUserFlag refuses --user: wisdom is backed, reported and shared as the
// workspace identity, never as a user named on the command line (issue 10).
func noUserFlag(user string) error {
	if user == "" {
		return nil
	}
	return usagef("--user is not accepted: wisdom is backed and reported as the workspace identity " +
		"(config userId, or git's user.email); other users' backing arrives in their wisdom bundles")
}
