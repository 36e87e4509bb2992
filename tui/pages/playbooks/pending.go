package playbooks

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
)

// pendingPane is the queue of deltas the curator left for a human.
type pendingPane struct {
	c     *common.Common
	items []ace.Pending
	rules map[uint64]string // pending id -> current text of the rule it updates or removes
	err   error
	sel   int
}

func (p *pendingPane) set(msg pendingMsg) {
	p.err = msg.err
	if msg.err == nil {
		p.items, p.rules = msg.items, msg.rules
		p.sel = min(p.sel, max(0, len(p.items)-1))
	}
}

func (p *pendingPane) selected() (ace.Pending, bool) {
	if p.sel >= 0 && p.sel < len(p.items) {
		return p.items[p.sel], true
	}
	return ace.Pending{}, false
}

func (p *pendingPane) key(k tea.KeyPressMsg) {
	km := p.c.KeyMap
	switch {
	case key.Matches(k, km.Down):
		p.sel = min(p.sel+1, len(p.items)-1)
	case key.Matches(k, km.Up):
		p.sel = max(p.sel-1, 0)
	}
	p.sel = max(0, p.sel)
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
	start := max(0, min(p.sel-listH+1, len(p.items)-listH))
	var out []string
	for i := start; i < len(p.items) && i < start+listH; i++ {
		d := p.items[i]
		op := p.opStyle(d.Delta.Op).Render(fmt.Sprintf("%-6s", d.Delta.Op))
		head := fmt.Sprintf("#%-3d %-8s ", d.ID, common.Truncate(d.Agent, 8))
		meta := fmt.Sprintf(" %.2f · %s", d.Delta.Confidence, age(now, d.CreatedAt))
		text := p.text(d)
		text = common.Truncate(oneLine(text), max(0, w-2-lipgloss.Width(head)-7-lipgloss.Width(meta)))
		if i == p.sel && focused {
			out = append(out, s.Cursor.Render("›")+" "+s.Selected.Render(head)+op+" "+s.Selected.Render(text)+s.Muted.Render(meta))
		} else {
			out = append(out, "  "+s.Muted.Render(head)+op+" "+s.Text.Render(text)+s.Muted.Render(meta))
		}
	}
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
