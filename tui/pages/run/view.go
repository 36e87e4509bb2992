package run

import (
	"fmt"
	"github.com/nova-dev/nova/internal/plural"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/runview"
)

// wideFrom is the width from which the delegation and the board show side
// by side with the timeline; below it the right column shows one of them
// (the board when it has the focus).
const wideFrom = 120

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if !m.dialogOpen() {
		return m.baseView()
	}
	// The page does not change while a dialog has the keys: typing redraws
	// the dialog only.
	body := m.under.Get(m.c, m.width, m.height, m.baseView)
	dw := m.dialogWidth()
	switch {
	case m.goalIn.open:
		body = common.Overlay(body, m.goalIn.view(dw, m.height), m.width, m.height)
	case m.answer.open:
		body = common.Overlay(body, m.answer.view(dw, m.height), m.width, m.height)
	case m.viewer.open:
		body = common.Overlay(body, m.viewer.view(max(40, m.width-4), max(8, m.height-2)), m.width, m.height)
	case m.confirm.Active():
		body = common.Overlay(body, m.confirm.View(), m.width, m.height)
	case m.runsOpen:
		body = common.Overlay(body, m.runsView(), m.width, m.height)
	}
	return body
}

// dialogOpen reports whether a dialog is over the page.
func (m *Model) dialogOpen() bool {
	return m.goalIn.open || m.answer.open || m.viewer.open || m.confirm.Active() || m.runsOpen
}

// baseView is the page without its dialogs.
func (m *Model) baseView() string {
	s := m.c.Styles
	var body string
	switch {
	case !m.loaded:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Muted.Render("Loading goal runs…"))
	case m.listErr != nil:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Error.Render("Could not list the goal runs") + "\n" +
			s.Text.Width(m.width-4).Render(m.listErr.Error()) + "\n\n" + s.Subtle.Render("ctrl+r retries."))
	case m.cur == 0:
		body = s.Panel.Width(m.width).Height(m.height).Render(m.c.Empty("No goal runs yet.",
			"Press n and describe a goal, e.g. \"add a health check endpoint with tests\": the lead delegates it to "+
				"the team step by step. Its decisions, each delegation's live output and verdict, and the shared "+
				"board (decisions, blockers, artifacts) show here. From a shell: nova run \"GOAL\"."))
	default:
		body = m.mainView()
	}
	return common.FitHeight(body, m.height)
}

func (m *Model) mainView() string {
	s := m.c.Styles
	head := m.headerLine()
	h := m.height - 1
	if m.detail == nil {
		msg := s.Muted.Render(fmt.Sprintf("Loading run %d…", m.cur))
		if m.detErr != nil {
			msg = s.Error.Render(common.Truncate(fmt.Sprintf("Could not load run %d: %v", m.cur, m.detErr), m.width-4))
		}
		return head + "\n" + s.Panel.Width(m.width).Height(h).Render(msg)
	}
	if m.width >= wideFrom {
		lw := max(44, min(72, m.width*2/5))
		rw := m.width - lw
		dh := max(10, h*11/20)
		right := lipgloss.JoinVertical(lipgloss.Left, m.delegationView(rw, dh), m.boardView(rw, h-dh))
		return head + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, m.timelineView(lw, h), right)
	}
	lw := max(34, m.width*9/20)
	rw := m.width - lw
	right := m.delegationView(rw, h)
	if m.focus == focusBoard {
		right = m.boardView(rw, h)
	}
	return head + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, m.timelineView(lw, h), right)
}

func (m *Model) spinner() string { return common.SpinFrame(m.spin) }

func (m *Model) headerLine() string {
	s := m.c.Styles
	var parts []string
	if d := m.detail; d == nil {
		parts = append(parts, s.Title.Render(fmt.Sprintf("Run %d", m.cur)))
	} else {
		r := d.Run
		room := m.width - 2 - 44
		parts = append(parts, s.Title.Render(fmt.Sprintf("Run %d", r.ID)), s.Bold.Render(common.Truncate(oneLine(r.Goal), max(10, min(60, room)))),
			s.Band(statusWord(r.Status)).Render(string(r.Status)))
		facts := fmt.Sprintf("turn %d/%d · %s tok", r.Turns, r.Limits.MaxTurns, fmtTokens(r.Tokens))
		if len(r.Agents) > 0 {
			facts += " · " + strings.Join(r.Agents, " ")
		}
		parts = append(parts, s.Muted.Render(facts))
	}
	line := strings.Join(parts, "  ")
	right := s.Key.Render("b") + " " + s.KeyDesc.Render(fmt.Sprintf("runs (%d)", len(m.runs))) + "  " +
		s.Key.Render("n") + " " + s.KeyDesc.Render("new")
	gap := m.width - lipgloss.Width(line) - lipgloss.Width(right) - 1
	if gap < 1 {
		return ansi.Truncate(" "+line, m.width, "…")
	}
	return " " + line + strings.Repeat(" ", gap) + right
}

// statusWord maps a run status to a badge colour word.
func statusWord(st goal.Status) string {
	switch st {
	case goal.StatusCompleted:
		return "done"
	case goal.StatusStopped, goal.StatusFailed:
		return "failed"
	case goal.StatusRunning, goal.StatusWaiting, goal.StatusPaused:
		return "running"
	}
	return string(st)
}

// turnIcon is a turn's glyph, coloured.
func (m *Model) turnIcon(t goal.Turn) string {
	s := m.c.Styles
	switch t.Kind {
	case goal.TurnRejected:
		return s.Error.Render("✗")
	case goal.TurnInvalid:
		return s.Warning.Render("!")
	}
	if t.Decision == nil {
		return s.Muted.Render("·")
	}
	switch t.Decision.Action {
	case goal.ActionComplete:
		return s.Success.Render("★")
	case goal.ActionEscalate:
		return s.Accent.Render("?")
	}
	switch {
	case t.Outcome == nil && m.detail != nil && m.detail.Run.Active:
		return s.Warning.Render(m.spinner())
	case t.Outcome == nil:
		return s.Muted.Render("○")
	case t.Outcome.Passed():
		return s.Success.Render("✓")
	}
	return s.Error.Render("⊘")
}

// renderTurn draws one turn of the timeline: its headline and a muted line
// under it (the lead's reasoning, the user's answer, why it was rejected).
func (m *Model) renderTurn(t goal.Turn, _ int, selected, _ bool, inner int) string {
	s := m.c.Styles
	var what, tail, sub string
	switch {
	case t.Kind == goal.TurnInvalid:
		what, sub = "unusable reply", t.Rejected
	case t.Kind == goal.TurnRejected:
		what = "rejected"
		if t.Decision != nil && t.Decision.Agent != "" {
			what += " " + t.Decision.Agent
		}
		sub = t.Rejected
	case t.Decision == nil:
		what = "turn"
	default:
		d := t.Decision
		sub = d.Reasoning
		switch d.Action {
		case goal.ActionDelegate:
			what = d.Agent + " " + oneLine(d.Task)
			switch {
			case t.Outcome != nil:
				tail = t.Outcome.Status
			case m.detail != nil && m.detail.Run.Active:
				tail = "running"
			default:
				tail = "not finished"
			}
		case goal.ActionEscalate:
			what = "asks: " + oneLine(d.Question)
			if t.Answer != "" {
				sub = "↳ " + t.Answer
			} else {
				tail = "waiting"
			}
		case goal.ActionComplete:
			what = "complete: " + oneLine(d.Summary)
		}
	}
	num := fmt.Sprintf("%2d ", t.N)
	room := max(0, inner-2-len(num)-lipgloss.Width(tail)-1)
	label := common.Truncate(oneLine(what), room)
	gap := strings.Repeat(" ", max(1, inner-2-len(num)-lipgloss.Width(label)-lipgloss.Width(tail)))
	head := m.turnIcon(t) + " "
	if selected {
		head += s.Selected.Render(num + label + gap + tail)
	} else {
		head += s.Muted.Render(num) + s.Text.Render(label) + gap + s.Band(tail).UnsetPadding().UnsetBackground().UnsetBold().Render(tail)
	}
	if sub = oneLine(sub); sub != "" {
		return head + "\n" + "   " + s.Subtle.Render(common.Truncate(sub, max(0, inner-3)))
	}
	return head
}

func (m *Model) timelineView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	d := m.detail
	title := s.PanelTitle.Render("Lead")
	if m.focus == focusTimeline {
		title = s.PanelTitleActive.Render("Lead")
	}
	title += " " + s.Muted.Render(common.Truncate(d.Run.Lead+" · "+plural.Count(len(d.Turns), "turn", "turns"), max(0, inner-6)))
	lines := []string{title}
	if st := m.statusLine(inner); st != "" {
		lines = append(lines, st)
	}
	room := max(1, h-2-len(lines))
	if len(d.Turns) == 0 {
		msg := "The lead has not decided anything yet."
		if d.Run.Active {
			msg = m.spinner() + " The lead is thinking about the first step…"
		}
		lines = append(lines, s.Muted.Render(common.Truncate(msg, inner)))
	} else {
		var deciding string
		if d.Run.Active && d.Run.Question == "" && (len(d.Turns) == 0 || d.Turns[len(d.Turns)-1].Outcome != nil ||
			d.Turns[len(d.Turns)-1].Kind != goal.TurnDecision) {
			deciding = s.Warning.Render(m.spinner()) + " " + s.Muted.Render(common.Truncate("the lead is deciding the next step…", inner-2))
			room = max(1, room-1)
		}
		m.turns.SetFocused(m.focus == focusTimeline)
		lines = append(lines, strings.TrimRight(m.turns.FramedView(inner, room), "\n "))
		if deciding != "" {
			lines = append(lines, deciding)
		}
	}
	st := s.Panel
	if m.focus == focusTimeline {
		st = s.PanelFocused
	}
	return st.Width(w).Height(h).Render(strings.Join(lines, "\n"))
}

// statusLine says why a run that is not going on stopped, and what to do.
func (m *Model) statusLine(inner int) string {
	s := m.c.Styles
	r := m.detail.Run
	switch {
	case r.Status == goal.StatusCompleted:
		return s.Success.Render(common.Truncate("★ completed: "+oneLine(r.Summary), inner))
	case r.Active && r.Question != "":
		return s.Accent.Render(common.Truncate("? the lead asks you — a answers: "+oneLine(r.Question), inner))
	case r.Active && r.Status == goal.StatusWaiting:
		return s.Warning.Render(common.Truncate(m.spinner()+" "+oneLine(r.Reason), inner))
	case r.Active:
		return ""
	case r.Question != "":
		return s.Accent.Render(common.Truncate("? the lead asks you — a answers, then p resumes: "+oneLine(r.Question), inner))
	case r.Status == goal.StatusInterrupted || r.Status == goal.StatusPaused:
		why := oneLine(r.Reason)
		for _, p := range []string{"interrupted: ", "interrupted; ", "interrupted"} {
			why = strings.TrimPrefix(why, p)
		}
		line := string(r.Status) + " — p resumes"
		if why != "" {
			line += ": " + why
		}
		return s.Warning.Render(common.Truncate(line, inner))
	case r.Reason != "":
		return s.Error.Render(common.Truncate(fmt.Sprintf("%s: %s", r.Status, oneLine(r.Reason)), inner))
	}
	return ""
}

func (m *Model) delegationView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	t, ok := m.selectedTurn()
	title := s.PanelTitle.Render("Delegation")
	if m.focus == focusDelegation {
		title = s.PanelTitleActive.Render("Delegation")
	}
	st := s.Panel
	if m.focus == focusDelegation {
		st = s.PanelFocused
	}
	if !ok {
		return st.Width(w).Height(h).Render(title + "\n" + s.Muted.Render("No turn selected."))
	}
	b := []string{title + " " + s.Muted.Render(fmt.Sprintf("turn %d", t.N))}
	wrap := func(label, text string, maxLines int, style lipgloss.Style) {
		text = oneLine(text)
		if text == "" {
			return
		}
		lw := lipgloss.Width(label)
		ls := strings.Split(style.Width(max(10, inner-lw-1)).Render(text), "\n")
		if len(ls) > maxLines {
			ls = ls[:maxLines]
			last := strings.TrimRight(ansi.Strip(ls[maxLines-1]), " ")
			ls[maxLines-1] = style.Render(common.Truncate(last+"…", max(0, inner-lw-1)))
		}
		for i, l := range ls {
			pre := strings.Repeat(" ", lw)
			if i == 0 {
				pre = s.Muted.Render(label)
			}
			b = append(b, pre+" "+l)
		}
	}
	d := t.Decision
	switch {
	case t.Kind == goal.TurnInvalid:
		b = append(b, s.Warning.Render("! the lead's reply was not a decision"))
		wrap("why ", t.Rejected, 4, s.Text)
		b = append(b, s.Subtle.Render(common.Truncate("The lead was told and decided again.", inner)))
	case t.Kind == goal.TurnRejected:
		b = append(b, s.Error.Render("✗ rejected before it ran"))
		if d != nil {
			wrap("asked", describe(*d), 3, s.Text)
		}
		wrap("why  ", t.Rejected, 4, s.Text)
	case d == nil:
	case d.Action == goal.ActionComplete:
		b = append(b, s.Success.Render("★ the lead completed the goal"))
		wrap("summary", d.Summary, max(2, h-8), s.Text)
		wrap("why    ", withConfidence(d), 3, s.Muted)
	case d.Action == goal.ActionEscalate:
		b = append(b, s.Accent.Render("? the lead asks you"))
		wrap("question", d.Question, 4, s.Text)
		if t.Answer != "" {
			wrap("answer  ", t.Answer, 3, s.Text)
		} else {
			b = append(b, s.Subtle.Render(common.Truncate("a answers it; the lead reads it on its next turn", inner)))
		}
		wrap("why     ", withConfidence(d), 3, s.Muted)
	default:
		b = append(b, m.delegationHead(t, inner))
		wrap("task", d.Task, 3, s.Text)
		if len(d.IncludeArtifacts) > 0 {
			wrap("with", strings.Join(d.IncludeArtifacts, ", ")+" (in full)", 1, s.Text)
		}
		wrap("why ", withConfidence(d), 2, s.Muted)
		if o := t.Outcome; o != nil {
			b = append(b, m.outcomeLines(*o, inner)...)
		}
		b = append(b, m.streamLines(t, inner, h-2-len(b))...)
	}
	if len(b) > h-2 {
		b = b[:h-2]
	}
	return st.Width(w).Height(h).Render(strings.Join(b, "\n"))
}

func describe(d goal.Decision) string {
	switch d.Action {
	case goal.ActionDelegate:
		return "delegate to " + orDash(d.Agent) + ": " + oneLine(d.Task)
	case goal.ActionComplete:
		return "complete: " + oneLine(d.Summary)
	case goal.ActionEscalate:
		return "escalate: " + oneLine(d.Question)
	}
	return "action " + orDash(string(d.Action))
}

// delegationHead is "t2 · MARS  done  passed · 2 attempts · 1.2k tok".
func (m *Model) delegationHead(t goal.Turn, inner int) string {
	s := m.c.Styles
	parts := []string{m.turnIcon(t) + " " + s.Bold.Render(t.TaskID+" · "+t.Decision.Agent)}
	o := t.Outcome
	switch {
	case o == nil && m.detail.Run.Active:
		parts = append(parts, s.Band("running").Render("running"))
	case o == nil:
		parts = append(parts, s.Band("pending").Render("not finished"))
	default:
		parts = append(parts, s.Band(o.Status).Render(o.Status))
		if o.Verdict != "" {
			parts = append(parts, s.Muted.Render("verdict")+" "+s.Band(o.Verdict).Render(o.Verdict))
		}
		facts := []string{}
		if o.Attempts > 1 {
			facts = append(facts, fmt.Sprintf("%d attempts", o.Attempts))
		}
		if o.Tokens > 0 {
			facts = append(facts, fmtTokens(o.Tokens)+" tok")
		}
		if len(facts) > 0 {
			parts = append(parts, s.Muted.Render(strings.Join(facts, " · ")))
		}
	}
	line := ""
	for _, p := range parts { // whole parts only
		if line != "" && lipgloss.Width(line)+1+lipgloss.Width(p) > inner {
			break
		}
		if line != "" {
			line += " "
		}
		line += p
	}
	return line
}

func (m *Model) outcomeLines(o goal.Outcome, inner int) []string {
	s := m.c.Styles
	var b []string
	add := func(style lipgloss.Style, text string) {
		if text = oneLine(text); text != "" {
			b = append(b, style.Render(common.Truncate(text, inner)))
		}
	}
	if !o.Passed() {
		why := o.Reason
		if o.Kind != "" {
			why = string(o.Kind) + ": " + why
		}
		add(s.Error, "✗ "+why)
		for i, p := range o.Problems {
			if i == 2 {
				break
			}
			add(s.Subtle, "  "+p)
		}
		if len(o.Hints) > 0 {
			hint := "hints: " + strings.Join(o.Hints, ", ")
			if o.Suggested != "" {
				hint += " → " + o.Suggested
			}
			add(s.Muted, hint)
		}
	} else if o.Verdict != "" && o.Verdict != "passed" {
		add(s.Subtle, "accepted as text: the verifier had no tool evidence")
	}
	if o.ChangesetID != 0 {
		state := "staged for review"
		if o.Applied {
			state = "applied"
		}
		add(s.Muted, fmt.Sprintf("changeset #%d %s · alt+5 Changes", o.ChangesetID, state))
	}
	if h := o.Handoff; h != nil {
		label := "handoff"
		if !h.Written {
			label = "handoff (derived)"
		}
		add(s.Subtitle, label+" "+h.Summary)
		if len(h.Constraints) > 0 {
			add(s.Text, "  keep: "+strings.Join(h.Constraints, "; "))
		}
		if h.Next != "" {
			add(s.Text, "  next: "+h.Next)
		}
		if len(h.Questions) > 0 {
			add(s.Accent, "  open: "+strings.Join(h.Questions, "; "))
		}
	}
	return b
}

// streamLines is the tail of a delegation's live stream, room lines.
func (m *Model) streamLines(t goal.Turn, inner, room int) []string {
	s := m.c.Styles
	if room < 2 {
		return nil
	}
	k := streamKey(m.detail.Run.ID, t.TaskID)
	text := ""
	if sb := m.streams[k]; sb != nil {
		text = sb.String()
	}
	if p := m.pending[k]; p != nil {
		text += p.String()
	}
	label := "── output "
	if t.Outcome == nil && m.detail.Run.Active {
		label = "── live output "
	}
	head := s.Subtle.Render(label + strings.Repeat("─", max(0, inner-lipgloss.Width(label))))
	// A model's output may hold control characters (an ESC would drive the
	// terminal): they go; lines wrap at spaces, long words cut.
	text = runview.Sanitize(strings.ReplaceAll(text, "\t", "  "))
	lines := common.WrapWords(strings.TrimRight(text, "\n"), inner)
	if strings.TrimSpace(text) == "" {
		msg := "No output yet."
		if t.Outcome == nil && m.detail.Run.Active {
			msg = "Waiting for the agent's first tokens…"
		}
		return []string{head, s.Muted.Render(msg)}
	}
	n := room - 1
	end := max(0, len(lines)-m.scroll)
	start := max(0, end-n)
	out := []string{head}
	for _, l := range lines[start:end] {
		out = append(out, s.Text.Render(l))
	}
	return out
}

func (m *Model) boardView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	bd := m.detail.Board
	title := s.PanelTitle.Render("Board")
	if m.focus == focusBoard {
		title = s.PanelTitleActive.Render("Board")
	}
	title += " " + s.Muted.Render(common.Truncate(fmt.Sprintf("%s · %s · %s · %s", bd.Key, plural.Count(len(bd.Decisions), "decision", "decisions"),
		plural.Count(len(bd.Blockers), "blocker", "blockers"), plural.Count(bd.ArtifactCount, "artifact", "artifacts")), max(0, inner-6)))
	b := []string{title}
	b = append(b, s.Muted.Render("goal ")+s.Text.Render(common.Truncate(orDash(oneLine(bd.Goal)), max(0, inner-5))))
	for _, d := range bd.Decisions {
		by := " (" + orDash(d.By) + ")"
		b = append(b, s.Info.Render("• ")+s.Text.Render(common.Truncate(oneLine(d.Text), max(0, inner-2-lipgloss.Width(by))))+s.Subtle.Render(by))
	}
	if sum := oneLine(bd.Summary); sum != "" && h >= 16 {
		b = append(b, s.Muted.Render("history ")+s.Subtle.Render(common.Truncate(sum, max(0, inner-8))))
	}
	items := m.boardItems()
	if len(items) == 0 {
		b = append(b, s.Subtle.Render(common.Truncate("No blockers and no artifacts yet: tasks register what they produce here.", inner)))
	}
	room := h - 2 - len(b)
	if len(items) > 0 && room > 0 {
		focused := m.focus == focusBoard
		m.board.SetFocused(focused)
		preview := ""
		if it, ok := m.board.Selected(); ok && focused && it.artifact != nil && room >= 3 {
			// The selected artifact's preview, under the list.
			preview = "    " + s.Subtle.Render(common.Truncate(oneLine(it.artifact.Preview), max(0, inner-4)))
			room--
		}
		b = append(b, m.board.FramedView(inner, room))
		if preview != "" {
			b = append(b, preview)
		}
	}
	st := s.Panel
	if m.focus == focusBoard {
		st = s.PanelFocused
	}
	return st.Width(w).Height(h).Render(strings.Join(b, "\n"))
}

func (m *Model) runsView() string {
	s := m.c.Styles
	w := m.dialogWidth()
	inner := w - 6
	b := []string{s.DialogTitle.Render("Goal runs"), ""}
	room := max(3, min(len(m.runs), m.height-8))
	if m.placeRuns {
		m.placeRuns = false
		m.runsList.SetSize(inner, room)
		m.runsList.CenterCursor()
	}
	b = append(b, m.runsList.FramedView(inner, room))
	show, closeRuns := m.keys.ShowRun.Help(), m.keys.CloseRuns.Help()
	b = append(b, "", s.Key.Render(show.Key)+" "+s.KeyDesc.Render(show.Desc)+s.Subtle.Render("  ·  ")+s.Key.Render(closeRuns.Key)+" "+s.KeyDesc.Render(closeRuns.Desc))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}

// renderRun draws one run of the runs list: id, status, goal.
func (m *Model) renderRun(r goal.Run, _ int, selected, _ bool, w int) string {
	line := common.Truncate(fmt.Sprintf("%3d  %-11s %s", r.ID, string(r.Status), oneLine(r.Goal)), w)
	if selected {
		return m.c.Styles.Selected.Render(line)
	}
	return m.c.Styles.Text.Render(line)
}

// renderItem draws one board item: a blocker, or an artifact with its
// preview beside it when the pane is wide.
func (m *Model) renderItem(it boardItem, _ int, selected, focused bool, inner int) string {
	s := m.c.Styles
	sel := selected && focused
	if x := it.blocker; x != nil {
		text := s.Error.Render("⊘ "+x.ID) + " " + s.Text.Render(common.Truncate(oneLine(x.Text)+" ("+orDash(x.By)+", "+orDash(x.Task)+")", max(0, inner-4-len(x.ID))))
		if sel {
			text = s.Selected.Render(ansi.Strip(text))
		}
		return text
	}
	a := it.artifact
	meta := fmt.Sprintf(" %s · %s tok", orDash(a.By), fmtTokens(a.Tokens))
	name := fmt.Sprintf("%s %s %s", a.Ref(), a.Type, oneLine(a.Name))
	nameRoom := inner - lipgloss.Width(meta)
	if inner >= 88 && !sel {
		nameRoom = min(nameRoom, 50) // leave room for the preview beside it
	}
	name = common.Truncate(name, max(0, nameRoom))
	if sel {
		return s.Selected.Render(name + meta)
	}
	line := s.Text.Render(name) + s.Subtle.Render(meta)
	if room := inner - lipgloss.Width(line) - 2; room >= 24 && a.Preview != "" {
		// Wide: the preview beside the reference.
		line += "  " + s.Muted.Render(common.Truncate(oneLine(a.Preview), room))
	}
	return line
}

// fmtTokens is 950, 1.2k, 22.7k, 1.3M.
func fmtTokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// withConfidence is the lead's reasoning with how sure it said it was.
func withConfidence(d *goal.Decision) string {
	if d.Confidence == nil {
		return d.Reasoning
	}
	return fmt.Sprintf("%s (confidence %.2f)", d.Reasoning, *d.Confidence)
}
