package main

import (
	"context"
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
			if err := a.seed(cmd.Context(), rep.Root); err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(rep)
			}
			a.printf("nova workspace ready in %s\n", filepath.Join(rep.Root, workspace.DirName))
			a.printf("  %d files created, %d kept as they were\n", len(rep.Created), len(rep.Kept))
			a.printf("next: `nova doctor` to check Ollama, then `nova` to open the workbench\n")
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// seed creates the database (and, once the vault exists, imports the
// starter library into it).
func (a *app) seed(ctx context.Context, root string) error {
	ws, err := engine.Open(ctx, engine.Options{Root: root, Getenv: a.getenv})
	if err != nil {
		return err
	}
	return ws.Close()
}
