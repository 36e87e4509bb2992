package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

func (a *app) dbCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "db", Short: "Back up, compact and check the workspace database"}
	var asJSON bool
	backup := &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of .nova/nova.db to FILE",
		Args:  exactArgs(1, "the backup file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			n, err := ws.DB().BackupFile(args[0], storage.BackupOptions{})
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(map[string]any{"file": args[0], "bytes": n})
			}
			a.printf("backed up %s to %s (%d bytes)\n", ws.Info().DBPath, args[0], n)
			return nil
		},
	}
	compact := &cobra.Command{
		Use:   "compact",
		Short: "Rewrite the database without free pages",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := a.root()
			if err != nil {
				return err
			}
			path := (&workspace.Workspace{Root: root}).DBPath()
			st, err := storage.Compact(path, storage.Options{})
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(st)
			}
			a.printf("compacted %s: %d → %d bytes\n", path, st.Before, st.After)
			return nil
		},
	}
	check := &cobra.Command{
		Use:   "check",
		Short: "Run bbolt's consistency check",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			problems := ws.DB().Check()
			if asJSON {
				list := make([]string, 0, len(problems))
				for _, p := range problems {
					list = append(list, p.Error())
				}
				if err := a.printJSON(map[string]any{"ok": len(problems) == 0, "problems": list}); err != nil {
					return err
				}
			} else if len(problems) == 0 {
				a.printf("%s is consistent\n", ws.Info().DBPath)
			} else {
				for _, p := range problems {
					a.printf("problem: %v\n", p)
				}
			}
			if len(problems) > 0 {
				return &reportedError{msg: fmt.Sprintf("%d problems", len(problems))}
			}
			return nil
		},
	}
	for _, c := range []*cobra.Command{backup, compact, check} {
		c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
		cmd.AddCommand(c)
	}
	return cmd
}
