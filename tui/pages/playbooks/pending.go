package playbooks

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// pendingPane is the queue of deltas the curator left for a human.
type pendingPane struct {
	c     *common.Common
	items []ace.Pending
	rules map[uint64]string // pending id -> current text of the rule it updates or removes
	err   error
	// list is nova's list component over items (› marker, scrollbar); now
	// is the clock of the rows being drawn.
	list *vlist.Model[ace.Pending]
	now  time.Time
}

// lst is the queue's list component, built on first use.
func (p *pendingPane) lst() *vlist.Model[ace.Pending] {
	if p.list == nil {
		p.list = vlist.New(p.c, p.renderRow)
		p.list.SetMarker(true)
	}
	return p.list
}

func (p *pendingPane) set(msg pendingMsg) {
	p.err = msg.err
	if msg.err == nil {
		p.items, p.rules = msg.items, msg.rules
		p.lst().ReplaceRows(p.items, nil) // the same place, clamped
	}
}

func (p *pendingPane) selected() (ace.Pending, bool) { return p.lst().Selected() }

func (p *pendingPane) key(k tea.KeyPressMsg) {
	_, _ = p.lst().HandleKey(k) // a static list fetches nothing
}

// renderRow draws one queued delta: id, agent, op, what it changes, its
// confidence and age.
func (p *pendingPane) renderRow(d ace.Pending, _ int, selected, focused bool, w int) string {
	s := p.c.Styles
	op := p.opStyle(d.Delta.Op).Render(fmt.Sprintf("%-6s", d.Delta.Op))
	head := fmt.Sprintf("#%-3d %-8s ", d.ID, common.Truncate(d.Agent, 8))
	meta := fmt.Sprintf(" %.2f · %s", d.Delta.Confidence, age(p.now, d.CreatedAt))
	text := common.Truncate(oneLine(p.text(d)), max(0, w-lipgloss.Width(head)-7-lipgloss.Width(meta)))
	if selected && focused {
		return s.Selected.Render(head) + op + " " + s.Selected.Render(text) + s.Muted.Render(meta)
	}
	return s.Muted.Render(head) + op + " " + s.Text.Render(text) + s.Muted.Render(meta)
}

// text describes what a pending delta changes: its content, or the rule it
// updates or removes with that rule's current text.
func (p *pendingPane) text(d ace.Pending) string {
	delta := d.Delta
	if delta.Op == ace.OpAdd {
		return delta.Content
	}
	text := delta.RuleID
	if cur, ok := p.rules[d.ID]; ok {
		text += " (" + cur + ")"
	}
	if delta.Content != "" {
		text += " → " + delta.Content
	}
	return text
}

// view is the queue and the chosen delta's detail, in w×h.
func (p *pendingPane) view(w, h int, focused bool, now time.Time) []string {
	s := p.c.Styles
	switch {
	case p.err != nil:
		return []string{s.Error.Render(common.Truncate("could not list pending deltas: "+p.err.Error(), w))}
	case len(p.items) == 0:
		return []string{"", s.Muted.Render("Nothing waits for your approval."),
			s.Subtle.Render(common.Truncate("Below autonomy 3 the curator queues the rules it proposes here.", w))}
	}
	listH := max(3, h-7)
	l := p.lst()
	p.now = now
	l.SetFocused(focused)
	l.SetSize(w, min(listH, len(p.items)))
	out := strings.Split(l.View(), "\n")
	if d, ok := p.selected(); ok {
		delta := d.Delta
		out = append(out, s.Subtle.Render(strings.Repeat("─", w)))
		info := string(delta.Op)
		if delta.RuleID != "" {
			info += " " + delta.RuleID
		}
		info += fmt.Sprintf(" · from %s · confidence %.2f · score %.2f", orDash(d.Origin), delta.Confidence, delta.Score())
		if len(delta.Tags) > 0 {
			info += " · tags " + strings.Join(delta.Tags, ", ")
		}
		out = append(out, s.Muted.Render(common.Truncate(info, w)))
		full := strings.Split(s.Text.Width(w).Render(oneLine(p.text(d))), "\n")
		if len(full) > 2 {
			full = append(full[:1], s.Text.Render(common.Truncate(strings.TrimSpace(full[1])+" …", w)))
		}
		out = append(out, full...)
		if delta.Reason != "" {
			out = append(out, s.Text.Render(common.Truncate("why: "+oneLine(delta.Reason), w)))
		}
		out = append(out, s.Key.Render("enter")+" "+s.KeyDesc.Render("approve")+s.Subtle.Render("  ·  ")+s.Key.Render("x")+" "+s.KeyDesc.Render("reject"))
	}
	return out
}

func (p *pendingPane) opStyle(op ace.Op) lipgloss.Style {
	switch op {
	case ace.OpAdd:
		return p.c.Styles.Success
	case ace.OpRemove:
		return p.c.Styles.Error
	}
	return p.c.Styles.Warning
}
