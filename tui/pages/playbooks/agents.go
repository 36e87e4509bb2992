package playbooks

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// agentRow is one agent of the left list.
type agentRow struct {
	ace.Summary
	hasPlaybook bool
}

// agentList is the left panel: the agents with a playbook, then the rest
// of the roster, in nova's list component (vlist: two lines an agent, a ›
// marker, a scrollbar when they do not fit).
type agentList struct {
	c      *common.Common
	rows   []agentRow
	list   *vlist.Model[agentRow]
	err    error
	loaded bool
}

// lst is the list component, built on first use.
func (a *agentList) lst() *vlist.Model[agentRow] {
	if a.list == nil {
		a.list = vlist.New(a.c, a.renderRow)
		a.list.SetRowHeight(2)
		a.list.SetMarker(true)
	}
	return a.list
}

// set replaces the list, keeping the selected agent.
func (a *agentList) set(sums []ace.Summary, roster []string) {
	keep := ""
	if r, ok := a.selected(); ok {
		keep = r.Agent
	}
	a.rows = mergeAgents(sums, roster)
	a.lst().ReplaceRows(a.rows, func(r agentRow) bool { return r.Agent == keep })
	if keep == "" {
		a.lst().SetCursor(0)
	}
}

func (a *agentList) selected() (agentRow, bool) { return a.lst().Selected() }

// choose selects agent (any case); it reports whether it is listed.
func (a *agentList) choose(agent string) bool {
	for i, r := range a.rows {
		if strings.EqualFold(r.Agent, agent) {
			a.lst().SetCursor(i)
			return true
		}
	}
	return false
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
	prev := a.lst().Cursor()
	ok, _ := a.lst().HandleKey(k) // a static list fetches nothing
	return ok && a.lst().Cursor() != prev
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
	l := a.lst()
	l.SetFocused(focused)
	l.SetSize(inner, max(2, h-3))
	if l.Above() > 0 || l.Below() > 0 {
		title += s.Subtle.Render(" · " + l.Position())
	}
	return st.Width(w).Height(h).Render(title + "\n" + l.View())
}

// renderRow draws one agent: its name, then its playbook's version, rules
// and success rate.
func (a *agentList) renderRow(r agentRow, _ int, selected, _ bool, width int) string {
	s := a.c.Styles
	name := common.Truncate(r.Agent, width)
	meta := "no rules yet"
	if r.hasPlaybook {
		meta = fmt.Sprintf("v%d · %s", r.Version, plural(r.Rules, "rule"))
		if r.Tasks > 0 {
			meta += fmt.Sprintf(" · %.0f%% ok", r.SuccessRate*100)
		}
	}
	meta = s.Subtle.Render(common.Truncate(meta, width))
	switch {
	case selected:
		return s.Selected.Render(name+strings.Repeat(" ", max(0, width-lipgloss.Width(name)))) + "\n" + meta
	case r.hasPlaybook:
		return s.Bold.Render(name) + "\n" + meta
	}
	return s.Muted.Render(name) + "\n" + meta
}
