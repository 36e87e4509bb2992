package playbooks

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/tui/common"
)

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	switch {
	case m.confirm.Active():
		return common.Overlay(m.under.Get(m.c, m.width, m.height, m.baseView), m.confirm.View(), m.width, m.height)
	case m.form != nil:
		return common.Overlay(m.under.Get(m.c, m.width, m.height, m.baseView), m.form.view(), m.width, m.height)
	}
	return m.baseView()
}

// baseView is the page under its dialogs.
func (m *Model) baseView() string {
	s := m.c.Styles
	var body string
	switch {
	case !m.agents.loaded:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Muted.Render("Loading playbooks…"))
	case m.agents.err != nil:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Error.Render("Could not list the playbooks") + "\n" +
			s.Text.Width(m.width-4).Render(m.agents.err.Error()) + "\n\n" + s.Subtle.Render("ctrl+r retries."))
	case len(m.agents.rows) == 0:
		body = s.Panel.Width(m.width).Height(m.height).Render(m.c.Empty("No playbooks yet.",
			"Agents learn rules from build outcomes (`nova build run PRD`); the curator may queue some for your approval.\n"+
				"Add the roster with `nova init`, then add rules by hand here (n)."))
	default:
		lw := max(28, min(40, m.width/4))
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.agents.view(lw, m.height, !m.right), m.rightView(m.width-lw, m.height))
	}
	return common.FitHeight(body, m.height)
}

func (m *Model) rightView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	var tabs []string
	for _, v := range []view{viewRules, viewHistory, viewPending} {
		label := v.String()
		switch v {
		case viewRules:
			if m.rules.pb != nil {
				label += fmt.Sprintf(" %d", len(m.rules.pb.Rules))
			}
		case viewHistory:
			label += fmt.Sprintf(" %d", len(m.history.versions))
		case viewPending:
			label += fmt.Sprintf(" %d", len(m.pending.items))
		}
		switch {
		case v == m.view:
			tabs = append(tabs, s.TabActive.Render(label))
		case v == viewPending && len(m.pending.items) > 0:
			tabs = append(tabs, s.Accent.Bold(true).Padding(0, 1).Render(label))
		default:
			tabs = append(tabs, s.Tab.Render(label))
		}
	}
	head := strings.Join(tabs, s.TabSep.Render("│"))
	if a, ok := m.agents.selected(); ok && m.view != viewPending {
		info := a.Agent
		if pb := m.rules.pb; pb != nil && m.rules.agent == a.Agent {
			info += fmt.Sprintf(" · v%d", pb.Version)
			if pb.Tasks > 0 {
				info += fmt.Sprintf(" · %s · %.0f%% success", plural(pb.Tasks, "task"), pb.SuccessRate()*100)
			}
		}
		head += "  " + s.Muted.Render(common.Truncate(info, max(0, inner-lipgloss.Width(head)-2)))
	}
	bodyH := h - 3
	var body []string
	switch m.view {
	case viewRules:
		body = m.rules.view(inner, bodyH, m.right)
	case viewHistory:
		body = m.history.view(inner, bodyH, m.right)
	case viewPending:
		body = m.pending.view(inner, bodyH, m.right, m.now())
	}
	st := s.Panel
	if m.right {
		st = s.PanelFocused
	}
	content := head + "\n" + strings.Join(body, "\n")
	return st.Width(w).Height(h).Render(common.FitHeight(content, h-2))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func age(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
