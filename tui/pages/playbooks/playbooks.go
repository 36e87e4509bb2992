// Package playbooks is the Playbooks screen: every agent's playbook (version,
// rule count, success rate), its rules (filter with /, sort with o, add,
// edit and delete by hand), its version history with what changed between
// versions, and the queue of pending deltas the curator left for a human
// (approve with enter, reject with x after a confirmation).
//
// Like the vault page it is composed of components that own their state
// and view: the agent list on the left; the rules, history and pending
// panes on the right (tab cycles them); the rule form and the confirmation
// as dialogs. The page loads data in tea.Cmds, routes keys and runs the
// actions.
package playbooks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
)

// ID is the router id of the page.
const ID = "playbooks"

type view uint8

const (
	viewRules view = iota
	viewHistory
	viewPending
)

func (v view) String() string {
	switch v {
	case viewHistory:
		return "History"
	case viewPending:
		return "Pending"
	}
	return "Rules"
}

type listMsg struct {
	summaries []ace.Summary
	roster    []string
	err       error
}

type playbookMsg struct {
	agent   string
	pb      ace.Playbook
	history []ace.Version
	err     error
}

type pendingMsg struct {
	items []ace.Pending
	rules map[uint64]string // pending id -> current text of the rule it updates or removes
	err   error
}

type actionMsg struct {
	what string
	err  error
}

type refreshMsg struct{ seq int }

type findMsg struct{ agent string }

// Model is the Playbooks page.
type Model struct {
	c      *common.Common
	keys   keyMap
	src    Source
	width  int
	height int
	now    func() time.Time

	agents  *agentList
	rules   *rulesPane
	history *historyPane
	pending *pendingPane
	form    *ruleForm // nil when closed
	confirm *confirm.Model

	right    bool // focus on the right panel
	view     view
	wantRule string // select this rule once loaded (NavigateMsg)
	seq      int
	under    common.ViewCache // the page under an open dialog
}

// New builds the page over src (the workspace, or a test's fake).
func New(c *common.Common, src Source) *Model {
	return &Model{c: c, keys: newKeyMap(), src: src, now: c.Clock(),
		agents: &agentList{c: c}, rules: newRulesPane(c), history: &historyPane{c: c}, pending: &pendingPane{c: c},
		confirm: confirm.New(c)}
}

// SetClock fixes the page's clock (golden tests).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// Title implements common.Page.
func (m *Model) Title() string { return "Playbooks" }

// Capturing implements common.Page: typing a filter or a rule, and
// dialogs, own the keyboard.
func (m *Model) Capturing() bool { return m.rules.filterOn || m.form != nil || m.confirm.Active() }

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.loadList(), m.loadPending()) }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.confirm.SetSize(w, h)
	m.rules.filter.SetWidth(max(10, w/2))
	if m.form != nil {
		m.form.setWidth(m.formWidth())
	}
}

var errNoPlaybooks = errors.New("this workspace has no playbook engine")

// ---- data ------------------------------------------------------------------

func (m *Model) loadList() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		if src == nil {
			return listMsg{err: errNoPlaybooks}
		}
		sums, err := src.ListPlaybooks(ctx)
		if err != nil {
			return listMsg{err: err}
		}
		var roster []string
		if r, err := src.ListAgents(ctx); err == nil { // no roster: only the playbooks
			roster = r.IDs()
		}
		return listMsg{summaries: sums, roster: roster}
	}
}

func (m *Model) loadPlaybook() tea.Cmd {
	a, ok := m.agents.selected()
	if !ok || m.src == nil {
		return nil
	}
	src, ctx, agent := m.src, m.c.Ctx, a.Agent
	return func() tea.Msg {
		pb, err := src.GetPlaybook(ctx, agent)
		if err != nil && !errors.Is(err, ace.ErrNotFound) {
			return playbookMsg{agent: agent, err: err}
		}
		h, err := src.PlaybookHistory(ctx, agent)
		if err != nil && !errors.Is(err, ace.ErrNotFound) {
			return playbookMsg{agent: agent, err: err}
		}
		if pb.Agent == "" {
			pb.Agent = agent
		}
		return playbookMsg{agent: agent, pb: pb, history: h}
	}
}

func (m *Model) loadPending() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		if src == nil {
			return pendingMsg{err: errNoPlaybooks}
		}
		p, err := src.ListPendingDeltas(ctx)
		if err != nil {
			return pendingMsg{err: err}
		}
		rules := map[uint64]string{}
		books := map[string]*ace.Playbook{}
		for _, d := range p {
			if d.Delta.RuleID == "" {
				continue
			}
			pb, seen := books[d.Agent]
			if !seen {
				if b, err := src.GetPlaybook(ctx, d.Agent); err == nil {
					pb = &b
				}
				books[d.Agent] = pb
			}
			if pb != nil {
				if r, ok := pb.Rule(d.Delta.RuleID); ok {
					rules[d.ID] = r.Content
				}
			}
		}
		return pendingMsg{items: p, rules: rules}
	}
}

// findRule looks for m.wantRule in every agent's playbook, the shown agent
// first.
func (m *Model) findRule() tea.Cmd {
	src, ctx, want := m.src, m.c.Ctx, m.wantRule
	var agents []string
	if a, ok := m.agents.selected(); ok {
		agents = append(agents, a.Agent)
	}
	agents = append(agents, m.agents.withPlaybook()...)
	return func() tea.Msg {
		for _, a := range agents {
			pb, err := src.GetPlaybook(ctx, a)
			if err != nil {
				continue
			}
			if _, ok := pb.Rule(want); ok {
				return findMsg{agent: a}
			}
		}
		return findMsg{}
	}
}

func (m *Model) act(what string, f func() error) tea.Cmd {
	return func() tea.Msg { return actionMsg{what: what, err: f()} }
}

func (m *Model) reloadAll() tea.Cmd {
	return tea.Batch(m.loadList(), m.loadPending(), m.loadPlaybook())
}

// ---- update ----------------------------------------------------------------

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	m.under.Update(msg, m.form != nil || m.confirm.Active())
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case listMsg:
		return m, m.onList(msg)
	case playbookMsg:
		m.onPlaybook(msg)
		return m, nil
	case pendingMsg:
		m.pending.set(msg)
		return m, nil
	case actionMsg:
		return m, m.onAction(msg)
	case findMsg:
		if msg.agent == "" || !m.agents.choose(msg.agent) {
			m.wantRule = ""
		}
		return m, m.loadPlaybook()
	case refreshMsg:
		if msg.seq == m.seq {
			return m, m.reloadAll()
		}
		return m, nil
	case confirm.ResultMsg:
		return m, m.confirmed(msg)
	case common.EventMsg:
		return m, m.onEvent(msg.Event)
	case common.NavigateMsg:
		return m, m.onNavigate(msg)
	}
	// Cursor blinks and the like.
	cmd := m.rules.update(msg)
	if m.form != nil {
		cmd = tea.Batch(cmd, m.form.update(msg))
	}
	return m, cmd
}

func (m *Model) onList(msg listMsg) tea.Cmd {
	m.agents.loaded, m.agents.err = true, msg.err
	if msg.err != nil {
		return nil
	}
	m.agents.set(msg.summaries, msg.roster)
	if m.wantRule != "" {
		return m.findRule()
	}
	return m.loadPlaybook()
}

func (m *Model) onPlaybook(msg playbookMsg) {
	a, ok := m.agents.selected()
	if !ok || a.Agent != msg.agent {
		return
	}
	newAgent := m.rules.agent != msg.agent
	pb := msg.pb
	m.rules.set(msg.agent, &pb, msg.err)
	m.history.set(msg.history, msg.err, newAgent)
	if msg.err == nil && m.wantRule != "" {
		if m.rules.choose(m.wantRule) {
			m.view, m.right = viewRules, true
		}
		m.wantRule = ""
	}
}

func (m *Model) onAction(msg actionMsg) tea.Cmd {
	if msg.err != nil {
		if m.form != nil {
			m.form.err = msg.err.Error()
			return nil
		}
		return tea.Batch(common.Failure(fmt.Errorf("%s: %w", msg.what, msg.err)), m.reloadAll())
	}
	m.form = nil
	return tea.Batch(common.Toast(msg.what), m.reloadAll())
}

func (m *Model) onEvent(ev engine.Event) tea.Cmd {
	if ev.Type == engine.EventDelta || ev.Type == engine.EventProgress {
		return nil
	}
	if ev.Topic == engine.TopicPlaybooks || (ev.Topic == engine.TopicBuild && (ev.Type == engine.EventDone || ev.Type == engine.EventFailed || ev.Type == engine.EventTask)) {
		m.seq++
		return common.Debounce(200*time.Millisecond, refreshMsg{seq: m.seq})
	}
	return nil
}

func (m *Model) onNavigate(msg common.NavigateMsg) tea.Cmd {
	if msg.Page != ID {
		return nil
	}
	id, ok := msg.Arg.(string)
	if !ok || id == "" {
		return nil
	}
	agent, rule := splitRuleRef(id)
	m.wantRule = rule
	m.rules.clearFilter()
	if agent != "" {
		m.agents.choose(agent)
		return m.loadPlaybook()
	}
	return m.findRule()
}

// splitRuleRef splits "AGENT/r3" (or "AGENT:r3") into agent and rule id.
func splitRuleRef(ref string) (agent, rule string) {
	if i := strings.LastIndexAny(ref, "/:#"); i > 0 && i < len(ref)-1 {
		return ref[:i], ref[i+1:]
	}
	return "", ref
}

// ---- keys ------------------------------------------------------------------

func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case m.confirm.Active():
		_, cmd := m.confirm.Update(k)
		return cmd
	case m.form != nil:
		return m.formKey(k)
	case m.rules.filterOn:
		return m.rules.keyFilter(k)
	}
	if cmd, ok := m.pageKey(k); ok {
		return cmd
	}
	if !m.right {
		if m.agents.key(k) {
			return m.loadPlaybook()
		}
		return nil
	}
	switch m.view {
	case viewRules:
		return m.rulesKey(k)
	case viewHistory:
		m.history.key(k)
	case viewPending:
		return m.pendingKey(k)
	}
	return nil
}

// pageKey handles the keys that work in every view.
func (m *Model) pageKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	km, k := m.c.KeyMap, m.keys
	switch {
	case key.Matches(msg, km.Refresh):
		return m.reloadAll(), true
	case key.Matches(msg, k.NextView):
		m.view, m.right = (m.view+1)%3, true
	case key.Matches(msg, k.PrevView):
		m.view, m.right = (m.view+2)%3, true
	case key.Matches(msg, k.Agents) && m.right:
		m.right = false
	case key.Matches(msg, k.Panel) && !m.right:
		m.right = true
	case key.Matches(msg, km.Back) && m.right:
		m.right = false
	case key.Matches(msg, k.Filter):
		m.view, m.right = viewRules, true
		return m.rules.startFilter(), true
	case key.Matches(msg, k.Sort):
		m.rules.nextSort()
	case key.Matches(msg, k.Add):
		if m.view == viewPending {
			m.view = viewRules
		}
		return m.openForm(nil), true
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) rulesKey(k tea.KeyPressMsg) tea.Cmd {
	r, ok := m.rules.selected()
	switch {
	case key.Matches(k, m.keys.Edit):
		if ok {
			return m.openForm(&r)
		}
	case key.Matches(k, m.keys.Delete):
		if ok {
			m.confirm.Open(confirm.Options{ID: "delete-rule", Title: "Delete rule " + r.ID + "?",
				Body: common.Truncate(oneLine(r.Content), 180) + "\n\nThe playbook gets a new version; the rule stays in its history.",
				Yes:  "Delete", No: "Keep", Danger: true, Payload: [2]string{m.rules.agent, r.ID}})
		}
	default:
		m.rules.key(k)
	}
	return nil
}

func (m *Model) pendingKey(k tea.KeyPressMsg) tea.Cmd {
	p, ok := m.pending.selected()
	switch {
	case key.Matches(k, m.keys.Approve):
		if ok {
			src, ctx := m.src, m.c.Ctx
			return m.act(fmt.Sprintf("approved delta #%d for %s", p.ID, p.Agent), func() error {
				_, err := src.ApproveDelta(ctx, p.ID)
				return err
			})
		}
	case key.Matches(k, m.keys.Reject):
		if ok {
			m.confirm.Open(confirm.Options{ID: "reject-pending", Title: fmt.Sprintf("Reject delta #%d for %s?", p.ID, p.Agent),
				Body: string(p.Delta.Op) + ": " + common.Truncate(oneLine(m.pending.text(p)), 180) + "\n\nIt leaves the queue and is not applied.",
				Yes:  "Reject", No: "Keep", Danger: true, Payload: p.ID})
		}
	default:
		m.pending.key(k)
	}
	return nil
}

func (m *Model) confirmed(res confirm.ResultMsg) tea.Cmd {
	if !res.Confirmed {
		return nil
	}
	src, ctx := m.src, m.c.Ctx
	switch res.ID {
	case "delete-rule":
		ref, _ := res.Payload.([2]string)
		return m.act("deleted rule "+ref[1]+" of "+ref[0], func() error { return src.DeleteRule(ctx, ref[0], ref[1]) })
	case "reject-pending":
		id, _ := res.Payload.(uint64)
		return m.act(fmt.Sprintf("rejected delta #%d", id), func() error {
			_, err := src.RejectDelta(ctx, id)
			return err
		})
	}
	return nil
}

func (m *Model) formWidth() int { return min(90, max(50, m.width-8)) }

func (m *Model) openForm(r *ace.Rule) tea.Cmd {
	a, ok := m.agents.selected()
	if !ok || m.src == nil {
		return nil
	}
	m.form = newRuleForm(m.c, a.Agent, r, m.formWidth())
	return m.form.focus()
}

func (m *Model) formKey(k tea.KeyPressMsg) tea.Cmd {
	cmd, save, cancel := m.form.key(k)
	switch {
	case cancel:
		m.form = nil
		return nil
	case save == nil:
		return cmd
	}
	src, ctx, e := m.src, m.c.Ctx, *save
	if e.ruleID == "" {
		return m.act("added a rule to "+e.agent, func() error {
			_, err := src.AddRule(ctx, e.agent, e.content, e.tags, ace.DefaultConfidence)
			return err
		})
	}
	return m.act("edited rule "+e.ruleID+" of "+e.agent, func() error {
		_, err := src.EditRule(ctx, e.agent, e.ruleID, e.content, e.tags, 0)
		return err
	})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
