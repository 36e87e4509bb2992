package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/changes"
)

func newChangesCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "changes", Short: "Review, apply and discard staged changesets"}
	cmd.AddCommand(newChangesListCmd(env, nil), newChangesShowCmd(env, nil),
		newChangesApplyCmd(env, nil), newChangesDiscardCmd(env, nil))
	return cmd
}

func changesetID(s string) (uint64, error) { return parseID(s, "changeset", "nova changes list") }

// changesListOptions is `nova changes list`.
type changesListOptions struct {
	*Env
	Status changes.Status
	JSON   bool
}

func newChangesListCmd(env *Env, runF func(context.Context, *changesListOptions) error) *cobra.Command {
	opts := &changesListOptions{Env: env}
	var status string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List changesets, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch changes.Status(status) {
			case "", changes.StatusPending, changes.StatusApplied, changes.StatusDiscarded:
			default:
				return usagef("--status must be pending, applied or discarded, got %q", status)
			}
			opts.Status = changes.Status(status)
			return pick(runF, runChangesList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only pending, applied or discarded changesets")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runChangesList(ctx context.Context, opts *changesListOptions) error {
	return opts.withWorkspace(ctx, true, func(ws engine.Workspace) error {
		list, err := ws.ListChanges(ctx, changes.Filter{Status: opts.Status})
		if err != nil {
			return err
		}
		if opts.JSON {
			out := make([]changes.Changeset, len(list))
			for i, cs := range list {
				out[i] = cs.Summary()
			}
			return opts.IO.PrintJSON(out)
		}
		if len(list) == 0 {
			opts.IO.Printf("no changesets\n")
			return nil
		}
		opts.IO.Printf("%-5s %-10s %-9s %-5s %-6s %-17s %s\n", "ID", "STATUS", "AGENT", "RUN", "FILES", "CREATED", "TASK")
		for _, cs := range list {
			opts.IO.Printf("%-5d %-10s %-9s %-5d %-6d %-17s %s\n", cs.ID, cs.Status, cs.Agent, cs.RunID, len(cs.Files),
				cs.CreatedAt.Local().Format("2006-01-02 15:04"), clipLine(cs.Task, 50))
		}
		return nil
	})
}

// changesShowOptions is `nova changes show ID`.
type changesShowOptions struct {
	*Env
	ID   uint64
	JSON bool
}

func newChangesShowCmd(env *Env, runF func(context.Context, *changesShowOptions) error) *cobra.Command {
	opts := &changesShowOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a changeset as a unified diff per file",
		Args:  exactArgs(1, "a changeset id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := changesetID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runChangesShow)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runChangesShow(ctx context.Context, opts *changesShowOptions) error {
	return opts.withWorkspace(ctx, true, func(ws engine.Workspace) error {
		cs, err := ws.GetChange(ctx, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(cs)
		}
		opts.IO.Printf("changeset %d (%s)", cs.ID, cs.Status)
		if cs.Agent != "" {
			opts.IO.Printf(" by %s, run %d", cs.Agent, cs.RunID)
		}
		opts.IO.Printf("\n")
		if cs.Task != "" {
			opts.IO.Printf("task: %s\n", cs.Task)
		}
		for _, f := range cs.Files {
			mark := map[changes.Op]string{changes.OpCreate: "+", changes.OpModify: "~", changes.OpDelete: "-"}[f.Op]
			opts.IO.Printf("  %s %s (%s, %s)\n", mark, f.Path, f.Op, f.Status)
		}
		opts.IO.Printf("\n%s", cs.Diff())
		return nil
	})
}

// changesDecideOptions is `nova changes apply|discard ID` (both ask first).
type changesDecideOptions struct {
	*Env
	ID     uint64
	Force  bool // apply only
	Reason string
	Yes    bool
	JSON   bool
}

func newChangesApplyCmd(env *Env, runF func(context.Context, *changesDecideOptions) error) *cobra.Command {
	opts := &changesDecideOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "apply ID",
		Short: "Write a pending changeset to the working tree (asks first unless --yes)",
		Long: "Writes each file atomically. A file changed on disk since it was staged stops the apply\n" +
			"with a conflict naming it, unless --force. On a terminal it asks for confirmation; elsewhere\n" +
			"--yes is required.",
		Args: exactArgs(1, "a changeset id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := changesetID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runChangesApply)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite files that changed on disk since they were staged")
	decideFlags(cmd, opts)
	return cmd
}

func decideFlags(cmd *cobra.Command, opts *changesDecideOptions) {
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "why: learned by the agent's playbook and the vault")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
}

// pendingChange returns the changeset when it is pending.
func pendingChange(ctx context.Context, ws engine.Workspace, id uint64, verb string) (changes.Changeset, error) {
	cs, err := ws.GetChange(ctx, id)
	if err != nil {
		return cs, err
	}
	if cs.Status != changes.StatusPending {
		return cs, fmt.Errorf("changeset %d is %s; only pending changesets can be %s", id, cs.Status, verb)
	}
	return cs, nil
}

func runChangesApply(ctx context.Context, opts *changesDecideOptions) error {
	return opts.withWorkspace(ctx, false, func(ws engine.Workspace) error {
		id := opts.ID
		cs, err := pendingChange(ctx, ws, id, "applied")
		if err != nil {
			return err
		}
		q := fmt.Sprintf("Apply changeset %d (%d file(s): %s) to the working tree?", id, len(cs.Files), strings.Join(cs.Paths(), ", "))
		if err := opts.confirm(ctx, opts.Yes, q, "apply", "applied"); err != nil {
			return err
		}
		// The user's decision is learned (playbooks, vault) by ApplyChange.
		rep, err := ws.ApplyChange(ctx, id, changes.ApplyOptions{Force: opts.Force}, opts.Reason)
		if err != nil {
			var ce *changes.ConflictError
			if errors.As(err, &ce) {
				if opts.JSON {
					_ = opts.IO.PrintJSON(map[string]any{"ok": false, "id": id, "error": err.Error(), "conflicts": ce.Conflicts})
					return &reportedError{msg: err.Error()}
				}
				return fmt.Errorf("%w\n(review with `nova changes show %d`; apply anyway with --force)", err, id)
			}
			return err
		}
		if opts.JSON {
			rep.Changeset = rep.Changeset.Summary()
			return opts.IO.PrintJSON(rep)
		}
		opts.IO.Printf("applied changeset %d: %s\n", id, strings.Join(rep.Applied, ", "))
		for _, c := range rep.Overwritten {
			opts.IO.Printf("  overwrote %s (%s)\n", c.Path, c.Reason)
		}
		return nil
	})
}

func newChangesDiscardCmd(env *Env, runF func(context.Context, *changesDecideOptions) error) *cobra.Command {
	opts := &changesDecideOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "discard ID",
		Short: "Discard a pending changeset (asks first unless --yes)",
		Args:  exactArgs(1, "a changeset id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := changesetID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runChangesDiscard)(cmd.Context(), opts)
		},
	}
	decideFlags(cmd, opts)
	return cmd
}

func runChangesDiscard(ctx context.Context, opts *changesDecideOptions) error {
	return opts.withWorkspace(ctx, false, func(ws engine.Workspace) error {
		id := opts.ID
		cs, err := pendingChange(ctx, ws, id, "discarded")
		if err != nil {
			return err
		}
		q := fmt.Sprintf("Discard changeset %d (%d file(s))? Your files are not touched.", id, len(cs.Files))
		if err := opts.confirm(ctx, opts.Yes, q, "discard", "discarded"); err != nil {
			return err
		}
		cs, err = ws.DiscardChange(ctx, id, opts.Reason)
		if err != nil {
			return err
		}
		if opts.JSON {
			return opts.IO.PrintJSON(cs.Summary())
		}
		opts.IO.Printf("discarded changeset %d\n", id)
		return nil
	})
}
