package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/workspace"
)

// initOptions is `nova init [DIR]`.
type initOptions struct {
	*Env
	Dir  string
	JSON bool
	// ImportRules imports the project's rule files (AGENTS.md, …) as
	// workspace facts without asking; NoImportRules never does.
	ImportRules, NoImportRules bool
}

func newInitCmd(env *Env, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create .nova/ with the built-in defaults (never overwrites your files)",
		Args:  maxArgs(1, "one directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = env.Cwd
			if len(args) == 1 {
				opts.Dir = env.abs(args[0])
			}
			return pick(runF, runInit)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&opts.ImportRules, "import-rules", false, "import the project's rule files (AGENTS.md, CLAUDE.md, …) as workspace facts without asking")
	cmd.Flags().BoolVar(&opts.NoImportRules, "no-import-rules", false, "do not offer to import the project's rule files as facts")
	return cmd
}

// initJSON is `nova init --json`: the files report and the starter import.
type initJSON struct {
	workspace.InitReport
	StarterPatterns starterJSON `json:"starterPatterns"`
}

// starterJSON summarises the starter library import of `nova init`.
type starterJSON struct {
	Batch     uint64 `json:"batch"`
	Loaded    int    `json:"loaded"`
	Unchanged int    `json:"unchanged"`
	// Forgotten counts starter patterns the user forgot: never re-imported.
	Forgotten int `json:"forgotten"`
	Errors    int `json:"errors"`
}

func runInit(ctx context.Context, opts *initOptions) error {
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return err
	}
	rep, err := workspace.Init(opts.Dir, nova.Defaults)
	if err != nil {
		return err
	}
	warnUnreadable(opts.IO, rep)
	starter, err := seedStarter(ctx, opts.Env, rep.Root)
	if err != nil {
		return err
	}
	if opts.JSON {
		if opts.ImportRules {
			if _, err := importRules(ctx, opts, rep.Root, false); err != nil {
				return err
			}
		}
		return opts.IO.PrintJSON(initJSON{InitReport: rep, StarterPatterns: starter})
	}
	opts.IO.Printf("nova workspace ready in %s\n", filepath.Join(rep.Root, workspace.DirName))
	opts.IO.Printf("  %s created, %d kept as they were\n", plural(len(rep.Created), "file", "files"), len(rep.Kept))
	if line := checksLine(rep); line != "" {
		opts.IO.Printf("  %s\n", line)
	}
	if starter.Batch != 0 {
		opts.IO.Printf("  %s imported into the vault (batch %d)\n", plural(starter.Loaded, "starter pattern", "starter patterns"), starter.Batch)
	} else {
		opts.IO.Printf("  starter patterns already in the vault (%d unchanged)\n", starter.Unchanged)
	}
	if starter.Forgotten > 0 {
		opts.IO.Printf("  %s you forgot stay forgotten\n", plural(starter.Forgotten, "starter pattern", "starter patterns"))
	}
	if !opts.NoImportRules {
		if _, err := importRules(ctx, opts, rep.Root, !opts.ImportRules); err != nil {
			return err
		}
	}
	opts.IO.Printf("next: `nova doctor` to check Ollama, then `nova` to open the workbench\n")
	return nil
}

// importRules offers (ask) or goes on to import the project's rule files
// as workspace facts, one fact per rule. Whatever the answer, the files go
// into every prompt under budgets.rulesShare. Without a terminal it only
// says how to import them.
func importRules(ctx context.Context, opts *initOptions, root string, ask bool) (int, error) {
	stmts, found, err := promptctx.RuleStatements(root)
	if err != nil {
		opts.IO.Logf("warning: %v\n", err)
	}
	if len(found) == 0 {
		return 0, nil
	}
	if !opts.JSON {
		opts.IO.Printf("  project rules found: %s (they go into every prompt, budgets.rulesShare)\n", strings.Join(found, ", "))
	}
	if len(stmts) == 0 {
		return 0, nil
	}
	if ask {
		if !opts.IO.InTTY {
			opts.IO.Printf("  import them as workspace facts too: nova init --import-rules\n")
			return 0, nil
		}
		ok, err := opts.Prompt(ctx, fmt.Sprintf("Import the %s of %s as workspace facts?", plural(len(stmts), "rule", "rules"), strings.Join(found, ", ")))
		if err != nil || !ok {
			return 0, err
		}
	}
	n := 0
	err = opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		have, err := ws.ListFacts(ctx, facts.ListOptions{})
		if err != nil {
			return err
		}
		known := map[string]bool{}
		for _, f := range have.Facts {
			known[f.Content] = true
		}
		for _, s := range stmts {
			if known[s.Text] {
				continue
			}
			if _, err := ws.AddFact(ctx, facts.NewFact{Content: s.Text, Tags: []string{"rules", s.File}}); err != nil {
				opts.IO.Logf("warning: rule of %s not imported: %v\n", s.File, err)
				continue
			}
			n++
		}
		return nil
	})
	if err == nil && !opts.JSON {
		opts.IO.Printf("  %s imported as workspace facts (nova facts list)\n", plural(n, "rule", "rules"))
	}
	return n, err
}

// checksLine says what init detected as the workspace's checks ("" when
// config.yaml was kept: its checks are the user's).
func checksLine(rep workspace.InitReport) string {
	d := rep.Checks
	switch {
	case d == nil:
		return ""
	case len(d.Unreadable) > 0:
		return "checks: none written (nova could not read every project file); add them to checks: in .nova/config.yaml"
	case len(d.Checks) == 0:
		return "checks: none detected; add the commands that build and test this project to checks: in .nova/config.yaml"
	}
	from := make([]string, len(d.Sources))
	for i, src := range d.Sources {
		from[i], _, _ = strings.Cut(src, " -> ")
	}
	return fmt.Sprintf("checks detected from %s: %s", strings.Join(from, ", "), strings.Join(d.Checks, ", "))
}

// warnUnreadable says on stderr which project files kept init from
// detecting checks.
func warnUnreadable(io *IOStreams, rep workspace.InitReport) {
	if rep.Checks == nil || len(rep.Checks.Unreadable) == 0 {
		return
	}
	io.Logf("warning: no checks detected: nova could not read %s\n", strings.Join(rep.Checks.Unreadable, "; "))
}

// seedStarter creates the database of the workspace at root and imports the
// starter library into its vault. Re-running it on an unchanged workspace
// is a no-op; files of the library that fail are reported on stderr, not
// fatal.
func seedStarter(ctx context.Context, env *Env, root string) (starterJSON, error) {
	env.WorkspaceDir = root
	var out starterJSON
	err := env.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.ImportStarterPatterns(ctx)
		if err != nil {
			return fmt.Errorf("import the starter patterns: %w", err)
		}
		for _, e := range res.ErrorDetails {
			env.IO.Logf("warning: starter pattern %s: %s\n", e.Path, e.Reason)
		}
		out = starterJSON{Batch: res.Batch, Loaded: res.Loaded, Unchanged: res.Unchanged, Forgotten: res.Forgotten, Errors: res.Errors}
		return nil
	})
	return out, err
}
