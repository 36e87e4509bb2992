package build

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/themes"
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
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Muted.Render("Loading builds…"))
	case m.listErr != nil:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Error.Render("Could not list the builds") + "\n" +
			s.Text.Width(m.width-4).Render(m.listErr.Error()) + "\n\n" + s.Subtle.Render("ctrl+r retries."))
	case m.cur == "":
		body = s.Panel.Width(m.width).Height(m.height).Render(m.c.Empty("No builds yet.",
			"Press n to start one from a PRD in .nova/prds/, or run `nova build run PRD`.\n"+
				"Tasks run agent by agent, phase by phase; their output, gates and provenance show here."))
	default:
		body = m.graphView()
	}
	body = common.FitHeight(body, m.height)
	switch {
	case m.ask.open:
		body = common.Overlay(body, m.askView(), m.width, m.height)
	case m.confirm.Active():
		body = common.Overlay(body, m.confirm.View(), m.width, m.height)
	case m.mode == modePicker:
		body = common.Overlay(body, m.pickerView(), m.width, m.height)
	case m.mode == modeBuilds:
		body = common.Overlay(body, m.buildsView(), m.width, m.height)
	}
	return body
}

func (m *Model) graphView() string {
	s := m.c.Styles
	head := m.headerLine()
	h := m.height - 1
	if m.detail == nil {
		msg := s.Muted.Render("Loading build " + m.cur + "…")
		if m.detErr != nil {
			msg = s.Error.Render(common.Truncate("Could not load build "+m.cur+": "+m.detErr.Error(), m.width-4))
		}
		return head + "\n" + s.Panel.Width(m.width).Height(h).Render(msg)
	}
	lw := max(34, min(64, m.width*2/5))
	rw := m.width - lw
	left := m.tasksView(lw, h)
	dh := max(9, h*11/20)
	if h-dh < 5 {
		dh = h - 5
	}
	right := lipgloss.JoinVertical(lipgloss.Left, m.taskDetailView(rw, dh), m.outputView(rw, h-dh))
	return head + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

func (m *Model) headerLine() string {
	s := m.c.Styles
	d := m.detail
	var parts []string
	if d == nil {
		parts = append(parts, s.Title.Render("Build "+m.cur))
	} else {
		// The name gets what the other parts leave (they are short).
		room := m.width - 2 - lipgloss.Width("Build "+d.ID) - lipgloss.Width(d.Status) - 2 - 34 - 8
		parts = append(parts, s.Title.Render("Build "+d.ID), s.Bold.Render(common.Truncate(orDash(d.Name), max(8, min(40, room)))), s.Band(d.Status).Render(d.Status))
		switch {
		case d.Status == StatusRunning && !d.Active:
			parts = append(parts, s.Warning.Render("not running in this process — p resumes"))
		case d.Status == StatusInterrupted:
			parts = append(parts, s.Warning.Render("resumable — p resumes"))
		}
		frac := 0.0
		if d.Total > 0 {
			frac = float64(d.Done) / float64(d.Total)
		}
		parts = append(parts, s.Text.Render(fmt.Sprintf("%d/%d done", d.Done, d.Total))+" "+s.Bar(frac, 12))
		if !d.Started.IsZero() {
			end := m.now()
			if !d.Finished.IsZero() {
				end = d.Finished
			}
			parts = append(parts, s.Muted.Render(fmtDur(end.Sub(d.Started))))
		}
	}
	switch {
	case d == nil || d.Reason == "" || d.Status == StatusRunning || d.Status == StatusDone:
	case d.Status == StatusWaiting:
		// Waiting for the model server or an answer: it goes on by itself.
		parts = append(parts, s.Warning.Render(common.SpinFrame(m.spin)+" "+oneLine(d.Reason)))
	case d.Status == StatusInterrupted:
		// The engine's reason names the CLI command; p is the TUI's.
	default:
		parts = append(parts, s.Muted.Render(oneLine(d.Reason)))
	}
	line := strings.Join(parts, "  ")
	right := s.Key.Render("b") + " " + s.KeyDesc.Render(fmt.Sprintf("builds (%d)", len(m.builds))) + "  " +
		s.Key.Render("n") + " " + s.KeyDesc.Render("new")
	gap := m.width - lipgloss.Width(line) - lipgloss.Width(right) - 1
	if gap < 1 {
		return ansi.Truncate(" "+line, m.width, "…")
	}
	return " " + line + strings.Repeat(" ", gap) + right
}

// icon is a task status's glyph, coloured.
// statusOf is a task's status, "waiting" while its command approval is
// asked.
func (m *Model) statusOf(t Task) string {
	if m.detail != nil {
		if _, ok := m.waiting[streamKey(m.detail.ID, t.ID)]; ok {
			return StatusWaiting
		}
	}
	return t.Status
}

// taskIcon is a task's glyph: what a waiting task waits for shows (the
// model server spins, a question is a ?).
func (m *Model) taskIcon(t Task) string {
	st := m.statusOf(t)
	if st == StatusWaiting && t.Status == StatusWaiting {
		switch t.WaitFor {
		case WaitOllama:
			return m.c.Styles.Warning.Render(common.SpinFrame(m.spin))
		case WaitUser:
			return m.c.Styles.Accent.Render("?")
		}
	}
	if st == StatusDone && t.Unverified() {
		return m.c.Styles.Warning.Render("✓") // done, but nothing ran the changed code
	}
	return m.icon(st)
}

func (m *Model) icon(status string) string {
	s := m.c.Styles
	switch status {
	case StatusRunning:
		return s.Warning.Render(common.SpinFrame(m.spin))
	case StatusDone:
		return s.Success.Render("✓")
	case StatusFailed:
		return s.Error.Render("✗")
	case StatusBlocked:
		return s.Error.Render("⊘")
	case StatusWaiting:
		return s.Accent.Render("◆")
	case StatusReady:
		return s.Info.Render("○")
	}
	return s.Muted.Render("○")
}

func (m *Model) tasksView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	d := m.detail
	title := s.PanelTitleActive.Render("Tasks")
	if m.focus != focusTasks {
		title = s.PanelTitle.Render("Tasks")
	}
	title += " " + s.Muted.Render(fmt.Sprintf("%d", len(d.Tasks)))
	if len(d.Tasks) == 0 {
		return s.PanelFocused.Width(w).Height(h).Render(title + "\n" + s.Muted.Render("This build has no tasks."))
	}
	m.tasks.SetFocused(m.focus == focusTasks)
	m.tasks.SetSize(inner, max(1, h-3))
	if m.place {
		m.place = false
		m.tasks.CenterCursor()
	}
	m.tasks.KeepHeadingInView(isPhase)
	st := s.Panel
	if m.focus == focusTasks {
		st = s.PanelFocused
	}
	return st.Width(w).Height(h).Render(title + "\n" + m.tasks.FramedViewSkipping(inner, max(1, h-3), isPhase))
}

// renderTask draws one row of the task list: a phase's heading with its
// progress, or a task's icon, id, title, dependencies and time.
func (m *Model) renderTask(r taskRow, _ int, selected, _ bool, inner int) string {
	s := m.c.Styles
	d := m.detail
	if d == nil {
		return ""
	}
	if r.order < 0 {
		done, total := 0, 0
		for _, u := range d.Tasks {
			if u.Phase == r.phase {
				total++
				if u.Status == StatusDone {
					done++
				}
			}
		}
		return s.Subtitle.Render(fmt.Sprintf("Phase %d", r.phase)) + " " + s.Subtle.Render(fmt.Sprintf("%d/%d", done, total))
	}
	idW := 0
	for _, t := range d.Tasks {
		idW = max(idW, lipgloss.Width(t.ID))
	}
	idW = min(idW, max(4, inner/4))
	t := d.Tasks[m.order[r.order]]
	right := ""
	if dur := t.Duration(m.now()); dur > 0 {
		right = fmtDur(dur)
	}
	if t.Attempts > 1 {
		right = fmt.Sprintf("×%d ", t.Attempts) + right
	}
	if t.Warning != "" {
		right = "⚠ " + right // done unverified: visible in the list too
	}
	if t.Unverified() {
		right = "unverified " + right
	}
	id := truncLeft(t.ID, idW) // ids differ at the end (ua-001, ua-002)
	id += strings.Repeat(" ", max(0, idW-lipgloss.Width(id)))
	room := inner - 2 - idW - 1 - lipgloss.Width(right) - 1
	label := t.Title
	if len(t.Deps) > 0 {
		label += "  ← " + strings.Join(t.Deps, ",")
	}
	label = common.Truncate(label, max(0, room))
	gap := strings.Repeat(" ", max(1, inner-2-idW-1-lipgloss.Width(label)-lipgloss.Width(right)))
	if selected {
		return m.taskIcon(t) + " " + s.Selected.Render(id+" "+label+gap+right)
	}
	title, deps, _ := strings.Cut(label, "  ← ")
	lab := s.Text.Render(title)
	if deps != "" {
		lab += s.Subtle.Render("  ← " + deps)
	}
	return m.taskIcon(t) + " " + s.Bold.Render(id) + " " + lab + gap + s.Muted.Render(right)
}

func (m *Model) taskDetailView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	t, ok := m.selectedTask()
	if !ok {
		return s.Panel.Width(w).Height(h).Render(s.Muted.Render("No task selected."))
	}
	var b []string
	b = append(b, m.taskIcon(t)+" "+s.Title.Render(common.Truncate(t.ID+" — "+t.Title, inner-2)))
	if cmd, ok := m.waiting[streamKey(m.detail.ID, t.ID)]; ok {
		b = append(b, s.Accent.Render(common.Truncate("◆ waits for your approval to run `"+cmd+"`", inner)))
	}
	shown := t.Shown()
	if st := m.statusOf(t); st != t.Status {
		shown = st
	}
	facts := []string{kvs(m, "agent", orDash(t.Agent)), s.Band(shown).Render(shown)}
	if t.Attempts > 0 {
		facts = append(facts, kvs(m, "attempt", fmt.Sprintf("%d", t.Attempts)))
	}
	if t.Tokens > 0 {
		facts = append(facts, kvs(m, "tokens", fmtTokens(t.Tokens)))
	}
	if dur := t.Duration(m.now()); dur > 0 {
		facts = append(facts, kvs(m, "time", fmtDur(dur)))
	}
	line := ""
	for _, f := range facts { // whole facts only: drop what does not fit
		if w := lipgloss.Width(line) + 2 + lipgloss.Width(f); line != "" && w > inner {
			break
		}
		if line != "" {
			line += "  "
		}
		line += f
	}
	b = append(b, line)
	if len(t.Deps) > 0 {
		var deps []string
		for _, id := range t.Deps {
			st := StatusPending
			for _, u := range m.detail.Tasks {
				if u.ID == id {
					st = u.Status
				}
			}
			deps = append(deps, m.icon(st)+" "+s.Text.Render(id))
		}
		b = append(b, lipgloss.NewStyle().MaxWidth(inner).Render(s.Muted.Render("needs ")+strings.Join(deps, "  ")))
	}
	switch {
	case t.Status == StatusWaiting && t.WaitFor == WaitUser:
		b = append(b, s.Accent.Render(common.Truncate("? asks you: "+oneLine(orDash(t.Question)), inner)),
			s.Subtle.Render(common.Truncate("a answers it; the answer goes into its next attempt", inner)))
	case t.Status == StatusWaiting && t.Reason != "":
		b = append(b, s.Warning.Render(common.Truncate(common.SpinFrame(m.spin)+" "+oneLine(t.Reason), inner)))
	case t.Reason != "" && (t.Status == StatusBlocked || t.Status == StatusFailed):
		// Why it stopped, and what to do about it, wraps (up to 3 lines)
		// rather than losing its end.
		for _, l := range wrapAtMost("✗ "+oneLine(t.Reason), inner, 3) {
			b = append(b, s.Error.Render(l))
		}
	case t.Reason != "":
		b = append(b, s.Muted.Render(common.Truncate(oneLine(t.Reason), inner)))
	}
	if t.Warning != "" {
		b = append(b, s.Warning.Render(common.Truncate("⚠ "+oneLine(t.Warning), inner)))
	}
	// The verifier's verdict and its evidence: the checks that did not pass.
	if v := t.Verdict; v != nil {
		line := s.Subtitle.Render("Verdict") + " " + s.Band(v.Status).Render(v.Status)
		if n := len(v.Problems); n > 0 {
			line += " " + s.Muted.Render(fmt.Sprintf("%d of %d not passed", n, max(n, v.Checks)))
		} else if v.Checks > 0 {
			line += " " + s.Muted.Render(plural(v.Checks, "check")+" passed")
		}
		b = append(b, lipgloss.NewStyle().MaxWidth(inner).Render(line))
		for i, p := range v.Problems {
			if i == 3 && len(v.Problems) > 4 {
				b = append(b, s.Subtle.Render(fmt.Sprintf("  … %d more evidence lines (nova build show %s)", len(v.Problems)-3, m.detail.ID)))
				break
			}
			b = append(b, s.Subtle.Render(common.Truncate("  "+oneLine(p), inner)))
		}
	}
	if t.ChangesetID != 0 {
		b = append(b, s.Muted.Render(fmt.Sprintf("changeset #%d", t.ChangesetID))+s.Subtle.Render(" · alt+5 Changes"))
	}
	// Gates.
	if len(t.Gates) > 0 || t.GateScore > 0 {
		head := s.Subtitle.Render("Gates")
		if t.GateScore > 0 || len(t.Gates) > 0 {
			head += " " + s.Muted.Render(fmt.Sprintf("score %.2f", t.GateScore)) + " " + s.Bar(t.GateScore, 10)
		}
		b = append(b, head)
		for _, g := range t.Gates {
			mark := s.Success.Render("✓")
			if !g.Passed {
				mark = s.Error.Render("✗")
			}
			line := mark + " " + s.Text.Render(g.Name) + " " + s.Muted.Render(fmt.Sprintf("%.2f", g.Score))
			if g.Detail != "" {
				line += " " + s.Subtle.Render(common.Truncate(oneLine(g.Detail), max(0, inner-lipgloss.Width(line)-1)))
			}
			b = append(b, lipgloss.NewStyle().MaxWidth(inner).Render(line))
		}
	}
	// Retries: one line per attempt when there was more than one.
	if len(t.History) > 1 {
		var parts []string
		for _, a := range t.History {
			mark := s.Success.Render("✓")
			if !a.Passed {
				mark = s.Error.Render("✗")
			}
			p := s.Muted.Render(fmt.Sprintf("#%d ", a.N)) + mark + s.Text.Render(fmt.Sprintf(" %.2f", a.Score))
			if a.Tokens > 0 {
				p += s.Subtle.Render(" " + fmtTokens(a.Tokens) + " tok")
			}
			parts = append(parts, p)
		}
		line := s.Subtitle.Render("Attempts") + " " + strings.Join(parts, s.Subtle.Render(" · "))
		b = append(b, lipgloss.NewStyle().MaxWidth(inner).Render(line))
		for _, a := range t.History {
			if !a.Passed && a.Reason != "" {
				b = append(b, s.Subtle.Render(common.Truncate(fmt.Sprintf("  #%d: %s", a.N, oneLine(a.Reason)), inner)))
			}
		}
	}
	// Provenance.
	items := m.provItems()
	ptitle := s.PanelTitle.Render("Provenance")
	if m.focus == focusProvenance {
		ptitle = s.PanelTitleActive.Render("Provenance")
	}
	counts := plural(len(t.VaultNodes), "vault node") + " · " + plural(len(t.Rules), "rule")
	if len(t.Knowledge) > 0 {
		counts += " · " + plural(len(t.Knowledge), "knowledge item")
	}
	if len(t.CodeMap) > 0 {
		counts += " · " + plural(len(t.CodeMap), "map file")
	}
	b = append(b, ptitle+" "+s.Muted.Render(common.Truncate(counts, max(0, inner-lipgloss.Width(ptitle)-1))))
	if len(items) == 0 {
		hint := "Nothing from the vault or the playbook was injected."
		if t.Status == StatusPending || t.Status == StatusReady {
			hint = "Recorded when the task's prompt is assembled."
		}
		b = append(b, s.Subtle.Render(common.Truncate(hint, inner)))
	}
	room := h - 2 - len(b)
	if want := min(len(items), 4); m.focus == focusProvenance && room < want {
		// Focused on a short pane (80×24): the list the cursor moves in
		// must show; the task's header lines (the first two) stay.
		drop := min(want-room, max(0, len(b)-3))
		b = append(b[:2:2], b[2+drop:]...)
		room += drop
	}
	if len(items) > 0 && room > 0 {
		m.prov.ReplaceRows(items, nil)
		m.prov.SetFocused(m.focus == focusProvenance)
		b = append(b, m.prov.FramedView(inner, room))
	}
	b = strings.Split(strings.Join(b, "\n"), "\n")
	if len(b) > h-2 {
		b = b[:h-2]
	}
	st := s.Panel
	if m.focus == focusProvenance {
		st = s.PanelFocused
	}
	return st.Width(w).Height(h).Render(strings.Join(b, "\n"))
}

func (m *Model) outputView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	t, _ := m.selectedTask()
	title := s.PanelTitle.Render("Output")
	if m.focus == focusOutput {
		title = s.PanelTitleActive.Render("Output")
	}
	if t.Status == StatusRunning {
		title += " " + s.Warning.Render("live")
	}
	text := ""
	if m.detail != nil {
		if sb := m.streams[streamKey(m.detail.ID, t.ID)]; sb != nil {
			text = sb.String()
		}
		if p := m.pending[streamKey(m.detail.ID, t.ID)]; p != nil && !p.reset {
			text += p.text.String()
		}
	}
	room := max(1, h-3)
	var lines []string
	if strings.TrimSpace(text) == "" {
		msg := "No output yet."
		switch t.Status {
		case StatusPending, StatusReady:
			msg = "Waiting for its dependencies."
		case StatusRunning:
			msg = "Waiting for the model's first tokens…"
		case StatusWaiting:
			switch t.WaitFor {
			case WaitOllama:
				msg = "The model server went away; the task runs again by itself when it answers."
			case WaitUser:
				msg = "Waiting for your answer (a)."
			}
		}
		lines = []string{s.Muted.Render(msg)}
	} else {
		// Only the tail is wrapped: a long stream costs what the screen shows.
		tail := common.TailFrom(text, 8*inner*room)
		all := common.WrapWords(strings.TrimRight(tail, "\n"), inner)
		end := max(0, len(all)-m.scroll)
		start := max(0, end-room)
		for _, l := range all[start:end] {
			lines = append(lines, s.Text.Render(l))
		}
		if m.scroll > 0 {
			title += " " + s.Subtle.Render(fmt.Sprintf("↑%d", m.scroll))
		}
	}
	st := s.Panel
	if m.focus == focusOutput {
		st = s.PanelFocused
	}
	return st.Width(w).Height(h).Render(title + "\n" + strings.Join(lines, "\n"))
}

func (m *Model) dialogWidth() int { return min(84, max(44, m.width-8)) }

func (m *Model) pickerView() string {
	s := m.c.Styles
	w := m.dialogWidth()
	inner := w - 6
	var b []string
	b = append(b, s.DialogTitle.Render("Start a build"), "")
	if m.prdPath.Focused() {
		b = append(b, strings.Split(m.prdPath.View(inner), "\n")...)
	} else {
		b = append(b, s.Subtle.Render(common.Truncate("/ or ~ opens any PRD file by its path (tab completes)", inner)))
	}
	b = append(b, "")
	switch {
	case !m.prdLoaded:
		b = append(b, s.Muted.Render("Reading .nova/prds/…"))
	case m.prdErr != nil:
		b = append(b, s.Error.Render(common.Truncate("Cannot read .nova/prds: "+m.prdErr.Error(), inner)),
			s.Subtle.Render(common.Truncate("Put PRD files (JSON or YAML) there, or run `nova plan \"goal\"`.", inner)))
	case len(m.prds) == 0:
		b = append(b, s.Muted.Render("No PRD in .nova/prds/."),
			s.Subtle.Render(common.Truncate("Copy a PRD (JSON or YAML) there, or run `nova plan \"goal\"`.", inner)))
	default:
		b = append(b, s.Text.Render("PRDs in .nova/prds/:"))
		maxRows := max(3, m.height/2-6)
		b = append(b, m.prdList.FramedView(inner, min(maxRows, len(m.prds))))
		if f, ok := m.prdList.Selected(); ok && !m.prdPath.Focused() {
			if f.Problem != "" {
				b = append(b, "", s.Error.Bold(true).Render("Problems — nothing starts until they are fixed:"))
				errLines := strings.Split(s.Error.Width(inner).Render(f.Problem), "\n")
				if room := max(2, m.height-len(b)-10); len(errLines) > room {
					errLines = append(errLines[:room-1], s.Subtle.Render(fmt.Sprintf("… %d more lines", len(errLines)-room+1)))
				}
				b = append(b, errLines...)
			}
		}
	}
	if m.starting {
		b = append(b, "", s.Warning.Render("Starting…"))
	}
	if m.startErr != nil {
		b = append(b, "")
		b = append(b, strings.Split(s.Error.Width(inner).Render(m.startErr.Error()), "\n")...)
	}
	if m.prdPath.Focused() {
		b = append(b, "", helpLine(s, m.keys.StartBuild, m.keys.Complete, m.keys.BackToList))
	} else {
		b = append(b, "", helpLine(s, m.keys.StartBuild, m.c.KeyMap.Up, m.c.KeyMap.Down, m.keys.ClosePicker))
	}
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}

func (m *Model) buildsView() string {
	s := m.c.Styles
	w := m.dialogWidth()
	inner := w - 6
	b := []string{s.DialogTitle.Render(fmt.Sprintf("Builds (%d)", len(m.builds))), ""}
	rows := min(max(3, m.height-10), len(m.builds))
	if m.placeBuilds {
		m.placeBuilds = false
		m.buildList.SetSize(inner, rows)
		m.buildList.CenterCursor()
	}
	b = append(b, m.buildList.FramedView(inner, rows))
	b = append(b, "", helpLine(s, m.keys.ShowBuild, m.keys.CloseBuilds))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}

// renderProv draws one provenance item: its kind and what it is.
func (m *Model) renderProv(it provItem, _ int, selected, focused bool, inner int) string {
	s := m.c.Styles
	var tag, text string
	switch {
	case it.mapFile != "":
		tag = s.Badge.Render("map")
		text = it.mapFile
	case it.know != nil:
		switch it.know.Source {
		case "facts":
			tag = s.BadgeOK.Render("fact")
		case "docs":
			tag = s.Badge.Render("docs")
		default:
			tag = s.BadgeInfo.Render("pattern")
		}
		text = it.know.Ref + " " + oneLine(it.know.Title)
	case it.vault != nil:
		tag = s.BadgeInfo.Render("vault")
		text = fmt.Sprintf("#%d %s %s", it.vault.ID, it.vault.Type, oneLine(it.vault.Content))
	default:
		tag = s.BadgeAccent.Render("rule")
		text = it.rule.ID + " " + oneLine(it.rule.Content)
	}
	text = common.Truncate(text, max(0, inner-lipgloss.Width(tag)-1))
	if selected && focused {
		return tag + " " + s.Selected.Render(text)
	}
	return tag + " " + s.Text.Render(text)
}

// renderPRD draws one PRD of the picker: ✓ and its title and tasks, or ✗
// and what is wrong with it (a row that cannot start).
func (m *Model) renderPRD(f prdFile, _ int, selected, _ bool, inner int) string {
	s := m.c.Styles
	mark := s.Success.Render("✓")
	info := orDash(f.Title) + " · " + plural(f.Tasks, "task")
	text := s.Text
	if f.Problem != "" {
		// A disabled row: it cannot start; it says why in one line
		// (the whole message shows below when it is selected).
		mark, info, text = s.Error.Render("✗"), problemSummary(f.Name, f.Problem), s.Muted
	}
	line := common.Truncate(f.Name+"  "+info, max(0, inner-2))
	switch {
	case selected && f.Problem != "":
		return mark + " " + text.Underline(true).Render(line)
	case selected:
		return mark + " " + s.Selected.Render(line)
	}
	return mark + " " + text.Render(line)
}

// renderBuild draws one build of the builds list: id, name, status,
// progress and age.
func (m *Model) renderBuild(x Summary, _ int, selected, _ bool, inner int) string {
	s := m.c.Styles
	badge := s.Band(x.Status).Render(x.Status)
	meta := fmt.Sprintf(" %d/%d · %s", x.Done, x.Total, age(m.now(), x.Started))
	name := common.Truncate(x.ID+"  "+orDash(x.Name), max(0, inner-lipgloss.Width(badge)-len(meta)-1))
	if selected {
		name = s.Selected.Render(name)
	} else {
		name = s.Text.Render(name)
	}
	return name + " " + badge + s.Muted.Render(meta)
}

// helpLine is a dialog's last line: its keys and what they do.
func helpLine(s *themes.Styles, keys ...key.Binding) string {
	var parts []string
	for _, k := range keys {
		h := k.Help()
		parts = append(parts, s.Key.Render(h.Key)+" "+s.KeyDesc.Render(h.Desc))
	}
	return strings.Join(parts, s.Subtle.Render("  ·  "))
}

func kvs(m *Model, k, v string) string {
	return m.c.Styles.Muted.Render(k+" ") + m.c.Styles.Text.Render(v)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func fmtTokens(n int) string {
	if n >= 10_000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%d", n)
}

func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
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

// truncLeft cuts s to width cells keeping its end, with a leading ellipsis.
func truncLeft(s string, width int) string {
	if lipgloss.Width(s) <= width || width <= 0 {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > width {
		r = r[1:]
	}
	return "…" + string(r)
}

// problemSummary is the first line of a plan's problem without the file
// name it starts with (the row names the file already).
func problemSummary(name, problem string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(problem), "\n")
	if i := strings.Index(line, name+":"); i >= 0 {
		line = strings.TrimSpace(line[i+len(name)+1:])
		// "5: alias expansion limit" → "line 5: alias expansion limit"
		if n, rest, ok := strings.Cut(line, ":"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			line = "line " + n + ":" + rest
		}
	}
	return strings.TrimSuffix(line, ":") // "3 problems:" heads a list shown below
}

// wrapAtMost wraps text at spaces to width and keeps at most n lines, the
// last one ending in … when some was left out.
func wrapAtMost(text string, width, n int) []string {
	lines := common.WrapWords(text, max(1, width))
	if len(lines) <= n {
		return lines
	}
	lines = lines[:n]
	lines[n-1] = common.Truncate(strings.TrimRight(lines[n-1], " ")+" …", width)
	return lines
}
