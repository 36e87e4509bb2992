package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/codemap"
)

// mapOptions is `nova map`.
type mapOptions struct {
	*Env
	Task  string
	Limit int
	Defs  int
	Tier  string
	Block bool
	JSON  bool
}

func newMapCmd(env *Env, runF func(context.Context, *mapOptions) error, showF func(context.Context, *mapShowOptions) error) *cobra.Command {
	opts := &mapOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "map",
		Short: "Show the repository map: files and definitions ranked by how much the code uses them",
		Long: "nova keeps a map of the workspace's source (Go, Python, JavaScript/TypeScript, Rust, Java): the\n" +
			"definitions of every file and the names each file uses, updated from file hashes. Agents get the\n" +
			"top of it, ranked for their task, in their prompt (budgets.mapShare), and the findSymbol,\n" +
			"references and outline tools. --task ranks for a task as an agent's prompt would.",
		Args: exactArgs(0, "no arguments (use `nova map show PATH` for one file)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runMap)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Task, "task", "", "rank for this task (the files and identifiers it names first)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "files to list (0: all)")
	cmd.Flags().IntVar(&opts.Defs, "defs", 6, "definitions to list per file (0: all)")
	cmd.Flags().StringVar(&opts.Tier, "tier", "medium", "size the prompt block for this tier (small, medium, large)")
	cmd.Flags().BoolVar(&opts.Block, "block", false, "print the prompt block an agent would get for --task")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {stats, files:[{path, rank, defs}], block, items, lsp} as JSON")
	cmd.AddCommand(newMapShowCmd(env, showF))
	return cmd
}

func runMap(ctx context.Context, opts *mapOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.CodeMap(ctx, engine.CodeMapOptions{Task: opts.Task, Limit: opts.Limit, Tier: opts.Tier})
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res)
		}
		if opts.Block {
			if res.Block == "" {
				opts.IO.Printf("(the map has nothing for this task)\n")
				return nil
			}
			opts.IO.Printf("%s\n", res.Block)
			opts.IO.Printf("(%d tokens, %d files; budget %s)\n", (len([]rune(res.Block))+3)/4, len(res.Items), opts.Tier)
			return nil
		}
		opts.IO.Printf("%s\n", mapSummary(res.Stats))
		opts.IO.Printf("%s\n", lspSummary(res.LSP))
		if len(res.Files) == 0 {
			opts.IO.Printf("no source files mapped\n")
			return nil
		}
		opts.IO.Printf("\n")
		for i, f := range res.Files {
			opts.IO.Printf("%3d. %s  (rank %.4f, %d definitions)\n", i+1, f.Path, f.Rank, len(f.Defs))
			for j, d := range f.Defs {
				if opts.Defs > 0 && j == opts.Defs {
					opts.IO.Printf("       … %d more (nova map show %s)\n", len(f.Defs)-j, f.Path)
					break
				}
				opts.IO.Printf("     %6d│ %s\n", d.Line, clipLine(defSig(d), 110))
			}
		}
		return nil
	})
}

// mapSummary is the map's one-line summary.
func mapSummary(st codemap.Stats) string {
	langs := make([]string, 0, len(st.Langs))
	for l, n := range st.Langs {
		langs = append(langs, fmt.Sprintf("%s %d", l, n))
	}
	sort.Strings(langs)
	s := fmt.Sprintf("code map: %d files", st.Files)
	if len(langs) > 0 {
		s += " (" + strings.Join(langs, ", ") + ")"
	}
	s += fmt.Sprintf(", %d definitions; %d parsed now", st.Defs, st.Parsed)
	if st.Removed > 0 {
		s += fmt.Sprintf(", %d gone", st.Removed)
	}
	if len(st.Skipped) > 0 {
		var why []string
		for w, n := range st.Skipped {
			why = append(why, fmt.Sprintf("%d %s", n, w))
		}
		sort.Strings(why)
		s += "; left out: " + strings.Join(why, ", ")
	}
	return s
}

// lspSummary names the language servers found and missing.
func lspSummary(servers []engine.LanguageServerState) string {
	if len(servers) == 0 {
		return "language servers: off"
	}
	var found, missing []string
	for _, s := range servers {
		if s.Path != "" {
			found = append(found, s.Name)
		} else {
			missing = append(missing, s.Name)
		}
	}
	s := "language servers: "
	if len(found) > 0 {
		s += strings.Join(found, ", ")
	} else {
		s += "none found"
	}
	if len(missing) > 0 {
		s += " (not on the PATH: " + strings.Join(missing, ", ") + ")"
	}
	return s
}

func defSig(d codemap.Def) string {
	sig := d.Signature
	if sig == "" {
		sig = d.Kind + " " + d.Name
	}
	if d.Parent != "" && !strings.Contains(sig, d.Parent) {
		sig = d.Parent + ": " + sig
	}
	return sig
}

// mapShowOptions is `nova map show PATH`.
type mapShowOptions struct {
	*Env
	Path string
	JSON bool
}

func newMapShowCmd(env *Env, runF func(context.Context, *mapShowOptions) error) *cobra.Command {
	opts := &mapShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show PATH",
		Short: "Show one file of the map: its definitions with lines and signatures",
		Args:  exactArgs(1, "one file path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			return pick(runF, runMapShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {path, lang, defs, skipped} as JSON")
	return cmd
}

func runMapShow(ctx context.Context, opts *mapShowOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		o, err := ws.CodeMapFile(ctx, opts.abs(opts.Path))
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(o)
		}
		if o.Skipped != "" {
			opts.IO.Printf("%s (%s) is left out of the map: %s\n", o.Path, o.Lang, o.Skipped)
			return nil
		}
		opts.IO.Printf("%s (%s), %d definitions\n", o.Path, o.Lang, len(o.Defs))
		for _, d := range o.Defs {
			opts.IO.Printf("%6d│ %-9s %s\n", d.Line, d.Kind, clipLine(defSig(d), 120))
		}
		return nil
	})
}
