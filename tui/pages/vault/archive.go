package vault

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// confirmRestore is the restore question's id.
const confirmRestore = "vault.restore"

// archivePane lists the archived nodes and restores one after a
// confirmation. A refused restore (the cap) is shown in the view, not only
// in the status bar.
type archivePane struct {
	*shared
	width, height int

	list       []engvault.ArchivedNode // most recently archived first
	rows       *vlist.Model[engvault.ArchivedNode]
	loaded     bool
	seq        int
	err        error // loading failed
	restoreErr error // the last restore was refused
}

type archiveMsg struct {
	seq  int
	list []engvault.ArchivedNode
	err  error
}

type restoredMsg struct {
	id  uint64
	res engvault.RestoreResult
	err error
}

func newArchivePane(sh *shared) *archivePane {
	a := &archivePane{shared: sh}
	a.rows = vlist.New(sh.c, a.renderRow)
	a.rows.SetMarker(true)
	return a
}

func (a *archivePane) setSize(w, h int) { a.width, a.height = w, h }

func (a *archivePane) load() tea.Cmd {
	if a.src == nil {
		return nil
	}
	a.seq++
	src, ctx, seq := a.src, a.ctx(), a.seq
	return func() tea.Msg {
		list, err := src.ListArchived(ctx)
		return archiveMsg{seq: seq, list: list, err: err}
	}
}

func (a *archivePane) selected() (engvault.ArchivedNode, bool) { return a.rows.Selected() }

// cursor is the index of the chosen archived node.
func (a *archivePane) cursor() int { return a.rows.Cursor() }

func (a *archivePane) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case archiveMsg:
		if msg.seq != a.seq {
			return nil
		}
		if msg.err != nil {
			a.err = msg.err
			return common.Failure(fmt.Errorf("archive: %w", msg.err))
		}
		keep, had := a.selected()
		a.list, a.loaded, a.err = msg.list, true, nil
		a.rows.ReplaceRows(a.list, func(an engvault.ArchivedNode) bool { return had && an.Node.ID == keep.Node.ID })
	case confirm.ResultMsg:
		if msg.ID != confirmRestore || !msg.Confirmed || a.src == nil {
			return nil
		}
		id, _ := msg.Payload.(uint64)
		src, ctx := a.src, a.ctx()
		return func() tea.Msg {
			res, err := src.RestoreNode(ctx, id)
			return restoredMsg{id: id, res: res, err: err}
		}
	case restoredMsg:
		if msg.err != nil {
			a.restoreErr = fmt.Errorf("restore #%d: %w", msg.id, msg.err)
			return tea.Batch(common.Failure(a.restoreErr), a.load())
		}
		a.restoreErr = nil
		r := msg.res
		text := fmt.Sprintf("#%d restored", msg.id)
		if r.Edges > 0 || r.Deferred > 0 || r.Dropped > 0 {
			text += fmt.Sprintf(" with %s", plural(r.Edges, "link", "links"))
		}
		if r.Deferred > 0 {
			text += fmt.Sprintf("; %s come back with archived nodes", plural(r.Deferred, "link", "links"))
		}
		if r.Dropped > 0 {
			text += fmt.Sprintf("; %s lost their other end", plural(r.Dropped, "link", "links"))
		}
		// The vault changed: the page refreshes on the engine's event; the
		// archive reloads now.
		return tea.Batch(common.Toast(text), a.load())
	}
	return nil
}

// key handles the archive's keys; confirm asks the restore question.
func (a *archivePane) key(k tea.KeyPressMsg, ask func(confirm.Options)) (tea.Cmd, bool) {
	km := a.c.KeyMap
	if ok, cmd := a.rows.HandleKey(k); ok {
		return cmd, true
	}
	switch {
	case key.Matches(k, a.keys.Restore):
		an, ok := a.selected()
		if !ok {
			return nil, true
		}
		body := fmt.Sprintf("“%s” returns to the vault with its id", common.Truncate(label(an.Node), 80))
		if len(an.Edges) > 0 {
			body += fmt.Sprintf(" and its %s (those whose other end still exists)", plural(len(an.Edges), "link", "links"))
		}
		body += ". A full vault refuses it: forget or archive a node first."
		ask(confirm.Options{ID: confirmRestore, Title: fmt.Sprintf("Restore node #%d?", an.Node.ID),
			Body: body, Yes: "Restore", No: "Cancel", Danger: true, Payload: an.Node.ID})
	case key.Matches(k, km.Back, a.keys.HistoryBack):
		return send(backMsg{}), true
	default:
		return nil, false
	}
	return nil, true
}

// ---- view ------------------------------------------------------------------

func (a *archivePane) view() string {
	s := a.c.Styles
	head := s.Title.Render("Archive")
	var info string
	switch {
	case a.src == nil:
	case !a.loaded && a.err == nil:
		info = "loading…"
	default:
		info = plural(len(a.list), "archived node", "archived nodes")
	}
	headLine := head + "  " + s.Muted.Render(info)
	hint := s.Subtle.Render("↑/↓ choose · enter restores (asks first) · a or esc closes · most recent first")
	top := ansi.Truncate(headLine, a.width, "…") + "\n" + ansi.Truncate(hint, a.width, "…")
	ph := max(3, a.height-topLines)
	inner := a.width - 4
	var body string
	switch {
	case a.err != nil:
		body = s.Error.Render(lipgloss.Wrap("Could not read the archive: "+a.err.Error(), inner, " "))
	case !a.loaded:
		body = s.Subtle.Render("loading…")
	case len(a.list) == 0:
		body = a.c.Empty("The archive is empty.",
			lipgloss.Wrap("When the vault reaches its tier's cap, what nova learns moves the least confident node here instead of deleting it. Restore brings it back.", inner, " "))
	default:
		body = a.listView(inner, ph-2)
	}
	return top + "\n" + a.box(body, a.width, ph, true)
}

// listView is the rows, then the chosen node's facts, in h lines.
func (a *archivePane) listView(w, h int) string {
	s := a.c.Styles
	var errLines []string
	if a.restoreErr != nil {
		head := "✗ Restore refused."
		if errors.Is(a.restoreErr, engvault.ErrOverCap) {
			head = "✗ Restore refused: the vault is full."
		}
		errLines = append(errLines, s.Error.Bold(true).Render(head))
		for _, l := range common.WrapWords(a.restoreErr.Error(), w) {
			errLines = append(errLines, s.Error.Render(l))
		}
	}
	detail := a.detailLines(w)
	rowsH := max(1, h-len(detail)-len(errLines)-1)
	lines := strings.Split(a.rows.ViewNoted(w, rowsH), "\n")
	for len(lines) < rowsH {
		lines = append(lines, "")
	}
	lines = append(lines, s.Tree.Render(strings.Repeat("─", max(0, w))))
	lines = append(lines, detail...)
	lines = append(lines, errLines...)
	return strings.Join(lines, "\n")
}

// renderRow draws one archived node: its type, id and label, and when it
// was archived.
func (a *archivePane) renderRow(an engvault.ArchivedNode, _ int, selected, _ bool, w int) string {
	s := a.c.Styles
	when := s.Muted.Render(fmtTime(an.ArchivedAt))
	textW := max(4, w-6-lipgloss.Width(when)-1)
	text := clip(fmt.Sprintf("#%d %s", an.Node.ID, label(an.Node)), textW)
	st := s.Text
	if selected {
		st = s.Selected
	}
	return a.badge(an.Node.Type) + " " + st.Render(pad(text, textW)) + " " + when
}

func (a *archivePane) detailLines(w int) []string {
	s := a.c.Styles
	an, ok := a.selected()
	if !ok {
		return nil
	}
	n := an.Node
	out := []string{
		s.Bar(n.Confidence, 8) + " " + s.Muted.Render(clip(fmt.Sprintf("%.2f · %s · %s", n.Confidence, plural(len(an.Edges), "link", "links"), n.Source), max(4, w-9))),
		s.Subtle.Render("why ") + s.Text.Render(clip(an.Reason, max(4, w-4))),
	}
	wrapped := strings.Split(lipgloss.Wrap(strings.Join(strings.Fields(n.Content), " "), w, " "), "\n")
	if len(wrapped) > 2 {
		wrapped = wrapped[:2]
		wrapped[1] = clip(wrapped[1]+" …", w)
	}
	for _, l := range wrapped {
		out = append(out, s.Text.Render(l))
	}
	return out
}
