package playbooks

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// historyPane is the selected agent's playbook versions, newest first, and
// what the chosen version changed.
type historyPane struct {
	c        *common.Common
	versions []ace.Version
	err      error
	list     *vlist.Model[ace.Version] // nova's list component (newest first, › marker)
}

// lst is the versions' list component, built on first use.
func (p *historyPane) lst() *vlist.Model[ace.Version] {
	if p.list == nil {
		p.list = vlist.New(p.c, p.renderRow)
		p.list.SetMarker(true)
	}
	return p.list
}

// set shows versions; a new agent starts at the newest.
func (p *historyPane) set(versions []ace.Version, err error, newAgent bool) {
	p.err = err
	if err != nil {
		return
	}
	p.versions = versions
	p.lst().ReplaceRows(versions, nil)
	if newAgent {
		p.lst().SetCursor(0)
	}
}

func (p *historyPane) key(k tea.KeyPressMsg) {
	_, _ = p.lst().HandleKey(k) // a static list fetches nothing
}

// sel is the index of the chosen version.
func (p *historyPane) sel() int { return p.lst().Cursor() }

// renderRow draws one version: number, time, origin and its counts.
func (p *historyPane) renderRow(v ace.Version, _ int, selected, focused bool, _ int) string {
	s := p.c.Styles
	add, rem, mod := counts(v.Changes)
	line := fmt.Sprintf("v%-3d %s  %-10s", v.Version, v.At.Format("2006-01-02 15:04"), common.Truncate(v.Origin, 10))
	stats := s.Success.Render(fmt.Sprintf("+%d", add)) + " " + s.Error.Render(fmt.Sprintf("−%d", rem)) + " " + s.Warning.Render(fmt.Sprintf("~%d", mod))
	if selected && focused {
		return s.Selected.Render(line) + " " + stats
	}
	return s.Text.Render(line) + " " + stats
}

// view lists the versions and what the selected one changed, in w×h.
func (p *historyPane) view(w, h int, focused bool) []string {
	s := p.c.Styles
	if p.err != nil {
		return []string{s.Error.Render(common.Truncate("could not load the history: "+p.err.Error(), w))}
	}
	if len(p.versions) == 0 {
		return []string{"", s.Muted.Render("No versions yet."), s.Subtle.Render(common.Truncate("Every change of the rules (learned, approved or by hand) makes a version.", w))}
	}
	listH := max(3, min(len(p.versions), h/3))
	l := p.lst()
	l.SetFocused(focused)
	l.SetSize(w, listH)
	out := strings.Split(l.View(), "\n")
	sel := p.sel()
	if sel >= len(p.versions) {
		return out
	}
	v := p.versions[sel]
	prev := "nothing"
	if sel+1 < len(p.versions) {
		prev = fmt.Sprintf("v%d", p.versions[sel+1].Version)
	}
	out = append(out, s.Subtle.Render(strings.Repeat("─", w)),
		s.Subtitle.Render(fmt.Sprintf("v%d", v.Version))+s.Muted.Render(common.Truncate(fmt.Sprintf(" against %s · %s", prev, v.Origin), max(0, w-6))))
	var ch []string
	for _, c := range v.Changes {
		switch c.Op {
		case ace.OpAdd:
			ch = append(ch, p.changeLine(s.Success.Render("+ added   "), c.RuleID, ruleText(c.After), w))
		case ace.OpRemove:
			ch = append(ch, p.changeLine(s.Error.Render("− removed "), c.RuleID, ruleText(c.Before), w))
		default:
			ch = append(ch, p.changeLine(s.Warning.Render("~ modified"), c.RuleID, "", w))
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

func (p *historyPane) changeLine(label, id, text string, w int) string {
	s := p.c.Styles
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
