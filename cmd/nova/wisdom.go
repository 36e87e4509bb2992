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
			"opted in (vault.optInGlobal). A pattern is pending until 3 distinct authors back it, active\n" +
			"afterwards, and demoted for good after 3 harm reports. Each author may promote 5 nodes a\n" +
			"week. Prompts get the best active patterns: 4 on the free tier, 12 on premium.\n\n" +
			"You act as the workspace identity (config userId, else git's user.email), recorded as a\n" +
			"pseudonymous author id (`nova wisdom stats` shows yours); the e-mail never leaves the\n" +
			"machine. Other people's backing arrives only in their bundles: `nova wisdom export FILE`\n" +
			"writes yours, `nova wisdom import FILE` reads theirs.\n\n" +
			"Bundles are signed with the workspace's ed25519 key (`nova wisdom key` prints it). Another\n" +
			"author's backing counts towards the 3 only when you trust the key that signed it\n" +
			"(`nova wisdom trust KEY`); unsigned or untrusted bundles are imported for reading only.",
	}
	cmd.AddCommand(newWisdomListCmd(env, nil), newWisdomPromoteCmd(env, nil), newWisdomReportCmd(env, nil),
		newWisdomStatsCmd(env, nil), newWisdomCollectCmd(env, nil), newWisdomEndorseCmd(env, nil), newWisdomOptInCmd(env, nil),
		newWisdomExportCmd(env, nil), newWisdomImportCmd(env, nil), newWisdomBundlesCmd(env, nil),
		newWisdomKeyCmd(env, nil), newWisdomTrustCmd(env, nil), newWisdomUntrustCmd(env, nil), newWisdomTrustedCmd(env, nil))
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
			st, err := enumValue("status", status, vault.ParseWisdomStatus, names([]vault.WisdomStatus{vault.WisdomPending, vault.WisdomActive, vault.WisdomDemoted}))
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
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
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
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
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
	ID     uint64
	Reason string
	JSON   bool
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
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the pattern as JSON")
	return cmd
}

func runWisdomReport(ctx context.Context, opts *wisdomReportOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		p, err := ws.ReportWisdomHarm(ctx, opts.ID, opts.Reason)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(p)
		}
		opts.IO.Printf("pattern #%d: %s, %s\n", p.ID, plural(len(p.HarmReports), "harm report", "harm reports"), p.Status)
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
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		st, err := ws.WisdomStats(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(st)
		}
		opts.IO.Printf("patterns %d: %d active, %d pending, %d demoted; %d backers, %d harm reports, average score %.2f\n",
			st.Patterns, st.Active, st.Pending, st.Demoted, st.Backers, st.HarmReports, st.AvgScore)
		opts.IO.Printf("you are author %s (a salted hash of the workspace identity)\n", st.Me)
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
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
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
			opts.IO.Printf("%s\n", plural(len(nodes), "candidate node", "candidate nodes"))
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
		opts.IO.Printf("%s, %d backed, %d skipped\n", plural(len(rep.Created), "new pattern", "new patterns"), len(rep.Merged), len(rep.Skipped))
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
	JSON bool
}

func newWisdomEndorseCmd(env *Env, runF func(context.Context, *wisdomEndorseOptions) error) *cobra.Command {
	opts := &wisdomEndorseOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "endorse ID",
		Short: "Back a pattern as the workspace identity (3 distinct authors activate it)",
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
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the pattern as JSON")
	return cmd
}

func runWisdomEndorse(ctx context.Context, opts *wisdomEndorseOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		p, err := ws.EndorseWisdom(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(p)
		}
		opts.IO.Printf("pattern #%d: %s, %s\n", p.ID, plural(len(p.Backers), "backer", "backers"), p.Status)
		return nil
	})
}

// wisdomOptInOptions is `nova wisdom optin on|off`.
type wisdomOptInOptions struct {
	*Env
	On bool
}

func newWisdomOptInCmd(env *Env, runF func(context.Context, *wisdomOptInOptions) error) *cobra.Command {
	opts := &wisdomOptInOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "optin on|off",
		Short: "Record whether you share high-confidence nodes (overrides vault.optInGlobal)",
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
	return cmd
}

func runWisdomOptIn(ctx context.Context, opts *wisdomOptInOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		if err := ws.SetWisdomOptIn(ctx, opts.On); err != nil {
			return err
		}
		st, err := ws.WisdomStats(ctx)
		if err != nil {
			return err
		}
		opts.IO.Printf("you (author %s) %s global wisdom\n", st.Me, map[bool]string{true: "share with", false: "do not share with"}[opts.On])
		return nil
	})
}

// wisdomExportOptions is `nova wisdom export FILE`.
type wisdomExportOptions struct {
	*Env
	File string
	JSON bool
}

func newWisdomExportCmd(env *Env, runF func(context.Context, *wisdomExportOptions) error) *cobra.Command {
	opts := &wisdomExportOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "export FILE",
		Short: "Write a bundle of the patterns you back (or reported) to share with other users",
		Long: "Write a wisdom bundle (one JSON document, format nova.wisdom/1): the sanitized patterns\n" +
			"the workspace identity backs, and those it reported as harmful, under its pseudonymous\n" +
			"author id. Another user's `nova wisdom import FILE` counts you as one backer of each.",
		Args: exactArgs(1, "the bundle file to write"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return pick(runF, runWisdomExport)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {file,author,patterns}")
	return cmd
}

func runWisdomExport(ctx context.Context, opts *wisdomExportOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		b, err := ws.ExportWisdom(ctx, opts.abs(opts.File))
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]any{"file": opts.File, "author": b.Author, "patterns": len(b.Patterns)})
		}
		opts.IO.Printf("wrote %s as author %s to %s\n", plural(len(b.Patterns), "pattern", "patterns"), b.Author, opts.File)
		return nil
	})
}

// wisdomImportOptions is `nova wisdom import FILE`.
type wisdomImportOptions struct {
	*Env
	File string
	JSON bool
}

func newWisdomImportCmd(env *Env, runF func(context.Context, *wisdomImportOptions) error) *cobra.Command {
	opts := &wisdomImportOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Read another user's wisdom bundle: its author backs (or reports) each pattern once",
		Args:  exactArgs(1, "a bundle file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return pick(runF, runWisdomImport)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {id,author,patterns,created,backed,reported,unchanged,already,own}")
	return cmd
}

func runWisdomImport(ctx context.Context, opts *wisdomImportOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.ImportWisdom(ctx, opts.abs(opts.File))
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(r)
		}
		switch {
		case r.Own:
			opts.IO.Printf("the bundle is yours (author %s): nothing changed\n", r.Author)
		case r.Already:
			opts.IO.Printf("this bundle of author %s was imported before: nothing changed\n", r.Author)
		default:
			opts.IO.Printf("imported %s of author %s: %d new (pending), %d backed, %s, %d unchanged\n",
				plural(r.Patterns, "pattern", "patterns"), r.Author, r.Created, r.Backed, plural(r.Reported, "harm report", "harm reports"), r.Unchanged)
			switch {
			case r.Key == "":
				opts.IO.Printf("the bundle is unsigned: imported for reading; its backing never counts towards activation\n")
			case !r.Trusted:
				opts.IO.Printf("signed by %s, a key you do not trust: its backing counts once you run `nova wisdom trust %s`\n", r.Key, r.Key)
			default:
				opts.IO.Printf("signed by %s, a key you trust\n", r.Key)
			}
		}
		return nil
	})
}

// wisdomBundlesOptions is `nova wisdom bundles`.
type wisdomBundlesOptions struct {
	*Env
	JSON bool
}

func newWisdomBundlesCmd(env *Env, runF func(context.Context, *wisdomBundlesOptions) error) *cobra.Command {
	opts := &wisdomBundlesOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "bundles",
		Short: "List the wisdom bundles imported so far",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runWisdomBundles)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of bundles")
	return cmd
}

func runWisdomBundles(ctx context.Context, opts *wisdomBundlesOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		bs, err := ws.ListWisdomBundles(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if bs == nil {
				bs = []vault.BundleImport{}
			}
			return opts.IO.PrintJSON(bs)
		}
		if len(bs) == 0 {
			opts.IO.Printf("no bundles imported yet: `nova wisdom import FILE` reads one\n")
			return nil
		}
		opts.IO.Printf("%-16s %-18s %-8s %-7s %-7s %-8s %s\n", "IMPORTED", "AUTHOR", "PATTERNS", "NEW", "BACKED", "REPORTED", "BUNDLE")
		for _, b := range bs {
			opts.IO.Printf("%-16s %-18s %-8d %-7d %-7d %-8d %s\n", b.ImportedAt.Local().Format("2006-01-02 15:04"), b.Author,
				b.Patterns, b.Created, b.Backed, b.Reported, clipLine(b.ID, 12))
		}
		return nil
	})
}

// wisdomKeyOptions is `nova wisdom key`.
type wisdomKeyOptions struct {
	*Env
	JSON bool
}

func newWisdomKeyCmd(env *Env, runF func(context.Context, *wisdomKeyOptions) error) *cobra.Command {
	opts := &wisdomKeyOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Print this workspace's public signing key (what others pass to `nova wisdom trust`)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runWisdomKey)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {key}")
	return cmd
}

func runWisdomKey(ctx context.Context, opts *wisdomKeyOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		k, err := ws.WisdomKey(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]string{"key": k})
		}
		opts.IO.Printf("%s\n", k)
		return nil
	})
}

// wisdomTrustOptions is `nova wisdom trust KEY`.
type wisdomTrustOptions struct {
	*Env
	Key, Note string
	JSON      bool
}

func newWisdomTrustCmd(env *Env, runF func(context.Context, *wisdomTrustOptions) error) *cobra.Command {
	opts := &wisdomTrustOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "trust KEY",
		Short: "Trust a teammate's signing key: backing in bundles it signed counts towards activation",
		Long: "Trust a public key (ed25519:…, as the teammate's `nova wisdom key` prints it). Backing in\n" +
			"bundles that key signed counts towards the 3 backers a pattern needs, bundles imported\n" +
			"before included. One key counts once, whatever author ids it signs.",
		Args: exactArgs(1, "a public key (ed25519:…)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Key = args[0]
			return pick(runF, runWisdomTrust)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Note, "note", "", "who the key belongs to")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the trusted key record")
	return cmd
}

func runWisdomTrust(ctx context.Context, opts *wisdomTrustOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		tk, err := ws.TrustWisdomKey(ctx, opts.Key, opts.Note)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(tk)
		}
		opts.IO.Printf("trusted %s: its signed backing now counts towards activation\n", tk.Key)
		return nil
	})
}

// wisdomUntrustOptions is `nova wisdom untrust KEY`.
type wisdomUntrustOptions struct {
	*Env
	Key string
}

func newWisdomUntrustCmd(env *Env, runF func(context.Context, *wisdomUntrustOptions) error) *cobra.Command {
	opts := &wisdomUntrustOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "untrust KEY",
		Short: "Stop trusting a signing key (patterns it helped activate go back to pending)",
		Args:  exactArgs(1, "a trusted public key"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Key = args[0]
			return pick(runF, runWisdomUntrust)(cmd.Context(), opts)
		},
	}
	return cmd
}

func runWisdomUntrust(ctx context.Context, opts *wisdomUntrustOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		if err := ws.UntrustWisdomKey(ctx, opts.Key); err != nil {
			return err
		}
		opts.IO.Printf("no longer trusted: %s\n", strings.TrimSpace(opts.Key))
		return nil
	})
}

// wisdomTrustedOptions is `nova wisdom trusted`.
type wisdomTrustedOptions struct {
	*Env
	JSON bool
}

func newWisdomTrustedCmd(env *Env, runF func(context.Context, *wisdomTrustedOptions) error) *cobra.Command {
	opts := &wisdomTrustedOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "trusted",
		Short: "List this workspace's key and the keys it trusts",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runWisdomTrusted)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of keys")
	return cmd
}

func runWisdomTrusted(ctx context.Context, opts *wisdomTrustedOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		ks, err := ws.TrustedWisdomKeys(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(ks)
		}
		if len(ks) == 0 {
			opts.IO.Printf("no keys yet: `nova wisdom key` makes this workspace's, `nova wisdom trust KEY` trusts a teammate's\n")
			return nil
		}
		for _, k := range ks {
			note := k.Note
			if k.Self {
				note = "this workspace (always trusted)"
			}
			opts.IO.Printf("%s  %s\n", k.Key, note)
		}
		return nil
	})
}
