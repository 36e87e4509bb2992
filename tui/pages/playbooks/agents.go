package playbooks

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
)

// agentRow is one agent of the left list.
type agentRow struct {
	ace.Summary
	hasPlaybook bool
}

// agentList is the left panel: the agents with a playbook, then the rest
// of the roster.
type agentList struct {
	c      *common.Common
	rows   []agentRow
	sel    int
	err    error
	loaded bool
}

// set replaces the list, keeping the selected agent.
func (a *agentList) set(sums []ace.Summary, roster []string) {
	keep := ""
	if r, ok := a.selected(); ok {
		keep = r.Agent
	}
	a.rows = mergeAgents(sums, roster)
	a.sel = 0
	for i, r := range a.rows {
		if r.Agent == keep {
			a.sel = i
		}
	}
}

func (a *agentList) selected() (agentRow, bool) {
	if a.sel >= 0 && a.sel < len(a.rows) {
		return a.rows[a.sel], true
	}
	return agentRow{}, false
}

// choose selects agent (any case); it reports whether it is listed.
func (a *agentList) choose(agent string) bool {
	found := false
	for i, r := range a.rows {
		if strings.EqualFold(r.Agent, agent) {
			a.sel, found = i, true
		}
	}
	return found
}

// withPlaybook lists the agents that have a playbook.
func (a *agentList) withPlaybook() []string {
	var out []string
	for _, r := range a.rows {
		if r.hasPlaybook {
			out = append(out, r.Agent)
		}
	}
	return out
}

// key moves the selection; it reports whether the selected agent changed.
func (a *agentList) key(k tea.KeyPressMsg) bool {
	km := a.c.KeyMap
	prev := a.sel
	switch {
	case key.Matches(k, km.Down):
		a.sel = min(a.sel+1, len(a.rows)-1)
	case key.Matches(k, km.Up):
		a.sel = max(a.sel-1, 0)
	case key.Matches(k, km.Top):
		a.sel = 0
	case key.Matches(k, km.Bottom):
		a.sel = len(a.rows) - 1
	}
	a.sel = max(0, a.sel)
	return a.sel != prev
}

// mergeAgents lists the agents with a playbook, then the roster's others.
func mergeAgents(sums []ace.Summary, roster []string) []agentRow {
	var out []agentRow
	seen := map[string]bool{}
	for _, s := range sums {
		out = append(out, agentRow{Summary: s, hasPlaybook: true})
		seen[strings.ToUpper(s.Agent)] = true
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	var rest []agentRow
	for _, id := range roster {
		if !seen[strings.ToUpper(id)] {
			seen[strings.ToUpper(id)] = true
			rest = append(rest, agentRow{Summary: ace.Summary{Agent: strings.ToUpper(id)}})
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Agent < rest[j].Agent })
	return append(out, rest...)
}

func (a *agentList) view(w, h int, focused bool) string {
	s := a.c.Styles
	inner := w - 4
	title := s.PanelTitle.Render("Agents")
	st := s.Panel
	if focused {
		title, st = s.PanelTitleActive.Render("Agents"), s.PanelFocused
	}
	title += " " + s.Muted.Render(fmt.Sprintf("%d", len(a.rows)))
	rows := max(1, (h-3)/2)
	start := max(0, min(a.sel-rows+1, len(a.rows)-rows))
	var lines []string
	for i := start; i < len(a.rows) && i < start+rows; i++ {
		r := a.rows[i]
		name := common.Truncate(r.Agent, inner-2)
		meta := "no rules yet"
		if r.hasPlaybook {
			meta = fmt.Sprintf("v%d · %s", r.Version, plural(r.Rules, "rule"))
			if r.Tasks > 0 {
				meta += fmt.Sprintf(" · %.0f%% ok", r.SuccessRate*100)
			}
		}
		meta = common.Truncate(meta, inner-2)
		switch {
		case i == a.sel:
			lines = append(lines, s.Cursor.Render("›")+" "+s.Selected.Render(name+strings.Repeat(" ", max(0, inner-2-lipgloss.Width(name)))))
		case r.hasPlaybook:
			lines = append(lines, "  "+s.Bold.Render(name))
		default:
			lines = append(lines, "  "+s.Muted.Render(name))
		}
		lines = append(lines, "  "+s.Subtle.Render(meta))
	}
	return st.Width(w).Height(h).Render(title + "\n" + strings.Join(lines, "\n"))
}
