package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/internal/editor"
	"github.com/nova-dev/nova/internal/safefile"
)

func newChangesCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{Use: "changes", Short: "Review, edit, apply, discard and revert changesets"}
	cmd.AddCommand(newChangesListCmd(env, nil), newChangesShowCmd(env, nil),
		newChangesApplyCmd(env, nil), newChangesDiscardCmd(env, nil),
		newChangesRevertCmd(env, nil), newChangesEditCmd(env, nil))
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
			case "", changes.StatusPending, changes.StatusApplied, changes.StatusDiscarded, changes.StatusReverted:
			default:
				return badValue("status", status, []string{"pending", "applied", "discarded", "reverted"})
			}
			opts.Status = changes.Status(status)
			return pick(runF, runChangesList)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only pending, applied, discarded or reverted changesets")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runChangesList(ctx context.Context, opts *changesListOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
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
		agentW := 9 // as wide as the longest agent id ("implementer")
		for _, cs := range list {
			agentW = max(agentW, utf8.RuneCountInString(cs.Agent))
		}
		opts.IO.Printf("%-5s %-10s %-*s %-5s %-6s %-17s %s\n", "ID", "STATUS", agentW, "AGENT", "RUN", "FILES", "CREATED", "TASK")
		for _, cs := range list {
			opts.IO.Printf("%-5d %-10s %-*s %-5d %-6d %-17s %s\n", cs.ID, cs.Status, agentW, cs.Agent, cs.RunID, len(cs.Files),
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
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
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
		if line := changeOrigin(cs); line != "" {
			opts.IO.Printf("%s\n", line)
		}
		if cs.Task != "" {
			opts.IO.Printf("task: %s\n", cs.Task)
		}
		for _, f := range cs.Files {
			mark := map[changes.Op]string{changes.OpCreate: "+", changes.OpModify: "~", changes.OpDelete: "-"}[f.Op]
			edited := ""
			if f.Edited {
				edited = ", edited"
			}
			opts.IO.Printf("  %s %s (%s, %s%s)\n", mark, f.Path, f.Op, f.Status, edited)
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
	// apply only: more ids, or every pending changeset of a build or of a
	// goal run.
	IDs   []uint64
	Build uint64
	Run   uint64
}

func newChangesApplyCmd(env *Env, runF func(context.Context, *changesDecideOptions) error) *cobra.Command {
	opts := &changesDecideOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "apply ID... | --build N | --run N",
		Short: "Write pending changesets to the working tree (asks first unless --yes)",
		Long: "Writes each file atomically. A file changed on disk since it was staged stops the apply\n" +
			"with a conflict naming it, unless --force. Several ids, or --build N (every pending changeset\n" +
			"of build N) or --run N (of goal run N), apply oldest first, one question for all; the first\n" +
			"that fails stops the rest, and what was applied stays applied. On a terminal it asks for\n" +
			"confirmation; elsewhere --yes is required.",
		Example: "  nova changes apply 3\n  nova changes apply 3 4 7 --yes\n  nova changes apply --build 12",
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.Build != 0 && opts.Run != 0:
				return usagef("--build and --run name different things: pass one")
			case (opts.Build != 0 || opts.Run != 0) && len(args) > 0:
				return usagef("pass changeset ids or --build/--run, not both")
			case opts.Build == 0 && opts.Run == 0 && len(args) == 0:
				return usagef("expected a changeset id (or several, or --build N, or --run N), got 0 arguments")
			}
			opts.IDs = nil
			for _, a := range args {
				id, err := changesetID(a)
				if err != nil {
					return err
				}
				if !slices.Contains(opts.IDs, id) {
					opts.IDs = append(opts.IDs, id)
				}
			}
			if len(opts.IDs) > 0 {
				opts.ID = opts.IDs[0]
			}
			return pick(runF, runChangesApply)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite files that changed on disk since they were staged")
	cmd.Flags().Uint64Var(&opts.Build, "build", 0, "apply every pending changeset of this build")
	cmd.Flags().Uint64Var(&opts.Run, "run", 0, "apply every pending changeset of this goal run (`nova run`)")
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

// applyTargets resolves what `nova changes apply` applies: the ids given
// (each must be pending), or the pending changesets of a build or a goal
// run, oldest first.
func applyTargets(ctx context.Context, ws engine.Workspace, opts *changesDecideOptions) ([]changes.Changeset, error) {
	build, what := "", ""
	switch {
	case opts.Build != 0:
		if _, err := ws.GetBuild(ctx, opts.Build); err != nil {
			return nil, err
		}
		build, what = strconv.FormatUint(opts.Build, 10), fmt.Sprintf("build %d", opts.Build)
	case opts.Run != 0:
		d, err := ws.GetGoalRun(ctx, opts.Run)
		if err != nil {
			return nil, err
		}
		if d.Run.BuildID == 0 {
			return nil, fmt.Errorf("goal run %d has staged nothing yet", opts.Run)
		}
		build, what = strconv.FormatUint(d.Run.BuildID, 10), fmt.Sprintf("goal run %d", opts.Run)
	default:
		ids := opts.IDs
		if len(ids) == 0 {
			ids = []uint64{opts.ID}
		}
		out := make([]changes.Changeset, 0, len(ids))
		for _, id := range ids {
			cs, err := pendingChange(ctx, ws, id, "applied")
			if err != nil {
				return nil, err
			}
			out = append(out, cs)
		}
		slices.SortFunc(out, func(a, b changes.Changeset) int { return cmp.Compare(a.ID, b.ID) })
		return out, nil
	}
	list, err := ws.ListChanges(ctx, changes.Filter{Status: changes.StatusPending})
	if err != nil {
		return nil, err
	}
	var out []changes.Changeset
	for _, cs := range list {
		if cs.BuildID == build {
			out = append(out, cs)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no pending changesets (see `nova changes list`)", what)
	}
	slices.SortFunc(out, func(a, b changes.Changeset) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func runChangesApply(ctx context.Context, opts *changesDecideOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		targets, err := applyTargets(ctx, ws, opts)
		if err != nil {
			return err
		}
		var q string
		if len(targets) == 1 {
			cs := targets[0]
			q = fmt.Sprintf("Apply changeset %d (%s: %s) to the working tree?", cs.ID, plural(len(cs.Files), "file", "files"), strings.Join(cs.Paths(), ", "))
		} else {
			ids, files := make([]string, len(targets)), 0
			for i, cs := range targets {
				ids[i] = strconv.FormatUint(cs.ID, 10)
				files += len(cs.Files)
			}
			q = fmt.Sprintf("Apply %d changesets (%s; %s) to the working tree?", len(targets), strings.Join(ids, ", "), plural(files, "file", "files"))
		}
		if err := opts.confirm(ctx, opts.Yes, q, "apply", "applied"); err != nil {
			return err
		}
		var reports []changes.ApplyReport
		for i, cs := range targets {
			// The user's decision is learned (playbooks, vault) by ApplyChange.
			rep, err := ws.ApplyChange(ctx, cs.ID, changes.ApplyOptions{Force: opts.Force}, opts.Reason)
			if err != nil {
				return applyFailed(opts, cs.ID, targets[i+1:], reports, err)
			}
			if opts.JSON {
				rep.Changeset = rep.Changeset.Summary()
				reports = append(reports, rep)
				continue
			}
			opts.IO.Printf("applied changeset %d: %s\n", cs.ID, strings.Join(rep.Applied, ", "))
			for _, c := range rep.Overwritten {
				opts.IO.Printf("  overwrote %s (%s)\n", c.Path, c.Reason)
			}
			printCommit(opts.Env, rep.Commit, rep.CommitError)
		}
		if opts.JSON {
			if len(opts.IDs) <= 1 && opts.Build == 0 && opts.Run == 0 {
				return opts.IO.PrintJSON(reports[0]) // one id: one report, as before
			}
			return opts.IO.PrintJSON(reports)
		}
		if len(targets) > 1 {
			opts.IO.Printf("applied %d changesets\n", len(targets))
		}
		return nil
	})
}

// applyFailed reports the changeset whose apply failed, and what was not
// tried after it.
func applyFailed(opts *changesDecideOptions, id uint64, rest []changes.Changeset, done []changes.ApplyReport, err error) error {
	left := ""
	if len(rest) > 0 {
		ids := make([]string, len(rest))
		for i, cs := range rest {
			ids[i] = strconv.FormatUint(cs.ID, 10)
		}
		left = fmt.Sprintf("\nnot applied, still pending: %s", strings.Join(ids, ", "))
	}
	var ce *changes.ConflictError
	if errors.As(err, &ce) {
		if opts.JSON {
			_ = opts.IO.PrintJSON(map[string]any{"ok": false, "id": id, "error": err.Error(), "conflicts": ce.Conflicts, "applied": done})
			return &reportedError{msg: err.Error()}
		}
		return fmt.Errorf("%w\n(review with `nova changes show %d`; apply anyway with --force)%s", err, id, left)
	}
	if left != "" {
		return fmt.Errorf("changeset %d: %w%s", id, err, left)
	}
	return err
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
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		id := opts.ID
		cs, err := pendingChange(ctx, ws, id, "discarded")
		if err != nil {
			return err
		}
		q := fmt.Sprintf("Discard changeset %d (%s)? Your files are not touched.", id, plural(len(cs.Files), "file", "files"))
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

// changeOrigin says where a changeset comes from and what became of it:
// "from build 4, task t-003", "reverts changeset 3", "reverted by
// changeset 6", "commit 1a2b3c4".
func changeOrigin(cs changes.Changeset) string {
	var parts []string
	if cs.BuildID != "" {
		parts = append(parts, fmt.Sprintf("from build %s, task %s", cs.BuildID, cs.TaskID))
	}
	if cs.RevertOf != 0 {
		parts = append(parts, fmt.Sprintf("reverts changeset %d", cs.RevertOf))
	}
	if cs.RevertedBy != 0 {
		parts = append(parts, fmt.Sprintf("reverted by changeset %d", cs.RevertedBy))
	}
	if cs.Commit != "" {
		parts = append(parts, "commit "+shortSHA(cs.Commit))
	}
	return strings.Join(parts, "; ")
}

func shortSHA(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

// changesRevertOptions is `nova changes revert ID`.
type changesRevertOptions struct {
	*Env
	ID     uint64
	Force  bool
	Reason string
	Yes    bool
	JSON   bool
}

func newChangesRevertCmd(env *Env, runF func(context.Context, *changesRevertOptions) error) *cobra.Command {
	opts := &changesRevertOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "revert ID",
		Short: "Undo an applied changeset: restore what its files held before (asks first unless --yes)",
		Long: "Gives every file the changeset wrote its content from right before the apply (files it\n" +
			"created are removed, files it deleted come back with their mode). A file changed since the\n" +
			"apply stops the revert, naming it, unless --force. The revert is a changeset of its own:\n" +
			"revert it to bring the change back. Undoing an agent's change is learned once, like a\n" +
			"rejection (--reason tells the agent why). On a terminal it asks first; elsewhere --yes is\n" +
			"required.",
		Args: exactArgs(1, "a changeset id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := changesetID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runChangesRevert)(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "restore files that changed since the apply, overwriting those changes")
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "why: learned by the agent's playbook and the vault")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func runChangesRevert(ctx context.Context, opts *changesRevertOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		id := opts.ID
		cs, err := ws.GetChange(ctx, id)
		if err != nil {
			return err
		}
		switch cs.Status {
		case changes.StatusApplied:
		case changes.StatusReverted:
			last, back, err := changes.FollowReverts(ctx, ws.GetChange, cs)
			if err != nil {
				return err
			}
			return fmt.Errorf("changeset %d was %s", id, changes.RevertedHint(cs, last, back))
		default:
			return fmt.Errorf("changeset %d is %s; only applied changesets can be reverted", id, cs.Status)
		}
		q := fmt.Sprintf("Revert changeset %d (%s: %s)? Each file gets back what it held before the apply.",
			id, countNoun(len(cs.Files), "file", "files"), strings.Join(cs.Paths(), ", "))
		if err := opts.confirm(ctx, opts.Yes, q, "revert", "reverted"); err != nil {
			return err
		}
		rep, err := ws.RevertChange(ctx, id, changes.RevertOptions{Force: opts.Force}, opts.Reason)
		if err != nil {
			var ce *changes.ConflictError
			if errors.As(err, &ce) {
				if opts.JSON {
					_ = opts.IO.PrintJSON(map[string]any{"ok": false, "id": id, "error": err.Error(), "conflicts": ce.Conflicts})
					return &reportedError{msg: err.Error()}
				}
				return fmt.Errorf("%w\n(pass --force to revert anyway)", err)
			}
			return err
		}
		if opts.JSON {
			rep.Revert = rep.Revert.Summary()
			return opts.IO.PrintJSON(rep)
		}
		opts.IO.Printf("reverted changeset %d with changeset %d\n", id, rep.Revert.ID)
		// One line per file: a file --force overwrote says so on its own
		// line, with what happened to it.
		over := map[string]string{}
		for _, c := range rep.Overwritten {
			over[c.Path] = c.Reason
		}
		plain := func(paths []string) (out []string) {
			for _, p := range paths {
				if _, ok := over[p]; !ok {
					out = append(out, p)
				}
			}
			return out
		}
		if ps := plain(rep.Restored); len(ps) > 0 {
			opts.IO.Printf("  restored %s\n", strings.Join(ps, ", "))
		}
		if ps := plain(rep.Removed); len(ps) > 0 {
			opts.IO.Printf("  removed %s (created by the change)\n", strings.Join(ps, ", "))
		}
		if len(rep.Unchanged) > 0 {
			opts.IO.Printf("  already as before: %s\n", strings.Join(rep.Unchanged, ", "))
		}
		for _, p := range rep.Removed {
			if r, ok := over[p]; ok {
				opts.IO.Printf("  removed %s (created by the change; %s: those changes are gone)\n", p, r)
			}
		}
		for _, p := range rep.Restored {
			if r, ok := over[p]; ok {
				opts.IO.Printf("  restored %s (%s: those changes were overwritten)\n", p, r)
			}
		}
		for _, c := range rep.Overwritten {
			if !slices.Contains(rep.Removed, c.Path) && !slices.Contains(rep.Restored, c.Path) {
				opts.IO.Printf("  overwrote %s (%s)\n", c.Path, c.Reason)
			}
		}
		if rep.Learned {
			opts.IO.Printf("  learned as a rejection by %s's playbook", cs.Agent)
			if rep.DemotedRules+rep.DemotedNodes > 0 {
				opts.IO.Printf(" (%s and %s that shaped it demoted)", countNoun(rep.DemotedRules, "rule", "rules"), countNoun(rep.DemotedNodes, "vault node", "vault nodes"))
			}
			opts.IO.Printf("\n")
		}
		printCommit(opts.Env, rep.Commit, rep.CommitError)
		opts.IO.Printf("to bring it back: nova changes revert %d\n", rep.Revert.ID)
		return nil
	})
}

// printCommit reports the git commit of an apply (git.commitOnApply).
func printCommit(env *Env, sha, problem string) {
	switch {
	case sha != "":
		env.IO.Printf("  committed %s\n", shortSHA(sha))
	case problem != "":
		env.IO.Logf("nova: warning: no git commit: %s\n", problem)
	}
}

// changesEditOptions is `nova changes edit ID [--file PATH]`.
type changesEditOptions struct {
	*Env
	ID   uint64
	File string
}

func newChangesEditCmd(env *Env, runF func(context.Context, *changesEditOptions) error) *cobra.Command {
	opts := &changesEditOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "edit ID",
		Short: "Edit the proposed content of a staged file in $EDITOR before applying it",
		Long: "Opens the proposed content of one file of a pending changeset in $VISUAL or $EDITOR (else\n" +
			"vi). What you save is what `nova changes apply` writes; the diff follows your edit. A\n" +
			"changeset with several files needs --file PATH.",
		Args: exactArgs(1, "a changeset id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := changesetID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			return pick(runF, runChangesEdit)(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.File, "file", "", "the staged file to edit (its path in the changeset)")
	return cmd
}

func runChangesEdit(ctx context.Context, opts *changesEditOptions) error {
	return opts.withWorkspace(ctx, func(ws engine.Workspace) error {
		id := opts.ID
		cs, err := pendingChange(ctx, ws, id, "edited")
		if err != nil {
			return err
		}
		f, err := editTarget(cs, opts.File)
		if err != nil {
			return err
		}
		edited, changed, err := editInEditor(ctx, opts.Env, f)
		if err != nil {
			return err
		}
		if !changed {
			opts.IO.Printf("no change: %s keeps its proposal\n", f.Path)
			return nil
		}
		if _, err := ws.EditChange(ctx, id, f.Path, edited); err != nil {
			return err
		}
		opts.IO.Printf("edited %s in changeset %d; review it with `nova changes show %d`, apply it with `nova changes apply %d`\n", f.Path, id, id, id)
		return nil
	})
}

// editTarget picks the file of cs to edit: path, or the only pending one.
func editTarget(cs changes.Changeset, path string) (changes.File, error) {
	var pending []changes.File
	for _, f := range cs.Files {
		if f.Status == changes.FilePending {
			pending = append(pending, f)
		}
	}
	if path != "" {
		for _, f := range pending {
			if f.Path == path {
				return f, nil
			}
		}
		return changes.File{}, usagef("changeset %d has no pending file %s; its files: %s", cs.ID, path, strings.Join(pathsOf(pending), ", "))
	}
	if len(pending) != 1 {
		return changes.File{}, usagef("changeset %d has %d files; choose one with --file: %s", cs.ID, len(pending), strings.Join(pathsOf(pending), ", "))
	}
	return pending[0], nil
}

func pathsOf(files []changes.File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// editInEditor writes f's proposal to a temporary file named like it (the
// editor picks its syntax from the name), runs the user's editor on it and
// returns what was saved, and whether it differs from the proposal.
func editInEditor(ctx context.Context, env *Env, f changes.File) (string, bool, error) {
	if f.ProposedBinary() {
		return "", false, fmt.Errorf("%s: a binary file cannot be edited here", f.Path)
	}
	dir, err := os.MkdirTemp("", "nova-edit-")
	if err != nil {
		return "", false, fmt.Errorf("edit: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	tmp := filepath.Join(dir, path.Base(f.Path))
	if err := os.WriteFile(tmp, []byte(f.Proposed), 0o600); err != nil {
		return "", false, fmt.Errorf("edit: %w", err)
	}
	cmd := editor.Command(env.Getenv, tmp)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.IO.In, env.IO.Out, env.IO.ErrOut
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return "", false, fmt.Errorf("the editor (%s) failed: %w; nothing changed", editor.Name(env.Getenv), err)
	}
	data, err := safefile.ReadFile(tmp, editLimit)
	if err != nil {
		return "", false, fmt.Errorf("edit: read what was saved: %w", err)
	}
	if !utf8.Valid(data) {
		return "", false, fmt.Errorf("edit %s: what was saved is not UTF-8 text; nothing changed", f.Path)
	}
	return string(data), string(data) != f.Proposed, nil
}

// editLimit bounds what an edit may save (the size a tool may read).
const editLimit = 8 << 20
