package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/importer"
)

// importOptions is `nova import DIR`.
type importOptions struct {
	*Env
	Dir    string
	Import engine.ImportOptions
	JSON   bool
}

func newImportCmd(env *Env) *cobra.Command {
	return newImportDirCmd(env, nil)
}

func newImportDirCmd(env *Env, runF func(context.Context, *importOptions) error) *cobra.Command {
	opts := &importOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "import DIR",
		Short: "Import a markdown pattern library into the taste vault (undoable batches)",
		Long: "Import every *.md file under DIR into the taste vault, one node per file.\n" +
			"Re-importing an unchanged file does nothing; a changed file updates its node in place.\n" +
			"Near-duplicates (of the vault or of the batch) are skipped. `nova import undo BATCH`\n" +
			"reverts a batch. To import a directory literally named list or undo, write ./list.",
		Args: exactArgs(1, "the library directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			flags := cmd.Flags()
			o := &opts.Import
			if flags.Changed("confidence") && !(o.BaseConfidence > 0 && o.BaseConfidence <= 1) {
				return usagef("--confidence %v: want a base confidence in (0, 1]", o.BaseConfidence)
			}
			if flags.Changed("dedup-threshold") && !(o.DedupThreshold > 0 && o.DedupThreshold <= 1) {
				return usagef("--dedup-threshold %v: want a similarity in (0, 1]", o.DedupThreshold)
			}
			if flags.Changed("user") && strings.TrimSpace(o.User) == "" {
				return usagef("--user must not be empty")
			}
			o.User = strings.TrimSpace(o.User)
			opts.Dir = args[0]
			return pick(runF, runImport)(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Import.DryRun, "dry-run", false, "parse and report, write nothing")
	f.BoolVar(&opts.Import.Split, "split", false, "also make one node per \"## Pattern …\" section, linked to its file (refines)")
	f.StringVar(&opts.Import.User, "user", "", "owner and namespace of the nodes (default bistrolens-import)")
	f.Float64Var(&opts.Import.BaseConfidence, "confidence", 0, "base confidence: min(0.99, base + reusability×0.01) (default import.baseConfidence)")
	f.Float64Var(&opts.Import.DedupThreshold, "dedup-threshold", 0, "similarity in (0, 1] from which a file is a near duplicate (default import.dedupThreshold)")
	f.BoolVar(&opts.Import.NoDedup, "no-dedup", false, "import near-duplicates too")
	f.BoolVar(&opts.JSON, "json", false, "print one JSON document: {batch, loaded, skipped, errors, errorDetails, nodes, …}")
	cmd.AddCommand(newImportListCmd(env, nil), newImportUndoCmd(env, nil))
	return cmd
}

func runImport(ctx context.Context, opts *importOptions) error {
	defer followGC()()
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		res, err := ws.ImportPatterns(ctx, opts.abs(opts.Dir), opts.Import)
		if err != nil {
			return err
		}
		if opts.JSON {
			if err := opts.IO.PrintJSON(res); err != nil {
				return err
			}
		} else {
			printImport(opts.IO, res)
		}
		for _, w := range res.Warnings {
			opts.IO.Logf("warning: %s\n", w)
		}
		if res.OverCap != nil {
			// A dry run over the tier cap: the report is printed, and the
			// command fails as the real import would, with its message.
			return res.OverCap
		}
		if res.Errors > 0 {
			msg := fmt.Sprintf("%d of %d files could not be imported", res.Errors, res.Files)
			if opts.JSON {
				return &reportedError{msg: msg}
			}
			return errors.New(msg + " (see errors above; the other files were imported)")
		}
		return nil
	})
}

func printImport(io *IOStreams, r importer.Result) {
	verb := "imported"
	if r.DryRun {
		verb = "dry run: would import"
	}
	switch {
	case r.Batch != 0:
		io.Printf("%s %d of %s from %s (batch %d)\n", verb, r.Loaded, plural(r.Files, "file", "files"), r.Source, r.Batch)
	case r.DryRun:
		io.Printf("%s %d of %s from %s\n", verb, r.Loaded, plural(r.Files, "file", "files"), r.Source)
	default:
		io.Printf("nothing to import from %s: %s, all unchanged, skipped or failed\n", r.Source, plural(r.Files, "file", "files"))
	}
	io.Printf("  %d new, %d updated, %d unchanged, %d duplicates, %d meta, %d forgotten, %d archived, %d errors\n",
		r.New, r.Updated, r.Unchanged, r.Duplicates, r.Meta, r.Forgotten, r.Archived, r.Errors)
	io.Printf("  nodes +%d ~%d -%d · edges +%d -%d\n", r.NodesAdded, r.NodesUpdated, r.NodesRemoved, r.EdgesAdded, r.EdgesRemoved)
	for _, n := range r.Nodes {
		if n.Action == importer.ActionDuplicate {
			io.Printf("  duplicate %s: %s\n", n.SourceFile, n.Reason)
		}
	}
	if r.Forgotten > 0 {
		io.Printf("  %s whose node you forgot stay forgotten\n", plural(r.Forgotten, "file", "files"))
	}
	if r.Archived > 0 {
		io.Printf("  %s whose node is in the archive left out (`nova vault archive list`)\n", plural(r.Archived, "file", "files"))
	}
	if r.OverCap != nil {
		io.Printf("over the cap: the %s tier keeps at most %d nodes; this import would bring the vault to %d\n",
			r.OverCap.Tier, r.OverCap.Cap, r.OverCap.Would)
	}
	if len(r.ErrorDetails) > 0 {
		io.Printf("errors:\n")
		for _, e := range r.ErrorDetails {
			io.Printf("  %s: %s\n", e.Path, e.Reason)
		}
	}
	if r.Batch != 0 {
		io.Printf("undo with `nova import undo %d`\n", r.Batch)
	}
}

// batchJSON is one line of `nova import list`: a batch without the saved node values.
type batchJSON struct {
	ID           uint64               `json:"id"`
	Source       string               `json:"source"`
	User         string               `json:"user"`
	Time         time.Time            `json:"time"`
	Split        bool                 `json:"split"`
	Added        int                  `json:"added"`
	Updated      int                  `json:"updated"`
	Removed      int                  `json:"removed"`
	Counts       importer.BatchCounts `json:"counts"`
	Undone       bool                 `json:"undone"`
	UndoneAt     *time.Time           `json:"undoneAt,omitempty"`
	AddedNodeIDs []uint64             `json:"addedNodeIds"`
	// State is active, partial, emptied or undone; Present, Archived and
	// Gone count the nodes it added by where they are now.
	State    importer.BatchState `json:"state"`
	Present  int                 `json:"present"`
	Archived int                 `json:"archived"`
	Gone     int                 `json:"gone"`
}

// importListOptions is `nova import list`.
type importListOptions struct {
	*Env
	JSON bool
}

func newImportListCmd(env *Env, runF func(context.Context, *importListOptions) error) *cobra.Command {
	opts := &importListOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List import batches, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return pick(runF, runImportList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runImportList(ctx context.Context, opts *importListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		list, err := ws.ListImports(ctx)
		if err != nil {
			return err
		}
		out := make([]batchJSON, 0, len(list))
		for _, b := range list {
			added := b.Added
			if added == nil {
				added = []uint64{}
			}
			out = append(out, batchJSON{
				ID: b.ID, Source: b.Source, User: b.User, Time: b.Time, Split: b.Split,
				Added: len(b.Added), Updated: len(b.Updated), Removed: len(b.Removed), Counts: b.Counts,
				Undone: b.UndoneAt != nil, UndoneAt: b.UndoneAt, AddedNodeIDs: added,
				State: b.State, Present: b.Present, Archived: b.Archived, Gone: b.Gone,
			})
		}
		if opts.JSON {
			return opts.IO.PrintJSON(out)
		}
		if len(out) == 0 {
			opts.IO.Printf("no imports yet: `nova import DIR` imports a pattern library\n")
			return nil
		}
		tw := tabwriter.NewWriter(opts.IO.Human(), 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "BATCH\tTIME\tFILES\tNEW\tUPDATED\tDUPLICATES\tERRORS\tSTATE\tSOURCE")
		for _, b := range out {
			status := string(b.State)
			switch {
			case status == "" && b.Undone:
				status = "undone"
			case status == "":
				status = "active"
			case b.State == importer.BatchPartial || b.State == importer.BatchEmptied:
				status = fmt.Sprintf("%s (%d archived, %d gone)", status, b.Archived, b.Gone)
			case b.State == importer.BatchInterrupted:
				status = fmt.Sprintf("interrupted (%d nodes written; undo it, or import again)", b.Present)
			}
			_, _ = fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", b.ID, b.Time.Local().Format("2006-01-02 15:04"),
				b.Counts.Files, b.Counts.New, b.Counts.Updated, b.Counts.Duplicates, b.Counts.Errors, status, b.Source)
		}
		return tw.Flush()
	})
}

// importUndoOptions is `nova import undo BATCH|last` (destructive: asks).
type importUndoOptions struct {
	*Env
	// Batch is the batch id; 0 means the newest batch not undone.
	Batch uint64
	Yes   bool
	JSON  bool
}

func newImportUndoCmd(env *Env, runF func(context.Context, *importUndoOptions) error) *cobra.Command {
	opts := &importUndoOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "undo BATCH",
		Short: "Undo an import batch: remove what it added, restore what it changed (asks first unless --yes)",
		Long: "Undo an import batch: the nodes and edges it added are removed and the nodes it\n" +
			"updated get their previous value back. BATCH is a batch id (see `nova import list`)\n" +
			"or `last` for the newest batch that is not undone.",
		Args: exactArgs(1, "a batch id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Batch = 0
			if args[0] != "last" {
				n, ok := positiveID(args[0])
				if !ok {
					return usagef("batch %q: want a batch id (a positive number) or `last`", args[0])
				}
				opts.Batch = n
			}
			return pick(runF, runImportUndo)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func runImportUndo(ctx context.Context, opts *importUndoOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		id := opts.Batch
		if id == 0 {
			list, err := ws.ListImports(ctx)
			if err != nil {
				return err
			}
			for _, b := range list {
				if b.UndoneAt == nil {
					id = b.ID
					break
				}
			}
			if id == 0 {
				return fmt.Errorf("%w: no batch left to undo", importer.ErrBatchNotFound)
			}
		}
		b, err := ws.GetImport(ctx, id)
		if err != nil {
			return err
		}
		if b.UndoneAt == nil { // an already undone batch gets Undo's own error
			q := fmt.Sprintf("Undo batch %d (%s): remove the %s it added and restore what it changed?", id, b.Source, plural(len(b.Added), "node", "nodes"))
			if err := opts.confirm(ctx, opts.Yes, q, "undo", "undone"); err != nil {
				return err
			}
		}
		res, err := ws.UndoImport(ctx, id)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(res)
		}
		opts.IO.Printf("undid batch %d (%s): removed %d nodes and %d edges, restored %d nodes and %d edges\n",
			res.Batch, res.Source, res.NodesRemoved, res.EdgesRemoved, res.NodesRestored, res.EdgesRestored)
		return nil
	})
}
