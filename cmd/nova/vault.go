package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/internal/safefile"
)

func newVaultCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vault",
		Short: "Inspect and edit the taste vault (graph memory of what worked and what did not)",
		Long: "The taste vault holds Strategy, Mistake, Preference, Pattern and Decision nodes linked by\n" +
			"supports, contradicts, refines, replaces and depends_on edges. Builds learn into it and\n" +
			"prompts draw from it. Every listing command accepts --json (one JSON document on stdout).",
	}
	cmd.AddCommand(newVaultAddCmd(env, nil), newVaultListCmd(env, nil), newVaultSearchCmd(env, nil), newVaultShowCmd(env, nil),
		newVaultLinkCmd(env, nil), newVaultUnlinkCmd(env, nil), newVaultTraverseCmd(env, nil),
		newVaultAdjustCmd(env, "reinforce", "Raise a node's confidence by 0.05 (at most 1)", nil),
		newVaultAdjustCmd(env, "demote", "Lower a node's confidence by 0.1 (at least 0)", nil),
		newVaultForgetCmd(env, nil), newVaultConflictsCmd(env, nil), newVaultStatsCmd(env, nil), newVaultTagsCmd(env, nil),
		newVaultExportCmd(env, nil), newVaultImportCmd(env, nil), newVaultContextCmd(env, nil), newVaultArchiveCmd(env))
	return cmd
}

func checkUnit(x float64, flag string) error {
	if x < 0 || x > 1 || x != x {
		return fmt.Errorf("%s %v is outside 0–1: %w", flag, x, vault.ErrInvalid)
	}
	return nil
}

// parseType reads --type ("" = any type).
func parseType(s string) (vault.NodeType, error) {
	if s == "" {
		return "", nil
	}
	return enumValue("type", s, vault.ParseNodeType, names(vault.NodeTypes()))
}

// parseRelation reads --relation.
func parseRelation(s string) (vault.Relation, error) {
	return enumValue("relation", s, vault.ParseRelation, names(vault.Relations()))
}

func nodeTable(io *IOStreams, nodes []vault.Node) {
	io.Printf("%-6s %-10s %-5s %-4s %-24s %s\n", "ID", "TYPE", "CONF", "HELP", "TAGS", "CONTENT")
	for _, n := range nodes {
		nodeRow(io, n)
	}
}

func nodeRow(io *IOStreams, n vault.Node) {
	io.Printf("%-6d %-10s %-5.2f %-4d %-24s %s\n", n.ID, n.Type, n.Confidence, n.HelpfulCount,
		clipLine(strings.Join(n.Tags, ","), 24), clipLine(n.Content, 70))
}

// ---- vault add ----

// vaultAddOptions is `nova vault add`.
type vaultAddOptions struct {
	*Env
	Node vault.Node
	// ZeroConfidence: --confidence 0 was given (the engine reads 0 as "the
	// default"), so the stored node is set to 0 afterwards.
	ZeroConfidence bool
	JSON           bool
}

func newVaultAddCmd(env *Env, runF func(context.Context, *vaultAddOptions) error) *cobra.Command {
	opts := &vaultAddOptions{Env: env}
	var typ, tags string
	cmd := &cobra.Command{
		Use:   "add --type T --content C",
		Short: "Add a node (a duplicate statement reinforces the existing node instead)",
		Long: "Add a node the way builds learn: an equivalent node (same type and statement) is\n" +
			"reinforced instead of duplicated; a node contradicting another (never X / always X,\n" +
			"avoid X / use X, do not X / X) is linked to it by a contradicts edge. A new node that\n" +
			"would take the vault over its tier's cap (free: 500 nodes) is refused and nothing is\n" +
			"written (exit 1). Notes go to stderr.",
		Args: exactArgs(0, "no arguments (use --content)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("type") || !cmd.Flags().Changed("content") {
				return usagef("--type and --content are required")
			}
			if strings.TrimSpace(opts.Node.Content) == "" {
				return fmt.Errorf("--content must not be empty: %w", vault.ErrInvalid)
			}
			t, err := parseType(typ)
			if err != nil {
				return err
			}
			opts.Node.Type, opts.Node.Tags = t, splitTags(tags)
			opts.ZeroConfidence = cmd.Flags().Changed("confidence") && opts.Node.Confidence == 0
			if !opts.ZeroConfidence {
				if err := checkUnit(opts.Node.Confidence, "--confidence"); err != nil {
					return err
				}
			}
			return pick(runF, runVaultAdd)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "", "node type: Strategy, Mistake, Preference, Pattern or Decision (required)")
	f.StringVar(&opts.Node.Content, "content", "", "the short statement (required)")
	f.StringVar(&opts.Node.Title, "title", "", "an optional title")
	f.StringVar(&opts.Node.Body, "body", "", "optional long text (searched in full)")
	f.StringVar(&tags, "tags", "", "tags, comma-separated")
	f.Float64Var(&opts.Node.Confidence, "confidence", 0, "confidence 0–1 (default 0.7)")
	f.StringVar(&opts.Node.Language, "language", "", "programming language the node is about")
	f.StringVar(&opts.Node.Source, "source", "", "where it comes from (default manual)")
	f.BoolVar(&opts.JSON, "json", false, "print the node as JSON")
	return cmd
}

func runVaultAdd(ctx context.Context, opts *vaultAddOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.LearnNode(ctx, opts.Node)
		if err != nil {
			return err
		}
		node := res.Node
		if opts.ZeroConfidence && res.Created {
			if node, err = ws.UpdateNode(ctx, node.ID, vault.Patch{Confidence: vault.Ptr(0.0)}); err != nil {
				return err
			}
		}
		if !res.Created {
			opts.IO.Logf("an equivalent node #%d exists; reinforced it (confidence %.2f)\n", node.ID, node.Confidence)
		}
		if n := len(res.Evicted); n > 0 { // user writes never archive; kept for a changed engine rule
			opts.IO.Logf("%s moved to the archive to make room (`nova vault archive list`)\n", plural(n, "node", "nodes"))
		}
		for _, id := range res.Conflicts {
			opts.IO.Logf("contradicts node #%d (linked; see `nova vault conflicts`)\n", id)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(node)
		}
		verb := "added"
		if !res.Created {
			verb = "reinforced"
		}
		opts.IO.Printf("%s node #%d (%s, confidence %.2f)\n", verb, node.ID, node.Type, node.Confidence)
		return nil
	})
}

// ---- vault list ----

// listPage is how many nodes one ListNodes call fetches when a listing
// pages through the whole vault.
const listPage = 1000

// vaultListOptions is `nova vault list`.
type vaultListOptions struct {
	*Env
	List vault.ListOptions
	JSON bool
}

func newVaultListCmd(env *Env, runF func(context.Context, *vaultListOptions) error) *cobra.Command {
	opts := &vaultListOptions{Env: env}
	var typ string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List nodes, oldest first (filters use the vault's indexes)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.List.Limit < 0 || opts.List.Offset < 0 {
				return usagef("--limit and --offset must not be negative")
			}
			t, err := parseType(typ)
			if err != nil {
				return err
			}
			opts.List.Type = t
			return pick(runF, runVaultList)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "", "only nodes of this type")
	f.StringVar(&opts.List.Tag, "tag", "", "only nodes with this tag")
	f.StringVar(&opts.List.UserID, "user", "", "only nodes of this user")
	f.StringVar(&opts.List.Query, "contains", "", "only nodes whose title, content or tags contain this text")
	f.Float64Var(&opts.List.MinConfidence, "min-confidence", 0, "only nodes at or above this confidence")
	f.IntVar(&opts.List.Limit, "limit", 0, "at most this many nodes (0 = all)")
	f.IntVar(&opts.List.Offset, "offset", 0, "skip this many nodes")
	f.BoolVar(&opts.List.Newest, "newest", false, "newest first")
	f.BoolVar(&opts.JSON, "json", false, "print a JSON array of nodes")
	return cmd
}

// runVaultList pages through the vault listPage nodes at a time and writes
// each page as it comes, so listing a 100k-node vault never holds it whole
// (nor twice, through an owner).
func runVaultList(ctx context.Context, opts *vaultListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		arr := &jsonArray{w: opts.IO.Out}
		want := opts.List.Limit // 0 = all
		o := opts.List
		shown, total := 0, 0
		for first := true; ; first = false {
			o.Limit = listPage
			if want > 0 {
				o.Limit = min(listPage, want-shown)
			}
			p, err := ws.ListNodes(ctx, o)
			if err != nil {
				return err
			}
			if first {
				total = p.Total
				if !opts.JSON && total > 0 {
					opts.IO.Printf("%-6s %-10s %-5s %-4s %-24s %s\n", "ID", "TYPE", "CONF", "HELP", "TAGS", "CONTENT")
				}
			}
			for _, n := range p.Nodes {
				if opts.JSON {
					if err := arr.add(n); err != nil {
						return err
					}
				} else {
					nodeRow(opts.IO, n)
				}
			}
			shown += len(p.Nodes)
			o.Offset += len(p.Nodes)
			if len(p.Nodes) == 0 || (want > 0 && shown >= want) || o.Offset >= p.Total {
				break
			}
		}
		if opts.JSON {
			return arr.close()
		}
		if total == 0 {
			opts.IO.Printf("no nodes\n")
			return nil
		}
		opts.IO.Printf("%d of %s\n", shown, plural(total, "node", "nodes"))
		return nil
	})
}

// ---- vault search ----

// vaultSearchOptions is `nova vault search QUERY...`.
type vaultSearchOptions struct {
	*Env
	Query  string
	Search vault.SearchOptions
	JSON   bool
}

func newVaultSearchCmd(env *Env, runF func(context.Context, *vaultSearchOptions) error) *cobra.Command {
	opts := &vaultSearchOptions{Env: env}
	var typ string
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Rank nodes for a query (BM25 over the full text, blended with confidence)",
		Long: "Rank nodes for a free-text query: BM25 over title, content, tags and full body, with\n" +
			"stemming, synonyms and typo tolerance, blended with confidence and helpful count. When\n" +
			"models.embed is configured and Ollama answers quickly, the top results are re-ranked by\n" +
			"embedding similarity; otherwise search works offline. Best first.",
		Args: minArgs(1, "a query"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Search.Limit <= 0 {
				return usagef("--limit must be positive")
			}
			t, err := parseType(typ)
			if err != nil {
				return err
			}
			opts.Search.Type, opts.Query = t, strings.Join(args, " ")
			return pick(runF, runVaultSearch)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Search.Limit, "limit", 10, "at most this many results")
	f.StringVar(&typ, "type", "", "only nodes of this type")
	f.StringVar(&opts.Search.Tag, "tag", "", "only nodes with this tag")
	f.BoolVar(&opts.Search.NoEmbeddings, "no-embed", false, "skip the embedding re-rank")
	f.BoolVar(&opts.JSON, "json", false, "print a JSON array of nodes with their score")
	return cmd
}

func runVaultSearch(ctx context.Context, opts *vaultSearchOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		hits, err := ws.SearchNodes(ctx, opts.Query, opts.Search)
		if err != nil {
			return err
		}
		if opts.JSON {
			if hits == nil {
				hits = []vault.Scored{}
			}
			return opts.IO.PrintJSON(hits)
		}
		if len(hits) == 0 {
			opts.IO.Printf("no matches for %q\n", opts.Query)
			return nil
		}
		opts.IO.Printf("%-6s %-6s %-10s %-5s %s\n", "ID", "SCORE", "TYPE", "CONF", "CONTENT")
		for _, h := range hits {
			opts.IO.Printf("%-6d %-6.3f %-10s %-5.2f %s\n", h.ID, h.Score, h.Type, h.Confidence, clipLine(h.Content, 80))
		}
		return nil
	})
}

// ---- vault show ----

// showJSON is `nova vault show --json`.
type showJSON struct {
	vault.Node
	// Links groups the node's edges by relation, outgoing and incoming.
	Links []vault.RelationGroup `json:"links"`
}

// vaultShowOptions is `nova vault show ID`.
type vaultShowOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newVaultShowCmd(env *Env, runF func(context.Context, *vaultShowOptions) error) *cobra.Command {
	opts := &vaultShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a node with its body and its edges grouped by relation",
		Args:  exactArgs(1, "a node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "node", "")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runVaultShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the node and its grouped links as JSON")
	return cmd
}

func runVaultShow(ctx context.Context, opts *vaultShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		n, err := ws.GetNode(ctx, opts.ID)
		if err != nil {
			return err
		}
		groups, err := ws.NodeNeighbours(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			if groups == nil {
				groups = []vault.RelationGroup{}
			}
			return opts.IO.PrintJSON(showJSON{Node: n, Links: groups})
		}
		p := opts.IO.Printf
		p("#%d %s  confidence %.2f  helpful %d  user %s\n", n.ID, n.Type, n.Confidence, n.HelpfulCount, n.UserID)
		if n.Title != "" {
			p("title:    %s\n", n.Title)
		}
		p("content:  %s\n", n.Content)
		if len(n.Tags) > 0 {
			p("tags:     %s\n", strings.Join(n.Tags, ", "))
		}
		if n.Language != "" {
			p("language: %s\n", n.Language)
		}
		p("source:   %s\n", n.Source)
		p("created:  %s   updated: %s\n", n.CreatedAt.Local().Format("2006-01-02 15:04"), n.UpdatedAt.Local().Format("2006-01-02 15:04"))
		if n.Body != "" {
			p("\n%s\n", n.Body)
		}
		for _, g := range groups {
			p("\n%s:\n", g.Relation)
			for _, l := range g.Out {
				p("  → #%-5d (%.2f) %s   [edge #%d]\n", l.Node.ID, l.Edge.Strength, clipLine(l.Node.Content, 70), l.Edge.ID)
			}
			for _, l := range g.In {
				p("  ← #%-5d (%.2f) %s   [edge #%d]\n", l.Node.ID, l.Edge.Strength, clipLine(l.Node.Content, 70), l.Edge.ID)
			}
		}
		return nil
	})
}

// ---- vault link / unlink ----

// vaultLinkOptions is `nova vault link SRC DST --relation R`.
type vaultLinkOptions struct {
	*Env
	From, To uint64
	Relation vault.Relation
	Strength float64
	JSON     bool
}

func newVaultLinkCmd(env *Env, runF func(context.Context, *vaultLinkOptions) error) *cobra.Command {
	opts := &vaultLinkOptions{Env: env}
	var relation string
	cmd := &cobra.Command{
		Use:   "link SRC DST --relation R",
		Short: "Link two nodes (supports, contradicts, refines, replaces, depends_on)",
		Args:  exactArgs(2, "a source and a destination node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.From, err = parseID(args[0], "node", ""); err != nil {
				return err
			}
			if opts.To, err = parseID(args[1], "node", ""); err != nil {
				return err
			}
			if !cmd.Flags().Changed("relation") {
				return usagef("--relation is required (supports, contradicts, refines, replaces or depends_on)")
			}
			if opts.Relation, err = parseRelation(relation); err != nil {
				return err
			}
			if err := checkUnit(opts.Strength, "--strength"); err != nil {
				return err
			}
			return pick(runF, runVaultLink)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&relation, "relation", "", "relation: supports, contradicts, refines, replaces or depends_on (required)")
	cmd.Flags().Float64Var(&opts.Strength, "strength", vault.DefaultStrength, "strength 0–1")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the edge as JSON")
	return cmd
}

func runVaultLink(ctx context.Context, opts *vaultLinkOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		e, err := ws.LinkNodes(ctx, opts.From, opts.To, opts.Relation, opts.Strength)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(e)
		}
		opts.IO.Printf("edge #%d: #%d %s #%d (strength %.2f)\n", e.ID, e.From, e.Relation, e.To, e.Strength)
		return nil
	})
}

// vaultUnlinkOptions is `nova vault unlink EDGE` (destructive: asks).
type vaultUnlinkOptions struct {
	*Env
	ID   uint64
	Yes  bool
	JSON bool
}

func newVaultUnlinkCmd(env *Env, runF func(context.Context, *vaultUnlinkOptions) error) *cobra.Command {
	opts := &vaultUnlinkOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "unlink EDGE",
		Short: "Remove an edge by its id (see `nova vault show`; asks first unless --yes)",
		Args:  exactArgs(1, "an edge id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "edge", "")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runVaultUnlink)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {removed: ID}")
	return cmd
}

func runVaultUnlink(ctx context.Context, opts *vaultUnlinkOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		e, err := ws.GetEdge(ctx, opts.ID)
		if err != nil {
			return err
		}
		q := fmt.Sprintf("Remove edge #%d (#%d %s #%d)?", e.ID, e.From, e.Relation, e.To)
		if err := opts.confirm(ctx, opts.Yes, q, "unlink", "removed"); err != nil {
			return err
		}
		if err := ws.UnlinkEdge(ctx, opts.ID); err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]uint64{"removed": opts.ID})
		}
		opts.IO.Printf("removed edge #%d\n", opts.ID)
		return nil
	})
}

// ---- vault traverse ----

// vaultTraverseOptions is `nova vault traverse ID`.
type vaultTraverseOptions struct {
	*Env
	ID       uint64
	Traverse vault.TraverseOptions
	JSON     bool
}

func newVaultTraverseCmd(env *Env, runF func(context.Context, *vaultTraverseOptions) error) *cobra.Command {
	opts := &vaultTraverseOptions{Env: env}
	var relation, direction string
	cmd := &cobra.Command{
		Use:   "traverse ID",
		Short: "Walk the graph breadth first from a node",
		Args:  exactArgs(1, "a node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "node", "")
			if err != nil {
				return err
			}
			opts.ID = id
			if opts.Traverse.Depth < 0 {
				return usagef("--depth must not be negative")
			}
			if relation != "" {
				if opts.Traverse.Relation, err = parseRelation(relation); err != nil {
					return err
				}
			}
			switch direction {
			case "both":
				direction = vault.Both
			case vault.Outgoing, vault.Incoming, vault.Both:
			default:
				return badValue("direction", direction, []string{vault.Outgoing, vault.Incoming, "both"})
			}
			opts.Traverse.Direction = direction
			return pick(runF, runVaultTraverse)(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Traverse.Depth, "depth", 3, "most hops from the node")
	cmd.Flags().StringVar(&relation, "relation", "", "follow only this relation")
	cmd.Flags().StringVar(&direction, "direction", "both", "follow edges out, in or both ways")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the steps as JSON")
	return cmd
}

func runVaultTraverse(ctx context.Context, opts *vaultTraverseOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		steps, err := ws.TraverseNodes(ctx, opts.ID, opts.Traverse)
		if err != nil {
			return err
		}
		if opts.JSON {
			if steps == nil {
				steps = []vault.Step{}
			}
			return opts.IO.PrintJSON(steps)
		}
		for _, s := range steps {
			via := ""
			if s.Via != nil {
				via = fmt.Sprintf(" (via %s #%d→#%d)", s.Via.Relation, s.Via.From, s.Via.To)
			}
			opts.IO.Printf("%s#%d %s%s\n", strings.Repeat("  ", s.Depth), s.Node.ID, clipLine(s.Node.Content, 70), via)
		}
		return nil
	})
}

// ---- vault reinforce / demote ----

// vaultAdjustOptions is `nova vault reinforce|demote ID`.
type vaultAdjustOptions struct {
	*Env
	Demote bool
	ID     uint64
	JSON   bool
}

func newVaultAdjustCmd(env *Env, name, short string, runF func(context.Context, *vaultAdjustOptions) error) *cobra.Command {
	opts := &vaultAdjustOptions{Env: env, Demote: name == "demote"}
	cmd := &cobra.Command{
		Use:   name + " ID",
		Short: short,
		Args:  exactArgs(1, "a node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "node", "")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runVaultAdjust)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the node as JSON")
	return cmd
}

func runVaultAdjust(ctx context.Context, opts *vaultAdjustOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		fn := ws.ReinforceNode
		if opts.Demote {
			fn = ws.DemoteNode
		}
		n, err := fn(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(n)
		}
		opts.IO.Printf("node #%d confidence %.2f\n", n.ID, n.Confidence)
		return nil
	})
}

// ---- vault forget ----

// vaultForgetOptions is `nova vault forget ID` (destructive: asks).
type vaultForgetOptions struct {
	*Env
	ID   uint64
	Yes  bool
	JSON bool
}

func newVaultForgetCmd(env *Env, runF func(context.Context, *vaultForgetOptions) error) *cobra.Command {
	opts := &vaultForgetOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "forget ID",
		Short: "Remove a node and its edges (asks first unless --yes)",
		Args:  exactArgs(1, "a node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "node", "")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runVaultForget)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {removed: ID}")
	return cmd
}

func runVaultForget(ctx context.Context, opts *vaultForgetOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		n, err := ws.GetNode(ctx, opts.ID)
		if err != nil {
			return err
		}
		q := fmt.Sprintf("Forget node #%d (%s: %s) and its edges?", n.ID, n.Type, clipLine(n.Content, 60))
		if err := opts.confirm(ctx, opts.Yes, q, "forget", "forgotten"); err != nil {
			return err
		}
		if err := ws.ForgetNode(ctx, opts.ID); err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]uint64{"removed": opts.ID})
		}
		opts.IO.Printf("forgot node #%d\n", opts.ID)
		return nil
	})
}

// ---- vault conflicts / stats / tags ----

// vaultReadOptions is a vault listing without arguments (conflicts, stats,
// tags).
type vaultReadOptions struct {
	*Env
	JSON bool
}

func newVaultConflictsCmd(env *Env, runF func(context.Context, *vaultReadOptions) error) *cobra.Command {
	opts := &vaultReadOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "conflicts",
		Short: "List pairs of nodes joined by a contradicts edge",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runVaultConflicts)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of {edge,a,b}")
	return cmd
}

func runVaultConflicts(ctx context.Context, opts *vaultReadOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		cs, err := ws.ListConflicts(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if cs == nil {
				cs = []vault.Conflict{}
			}
			return opts.IO.PrintJSON(cs)
		}
		if len(cs) == 0 {
			opts.IO.Printf("no conflicts\n")
			return nil
		}
		for _, c := range cs {
			opts.IO.Printf("edge #%d\n  #%-5d %s\n  #%-5d %s\n", c.Edge.ID, c.A.ID, clipLine(c.A.Content, 70), c.B.ID, clipLine(c.B.Content, 70))
		}
		return nil
	})
}

func newVaultStatsCmd(env *Env, runF func(context.Context, *vaultReadOptions) error) *cobra.Command {
	opts := &vaultReadOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count nodes, edges and nodes per type; average confidence",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runVaultStats)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {nodes,edges,byType,avgConfidence,...,capacity:{tier,cap,nodes,free,archived}}")
	return cmd
}

// vaultStatsJSON is `nova vault stats --json`: the counts plus the capacity
// against the tier's cap.
type vaultStatsJSON struct {
	vault.Stats
	Capacity vault.Capacity `json:"capacity"`
}

func runVaultStats(ctx context.Context, opts *vaultReadOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		st, err := ws.VaultStats(ctx)
		if err != nil {
			return err
		}
		capa, err := ws.VaultCapacity(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(vaultStatsJSON{Stats: st, Capacity: capa})
		}
		opts.IO.Printf("nodes %d, edges %d, average confidence %.2f, %d tags, %d conflicts\n", st.Nodes, st.Edges, st.AvgConfidence, st.Tags, st.Conflicts)
		opts.IO.Printf("%s\n", capacityLine(capa))
		for _, t := range vault.NodeTypes() {
			opts.IO.Printf("  %-10s %d\n", t, st.ByType[string(t)])
		}
		return nil
	})
}

func newVaultTagsCmd(env *Env, runF func(context.Context, *vaultReadOptions) error) *cobra.Command {
	opts := &vaultReadOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "tags",
		Short: "List tags with their node counts",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runVaultTags)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of {tag,count}")
	return cmd
}

func runVaultTags(ctx context.Context, opts *vaultReadOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		tags, err := ws.ListTags(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if tags == nil {
				tags = []vault.TagCount{}
			}
			return opts.IO.PrintJSON(tags)
		}
		for _, t := range tags {
			opts.IO.Printf("%6d  %s\n", t.Count, t.Tag)
		}
		return nil
	})
}

// ---- vault export / import ----

// vaultFileOptions is `nova vault export|import FILE` (- for stdout/stdin).
type vaultFileOptions struct {
	*Env
	File string
	JSON bool
}

func newVaultExportCmd(env *Env, runF func(context.Context, *vaultFileOptions) error) *cobra.Command {
	opts := &vaultFileOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "export FILE.jsonl",
		Short: "Write every node (with body) and edge as JSONL; - for stdout",
		Long: "Write the vault as JSONL: a header line, one line per node (body included) and one per\n" +
			"edge, ids kept. `nova vault import` of the file into an empty vault restores it exactly.\n" +
			"The file is written to a temporary name and renamed, so a failed export leaves no partial file.",
		Args: exactArgs(1, "the output file (or -)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return pick(runF, runVaultExport)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {file,nodes,edges}")
	return cmd
}

func runVaultExport(ctx context.Context, opts *vaultFileOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		if opts.File == "-" {
			// The engine writes files; stream its export through a temporary one.
			dir, err := os.MkdirTemp("", "nova-export-")
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			defer func() { _ = os.RemoveAll(dir) }()
			path := dir + string(os.PathSeparator) + "vault.jsonl"
			if _, err := ws.ExportVault(ctx, path); err != nil {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			defer func() { _ = f.Close() }()
			_, err = io.Copy(opts.IO.Out, f)
			return err
		}
		st, err := ws.ExportVault(ctx, opts.abs(opts.File))
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]any{"file": opts.File, "nodes": st.Nodes, "edges": st.Edges})
		}
		opts.IO.Printf("exported %s and %s to %s\n", plural(st.Nodes, "node", "nodes"), plural(st.Edges, "edge", "edges"), opts.File)
		return nil
	})
}

func newVaultImportCmd(env *Env, runF func(context.Context, *vaultFileOptions) error) *cobra.Command {
	opts := &vaultFileOptions{Env: env}
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
			opts.File = args[0]
			return pick(runF, runVaultImport)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {nodes,edges,replaced}")
	return cmd
}

func runVaultImport(ctx context.Context, opts *vaultFileOptions) error {
	path := opts.abs(opts.File)
	if opts.File == "-" {
		// The engine reads files; spool stdin into a temporary one.
		f, err := os.CreateTemp("", "nova-import-*.jsonl")
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer func() { _ = os.Remove(f.Name()) }()
		_, err = io.Copy(f, opts.IO.In)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("import: read stdin: %w", err)
		}
		path = f.Name()
	} else if st, err := os.Stat(path); err != nil {
		return fmt.Errorf("import: %w", err)
	} else if !st.Mode().IsRegular() {
		// Named on purpose as `-`, stdin may be a pipe; a FILE must be a
		// regular file (a FIFO would block, /dev/zero would never end).
		return fmt.Errorf("import: %s is %s, not a regular file (to read a stream, pass - and pipe it to stdin)", opts.File, safefile.ModeName(st.Mode()))
	}
	if st, err := os.Stat(path); err == nil {
		defer bulkGC(st.Size())()
	}
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		rep, err := ws.ImportVault(ctx, path)
		if err != nil {
			return fmt.Errorf("import %s: %w", opts.File, err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(rep)
		}
		opts.IO.Printf("imported %s and %s (%d replaced)\n", plural(rep.Nodes, "node", "nodes"), plural(rep.Edges, "edge", "edges"), rep.Replaced)
		return nil
	})
}

// ---- vault context ----

// vaultContextOptions is `nova vault context TASK...`.
type vaultContextOptions struct {
	*Env
	Request engine.VaultContextRequest
	JSON    bool
}

func newVaultContextCmd(env *Env, runF func(context.Context, *vaultContextOptions) error) *cobra.Command {
	opts := &vaultContextOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "context TASK...",
		Short: "Preview the <taste_vault_context> block a prompt for TASK would get",
		Args:  minArgs(1, "a task description"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Request.Task = strings.Join(args, " ")
			if t := opts.Request.Tier; t != "" && t != workspace.TierFree && t != workspace.TierPremium {
				return badValue("tier", t, []string{workspace.TierFree, workspace.TierPremium})
			}
			return pick(runF, runVaultContext)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Request.Agent, "agent", "", "the agent that will run the task")
	cmd.Flags().StringVar(&opts.Request.Tier, "tier", "", "vault tier: free or premium (default: the workspace's)")
	cmd.Flags().IntVar(&opts.Request.Budget, "budget", 0, "prompt token budget (default budgets.promptTokens)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {text,tokens,maxTokens,nodeIds,wisdomIds}")
	return cmd
}

func runVaultContext(ctx context.Context, opts *vaultContextOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		vc, err := ws.VaultContext(ctx, opts.Request)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(vc)
		}
		if vc.Text == "" {
			opts.IO.Printf("nothing to inject\n")
			return nil
		}
		opts.IO.Printf("%s\n(%d of %d tokens)\n", vc.Text, vc.Tokens, vc.MaxTokens)
		return nil
	})
}

// capacityLine says where the vault stands against its tier's cap.
func capacityLine(c vault.Capacity) string {
	archived := ""
	if c.Archived > 0 {
		archived = fmt.Sprintf("; %d in the archive (`nova vault archive list`)", c.Archived)
	}
	if c.Cap <= 0 {
		return fmt.Sprintf("tier %s: no node cap%s", c.Tier, archived)
	}
	return fmt.Sprintf("tier %s: %d of %d nodes, %d free%s", c.Tier, c.Nodes, c.Cap, c.Free, archived)
}

// ---- vault archive ----

func newVaultArchiveCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "archive",
		Short: "Nodes the tier cap moved out of the vault to make room for learned ones",
		Long: "When a build, a rehearsal or your approvals teach the vault something new and the\n" +
			"vault is at its tier's cap, the least confident node below the new one is moved to the\n" +
			"archive (never deleted). `nova vault archive restore ID` brings it back with its edges.",
	}
	cmd.AddCommand(newVaultArchiveListCmd(env, nil), newVaultArchiveRestoreCmd(env, nil))
	return cmd
}

// vaultArchiveListOptions is `nova vault archive list`.
type vaultArchiveListOptions struct {
	*Env
	JSON bool
}

func newVaultArchiveListCmd(env *Env, runF func(context.Context, *vaultArchiveListOptions) error) *cobra.Command {
	opts := &vaultArchiveListOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List archived nodes, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runVaultArchiveList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of {node,edges,archivedAt,reason}")
	return cmd
}

func runVaultArchiveList(ctx context.Context, opts *vaultArchiveListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.ListArchived(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if list == nil {
				list = []vault.ArchivedNode{}
			}
			return opts.IO.PrintJSON(list)
		}
		if len(list) == 0 {
			opts.IO.Printf("the archive is empty\n")
			return nil
		}
		opts.IO.Printf("%-6s %-10s %-5s %-16s %-28s %s\n", "ID", "TYPE", "CONF", "ARCHIVED", "REASON", "CONTENT")
		for _, a := range list {
			n := a.Node
			opts.IO.Printf("%-6d %-10s %-5.2f %-16s %-28s %s\n", n.ID, n.Type, n.Confidence,
				a.ArchivedAt.Local().Format("2006-01-02 15:04"), clipLine(a.Reason, 28), clipLine(n.Content, 60))
		}
		opts.IO.Printf("restore one with `nova vault archive restore ID`\n")
		return nil
	})
}

// vaultArchiveRestoreOptions is `nova vault archive restore ID`. Not
// destructive (it brings a node back), so it does not ask.
type vaultArchiveRestoreOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newVaultArchiveRestoreCmd(env *Env, runF func(context.Context, *vaultArchiveRestoreOptions) error) *cobra.Command {
	opts := &vaultArchiveRestoreOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "restore ID",
		Short: "Bring an archived node back with its id and edges (refused over the tier cap)",
		Args:  exactArgs(1, "an archived node id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0], "node", "nova vault archive list")
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runVaultArchiveRestore)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {node,edges,deferred,dropped}")
	return cmd
}

func runVaultArchiveRestore(ctx context.Context, opts *vaultArchiveRestoreOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.RestoreNode(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res)
		}
		opts.IO.Printf("restored node #%d (%d edges, %d waiting for archived nodes)\n", res.Node.ID, res.Edges, res.Deferred)
		if res.Dropped > 0 {
			opts.IO.Logf("%s not restored: their other node is gone\n", plural(res.Dropped, "edge", "edges"))
		}
		return nil
	})
}
