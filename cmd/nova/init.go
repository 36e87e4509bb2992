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
	"github.com/nova-dev/nova/engine/workspace"
)

// initOptions is `nova init [DIR]`.
type initOptions struct {
	*Env
	Dir  string
	JSON bool
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
	opts.IO.Printf("next: `nova doctor` to check Ollama, then `nova` to open the workbench\n")
	return nil
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
