package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
)

func newDBCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "db", Short: "Back up, compact and check the workspace database"}
	cmd.AddCommand(newDBBackupCmd(env, nil), newDBCompactCmd(env, nil), newDBCheckCmd(env, nil))
	return cmd
}

// dbBackupOptions is `nova db backup FILE`.
type dbBackupOptions struct {
	*Env
	File string
	JSON bool
}

func newDBBackupCmd(env *Env, runF func(context.Context, *dbBackupOptions) error) *cobra.Command {
	opts := &dbBackupOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of .nova/nova.db to FILE",
		Args:  exactArgs(1, "the backup file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return pick(runF, runDBBackup)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runDBBackup(ctx context.Context, opts *dbBackupOptions) error {
	return opts.withWorkspace(ctx, true, func(ws engine.Workspace) error {
		rep, err := ws.BackupDB(ctx, opts.abs(opts.File))
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(map[string]any{"file": opts.File, "bytes": rep.Bytes})
		}
		opts.IO.Printf("backed up %s to %s (%d bytes)\n", rep.DBPath, opts.File, rep.Bytes)
		return nil
	})
}

// dbCompactOptions is `nova db compact`: an exclusive operation (the
// database to itself), asked first.
type dbCompactOptions struct {
	*Env
	JSON bool
	Yes  bool
}

func newDBCompactCmd(env *Env, runF func(context.Context, *dbCompactOptions) error) *cobra.Command {
	opts := &dbCompactOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "compact",
		Short: "Rewrite the database without free pages (asks first unless --yes)",
		Long: "Rewrites .nova/nova.db into a fresh file without free pages and swaps it in. It needs the\n" +
			"database to itself: no other nova may have the workspace open.",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runDBCompact)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func runDBCompact(ctx context.Context, opts *dbCompactOptions) error {
	root, err := opts.root()
	if err != nil {
		return err
	}
	if err := opts.confirm(ctx, opts.Yes, "Compact the workspace database (it is rewritten and replaced)?", "compact", "compacted"); err != nil {
		return err
	}
	rep, err := engine.Compact(ctx, root)
	if err != nil {
		return err
	}
	if opts.JSON {
		return opts.IO.PrintJSON(rep)
	}
	opts.IO.Printf("compacted %s: %d → %d bytes\n", rep.DBPath, rep.Before, rep.After)
	return nil
}

// dbCheckOptions is `nova db check`.
type dbCheckOptions struct {
	*Env
	JSON bool
}

func newDBCheckCmd(env *Env, runF func(context.Context, *dbCheckOptions) error) *cobra.Command {
	opts := &dbCheckOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Run bbolt's consistency check",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runDBCheck)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runDBCheck(ctx context.Context, opts *dbCheckOptions) error {
	return opts.withWorkspace(ctx, true, func(ws engine.Workspace) error {
		rep, err := ws.CheckDB(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if err := opts.IO.PrintJSON(map[string]any{"ok": rep.OK, "problems": rep.Problems}); err != nil {
				return err
			}
		} else if rep.OK {
			opts.IO.Printf("%s is consistent\n", rep.DBPath)
		} else {
			for _, p := range rep.Problems {
				opts.IO.Printf("problem: %s\n", p)
			}
		}
		if !rep.OK {
			return &reportedError{msg: fmt.Sprintf("%d problems", len(rep.Problems))}
		}
		return nil
	})
}
