package library

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/skills"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/runview"
)

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	var body string
	switch m.view {
	case viewSkillResult:
		body = m.resultView()
	case viewRun:
		body = m.runView()
	case viewPreview:
		body = m.previewView()
	default:
		body = m.browseView()
	}
	body = common.FitHeight(body, m.height)
	switch {
	case m.confirm.Active():
		body = common.Overlay(body, m.confirm.View(), m.width, m.height)
	case m.form != nil:
		body = common.Overlay(body, m.form.View(m.height), m.width, m.height)
	case m.request != nil:
		body = common.Overlay(body, m.requestView(), m.width, m.height)
	}
	return body
}

// line lays out a header: left text, then right-aligned hints when they fit.
func (m *Model) line(left, right string) string {
	gap := m.width - lipgloss.Width(left) - lipgloss.Width(right) - 2
	if gap < 1 {
		return ansi.Truncate(" "+left, m.width, "…")
	}
	return " " + left + strings.Repeat(" ", gap) + right + " "
}

func (m *Model) hint(k, desc string) string {
	s := m.c.Styles
	return s.Key.Render(k) + " " + s.KeyDesc.Render(desc)
}

// --- browse -----------------------------------------------------------------

func (m *Model) browseView() string {
	s := m.c.Styles
	var tabs []string
	for p := range paneCount {
		label := fmt.Sprintf("%s %d", paneNames[p], m.count(p))
		if !m.loaded[p] {
			label = paneNames[p] + " …"
		}
		if p == m.pane {
			tabs = append(tabs, s.PanelTitleActive.Underline(true).Render(label))
		} else {
			tabs = append(tabs, s.PanelTitle.Render(label))
		}
	}
	head := m.line(strings.Join(tabs, s.Subtle.Render(" │ ")), m.hint("tab", "next list"))
	h := m.height - 1
	lw := max(30, min(48, m.width*2/5))
	rw := m.width - lw
	left := m.listView(lw, h)
	right := s.Panel.Width(rw).Height(h).Render(common.FitHeight(m.detailView(rw-4), h-2))
	return head + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// listRow is one row of a list: name on the left, a note on the right.
// listRow is one row of a pane's list; band, when set, colours the note
// (a run's status).
type listRow struct{ name, note, band string }

func (m *Model) rows(p pane) []listRow {
	var out []listRow
	switch p {
	case paneSkills:
		for _, sk := range m.skills.Skills {
			who := "all agents"
			if len(sk.Agents) > 0 {
				who = strings.Join(sk.Agents, ",")
			}
			out = append(out, listRow{name: sk.Name, note: who})
		}
	case paneWorkflows:
		for _, w := range m.workflows.Workflows {
			out = append(out, listRow{name: w.ID, note: fmt.Sprintf("%d steps", len(w.Steps))})
		}
	case paneRuns:
		for _, r := range m.runs {
			done, total := r.Counts()
			st := m.runStatus(r)
			out = append(out, listRow{fmt.Sprintf("#%d %s", r.ID, r.Workflow), fmt.Sprintf("%s %d/%d", st, done, total), st})
		}
	case paneBlueprints:
		for _, b := range m.blueprints {
			out = append(out, listRow{name: b.Name, note: fmt.Sprintf("v%d · %s", b.Version, plural(b.Status.UsageCount, "use"))})
		}
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func (m *Model) problems(p pane) []string {
	switch p {
	case paneSkills:
		return m.skills.Problems
	case paneWorkflows:
		return m.workflows.Problems
	}
	return nil
}

func (m *Model) listView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	p := m.pane
	title := s.PanelTitleActive.Render(paneNames[p]) + " " + s.Muted.Render(fmt.Sprint(m.count(p)))
	var probLines []string
	if probs := m.problems(p); len(probs) > 0 {
		title += " " + s.BadgeErr.Render(fmt.Sprintf("%d invalid", len(probs)))
		kind := map[pane]string{paneSkills: "skill", paneWorkflows: "workflow"}[p]
		probLines = append(probLines, "", s.Error.Bold(true).Render("Invalid "+kind+" files"))
		budget := max(2, (h-2)/3)
		for _, e := range probs {
			for _, l := range strings.Split(s.Error.Width(inner-2).Render(e), "\n") {
				probLines = append(probLines, "  "+l)
			}
		}
		if len(probLines) > budget+2 {
			probLines = append(probLines[:budget+1], s.Subtle.Render(common.Truncate("  … (`nova "+kind+" list` lists them)", inner)))
		}
	}
	var lines []string
	switch {
	case !m.loaded[p]:
		lines = append(lines, s.Muted.Render("Loading…"))
	case m.errs[p] != nil:
		lines = append(lines, strings.Split(s.Error.Width(inner).Render("Could not load: "+m.errs[p].Error()), "\n")...)
		lines = append(lines, s.Subtle.Render("ctrl+r retries."))
	case m.count(p) == 0:
		lines = append(lines, strings.Split(m.emptyText(p, inner), "\n")...)
	default:
		room := max(1, h-3-len(probLines))
		lines = append(lines, m.lists[p].ViewNoted(inner, min(room, m.count(p))))
	}
	content := title + "\n" + strings.Join(lines, "\n")
	if len(probLines) > 0 {
		content = common.FitHeight(content, h-2-len(probLines)) + "\n" + strings.Join(probLines, "\n")
	}
	return s.PanelFocused.Width(w).Height(h).Render(common.FitHeight(content, h-2))
}

// renderRow draws one item of a pane's list: its name and a note at the
// right (a run's note in its status colour).
func (m *Model) renderRow(r listRow, _ int, selected, _ bool, w int) string {
	s := m.c.Styles
	note := common.Truncate(r.note, max(0, w-lipgloss.Width(r.name)-1))
	name := common.Truncate(r.name, w)
	gap := strings.Repeat(" ", max(1, w-lipgloss.Width(name)-lipgloss.Width(note)))
	if selected {
		return s.Selected.Width(w).Render(name + gap + note)
	}
	noteStyle := s.Muted
	if r.band != "" {
		noteStyle = lipgloss.NewStyle().Foreground(s.Band(r.band).GetBackground())
	}
	return s.Bold.Render(name) + gap + noteStyle.Render(note)
}

func (m *Model) emptyText(p pane, w int) string {
	s := m.c.Styles
	var title, hint string
	switch p {
	case paneSkills:
		title, hint = "No skills.", "Skills are YAML files in .nova/skills/ (see its README)."
	case paneWorkflows:
		title, hint = "No workflows.", "Workflows are YAML files in .nova/workflows/."
	case paneRuns:
		title, hint = "No workflow runs yet.", "Pick a workflow (tab) and press r, or run `nova workflow run ID`."
	case paneBlueprints:
		title, hint = "No blueprints yet.", "`nova blueprint add FILE`, or save a finished build with `nova blueprint save BUILD --name N`."
	}
	return s.Muted.Render(title) + "\n" + s.Subtle.Width(w).Render(hint)
}

// detailView is the selected item's detail, w cells wide.
func (m *Model) detailView(w int) string {
	p := m.pane
	if !m.loaded[p] || m.errs[p] != nil || m.count(p) == 0 {
		return ""
	}
	i := m.sel(p)
	switch p {
	case paneSkills:
		return m.skillDetail(m.skills.Skills[i], w)
	case paneWorkflows:
		return m.workflowDetail(m.workflows.Workflows[i], w)
	case paneRuns:
		return m.runDetail(m.runs[i], w)
	case paneBlueprints:
		return m.blueprintDetail(m.blueprints[i], w)
	}
	return ""
}

func (m *Model) wrap(text string, w int) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	return strings.Split(m.c.Styles.Text.Width(w).Render(text), "\n")
}

func (m *Model) field(name, value string, w int) string {
	s := m.c.Styles
	return s.Muted.Render(fmt.Sprintf("%-9s", name)) + s.Text.Render(common.Truncate(value, max(1, w-9)))
}

func (m *Model) paramLines(ps []params.Param, w int) []string {
	s := m.c.Styles
	var out []string
	for _, p := range ps {
		mark := "  "
		if p.IsRequired() {
			mark = s.Error.Render("* ")
		}
		note := p.Question()
		if strings.TrimSpace(p.Prompt) == "" && strings.TrimSpace(p.Description) == "" {
			note = string(p.Kind())
			if vs := p.ValueStrings(); len(vs) > 0 {
				note += " " + strings.Join(vs, "|")
			}
		}
		if p.Default != nil {
			note += fmt.Sprintf(" (default %v)", p.Default)
		}
		name := s.Bold.Render(p.Name)
		out = append(out, mark+name+" "+s.Muted.Render(common.Truncate(note, max(1, w-3-lipgloss.Width(p.Name)))))
	}
	return out
}

func (m *Model) skillDetail(sk skills.Skill, w int) string {
	s := m.c.Styles
	lines := []string{s.Title.Render(sk.Name) + " " + s.Muted.Render(sk.Version)}
	lines = append(lines, m.wrap(sk.Description, w)...)
	who := "every agent"
	if len(sk.Agents) > 0 {
		who = strings.Join(sk.Agents, ", ")
	}
	lines = append(lines, "", m.field("agents", who, w), m.field("tools", strings.Join(sk.Tools(), ", "), w),
		m.field("source", sourceName(sk.Source), w))
	if len(sk.Inputs) > 0 {
		lines = append(lines, "", s.Subtitle.Render("Inputs")+s.Subtle.Render("  * required"))
		lines = append(lines, m.paramLines(sk.Inputs, w)...)
	}
	lines = append(lines, "", s.Subtitle.Render("Steps"))
	for i, st := range sk.Steps {
		lines = append(lines, fmt.Sprintf("%s %s %s", s.Muted.Render(fmt.Sprintf("%d.", i+1)), s.Bold.Render(st.Name), s.Muted.Render(st.Tool)))
	}
	lines = append(lines, "", m.hint("r", "run this skill"))
	return strings.Join(lines, "\n")
}

func sourceName(src string) string {
	if src == "" || src == skills.SourceBuiltin {
		return "built into nova"
	}
	if i := strings.LastIndex(src, "/.nova/"); i >= 0 {
		return src[i+1:]
	}
	return src
}

func (m *Model) workflowDetail(wf workflow.Workflow, w int) string {
	s := m.c.Styles
	lines := []string{s.Title.Render(wf.Name) + " " + s.Muted.Render(wf.ID)}
	lines = append(lines, m.wrap(wf.Description, w)...)
	if len(wf.Triggers) > 0 {
		lines = append(lines, "", m.field("triggers", strings.Join(wf.Triggers, ", "), w))
	}
	lines = append(lines, m.field("source", sourceName(wf.Source), w))
	if len(wf.Params) > 0 {
		lines = append(lines, "", s.Subtitle.Render("Parameters")+s.Subtle.Render("  * required"))
		lines = append(lines, m.paramLines(wf.Params, w)...)
	}
	lines = append(lines, "", s.Subtitle.Render("Steps"))
	for i, st := range wf.Steps {
		what := st.Agent
		if st.Skill != "" {
			what = "skill " + st.Skill + " · " + st.Agent
		}
		line := s.Muted.Render(fmt.Sprintf("%d.", i+1)) + " " + s.Bold.Render(st.ID) + " " + s.Muted.Render(what)
		if st.Condition != "" {
			line += " " + s.Warning.Render("if "+st.Condition)
		}
		lines = append(lines, ansi.Truncate(line, w, "…"))
	}
	var recent []string
	for _, r := range m.runs {
		if r.Workflow == wf.ID && len(recent) < 3 {
			done, total := r.Counts()
			recent = append(recent, fmt.Sprintf("#%d %s %d/%d %s", r.ID, m.runStatus(r), done, total, m.ago(r.CreatedAt)))
		}
	}
	if len(recent) > 0 {
		lines = append(lines, "", s.Subtitle.Render("Recent runs"))
		for _, r := range recent {
			lines = append(lines, s.Muted.Render(r))
		}
	}
	lines = append(lines, "", m.hint("r", "run")+"  "+m.hint("/", "find a workflow from a request"))
	return strings.Join(lines, "\n")
}

// runStatus is how a run is shown: one stored as running that no process
// runs was interrupted.
func (m *Model) runStatus(r workflow.Run) string {
	if r.Status == workflow.RunRunning && !r.Active && !m.running[r.ID] {
		return "interrupted"
	}
	return string(r.Status)
}

func (m *Model) stepGlyph(st workflow.StepStatus) string {
	s := m.c.Styles
	switch st {
	case workflow.StepRunning:
		return s.Warning.Render(common.SpinFrame(m.spin))
	case workflow.StepDone:
		return s.Success.Render("✓")
	case workflow.StepFailed:
		return s.Error.Render("✗")
	case workflow.StepSkipped:
		return s.Muted.Render("–")
	}
	return s.Muted.Render("·")
}

func (m *Model) runDetail(r workflow.Run, w int) string {
	s := m.c.Styles
	st := m.runStatus(r)
	done, total := r.Counts()
	lines := []string{s.Title.Render(fmt.Sprintf("Run #%d", r.ID)) + " " + s.Bold.Render(r.Name) + "  " + s.Band(st).Render(st)}
	lines = append(lines, m.field("steps", fmt.Sprintf("%d/%d finished · started %s", done, total, m.ago(r.CreatedAt)), w))
	if len(r.Params) > 0 {
		lines = append(lines, m.field("params", paramText(r.Params), w))
	}
	if r.Reason != "" {
		lines = append(lines, m.wrap(r.Reason, w)...)
	}
	lines = append(lines, "")
	for _, step := range r.Steps {
		lines = append(lines, m.stepGlyph(step.Status)+" "+s.Bold.Render(step.ID)+" "+s.Muted.Render(stepWho(step)))
		if step.Reason != "" && step.Status != workflow.StepDone {
			lines = append(lines, "  "+s.Subtle.Render(common.Truncate(oneLine(step.Reason), w-2)))
		}
	}
	keys := m.hint("enter", "follow")
	if r.Status != workflow.RunDone {
		keys += "  " + m.hint("R", "resume")
	}
	lines = append(lines, "", keys)
	return strings.Join(lines, "\n")
}

func stepWho(st workflow.StepState) string {
	if st.Skill != "" {
		return "skill " + st.Skill
	}
	return st.Agent
}

func paramText(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var kv []string
	for _, k := range keys {
		kv = append(kv, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(kv, " ")
}

func (m *Model) blueprintDetail(sum blueprint.Summary, w int) string {
	s := m.c.Styles
	lines := []string{s.Title.Render(sum.Name) + " " + s.Muted.Render(fmt.Sprintf("v%d", sum.Version))}
	lines = append(lines, m.wrap(sum.Description, w)...)
	d := m.bp
	if d != nil && d.Name == sum.Name {
		if len(d.Spec.Parameters) > 0 {
			lines = append(lines, "", s.Subtitle.Render("Parameters")+s.Subtle.Render("  * required"))
			lines = append(lines, m.paramLines(d.Spec.Parameters, w)...)
		}
	} else if m.bpErr != nil && m.bpAsked == sum.Name {
		lines = append(lines, s.Error.Render(common.Truncate(m.bpErr.Error(), w)))
	}
	ev := sum.Evidence
	lines = append(lines, "", s.Subtitle.Render("Evidence"))
	if ev.SuccessRate != nil {
		lines = append(lines, s.Muted.Render(fmt.Sprintf("%-9s", "success"))+
			s.Bar(*ev.SuccessRate, 10)+" "+s.Text.Render(fmt.Sprintf("%.0f%% (%d of %d finished)", *ev.SuccessRate*100, ev.Succeeded, ev.Finished)))
		lines = append(lines, m.field("average", fmt.Sprintf("%s, %d tokens", fmtDur(ev.AvgDuration), ev.AvgTokens), w))
	} else {
		lines = append(lines, s.Muted.Render("no finished build yet"))
	}
	used := "never used"
	if !sum.Status.LastUsed.IsZero() {
		used = fmt.Sprintf("%s, last %s", plural(sum.Status.UsageCount, "use"), m.ago(sum.Status.LastUsed))
	}
	lines = append(lines, m.field("usage", used, w))
	if d != nil && d.Name == sum.Name {
		if len(m.bpHist) > 0 {
			lines = append(lines, "", s.Subtitle.Render("History"))
			start := max(0, len(m.bpHist)-3)
			for _, v := range m.bpHist[start:] {
				lines = append(lines, s.Muted.Render(common.Truncate(fmt.Sprintf("v%d %s · %s", v.Version.Version, m.ago(v.CreatedAt), v.Changes), w)))
			}
		}
		if len(d.Uses) > 0 {
			lines = append(lines, "", s.Subtitle.Render("Recent uses"))
			for i, u := range d.Uses {
				if i == 3 {
					break
				}
				line := fmt.Sprintf("build %d · %s · %s", u.BuildID, u.Status, paramText(u.Parameters))
				lines = append(lines, s.Muted.Render(common.Truncate(line, w)))
			}
		}
	}
	lines = append(lines, "", m.hint("u", "fill in the parameters and preview the PRD"))
	return strings.Join(lines, "\n")
}

// ago says how long ago t was, on the page's clock.
func (m *Model) ago(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := m.now().Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
}

func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// --- skill result -----------------------------------------------------------

func (m *Model) resultView() string {
	s := m.c.Styles
	var status string
	switch {
	case m.skillRunning:
		status = s.Warning.Render(common.SpinFrame(m.spin) + " running")
	case m.skillErr != nil:
		status = s.BadgeErr.Render("refused")
	case m.skillRes != nil && m.skillRes.Success:
		status = s.BadgeOK.Render("ok")
	case m.skillRes != nil:
		status = s.BadgeErr.Render("failed")
	}
	left := s.Title.Render("Skill "+m.skillName) + "  " + status
	if r := m.skillRes; r != nil {
		left += "  " + s.Text.Render(fmt.Sprintf("%d/%d steps as %s", r.StepsCompleted, r.TotalSteps, r.Agent))
	}
	head := m.line(left, m.hint("r", "run again")+"  "+m.hint("esc", "back"))
	h := m.height - 1
	inner := m.width - 4
	var lines []string
	switch {
	case m.skillRunning:
		lines = append(lines, s.Muted.Render("Running the skill's steps…"))
	case m.skillErr != nil:
		lines = append(lines, s.Error.Render("The skill did not run"))
		lines = append(lines, strings.Split(s.Text.Width(inner).Render(m.skillErr.Error()), "\n")...)
		lines = append(lines, "", s.Subtle.Render("r opens the form again."))
	case m.skillRes != nil:
		lines = m.resultLines(*m.skillRes, inner)
	}
	return head + "\n" + s.PanelFocused.Width(m.width).Height(h).Render(m.scrolled(lines, h-2))
}

func (m *Model) resultLines(r engine.SkillRunResult, w int) []string {
	s := m.c.Styles
	var lines []string
	if len(r.MissingTools) > 0 {
		lines = append(lines, s.Error.Render("✗ missing tools: "+strings.Join(r.MissingTools, ", ")), "")
	}
	for _, st := range r.Steps {
		ok := st.Status == tools.StatusOK && st.Error == ""
		glyph, name := s.Success.Render("✓"), s.Bold.Render(st.Name)
		if !ok {
			glyph, name = s.Error.Render("✗"), s.Error.Bold(true).Render(st.Name)
		}
		lines = append(lines, glyph+" "+name+" "+s.Muted.Render("("+st.Tool+") "+fmtStepDur(st.Duration)))
		for _, l := range strings.Split(strings.TrimRight(st.Output, "\n"), "\n") {
			if strings.TrimSpace(st.Output) == "" {
				break
			}
			lines = append(lines, s.Subtle.Render("  │ ")+s.Text.Render(ansi.Truncate(strings.ReplaceAll(l, "\t", "    "), max(1, w-4), "…")))
		}
		if st.Error != "" && !strings.Contains(st.Output, st.Error) {
			lines = append(lines, "  "+s.Error.Render(common.Truncate(st.Error, w-2)))
		}
		lines = append(lines, "")
	}
	if !r.Success {
		at := r.FailedStep
		if at == "" {
			at = "the start"
		}
		lines = append(lines, s.Error.Render(common.Truncate(fmt.Sprintf("Failed at step %q: %s", at, r.Error), w)))
	}
	foot := fmt.Sprintf("run #%d · %s", r.RunID, plural(len(r.Steps), "trace"))
	if r.ChangesetID != 0 {
		foot += fmt.Sprintf(" · changeset %d staged (Changes screen)", r.ChangesetID)
	}
	return append(lines, s.Muted.Render(foot))
}

func fmtStepDur(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return fmtDur(d)
}

// scrolled shows h lines of lines from the page's scroll offset.
func (m *Model) scrolled(lines []string, h int) string {
	if h <= 0 {
		return ""
	}
	maxTop := max(0, len(lines)-h)
	m.scroll = min(m.scroll, maxTop)
	top := m.scroll
	end := min(len(lines), top+h)
	out := append([]string{}, lines[top:end]...)
	if maxTop > 0 && len(out) == h {
		out[h-1] = m.c.Styles.Subtle.Render(fmt.Sprintf("… line %d–%d of %d (j/k, pgup/pgdn)", top+1, end, len(lines)))
	}
	return strings.Join(out, "\n")
}

// --- workflow run -----------------------------------------------------------

func (m *Model) runView() string {
	s := m.c.Styles
	r := m.run
	h := m.height - 1
	if r == nil || r.Workflow == "" {
		msg := s.Muted.Render(fmt.Sprintf("Loading workflow run %d…", m.runID))
		if m.runErr != nil {
			msg = s.Error.Render(common.Truncate(m.runErr.Error(), m.width-4))
		}
		return m.line(s.Title.Render(fmt.Sprintf("Workflow run %d", m.runID)), m.hint("esc", "back")) + "\n" +
			s.Panel.Width(m.width).Height(h).Render(msg)
	}
	st := m.runStatus(*r)
	done, total := r.Counts()
	frac := 0.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	left := s.Title.Render(fmt.Sprintf("Workflow %s · run %d", r.Workflow, r.ID)) + "  " + s.Band(st).Render(st) + "  " +
		s.Text.Render(fmt.Sprintf("%d/%d steps", done, total)) + " " + s.Bar(frac, 10)
	if !r.CreatedAt.IsZero() {
		end := m.now()
		if !r.FinishedAt.IsZero() {
			end = r.FinishedAt
		}
		left += "  " + s.Muted.Render(fmtDur(end.Sub(r.CreatedAt).Truncate(time.Second)))
	}
	right := m.hint("esc", "back")
	if st != string(workflow.RunDone) && st != string(workflow.RunRunning) {
		right = m.hint("R", "resume") + "  " + right
	}
	head := m.line(left, right)
	lw := max(30, min(44, m.width*2/5))
	rw := m.width - lw
	steps := m.stepsView(lw, h)
	dh := max(8, h*2/5)
	if h-dh < 5 {
		dh = h - 5
	}
	detail := s.Panel.Width(rw).Height(dh).Render(common.FitHeight(m.stepDetail(rw-4, dh-2), dh-2))
	out := m.outputView(rw, h-dh)
	return head + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, steps, lipgloss.JoinVertical(lipgloss.Left, detail, out))
}

func (m *Model) stepsView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	r := m.run
	lines := []string{s.PanelTitleActive.Render("Steps") + " " + s.Muted.Render(fmt.Sprint(len(r.Steps)))}
	var reason []string
	if r.Reason != "" {
		reason = append([]string{""}, strings.Split(s.Muted.Width(inner).Render(r.Reason), "\n")...)
	}
	per := 1
	for _, st := range r.Steps {
		if stepWhy(st) != "" {
			per = 2
		}
	}
	m.steps.SetRowHeight(per)
	room := max(per, h-3-len(reason))
	lines = append(lines, m.steps.ViewNoted(inner, min(room, len(r.Steps)*per)))
	lines = append(lines, reason...)
	return s.PanelFocused.Width(w).Height(h).Render(common.FitHeight(strings.Join(lines, "\n"), h-2))
}

// renderStep draws one step of a run: its status glyph, id and who runs
// it; when a step of the run was skipped or failed, every step takes two
// lines and the second says why.
func (m *Model) renderStep(st workflow.StepState, _ int, selected, _ bool, w int) string {
	s := m.c.Styles
	name := common.Truncate(st.ID, max(1, w-4))
	who := common.Truncate(stepWho(st), max(0, w-3-lipgloss.Width(name)))
	gap := strings.Repeat(" ", max(1, w-2-lipgloss.Width(name)-lipgloss.Width(who)))
	line := m.stepGlyph(st.Status) + " " + s.Bold.Render(name) + gap + s.Muted.Render(who)
	if selected {
		line = m.stepGlyph(st.Status) + " " + s.Selected.Width(max(1, w-2)).Render(name+gap+who)
	}
	if why := stepWhy(st); why != "" {
		line += "\n  " + s.Subtle.Render(common.Truncate(why, max(1, w-2)))
	}
	return line
}

// stepWhy is why a step was skipped or failed ("" for the others).
func stepWhy(st workflow.StepState) string {
	if st.Status != workflow.StepSkipped && st.Status != workflow.StepFailed {
		return ""
	}
	return oneLine(strings.TrimPrefix(st.Reason, "skipped: "))
}

func (m *Model) stepDetail(w, h int) string {
	s := m.c.Styles
	st, ok := m.steps.Selected()
	if !ok {
		return ""
	}
	lines := []string{s.Bold.Render(common.Truncate(orDash(st.Title), w-12)) + "  " + s.Band(string(st.Status)).Render(string(st.Status))}
	who := "agent " + st.Agent
	if st.Skill != "" {
		who = "skill " + st.Skill + " as " + st.Agent
	}
	lines = append(lines, m.field("runs", who, w))
	var where []string
	if b := m.builds[st.ID]; b != "" {
		where = append(where, "build "+b+" (enter opens it)")
	}
	if st.AgentRunID != 0 {
		where = append(where, fmt.Sprintf("agent run #%d", st.AgentRunID))
	}
	if st.ChangesetID != 0 {
		state := "waits for approval"
		if st.Applied {
			state = "applied"
		}
		where = append(where, fmt.Sprintf("changeset %d %s", st.ChangesetID, state))
	}
	if len(where) > 0 {
		lines = append(lines, m.field("where", strings.Join(where, " · "), w))
	}
	if st.Reason != "" {
		style := s.Muted
		if st.Status == workflow.StepFailed {
			style = s.Error
		}
		lines = append(lines, strings.Split(style.Width(w).Render(st.Reason), "\n")...)
	}
	if st.Task != "" {
		lines = append(lines, "")
		task := strings.Split(s.Text.Width(w).Render(strings.TrimSpace(st.Task)), "\n")
		if room := h - len(lines); len(task) > room && room > 0 {
			task = append(task[:max(0, room-1)], s.Subtle.Render("…"))
		}
		lines = append(lines, task...)
	}
	return strings.Join(lines, "\n")
}

func (m *Model) outputView(w, h int) string {
	s := m.c.Styles
	title := s.PanelTitle.Render("Output")
	var text string
	if st, ok := m.steps.Selected(); ok {
		if b := m.builds[st.ID]; b != "" && st.Status == workflow.StepRunning {
			title = s.PanelTitle.Render("Live") + " " + s.Muted.Render("build "+b)
			if sb := m.streams[b]; sb != nil {
				text = sb.String()
			}
			if strings.TrimSpace(text) == "" {
				text = "waiting for the agent's first words…"
			}
		} else {
			text = st.Output
			if strings.TrimSpace(text) == "" {
				switch st.Status {
				case workflow.StepPending:
					text = "not run yet"
				case workflow.StepSkipped:
					text = "skipped: nothing ran"
				default:
					text = "no output"
				}
			}
		}
	}
	inner := w - 4
	var lines []string
	// Streamed output wraps at spaces (a word never breaks where a stream
	// chunk ended); a model's control characters go.
	for _, wl := range common.WrapWords(runview.Sanitize(strings.ReplaceAll(strings.TrimRight(text, "\n"), "\t", "    ")), inner) {
		lines = append(lines, s.Text.Render(wl))
	}
	room := max(1, h-3)
	// Follow the end; pgup scrolls back.
	end := max(0, len(lines)-m.scroll)
	start := max(0, end-room)
	if end-start < room {
		end = min(len(lines), start+room)
	}
	body := strings.Join(lines[start:end], "\n")
	return s.Panel.Width(w).Height(h).Render(common.FitHeight(title+"\n"+body, h-2))
}

// --- blueprint preview ------------------------------------------------------

// previewTask is what the preview shows of a rendered task.
type previewTask struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Agent        string   `json:"agent"`
	Phase        int      `json:"phase"`
	Dependencies []string `json:"dependencies"`
}

func previewTasks(prdJSON []byte) []previewTask {
	var p struct {
		Tasks []previewTask `json:"tasks"`
	}
	_ = json.Unmarshal(prdJSON, &p)
	return p.Tasks
}

func previewName(prdJSON []byte) string {
	var p struct {
		Meta struct {
			Name string `json:"name"`
		} `json:"meta"`
	}
	_ = json.Unmarshal(prdJSON, &p)
	return p.Meta.Name
}

func (m *Model) previewView() string {
	s := m.c.Styles
	h := m.height - 1
	inner := m.width - 4
	left := s.Title.Render("Preview") + "  " + s.Bold.Render(m.previewFor)
	if p := m.preview; p != nil {
		left += " " + s.Muted.Render(fmt.Sprintf("v%d", p.Version))
	}
	if len(m.previewVals) > 0 {
		vals := map[string]any{}
		for k, v := range m.previewVals {
			vals[k] = v
		}
		left += "  " + s.Muted.Render(common.Truncate(paramText(vals), max(10, m.width/3)))
	}
	right := m.hint("enter", "run") + "  " + m.hint("t", "table/json") + "  " + m.hint("esc", "back")
	head := m.line(left, right)
	var lines []string
	switch {
	case m.previewErr != nil:
		lines = append(lines, s.Error.Render("The blueprint did not render"))
		lines = append(lines, strings.Split(s.Text.Width(inner).Render(m.previewErr.Error()), "\n")...)
		lines = append(lines, "", s.Subtle.Render("u changes the values; esc goes back."))
	case m.preview == nil:
		lines = append(lines, s.Muted.Render("Rendering…"))
	case m.previewJSON:
		var buf bytes.Buffer
		if err := json.Indent(&buf, m.preview.PRD, "", "  "); err == nil {
			for _, l := range strings.Split(buf.String(), "\n") {
				lines = append(lines, s.Text.Render(ansi.Truncate(l, inner, "…")))
			}
		}
	default:
		lines = m.previewTable(inner)
	}
	if m.making {
		lines = append([]string{s.Warning.Render("Creating the build…")}, lines...)
	}
	return head + "\n" + s.PanelFocused.Width(m.width).Height(h).Render(m.scrolled(lines, h-2))
}

func (m *Model) previewTable(w int) []string {
	s := m.c.Styles
	p := m.preview
	tasks := previewTasks(p.PRD)
	lines := []string{s.Bold.Render(orDash(previewName(p.PRD))) + "  " + s.Muted.Render(plural(len(tasks), "task")+" · nothing runs until you press enter"), ""}
	idW, agentW := 4, 6
	for _, t := range tasks {
		idW = max(idW, min(18, lipgloss.Width(t.ID)))
		agentW = max(agentW, min(10, lipgloss.Width(t.Agent)))
	}
	depW := 14
	titleW := max(10, w-idW-agentW-depW-5-6)
	header := fmt.Sprintf("%-*s  %-*s  %-5s  %-*s  %s", idW, "ID", agentW, "AGENT", "PHASE", depW, "AFTER", "TITLE")
	lines = append(lines, s.Muted.Render(ansi.Truncate(header, w, "…")))
	for _, t := range tasks {
		deps := strings.Join(t.Dependencies, ",")
		if deps == "" {
			deps = "—"
		}
		row := fmt.Sprintf("%-*s  %-*s  %-5d  %-*s  %s", idW, common.Truncate(t.ID, idW), agentW, common.Truncate(t.Agent, agentW), t.Phase,
			depW, common.Truncate(deps, depW), common.Truncate(t.Title, titleW))
		lines = append(lines, s.Text.Render(ansi.Truncate(row, w, "…")))
	}
	if p.Values != nil {
		lines = append(lines, "", s.Subtitle.Render("Values"))
		lines = append(lines, s.Muted.Render(common.Truncate(paramText(p.Values), w)))
	}
	return lines
}

// --- request box ------------------------------------------------------------

// renderMatch draws one workflow that matches the request: its id, the
// trigger that matched, the score and the values read from the request.
func (r *requestBox) renderMatch(mt workflow.Match, _ int, selected, _ bool, w int) string {
	s := r.c.Styles
	trigger := "its name"
	if mt.Trigger != "" {
		trigger = "“" + mt.Trigger + "”"
	}
	line := fmt.Sprintf("%-12s %s %.2f", mt.ID, trigger, mt.Score)
	if len(mt.Params) > 0 {
		vals := map[string]any{}
		for k, v := range mt.Params {
			vals[k] = v
		}
		line += "  " + paramText(vals)
	}
	line = common.Truncate(line, w)
	if selected {
		return s.Selected.Render(line)
	}
	return s.Text.Render(line)
}

func (m *Model) requestView() string {
	s := m.c.Styles
	r := m.request
	w := min(84, max(44, m.width-6))
	inner := w - 6
	b := []string{s.DialogTitle.Render("Which workflow fits your request?"), "", r.input.View(), ""}
	switch {
	case r.err != nil:
		b = append(b, s.Error.Render(common.Truncate(r.err.Error(), inner)))
	case strings.TrimSpace(r.input.Value()) == "":
		b = append(b, s.Subtle.Render(common.Truncate("Describe the work; the workflows whose triggers match show here.", inner)))
	case len(r.matches) == 0:
		b = append(b, s.Muted.Render(common.Truncate("No workflow matches; esc and pick one from the list.", inner)))
	default:
		b = append(b, r.list.ViewNoted(inner, min(5, len(r.matches))))
	}
	b = append(b, "", s.Subtle.Render(common.Truncate("enter opens its form with these values · ↑/↓ choose · esc close", inner)))
	return s.Dialog.Width(w).Render(strings.Join(b, "\n"))
}
