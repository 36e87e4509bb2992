package playbooks

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
)

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	s := m.c.Styles
	var body string
	switch {
	case !m.loaded:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Muted.Render("Loading playbooks…"))
	case m.listErr != nil:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Error.Render("Could not list the playbooks") + "\n" +
			s.Text.Width(m.width-4).Render(m.listErr.Error()) + "\n\n" + s.Subtle.Render("ctrl+r retries."))
	case len(m.agents) == 0:
		body = s.Panel.Width(m.width).Height(m.height).Render(m.c.Empty("No playbooks yet.",
			"Agents learn rules from build outcomes (`nova build run PRD`); the curator may queue some for your approval.\n"+
				"Add the roster with `nova init`, then add rules by hand here (n)."))
	default:
		lw := max(28, min(40, m.width/4))
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.agentsView(lw, m.height), m.rightView(m.width-lw, m.height))
	}
	body = common.FitHeight(body, m.height)
	switch {
	case m.confirm.Active():
		body = common.Overlay(body, m.confirm.View(), m.width, m.height)
	case m.form != nil:
		body = common.Overlay(body, m.formView(), m.width, m.height)
	}
	return body
}

func (m *Model) agentsView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	title := s.PanelTitle.Render("Agents")
	st := s.Panel
	if !m.right {
		title, st = s.PanelTitleActive.Render("Agents"), s.PanelFocused
	}
	title += " " + s.Muted.Render(fmt.Sprintf("%d", len(m.agents)))
	rows := max(1, (h-3)/2)
	start := max(0, min(m.sel-rows+1, len(m.agents)-rows))
	var lines []string
	for i := start; i < len(m.agents) && i < start+rows; i++ {
		a := m.agents[i]
		name := common.Truncate(a.Agent, inner-2)
		meta := "no rules yet"
		if a.hasPlaybook {
			meta = fmt.Sprintf("v%d · %s", a.Version, plural(a.Rules, "rule"))
			if a.Tasks > 0 {
				meta += fmt.Sprintf(" · %.0f%% ok", a.SuccessRate*100)
			}
		}
		meta = common.Truncate(meta, inner-2)
		if i == m.sel {
			lines = append(lines, s.Cursor.Render("›")+" "+s.Selected.Render(name+strings.Repeat(" ", max(0, inner-2-lipgloss.Width(name)))))
		} else if a.hasPlaybook {
			lines = append(lines, "  "+s.Bold.Render(name))
		} else {
			lines = append(lines, "  "+s.Muted.Render(name))
		}
		lines = append(lines, "  "+s.Subtle.Render(meta))
	}
	return st.Width(w).Height(h).Render(title + "\n" + strings.Join(lines, "\n"))
}

func (m *Model) rightView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	var tabs []string
	for _, v := range []view{viewRules, viewHistory, viewPending} {
		label := v.String()
		switch v {
		case viewRules:
			if m.pb != nil {
				label += fmt.Sprintf(" %d", len(m.pb.Rules))
			}
		case viewHistory:
			label += fmt.Sprintf(" %d", len(m.history))
		case viewPending:
			label += fmt.Sprintf(" %d", len(m.pending))
		}
		switch {
		case v == m.view:
			tabs = append(tabs, s.TabActive.Render(label))
		case v == viewPending && len(m.pending) > 0:
			tabs = append(tabs, s.Accent.Bold(true).Padding(0, 1).Render(label))
		default:
			tabs = append(tabs, s.Tab.Render(label))
		}
	}
	head := strings.Join(tabs, s.TabSep.Render("│"))
	if a, ok := m.selectedAgent(); ok && m.view != viewPending {
		info := a.Agent
		if m.pb != nil && m.pbAgent == a.Agent {
			info += fmt.Sprintf(" · v%d", m.pb.Version)
			if m.pb.Tasks > 0 {
				info += fmt.Sprintf(" · %d tasks · %.0f%% success", m.pb.Tasks, m.pb.SuccessRate()*100)
			}
		}
		head += "  " + s.Muted.Render(common.Truncate(info, max(0, inner-lipgloss.Width(head)-2)))
	}
	bodyH := h - 3
	var body []string
	switch m.view {
	case viewRules:
		body = m.rulesView(inner, bodyH)
	case viewHistory:
		body = m.historyView(inner, bodyH)
	case viewPending:
		body = m.pendingView(inner, bodyH)
	}
	st := s.Panel
	if m.right {
		st = s.PanelFocused
	}
	content := head + "\n" + strings.Join(body, "\n")
	return st.Width(w).Height(h).Render(common.FitHeight(content, h-2))
}

// rulesView is the rules table with its filter line and the selected
// rule's detail.
func (m *Model) rulesView(w, h int) []string {
	s := m.c.Styles
	var out []string
	filterLine := s.Muted.Render("sort ") + s.Text.Render(m.sortBy.String()) + s.Subtle.Render(" (o)")
	switch {
	case m.filterOn:
		filterLine = m.filter.View()
	case m.filter.Value() != "":
		filterLine = s.Muted.Render("filter ") + s.Accent.Render(m.filter.Value()) + s.Subtle.Render(fmt.Sprintf(" · %d match", len(m.rules))) + "  " + filterLine
	}
	out = append(out, lipgloss.NewStyle().MaxWidth(w).Render(filterLine))
	switch {
	case m.pbErr != nil:
		return append(out, s.Error.Render(common.Truncate("could not load the playbook: "+m.pbErr.Error(), w)))
	case m.pb == nil:
		return append(out, s.Muted.Render("Loading…"))
	case len(m.pb.Rules) == 0:
		return append(out, "", s.Muted.Render("No rules for "+m.pbAgent+" yet."),
			s.Subtle.Render(common.Truncate("Builds teach rules (reflector and curator at autonomy ≥ 3); n adds one by hand.", w)))
	case len(m.rules) == 0:
		return append(out, "", s.Muted.Render("No rule matches the filter."), s.Subtle.Render("/ changes it, esc inside the filter clears it."))
	}
	// Columns: id, content, source, confidence, applied, success, tags.
	idW := 4
	for _, r := range m.rules {
		idW = max(idW, min(8, lipgloss.Width(r.ID)))
	}
	const srcW, confW, numW = 7, 11, 5
	showSrc := w >= 70
	fixed := idW + 1 + confW + 1 + numW + 1 + numW
	if showSrc {
		fixed += srcW + 1
	}
	flex := max(10, w-fixed-1)
	tagsW := 0
	if w >= 100 {
		tagsW = min(28, flex/3)
		flex -= tagsW + 1
	}
	pad := func(t string, n int) string {
		t = common.Truncate(t, n)
		return t + strings.Repeat(" ", max(0, n-lipgloss.Width(t)))
	}
	lpad := func(t string, n int) string {
		return strings.Repeat(" ", max(0, n-lipgloss.Width(t))) + t
	}
	hdr := pad("id", idW) + " " + pad("rule", flex)
	if showSrc {
		hdr += " " + pad("source", srcW)
	}
	hdr += " " + pad("confidence", confW) + " " + lpad("used", numW) + " " + lpad("ok", numW)
	if tagsW > 0 {
		hdr += " " + pad("tags", tagsW)
	}
	out = append(out, s.Subtle.Render(hdr))
	detailH := 0
	if h >= 16 {
		detailH = min(6, h/4)
	}
	rows := max(1, h-len(out)-detailH)
	start := max(0, min(m.ruleSel-rows+1, len(m.rules)-rows))
	for i := start; i < len(m.rules) && i < start+rows; i++ {
		r := m.rules[i]
		ok := "—"
		if r.AppliedCount > 0 {
			ok = fmt.Sprintf("%.0f%%", r.SuccessRate()*100)
		}
		selected := i == m.ruleSel && m.right
		cell := func(st lipgloss.Style, t string) string {
			if selected {
				return s.Selected.Render(t)
			}
			return st.Render(t)
		}
		sp := cell(s.Text, " ")
		line := cell(s.Muted, pad(r.ID, idW)) + sp + cell(s.Text, pad(oneLine(r.Content), flex))
		if showSrc {
			line += sp + cell(sourceStyle(m, r.Source), pad(string(r.Source), srcW))
		}
		line += sp + s.Bar(r.Confidence, 6) + cell(s.Muted, fmt.Sprintf(" %.2f", r.Confidence)) + sp +
			cell(s.Text, lpad(fmt.Sprintf("%d", r.AppliedCount), numW)) + sp + cell(s.Text, lpad(ok, numW))
		if tagsW > 0 {
			line += sp + cell(s.Accent, pad(strings.Join(r.Tags, ","), tagsW))
		}
		out = append(out, line)
	}
	if detailH > 0 {
		if r, ok := m.selectedRule(); ok {
			out = strings.Split(common.FitHeight(strings.Join(out, "\n"), h-detailH), "\n")
			d := []string{s.Subtle.Render(strings.Repeat("─", w))}
			meta := fmt.Sprintf("%s · %s · %s · helpful %d · harmful %d · created %s", r.ID, r.Kind, r.Source, r.HelpfulCount, r.HarmfulCount, r.CreatedAt.Format("2006-01-02"))
			d = append(d, s.Muted.Render(common.Truncate(meta, w)))
			d = append(d, strings.Split(s.Text.Width(w).Render(oneLine(r.Content)), "\n")...)
			out = append(out, d[:min(len(d), detailH)]...)
		}
	}
	return out
}

func sourceStyle(m *Model, src ace.Source) lipgloss.Style {
	s := m.c.Styles
	switch src {
	case ace.SourceManual:
		return s.Info
	case ace.SourceGlobal:
		return s.Secondary
	}
	return s.Success
}

// historyView lists the versions, newest first, and what the selected one
// changed.
func (m *Model) historyView(w, h int) []string {
	s := m.c.Styles
	if m.pbErr != nil {
		return []string{s.Error.Render(common.Truncate("could not load the history: "+m.pbErr.Error(), w))}
	}
	if len(m.history) == 0 {
		return []string{"", s.Muted.Render("No versions yet."), s.Subtle.Render(common.Truncate("Every change of the rules (learned, approved or by hand) makes a version.", w))}
	}
	listH := max(3, min(len(m.history), h/3))
	start := max(0, min(m.verSel-listH+1, len(m.history)-listH))
	var out []string
	for i := start; i < len(m.history) && i < start+listH; i++ {
		v := m.history[i]
		add, rem, mod := counts(v.Changes)
		line := fmt.Sprintf("v%-3d %s  %-10s", v.Version, v.At.Format("2006-01-02 15:04"), common.Truncate(v.Origin, 10))
		stats := s.Success.Render(fmt.Sprintf("+%d", add)) + " " + s.Error.Render(fmt.Sprintf("−%d", rem)) + " " + s.Warning.Render(fmt.Sprintf("~%d", mod))
		if i == m.verSel && m.right {
			out = append(out, s.Cursor.Render("›")+" "+s.Selected.Render(line)+" "+stats)
		} else {
			out = append(out, "  "+s.Text.Render(line)+" "+stats)
		}
	}
	if m.verSel >= len(m.history) {
		return out
	}
	v := m.history[m.verSel]
	prev := "nothing"
	if m.verSel+1 < len(m.history) {
		prev = fmt.Sprintf("v%d", m.history[m.verSel+1].Version)
	}
	out = append(out, s.Subtle.Render(strings.Repeat("─", w)),
		s.Subtitle.Render(fmt.Sprintf("v%d", v.Version))+s.Muted.Render(common.Truncate(fmt.Sprintf(" against %s · %s", prev, v.Origin), max(0, w-6))))
	var ch []string
	for _, c := range v.Changes {
		switch c.Op {
		case ace.OpAdd:
			ch = append(ch, m.changeLine(s.Success.Render("+ added   "), c.RuleID, ruleText(c.After), w))
		case ace.OpRemove:
			ch = append(ch, m.changeLine(s.Error.Render("− removed "), c.RuleID, ruleText(c.Before), w))
		default:
			ch = append(ch, m.changeLine(s.Warning.Render("~ modified"), c.RuleID, "", w))
			if c.Before != nil && c.After != nil {
				if c.Before.Content != c.After.Content {
					ch = append(ch, "    "+s.Error.Render(common.Truncate("− "+oneLine(c.Before.Content), w-4)),
						"    "+s.Success.Render(common.Truncate("+ "+oneLine(c.After.Content), w-4)))
				}
				if diff := fieldDiff(*c.Before, *c.After); diff != "" {
					ch = append(ch, "    "+s.Muted.Render(common.Truncate(diff, w-4)))
				}
			}
		}
		if c.Reason != "" {
			ch = append(ch, "    "+s.Subtle.Render(common.Truncate("why: "+oneLine(c.Reason), w-4)))
		}
	}
	if len(ch) == 0 {
		ch = append(ch, s.Muted.Render("No rule changed in this version."))
	}
	room := max(1, h-len(out))
	if len(ch) > room {
		ch = append(ch[:room-1], s.Subtle.Render(fmt.Sprintf("… %d more lines", len(ch)-room+1)))
	}
	return append(out, ch...)
}

func (m *Model) changeLine(label, id, text string, w int) string {
	s := m.c.Styles
	line := label + " " + s.Bold.Render(id)
	if text != "" {
		line += " " + s.Text.Render(common.Truncate(oneLine(text), max(0, w-lipgloss.Width(line)-1)))
	}
	return line
}

func ruleText(r *ace.Rule) string {
	if r == nil {
		return ""
	}
	return r.Content
}

// fieldDiff names what changed besides the content.
func fieldDiff(a, b ace.Rule) string {
	var parts []string
	if a.Confidence != b.Confidence {
		parts = append(parts, fmt.Sprintf("confidence %.2f → %.2f", a.Confidence, b.Confidence))
	}
	if strings.Join(a.Tags, ",") != strings.Join(b.Tags, ",") {
		parts = append(parts, fmt.Sprintf("tags [%s] → [%s]", strings.Join(a.Tags, ", "), strings.Join(b.Tags, ", ")))
	}
	if a.Source != b.Source {
		parts = append(parts, fmt.Sprintf("source %s → %s", a.Source, b.Source))
	}
	if a.Kind != b.Kind {
		parts = append(parts, fmt.Sprintf("kind %s → %s", a.Kind, b.Kind))
	}
	return strings.Join(parts, " · ")
}

func counts(changes []ace.Change) (add, rem, mod int) {
	for _, c := range changes {
		switch c.Op {
		case ace.OpAdd:
			add++
		case ace.OpRemove:
			rem++
		default:
			mod++
		}
	}
	return
}

// pendingView is the queue of deltas waiting for a human.
func (m *Model) pendingView(w, h int) []string {
	s := m.c.Styles
	switch {
	case m.pendingErr != nil:
		return []string{s.Error.Render(common.Truncate("could not list pending deltas: "+m.pendingErr.Error(), w))}
	case len(m.pending) == 0:
		return []string{"", s.Muted.Render("Nothing waits for your approval."),
			s.Subtle.Render(common.Truncate("Below autonomy 3 the curator queues the rules it proposes here.", w))}
	}
	listH := max(3, h-7)
	start := max(0, min(m.pendSel-listH+1, len(m.pending)-listH))
	var out []string
	for i := start; i < len(m.pending) && i < start+listH; i++ {
		p := m.pending[i]
		op := opStyle(m, p.Delta.Op).Render(fmt.Sprintf("%-6s", p.Delta.Op))
		head := fmt.Sprintf("#%-3d %-8s ", p.ID, common.Truncate(p.Agent, 8))
		meta := fmt.Sprintf(" %.2f · %s", p.Delta.Confidence, age(m.now(), p.CreatedAt))
		text := m.pendingText(p)
		text = common.Truncate(oneLine(text), max(0, w-2-lipgloss.Width(head)-7-lipgloss.Width(meta)))
		if i == m.pendSel && m.right {
			out = append(out, s.Cursor.Render("›")+" "+s.Selected.Render(head)+op+" "+s.Selected.Render(text)+s.Muted.Render(meta))
		} else {
			out = append(out, "  "+s.Muted.Render(head)+op+" "+s.Text.Render(text)+s.Muted.Render(meta))
		}
	}
	if p, ok := m.selectedPending(); ok {
		d := p.Delta
		out = append(out, s.Subtle.Render(strings.Repeat("─", w)))
		info := string(d.Op)
		if d.RuleID != "" {
			info += " " + d.RuleID
		}
		info += fmt.Sprintf(" · from %s · confidence %.2f · score %.2f", orDash(p.Origin), d.Confidence, d.Score())
		if len(d.Tags) > 0 {
			info += " · tags " + strings.Join(d.Tags, ", ")
		}
		out = append(out, s.Muted.Render(common.Truncate(info, w)))
		full := strings.Split(s.Text.Width(w).Render(oneLine(m.pendingText(p))), "\n")
		if len(full) > 2 {
			full = append(full[:1], s.Text.Render(common.Truncate(strings.TrimSpace(full[1])+" …", w)))
		}
		out = append(out, full...)
		if d.Reason != "" {
			out = append(out, s.Text.Render(common.Truncate("why: "+oneLine(d.Reason), w)))
		}
		out = append(out, s.Key.Render("enter")+" "+s.KeyDesc.Render("approve")+s.Subtle.Render("  ·  ")+s.Key.Render("x")+" "+s.KeyDesc.Render("reject"))
	}
	return out
}

func opStyle(m *Model, op ace.Op) lipgloss.Style {
	switch op {
	case ace.OpAdd:
		return m.c.Styles.Success
	case ace.OpRemove:
		return m.c.Styles.Error
	}
	return m.c.Styles.Warning
}

func (m *Model) formView() string {
	s := m.c.Styles
	f := m.form
	w := m.formWidth()
	title := "Add a rule to " + f.agent
	if f.ruleID != "" {
		title = "Edit rule " + f.ruleID + " of " + f.agent
	}
	b := []string{s.DialogTitle.Render(title), "", f.content.View(), f.tags.View(), ""}
	if f.err != "" {
		b = append(b, s.Error.Render(common.Truncate(f.err, w-6)), "")
	}
	b = append(b, s.Subtle.Render(common.Truncate("Manual rules start at confidence 0.80; every change makes a playbook version.", w-6)),
		s.Key.Render("enter")+" "+s.KeyDesc.Render("save")+s.Subtle.Render("  ·  ")+s.Key.Render("tab")+" "+s.KeyDesc.Render("next field")+
			s.Subtle.Render("  ·  ")+s.Key.Render("esc")+" "+s.KeyDesc.Render("cancel"))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
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
