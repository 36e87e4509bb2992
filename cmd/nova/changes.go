package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/nova-dev/nova/engine/changes"
)

func (a *app) changesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "changes", Short: "Review, apply and discard staged changesets"}
	var (
		asJSON bool
		status string
		force  bool
		yes    bool
		reason string
	)

	list := &cobra.Command{
		Use:   "list",
		Short: "List changesets, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch changes.Status(status) {
			case "", changes.StatusPending, changes.StatusApplied, changes.StatusDiscarded:
			default:
				return usagef("--status must be pending, applied or discarded, got %q", status)
			}
			ws, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			list, err := ws.Changes().List(cmd.Context(), changes.Filter{Status: changes.Status(status)})
			if err != nil {
				return err
			}
			if asJSON {
				out := make([]changes.Changeset, len(list))
				for i, cs := range list {
					out[i] = cs.Summary()
				}
				return a.printJSON(out)
			}
			if len(list) == 0 {
				a.printf("no changesets\n")
				return nil
			}
			a.printf("%-5s %-10s %-9s %-5s %-6s %-17s %s\n", "ID", "STATUS", "AGENT", "RUN", "FILES", "CREATED", "TASK")
			for _, cs := range list {
				a.printf("%-5d %-10s %-9s %-5d %-6d %-17s %s\n", cs.ID, cs.Status, cs.Agent, cs.RunID, len(cs.Files),
					cs.CreatedAt.Local().Format("2006-01-02 15:04"), clipLine(cs.Task, 50))
			}
			return nil
		},
	}
	list.Flags().StringVar(&status, "status", "", "only pending, applied or discarded changesets")

	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show a changeset as a unified diff per file",
		Args:  exactArgs(1, "a changeset id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			ws, err := a.open(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			cs, err := ws.Changes().Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(cs)
			}
			a.printf("changeset %d (%s)", cs.ID, cs.Status)
			if cs.Agent != "" {
				a.printf(" by %s, run %d", cs.Agent, cs.RunID)
			}
			a.printf("\n")
			if cs.Task != "" {
				a.printf("task: %s\n", cs.Task)
			}
			for _, f := range cs.Files {
				mark := map[changes.Op]string{changes.OpCreate: "+", changes.OpModify: "~", changes.OpDelete: "-"}[f.Op]
				a.printf("  %s %s (%s, %s)\n", mark, f.Path, f.Op, f.Status)
			}
			a.printf("\n%s", cs.Diff())
			return nil
		},
	}

	apply := &cobra.Command{
		Use:   "apply ID",
		Short: "Write a pending changeset to the working tree (asks first unless --yes)",
		Long: "Writes each file atomically. A file changed on disk since it was staged stops the apply\n" +
			"with a conflict naming it, unless --force. On a terminal it asks for confirmation; elsewhere\n" +
			"--yes is required.",
		Args: exactArgs(1, "a changeset id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			ws, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			store := ws.Changes()
			cs, err := store.Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			if cs.Status != changes.StatusPending {
				return fmt.Errorf("changeset %d is %s; only pending changesets can be applied", id, cs.Status)
			}
			if ok, err := a.confirmChange(cmd, yes, fmt.Sprintf("Apply changeset %d (%d file(s): %s) to the working tree?",
				id, len(cs.Files), strings.Join(cs.Paths(), ", ")), "apply"); !ok || err != nil {
				return err
			}
			// The user's decision is learned (playbooks, vault) by ApplyChange.
			rep, err := ws.ApplyChange(cmd.Context(), id, changes.ApplyOptions{Force: force}, reason)
			if err != nil {
				var ce *changes.ConflictError
				if errors.As(err, &ce) {
					if asJSON {
						_ = a.printJSON(map[string]any{"ok": false, "id": id, "error": err.Error(), "conflicts": ce.Conflicts})
						return &reportedError{msg: err.Error()}
					}
					return fmt.Errorf("%w\n(review with `nova changes show %d`; apply anyway with --force)", err, id)
				}
				return err
			}
			if asJSON {
				rep.Changeset = rep.Changeset.Summary()
				return a.printJSON(rep)
			}
			a.printf("applied changeset %d: %s\n", id, strings.Join(rep.Applied, ", "))
			for _, c := range rep.Overwritten {
				a.printf("  overwrote %s (%s)\n", c.Path, c.Reason)
			}
			return nil
		},
	}
	apply.Flags().BoolVar(&force, "force", false, "overwrite files that changed on disk since they were staged")

	discard := &cobra.Command{
		Use:   "discard ID",
		Short: "Discard a pending changeset (asks first unless --yes)",
		Args:  exactArgs(1, "a changeset id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			ws, err := a.open(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = ws.Close() }()
			store := ws.Changes()
			cs, err := store.Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			if cs.Status != changes.StatusPending {
				return fmt.Errorf("changeset %d is %s; only pending changesets can be discarded", id, cs.Status)
			}
			if ok, err := a.confirmChange(cmd, yes, fmt.Sprintf("Discard changeset %d (%d file(s))? Your files are not touched.",
				id, len(cs.Files)), "discard"); !ok || err != nil {
				return err
			}
			cs, err = ws.DiscardChange(cmd.Context(), id, reason)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(cs.Summary())
			}
			a.printf("discarded changeset %d\n", id)
			return nil
		},
	}

	for _, c := range []*cobra.Command{list, show, apply, discard} {
		c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
		cmd.AddCommand(c)
	}
	for _, c := range []*cobra.Command{apply, discard} {
		c.Flags().StringVar(&reason, "reason", "", "why: learned by the agent's playbook and the vault")
		c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	}
	return cmd
}

// confirmChange asks before a change to the workspace: on a terminal it
// prompts; elsewhere it requires --yes (bad usage otherwise). It returns
// false with a reported error when the user says no.
func (a *app) confirmChange(cmd *cobra.Command, yes bool, question, verb string) (bool, error) {
	if yes {
		return true, nil
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return false, usagef("refusing to %s without confirmation: stdin is not a terminal, pass --yes", verb)
	}
	ok, err := a.confirm(cmd.Context(), question)
	if err != nil {
		return false, err
	}
	if !ok {
		a.logf("not %s: nothing changed\n", map[string]string{"apply": "applied", "discard": "discarded", "undo": "undone"}[verb])
		return false, &reportedError{msg: "declined"}
	}
	return true, nil
}

func parseID(s string) (uint64, error) {
	id, ok := positiveID(s)
	if !ok {
		return 0, usagef("%q is not a changeset id (a positive number, see `nova changes list`)", s)
	}
	return id, nil
}
