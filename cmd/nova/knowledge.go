package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// The knowledge layer's commands: `nova docs`, `nova facts` and
// `nova knowledge` (engine/knowledge; verbs FetchDocs … KnowledgeItem).

// knowledgeUsage turns the knowledge layer's bad-input errors into usage
// errors (exit 2): an empty library, a confidence of 1.5, an unknown scope,
// a malformed fact id or reference.
func knowledgeUsage(err error) error {
	if err == nil {
		return nil
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	if errors.Is(err, docs.ErrInvalid) || errors.Is(err, facts.ErrInvalid) || errors.Is(err, knowledge.ErrInvalid) {
		return &usageError{err}
	}
	return err
}

// joinArgs reads free text given as one quoted argument or as several words.
func joinArgs(args []string) string { return strings.TrimSpace(strings.Join(args, " ")) }

// parseScopeFlag reads --scope (empty: the zero scope, "every scope" for
// searches and listings).
func parseScopeFlag(s string) (facts.Scope, error) {
	if strings.TrimSpace(s) == "" {
		return facts.Scope{}, nil
	}
	sc, err := facts.ParseScope(s)
	if err != nil {
		return facts.Scope{}, usagef("--scope: %w", err)
	}
	return sc, nil
}

func checkConfidenceFlag(x float64, flag string) error {
	if math.IsNaN(x) || x < 0 || x > 1 {
		return usagef("%s %v is outside 0–1", flag, x)
	}
	return nil
}

// age says how long ago t was, briefly ("3m", "5h", "2d").
func age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}

// ago is age as a phrase: "just now", "5h ago".
func ago(now, t time.Time) string {
	a := age(now, t)
	if a == "now" {
		return "just now"
	}
	return a + " ago"
}

// size prints a byte count briefly ("812B", "4.2K", "1.3M").
func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fK", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/(1024*1024))
	}
}

func day(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02")
}

// ============================ nova docs ============================

func newDocsCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "Library documentation for agents: local at exact versions, cached, or from Context7",
		Long: "nova reads documentation for the project's own dependencies from disk at the exact versions the\n" +
			"project uses (Go modules through go.mod and the module cache, npm packages from node_modules),\n" +
			"offline. Other libraries come from Context7 (docs.context7.url, CONTEXT7_API_URL; an API key in\n" +
			"CONTEXT7_API_KEY is sent when set) and are cached for docs.ttl (default 7 days). Agents use the\n" +
			"same path through their fetchDocs tool.",
	}
	cmd.AddCommand(newDocsFetchCmd(env, nil), newDocsListCmd(env, nil), newDocsRemoveCmd(env, nil), newDocsClearCmd(env, nil),
		newDocsStatsCmd(env, nil))
	return cmd
}

// docsFetchOptions is `nova docs fetch LIB [TOPIC]`.
type docsFetchOptions struct {
	*Env
	Library, Topic string
	Fetch          docs.FetchOptions
	JSON           bool
}

func newDocsFetchCmd(env *Env, runF func(context.Context, *docsFetchOptions) error) *cobra.Command {
	opts := &docsFetchOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "fetch LIB [TOPIC]",
		Short: "Print a library's documentation (local first, then the cache, then Context7)",
		Long: "Print documentation for LIB (a Go module path or short name, an npm package, or any library\n" +
			"Context7 knows), optionally narrowed to TOPIC, cut to --max-tokens (default docs.maxTokens).\n" +
			"Where it came from goes to stderr. When nothing can be found the fallback sentence agents see is\n" +
			"printed and the exit code is 1.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usagef("expected LIB and an optional TOPIC, got %s", plural(len(args), "argument", "arguments"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Library = strings.TrimSpace(args[0])
			if opts.Library == "" {
				return usagef("the library name is empty")
			}
			if len(args) == 2 {
				opts.Topic = args[1]
			}
			if n := opts.Fetch.MaxTokens; cmd.Flags().Changed("max-tokens") && (n < 100 || n > 32000) {
				return usagef("--max-tokens %d is outside 100–32000", n)
			}
			return pick(runF, runDocsFetch)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Fetch.MaxTokens, "max-tokens", 0, "cut the text to this many tokens (default docs.maxTokens, 2000)")
	f.BoolVar(&opts.Fetch.Refresh, "refresh", false, "ask Context7 again even when the cache is fresh")
	f.BoolVar(&opts.Fetch.NoNetwork, "offline", false, "answer from local docs and the cache only")
	f.BoolVar(&opts.JSON, "json", false, "print {library,topic,source,content,truncated,fetchedAt,available,...}")
	return cmd
}

func runDocsFetch(ctx context.Context, opts *docsFetchOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		r, err := ws.FetchDocs(ctx, opts.Library, opts.Topic, opts.Fetch)
		if err != nil {
			return knowledgeUsage(err)
		}
		if opts.JSON {
			if err := opts.IO.PrintJSON(r); err != nil {
				return err
			}
		} else {
			if r.Available {
				opts.IO.Logf("%s\n", docsHeader(r, time.Now()))
			}
			opts.IO.Printf("%s\n", strings.TrimRight(r.Content, "\n"))
		}
		if r.Warning != "" && !opts.JSON {
			opts.IO.Logf("warning: %s\n", r.Warning)
		}
		if !r.Available {
			if !opts.JSON {
				opts.IO.Logf("nova: no documentation found for %s; check the name, or the network and docs.context7.url\n", describeDocs(r.Library, r.Topic))
			}
			return &reportedError{msg: "documentation unavailable"}
		}
		return nil
	})
}

func describeDocs(lib, topic string) string {
	if topic != "" {
		return lib + " (" + topic + ")"
	}
	return lib
}

// docsHeader says where a fetch answered from: "react (hooks) — network,
// /facebook/react", "… — local v1.12.1, module cache", "… — cache, fetched
// 2026-11-24 (stale)".
func docsHeader(r docs.Result, now time.Time) string {
	var b strings.Builder
	b.WriteString(describeDocs(r.Library, r.Topic))
	b.WriteString(" — ")
	b.WriteString(r.Source)
	switch r.Source {
	case docs.FromLocal:
		if r.Version != "" {
			b.WriteString(" " + r.Version)
		}
		if r.Origin != "" {
			b.WriteString(", " + r.Origin)
		}
	case docs.FromCache:
		if r.Origin != "" {
			b.WriteString(", " + r.Origin)
		}
		fmt.Fprintf(&b, ", fetched %s (%s)", day(r.FetchedAt), ago(now, r.FetchedAt))
	default:
		if r.Origin != "" {
			b.WriteString(", " + r.Origin)
		}
	}
	if r.Stale {
		b.WriteString(" (stale)")
	}
	fmt.Fprintf(&b, " · %d tokens", r.Tokens)
	if r.Truncated {
		b.WriteString(", truncated")
	}
	return b.String()
}

// docsListOptions is `nova docs list [LIB]`.
type docsListOptions struct {
	*Env
	Library string
	JSON    bool
}

func newDocsListCmd(env *Env, runF func(context.Context, *docsListOptions) error) *cobra.Command {
	opts := &docsListOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list [LIB]",
		Short: "List the cached documentation (all, or one library's), newest first",
		Args:  maxArgs(1, "one library name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Library = args[0]
			}
			return pick(runF, runDocsList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of cache entries")
	return cmd
}

func runDocsList(ctx context.Context, opts *docsListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.DocsList(ctx, opts.Library)
		if err != nil {
			return knowledgeUsage(err)
		}
		if list == nil {
			list = []docs.EntryInfo{}
		}
		if opts.JSON {
			return opts.IO.PrintJSON(list)
		}
		if len(list) == 0 {
			if opts.Library != "" {
				opts.IO.Printf("no cached docs for %s\n", opts.Library)
			} else {
				opts.IO.Printf("the docs cache is empty (`nova docs fetch LIB` fills it; so do agents)\n")
			}
			return nil
		}
		now := time.Now()
		w := tabwriter.NewWriter(opts.IO.Human(), 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(w, "SOURCE\tLIBRARY\tTOPIC\tVERSION\tAGE\tSIZE\tREF")
		for _, e := range list {
			a := age(now, e.FetchedAt)
			if e.Stale {
				a += " (stale)"
			}
			_, _ = fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Source, clipLine(e.Library, 40), clipLine(orDash(e.Topic), 30),
				orDash(e.Version), a, fmt.Sprintf("%s, %d tokens", size(e.Bytes), e.Tokens), e.Ref)
		}
		return w.Flush()
	})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// docsRemoveOptions is `nova docs remove REF...`.
type docsRemoveOptions struct {
	*Env
	Refs []string
	Yes  bool
	JSON bool
}

func newDocsRemoveCmd(env *Env, runF func(context.Context, *docsRemoveOptions) error) *cobra.Command {
	opts := &docsRemoveOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "remove REF...",
		Short: "Remove cached documentation entries by reference (the REF column of `nova docs list`)",
		Long: "Remove cached documentation entries by reference, e.g. docs:context7:react#hooks (the REF column\n" +
			"of `nova docs list`, the ref of a knowledge search). The next fetch reads local docs again or asks\n" +
			"Context7. Asks first on a terminal; pass --yes otherwise. `nova docs clear LIB` removes a library.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give one or more references, e.g. docs:context7:react#hooks (`nova docs list` shows them)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Refs = opts.Refs[:0]
			for _, a := range args {
				ref := strings.TrimSpace(a)
				if _, err := docs.ParseRef(ref); err != nil {
					return knowledgeUsage(err)
				}
				if !slices.Contains(opts.Refs, ref) {
					opts.Refs = append(opts.Refs, ref)
				}
			}
			return pick(runF, runDocsRemove)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {removed:[refs]}")
	return cmd
}

// runDocsRemove checks every reference first: one that names nothing cached
// fails the command (exit 1) before anything is removed or asked.
func runDocsRemove(ctx context.Context, opts *docsRemoveOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.DocsList(ctx, "")
		if err != nil {
			return knowledgeUsage(err)
		}
		byRef := make(map[string]docs.EntryInfo, len(list))
		for _, e := range list {
			byRef[e.Ref] = e
		}
		var names []string
		for _, ref := range opts.Refs {
			e, ok := byRef[ref]
			if !ok {
				return fmt.Errorf("no cached docs at %s (`nova docs list` shows the references)", ref)
			}
			n := e.Library
			if e.Topic != "" {
				n += " (" + e.Topic + ")"
			}
			names = append(names, n+" from "+e.Source)
		}
		q := "Remove the cached docs of " + names[0] + "?"
		if len(names) > 1 {
			q = fmt.Sprintf("Remove %d cached docs (%s)?", len(names), strings.Join(names, ", "))
		}
		if err := opts.confirm(ctx, opts.Yes, q, "remove cached docs", "removed"); err != nil {
			return err
		}
		removed := []string{}
		for _, ref := range opts.Refs {
			if err := ws.DocsRemove(ctx, ref); err != nil {
				return fmt.Errorf("remove %s: %w", ref, err)
			}
			removed = append(removed, ref)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string][]string{"removed": removed})
		}
		for _, ref := range removed {
			opts.IO.Printf("removed %s\n", ref)
		}
		return nil
	})
}

// docsClearOptions is `nova docs clear [LIB]`.
type docsClearOptions struct {
	*Env
	Library string
	Yes     bool
	JSON    bool
}

func newDocsClearCmd(env *Env, runF func(context.Context, *docsClearOptions) error) *cobra.Command {
	opts := &docsClearOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "clear [LIB]",
		Short: "Remove cached documentation (one library's, or all of it)",
		Long: "Remove cached documentation. Local docs are read again from disk on the next fetch; Context7\n" +
			"docs are fetched again (the network is needed). Asks first on a terminal; pass --yes otherwise.",
		Args: maxArgs(1, "one library name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Library = strings.TrimSpace(args[0])
				if opts.Library == "" {
					return usagef("the library name is empty (leave it out to clear everything)")
				}
			}
			return pick(runF, runDocsClear)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {removed}")
	return cmd
}

func runDocsClear(ctx context.Context, opts *docsClearOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.DocsList(ctx, opts.Library)
		if err != nil {
			return knowledgeUsage(err)
		}
		if len(list) == 0 {
			if opts.JSON {
				return opts.IO.PrintJSON(map[string]int{"removed": 0})
			}
			opts.IO.Printf("nothing to clear\n")
			return nil
		}
		q := fmt.Sprintf("Remove all %d cached docs?", len(list))
		if opts.Library != "" {
			q = fmt.Sprintf("Remove %d cached docs of %s?", len(list), opts.Library)
		}
		if err := opts.confirm(ctx, opts.Yes, q, "clear the docs cache", "cleared"); err != nil {
			return err
		}
		n, err := ws.DocsClear(ctx, opts.Library)
		if err != nil {
			return knowledgeUsage(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]int{"removed": n})
		}
		opts.IO.Printf("removed %d cached docs\n", n)
		return nil
	})
}

// docsStatsOptions is `nova docs stats`.
type docsStatsOptions struct {
	*Env
	JSON bool
}

func newDocsStatsCmd(env *Env, runF func(context.Context, *docsStatsOptions) error) *cobra.Command {
	opts := &docsStatsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Summarise the docs cache",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runDocsStats)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {entries,stale,bytes,tokens,bySource,oldest,newest}")
	return cmd
}

func runDocsStats(ctx context.Context, opts *docsStatsOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		st, err := ws.DocsStats(ctx)
		if err != nil {
			return err
		}
		if st.BySource == nil {
			st.BySource = map[string]int{}
		}
		if opts.JSON {
			return opts.IO.PrintJSON(st)
		}
		now := time.Now()
		opts.IO.Printf("entries  %d (%d stale)\n", st.Entries, st.Stale)
		opts.IO.Printf("size     %s, %d tokens\n", size(st.Bytes), st.Tokens)
		opts.IO.Printf("sources  local %d, context7 %d\n", st.BySource[docs.SourceLocal], st.BySource[docs.SourceContext7])
		if st.Entries > 0 {
			opts.IO.Printf("oldest   %s (%s)\nnewest   %s (%s)\n", day(st.Oldest), ago(now, st.Oldest), day(st.Newest), ago(now, st.Newest))
		}
		return nil
	})
}

// ============================ nova facts ============================

func newFactsCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "facts",
		Short: "Scoped facts that change over time: add, search, correct, history, promote",
		Long: "A fact is a short statement with a scope, from broad to narrow: user (all your workspaces, kept\n" +
			"in the user-level file under $NOVA_HOME or the XDG data dir), team (shared with your team's\n" +
			"workspaces once you `nova team join`), workspace, build:ID and agent:NAME.\n" +
			"A search at a narrow scope sees the broader scopes too, never the reverse. Facts are never\n" +
			"overwritten: `correct` closes one (with a reason) and links its replacement; `history` shows the\n" +
			"chain. Builds learn facts at build scope; `promote` moves one outward.",
	}
	cmd.AddCommand(newFactsAddCmd(env, nil), newFactsSearchCmd(env, nil), newFactsCorrectCmd(env, nil),
		newFactsHistoryCmd(env, nil), newFactsListCmd(env, nil), newFactsPromoteCmd(env, nil),
		newFactsKeepCmd(env, nil), newFactsSweepCmd(env, nil),
		newFactsMarkCmd(env, true, nil), newFactsMarkCmd(env, false, nil))
	return cmd
}

// factLine is one fact in a listing.
func factRow(w *tabwriter.Writer, f facts.Fact, score *float64) {
	status := string(f.Status)
	if f.Review != "" && f.Status == facts.StatusValid {
		status = "review"
	}
	sc := ""
	if score != nil {
		sc = fmt.Sprintf("%.2f\t", *score)
	}
	_, _ = fmt.Fprintf(w, "%s\t%s%s\t%s\t%.2f\t%s\t%s\n", f.ID, sc, f.Scope, status, f.Confidence, day(f.ValidFrom), clipLine(factLine(f), 70))
}

// factLine is a fact's text in a listing: a troubleshooting entry leads
// with its category and problem.
func factLine(f facts.Fact) string {
	if f.Problem != "" {
		return "[" + string(f.Category) + "] " + f.Problem + " → " + f.Content
	}
	if f.Category != "" {
		return "[" + string(f.Category) + "] " + f.Content
	}
	return f.Content
}

// validity is a fact's span: "valid since 2026-11-24" or "valid 2026-11-20
// → 2026-11-24, superseded by f2: REASON".
func validity(f facts.Fact) string {
	if f.ValidUntil.IsZero() {
		s := "valid since " + day(f.ValidFrom)
		if f.Archived {
			s += ", archived: " + f.ArchiveReason
		}
		if f.Review != "" {
			s += ", review: " + f.Review
		}
		return s
	}
	s := fmt.Sprintf("valid %s → %s, %s", day(f.ValidFrom), day(f.ValidUntil), f.Status)
	if f.SupersededBy != "" {
		s += " by " + f.SupersededBy
	}
	if f.Reason != "" {
		s += ": " + f.Reason
	}
	return s
}

// factsAddOptions is `nova facts add CONTENT`.
type factsAddOptions struct {
	*Env
	Fact facts.NewFact
	JSON bool
}

func newFactsAddCmd(env *Env, runF func(context.Context, *factsAddOptions) error) *cobra.Command {
	opts := &factsAddOptions{Env: env}
	var scope, tags, category string
	var conf float64
	cmd := &cobra.Command{
		Use:   "add CONTENT",
		Short: "Record a fact (default scope workspace); with --problem, a problem and its solution",
		Args:  minArgs(1, "the fact's text"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Fact.Content = joinArgs(args)
			if opts.Fact.Content == "" {
				return usagef("the fact is empty")
			}
			sc, err := parseScopeFlag(scope)
			if err != nil {
				return err
			}
			opts.Fact.Scope, opts.Fact.Tags = sc, splitTags(tags)
			if category != "" {
				c, err := facts.ParseCategory(category)
				if err != nil {
					return usagef("--category: %v", strings.TrimPrefix(err.Error(), facts.ErrInvalid.Error()+": "))
				}
				opts.Fact.Category = c
			}
			if cmd.Flags().Changed("confidence") {
				if err := checkConfidenceFlag(conf, "--confidence"); err != nil {
					return err
				}
				opts.Fact.Confidence = &conf
			}
			return pick(runF, runFactsAdd)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&scope, "scope", "", "user, team (shared with your team), workspace (default), build:ID or agent:NAME")
	f.StringVar(&tags, "tags", "", "tags, separated by commas")
	f.Float64Var(&conf, "confidence", 0.9, "confidence 0–1")
	f.StringVar(&opts.Fact.Problem, "problem", "", "the problem this fact solves (CONTENT is then the solution)")
	f.StringVar(&category, "category", "", "knowledge (default), experience, or troubleshooting (default with --problem)")
	f.BoolVar(&opts.JSON, "json", false, "print the fact")
	return cmd
}

func runFactsAdd(ctx context.Context, opts *factsAddOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		f, err := ws.AddFact(ctx, opts.Fact)
		if err != nil {
			return knowledgeUsage(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(f)
		}
		if f.Category != "" {
			opts.IO.Printf("added fact %s (%s, %s, confidence %.2f)\n", f.ID, f.Category, f.Scope, f.Confidence)
			return nil
		}
		opts.IO.Printf("added fact %s (%s, confidence %.2f)\n", f.ID, f.Scope, f.Confidence)
		return nil
	})
}

// factsSearchOptions is `nova facts search Q`.
type factsSearchOptions struct {
	*Env
	Query  string
	Search facts.SearchOptions
	JSON   bool
}

func newFactsSearchCmd(env *Env, runF func(context.Context, *factsSearchOptions) error) *cobra.Command {
	opts := &factsSearchOptions{Env: env}
	var scope, recency string
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search facts, best first (a scope sees itself and the broader scopes)",
		Args:  minArgs(1, "a search text"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = joinArgs(args)
			if opts.Query == "" {
				return usagef("the search text is empty")
			}
			sc, err := parseScopeFlag(scope)
			if err != nil {
				return err
			}
			opts.Search.Scope = sc
			r, err := facts.ParseRecency(recency)
			if err != nil {
				return usagef("--recency: %v", err)
			}
			opts.Search.Recency = r
			if err := checkConfidenceFlag(opts.Search.MinConfidence, "--min-confidence"); err != nil {
				return err
			}
			if opts.Search.Limit < 0 || opts.Search.Limit > 200 {
				return usagef("--limit %d is outside 1–200", opts.Search.Limit)
			}
			return pick(runF, runFactsSearch)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&scope, "scope", "", "search as seen from this scope (default: every scope)")
	f.BoolVar(&opts.Search.IncludeInvalidated, "include-invalidated", false, "also show superseded, invalidated and archived facts")
	f.IntVar(&opts.Search.Limit, "limit", 20, "at most this many facts")
	f.Float64Var(&opts.Search.MinConfidence, "min-confidence", 0, "leave out facts below this confidence")
	f.StringVar(&recency, "recency", "any", "any, prefer_recent or prefer_established")
	f.BoolVar(&opts.JSON, "json", false, "print a JSON array of facts with their score")
	return cmd
}

func runFactsSearch(ctx context.Context, opts *factsSearchOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.SearchFacts(ctx, opts.Query, opts.Search)
		if err != nil {
			return knowledgeUsage(err)
		}
		for _, w := range res.Warnings {
			opts.IO.Logf("warning: %s\n", w)
		}
		if res.Facts == nil {
			res.Facts = []facts.Scored{}
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res.Facts)
		}
		if len(res.Facts) == 0 {
			opts.IO.Printf("no facts match %q\n", opts.Query)
			return nil
		}
		w := tabwriter.NewWriter(opts.IO.Human(), 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(w, "ID\tSCORE\tSCOPE\tSTATUS\tCONF\tSINCE\tCONTENT")
		for _, s := range res.Facts {
			sc := s.Score
			factRow(w, s.Fact, &sc)
		}
		return w.Flush()
	})
}

// factsCorrectOptions is `nova facts correct ID --reason R [--replace TEXT]`.
type factsCorrectOptions struct {
	*Env
	ID, Reason, Replacement string
	JSON                    bool
}

func newFactsCorrectCmd(env *Env, runF func(context.Context, *factsCorrectOptions) error) *cobra.Command {
	opts := &factsCorrectOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "correct ID --reason R [--replace TEXT]",
		Short: "Close a fact with a reason and, with --replace, record its linked replacement",
		Long: "Close a fact (validUntil = now, with the reason). With --replace the new text is recorded as a\n" +
			"new fact at the same scope, linked both ways (supersedes / supersededBy). Without it the fact is\n" +
			"invalidated. Nothing is overwritten or deleted: `nova facts history ID` shows the chain.",
		Args: exactArgs(1, "a fact id (f3, u1)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = strings.TrimSpace(args[0])
			if strings.TrimSpace(opts.Reason) == "" {
				return usagef("--reason is required: say why the fact no longer holds")
			}
			if cmd.Flags().Changed("replace") && strings.TrimSpace(opts.Replacement) == "" {
				return usagef("--replace is empty (leave it out to invalidate the fact)")
			}
			return pick(runF, runFactsCorrect)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Reason, "reason", "", "why the fact no longer holds (required)")
	f.StringVar(&opts.Replacement, "replace", "", "the corrected statement")
	f.BoolVar(&opts.JSON, "json", false, "print {old,new}")
	return cmd
}

func runFactsCorrect(ctx context.Context, opts *factsCorrectOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		c, err := ws.CorrectFact(ctx, opts.ID, opts.Reason, opts.Replacement)
		if err != nil {
			return knowledgeUsage(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(c)
		}
		if c.New != nil {
			opts.IO.Printf("%s superseded by %s (%s): %s\n", c.Old.ID, c.New.ID, c.New.Scope, c.Old.Reason)
			return nil
		}
		opts.IO.Printf("%s invalidated: %s\n", c.Old.ID, c.Old.Reason)
		return nil
	})
}

// factsHistoryOptions is `nova facts history ID`.
type factsHistoryOptions struct {
	*Env
	ID      string
	History facts.HistoryOptions
	JSON    bool
}

func newFactsHistoryCmd(env *Env, runF func(context.Context, *factsHistoryOptions) error) *cobra.Command {
	opts := &factsHistoryOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "history ID",
		Short: "Show a fact's correction chain, oldest first",
		Long: "Show a fact's correction chain, oldest first: the newest --limit entries (default " +
			fmt.Sprint(facts.DefaultHistoryLimit) + "). When older entries exist it says so and names the " +
			"--before value that shows them.",
		Args: exactArgs(1, "a fact id (f3, u1)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = strings.TrimSpace(args[0])
			if opts.History.Limit < 0 {
				return usagef("--limit must not be negative")
			}
			return pick(runF, runFactsHistory)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print a JSON array of facts, oldest first (the older-entries note goes to stderr)")
	f.IntVar(&opts.History.Limit, "limit", 0, fmt.Sprintf("show at most N entries, the newest (default %d)", facts.DefaultHistoryLimit))
	f.StringVar(&opts.History.Before, "before", "", "show the entries older than this fact id of the chain")
	return cmd
}

func runFactsHistory(ctx context.Context, opts *factsHistoryOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		page, err := ws.FactHistoryPage(ctx, opts.ID, opts.History)
		if err != nil {
			return knowledgeUsage(err)
		}
		hist := page.Facts
		if hist == nil {
			hist = []facts.Fact{}
		}
		older := ""
		if page.Older {
			older = fmt.Sprintf("older entries exist: --before %s", page.Before)
		}
		if opts.JSON {
			if older != "" {
				opts.IO.Logf("%s\n", older)
			}
			return opts.IO.PrintJSON(hist)
		}
		if older != "" {
			opts.IO.Printf("… %s\n", older)
		}
		for i, f := range hist {
			mark := "●"
			if f.Status != facts.StatusValid {
				mark = "○"
			}
			opts.IO.Printf("%s %-4s %s  [%s]\n", mark, f.ID, validity(f), f.Scope)
			opts.IO.Printf("  │  %s\n", clipLine(f.Content, 100))
			if i < len(hist)-1 {
				opts.IO.Printf("  │\n")
			}
		}
		return nil
	})
}

// factsListOptions is `nova facts list`.
type factsListOptions struct {
	*Env
	List facts.ListOptions
	JSON bool
}

func newFactsListCmd(env *Env, runF func(context.Context, *factsListOptions) error) *cobra.Command {
	opts := &factsListOptions{Env: env}
	var scope string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List facts by scope (broadest first), newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := parseScopeFlag(scope)
			if err != nil {
				return err
			}
			opts.List.Scope = sc
			if opts.List.Limit < 0 {
				return usagef("--limit must not be negative")
			}
			return pick(runF, runFactsList)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&scope, "scope", "", "only this scope (default: every scope)")
	f.BoolVar(&opts.List.IncludeInvalidated, "include-invalidated", false, "also list superseded, invalidated and archived facts")
	f.IntVar(&opts.List.Limit, "limit", 0, "at most this many facts (0: all)")
	f.BoolVar(&opts.JSON, "json", false, "print a JSON array of facts")
	return cmd
}

func runFactsList(ctx context.Context, opts *factsListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.ListFacts(ctx, opts.List)
		if err != nil {
			return knowledgeUsage(err)
		}
		for _, w := range res.Warnings {
			opts.IO.Logf("warning: %s\n", w)
		}
		if res.Facts == nil {
			res.Facts = []facts.Fact{}
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res.Facts)
		}
		if len(res.Facts) == 0 {
			opts.IO.Printf("no facts yet (`nova facts add TEXT` records one; builds learn them too)\n")
			return nil
		}
		w := tabwriter.NewWriter(opts.IO.Human(), 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(w, "ID\tSCOPE\tSTATUS\tCONF\tSINCE\tCONTENT")
		for _, f := range res.Facts {
			factRow(w, f, nil)
		}
		return w.Flush()
	})
}

// factsPromoteOptions is `nova facts promote ID [--to S]`.
type factsPromoteOptions struct {
	*Env
	ID   string
	To   facts.Scope
	JSON bool
}

func newFactsPromoteCmd(env *Env, runF func(context.Context, *factsPromoteOptions) error) *cobra.Command {
	opts := &factsPromoteOptions{Env: env}
	var to string
	cmd := &cobra.Command{
		Use:   "promote ID [--to SCOPE]",
		Short: "Move a fact to a broader scope (a build's lesson to the workspace, a workspace fact to user)",
		Args:  exactArgs(1, "a fact id (f3, u1)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = strings.TrimSpace(args[0])
			sc, err := parseScopeFlag(to)
			if err != nil {
				return usagef("--to%s", strings.TrimPrefix(err.Error(), "--scope"))
			}
			if sc.IsZero() {
				return usagef("--to is empty")
			}
			opts.To = sc
			return pick(runF, runFactsPromote)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&to, "to", "workspace", "the broader scope: workspace, user or build:ID")
	f.BoolVar(&opts.JSON, "json", false, "print {old,new}")
	return cmd
}

func runFactsPromote(ctx context.Context, opts *factsPromoteOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		c, err := ws.PromoteFact(ctx, opts.ID, opts.To)
		if err != nil {
			return knowledgeUsage(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(c)
		}
		if c.New != nil {
			opts.IO.Printf("promoted %s (%s) to %s as %s\n", c.Old.ID, c.Old.Scope, c.New.Scope, c.New.ID)
		}
		return nil
	})
}

// factsKeepOptions is `nova facts keep ID`.
type factsKeepOptions struct {
	*Env
	ID   string
	JSON bool
}

func newFactsKeepCmd(env *Env, runF func(context.Context, *factsKeepOptions) error) *cobra.Command {
	opts := &factsKeepOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "keep ID",
		Short: "Say a fact still holds: restore it from the archive, clear its review flag",
		Args:  exactArgs(1, "a fact id (f3, u1)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = strings.TrimSpace(args[0])
			return pick(runF, runFactsKeep)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the fact")
	return cmd
}

func runFactsKeep(ctx context.Context, opts *factsKeepOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		f, err := ws.ReaffirmFact(ctx, opts.ID)
		if err != nil {
			return knowledgeUsage(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(f)
		}
		opts.IO.Printf("%s kept (%s)\n", f.ID, f.Status)
		return nil
	})
}

// factsSweepOptions is `nova facts sweep`.
type factsSweepOptions struct {
	*Env
	JSON bool
}

func newFactsSweepCmd(env *Env, runF func(context.Context, *factsSweepOptions) error) *cobra.Command {
	opts := &factsSweepOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Archive unhelpful or long-unused facts and flag those naming changed files (runs after every build)",
		Long: "Archive facts used at least 3 times with a help rate under 20 % and facts unused for 90 days,\n" +
			"and flag for review the facts that name a file which changed since. Archived facts are hidden,\n" +
			"never deleted: `nova facts keep ID` brings one back.",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runFactsSweep)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {archived,flagged,warnings}")
	return cmd
}

func runFactsSweep(ctx context.Context, opts *factsSweepOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		rep, err := ws.SweepFacts(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(rep)
		}
		for _, w := range rep.Warnings {
			opts.IO.Logf("warning: %s\n", w)
		}
		opts.IO.Printf("archived %d, flagged %d for review\n", len(rep.Archived), len(rep.Flagged))
		return nil
	})
}

// ============================ nova knowledge ============================

func newKnowledgeCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "knowledge",
		Short: "One search over the vault, facts and cached or local docs",
	}
	cmd.AddCommand(newKnowledgeSearchCmd(env, nil), newKnowledgeShowCmd(env, nil))
	return cmd
}

// knowledgeSearchOptions is `nova knowledge search Q`.
type knowledgeSearchOptions struct {
	*Env
	Query string
	Limit int
	JSON  bool
}

func newKnowledgeSearchCmd(env *Env, runF func(context.Context, *knowledgeSearchOptions) error) *cobra.Command {
	opts := &knowledgeSearchOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the vault, facts and docs at once, best first",
		Long: "Search the taste vault, the facts and the cached or local docs in parallel and merge them into\n" +
			"one ranking. Each hit has a source (vault, facts, docs), a title, a snippet, a score 0–1 and a\n" +
			"reference `nova knowledge show REF` opens. A source that fails is a warning on stderr; the others\n" +
			"still answer.",
		Args: minArgs(1, "a search text"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = joinArgs(args)
			if opts.Query == "" {
				return usagef("the search text is empty")
			}
			if opts.Limit < 1 || opts.Limit > 100 {
				return usagef("--limit %d is outside 1–100", opts.Limit)
			}
			return pick(runF, runKnowledgeSearch)(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Limit, "limit", 10, "at most this many hits")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of {source,title,snippet,score,ref}")
	return cmd
}

func runKnowledgeSearch(ctx context.Context, opts *knowledgeSearchOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.SearchKnowledge(ctx, opts.Query, opts.Limit)
		if err != nil {
			return knowledgeUsage(err)
		}
		for _, w := range res.Warnings {
			opts.IO.Logf("warning: %s\n", w)
		}
		if res.Hits == nil {
			res.Hits = []knowledge.Hit{}
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res.Hits)
		}
		if len(res.Hits) == 0 {
			opts.IO.Printf("nothing matches %q in the vault, facts or docs\n", opts.Query)
			return nil
		}
		for _, h := range res.Hits {
			opts.IO.Printf("%.2f  %-6s %s\n", h.Score, h.Source, clipLine(h.Title, 80))
			if s := strings.TrimSpace(h.Snippet); s != "" {
				opts.IO.Printf("      %s\n", clipLine(s, 120))
			}
			opts.IO.Printf("      %s\n", h.Ref)
		}
		return nil
	})
}

// knowledgeShowOptions is `nova knowledge show REF`.
type knowledgeShowOptions struct {
	*Env
	Ref  string
	JSON bool
}

func newKnowledgeShowCmd(env *Env, runF func(context.Context, *knowledgeShowOptions) error) *cobra.Command {
	opts := &knowledgeShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show REF",
		Short: "Open a knowledge reference (fact:f3, vault:12, docs:SOURCE:LIB#TOPIC)",
		Args:  exactArgs(1, "a reference such as fact:f3, vault:12 or docs:context7:react#hooks"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = strings.TrimSpace(args[0])
			return pick(runF, runKnowledgeShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {ref,source,title,text,fact|node|docs}")
	return cmd
}

func runKnowledgeShow(ctx context.Context, opts *knowledgeShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		it, err := ws.KnowledgeItem(ctx, opts.Ref)
		if err != nil {
			return knowledgeUsage(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(it)
		}
		opts.IO.Printf("%s  [%s] %s\n", it.Ref, it.Source, it.Title)
		switch {
		case it.Fact != nil:
			opts.IO.Printf("%s · confidence %.2f · %s\n", it.Fact.Scope, it.Fact.Confidence, validity(*it.Fact))
		case it.Docs != nil:
			d := it.Docs
			opts.IO.Printf("%s %s %s · fetched %s · %d tokens\n", d.Source, d.Library, orDash(d.Version), day(d.FetchedAt), d.Tokens)
		case it.Node != nil:
			opts.IO.Printf("%s · confidence %.2f\n", it.Node.Type, it.Node.Confidence)
		}
		opts.IO.Printf("\n%s\n", strings.TrimRight(it.Text, "\n"))
		return nil
	})
}

// factsMarkOptions is `nova facts helpful|unhelpful ID`.
type factsMarkOptions struct {
	*Env
	ID      string
	Helpful bool
	JSON    bool
}

func newFactsMarkCmd(env *Env, helpful bool, runF func(context.Context, *factsMarkOptions) error) *cobra.Command {
	opts := &factsMarkOptions{Env: env, Helpful: helpful}
	use, short := "unhelpful ID", "Say a fact did not help: counted as a use; one that keeps not helping is archived"
	if helpful {
		use, short = "helpful ID", "Say a fact helped: counted as a use, it ranks and stays"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1, "a fact id (f3, u1)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = strings.TrimSpace(args[0])
			return pick(runF, runFactsMark)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the fact")
	return cmd
}

func runFactsMark(ctx context.Context, opts *factsMarkOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		f, err := ws.MarkFact(ctx, opts.ID, opts.Helpful)
		if err != nil {
			return knowledgeUsage(err)
		}
		if opts.JSON {
			return opts.IO.PrintJSON(f)
		}
		rate, uses := f.HelpRate()
		opts.IO.Printf("%s: helped %d of %d uses (%.0f%%)", f.ID, f.Helpful, uses, rate*100)
		if f.Archived {
			opts.IO.Printf("; archived: %s (`nova facts keep %s` restores it)", f.ArchiveReason, f.ID)
		}
		opts.IO.Printf("\n")
		return nil
	})
}
