package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
)

func (a *app) initCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create .nova/ with the built-in defaults (never overwrites your files)",
		Args:  maxArgs(1, "one directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			rep, err := workspace.Init(dir, nova.Defaults)
			if err != nil {
				return err
			}
			starter, err := a.seedReport(cmd.Context(), rep.Root)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(initJSON{InitReport: rep, StarterPatterns: starter})
			}
			a.printf("nova workspace ready in %s\n", filepath.Join(rep.Root, workspace.DirName))
			a.printf("  %d files created, %d kept as they were\n", len(rep.Created), len(rep.Kept))
			if starter.Batch != 0 {
				a.printf("  %d starter patterns imported into the vault (batch %d)\n", starter.Loaded, starter.Batch)
			} else {
				a.printf("  starter patterns already in the vault (%d unchanged)\n", starter.Unchanged)
			}
			a.printf("next: `nova doctor` to check Ollama, then `nova` to open the workbench\n")
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
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
	Errors    int    `json:"errors"`
}

// seed creates the database and imports the starter library into the vault.
func (a *app) seed(ctx context.Context, root string) error {
	_, err := a.seedReport(ctx, root)
	return err
}

// seedReport is seed with the import's counts. Re-running it on an unchanged workspace is a
// no-op; files of the starter library that fail are reported on stderr, not fatal.
func (a *app) seedReport(ctx context.Context, root string) (starterJSON, error) {
	ws, err := engine.Open(ctx, engine.Options{Root: root, Getenv: a.getenv})
	if err != nil {
		return starterJSON{}, err
	}
	defer func() { _ = ws.Close() }()
	res, err := seedStarter(ctx, ws)
	if err != nil {
		return starterJSON{}, fmt.Errorf("import the starter patterns: %w", err)
	}
	for _, e := range res.ErrorDetails {
		a.logf("warning: starter pattern %s: %s\n", e.Path, e.Reason)
	}
	return starterJSON{Batch: res.Batch, Loaded: res.Loaded, Unchanged: res.Unchanged, Errors: res.Errors}, nil
}
