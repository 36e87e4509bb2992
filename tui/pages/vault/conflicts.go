package vault

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// conflictsPane lists the pairs of nodes linked by "contradicts", side by
// side; the page's actions apply to the chosen side.
type conflictsPane struct {
	*shared
	width, height int

	list   []engvault.Conflict
	rows   *vlist.Model[engvault.Conflict] // a pair is one row of several lines
	loaded bool
	side   int
	cl     int // content lines of a side (view sets it for block)
	seq    int
	err    error
}

type conflictsMsg struct {
	seq  int
	list []engvault.Conflict
	err  error
}

func newConflictsPane(sh *shared) *conflictsPane {
	p := &conflictsPane{shared: sh}
	p.rows = vlist.New(sh.c, p.block)
	p.rows.SetMarker(true)
	return p
}

// cursor is the index of the chosen pair.
func (p *conflictsPane) cursor() int { return p.rows.Cursor() }

func (p *conflictsPane) setSize(w, h int) { p.width, p.height = w, h }

// load (re)loads the pairs.
func (p *conflictsPane) load() tea.Cmd {
	p.seq++
	src, ctx, seq := p.src, p.ctx(), p.seq
	return func() tea.Msg {
		list, err := src.ListConflicts(ctx)
		return conflictsMsg{seq: seq, list: list, err: err}
	}
}

func (p *conflictsPane) update(msg tea.Msg) tea.Cmd {
	m, ok := msg.(conflictsMsg)
	if !ok || m.seq != p.seq {
		return nil
	}
	if m.err != nil {
		p.err = m.err
		return common.Failure(fmt.Errorf("conflicts: %w", m.err))
	}
	keep, had := p.rows.Selected()
	p.list, p.loaded, p.err = m.list, true, nil
	p.rows.ReplaceRows(p.list, func(c engvault.Conflict) bool { return had && c.A.ID == keep.A.ID && c.B.ID == keep.B.ID })
	return nil
}

// target is the chosen side of the chosen pair.
func (p *conflictsPane) target() (engvault.Node, bool) {
	c, ok := p.rows.Selected()
	if !ok {
		return engvault.Node{}, false
	}
	if p.side == 1 {
		return c.B, true
	}
	return c.A, true
}

// key handles the view's keys; it reports whether it used k.
func (p *conflictsPane) key(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := p.c.KeyMap
	n := len(p.list)
	if ok, cmd := p.rows.HandleKey(k); ok {
		return cmd, true
	}
	switch {
	case key.Matches(k, km.Left):
		p.side = 0
	case key.Matches(k, km.Right, km.Tab):
		if key.Matches(k, km.Tab) {
			p.side = 1 - p.side
		} else {
			p.side = 1
		}
	case key.Matches(k, km.Enter):
		if n > 0 {
			t, _ := p.target()
			return send(jumpMsg{id: t.ID}), true
		}
	case key.Matches(k, km.Back, p.keys.HistoryBack):
		return send(backMsg{}), true
	default:
		return nil, false
	}
	return nil, true
}

func (p *conflictsPane) view() string {
	s := p.c.Styles
	head := s.Title.Render("Conflicts")
	info := ""
	switch {
	case !p.loaded:
		info = "loading…"
	default:
		info = plural(len(p.list), "contradicting pair", "contradicting pairs")
	}
	headLine := head + "  " + s.Muted.Render(info)
	hint := s.Subtle.Render("↑/↓ pair · ←/→ side · enter opens · +/- d t L act on the chosen side · c or esc closes")
	top := ansi.Truncate(headLine, p.width, "…") + "\n" + ansi.Truncate(hint, p.width, "…")
	avail := max(3, p.height-topLines)
	if p.err != nil {
		return top + "\n" + s.Error.Render(clip(p.err.Error(), p.width))
	}
	if p.loaded && len(p.list) == 0 {
		return top + "\n" + s.Panel.Width(p.width).Render(p.c.Empty("No conflicts.",
			lipgloss.Wrap("Two nodes linked by “contradicts” show up here side by side. The vault links them when it learns a node that contradicts another, or link them yourself with L.", p.width-4, " ")))
	}
	cl := 3
	if p.height >= 30 {
		cl = 6
	}
	p.cl = cl
	bh := 1 + 2 + 2 + cl
	p.rows.SetRowHeight(bh)
	return top + "\n" + p.rows.ViewNoted(p.width, max(bh, avail))
}

// block draws one pair in p.cl+5 lines of width cells: a head line, then
// the two sides in panels (the chosen side's focused).
func (p *conflictsPane) block(c engvault.Conflict, i int, sel, _ bool, width int) string {
	s := p.c.Styles
	cl := p.cl
	head := s.Muted.Render(fmt.Sprintf("%d/%d ", i+1, len(p.list))) + s.EdgeConflict.Render("contradicts") +
		s.Subtle.Render(fmt.Sprintf(" · #%d ─▶ #%d · strength %.2f", c.A.ID, c.B.ID, c.Edge.Strength))
	lw := (width - 1) / 2
	rw := width - 1 - lw
	side := func(n engvault.Node, w int, focused bool) string {
		inner := w - 4
		var b strings.Builder
		b.WriteString(p.badge(n.Type) + " " + s.Bold.Render(clip(fmt.Sprintf("#%d %s", n.ID, label(n)), inner-6)) + "\n")
		b.WriteString(s.Bar(n.Confidence, 8) + " " + s.Muted.Render(fmt.Sprintf("%.2f · ✓%d · %s", n.Confidence, n.HelpfulCount, n.Source)) + "\n")
		wrapped := strings.Split(lipgloss.Wrap(strings.Join(strings.Fields(n.Content), " "), inner, " "), "\n")
		if len(wrapped) > cl {
			wrapped = wrapped[:cl]
			wrapped[cl-1] = clip(wrapped[cl-1]+" …", inner)
		}
		for j, l := range wrapped {
			if j > 0 {
				b.WriteString("\n")
			}
			b.WriteString(s.Text.Render(l))
		}
		panel := s.Panel
		if focused {
			panel = s.PanelFocused
		}
		lines := strings.Split(b.String(), "\n")
		for j, l := range lines {
			lines[j] = ansi.Truncate(l, inner, "…")
		}
		return panel.Width(w).Height(2 + 2 + cl).Render(common.FitHeight(strings.Join(lines, "\n"), 2+cl))
	}
	pair := lipgloss.JoinHorizontal(lipgloss.Top, side(c.A, lw, sel && p.side == 0), " ", side(c.B, rw, sel && p.side == 1))
	return ansi.Truncate(head, width, "…") + "\n" + pair
}
