package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
)

func newDBCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "db", Short: "Back up, compact, check and recover the workspace database"}
	cmd.AddCommand(newDBBackupCmd(env, nil), newDBCompactCmd(env, nil), newDBCheckCmd(env, nil), newDBRecoverCmd(env, nil))
	return cmd
}

// dbBackupOptions is `nova db backup FILE`.
type dbBackupOptions struct {
	*Env
	File  string
	JSON  bool
	Force bool
}

func newDBBackupCmd(env *Env, runF func(context.Context, *dbBackupOptions) error) *cobra.Command {
	opts := &dbBackupOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of .nova/nova.db to FILE (an existing FILE needs --force)",
		Args:  exactArgs(1, "the backup file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return pick(runF, runDBBackup)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace FILE if it exists")
	return cmd
}

func runDBBackup(ctx context.Context, opts *dbBackupOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		rep, err := ws.BackupDB(ctx, opts.abs(opts.File), engine.BackupOptions{Force: opts.Force})
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
	var rep engine.CompactReport
	err = runExclusive(ctx, opts.Env, root, "db compact", func(ctx context.Context) error {
		var err error
		rep, err = engine.Compact(ctx, root)
		return err
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		return opts.IO.PrintJSON(rep)
	}
	opts.IO.Printf("compacted %s: %d → %d bytes\n", rep.DBPath, rep.Before, rep.After)
	for _, l := range rep.Removed {
		opts.IO.Printf("removed the leftover of a killed %s: %s (%d bytes)\n", leftoverOp(l.Kind), l.Path, l.Size)
	}
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
	err := opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		rep, err := ws.CheckDB(ctx)
		if err != nil {
			return err
		}
		return reportDBCheck(opts, rep)
	})
	if errors.Is(err, engine.ErrDamaged) && opts.JSON {
		// The open refused the file: that is the check's finding, reported
		// as one (the text mode prints the open's message, which says what
		// to do).
		root, rerr := opts.root()
		if rerr != nil {
			return err
		}
		return reportDBCheck(opts, engine.CheckReport{
			DBPath: (&workspace.Workspace{Root: root}).DBPath(), Problems: []string{err.Error()}, Damaged: true,
		})
	}
	return err
}

func reportDBCheck(opts *dbCheckOptions, rep engine.CheckReport) error {
	if opts.JSON {
		if err := opts.IO.PrintJSON(map[string]any{"ok": rep.OK, "problems": rep.Problems, "damaged": rep.Damaged, "counter": rep.Counter}); err != nil {
			return err
		}
	} else if rep.OK {
		opts.IO.Printf("%s is consistent\n", rep.DBPath)
	} else {
		for _, p := range rep.Problems {
			opts.IO.Printf("problem: %s\n", p)
		}
		if rep.Damaged {
			opts.IO.Logf("nova: %s is damaged: copy what is readable with `nova db recover FILE`, or restore a backup\n", rep.DBPath)
		}
	}
	if !rep.OK {
		return &reportedError{msg: countNoun(len(rep.Problems), "problem", "problems")}
	}
	return nil
}

// dbRecoverOptions is `nova db recover FILE`: an exclusive operation that
// reads the workspace database directly (it may not open) and writes what
// it can read to a new file.
type dbRecoverOptions struct {
	*Env
	File string
	JSON bool
}

func newDBRecoverCmd(env *Env, runF func(context.Context, *dbRecoverOptions) error) *cobra.Command {
	opts := &dbRecoverOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "recover FILE",
		Short: "Copy every readable record of a damaged .nova/nova.db into a new database FILE",
		Long: "Reads .nova/nova.db page by page (it is never written), copies every bucket and record it can\n" +
			"read into FILE (which must not exist) and reports, per bucket, what was copied and what was lost.\n" +
			"Then move the damaged file away and FILE into its place. It needs the database to itself: no\n" +
			"other nova may have the workspace open.",
		Args: exactArgs(1, "the new database file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return pick(runF, runDBRecover)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

func runDBRecover(ctx context.Context, opts *dbRecoverOptions) error {
	root, err := opts.root()
	if err != nil {
		return err
	}
	var rep engine.RecoverReport
	err = runExclusive(ctx, opts.Env, root, "db recover", func(ctx context.Context) error {
		var err error
		rep, err = engine.RecoverDB(ctx, root, opts.abs(opts.File))
		return err
	})
	if errors.Is(err, engine.ErrExists) {
		return fmt.Errorf("%s exists; choose a new file name (nothing was written)", opts.File)
	}
	if err != nil {
		return err
	}
	if !rep.Complete {
		opts.IO.Logf("nova: warning: not everything could be read: %s\n", lostSummary(rep))
	}
	if opts.JSON {
		return opts.IO.PrintJSON(rep)
	}
	printRecoverTable(opts.Env, rep)
	opts.IO.Printf("copied %s into %s; %s\n", countNoun(rep.Copied, "record", "records"), opts.File, lostSummary(rep))
	if rep.SchemaAssumed {
		opts.IO.Printf("the schema version was unreadable: the copy was stamped with this nova's schema\n")
	}
	if len(rep.Rebuilt) > 0 {
		opts.IO.Printf("the vault's counters and full-text index were left out (%s): nova rebuilds them from the records copied\n", strings.Join(rep.Rebuilt, ", "))
	}
	db := filepath.Join(".nova", "nova.db")
	opts.IO.Printf("to use it: mv %s %s.damaged && mv %s %s\n", db, db, opts.File, db)
	return nil
}

// lostSummary says what a recovery lost.
func lostSummary(rep engine.RecoverReport) string {
	unknown := false
	for _, b := range rep.Buckets {
		if b.Lost < 0 {
			unknown = true
		}
	}
	switch {
	case rep.Complete:
		return "nothing was lost"
	case unknown && rep.Lost == 0:
		return "lost an unknown number (some pages could not be read)"
	case unknown:
		return fmt.Sprintf("lost %d or more (some pages could not be read)", rep.Lost)
	default:
		return fmt.Sprintf("lost %s", countNoun(rep.Lost, "record", "records"))
	}
}

// foldProblems shows repeated problems once with a count, and at most max
// lines.
func foldProblems(problems []string, max int) []string {
	var out []string
	for i := 0; i < len(problems); {
		j := i
		for j < len(problems) && problems[j] == problems[i] {
			j++
		}
		line := problems[i]
		if j-i > 1 {
			line += fmt.Sprintf(" (%d times)", j-i)
		}
		out = append(out, line)
		i = j
	}
	if len(out) > max {
		out = append(out[:max], fmt.Sprintf("… and %d more", len(out)-max))
	}
	return out
}

// printRecoverTable prints one line per bucket that held or lost anything,
// with its problems below it. A problem shared by many buckets (the list of
// buckets itself is damaged) is said once, with the buckets it hid.
func printRecoverTable(env *Env, rep engine.RecoverReport) {
	seen := map[string]int{}
	for _, b := range rep.Buckets {
		for _, p := range uniq(b.Problems) {
			seen[p]++
		}
	}
	shared := map[string]bool{}
	for p, n := range seen {
		shared[p] = n >= 3
	}
	hidden := map[string][]string{} // shared problem → buckets with nothing else to say
	width := 0
	var rows []engine.BucketRecovery
	for _, b := range rep.Buckets {
		if b.Copied == 0 && b.Lost == 0 && len(b.Problems) == 0 {
			continue
		}
		own := 0
		for _, p := range b.Problems {
			if !shared[p] {
				own++
			}
		}
		if b.Copied == 0 && own == 0 && len(b.Problems) > 0 {
			hidden[b.Problems[0]] = append(hidden[b.Problems[0]], b.Name)
			continue
		}
		rows = append(rows, b)
		width = max(width, len(b.Name))
	}
	for p, names := range hidden {
		env.IO.Printf("%s\n", p)
		shown := names
		if len(shown) > 6 {
			shown = append(append([]string{}, shown[:6]...), "…")
		}
		env.IO.Printf("  %s could not be read: %s\n", countNoun(len(names), "bucket", "buckets"), strings.Join(shown, ", "))
	}
	for _, b := range rows {
		lost := ""
		switch {
		case b.Lost > 0:
			lost = fmt.Sprintf("  lost %d", b.Lost)
		case b.Lost < 0 && b.LostAtMost > 0:
			lost = fmt.Sprintf("  lost up to %d (damaged pages)", b.LostAtMost)
		case b.Lost < 0:
			lost = "  lost ? (damaged pages)"
		}
		line := fmt.Sprintf("%-*s  %-13s%s", width, b.Name, fmt.Sprintf("copied %d", b.Copied), lost)
		env.IO.Printf("%s\n", strings.TrimRight(line, " "))
		var own []string
		for _, p := range b.Problems {
			if !shared[p] {
				own = append(own, p)
			}
		}
		for _, p := range foldProblems(own, 5) {
			env.IO.Printf("  %s\n", p)
		}
	}
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// leftoverOp names the command whose kill leaves a leftover of kind.
func leftoverOp(kind string) string {
	if kind == "recovery" {
		return "db recover"
	}
	return "db compact"
}
