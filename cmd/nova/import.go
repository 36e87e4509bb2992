package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/importer"
)

func (a *app) importCmd() *cobra.Command {
	var (
		asJSON, dryRun, split, noDedup bool
		user                           string
		confidence, threshold          float64
	)
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
			if flags.Changed("confidence") && !(confidence > 0 && confidence <= 1) {
				return usagef("--confidence %v: want a base confidence in (0, 1]", confidence)
			}
			if flags.Changed("dedup-threshold") && !(threshold > 0 && threshold <= 1) {
				return usagef("--dedup-threshold %v: want a similarity in (0, 1]", threshold)
			}
			if flags.Changed("user") && strings.TrimSpace(user) == "" {
				return usagef("--user must not be empty")
			}
			ctx := cmd.Context()
			ws, err := a.open(ctx, dryRun)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			opts := importer.Options{
				DryRun: dryRun, Split: split, User: strings.TrimSpace(user), NoDedup: noDedup,
				BaseConfidence: confidence, DedupThreshold: threshold,
			}
			res, err := ws.Importer().Import(ctx, importer.DirSource(args[0]), opts)
			if err != nil {
				return err
			}
			if asJSON {
				if err := a.printJSON(res); err != nil {
					return err
				}
			} else {
				a.printImport(res)
			}
			for _, w := range res.Warnings {
				a.logf("warning: %s\n", w)
			}
			if res.Errors > 0 {
				msg := fmt.Sprintf("%d of %d files could not be imported", res.Errors, res.Files)
				if asJSON {
					return &reportedError{msg: msg}
				}
				return errors.New(msg + " (see errors above; the other files were imported)")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&dryRun, "dry-run", false, "parse and report, write nothing")
	f.BoolVar(&split, "split", false, "also make one node per \"## Pattern …\" section, linked to its file (refines)")
	f.StringVar(&user, "user", "", "owner and namespace of the nodes (default bistrolens-import)")
	f.Float64Var(&confidence, "confidence", 0, "base confidence: min(0.99, base + reusability×0.01) (default import.baseConfidence)")
	f.Float64Var(&threshold, "dedup-threshold", 0, "near-duplicate similarity in (0, 1] (default import.dedupThreshold)")
	f.BoolVar(&noDedup, "no-dedup", false, "import near-duplicates too")
	f.BoolVar(&asJSON, "json", false, "print one JSON document: {batch, loaded, skipped, errors, errorDetails, nodes, …}")
	cmd.AddCommand(a.importListCmd(), a.importUndoCmd())
	return cmd
}

func (a *app) printImport(r importer.Result) {
	verb := "imported"
	if r.DryRun {
		verb = "dry run: would import"
	}
	switch {
	case r.Batch != 0:
		a.printf("%s %d of %d files from %s (batch %d)\n", verb, r.Loaded, r.Files, r.Source, r.Batch)
	case r.DryRun:
		a.printf("%s %d of %d files from %s\n", verb, r.Loaded, r.Files, r.Source)
	default:
		a.printf("nothing to import from %s: %d files, all unchanged, skipped or failed\n", r.Source, r.Files)
	}
	a.printf("  %d new, %d updated, %d unchanged, %d duplicates, %d meta, %d errors\n",
		r.New, r.Updated, r.Unchanged, r.Duplicates, r.Meta, r.Errors)
	a.printf("  nodes +%d ~%d -%d · edges +%d -%d\n", r.NodesAdded, r.NodesUpdated, r.NodesRemoved, r.EdgesAdded, r.EdgesRemoved)
	for _, n := range r.Nodes {
		if n.Action == importer.ActionDuplicate {
			a.printf("  duplicate %s: %s\n", n.SourceFile, n.Reason)
		}
	}
	if len(r.ErrorDetails) > 0 {
		a.printf("errors:\n")
		for _, e := range r.ErrorDetails {
			a.printf("  %s: %s\n", e.Path, e.Reason)
		}
	}
	if r.Batch != 0 {
		a.printf("undo with `nova import undo %d`\n", r.Batch)
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
}

func (a *app) importListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List import batches, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			list, err := ws.Importer().Batches(cmd.Context())
			if err != nil {
				return err
			}
			out := make([]batchJSON, 0, len(list))
			for _, b := range list {
				out = append(out, batchJSON{
					ID: b.ID, Source: b.Source, User: b.User, Time: b.Time, Split: b.Split,
					Added: len(b.Added), Updated: len(b.Updated), Removed: len(b.Removed), Counts: b.Counts,
					Undone: b.UndoneAt != nil, UndoneAt: b.UndoneAt, AddedNodeIDs: b.Added,
				})
			}
			if asJSON {
				return a.printJSON(out)
			}
			if len(out) == 0 {
				a.printf("no imports yet: `nova import DIR` imports a pattern library\n")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			_, _ = fmt.Fprintln(tw, "BATCH\tTIME\tFILES\tNEW\tUPDATED\tDUPLICATES\tERRORS\tSTATUS\tSOURCE")
			for _, b := range out {
				status := "active"
				if b.Undone {
					status = "undone"
				}
				_, _ = fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", b.ID, b.Time.Local().Format("2006-01-02 15:04"),
					b.Counts.Files, b.Counts.New, b.Counts.Updated, b.Counts.Duplicates, b.Counts.Errors, status, b.Source)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *app) importUndoCmd() *cobra.Command {
	var asJSON, yes bool
	cmd := &cobra.Command{
		Use:   "undo BATCH",
		Short: "Undo an import batch: remove what it added, restore what it changed",
		Long: "Undo an import batch: the nodes and edges it added are removed and the nodes it\n" +
			"updated get their previous value back. BATCH is a batch id (see `nova import list`)\n" +
			"or `last` for the newest batch that is not undone.",
		Args: exactArgs(1, "a batch id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var id uint64
			if args[0] != "last" {
				n, ok := positiveID(args[0])
				if !ok {
					return usagef("batch %q: want a batch id (a positive number) or `last`", args[0])
				}
				id = n
			}
			ctx := cmd.Context()
			ws, err := a.open(ctx, false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			im := ws.Importer()
			if id == 0 {
				if id, err = lastActiveBatch(ctx, im); err != nil {
					return err
				}
			}
			b, err := im.Batch(ctx, id)
			if err != nil {
				return err
			}
			if b.UndoneAt == nil { // an already undone batch gets Undo's own error
				q := fmt.Sprintf("Undo batch %d (%s): remove the %d node(s) it added and restore what it changed?", id, b.Source, len(b.Added))
				if ok, err := a.confirmChange(cmd, yes, q, "undo"); !ok || err != nil {
					return err
				}
			}
			res, err := im.Undo(ctx, id)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(res)
			}
			a.printf("undid batch %d (%s): removed %d nodes and %d edges, restored %d nodes and %d edges\n",
				res.Batch, res.Source, res.NodesRemoved, res.EdgesRemoved, res.NodesRestored, res.EdgesRestored)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func lastActiveBatch(ctx context.Context, im *importer.Importer) (uint64, error) {
	list, err := im.Batches(ctx)
	if err != nil {
		return 0, err
	}
	for _, b := range list {
		if b.UndoneAt == nil {
			return b.ID, nil
		}
	}
	return 0, fmt.Errorf("%w: no batch left to undo", importer.ErrBatchNotFound)
}

// seedStarter imports the starter library into a new (or re-initialised) workspace: the
// workspace's .nova/patterns when it is there, else the copy embedded in the binary.
// Re-running it is a no-op for unchanged files.
func seedStarter(ctx context.Context, ws *engine.Local) (importer.Result, error) {
	src := importer.DirSource(ws.StarterPatternsDir())
	if st, err := os.Stat(src.Dir); err != nil || !st.IsDir() {
		sub, err := fs.Sub(nova.Defaults, ".nova/patterns")
		if err != nil {
			return importer.Result{}, err
		}
		src = importer.FSSource("embedded:.nova/patterns", sub)
	}
	return ws.Importer().Import(ctx, src, importer.Options{User: importer.StarterUser})
}
