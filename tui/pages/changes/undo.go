package changes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/internal/editor"
	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/tui/common"
)

// Undo and edit (issue 17): R reverts an applied changeset, e opens the
// selected staged file in $EDITOR (the TUI suspends while it runs, as git
// and lazygit do).

// origin says where a changeset comes from and what became of it, for the
// Files panel, one line each: "from build 4, task t-003", "reverts #3",
// "reverted by #6", "commit 1a2b3c4d5e".
func origin(cs chg.Changeset) []string {
	var parts []string
	if cs.BuildID != "" {
		parts = append(parts, fmt.Sprintf("from build %s, task %s", cs.BuildID, cs.TaskID))
	}
	if cs.RevertOf != 0 {
		parts = append(parts, fmt.Sprintf("reverts #%d", cs.RevertOf))
	}
	if cs.RevertedBy != 0 {
		parts = append(parts, fmt.Sprintf("reverted by #%d", cs.RevertedBy))
	}
	if cs.Commit != "" {
		parts = append(parts, "commit "+cs.Commit[:min(10, len(cs.Commit))])
	}
	return parts
}

// askRevert opens the revert confirmation of the selected changeset.
func (m *Model) askRevert() tea.Cmd {
	cs, ok := m.current()
	if !ok || m.busy != "" {
		return nil
	}
	switch cs.Status {
	case chg.StatusApplied:
	case chg.StatusReverted:
		// Follow the chain in the loaded list (no I/O here): a change
		// reverted and brought back is undone by reverting the last link.
		get := func(_ context.Context, id uint64) (chg.Changeset, error) {
			for _, x := range m.sets {
				if x.ID == id {
					return x, nil
				}
			}
			return chg.Changeset{}, chg.ErrNotFound
		}
		last, back, err := chg.FollowReverts(m.c.Ctx, get, cs)
		switch {
		case err != nil || last.ID == cs.RevertedBy:
			return common.Toast(fmt.Sprintf("changeset #%d was already reverted by #%d (R on #%d brings it back)", cs.ID, cs.RevertedBy, cs.RevertedBy))
		case back:
			return common.Toast(fmt.Sprintf("changeset #%d was reverted by #%d and brought back by #%d (R on #%d undoes it again)", cs.ID, cs.RevertedBy, last.ID, last.ID))
		}
		return common.Toast(fmt.Sprintf("changeset #%d was reverted, brought back and undone again by #%d (R on #%d brings it back)", cs.ID, last.ID, last.ID))
	default:
		return common.Toast(fmt.Sprintf("only applied changesets can be reverted; #%d is %s", cs.ID, cs.Status))
	}
	m.dialog = &dialog{kind: dialogRevert, set: cs}
	return nil
}

// askRevertNewest selects the newest applied changeset and asks to revert
// it (the palette's "revert a change").
func (m *Model) askRevertNewest() tea.Cmd {
	if cs, ok := m.current(); ok && cs.Status == chg.StatusApplied {
		return m.askRevert()
	}
	newest := -1
	for i, cs := range m.sets {
		if cs.Status == chg.StatusApplied && (newest < 0 || cs.AppliedAt.After(m.sets[newest].AppliedAt)) {
			newest = i
		}
	}
	if newest < 0 {
		return common.Toast("no applied changeset to revert")
	}
	m.selectIndex(newest)
	m.focus = focusSets
	return tea.Batch(m.showFile(), m.askRevert())
}

func (m *Model) revert(id uint64, force bool) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	m.busy = fmt.Sprintf("reverting #%d…", id)
	return call(func() (tea.Msg, error) {
		rep, err := src.RevertChange(ctx, id, chg.RevertOptions{Force: force}, "") // learned once, as a rejection
		return revertedMsg{id: id, report: rep, err: err}, nil
	}, func(err error) tea.Msg { return revertedMsg{id: id, err: err} })
}

func (m *Model) revertDone(msg revertedMsg) tea.Cmd {
	m.busy = ""
	var conflict *chg.ConflictError
	switch {
	case errors.As(msg.err, &conflict):
		set := chg.Changeset{ID: msg.id}
		if cs, ok := m.current(); ok && cs.ID == msg.id {
			set = cs
		}
		m.dialog = &dialog{kind: dialogRevertConflict, set: set, conflicts: conflict.Conflicts}
		return nil
	case errors.Is(msg.err, context.Canceled):
		return m.load()
	case msg.err != nil:
		return tea.Batch(common.Failure(msg.err), m.load())
	}
	r := msg.report
	text := fmt.Sprintf("reverted #%d with #%d: %d restored, %d removed", msg.id, r.Revert.ID, len(r.Restored), len(r.Removed))
	if n := len(r.Overwritten); n > 0 {
		text += fmt.Sprintf(", %d overwritten", n)
	}
	if r.Learned {
		text += " · learned as a rejection"
	}
	cmds := []tea.Cmd{common.Toast(text), m.load()}
	if r.CommitError != "" {
		cmds = append(cmds, common.Failure(fmt.Errorf("reverted, but no git commit: %s", r.CommitError)))
	}
	return tea.Batch(cmds...)
}

// editReadyMsg: the proposal is in a temporary file, ready for the editor.
type editReadyMsg struct {
	id       uint64
	path     string // the staged file
	dir, tmp string
	proposal string
	err      error
}

// editDoneMsg: the editor exited.
type editDoneMsg struct {
	ready editReadyMsg
	err   error
}

// editSavedMsg: the edit was stored (or nothing changed).
type editSavedMsg struct {
	id      uint64
	path    string
	changed bool
	err     error
}

// edit writes the selected file's proposal to a temporary file (named like
// it, so the editor picks its syntax) off the UI goroutine.
func (m *Model) edit() tea.Cmd {
	cs, ok := m.current()
	if !ok || m.busy != "" {
		return nil
	}
	f, ok := m.currentFile()
	switch {
	case !ok:
		return common.Toast("pick a file to edit")
	case cs.Status != chg.StatusPending:
		return common.Toast(fmt.Sprintf("only staged changes can be edited; #%d is %s", cs.ID, cs.Status))
	case f.Status != chg.FilePending:
		return common.Toast(fmt.Sprintf("%s is already %s", f.Path, f.Status))
	case f.ProposedBinary():
		return common.Toast(f.Path + " is binary: it cannot be edited here")
	}
	ready := editReadyMsg{id: cs.ID, path: f.Path, proposal: f.Proposed}
	return func() tea.Msg {
		dir, err := os.MkdirTemp("", "nova-edit-")
		if err != nil {
			ready.err = err
			return ready
		}
		ready.dir, ready.tmp = dir, filepath.Join(dir, path.Base(ready.path))
		ready.err = os.WriteFile(ready.tmp, []byte(ready.proposal), 0o600)
		return ready
	}
}

// runEditor suspends the TUI and runs the editor on the temporary file.
func (m *Model) runEditor(msg editReadyMsg) tea.Cmd {
	if msg.err != nil {
		cleanup(msg.dir)
		return common.Failure(fmt.Errorf("edit %s: %w", msg.path, msg.err))
	}
	m.busy = "editing " + msg.path + "…"
	return tea.ExecProcess(editor.Command(m.getenv, msg.tmp), func(err error) tea.Msg {
		return editDoneMsg{ready: msg, err: err}
	})
}

// editDone reads what the editor saved and stores it, off the UI goroutine.
func (m *Model) editDone(msg editDoneMsg) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	r := msg.ready
	if msg.err != nil {
		m.busy = ""
		cleanup(r.dir)
		return common.Failure(fmt.Errorf("the editor (%s) failed: %w; nothing changed", editor.Name(m.getenv), msg.err))
	}
	return func() tea.Msg {
		defer cleanup(r.dir)
		data, err := safefile.ReadFile(r.tmp, 8<<20)
		if err != nil {
			return editSavedMsg{id: r.id, path: r.path, err: fmt.Errorf("read what was saved: %w", err)}
		}
		if !utf8.Valid(data) {
			return editSavedMsg{id: r.id, path: r.path, err: errors.New("what was saved is not UTF-8 text; nothing changed")}
		}
		if string(data) == r.proposal {
			return editSavedMsg{id: r.id, path: r.path}
		}
		_, err = src.EditChange(ctx, r.id, r.path, string(data))
		return editSavedMsg{id: r.id, path: r.path, changed: err == nil, err: err}
	}
}

func (m *Model) editSaved(msg editSavedMsg) tea.Cmd {
	m.busy = ""
	switch {
	case msg.err != nil:
		return tea.Batch(common.Failure(fmt.Errorf("edit %s: %w", msg.path, msg.err)), m.load())
	case !msg.changed:
		return common.Toast(fmt.Sprintf("no change: %s keeps its proposal", msg.path))
	}
	// The diff follows: the reload shows the edited proposal.
	m.shownKey = ""
	return tea.Batch(common.Toast(fmt.Sprintf("edited %s in #%d: apply it with a", msg.path, msg.id)), m.load())
}

func cleanup(dir string) {
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}
