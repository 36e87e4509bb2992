// Package home is nova's start screen: the workspace at a glance, Ollama's
// state and models, and what waits for you.
package home

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/mcp"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
)

// ID is the router id of the page.
const ID = "home"

type refreshMsg struct{ seq int }

// Source is what the Home page needs from the engine (a subset of
// engine.Workspace).
type Source interface {
	Info() engine.Info
	Config() workspace.Config
	Summary(ctx context.Context) (engine.Summary, error)
	Ollama(ctx context.Context) (engine.OllamaStatus, error)
	ListBuilds(ctx context.Context) ([]build.Build, error)
	// TeamStatus is read only when the workspace joined a team.
	TeamStatus(ctx context.Context) (engine.TeamStatus, error)
	// MCPServers lists the MCP servers and their state, starting none.
	MCPServers(ctx context.Context) ([]engine.MCPServerStatus, error)
}

// Model is the Home page.
type Model struct {
	c       *common.Common
	src     Source
	width   int
	height  int
	summary *engine.Summary
	sumErr  error
	ollama  *engine.OllamaStatus
	seq     int
	// work is what runs right now (running builds); nil until fetched.
	work *workMsg
	// activity is the session's event feed, oldest first.
	activity []activity
	// team is the team state (nil until fetched, or not joined).
	team *engine.TeamStatus
	// mcp are the MCP servers (nil until fetched).
	mcp []engine.MCPServerStatus
}

// mcpMsg carries the MCP servers' state.
type mcpMsg struct{ servers []engine.MCPServerStatus }

// fetchMCP lists the MCP servers off the UI goroutine (none when they
// cannot be listed).
func (m *Model) fetchMCP() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		st, err := src.MCPServers(ctx)
		if err != nil {
			return mcpMsg{}
		}
		return mcpMsg{servers: st}
	}
}

// New builds the page.
func New(c *common.Common, src Source) *Model { return &Model{c: c, src: src} }

// Title implements common.Page.
func (m *Model) Title() string { return "Home" }

// Capturing implements common.Page.
func (m *Model) Capturing() bool { return false }

// Init implements common.Component.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.c.FetchSummary(m.src), m.fetchWork(), m.fetchTeam(), m.fetchMCP())
}

// teamMsg carries the team state.
type teamMsg struct{ st engine.TeamStatus }

// fetchTeam reads the team state off the UI goroutine (nil when the
// workspace has not joined a team).
func (m *Model) fetchTeam() tea.Cmd {
	if m.src == nil || !m.src.Config().Team.Joined() {
		return nil
	}
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		st, err := src.TeamStatus(ctx)
		if err != nil {
			return nil
		}
		return teamMsg{st: st}
	}
}

// workMsg carries the running builds (none when they cannot be listed:
// the summary still counts them).
type workMsg struct {
	builds []build.Build
}

// fetchWork lists running builds off the UI goroutine.
func (m *Model) fetchWork() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		var w workMsg
		bs, err := src.ListBuilds(ctx)
		if err == nil {
			for _, b := range bs {
				if b.Status == build.StatusRunning || b.Active {
					w.builds = append(w.builds, b)
				}
			}
		}
		return w
	}
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case common.SummaryMsg:
		if msg.Err != nil {
			m.sumErr = msg.Err
			return m, nil
		}
		s := msg.Summary
		m.summary, m.sumErr = &s, nil
	case workMsg:
		m.work = &msg
	case teamMsg:
		st := msg.st
		m.team = &st
	case mcpMsg:
		m.mcp = msg.servers
	case common.OllamaMsg:
		st := msg.Status
		m.ollama = &st
	case common.EventMsg:
		m.record(msg.Event)
		if msg.Event.Type == engine.EventChanged || msg.Event.Type == engine.EventDone || msg.Event.Type == engine.EventTask ||
			msg.Event.Type == engine.EventFailed || msg.Event.Type == engine.EventNeedsApproval {
			// Coalesce bursts of changes into one refresh.
			m.seq++
			return m, common.Debounce(150*time.Millisecond, refreshMsg{seq: m.seq})
		}
	case refreshMsg:
		if msg.seq == m.seq {
			return m, tea.Batch(m.c.FetchSummary(m.src), m.fetchWork(), m.fetchTeam())
		}
	case tea.KeyPressMsg:
		if key.Matches(msg, m.c.KeyMap.Refresh) {
			return m, tea.Batch(m.c.FetchSummary(m.src), m.c.FetchOllama(m.src), m.fetchWork(), m.fetchTeam(), m.fetchMCP())
		}
	}
	return m, nil
}

// View implements common.Component.
func (m *Model) View() string {
	s := m.c.Styles
	if m.width <= 0 {
		return ""
	}
	info := m.src.Info()
	cfg := m.src.Config()
	// lipgloss v2 widths include borders and padding.
	wide := m.width >= 110
	colW, colW2 := m.width, m.width
	if wide {
		colW = (m.width - 1) / 2
		colW2 = m.width - 1 - colW
	}
	if m.compact() {
		return m.compactView()
	}

	// Workspace panel.
	var ws strings.Builder
	ws.WriteString(s.PanelTitleActive.Render("Workspace") + "\n")
	ws.WriteString(s.Bold.Render(common.Truncate(filepath.Base(info.Root), colW-4)) + "  " + s.Muted.Render(common.Truncate(info.Root, max(0, colW-8-len(filepath.Base(info.Root))))) + "\n")
	ws.WriteString(kv(s, "tier", cfg.Tier) + "   " + kv(s, "autonomy", fmt.Sprintf("%d", cfg.Autonomy)) + "   " + kv(s, "theme", s.Name) + "\n")
	dbLine := kv(s, "database", ".nova/nova.db")
	if m.summary != nil {
		dbLine += s.Subtle.Render(fmt.Sprintf(" · schema %d", m.summary.SchemaVersion))
	}
	if info.ReadOnly {
		dbLine += " " + s.BadgeWarn.Render("read-only")
	}
	ws.WriteString(dbLine)
	for _, o := range info.Overrides {
		ws.WriteString("\n" + s.Subtle.Render(fmt.Sprintf("%s overrides %s", o.Env, o.Field)))
	}
	if line := m.teamLine(colW - 4); line != "" {
		ws.WriteString("\n" + line)
	}
	wsPanel := s.Panel.Width(colW).Render(ws.String())

	olPanel := s.Panel.Width(colW2).Render(m.ollamaView(colW2 - 4))

	top := lipgloss.JoinVertical(lipgloss.Left, wsPanel, olPanel)
	if wide {
		h := max(lipgloss.Height(wsPanel), lipgloss.Height(olPanel))
		wsPanel = s.Panel.Width(colW).Height(h).Render(ws.String())
		olPanel = s.Panel.Width(colW2).Height(h).Render(m.ollamaView(colW2 - 4))
		top = lipgloss.JoinHorizontal(lipgloss.Top, wsPanel, " ", olPanel)
	}

	cards := m.cardsView()
	next := m.nextStepsView()
	return m.withActivity(lipgloss.JoinVertical(lipgloss.Left, top, cards, next))
}

// compact is the layout of short screens (an 80×24 terminal): the
// workspace and Ollama each take two lines, so the activity still fits.
func (m *Model) compact() bool { return m.height < 30 }

func (m *Model) compactView() string {
	s := m.c.Styles
	info := m.src.Info()
	cfg := m.src.Config()
	inner := m.width - 4
	name := filepath.Base(info.Root)
	ws := s.PanelTitleActive.Render("Workspace") + " " + s.Bold.Render(common.Truncate(name, inner/3)) + "  " +
		s.Muted.Render(common.Truncate(info.Root, max(0, inner-12-min(len(name), inner/3))))
	facts := kv(s, "tier", cfg.Tier) + "  " + kv(s, "autonomy", fmt.Sprintf("%d", cfg.Autonomy)) + "  " + kv(s, "theme", s.Name) + "  " + kv(s, "database", ".nova/nova.db")
	if m.summary != nil {
		facts += s.Subtle.Render(fmt.Sprintf(" · schema %d", m.summary.SchemaVersion))
	}
	if info.ReadOnly {
		facts += " " + s.BadgeWarn.Render("read-only")
	}
	if m.team != nil && m.team.Joined {
		// The team state matters more than where the database is.
		facts = kv(s, "tier", cfg.Tier) + "  " + kv(s, "autonomy", fmt.Sprintf("%d", cfg.Autonomy)) + "  " + m.teamLine(inner)
	}
	wsPanel := s.Panel.Width(m.width).Render(ansi.Truncate(ws, inner, "…") + "\n" + ansi.Truncate(facts, inner, "…"))
	olPanel := s.Panel.Width(m.width).Render(m.ollamaCompact(inner))
	return m.withActivity(lipgloss.JoinVertical(lipgloss.Left, wsPanel, olPanel, m.cardsView(), m.nextStepsView()))
}

// ollamaCompact is Ollama's state in two lines.
func (m *Model) ollamaCompact(w int) string {
	s := m.c.Styles
	if m.ollama != nil && len(m.ollama.Hosts) > 0 {
		return m.hostsCompact(w)
	}
	title := s.PanelTitleActive.Render("Ollama") + " "
	switch {
	case m.ollama == nil:
		return title + s.Muted.Render("checking "+m.src.Config().Ollama.Host+" …") + "\n"
	case !m.ollama.Reachable:
		return ansi.Truncate(title+s.BadgeErr.Render("offline")+" "+s.Muted.Render(m.ollama.Host), w, "…") + "\n" +
			s.Text.Render(common.Truncate("Start it with `ollama serve`, or set OLLAMA_HOST. Vault, imports and reviews need no model.", w))
	}
	head := title + s.BadgeOK.Render("online") + " " + s.Muted.Render(fmt.Sprintf("v%s · %s · %s", m.ollama.Version, m.ollama.Host, plural(len(m.ollama.Models), "model", "models")))
	var tiers []string
	var pull string
	for _, t := range m.ollama.Tiers {
		mark := s.Success.Render("✓")
		switch {
		case t.Installed:
		case t.Optional:
			mark = s.Warning.Render("○")
		default:
			mark = s.Error.Render("✗")
			if pull == "" {
				pull = "ollama pull " + t.Model
			}
		}
		tiers = append(tiers, mark+" "+s.Muted.Render(t.Tier))
	}
	line := strings.Join(tiers, "  ")
	if pull != "" {
		line += s.Subtle.Render("  · " + pull)
	}
	return ansi.Truncate(head, w, "…") + "\n" + ansi.Truncate(line, w, "…")
}

// hostsCompact is the model hosts in two lines: each host's mark and load,
// then the tiers.
func (m *Model) hostsCompact(w int) string {
	s := m.c.Styles
	var hosts []string
	for _, h := range m.ollama.Hosts {
		addr := strings.TrimPrefix(strings.TrimPrefix(h.URL, "http://"), "https://")
		if h.Up {
			hosts = append(hosts, s.Success.Render("●")+" "+s.Text.Render(addr)+s.Muted.Render(fmt.Sprintf(" %d/%d", h.InFlight, h.Slots)))
		} else {
			hosts = append(hosts, s.Error.Render("✗")+" "+s.Text.Render(addr)+s.Error.Render(" down"))
		}
	}
	head := s.PanelTitleActive.Render("Hosts") + " " + strings.Join(hosts, "  ")
	var tiers []string
	for _, t := range m.ollama.Tiers {
		mark := s.Success.Render("✓")
		switch {
		case t.Installed:
		case t.Optional:
			mark = s.Warning.Render("○")
		default:
			mark = s.Error.Render("✗")
		}
		tiers = append(tiers, mark+" "+s.Muted.Render(t.Tier))
	}
	return ansi.Truncate(head, w, "…") + "\n" + ansi.Truncate(strings.Join(tiers, "  "), w, "…")
}

// withActivity adds the activity feed under body when there is room.
func (m *Model) withActivity(body string) string {
	if room := m.height - lipgloss.Height(body); room >= 4 {
		body = lipgloss.JoinVertical(lipgloss.Left, body, m.activityView(room))
	}
	return common.FitHeight(body, m.height)
}

// activityView lists recent engine events, newest first.
func (m *Model) activityView(h int) string {
	s := m.c.Styles
	title := s.PanelTitleActive.Render("Activity")
	rows := h - 3
	var lines []string
	for i := len(m.activity) - 1; i >= 0 && len(lines) < rows; i-- {
		a := m.activity[i]
		text := a.text
		if a.times > 1 {
			text += fmt.Sprintf(" (×%d)", a.times)
		}
		lines = append(lines, s.Subtle.Render(a.at.Format("15:04:05"))+"  "+s.Text.Render(common.Truncate(text, m.width-16)))
	}
	if len(lines) == 0 {
		lines = append(lines, s.Muted.Render(common.Truncate("Nothing has happened yet in this session. Builds, imports and approvals show up here.", m.width-4)))
	}
	return s.Panel.Width(m.width).Height(h).Render(title + "\n" + strings.Join(lines, "\n"))
}

type activity struct {
	at    time.Time
	text  string
	times int // the same line again and again counts here
}

// maxActivity bounds the feed kept in memory.
const maxActivity = 200

func (m *Model) record(ev engine.Event) {
	text := describe(ev)
	if text == "" {
		return
	}
	at := ev.Time
	if at.IsZero() {
		at = time.Now()
	}
	// The same event delivered twice (the same line at the same time) is
	// shown once; the same line again shortly after (a run and its build
	// task, a retry) is one line that counts.
	for i := len(m.activity) - 1; i >= 0 && i >= len(m.activity)-activityMerge; i-- {
		a := &m.activity[i]
		if a.text != text {
			continue
		}
		if a.at.Equal(at) {
			return
		}
		if d := at.Sub(a.at); d > -activityWindow && d < activityWindow {
			a.times++
			if at.After(a.at) {
				a.at = at
				m.sortActivity(i)
			}
			return
		}
	}
	// Events from several processes or sources may arrive out of order:
	// the feed stays in the order they happened.
	m.activity = append(m.activity, activity{at: at, text: text, times: 1})
	m.sortActivity(len(m.activity) - 1)
	if len(m.activity) > maxActivity {
		m.activity = m.activity[len(m.activity)-maxActivity:]
	}
}

// Merging: the same line within activityWindow among the last activityMerge
// lines is one line.
const (
	activityMerge  = 8
	activityWindow = 5 * time.Second
)

// sortActivity moves the entry at i to its place by time (the rest is in
// order): later entries are shifted after it, earlier ones before.
func (m *Model) sortActivity(i int) {
	for i > 0 && m.activity[i-1].at.After(m.activity[i].at) {
		m.activity[i-1], m.activity[i] = m.activity[i], m.activity[i-1]
		i--
	}
	for i < len(m.activity)-1 && m.activity[i+1].at.Before(m.activity[i].at) {
		m.activity[i+1], m.activity[i] = m.activity[i], m.activity[i+1]
		i++
	}
}

// teamLine is the team state in one line ("" when not in a team).
func (m *Model) teamLine(w int) string {
	if m.team == nil || !m.team.Joined {
		return ""
	}
	s, t := m.c.Styles, m.team
	link := s.BadgeOK.Render("online")
	if !t.Connected {
		link = s.BadgeWarn.Render("offline")
	}
	lag := "?"
	if t.LagKnown {
		lag = fmt.Sprint(t.Lag)
	}
	line := kv(s, "team", t.Team) + " " + link + s.Muted.Render(fmt.Sprintf(" · %s · lag %s · outbox %d · %d shared",
		plural(len(t.Members), "member", "members"), lag, t.Outbox, t.Shared.Patterns+t.Shared.Facts+t.Shared.Rules+t.Shared.Nodes))
	if t.RefusedTotal > 0 {
		line += " " + s.BadgeWarn.Render(fmt.Sprintf("%d refused", t.RefusedTotal))
	}
	if !t.Member {
		line += " " + s.Subtle.Render("(not a member yet)")
	}
	return ansi.Truncate(line, w, "…")
}

// teamKinds names what a teammate's record shares.
var teamKinds = map[string]string{
	"wisdom.back": "backs a pattern", "wisdom.harm": "reports a pattern as harmful", "fact": "shared a fact",
	"fact.correct": "corrected a fact", "rule": "shared a rule", "vault.node": "shared a node",
}

// describe turns an event into one line for the feed ("" to skip).
func describe(ev engine.Event) string {
	switch ev.Type {
	case engine.EventTeamRecord:
		what := teamKinds[ev.Op]
		if what == "" {
			what = "shared " + ev.Op
		}
		return fmt.Sprintf("team · %s %s: %s", ev.Status, what, firstLine(ev.Text))
	case engine.EventDelta, engine.EventProgress, engine.EventOllama:
		return ""
	case engine.EventThemeChanged:
		return "theme switched to " + ev.Text
	case engine.EventBudgetWarning:
		return "⚠ budget: " + ev.Text
	case engine.EventTaskWaiting:
		return fmt.Sprintf("build %s · %s waits: %s", ev.BuildID, ev.TaskID, ev.Text)
	case engine.EventTaskAsking:
		return fmt.Sprintf("build %s · %s asks you: %s (answer on the Build screen, alt+6)", ev.BuildID, ev.TaskID, ev.Text)
	case engine.EventTaskEscalated:
		return fmt.Sprintf("build %s · %s", ev.BuildID, ev.Text)
	case engine.EventNodesArchived, engine.EventNodesNotStored:
		return "vault: " + ev.Text
	case engine.EventTask:
		if ev.Status == "waiting" {
			return "" // taskWaiting / taskAsking say it, with the reason
		}
	case engine.EventChanged:
		if ev.Topic == engine.TopicBuild && ev.Status == "waiting" {
			return "" // the build-level echo of a task's wait
		}
		if ev.Topic == engine.TopicTeam {
			return "" // each teammate's record has its own line
		}
	}
	var parts []string
	if ev.Topic != "" {
		parts = append(parts, string(ev.Topic))
	}
	if ev.TaskID != "" {
		parts = append(parts, ev.TaskID)
	}
	if ev.Status != "" {
		parts = append(parts, ev.Status)
	} else {
		parts = append(parts, string(ev.Type))
	}
	if t := firstLine(ev.Text); t != "" {
		parts = append(parts, "— "+t)
	}
	return strings.Join(parts, " ")
}

// firstLine is one line of an event's text for the feed: agent output can
// be pages of markdown, the feed shows its first line without the markup.
func firstLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#>*-+` "))
		l = strings.NewReplacer("**", "", "__", "", "`", "").Replace(l)
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			if r := []rune(l); len(r) > 160 {
				l = string(r[:159]) + "…"
			}
			return l
		}
	}
	return ""
}

func kv(s *themes.Styles, k, v string) string { return s.Muted.Render(k+" ") + s.Text.Render(v) }

// maxHostLines bounds the hosts listed in the hosts panel.
const maxHostLines = 4

// hostsView is the model hosts of the configured providers: one line per
// host (up or down, provider, address, models, loaded models, load), then
// the tiers.
func (m *Model) hostsView(w int) string {
	s := m.c.Styles
	var b strings.Builder
	up := 0
	for _, h := range m.ollama.Hosts {
		if h.Up {
			up++
		}
	}
	b.WriteString(s.PanelTitleActive.Render("Model hosts") + " " + s.Muted.Render(fmt.Sprintf("%d of %d up", up, len(m.ollama.Hosts))))
	for i, h := range m.ollama.Hosts {
		if i == maxHostLines {
			b.WriteString("\n" + s.Subtle.Render(fmt.Sprintf("… %d more (nova doctor lists them)", len(m.ollama.Hosts)-maxHostLines)))
			break
		}
		b.WriteString("\n" + ansi.Truncate(hostLine(s, h), w, "…"))
	}
	for _, t := range m.ollama.Tiers {
		mark := s.Success.Render("✓")
		if !t.Installed {
			mark = s.Error.Render("✗")
			if t.Optional {
				mark = s.Warning.Render("○")
			}
		}
		b.WriteString("\n" + ansi.Truncate(mark+" "+s.Muted.Render(fmt.Sprintf("%-6s", t.Tier))+" "+s.Text.Render(t.Model), w, "…"))
	}
	return b.String()
}

// hostLine is one host: "● local 127.0.0.1:11434  2 models · load 1/1 · qwen2.5-coder:7b".
func hostLine(s *themes.Styles, h engine.HostStatus) string {
	addr := strings.TrimPrefix(strings.TrimPrefix(h.URL, "http://"), "https://")
	if !h.Up {
		return s.Error.Render("✗") + " " + s.Muted.Render(h.Provider) + " " + s.Text.Render(addr) + "  " + s.Error.Render("down")
	}
	load := s.Muted.Render(fmt.Sprintf("load %d/%d", h.InFlight, h.Slots))
	if h.InFlight >= h.Slots {
		load = s.Warning.Render(fmt.Sprintf("load %d/%d", h.InFlight, h.Slots))
	}
	line := s.Success.Render("●") + " " + s.Muted.Render(h.Provider) + " " + s.Text.Render(addr) + "  " +
		s.Muted.Render(plural(len(h.Models), "model", "models")+" · ") + load
	if len(h.Loaded) > 0 && h.Type == "ollama" {
		line += s.Subtle.Render(" · " + strings.Join(h.Loaded, ", "))
	}
	return line
}

func (m *Model) ollamaView(w int) string {
	if line := m.mcpLine(w); line != "" {
		return m.modelView(w) + "\n" + line
	}
	return m.modelView(w)
}

// mcpLine is the MCP servers and their state in one line ("" without
// servers): ready with its tool count, not started (it starts on first
// use), failed or closed.
func (m *Model) mcpLine(w int) string {
	if len(m.mcp) == 0 {
		return ""
	}
	s := m.c.Styles
	parts := []string{s.PanelTitleActive.Render("MCP")}
	for _, st := range m.mcp {
		switch st.State {
		case mcp.StateFailed:
			parts = append(parts, s.Error.Render("✗")+" "+s.Text.Render(st.Name)+" "+s.Error.Render("failed"))
		case mcp.StateReady:
			parts = append(parts, s.Success.Render("●")+" "+s.Text.Render(st.Name)+" "+s.Muted.Render(plural(st.Tools, "tool", "tools")))
		default:
			parts = append(parts, s.Muted.Render("○")+" "+s.Text.Render(st.Name)+" "+s.Muted.Render(string(st.State)))
		}
	}
	return ansi.Truncate(strings.Join(parts, "  "), w, "…")
}

func (m *Model) modelView(w int) string {
	s := m.c.Styles
	if m.ollama != nil && len(m.ollama.Hosts) > 0 {
		return m.hostsView(w)
	}
	var b strings.Builder
	b.WriteString(s.PanelTitleActive.Render("Ollama") + "\n")
	switch {
	case m.ollama == nil:
		b.WriteString(s.Muted.Render("checking " + m.src.Config().Ollama.Host + " …"))
	case !m.ollama.Reachable:
		b.WriteString(s.BadgeErr.Render("offline") + " " + s.Muted.Render(common.Truncate(m.ollama.Host, w-10)) + "\n")
		b.WriteString(s.Text.Render(common.Truncate("Start it with `ollama serve`, or set OLLAMA_HOST.", w)) + "\n")
		b.WriteString(s.Subtle.Render("nova works offline: vault, imports and reviews need no model."))
	default:
		b.WriteString(s.BadgeOK.Render("online") + " " + s.Muted.Render(common.Truncate(fmt.Sprintf("v%s · %s · %s", m.ollama.Version, m.ollama.Host, plural(len(m.ollama.Models), "model", "models")), w-10)))
		for _, t := range m.ollama.Tiers {
			mark := s.Success.Render("✓")
			note := ""
			if !t.Installed {
				mark = s.Error.Render("✗")
				note = s.Subtle.Render("  ollama pull " + t.Model)
				if t.Optional {
					mark = s.Warning.Render("○")
				}
			}
			b.WriteString("\n" + ansi.Truncate(mark+" "+s.Muted.Render(fmt.Sprintf("%-6s", t.Tier))+" "+s.Text.Render(common.Truncate(t.Model, w-10))+note, w, "…"))
		}
	}
	return b.String()
}

func (m *Model) cardsView() string {
	s := m.c.Styles
	type card struct {
		label string
		value int
		hint  string
	}
	val := func(f func(*engine.Summary) int) int {
		if m.summary == nil {
			return -1
		}
		return f(m.summary)
	}
	cards := []card{
		{"vault nodes", val(func(x *engine.Summary) int { return x.VaultNodes }), "taste vault"},
		{"playbooks", val(func(x *engine.Summary) int { return x.Playbooks }), "per agent"},
		{"builds", val(func(x *engine.Summary) int { return x.Builds }), "build plans run"},
		{"approvals", val(func(x *engine.Summary) int { return x.PendingApprovals }), "waiting for you"},
		{"facts", val(func(x *engine.Summary) int { return x.Facts }), "knowledge · alt+9"},
	}
	docs := val(func(x *engine.Summary) int { return x.Docs })
	if docs >= 0 {
		cards[len(cards)-1].hint = fmt.Sprintf("%d docs · alt+9", docs)
	}
	// The library's card (workflow runs, blueprints in its hint) joins the
	// cards when every label and hint still fits whole (from 114 columns);
	// short screens get its counts in the strip instead.
	runs := val(func(x *engine.Summary) int { return x.WorkflowRuns })
	bps := val(func(x *engine.Summary) int { return x.Blueprints })
	if m.height >= 34 {
		hint := "library"
		if bps >= 0 {
			hint = plural(bps, "blueprint", "blueprints")
		}
		lib := card{"workflow runs", runs, hint}
		need := 0
		for _, c := range append(slices.Clone(cards), lib) {
			need = max(need, ansi.StringWidth(c.label), ansi.StringWidth(c.hint))
		}
		if m.width/(len(cards)+1)-4 >= need {
			cards = append(cards, lib)
		}
	}
	if m.height < 34 {
		// Short screens get one strip instead of cards; the docs count
		// joins it when it fits.
		var parts []string
		for _, c := range cards {
			v := "…"
			if c.value >= 0 {
				v = fmt.Sprintf("%d", c.value)
			}
			st := s.Title
			if c.label == "approvals" && c.value > 0 {
				st = s.Accent.Bold(true)
			}
			parts = append(parts, st.Render(v)+" "+s.Text.Render(cardLabel(c.label, c.value)))
		}
		sep := s.Subtle.Render("  ·  ")
		inner := m.width - 4 // border and padding
		// Then the docs and the library's counts, each when it fits.
		for _, extra := range []struct {
			n         int
			one, many string
		}{{docs, "doc", "docs"}, {runs, "workflow run", "workflow runs"}, {bps, "blueprint", "blueprints"}} {
			if extra.n < 0 {
				continue
			}
			word := extra.many
			if extra.n == 1 {
				word = extra.one
			}
			more := append(parts, s.Title.Render(fmt.Sprintf("%d", extra.n))+" "+s.Text.Render(word))
			if lipgloss.Width(strings.Join(more, sep)) > inner {
				break
			}
			parts = more
		}
		return s.Panel.Width(m.width).Render(ansi.Truncate(strings.Join(parts, sep), inner, "…"))
	}
	n := len(cards)
	var out []string
	for i, c := range cards {
		cw := m.width / n
		if i == n-1 {
			cw = m.width - cw*(n-1)
		}
		v := s.Muted.Render("…")
		if c.value >= 0 {
			st := s.Title
			if c.label == "approvals" && c.value > 0 {
				st = s.Accent.Bold(true)
			}
			v = st.Render(fmt.Sprintf("%d", c.value))
		}
		content := v + "\n" + s.Text.Render(cardLabel(c.label, c.value)) + "\n" + s.Subtle.Render(common.Truncate(c.hint, cw-4))
		out = append(out, s.Panel.Width(cw).Render(content))
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, out...)
}

// cardLabel is a count's label in the singular for one ("1 build").
func cardLabel(label string, n int) string {
	if n != 1 {
		return label
	}
	switch label {
	case "vault nodes":
		return "vault node"
	case "approvals":
		return "approval"
	}
	return strings.TrimSuffix(label, "s")
}

// plural is "1 build", "2 builds".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (m *Model) nextStepsView() string {
	s := m.c.Styles
	if m.sumErr != nil {
		return s.Panel.Width(m.width).Render(s.Error.Render("Could not read the workspace: " + m.sumErr.Error()))
	}
	if m.summary == nil {
		return ""
	}
	lines := m.nowLines()
	if m.summary.VaultNodes == 0 {
		lines = append(lines, "• The vault is empty. Import a pattern library: "+s.Key.Render("ctrl+p")+" → Import, or `nova import DIR`.")
	}
	if m.summary.Builds == 0 {
		lines = append(lines, "• No builds yet. Start one from .nova/prds/ on the Build screen ("+s.Key.Render("alt+6")+", n) or with `nova build run PRD`.")
	}
	if m.ollama != nil && !m.ollama.Reachable {
		lines = append(lines, "• Ollama is offline: a build waits for it and goes on by itself once it answers; an agent run started now fails at once.")
	}
	if len(lines) == 0 {
		lines = append(lines, "• All caught up. "+s.Key.Render("ctrl+p")+" lists everything you can do.")
	}
	title := s.PanelTitleActive.Render("Now & next steps")
	// Lines wrap (a cut line would lose its point) with a hanging indent.
	body := make([]string, 0, len(lines))
	w := m.width - 4
	for _, l := range lines {
		for i, x := range strings.Split(lipgloss.Wrap(s.Text.Render(l), w-2, " "), "\n") {
			if i > 0 {
				x = "  " + strings.TrimLeft(x, " ")
			}
			body = append(body, ansi.Truncate(x, w, "…"))
		}
	}
	return s.Panel.Width(m.width).Render(title + "\n" + strings.Join(body, "\n"))
}

// nowLines are the running builds and what waits for approval, first in
// the next-steps panel.
func (m *Model) nowLines() []string {
	s := m.c.Styles
	var lines []string
	var builds []build.Build
	pb := 0
	if m.work != nil {
		builds = m.work.builds
	}
	if m.summary != nil {
		pb = m.summary.PendingDeltas
	}
	maxBuilds := 3
	if m.height < 34 {
		maxBuilds = 1
	}
	for i, b := range builds {
		if i == maxBuilds {
			lines = append(lines, s.Subtle.Render(fmt.Sprintf("  … %d more running builds on the Build screen", len(builds)-maxBuilds)))
			break
		}
		lines = append(lines, s.Warning.Render("◐")+s.Text.Render(fmt.Sprintf(" Build %d %q is running: %d/%d tasks done — ", b.ID, b.Name, b.Counts[build.TaskDone], b.Total))+
			s.Key.Render("alt+6"))
	}
	if len(builds) == 0 && m.summary != nil && m.summary.RunningBuilds > 0 {
		lines = append(lines, s.Warning.Render("◐")+s.Text.Render(" "+plural(m.summary.RunningBuilds, "build", "builds")+" running — ")+s.Key.Render("alt+6"))
	}
	if n := m.summary.PendingApprovals; n > 0 || pb > 0 {
		n = max(n, pb)
		verb := "waits"
		if n != 1 {
			verb = "wait"
		}
		line := s.Accent.Render("◆") + s.Text.Render(" "+plural(n, "approval", "approvals")+" "+verb+" for you: ")
		var where []string
		if other := n - pb; other > 0 {
			where = append(where, s.Text.Render(plural(other, "change or rehearsal", "changes or rehearsals")+" ")+s.Key.Render("alt+5/alt+8"))
		}
		if pb > 0 {
			where = append(where, s.Text.Render(plural(pb, "playbook delta", "playbook deltas")+" ")+s.Key.Render("alt+7"))
		}
		lines = append(lines, line+strings.Join(where, s.Subtle.Render(" · ")))
	}
	if n := m.summary.WorkflowRunsWaiting; n > 0 {
		verb := "waits"
		if n != 1 {
			verb = "wait"
		}
		lines = append(lines, s.Warning.Render("◐")+s.Text.Render(" "+plural(n, "workflow run", "workflow runs")+" "+verb+" to be resumed: Runs on the Library screen, R — ")+
			s.Key.Render("alt+l"))
	}
	return lines
}
