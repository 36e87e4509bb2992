package changes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/tui/common"
)

// askApplyAll opens the confirmation of applying every pending changeset of
// the selected changeset's build.
func (m *Model) askApplyAll() tea.Cmd {
	cs, ok := m.current()
	if !ok || m.busy != "" {
		return nil
	}
	if cs.BuildID == "" {
		if cs.Status == chg.StatusPending {
			return common.Toast(fmt.Sprintf("changeset #%d is not from a build or a goal run: a applies it alone", cs.ID))
		}
		return common.Toast(fmt.Sprintf("changeset #%d is not from a build or a goal run", cs.ID))
	}
	var group []chg.Changeset
	for _, x := range m.sets {
		if x.BuildID == cs.BuildID && x.Status == chg.StatusPending {
			group = append(group, x)
		}
	}
	what := "build " + cs.BuildID
	if len(group) == 0 {
		return common.Toast(what + " has no pending changesets")
	}
	slices.SortFunc(group, func(a, b chg.Changeset) int { return cmp.Compare(a.ID, b.ID) })
	m.dialog = &dialog{kind: dialogApplyAll, set: cs, group: group, what: what}
	return nil
}

// applyAll applies the group oldest first, stopping at the first failure.
func (m *Model) applyAll(what string, group []chg.Changeset) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	m.busy = fmt.Sprintf("applying %d changesets of %s…", len(group), what)
	ids := make([]uint64, len(group))
	for i, cs := range group {
		ids[i] = cs.ID
	}
	return func() tea.Msg {
		out := appliedAllMsg{what: what}
		for i, id := range ids {
			if _, err := src.ApplyChange(ctx, id, chg.ApplyOptions{}, ""); err != nil { // learned as the user's decision
				out.failed, out.rest, out.err = id, len(ids)-i-1, err
				break
			}
			out.applied = append(out.applied, id)
		}
		return out
	}
}

func (m *Model) appliedAll(msg appliedAllMsg) tea.Cmd {
	m.busy = ""
	done := fmt.Sprintf("applied %d changeset%s of %s", len(msg.applied), plural(len(msg.applied)), msg.what)
	var conflict *chg.ConflictError
	switch {
	case msg.err == nil:
		return tea.Batch(common.Toast(done), m.load())
	case errors.As(msg.err, &conflict):
		set := chg.Changeset{ID: msg.failed}
		for _, cs := range m.sets {
			if cs.ID == msg.failed {
				set = cs
			}
		}
		m.dialog = &dialog{kind: dialogConflict, set: set, conflicts: conflict.Conflicts}
		return tea.Batch(common.Toast(fmt.Sprintf("%s; #%d has a conflict and %d more wait", done, msg.failed, msg.rest)), m.load())
	case errors.Is(msg.err, context.Canceled):
		return m.load()
	}
	return tea.Batch(common.Failure(fmt.Errorf("%s; changeset #%d: %w", done, msg.failed, msg.err)), m.load())
}

// applyAllView is the body of the apply-all confirmation.
func (m *Model) applyAllView(d *dialog, inner int) string {
	s := m.c.Styles
	var b strings.Builder
	files := 0
	for _, cs := range d.group {
		files += len(cs.Files)
	}
	b.WriteString(s.DialogTitle.Render(common.Truncate(fmt.Sprintf("Apply all %d pending changesets of %s?", len(d.group), d.what), inner)) + "\n\n")
	b.WriteString(s.Text.Render(common.Truncate(fmt.Sprintf("Writes %d file%s to the working tree, oldest first:", files, plural(files)), inner)) + "\n")
	for i, cs := range d.group {
		if i == 6 {
			b.WriteString(s.Subtle.Render(fmt.Sprintf("  … and %d more", len(d.group)-i)) + "\n")
			break
		}
		line := fmt.Sprintf("#%d %s · %d file%s", cs.ID, cmp.Or(cs.Agent, "manual"), len(cs.Files), plural(len(cs.Files)))
		if cs.TaskID != "" {
			line += " · task " + cs.TaskID
		}
		b.WriteString("  " + s.Text.Render(common.Truncate(line, inner-2)) + "\n")
	}
	b.WriteString(s.Subtle.Render(common.Truncate("A conflict stops the rest; what was applied stays applied.", inner)) + "\n")
	return b.String()
}
