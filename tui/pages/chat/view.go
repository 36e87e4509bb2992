package chat

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// maxDiffLines bounds one file's diff in the transcript (enter shows all).
const maxDiffLines = 30

// maxComps is how many completions show above the input line.
const maxComps = 5

func (m *Model) inputHeight() int {
	return 2 + min(len(m.comps), maxComps) // completions, the input line, the hint line
}

func (m *Model) transcriptHeight() int { return max(1, m.height-1-m.inputHeight()) }

// View implements common.Component.
func (m *Model) View() string {
	w := max(20, m.width)
	st := m.c.Styles
	header := m.headerLine(w)
	var body string
	switch {
	case m.focus == focusSessions:
		body = m.sessionsView(w, m.transcriptHeight())
	case m.loadErr != nil:
		body = common.FitHeight(m.c.Empty("Could not load the chat", m.loadErr.Error()), m.transcriptHeight())
	default:
		body = m.transcriptView(w, m.transcriptHeight())
	}
	var b strings.Builder
	b.WriteString(header + "\n" + body + "\n")
	for i, c := range m.comps {
		if i == maxComps {
			break
		}
		line := fmt.Sprintf("  %-24s %s", c.Text, st.Muted.Render(c.Kind+" "+c.Help))
		if i == m.compSel {
			line = st.Selected.Render(common.Truncate(fmt.Sprintf("▸ %-24s %s", c.Text, c.Kind+" "+c.Help), w))
		}
		b.WriteString(common.Truncate(line, w) + "\n")
	}
	in := m.input.View()
	if m.focus != focusInput {
		in = st.Muted.Render(common.Truncate("› "+m.input.Value(), w))
	}
	b.WriteString(in + "\n")
	b.WriteString(common.Truncate(m.hintLine(w), w))
	return b.String()
}

func (m *Model) headerLine(w int) string {
	st := m.c.Styles
	s := m.tr.Session
	title := "New chat"
	if m.session != 0 {
		title = fmt.Sprintf("Chat %d", m.session)
		if s.Title != "" {
			title += " · " + s.Title
		}
	}
	agent := s.Agent
	if agent == "" {
		agent = "auto"
	}
	tier := s.Tier
	if tier == "" {
		tier = "auto"
	}
	right := fmt.Sprintf("agent %s · tier %s · %s", agent, tier, plural(len(m.sessions), "session", "sessions"))
	left := common.Truncate(title, max(10, w-lipgloss.Width(right)-2))
	gap := max(1, w-lipgloss.Width(left)-lipgloss.Width(right))
	return st.Title.Render(left) + strings.Repeat(" ", gap) + st.Muted.Render(right)
}

func (m *Model) hintLine(w int) string {
	st, k := m.c.Styles, m.keys
	if m.note != "" {
		return st.Info.Render(m.note)
	}
	if r := m.approval; r != nil {
		return st.Warning.Render(fmt.Sprintf("%s wants to run `%s` — %s", r.Agent, r.Command, hint(w, k.Allow, k.Deny)))
	}
	if m.running() {
		return st.Warning.Render("a turn is running · " + hint(w, k.CancelTurn) + " (the session stays) · you can type the next message")
	}
	return st.Muted.Render(hint(w, m.hintKeys()...))
}

func (m *Model) sessionsView(w, h int) string {
	st := m.c.Styles
	if len(m.sessions) == 0 {
		return common.FitHeight(m.c.Empty("No sessions yet", "type a request to start one"), h)
	}
	return st.Subtitle.Render("Sessions") + "\n" + m.sessList.FramedView(w, max(1, h-1))
}

// renderSession draws one session of the list: id, turns, last update,
// title.
func (m *Model) renderSession(s chat.Session, _ int, selected, _ bool, w int) string {
	line := common.Truncate(fmt.Sprintf("%4d  %-9s %s  %s", s.ID, plural(s.Turns, "turn", "turns"), s.UpdatedAt.Local().Format("01-02 15:04"), s.Title), w)
	if selected {
		return m.c.Styles.Selected.Render(line)
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// transcriptView renders the turns, newest at the bottom, scrolled.
func (m *Model) transcriptView(w, h int) string {
	st := m.c.Styles
	var lines []string
	if !m.loaded {
		return common.FitHeight(st.Muted.Render("loading…"), h)
	}
	if len(m.tr.Turns) == 0 {
		lines = append(lines, st.Subtitle.Render("Talk to your team."))
		for _, p := range []string{
			"Type a request and press enter: a change goes to an agent that writes files, a question to a read-only one. " +
				"The change comes back verified by your checks; press a to apply it.",
			"@path attaches a file · @AGENT chooses the agent · /help lists the commands",
		} {
			for _, l := range common.WrapWords(p, w) {
				lines = append(lines, st.Muted.Render(l))
			}
		}
		return common.FitHeight(strings.Join(lines, "\n"), h)
	}
	if s := m.tr.Session; s.Summary != "" {
		lines = append(lines, st.Muted.Render(common.Truncate(fmt.Sprintf("⋯ turns 1–%d compacted into this summary (the prompt carries it; `nova chat show %d` has them all):", s.SummaryUpTo, s.ID), w)))
		for _, l := range strings.Split(s.Summary, "\n") {
			for _, wl := range common.WrapWords(l, w-2) {
				lines = append(lines, st.Subtle.Render("  "+wl))
			}
		}
		lines = append(lines, "")
	}
	sel := m.sel()
	spans := make([][2]int, len(m.tr.Turns)) // each turn's lines
	for i, t := range m.tr.Turns {
		spans[i][0] = len(lines)
		lines = append(lines, m.turnLines(i, t, w)...)
		spans[i][1] = len(lines)
		lines = append(lines, "")
	}
	m.lastRender = len(lines)
	reveal := m.reveal
	m.reveal = false
	if len(lines) > h && h >= 2 {
		// Turns out of view: the last line counts them.
		start, end := m.window(len(lines), h-1, spans, sel, reveal)
		if counter := m.turnCounter(spans, start, end); counter != "" {
			return common.FitHeight(strings.Join(lines[start:end], "\n"), h-1) + "\n" +
				st.Subtle.Render(common.Truncate("  "+counter, w))
		}
	}
	start, end := m.window(len(lines), h, spans, sel, reveal)
	return common.FitHeight(strings.Join(lines[start:end], "\n"), h)
}

// window is the lines of the transcript in view in h lines: the bottom is
// the newest, m.scroll counts lines up from it. reveal scrolls the selected
// turn into view (its top when it is taller than the window).
func (m *Model) window(n, h int, spans [][2]int, sel int, reveal bool) (start, end int) {
	if reveal && sel >= 0 && sel < len(spans) {
		selStart, selEnd := spans[sel][0], spans[sel][1]
		end := n - m.scroll
		switch {
		case selStart < end-h || selEnd-selStart > h:
			m.scroll = n - min(n, selStart+h)
		case selEnd > end:
			m.scroll = n - selEnd
		}
		m.scroll = max(0, m.scroll)
	}
	end = max(0, n-m.scroll)
	if m.scroll > n-h {
		m.scroll = max(0, n-h)
		end = max(0, n-m.scroll)
	}
	return max(0, end-h), end
}

// turnCounter says where the selected turn is and how many turns lie out
// of the window's lines [start, end) ("7/30 · ↑ 6 · ↓ 23 more"); without a
// selected turn it counts them all ("30 turns · ↑ 27"). "" when every turn
// shows at least in part.
func (m *Model) turnCounter(spans [][2]int, start, end int) string {
	above, below := 0, 0
	for _, sp := range spans {
		switch {
		case sp[1] <= start:
			above++
		case sp[0] >= end:
			below++
		}
	}
	if m.sel() < 0 {
		return vlist.Counter(plural(len(spans), "turn", "turns"), above, below)
	}
	return m.turns.IndicatorOf(above, below)
}

func (m *Model) turnLines(i int, t chat.Turn, w int) []string {
	st := m.c.Styles
	var out []string
	mark := "  "
	if i == m.sel() {
		mark = st.Accent.Render("▌ ")
	}
	for j, l := range common.WrapWords(t.Request, w-4) {
		prefix := "› "
		if j > 0 {
			prefix = "  "
		}
		out = append(out, mark+st.Bold.Render(prefix+l))
	}
	for _, n := range t.Notes {
		out = append(out, mark+st.Warning.Render(common.Truncate("  note: "+n, w-2)))
	}
	for _, a := range t.Attachments {
		out = append(out, mark+st.Muted.Render(common.Truncate(fmt.Sprintf("  @%s attached (%d bytes)", a.Path, a.Bytes), w-2)))
	}
	for _, r := range t.Refused {
		out = append(out, mark+st.Warning.Render(common.Truncate(fmt.Sprintf("  @%s not attached: %s", r.Path, r.Reason), w-2)))
	}
	status := string(t.Status)
	if t.Display != "" {
		status = t.Display
	}
	badge := st.BadgeInfo
	switch t.Status {
	case run.Done:
		badge = st.BadgeOK
	case run.Failed, run.Canceled, run.Interrupted:
		badge = st.BadgeErr
	case run.Waiting:
		badge = st.BadgeWarn
	}
	head := fmt.Sprintf("%s · %s", t.Agent, t.Route)
	out = append(out, mark+st.Primary.Render(common.Truncate(head, w-lipgloss.Width(status)-6))+" "+badge.Render(status))
	if p, ok := m.progress[t.N]; ok && !t.Finished() {
		line := common.Truncate("  "+p.Line(), w-2)
		if p.Stuck {
			out = append(out, mark+st.Warning.Render(line))
		} else {
			out = append(out, mark+st.Muted.Render(line))
		}
	}
	tools := t.Tools
	if !t.Finished() && len(m.liveTools[t.N]) > len(tools) {
		tools = m.liveTools[t.N]
	}
	open := m.expanded[fmt.Sprint(t.N)]
	for _, tc := range tools {
		sign := st.Muted.Render("▸")
		if open {
			sign = st.Muted.Render("▾")
		}
		state := tc.Status
		if state == "" {
			state = "…"
		}
		out = append(out, mark+"  "+sign+" "+common.Truncate(tc.Tool+" "+oneLine(tc.Args), w-lipgloss.Width(state)-8)+" "+st.Muted.Render(state))
		if open && tc.Result != "" {
			for _, l := range common.WrapWords(tc.Result, w-8) {
				out = append(out, mark+st.Subtle.Render("      "+l))
			}
		}
	}
	answer := t.Answer
	if !t.Finished() {
		if b := m.streams[t.N]; b != nil {
			answer = b.String()
		}
	}
	if answer = strings.TrimSpace(answer); answer != "" {
		// Wrapped on word boundaries as a whole, so a word split over
		// two streamed chunks never breaks a line.
		for _, l := range common.WrapWords(answer, w-4) {
			out = append(out, mark+"  "+l)
		}
	} else if !t.Finished() {
		out = append(out, mark+st.Muted.Render("  …"))
	}
	if t.Error != "" {
		for _, l := range common.WrapWords(t.Error, w-4) {
			out = append(out, mark+st.Error.Render("  "+l))
		}
	}
	if t.ChangesetID != 0 {
		out = append(out, m.changeLines(mark, t, w)...)
	}
	if len(t.Provenance) > 0 {
		if m.showProv && i == m.sel() {
			out = append(out, mark+st.Muted.Render("  context of this turn's prompt:"))
			for _, p := range t.Provenance {
				tok := ""
				if p.Tokens > 0 {
					tok = fmt.Sprintf(" (%d tokens)", p.Tokens)
				}
				out = append(out, mark+st.Muted.Render(common.Truncate(fmt.Sprintf("    %-9s %s — %s%s", p.Block, p.Title, p.Source, tok), w-2)))
			}
		} else {
			parts := make([]string, 0, len(t.Provenance))
			for _, p := range t.Provenance {
				parts = append(parts, p.Block+" "+p.Title)
			}
			out = append(out, mark+st.Subtle.Render(common.Truncate("  context: "+strings.Join(parts, ", "), w-2)))
		}
	}
	return out
}

func (m *Model) changeLines(mark string, t chat.Turn, w int) []string {
	st := m.c.Styles
	state := m.changeState(t)
	verified := "unverified"
	if t.Verified {
		verified = "verified"
	}
	head := fmt.Sprintf("  ┌ changeset %d · %s · %s · %s", t.ChangesetID, strings.Join(t.Files, ", "), state, verified)
	out := []string{mark + st.Accent.Render(common.Truncate(head, w-2))}
	cs, ok := m.changes[t.ChangesetID]
	if ok && state == "pending" {
		open := m.expanded[fmt.Sprint(t.N)]
		for _, f := range cs.Files {
			lines := strings.Split(strings.TrimRight(f.Diff(), "\n"), "\n")
			cut := 0
			if !open && len(lines) > maxDiffLines {
				cut, lines = len(lines)-maxDiffLines, lines[:maxDiffLines]
			}
			for _, l := range lines {
				style := st.DiffCtx
				switch {
				case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
					style = st.Muted
				case strings.HasPrefix(l, "+"):
					style = st.DiffAdd
				case strings.HasPrefix(l, "-"):
					style = st.DiffDel
				case strings.HasPrefix(l, "@@"):
					style = st.DiffHunk
				}
				out = append(out, mark+st.Accent.Render("  │ ")+style.Render(common.Truncate(strings.ReplaceAll(l, "\t", "    "), w-6)))
			}
			if cut > 0 {
				out = append(out, mark+st.Accent.Render("  │ ")+st.Muted.Render(fmt.Sprintf("… %d more lines (enter shows them)", cut)))
			}
		}
		k := m.keys
		parts := make([]string, 0, 4)
		for _, b := range []key.Binding{k.Apply, k.Discard, k.Edit, k.ApplyAll} {
			parts = append(parts, st.Key.Render(b.Help().Key)+" "+st.Muted.Render(b.Help().Desc))
		}
		out = append(out, mark+st.Accent.Render("  └ ")+strings.Join(parts, "  "))
	} else {
		out = append(out, mark+st.Accent.Render("  └ ")+st.Muted.Render(changeNote(state)))
	}
	return out
}

func changeNote(state string) string {
	switch state {
	case "applied":
		return "applied to your files (/undo reverts it)"
	case "discarded":
		return "discarded"
	case "reverted":
		return "reverted"
	}
	return "see the Changes screen"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
