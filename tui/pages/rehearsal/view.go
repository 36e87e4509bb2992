package rehearsal

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	rh "github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
)

// columnHeader is the number of lines above a branch's diff: title, four
// score bars, the check line and the file tabs.
const columnHeader = 7

// sideBySide reports whether the branches are shown in columns.
func (m *Model) sideBySide() bool {
	return m.width >= SideBySideFrom && m.sess != nil && len(m.sess.Branches) > 1
}

// columns is the number of branch columns on screen.
func (m *Model) columns() int {
	if m.sideBySide() {
		return len(m.sess.Branches)
	}
	return 1
}

// colWidth is the outer width of column i.
func (m *Model) colWidth(i int) int {
	n := m.columns()
	w := m.width / n
	if i == n-1 {
		w = m.width - w*(n-1)
	}
	return w
}

// areaHeight is the height of the columns (under the page header and, when
// narrow, the branch tabs).
func (m *Model) areaHeight() int {
	h := m.height - 1
	if !m.sideBySide() {
		h--
	}
	return max(0, h)
}

func (m *Model) layout() {
	if m.sess == nil {
		return
	}
	dh := max(1, m.areaHeight()-2-columnHeader)
	for i, dv := range m.dvs {
		col := i
		if !m.sideBySide() {
			col = 0
		}
		dv.SetSize(max(diffviewMin, m.colWidth(col)-4), dh)
	}
}

const diffviewMin = 20

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	var body string
	if m.sess == nil {
		body = m.listView()
	} else {
		body = m.reviewView()
	}
	body = common.FitHeight(body, m.height)
	switch {
	case m.dialog.Active():
		body = common.Overlay(body, m.dialog.View(), m.width, m.height)
	case m.rejecting:
		body = common.Overlay(body, m.reasonView(), m.width, m.height)
	}
	return body
}

// hint is a dialog's last line: its keys and what they do.
func hint(keys ...key.Binding) string {
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		h := k.Help()
		parts = append(parts, h.Key+" "+h.Desc)
	}
	return strings.Join(parts, " · ")
}

func (m *Model) reasonView() string {
	s := m.c.Styles
	w := min(72, max(30, m.width-8))
	inner := w - 6
	text := s.DialogTitle.Render("Reject every branch?") + "\n\n" +
		s.Text.Render(lipgloss.Wrap("The task is blocked with your reason, and the vault learns from it. Nothing is written.", inner, " ")) +
		"\n\n" + m.reason.View() + "\n\n" + s.Subtle.Render(common.Truncate(hint(m.keys.RejectAll, m.keys.CancelReject), inner))
	return s.Dialog.Width(w).Render(text)
}

// listView is the session list with its filter tabs.
func (m *Model) listView() string {
	s := m.c.Styles
	inner := m.width - 4
	var b strings.Builder
	var tabs []string
	for i, name := range filterNames {
		st := s.Tab
		if i == m.filter {
			st = s.TabActive
		}
		tabs = append(tabs, st.Render(name))
	}
	pending := 0
	for _, x := range m.sessions {
		if x.Pending() {
			pending++
		}
	}
	b.WriteString(s.PanelTitleActive.Render("Rehearsals") + " " + s.Muted.Render(fmt.Sprintf("%d pending", pending)) + "  " + strings.Join(tabs, s.TabSep.Render("│")) + "\n")
	switch {
	case !m.loaded:
		b.WriteString(s.Muted.Render("Loading rehearsals…"))
	case m.loadErr != nil:
		b.WriteString(s.Error.Render("Could not read the rehearsals") + "\n" + s.Text.Render(common.Truncate(m.loadErr.Error(), inner)))
	case len(m.visible()) == 0:
		hint := "Risky build tasks are rehearsed on the premium tier; rehearse one with `nova rehearse PRD TASK_ID`."
		if len(m.sessions) > 0 {
			hint = "No session matches this filter (tab changes it)."
		}
		b.WriteString(m.c.Empty("No rehearsals here.", lipgloss.Wrap(hint, inner, " ")))
	default:
		rows := max(1, m.height-3)
		b.WriteString(s.Subtle.Render(common.Truncate(fmt.Sprintf("  %-5s %-10s %-12s %-9s %-8s %-6s %-14s %s", "ID", "STATUS", "TASK", "AGENT", "BRANCHES", "BEST", "CREATED", "DECISION"), inner)) + "\n")
		b.WriteString(m.list.FramedView(inner, max(1, rows-1)))
	}
	return s.PanelFocused.Width(m.width).Height(m.height).Render(strings.TrimRight(b.String(), "\n"))
}

// renderSession draws one session of the list.
func (m *Model) renderSession(x rh.Session, _ int, selected, _ bool, w int) string {
	s := m.c.Styles
	best := "-"
	if r := x.Ranked(); len(r) > 0 {
		best = fmt.Sprintf("%.2f", r[0].Score)
	}
	line := fmt.Sprintf("#%-4d %-10s %-12s %-9s %-8d %-6s %-14s %s", x.ID, x.Status, common.Truncate(x.TaskID, 12),
		common.Truncate(x.AgentName, 9), len(x.Branches), best, age(m.now(), x.CreatedAt), decision(x))
	line = common.Truncate(line, w)
	switch {
	case selected:
		return s.Selected.Width(w).Render(line)
	case !x.Pending():
		return s.Muted.Render(line)
	}
	return s.Text.Render(line)
}

func decision(x rh.Session) string {
	switch x.Status {
	case rh.StatusApproved:
		if x.Auto {
			return x.Winner + " (auto)"
		}
		return x.Winner + " (you)"
	case rh.StatusRejected:
		return "rejected: " + x.Reason
	case rh.StatusFailed:
		return x.Failure
	}
	return "waiting for you"
}

func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Local().Format("2006-01-02")
}

// reviewView is the page header, the branch tabs when narrow, and the
// columns.
func (m *Model) reviewView() string {
	s := m.c.Styles
	x := *m.sess
	var head strings.Builder
	head.WriteString(s.Title.Render(fmt.Sprintf("Rehearsal #%d", x.ID)) + " ")
	head.WriteString(s.Text.Render(fmt.Sprintf("%s %s", x.TaskID, x.TaskTitle)) + " ")
	head.WriteString(s.Muted.Render(fmt.Sprintf("· %s · round %d", x.AgentName, len(x.Rounds))) + " ")
	head.WriteString(statusBadge(s, x) + " ")
	var flags []string
	if m.sync {
		flags = append(flags, "sync")
	}
	if m.why {
		flags = append(flags, "why")
	}
	if m.busy != "" {
		flags = append(flags, m.busy)
	}
	if x.Trimmed() != "" {
		flags = append(flags, "✂ prompt trimmed")
	}
	if !x.Pending() {
		flags = append(flags, "read-only: "+decision(x))
		if len(x.Written) > 0 {
			flags = append(flags, "wrote "+strings.Join(x.Written, ", "))
		}
	}
	if len(flags) > 0 {
		head.WriteString(s.Warning.Render(strings.Join(flags, " · ")))
	}
	lines := []string{common.Truncate(head.String(), m.width)}
	if len(x.Branches) == 0 {
		msg := "No valid branch."
		if x.Failure != "" {
			msg = x.Failure
		}
		lines = append(lines, s.PanelFocused.Width(m.width).Height(m.height-1).Render(
			m.c.Empty("This rehearsal has no branch to review.", lipgloss.Wrap(msg, m.width-4, " "))))
		return strings.Join(lines, "\n")
	}
	if !m.sideBySide() {
		var tabs []string
		for i, b := range x.Branches {
			r, _ := x.Result(b.ID)
			label := fmt.Sprintf("%d %s %.2f", i+1, b.Approach, r.Score)
			if b.ID == x.Winner {
				label += " ★"
			}
			st := s.Tab
			if i == m.focus {
				st = s.TabActive
			}
			tabs = append(tabs, st.Render(label))
		}
		lines = append(lines, common.Truncate(strings.Join(tabs, s.TabSep.Render("│")), m.width))
		lines = append(lines, m.column(m.focus, m.width))
	} else {
		cols := make([]string, len(x.Branches))
		for i := range x.Branches {
			cols[i] = m.column(i, m.colWidth(i))
		}
		lines = append(lines, lipgloss.JoinHorizontal(lipgloss.Top, cols...))
	}
	return strings.Join(lines, "\n")
}

func statusBadge(s *themes.Styles, x rh.Session) string {
	switch x.Status {
	case rh.StatusPending:
		return s.BadgeWarn.Render("PENDING")
	case rh.StatusApproved:
		return s.BadgeOK.Render("APPROVED")
	case rh.StatusRejected:
		return s.BadgeErr.Render("REJECTED")
	}
	return s.BadgeMuted.Render(strings.ToUpper(string(x.Status)))
}

func bandBadge(s *themes.Styles, b rh.Band) string {
	switch b {
	case rh.BandHigh:
		return s.BadgeOK.Render("HIGH")
	case rh.BandMedium:
		return s.BadgeWarn.Render("MEDIUM")
	}
	return s.BadgeErr.Render("LOW")
}

// column renders branch i in a panel of width w.
func (m *Model) column(i, w int) string {
	s := m.c.Styles
	x := *m.sess
	b := x.Branches[i]
	r, _ := x.Result(b.ID)
	inner := w - 4
	h := m.areaHeight()
	panel := s.Panel
	title := s.PanelTitle
	if i == m.focus {
		panel, title = s.PanelFocused, s.PanelTitleActive
	}
	var lines []string
	t := title.Render(fmt.Sprintf("%d %s", i+1, b.Approach)) + " " + s.Bold.Render(fmt.Sprintf("%.2f", r.Score)) + " " + bandBadge(s, r.Band)
	if b.ID == x.Winner {
		t += " " + s.Success.Render("★ winner")
	}
	lines = append(lines, common.Truncate(t, inner))
	labelW := 10
	barW := max(4, min(24, inner-labelW-6))
	for _, d := range []struct {
		name string
		d    rh.Dimension
	}{{"typecheck", r.TypeCheck}, {"lines", r.LineDelta}, {"self", r.SelfAssessment}, {"taste", r.TasteAlignment}} {
		score := d.d.ScoreText() // "0.85", or "not checked"
		l := s.Muted.Render(fmt.Sprintf("%-*s", labelW, d.name)) + s.Bar(d.d.Score, barW) + " " + s.Text.Render(score)
		if rest := inner - labelW - barW - 2 - len(score); rest > 8 {
			l += " " + s.Subtle.Render(common.Truncate(d.d.Evidence, rest))
		}
		lines = append(lines, l)
	}
	switch {
	case r.CheckRan && r.CheckPassed:
		lines = append(lines, s.Success.Render("✓ checks passed"))
	case r.CheckRan:
		lines = append(lines, s.Error.Render(common.Truncate("✗ checks failed: "+lastLine(r.CheckOutput), inner)))
	default:
		lines = append(lines, s.Muted.Render(common.Truncate("~ not checked: no checks configured", inner)))
	}
	var tabs []string
	for j, f := range b.Files {
		name := f.Path
		if f.New {
			name = "+" + name
		}
		st := s.Tab
		if j == m.fileSel[i] {
			st = s.TabActive
		}
		tabs = append(tabs, st.Render(name))
	}
	lines = append(lines, common.Truncate(strings.Join(tabs, s.TabSep.Render("│")), inner))
	bodyH := max(1, h-2-columnHeader)
	if m.why {
		lines = append(lines, common.FitHeight(m.whyText(b, r, inner), bodyH))
	} else {
		lines = append(lines, m.dvs[i].View())
	}
	return panel.Width(w).Height(h).Render(common.FitHeight(strings.Join(lines, "\n"), h-2))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// whyText is the provenance of one branch: what shaped its prompt and its
// score.
func (m *Model) whyText(b rh.Branch, r rh.Result, w int) string {
	s := m.c.Styles
	var out []string
	add := func(st lipgloss.Style, text string) {
		for _, l := range strings.Split(lipgloss.Wrap(text, w, " "), "\n") {
			out = append(out, st.Render(l))
		}
	}
	add(s.Subtitle, "Why this branch")
	add(s.Text, b.Description)
	if b.AgentNotes != "" {
		add(s.Muted, "Notes: "+b.AgentNotes)
	}
	add(s.Subtitle, fmt.Sprintf("Vault nodes injected (%d)", len(b.VaultNodeIDs)+len(b.WisdomIDs)))
	for _, id := range append(append([]uint64{}, b.VaultNodeIDs...), b.WisdomIDs...) {
		add(s.Text, fmt.Sprintf("#%d %s", id, m.nodeText(id)))
	}
	if len(b.RuleIDs) > 0 {
		add(s.Subtitle, "Playbook rules")
		add(s.Text, strings.Join(b.RuleIDs, ", "))
	}
	if m.sess != nil && len(m.sess.KnowledgeIDs) > 0 {
		ids := m.sess.KnowledgeIDs
		add(s.Subtitle, fmt.Sprintf("Knowledge injected (%d) · K opens it", len(ids)))
		for _, ref := range ids {
			title := "…"
			if m.whyKnow != nil {
				title = m.whyKnow[ref]
			}
			add(s.Text, ref+" "+title)
		}
	}
	if len(r.Reflected) > 0 {
		add(s.Subtitle, "Patterns it reflects")
		for _, id := range r.Reflected {
			add(s.Text, fmt.Sprintf("#%d %s", id, m.nodeText(id)))
		}
	}
	add(s.Subtitle, "Score evidence")
	for _, d := range []struct {
		n string
		d rh.Dimension
	}{{"typecheck", r.TypeCheck}, {"lines", r.LineDelta}, {"self", r.SelfAssessment}, {"taste", r.TasteAlignment}} {
		add(s.Muted, fmt.Sprintf("%s %s×%.2f: %s", d.n, d.d.ScoreText(), d.d.Weight, d.d.Evidence))
	}
	if r.CheckOutput != "" {
		add(s.Subtitle, "Check output")
		for _, l := range strings.Split(strings.TrimSpace(r.CheckOutput), "\n") {
			out = append(out, s.Subtle.Render(common.Truncate(l, w)))
		}
	}
	return strings.Join(out, "\n")
}

func (m *Model) nodeText(id uint64) string {
	if m.whyNodes == nil {
		return "…"
	}
	if t, ok := m.whyNodes[id]; ok {
		return t
	}
	return ""
}
