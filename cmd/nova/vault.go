package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/vault"
)

func (a *app) vaultCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vault",
		Short: "Inspect and edit the taste vault (graph memory of what worked and what did not)",
		Long: "The taste vault holds Strategy, Mistake, Preference, Pattern and Decision nodes linked by\n" +
			"supports, contradicts, refines, replaces and depends_on edges. Builds learn into it and\n" +
			"prompts draw from it. Every listing command accepts --json (one JSON document on stdout).",
	}
	cmd.AddCommand(a.vaultAddCmd(), a.vaultListCmd(), a.vaultSearchCmd(), a.vaultShowCmd(),
		a.vaultLinkCmd(), a.vaultUnlinkCmd(), a.vaultTraverseCmd(),
		a.vaultAdjustCmd("reinforce", "Raise a node's confidence by 0.05 (at most 1)"),
		a.vaultAdjustCmd("demote", "Lower a node's confidence by 0.1 (at least 0)"),
		a.vaultForgetCmd(), a.vaultConflictsCmd(), a.vaultStatsCmd(), a.vaultTagsCmd(),
		a.vaultExportCmd(), a.vaultImportCmd(), a.vaultContextCmd())
	return cmd
}

// withVault opens the workspace (read-only for reads) and runs fn.
func (a *app) withVault(ctx context.Context, readOnly bool, fn func(ws *engine.Local, v *vault.Vault) error) error {
	ws, err := a.open(ctx, readOnly)
	if err != nil {
		return err
	}
	defer func() { _ = ws.Close() }()
	return fn(ws, ws.Vault())
}

// parseNodeID parses a node, edge or pattern id argument.
func parseNodeID(s, what string) (uint64, error) {
	id, ok := positiveID(s)
	if !ok {
		return 0, usagef("%q is not a %s id (a positive number)", s, what)
	}
	return id, nil
}

func splitTags(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func (a *app) vaultAddCmd() *cobra.Command {
	var (
		typ, content, title, body, tags, language, source string
		confidence                                        float64
		asJSON                                            bool
	)
	cmd := &cobra.Command{
		Use:   "add --type T --content C",
		Short: "Add a node (a duplicate statement reinforces the existing node instead)",
		Long: "Add a node the way builds learn: an equivalent node (same type and statement) is\n" +
			"reinforced instead of duplicated; a full free-tier vault (500 nodes) evicts its\n" +
			"lowest-confidence node; a node contradicting another (never X / always X, avoid X /\n" +
			"use X, do not X / X) is linked to it by a contradicts edge. Notes go to stderr.",
		Args: exactArgs(0, "no arguments (use --content)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("type") || !cmd.Flags().Changed("content") {
				return usagef("--type and --content are required")
			}
			if strings.TrimSpace(content) == "" {
				return fmt.Errorf("--content must not be empty: %w", vault.ErrInvalid)
			}
			t, err := vault.ParseNodeType(typ)
			if err != nil {
				return err
			}
			explicitZero := cmd.Flags().Changed("confidence") && confidence == 0
			n := vault.Node{Type: t, Content: content, Title: title, Body: body, Tags: splitTags(tags),
				Confidence: confidence, Language: language, Source: source}
			if !explicitZero {
				if err := checkUnit(confidence, "--confidence"); err != nil {
					return err
				}
			}
			return a.withVault(cmd.Context(), false, func(_ *engine.Local, v *vault.Vault) error {
				res, err := v.Learn(cmd.Context(), n)
				if err != nil {
					return err
				}
				node := res.Node
				if explicitZero && res.Created {
					if node, err = v.Update(cmd.Context(), node.ID, vault.Patch{Confidence: vault.Ptr(0.0)}); err != nil {
						return err
					}
				}
				if !res.Created {
					a.logf("an equivalent node #%d exists; reinforced it (confidence %.2f)\n", node.ID, node.Confidence)
				}
				for _, id := range res.Evicted {
					a.logf("evicted node #%d (lowest confidence; the %s tier keeps %d nodes)\n", id, v.Options().Tier, v.Limits().MaxNodes)
				}
				for _, id := range res.Conflicts {
					a.logf("contradicts node #%d (linked; see `nova vault conflicts`)\n", id)
				}
				if asJSON {
					return a.printJSON(node)
				}
				verb := "added"
				if !res.Created {
					verb = "reinforced"
				}
				a.printf("%s node #%d (%s, confidence %.2f)\n", verb, node.ID, node.Type, node.Confidence)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "", "Strategy, Mistake, Preference, Pattern or Decision (required)")
	f.StringVar(&content, "content", "", "the short statement (required)")
	f.StringVar(&title, "title", "", "an optional title")
	f.StringVar(&body, "body", "", "optional long text (searched in full)")
	f.StringVar(&tags, "tags", "", "comma-separated tags")
	f.Float64Var(&confidence, "confidence", 0, "confidence 0–1 (default 0.7)")
	f.StringVar(&language, "language", "", "programming language the node is about")
	f.StringVar(&source, "source", "", "where it comes from (default manual)")
	f.BoolVar(&asJSON, "json", false, "print the node as JSON")
	return cmd
}

func checkUnit(x float64, flag string) error {
	if x < 0 || x > 1 || x != x {
		return fmt.Errorf("%s %v is outside 0–1: %w", flag, x, vault.ErrInvalid)
	}
	return nil
}

func nodeTable(a *app, nodes []vault.Node) {
	a.printf("%-6s %-10s %-5s %-4s %-24s %s\n", "ID", "TYPE", "CONF", "HELP", "TAGS", "CONTENT")
	for _, n := range nodes {
		a.printf("%-6d %-10s %-5.2f %-4d %-24s %s\n", n.ID, n.Type, n.Confidence, n.HelpfulCount,
			clipLine(strings.Join(n.Tags, ","), 24), clipLine(n.Content, 70))
	}
}

func (a *app) vaultListCmd() *cobra.Command {
	var (
		typ, tag, user, query string
		limit, offset         int
		newest, asJSON        bool
		minConf               float64
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List nodes, oldest first (filters use the vault's indexes)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 0 || offset < 0 {
				return usagef("--limit and --offset must not be negative")
			}
			var t vault.NodeType
			if typ != "" {
				var err error
				if t, err = vault.ParseNodeType(typ); err != nil {
					return err
				}
			}
			return a.withVault(cmd.Context(), true, func(_ *engine.Local, v *vault.Vault) error {
				p, err := v.List(cmd.Context(), vault.ListOptions{Type: t, Tag: tag, UserID: user, Query: query,
					MinConfidence: minConf, Offset: offset, Limit: limit, Newest: newest})
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(p.Nodes)
				}
				if p.Total == 0 {
					a.printf("no nodes\n")
					return nil
				}
				nodeTable(a, p.Nodes)
				a.printf("%d of %d nodes\n", len(p.Nodes), p.Total)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "", "only nodes of this type")
	f.StringVar(&tag, "tag", "", "only nodes with this tag")
	f.StringVar(&user, "user", "", "only nodes of this user")
	f.StringVar(&query, "contains", "", "only nodes whose title, content or tags contain this text")
	f.Float64Var(&minConf, "min-confidence", 0, "only nodes at or above this confidence")
	f.IntVar(&limit, "limit", 0, "at most this many nodes (0 = all)")
	f.IntVar(&offset, "offset", 0, "skip this many nodes")
	f.BoolVar(&newest, "newest", false, "newest first")
	f.BoolVar(&asJSON, "json", false, "print a JSON array of nodes")
	return cmd
}

func (a *app) vaultSearchCmd() *cobra.Command {
	var (
		limit          int
		typ, tag       string
		asJSON, noEmbd bool
	)
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Rank nodes for a query (BM25 over the full text, blended with confidence)",
		Long: "Rank nodes for a free-text query: BM25 over title, content, tags and full body, with\n" +
			"stemming, synonyms and typo tolerance, blended with confidence and helpful count. When\n" +
			"models.embed is configured and Ollama answers quickly, the top results are re-ranked by\n" +
			"embedding similarity; otherwise search works offline. Best first.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("expected a query")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit <= 0 {
				return usagef("--limit must be positive")
			}
			var t vault.NodeType
			if typ != "" {
				var err error
				if t, err = vault.ParseNodeType(typ); err != nil {
					return err
				}
			}
			query := strings.Join(args, " ")
			return a.withVault(cmd.Context(), true, func(_ *engine.Local, v *vault.Vault) error {
				hits, err := v.Search(cmd.Context(), query, vault.SearchOptions{Limit: limit, Type: t, Tag: tag, NoEmbeddings: noEmbd})
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(hits)
				}
				if len(hits) == 0 {
					a.printf("no matches for %q\n", query)
					return nil
				}
				a.printf("%-6s %-6s %-10s %-5s %s\n", "ID", "SCORE", "TYPE", "CONF", "CONTENT")
				for _, h := range hits {
					a.printf("%-6d %-6.3f %-10s %-5.2f %s\n", h.ID, h.Score, h.Type, h.Confidence, clipLine(h.Content, 80))
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&limit, "limit", 10, "at most this many results")
	f.StringVar(&typ, "type", "", "only nodes of this type")
	f.StringVar(&tag, "tag", "", "only nodes with this tag")
	f.BoolVar(&noEmbd, "no-embed", false, "skip the embedding re-rank")
	f.BoolVar(&asJSON, "json", false, "print a JSON array of nodes with their score")
	return cmd
}

// showJSON is `nova vault show --json`.
type showJSON struct {
	vault.Node
	// Links groups the node's edges by relation, outgoing and incoming.
	Links []vault.RelationGroup `json:"links"`
}

func (a *app) vaultShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a node with its body and its edges grouped by relation",
		Args:  exactArgs(1, "a node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseNodeID(args[0], "node")
			if err != nil {
				return err
			}
			return a.withVault(cmd.Context(), true, func(_ *engine.Local, v *vault.Vault) error {
				n, err := v.Get(cmd.Context(), id)
				if err != nil {
					return err
				}
				groups, err := v.Neighbours(cmd.Context(), id)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(showJSON{Node: n, Links: groups})
				}
				a.printf("#%d %s  confidence %.2f  helpful %d  user %s\n", n.ID, n.Type, n.Confidence, n.HelpfulCount, n.UserID)
				if n.Title != "" {
					a.printf("title:    %s\n", n.Title)
				}
				a.printf("content:  %s\n", n.Content)
				if len(n.Tags) > 0 {
					a.printf("tags:     %s\n", strings.Join(n.Tags, ", "))
				}
				if n.Language != "" {
					a.printf("language: %s\n", n.Language)
				}
				a.printf("source:   %s\n", n.Source)
				a.printf("created:  %s   updated: %s\n", n.CreatedAt.Local().Format("2006-01-02 15:04"), n.UpdatedAt.Local().Format("2006-01-02 15:04"))
				if n.Body != "" {
					a.printf("\n%s\n", n.Body)
				}
				for _, g := range groups {
					a.printf("\n%s:\n", g.Relation)
					for _, l := range g.Out {
						a.printf("  → #%-5d (%.2f) %s\n", l.Node.ID, l.Edge.Strength, clipLine(l.Node.Content, 70))
					}
					for _, l := range g.In {
						a.printf("  ← #%-5d (%.2f) %s\n", l.Node.ID, l.Edge.Strength, clipLine(l.Node.Content, 70))
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the node and its grouped links as JSON")
	return cmd
}

func (a *app) vaultLinkCmd() *cobra.Command {
	var (
		relation string
		strength float64
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "link SRC DST --relation R",
		Short: "Link two nodes (supports, contradicts, refines, replaces, depends_on)",
		Args:  exactArgs(2, "a source and a destination node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			from, err := parseNodeID(args[0], "node")
			if err != nil {
				return err
			}
			to, err := parseNodeID(args[1], "node")
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("relation") {
				return usagef("--relation is required (supports, contradicts, refines, replaces or depends_on)")
			}
			rel, err := vault.ParseRelation(relation)
			if err != nil {
				return err
			}
			if err := checkUnit(strength, "--strength"); err != nil {
				return err
			}
			return a.withVault(cmd.Context(), false, func(_ *engine.Local, v *vault.Vault) error {
				e, err := v.Link(cmd.Context(), from, to, rel, strength)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(e)
				}
				a.printf("edge #%d: #%d %s #%d (strength %.2f)\n", e.ID, e.From, e.Relation, e.To, e.Strength)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&relation, "relation", "", "supports, contradicts, refines, replaces or depends_on (required)")
	cmd.Flags().Float64Var(&strength, "strength", vault.DefaultStrength, "strength 0–1")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the edge as JSON")
	return cmd
}

func (a *app) vaultUnlinkCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "unlink EDGE",
		Short: "Remove an edge by its id (see `nova vault show`)",
		Args:  exactArgs(1, "an edge id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseNodeID(args[0], "edge")
			if err != nil {
				return err
			}
			return a.withVault(cmd.Context(), false, func(_ *engine.Local, v *vault.Vault) error {
				if err := v.Unlink(cmd.Context(), id); err != nil {
					return err
				}
				a.printf("removed edge #%d\n", id)
				return nil
			})
		},
	}
}

func (a *app) vaultTraverseCmd() *cobra.Command {
	var (
		depth               int
		relation, direction string
		asJSON              bool
	)
	cmd := &cobra.Command{
		Use:   "traverse ID",
		Short: "Walk the graph breadth first from a node",
		Args:  exactArgs(1, "a node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseNodeID(args[0], "node")
			if err != nil {
				return err
			}
			if depth < 0 {
				return usagef("--depth must not be negative")
			}
			var rel vault.Relation
			if relation != "" {
				if rel, err = vault.ParseRelation(relation); err != nil {
					return err
				}
			}
			switch direction {
			case "both":
				direction = vault.Both
			case vault.Outgoing, vault.Incoming, vault.Both:
			default:
				return usagef("--direction must be out, in or both, got %q", direction)
			}
			return a.withVault(cmd.Context(), true, func(_ *engine.Local, v *vault.Vault) error {
				steps, err := v.Traverse(cmd.Context(), id, vault.TraverseOptions{Depth: depth, Relation: rel, Direction: direction})
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(steps)
				}
				for _, s := range steps {
					via := ""
					if s.Via != nil {
						via = fmt.Sprintf(" (via %s #%d→#%d)", s.Via.Relation, s.Via.From, s.Via.To)
					}
					a.printf("%s#%d %s%s\n", strings.Repeat("  ", s.Depth), s.Node.ID, clipLine(s.Node.Content, 70), via)
				}
				return nil
			})
		},
	}
	cmd.Flags().IntVar(&depth, "depth", 3, "most hops from the node")
	cmd.Flags().StringVar(&relation, "relation", "", "follow only this relation")
	cmd.Flags().StringVar(&direction, "direction", "both", "out, in or both")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the steps as JSON")
	return cmd
}

func (a *app) vaultAdjustCmd(name, short string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   name + " ID",
		Short: short,
		Args:  exactArgs(1, "a node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseNodeID(args[0], "node")
			if err != nil {
				return err
			}
			return a.withVault(cmd.Context(), false, func(_ *engine.Local, v *vault.Vault) error {
				fn := v.Reinforce
				if name == "demote" {
					fn = v.Demote
				}
				n, err := fn(cmd.Context(), id)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(n)
				}
				a.printf("node #%d confidence %.2f\n", n.ID, n.Confidence)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the node as JSON")
	return cmd
}

func (a *app) vaultForgetCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "forget ID",
		Short: "Remove a node and its edges",
		Args:  exactArgs(1, "a node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseNodeID(args[0], "node")
			if err != nil {
				return err
			}
			return a.withVault(cmd.Context(), false, func(_ *engine.Local, v *vault.Vault) error {
				if err := v.Remove(cmd.Context(), id); err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(map[string]uint64{"removed": id})
				}
				a.printf("forgot node #%d\n", id)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {removed: ID}")
	return cmd
}

func (a *app) vaultConflictsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "conflicts",
		Short: "List pairs of nodes joined by a contradicts edge",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withVault(cmd.Context(), true, func(_ *engine.Local, v *vault.Vault) error {
				cs, err := v.Conflicts(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(cs)
				}
				if len(cs) == 0 {
					a.printf("no conflicts\n")
					return nil
				}
				for _, c := range cs {
					a.printf("edge #%d\n  #%-5d %s\n  #%-5d %s\n", c.Edge.ID, c.A.ID, clipLine(c.A.Content, 70), c.B.ID, clipLine(c.B.Content, 70))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of {edge,a,b}")
	return cmd
}

func (a *app) vaultStatsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count nodes, edges and nodes per type; average confidence",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withVault(cmd.Context(), true, func(_ *engine.Local, v *vault.Vault) error {
				st, err := v.Stats(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(st)
				}
				a.printf("nodes %d, edges %d, average confidence %.2f, %d tags, %d conflicts\n", st.Nodes, st.Edges, st.AvgConfidence, st.Tags, st.Conflicts)
				for _, t := range vault.NodeTypes() {
					a.printf("  %-10s %d\n", t, st.ByType[string(t)])
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {nodes,edges,byType,avgConfidence,...}")
	return cmd
}

func (a *app) vaultTagsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tags",
		Short: "List tags with their node counts",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withVault(cmd.Context(), true, func(_ *engine.Local, v *vault.Vault) error {
				tags, err := v.Tags(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(tags)
				}
				for _, t := range tags {
					a.printf("%6d  %s\n", t.Count, t.Tag)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of {tag,count}")
	return cmd
}

func (a *app) vaultExportCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "export FILE.jsonl",
		Short: "Write every node (with body) and edge as JSONL; - for stdout",
		Long: "Write the vault as JSONL: a header line, one line per node (body included) and one per\n" +
			"edge, ids kept. `nova vault import` of the file into an empty vault restores it exactly.\n" +
			"The file is written to a temporary name and renamed, so a failed export leaves no partial file.",
		Args: exactArgs(1, "the output file (or -)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withVault(cmd.Context(), true, func(_ *engine.Local, v *vault.Vault) error {
				if args[0] == "-" {
					_, err := v.Export(cmd.Context(), a.stdout)
					return err
				}
				st, err := exportFile(cmd.Context(), v, args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(map[string]any{"file": args[0], "nodes": st.Nodes, "edges": st.Edges})
				}
				a.printf("exported %d nodes and %d edges to %s\n", st.Nodes, st.Edges, args[0])
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {file,nodes,edges}")
	return cmd
}

func exportFile(ctx context.Context, v *vault.Vault, path string) (vault.ExportStats, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return vault.ExportStats{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), ".nova-export-*")
	if err != nil {
		return vault.ExportStats{}, fmt.Errorf("export: %w", err)
	}
	st, err := v.Export(ctx, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), abs)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return st, fmt.Errorf("export %s: %w", path, err)
	}
	return st, nil
}

func (a *app) vaultImportCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "import FILE.jsonl",
		Short: "Import a JSONL export (ids kept); whole file or nothing; - for stdin",
		Long: "Import nodes and edges from a JSONL file written by `nova vault export` (or by hand:\n" +
			"one object per line, {\"kind\":\"node\",\"id\":...} or {\"kind\":\"edge\",...}). Ids are kept;\n" +
			"a node or edge whose id exists is replaced.\n\n" +
			"The import is whole-file-or-nothing: every line is checked first, and if any line is bad\n" +
			"(malformed JSON, unknown type or relation, confidence outside 0–1, empty content, an edge\n" +
			"to a node that exists nowhere) nothing is imported and every bad line is reported with\n" +
			"its line number (exit 1).",
		Args: exactArgs(1, "the input file (or -)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader = os.Stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return fmt.Errorf("import: %w", err)
				}
				defer func() { _ = f.Close() }()
				r = f
			}
			return a.withVault(cmd.Context(), false, func(_ *engine.Local, v *vault.Vault) error {
				rep, err := v.Import(cmd.Context(), r)
				if err != nil {
					return fmt.Errorf("import %s: %w", args[0], err)
				}
				if asJSON {
					return a.printJSON(rep)
				}
				a.printf("imported %d nodes and %d edges (%d replaced)\n", rep.Nodes, rep.Edges, rep.Replaced)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {nodes,edges,replaced}")
	return cmd
}

func (a *app) vaultContextCmd() *cobra.Command {
	var (
		agent, tier string
		budget      int
		asJSON      bool
	)
	cmd := &cobra.Command{
		Use:   "context TASK...",
		Short: "Preview the <taste_vault_context> block a prompt for TASK would get",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("expected a task description")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withVault(cmd.Context(), true, func(ws *engine.Local, v *vault.Vault) error {
				b := budget
				if b <= 0 {
					b = ws.Config().Budgets.PromptTokens
				}
				vc, err := v.BuildVaultContext(cmd.Context(), strings.Join(args, " "), agent, tier, b)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(vc)
				}
				if vc.Text == "" {
					a.printf("nothing to inject\n")
					return nil
				}
				a.printf("%s\n(%d of %d tokens)\n", vc.Text, vc.Tokens, vc.MaxTokens)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent that will run the task")
	cmd.Flags().StringVar(&tier, "tier", "", "free or premium (default: the workspace's tier)")
	cmd.Flags().IntVar(&budget, "budget", 0, "prompt token budget (default budgets.promptTokens)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {text,tokens,maxTokens,nodeIds,wisdomIds}")
	return cmd
}
