package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/internal/editor"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/tuitest"
)

// appliedBuildChange stages README.md and a new file from build 4, task
// t-003, and applies it; it returns its id.
func appliedBuildChange(t *testing.T, ws *testWS) uint64 {
	t.Helper()
	ws.write(t, "README.md", "# shop\n\nA small shop.\n")
	id := ws.stage(t, chg.Meta{RunID: 9, Agent: "MARS", Task: "Document the health endpoint", BuildID: "4", TaskID: "t-003"},
		[2]string{"README.md", "# shop\n\nA small shop. GET /healthz answers 200.\n"},
		[2]string{"docs/health.md", "# Health\n\nGET /healthz\n"})
	_, err := ws.store.Apply(context.Background(), id, chg.ApplyOptions{})
	require.NoError(t, err)
	return id
}

// Issue 17: R on an applied changeset asks, then restores the files; the
// revert appears as a changeset of its own, and the reverted one says so.
func TestRevertAfterConfirmation(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	id := appliedBuildChange(t, ws)
	h := newPage(t, ws, 120, 30)
	assert.Contains(t, h.plain(), "from build 4, task t-003")

	h.press("R")
	require.NotNil(t, h.m.dialog)
	out := h.plain()
	assert.Contains(t, out, fmt.Sprintf("Revert changeset #%d?", id))
	assert.Contains(t, out, "docs/health.md")
	h.press("n")
	assert.Nil(t, h.m.dialog)
	assert.FileExists(t, filepath.Join(ws.root, "docs/health.md"), "cancel changes nothing")

	h.press("R", "y")
	assert.Equal(t, "# shop\n\nA small shop.\n", ws.read(t, "README.md"))
	assert.NoFileExists(t, filepath.Join(ws.root, "docs/health.md"))
	require.NotEmpty(t, h.d.Toasts)
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], fmt.Sprintf("reverted #%d with #%d: 1 restored, 1 removed", id, id+1))
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], "learned as a rejection")
	cs, err := ws.store.Get(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, chg.StatusReverted, cs.Status)

	out = h.plain()
	assert.Contains(t, out, "reverted")
	assert.Contains(t, out, fmt.Sprintf("#%d", id+1))

	// R again on the reverted one says what to do instead.
	for i, s := range h.m.sets {
		if s.ID == id {
			h.m.selectIndex(i)
		}
	}
	h.press("R")
	assert.Nil(t, h.m.dialog)
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], fmt.Sprintf("already reverted by #%d", id+1))
}

// A file changed since the apply: the revert stops, names it, and only a
// deliberate y overwrites (enter keeps the user's changes).
func TestRevertConflictNeedsADeliberateY(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	id := appliedBuildChange(t, ws)
	mine := "# shop\n\nMy own words.\n"
	ws.write(t, "README.md", mine)
	h := newPage(t, ws, 120, 30)
	h.press("R", "y")
	require.NotNil(t, h.m.dialog)
	assert.Equal(t, dialogRevertConflict, h.m.dialog.kind)
	out := h.plain()
	assert.Contains(t, out, fmt.Sprintf("Changeset #%d was not reverted", id))
	assert.Contains(t, out, "README.md modified since the apply")
	h.press("enter")
	assert.Nil(t, h.m.dialog, "enter keeps the user's changes")
	assert.Equal(t, mine, ws.read(t, "README.md"))
	assert.FileExists(t, filepath.Join(ws.root, "docs/health.md"))

	h.press("R", "y", "y")
	assert.Equal(t, "# shop\n\nA small shop.\n", ws.read(t, "README.md"))
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], "1 overwritten")
}

func TestRevertOnlyAppliedChangesets(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	seed(t, ws)
	h := newPage(t, ws, 120, 30)
	h.press("R")
	assert.Nil(t, h.m.dialog)
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], "only applied changesets can be reverted")
}

// The palette's "revert a change" opens the revert of the newest applied
// changeset (it still asks).
func TestPaletteRevertOpensTheNewestApplied(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	id := appliedBuildChange(t, ws)
	seed(t, ws) // newer, pending
	h := newPage(t, ws, 120, 30)
	h.send(common.NavigateMsg{Page: ID, Arg: ArgRevert})
	require.NotNil(t, h.m.dialog)
	assert.Equal(t, dialogRevert, h.m.dialog.kind)
	assert.Equal(t, id, h.m.dialog.set.ID)
}

// e opens the selected staged file in $EDITOR (here a script standing in
// for it); what it saves is the new proposal and the diff follows.
func TestEditWithAFakeEditor(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	_, b := seed(t, ws) // #b: VENUS, README.md
	script := filepath.Join(t.TempDir(), "fake-editor.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nprintf '# shop\\n\\nEdited by hand.\\n' > \"$1\"\n"), 0o755))
	h := newPage(t, ws, 120, 30)
	h.m.getenv = func(k string) string {
		if k == "EDITOR" {
			return script
		}
		return ""
	}
	h.press("tab") // the files pane; README.md is selected
	_, cmd := h.m.Update(tuitest.Key("e"))
	require.NotNil(t, cmd)
	ready, ok := cmd().(editReadyMsg)
	require.True(t, ok)
	require.NoError(t, ready.err)
	assert.Equal(t, "README.md", filepath.Base(ready.tmp), "named like the file, for the editor's syntax")
	h.send(ready) // suspends the TUI for the editor (tea.ExecProcess)
	assert.Contains(t, h.plain(), "editing README.md")
	require.NoError(t, editor.Command(h.m.getenv, ready.tmp).Run()) // what the program runs
	h.send(editDoneMsg{ready: ready})

	cs, err := ws.store.Get(context.Background(), b)
	require.NoError(t, err)
	f, _ := cs.File("README.md")
	assert.Equal(t, "# shop\n\nEdited by hand.\n", f.Proposed)
	assert.True(t, f.Edited)
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], "edited README.md")
	assert.Contains(t, h.plain(), "Edited by hand.", "the diff shows the edit")
	assert.NoDirExists(t, ready.dir, "the temporary file is gone")

	// Applying writes the edit.
	h.press("a", "y")
	assert.Equal(t, "# shop\n\nEdited by hand.\n", ws.read(t, "README.md"))
}

func TestEditRefusesWhatCannotBeEdited(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	appliedBuildChange(t, ws)
	h := newPage(t, ws, 120, 30)
	h.press("tab", "e")
	assert.Contains(t, h.d.Toasts[len(h.d.Toasts)-1], "only staged changes can be edited")

	// An editor that fails changes nothing.
	_, b := seed(t, ws)
	h = newPage(t, ws, 120, 30)
	h.m.getenv = func(k string) string {
		if k == "EDITOR" {
			return "false"
		}
		return ""
	}
	h.press("tab")
	_, cmd := h.m.Update(tuitest.Key("e"))
	ready := cmd().(editReadyMsg)
	h.send(ready)
	h.send(editDoneMsg{ready: ready, err: editor.Command(h.m.getenv, ready.tmp).Run()})
	require.NotEmpty(t, h.d.Errs)
	assert.Contains(t, h.d.Errs[len(h.d.Errs)-1].Error(), "nothing changed")
	cs, err := ws.store.Get(context.Background(), b)
	require.NoError(t, err)
	f, _ := cs.File("README.md")
	assert.False(t, f.Edited)
}

func TestGoldenUndo(t *testing.T) {
	t.Parallel()
	t.Run("revert_dialog_80x21", func(t *testing.T) {
		t.Parallel()
		ws := newWS(t)
		appliedBuildChange(t, ws)
		h := newPage(t, ws, 80, 21)
		h.press("R")
		golden.RequireEqual(t, h.pinned())
	})
	t.Run("revert_conflict_80x21", func(t *testing.T) {
		t.Parallel()
		ws := newWS(t)
		appliedBuildChange(t, ws)
		ws.write(t, "README.md", "# shop\n\nMy own words.\n")
		h := newPage(t, ws, 80, 21)
		h.press("R", "y")
		golden.RequireEqual(t, h.pinned())
	})
	for _, size := range [][2]int{{80, 21}, {180, 47}} {
		t.Run(fmt.Sprintf("reverted_%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			ws := newWS(t)
			appliedBuildChange(t, ws)
			h := newPage(t, ws, size[0], size[1])
			h.press("R", "y", "j", "tab")
			golden.RequireEqual(t, h.pinned())
		})
	}
}
