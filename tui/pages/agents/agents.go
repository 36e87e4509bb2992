// Package agents is the Agents screen: the roster loaded from .nova/agents
// (with the files that failed to load and why), the definition of the
// selected agent, recent runs, and the live view of a run started from here
// (n asks for the task).
package agents

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/engine"
	eng "github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/runview"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the router id of the page.
const ID = "agents"

// recentRuns is how many runs the page lists.
const recentRuns = 30

type mode uint8

const (
	modeRoster mode = iota
	modeInput
	modeRun
)

// Source is what the Agents page needs from the engine: a subset of
// engine.Workspace's verbs (the run view's included).
type Source interface {
	runview.Source
	ListAgents(ctx context.Context) (engine.Roster, error)
	ListRuns(ctx context.Context, f eng.RunFilter) ([]eng.Run, error)
}

type rosterMsg struct {
	specs    []eng.Spec
	implicit map[string][]string // tools offered beyond a spec's list, by agent
	errs     []engine.AgentProblem
	err      error
}

type runsMsg struct {
	runs []eng.Run
	err  error
}

type refreshMsg struct{ seq int }

// Model is the Agents page.
type Model struct {
	c      *common.Common
	src    Source
	width  int
	height int
	now    func() time.Time

	specs    []eng.Spec
	implicit map[string][]string // tools offered beyond a spec's list, by agent
	loadErrs []engine.AgentProblem
	loaded   bool
	err      error
	runs     []eng.Run
	runsErr  error

	// roster is the agents list: a heading row before each group (agents
	// that write, read-only ones), then the group's agents.
	roster *vlist.Model[entry]
	keys   keyMap
	// place centres the roster's window on the cursor at the next render
	// (the list gets its size there).
	place bool
	mode  mode
	input textinput.Model
	rv    *runview.Model
	seq   int
	// under is the roster and detail while the new-run dialog is open.
	under common.ViewCache
}

// New builds the page.
func New(c *common.Common, src Source) *Model {
	in := textinput.New()
	in.Placeholder = "describe the task, e.g. add a health check endpoint"
	in.Prompt = "› "
	in.CharLimit = 4000
	in.SetStyles(c.Styles.TextInput)
	m := &Model{c: c, src: src, now: c.Clock(), input: in, rv: runview.New(c, src), keys: newKeyMap()}
	m.roster = vlist.New(c, m.renderEntry)
	m.roster.SetMarker(true)
	m.roster.SetEmptyText("No agent loaded.")
	return m
}

// entry is one roster row: an agent (its index in specs) or a group's
// heading (agent -1).
type entry struct {
	agent   int
	heading string
}

// entries lays the roster out: a heading before each group, then its agents.
func entries(specs []eng.Spec) []entry {
	var all []entry
	for i, sp := range specs {
		switch {
		case i == 0 && !sp.ReadOnly():
			all = append(all, entry{agent: -1, heading: "write files or run commands"})
		case sp.ReadOnly() && (i == 0 || !specs[i-1].ReadOnly()):
			all = append(all, entry{agent: -1, heading: "read-only"})
		}
		all = append(all, entry{agent: i})
	}
	return all
}

// Title implements common.Page.
func (m *Model) Title() string { return "Agents" }

// Capturing implements common.Page: typing a task, or answering an
// approval, owns the keyboard.
func (m *Model) Capturing() bool {
	return m.mode == modeInput || (m.mode == modeRun && m.rv.WaitingApproval())
}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.loadRoster(), m.loadRuns()) }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.rv.SetSize(max(0, w-4), max(0, h-2))
	m.input.SetWidth(max(10, m.dialogWidth()-10))
}

func (m *Model) loadRoster() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		r, err := src.ListAgents(ctx)
		if err != nil {
			return rosterMsg{err: err}
		}
		return rosterMsg{specs: r.Agents, implicit: r.ImplicitTools, errs: r.Problems}
	}
}

func (m *Model) loadRuns() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		runs, err := src.ListRuns(ctx, eng.RunFilter{Limit: recentRuns})
		return runsMsg{runs: runs, err: err}
	}
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	m.under.Update(msg, m.mode == modeInput)
	switch msg := msg.(type) {
	case rosterMsg:
		m.loaded = true
		m.err = msg.err
		if msg.err == nil {
			keep := m.selectedID()
			if keep == "" {
				keep = startAgent // a first look starts on the one that does the work
			}
			m.specs, m.implicit, m.loadErrs = groupWriters(msg.specs), msg.implicit, msg.errs
			specs := m.specs
			m.roster.ReplaceRows(entries(specs), func(e entry) bool { return e.agent >= 0 && specs[e.agent].ID == keep })
			m.roster.SkipHeading(isHeading, true)
			m.place = true
		}
		return m, nil
	case runsMsg:
		m.runsErr = msg.err
		if msg.err == nil {
			m.runs = msg.runs
		}
		return m, nil
	case refreshMsg:
		if msg.seq == m.seq {
			return m, m.loadRuns()
		}
		return m, nil
	case common.EventMsg:
		_, cmd := m.rv.Update(msg)
		ev := msg.Event
		if ev.Topic == engine.TopicAgent && (ev.Type == engine.EventDone || ev.Type == engine.EventFailed ||
			(ev.Type == engine.EventLog && ev.Status == string(eng.EventStart))) {
			m.seq++
			return m, tea.Batch(cmd, common.Debounce(200*time.Millisecond, refreshMsg{seq: m.seq}))
		}
		return m, cmd
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case common.NavigateMsg:
		if msg.Page == ID && msg.Arg == common.ArgNew && m.mode == modeRoster {
			return m, m.newRun()
		}
		return m, nil
	}
	// Run events, highlight results and the like belong to the run view
	// (and the input's cursor blink to the input).
	_, cmd := m.rv.Update(msg)
	if m.mode == modeInput {
		var icmd tea.Cmd
		m.input, icmd = m.input.Update(msg)
		cmd = tea.Batch(cmd, icmd)
	}
	return m, cmd
}

func (m *Model) selectedID() string {
	sp, _ := m.selected()
	return sp.ID
}

func (m *Model) selected() (eng.Spec, bool) {
	e, ok := m.roster.Selected()
	if !ok || e.agent < 0 || e.agent >= len(m.specs) {
		return eng.Spec{}, false
	}
	return m.specs[e.agent], true
}

// isHeading tells a group's heading from an agent in the roster.
func isHeading(e entry) bool { return e.agent < 0 }

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch m.mode {
	case modeInput:
		switch {
		case key.Matches(msg, m.keys.CancelInput):
			m.mode = modeRoster
			m.input.Blur()
			return nil
		case key.Matches(msg, m.keys.Start):
			task := strings.TrimSpace(m.input.Value())
			spec, ok := m.selected()
			if task == "" || !ok {
				return nil
			}
			m.input.Blur()
			m.mode = modeRun
			cmd := m.rv.Start(spec, task)
			m.seq++
			return tea.Batch(cmd, common.Debounce(300*time.Millisecond, refreshMsg{seq: m.seq}))
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	case modeRun:
		if key.Matches(msg, km.Back) && !m.rv.WaitingApproval() {
			m.mode = modeRoster
			return nil
		}
		_, cmd := m.rv.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, km.Refresh):
		return tea.Batch(m.loadRoster(), m.loadRuns())
	case key.Matches(msg, m.keys.NewRun):
		return m.newRun()
	case key.Matches(msg, m.keys.OpenRun):
		if m.rv.State() != runview.Idle {
			m.mode = modeRun
		}
		return nil
	}
	before := m.roster.Cursor()
	if ok, cmd := m.roster.HandleKey(msg); ok {
		m.roster.SkipHeading(isHeading, m.roster.Cursor() >= before)
		return cmd
	}
	return nil
}

// newRun asks for the task of a run of the selected agent (n, or the
// palette's "New agent run").
func (m *Model) newRun() tea.Cmd {
	if _, ok := m.selected(); !ok {
		return nil
	}
	if m.rv.Running() {
		return common.Toast("a run is in progress: open it with enter, cancel it with X")
	}
	m.mode = modeInput
	m.input.SetValue("")
	m.input.SetStyles(m.c.Styles.TextInput)
	return m.input.Focus()
}

func (m *Model) dialogWidth() int { return min(80, max(44, m.width-8)) }

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.mode == modeInput {
		body := m.under.Get(m.c, m.width, m.height, m.baseView)
		return common.Overlay(body, m.inputView(), m.width, m.height)
	}
	return m.baseView()
}

// baseView is the page without the new-run dialog.
func (m *Model) baseView() string {
	s := m.c.Styles
	var body string
	switch {
	case m.mode == modeRun:
		body = s.PanelFocused.Width(m.width).Height(m.height).Render(m.rv.View())
	case !m.loaded:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Muted.Render("Loading agents…"))
	case m.err != nil:
		body = s.Panel.Width(m.width).Height(m.height).Render(s.Error.Render("Could not load the agents") + "\n" +
			s.Text.Width(m.width-4).Render(m.err.Error()) + "\n\n" + s.Subtle.Render("ctrl+r retries."))
	case len(m.specs) == 0 && len(m.loadErrs) == 0:
		body = s.Panel.Width(m.width).Height(m.height).Render(m.c.Empty("No agents.",
			"Agent definitions live in .nova/agents/<ID>.yaml; `nova init` writes the shipped roster."))
	default:
		lw := m.rosterWidth()
		left := m.rosterView(lw, m.height)
		rw := m.width - lw
		runsH := 0
		if m.height >= 20 {
			runsH = max(6, m.height/3)
		}
		right := m.detailView(rw, m.height-runsH)
		if runsH > 0 {
			right = lipgloss.JoinVertical(lipgloss.Left, right, m.runsView(rw, runsH))
		}
		body = lipgloss.JoinHorizontal(lipgloss.Top, left, right)
	}
	return common.FitHeight(body, m.height)
}

// rosterWidth is the width of the roster's panel.
func (m *Model) rosterWidth() int { return max(30, min(52, m.width*2/5)) }

// startAgent is the agent the screen starts on: the roster's general
// implementer (the first agent that writes when there is none).
const startAgent = "implementer"

// groupWriters puts the agents that change files (or run commands) before
// the read-only ones, each group in its order.
func groupWriters(specs []eng.Spec) []eng.Spec {
	out := make([]eng.Spec, 0, len(specs))
	for _, sp := range specs {
		if !sp.ReadOnly() {
			out = append(out, sp)
		}
	}
	for _, sp := range specs {
		if sp.ReadOnly() {
			out = append(out, sp)
		}
	}
	return out
}

// rosterView lists the agents, then the files that failed to load.
func (m *Model) rosterView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	head := s.PanelTitleActive.Render("Agents") + " " + s.Muted.Render(fmt.Sprintf("%d", len(m.specs)))
	if n := invalidFiles(m.loadErrs); n > 0 {
		head += " " + s.BadgeErr.Render(fmt.Sprintf("%d invalid", n))
	}
	var errLines []string
	if len(m.loadErrs) > 0 {
		errLines = append(errLines, "", s.Error.Bold(true).Render("Invalid agent files"))
		budget := max(2, (h-2)/3)
		for _, e := range m.loadErrs {
			for _, l := range strings.Split(s.Error.Width(inner-2).Render(errText(e)), "\n") {
				errLines = append(errLines, "  "+l)
			}
		}
		if len(errLines) > budget+2 {
			more := len(errLines) - budget - 1
			errLines = append(errLines[:budget+1], s.Subtle.Render(common.Truncate(fmt.Sprintf("  … %d more lines (`nova agents validate`)", more), inner)))
		}
	}
	rows := max(1, h-3-len(errLines))
	m.roster.SetSize(inner, rows)
	if m.place {
		m.place = false
		m.roster.CenterCursor()
	}
	m.roster.KeepHeadingInView(isHeading)
	content := head + "\n" + m.roster.FramedViewSkipping(inner, rows, isHeading)
	if len(errLines) > 0 {
		content = common.FitHeight(content, h-2-len(errLines)) + "\n" + strings.Join(errLines, "\n")
	}
	return s.PanelFocused.Width(w).Height(h).Render(content)
}

// renderEntry draws one roster row: a group's heading, or an agent's
// emoji, id, domain and tier.
func (m *Model) renderEntry(e entry, _ int, selected, _ bool, inner int) string {
	s := m.c.Styles
	if e.agent < 0 {
		label := common.Truncate("── "+e.heading+" ", inner)
		return s.Subtle.Render(label + strings.Repeat("─", max(0, inner-lipgloss.Width(label))))
	}
	sp := m.specs[e.agent].WithDefaults()
	emoji := sp.Display.Emoji
	if emoji == "" {
		emoji = "·"
	}
	emoji = padCells(emoji, 2)
	right := string(sp.Tier)
	if sp.Domain != "" {
		right = sp.Domain + " · " + right
	}
	name := sp.ID
	room := inner - 3 - lipgloss.Width(name) - 1
	right = common.Truncate(right, max(0, room))
	gap := strings.Repeat(" ", max(1, inner-3-lipgloss.Width(name)-lipgloss.Width(right)))
	if selected {
		return emoji + " " + s.Selected.Width(inner-3).Render(name+gap+right)
	}
	return emoji + " " + s.Bold.Render(name) + gap + s.Muted.Render(right)
}

// padCells pads an emoji to n cells so names line up.
func padCells(s string, n int) string {
	if w := lipgloss.Width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// invalidFiles counts the files behind load errors (a file may have several).
func invalidFiles(errs []engine.AgentProblem) int {
	files := map[string]bool{}
	for _, e := range errs {
		if e.File != "" {
			files[e.File] = true
		} else {
			files[e.Text] = true
		}
	}
	return len(files)
}

// reflow joins the hard-wrapped lines of a paragraph so that it wraps at
// the panel's width; blank lines and list items start new paragraphs.
func reflow(text string, w int, st lipgloss.Style) []string {
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			flush()
			paras = append(paras, "")
			continue
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || (len(t) > 2 && t[0] >= '0' && t[0] <= '9' && t[1] == '.'):
			flush()
		}
		cur = append(cur, t)
	}
	flush()
	var out []string
	for _, p := range paras {
		if p == "" {
			out = append(out, "")
			continue
		}
		if strings.HasPrefix(p, "- ") || strings.HasPrefix(p, "* ") {
			lines := strings.Split(st.Width(max(1, w-2)).Render(p[2:]), "\n")
			for i, l := range lines {
				if i == 0 {
					out = append(out, p[:2]+l)
				} else {
					out = append(out, "  "+l)
				}
			}
			continue
		}
		out = append(out, strings.Split(st.Width(w).Render(p), "\n")...)
	}
	return out
}

// errText is a problem with its file's base name instead of its path.
func errText(p engine.AgentProblem) string {
	if p.File == "" {
		return p.Text
	}
	file := p.File
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		file = file[i+1:]
	}
	se := eng.SpecError{File: file, Line: p.Line, Field: p.Field, Msg: p.Message}
	return se.Error()
}

// detailView is the definition of the selected agent.
func (m *Model) detailView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	sp, ok := m.selected()
	if !ok {
		return s.Panel.Width(w).Height(h).Render(s.Muted.Render("No agent selected."))
	}
	d := sp.WithDefaults()
	var b []string
	title := d.ID
	if d.Display.Emoji != "" {
		title = d.Display.Emoji + " " + title
	}
	if d.Display.Name != "" && d.Display.Name != d.ID {
		title += " — " + d.Display.Name
	}
	b = append(b, s.Title.Render(common.Truncate(title, inner)))
	if d.Display.Description != "" {
		b = append(b, strings.Split(s.Text.Width(inner).Render(d.Display.Description), "\n")...)
	}
	tier := string(d.Tier)
	if d.MaxTier != d.Tier {
		tier += " → " + string(d.MaxTier)
	}
	facts := []string{kv(m, "domain", orDash(d.Domain)), kv(m, "tier", tier)}
	if d.Version != "" {
		facts = append(facts, kv(m, "version", d.Version))
	}
	b = append(b, "", strings.Join(facts, "   "))
	b = append(b, kv(m, "limits", fmt.Sprintf("%d steps · %d tool calls · %s", d.Limits.MaxSteps, d.Limits.MaxToolCalls, d.Limits.TimeoutDuration())))
	implicit := m.implicit[d.ID]
	tools := "none (answers only)"
	switch {
	case len(d.Tools) > 0:
		tools = strings.Join(d.Tools, ", ")
	case len(implicit) > 0:
		tools = "none listed"
	}
	b = append(b, strings.Split(lipgloss.NewStyle().Width(inner).Render(kv(m, "tools", tools)), "\n")...)
	for _, a := range d.ToolMap {
		// A kb.specialist/1 file's tool names, as nova read them.
		b = append(b, s.Subtle.Render(common.Truncate("  "+a.String()+" (kb.specialist/1 name)", inner)))
	}
	for _, n := range d.Notes {
		b = append(b, strings.Split(s.Subtle.Width(inner).Render("note: "+n), "\n")...)
	}
	if d.ReadOnly() {
		b = append(b, s.Subtle.Render("read-only: stages no files and runs no commands"))
	}
	if len(implicit) > 0 {
		// Tools every agent gets (runSkill, the knowledge tools) and VENUS's
		// generateUIComponent: offered without being listed in the file.
		also := strings.Join(implicit, ", ") + s.Subtle.Render(" (not in its file)")
		b = append(b, strings.Split(lipgloss.NewStyle().Width(inner).Render(kv(m, "also", also)), "\n")...)
	}
	b = append(b, "", s.Subtitle.Render("Role"))
	b = append(b, reflow(d.Role, inner, s.Text)...)
	if len(d.Examples) > 0 {
		b = append(b, "", s.Subtitle.Render(fmt.Sprintf("Examples (%d)", len(d.Examples))))
		for _, ex := range d.Examples {
			b = append(b, s.Muted.Render("in  ")+s.Text.Render(common.Truncate(oneLine(ex.Input), inner-4)))
			b = append(b, s.Muted.Render("out ")+s.Text.Render(common.Truncate(oneLine(ex.Output), inner-4)))
		}
	}
	// Lines wider than the panel would be wrapped by the panel and push its
	// bottom border off screen: wrap them here, where they are counted.
	b = fitLines(b, inner)
	room := h - 3
	if len(b) > room {
		b = append(b[:max(0, room-1)], s.Subtle.Render(common.Truncate("… the full definition: "+orDash(sourceName(d.Source)), inner)))
	}
	b = append(b[:min(len(b), room)], "")
	nk, oh := m.keys.NewRun.Help(), m.keys.OpenRun.Help()
	footer := s.Key.Render(nk.Key) + " " + s.KeyDesc.Render(nk.Desc)
	if m.rv.State() != runview.Idle {
		footer += s.Subtle.Render("  ·  ") + s.Key.Render(oh.Key) + " " + s.KeyDesc.Render(oh.Desc+" ("+m.rv.State().String()+")")
	}
	content := common.FitHeight(strings.Join(b, "\n"), h-3) + "\n" + footer
	return s.Panel.Width(w).Height(h).Render(content)
}

// fitLines splits multi-line entries and wraps lines wider than w.
func fitLines(lines []string, w int) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		for _, x := range strings.Split(l, "\n") {
			if lipgloss.Width(x) <= w {
				out = append(out, x)
				continue
			}
			out = append(out, strings.Split(lipgloss.Wrap(x, w, " "), "\n")...)
		}
	}
	return out
}

func sourceName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return ".nova/agents/" + p[i+1:]
	}
	return p
}

func kv(m *Model, k, v string) string {
	return m.c.Styles.Muted.Render(k+" ") + m.c.Styles.Text.Render(v)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// runsView lists recent runs: agent, outcome, verdict, tokens, age, task.
func (m *Model) runsView(w, h int) string {
	s := m.c.Styles
	inner := w - 4
	head := s.PanelTitle.Render("Recent runs")
	var lines []string
	switch {
	case m.runsErr != nil:
		lines = append(lines, s.Error.Render(common.Truncate("could not list runs: "+m.runsErr.Error(), inner)))
	case len(m.runs) == 0:
		lines = append(lines, s.Muted.Render("No runs yet."), s.Subtle.Render(common.Truncate("Select an agent and press n to give it a task.", inner)))
	}
	for i, r := range m.runs {
		if i >= h-3 {
			break
		}
		st := eng.DisplayStatus(string(r.Status), len(r.Files), r.Verified)
		badge := s.Band(st).Render(st)
		verdict := ""
		if v := string(r.Verdict.Status); v != "" {
			verdict = " " + s.Muted.Render("verdict ") + s.Band(v).Render(v)
		}
		tok := r.Outcome.Meta.PromptTokens + r.Outcome.Meta.EvalTokens
		meta := s.Muted.Render(fmt.Sprintf(" %s tok · %s", formatTokens(tok), age(m.now(), r.StartedAt)))
		left := s.Subtle.Render(fmt.Sprintf("#%-3d ", r.ID)) + s.Bold.Render(fmt.Sprintf("%-8s ", r.Agent)) + badge + verdict + meta
		task := "  " + oneLine(r.Label())
		room := inner - lipgloss.Width(left)
		if room > 6 {
			left += s.Text.Render(common.Truncate(task, room))
		}
		lines = append(lines, lipgloss.NewStyle().MaxWidth(inner).Render(left))
	}
	return s.Panel.Width(w).Height(h).Render(head + "\n" + strings.Join(lines, "\n"))
}

func formatTokens(n int) string {
	if n >= 10_000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%d", n)
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

func (m *Model) inputView() string {
	s := m.c.Styles
	sp, _ := m.selected()
	name := sp.ID
	if sp.Display.Emoji != "" {
		name = sp.Display.Emoji + " " + name
	}
	w := m.dialogWidth()
	var b strings.Builder
	b.WriteString(s.DialogTitle.Render("New run — "+name) + "\n\n")
	b.WriteString(s.Text.Render("What should it do?") + "\n")
	b.WriteString(m.input.View() + "\n\n")
	b.WriteString(s.Subtle.Render(common.Truncate(runPromise(m.selectedSpec()), w-6)) + "\n")
	st, ca := m.keys.Start.Help(), m.keys.CancelInput.Help()
	b.WriteString(s.Key.Render(st.Key) + " " + s.KeyDesc.Render(st.Desc) + s.Subtle.Render("  ·  ") + s.Key.Render(ca.Key) + " " + s.KeyDesc.Render(ca.Desc))
	return s.Dialog.Width(w).Render(b.String())
}

// selectedSpec is the selected agent (zero when none).
func (m *Model) selectedSpec() eng.Spec {
	sp, _ := m.selected()
	return sp
}

// runPromise says what a run of sp may do to the workspace: only what its
// tools allow (a read-only agent stages nothing and runs nothing).
func runPromise(sp eng.Spec) string {
	writes, runs := sp.CanWrite(), sp.HasTool(eng.ToolRunCommand)
	switch {
	case writes && runs:
		return "File writes are staged as a changeset; commands ask for approval."
	case writes:
		return "File writes are staged as a changeset; it runs no commands."
	case runs:
		return "Commands ask for approval; it stages no files."
	}
	return "Read-only: it reads the workspace and answers; it changes no files and runs no commands."
}
