// Package playbooks is the Playbooks screen: every agent's playbook (version,
// rule count, success rate), its rules (filter with /, sort with o, add,
// edit and delete by hand), its version history with what changed between
// versions, and the queue of pending deltas the curator left for a human
// (approve with enter, reject with x after a confirmation).
package playbooks

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
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

type sortKey uint8

const (
	sortConfidence sortKey = iota
	sortApplied
	sortSuccess
	sortNewest
	sortContent
	sortCount
)

func (k sortKey) String() string {
	return [...]string{"confidence", "applied", "success rate", "newest", "content"}[k]
}

// agentRow is one agent of the left list.
type agentRow struct {
	ace.Summary
	hasPlaybook bool
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

type formState struct {
	agent   string
	ruleID  string // "" = add
	content textinput.Model
	tags    textinput.Model
	field   int
	err     string
}

// Model is the Playbooks page.
type Model struct {
	c      *common.Common
	src    Source
	width  int
	height int
	now    func() time.Time

	agents  []agentRow
	listErr error
	loaded  bool
	sel     int
	right   bool // focus on the right panel
	view    view

	pb      *ace.Playbook
	history []ace.Version
	pbErr   error
	pbAgent string

	pending      []ace.Pending
	pendingRules map[uint64]string
	pendingErr   error

	rules    []ace.Rule // filtered and sorted
	ruleSel  int
	sortBy   sortKey
	filter   textinput.Model
	filterOn bool
	verSel   int
	pendSel  int

	wantRule string // select this rule once loaded (NavigateMsg)
	form     *formState
	confirm  *confirm.Model
	seq      int
}

// New builds the page over src (the workspace, or a test's fake).
func New(c *common.Common, src Source) *Model {
	f := textinput.New()
	f.Prompt = "/ "
	f.Placeholder = "filter rules (content, tag, source, id)"
	f.SetStyles(c.Styles.TextInput)
	return &Model{c: c, src: src, now: time.Now, filter: f, confirm: confirm.New(c)}
}

// SetClock fixes the page's clock (golden tests).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// Title implements common.Page.
func (m *Model) Title() string { return "Playbooks" }

// Capturing implements common.Page: typing a filter or a rule, and
// dialogs, own the keyboard.
func (m *Model) Capturing() bool { return m.filterOn || m.form != nil || m.confirm.Active() }

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.loadList(), m.loadPending()) }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.confirm.SetSize(w, h)
	m.filter.SetWidth(max(10, w/2))
	if m.form != nil {
		m.form.content.SetWidth(m.formWidth() - 12)
		m.form.tags.SetWidth(m.formWidth() - 12)
	}
}

var errNoPlaybooks = errors.New("this workspace has no playbook engine")

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
	a, ok := m.selectedAgent()
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

func (m *Model) act(what string, f func() error) tea.Cmd {
	return func() tea.Msg { return actionMsg{what: what, err: f()} }
}

func (m *Model) reloadAll() tea.Cmd {
	return tea.Batch(m.loadList(), m.loadPending(), m.loadPlaybook())
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case listMsg:
		m.loaded, m.listErr = true, msg.err
		if msg.err != nil {
			return m, nil
		}
		keep := ""
		if a, ok := m.selectedAgent(); ok {
			keep = a.Agent
		}
		m.agents = mergeAgents(msg.summaries, msg.roster)
		m.sel = 0
		for i, a := range m.agents {
			if a.Agent == keep {
				m.sel = i
			}
		}
		if m.wantRule != "" {
			return m, m.findRule()
		}
		return m, m.loadPlaybook()
	case playbookMsg:
		a, ok := m.selectedAgent()
		if !ok || a.Agent != msg.agent {
			return m, nil
		}
		m.pbErr = msg.err
		if msg.err == nil {
			pb := msg.pb
			if m.pbAgent != msg.agent {
				m.ruleSel, m.verSel = 0, 0
			}
			m.pb, m.history, m.pbAgent = &pb, msg.history, msg.agent
			m.applyFilter()
			if m.wantRule != "" {
				for i, r := range m.rules {
					if r.ID == m.wantRule {
						m.ruleSel, m.view, m.right = i, viewRules, true
					}
				}
				m.wantRule = ""
			}
		}
		return m, nil
	case pendingMsg:
		m.pendingErr = msg.err
		if msg.err == nil {
			m.pending, m.pendingRules = msg.items, msg.rules
			m.pendSel = min(m.pendSel, max(0, len(m.pending)-1))
		}
		return m, nil
	case actionMsg:
		if msg.err != nil {
			if m.form != nil {
				m.form.err = msg.err.Error()
				return m, nil
			}
			return m, tea.Batch(common.Failure(fmt.Errorf("%s: %w", msg.what, msg.err)), m.reloadAll())
		}
		m.form = nil
		return m, tea.Batch(common.Toast(msg.what), m.reloadAll())
	case findMsg:
		if msg.agent != "" {
			for i, a := range m.agents {
				if strings.EqualFold(a.Agent, msg.agent) {
					m.sel = i
				}
			}
		} else {
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
		ev := msg.Event
		if ev.Type == engine.EventDelta || ev.Type == engine.EventProgress {
			return m, nil
		}
		if ev.Topic == engine.TopicPlaybooks || (ev.Topic == engine.TopicBuild && (ev.Type == engine.EventDone || ev.Type == engine.EventFailed || ev.Type == engine.EventTask)) {
			m.seq++
			return m, common.Debounce(200*time.Millisecond, refreshMsg{seq: m.seq})
		}
		return m, nil
	case common.NavigateMsg:
		if msg.Page != ID {
			return m, nil
		}
		if id, ok := msg.Arg.(string); ok && id != "" {
			agent, rule := splitRuleRef(id)
			m.wantRule = rule
			m.filter.SetValue("")
			if agent != "" {
				for i, a := range m.agents {
					if strings.EqualFold(a.Agent, agent) {
						m.sel = i
					}
				}
				return m, m.loadPlaybook()
			}
			return m, m.findRule()
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	// Cursor blinks and the like.
	var cmd tea.Cmd
	if m.filterOn {
		m.filter, cmd = m.filter.Update(msg)
	}
	if m.form != nil {
		var c1, c2 tea.Cmd
		m.form.content, c1 = m.form.content.Update(msg)
		m.form.tags, c2 = m.form.tags.Update(msg)
		cmd = tea.Batch(cmd, c1, c2)
	}
	return m, cmd
}

type findMsg struct{ agent string }

// findRule looks for m.wantRule in every agent's playbook, the shown agent
// first.
func (m *Model) findRule() tea.Cmd {
	src, ctx, want := m.src, m.c.Ctx, m.wantRule
	var agents []string
	if a, ok := m.selectedAgent(); ok {
		agents = append(agents, a.Agent)
	}
	for _, a := range m.agents {
		if a.hasPlaybook {
			agents = append(agents, a.Agent)
		}
	}
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

// splitRuleRef splits "AGENT/r3" (or "AGENT:r3") into agent and rule id.
func splitRuleRef(ref string) (agent, rule string) {
	if i := strings.LastIndexAny(ref, "/:#"); i > 0 && i < len(ref)-1 {
		return ref[:i], ref[i+1:]
	}
	return "", ref
}

// mergeAgents lists the agents with a playbook, then the roster's others.
func mergeAgents(sums []ace.Summary, roster []string) []agentRow {
	var out []agentRow
	seen := map[string]bool{}
	for _, s := range sums {
		out = append(out, agentRow{Summary: s, hasPlaybook: true})
		seen[strings.ToUpper(s.Agent)] = true
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	var rest []agentRow
	for _, id := range roster {
		if !seen[strings.ToUpper(id)] {
			seen[strings.ToUpper(id)] = true
			rest = append(rest, agentRow{Summary: ace.Summary{Agent: strings.ToUpper(id)}})
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Agent < rest[j].Agent })
	return append(out, rest...)
}

func (m *Model) selectedAgent() (agentRow, bool) {
	if m.sel >= 0 && m.sel < len(m.agents) {
		return m.agents[m.sel], true
	}
	return agentRow{}, false
}

func (m *Model) selectedRule() (ace.Rule, bool) {
	if m.ruleSel >= 0 && m.ruleSel < len(m.rules) {
		return m.rules[m.ruleSel], true
	}
	return ace.Rule{}, false
}

// applyFilter recomputes the shown rules from the playbook, the filter and
// the sort order, keeping the selected rule.
func (m *Model) applyFilter() {
	keep := ""
	if r, ok := m.selectedRule(); ok {
		keep = r.ID
	}
	m.rules = m.rules[:0]
	if m.pb == nil {
		return
	}
	q := strings.ToLower(strings.TrimSpace(m.filter.Value()))
	for _, r := range m.pb.Rules {
		if q == "" || matches(r, q) {
			m.rules = append(m.rules, r)
		}
	}
	slices.SortStableFunc(m.rules, func(a, b ace.Rule) int {
		cmp := func(x, y float64) int {
			switch {
			case x > y:
				return -1
			case x < y:
				return 1
			}
			return 0
		}
		switch m.sortBy {
		case sortApplied:
			return cmp(float64(a.AppliedCount), float64(b.AppliedCount))
		case sortSuccess:
			return cmp(a.SuccessRate(), b.SuccessRate())
		case sortNewest:
			return b.CreatedAt.Compare(a.CreatedAt)
		case sortContent:
			return strings.Compare(strings.ToLower(a.Content), strings.ToLower(b.Content))
		}
		return cmp(a.Confidence, b.Confidence)
	})
	m.ruleSel = min(m.ruleSel, max(0, len(m.rules)-1))
	for i, r := range m.rules {
		if r.ID == keep {
			m.ruleSel = i
		}
	}
}

func matches(r ace.Rule, q string) bool {
	for _, f := range strings.Fields(q) {
		hay := strings.ToLower(r.ID + " " + r.Content + " " + string(r.Source) + " " + string(r.Kind) + " " + strings.Join(r.Tags, " "))
		if !strings.Contains(hay, f) {
			return false
		}
	}
	return true
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if m.confirm.Active() {
		_, cmd := m.confirm.Update(msg)
		return cmd
	}
	if m.form != nil {
		return m.formKey(msg)
	}
	if m.filterOn {
		switch {
		case msg.String() == "enter":
			m.filterOn = false
			m.filter.Blur()
			return nil
		case key.Matches(msg, km.Back):
			m.filterOn = false
			m.filter.Blur()
			m.filter.SetValue("")
			m.applyFilter()
			return nil
		}
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		m.applyFilter()
		return cmd
	}
	switch {
	case key.Matches(msg, km.Refresh):
		return m.reloadAll()
	case key.Matches(msg, km.Tab):
		m.view = (m.view + 1) % 3
		m.right = true
		return nil
	case key.Matches(msg, km.ShiftTab):
		m.view = (m.view + 2) % 3
		m.right = true
		return nil
	case key.Matches(msg, km.Left) && m.right:
		m.right = false
		return nil
	case key.Matches(msg, km.Right, km.Enter) && !m.right:
		m.right = true
		return nil
	case key.Matches(msg, km.Back) && m.right:
		m.right = false
		return nil
	case key.Matches(msg, km.Filter):
		m.view, m.right, m.filterOn = viewRules, true, true
		m.filter.SetStyles(m.c.Styles.TextInput)
		return m.filter.Focus()
	case key.Matches(msg, km.Sort):
		m.sortBy = (m.sortBy + 1) % sortCount
		m.applyFilter()
		return nil
	case key.Matches(msg, km.New):
		if m.view == viewPending {
			m.view = viewRules
		}
		return m.openForm(nil)
	}
	if !m.right {
		prev := m.sel
		switch {
		case key.Matches(msg, km.Down):
			m.sel = min(m.sel+1, len(m.agents)-1)
		case key.Matches(msg, km.Up):
			m.sel = max(m.sel-1, 0)
		case key.Matches(msg, km.Top):
			m.sel = 0
		case key.Matches(msg, km.Bottom):
			m.sel = len(m.agents) - 1
		}
		m.sel = max(0, m.sel)
		if m.sel != prev {
			return m.loadPlaybook()
		}
		return nil
	}
	switch m.view {
	case viewRules:
		switch {
		case key.Matches(msg, km.Down):
			m.ruleSel = min(m.ruleSel+1, len(m.rules)-1)
		case key.Matches(msg, km.Up):
			m.ruleSel = max(m.ruleSel-1, 0)
		case key.Matches(msg, km.PageDown):
			m.ruleSel = min(m.ruleSel+10, len(m.rules)-1)
		case key.Matches(msg, km.PageUp):
			m.ruleSel = max(m.ruleSel-10, 0)
		case key.Matches(msg, km.Top):
			m.ruleSel = 0
		case key.Matches(msg, km.Bottom):
			m.ruleSel = len(m.rules) - 1
		case key.Matches(msg, km.Edit):
			if r, ok := m.selectedRule(); ok {
				return m.openForm(&r)
			}
		case key.Matches(msg, km.Delete):
			if r, ok := m.selectedRule(); ok {
				m.confirm.Open(confirm.Options{ID: "delete-rule", Title: "Delete rule " + r.ID + "?",
					Body: common.Truncate(oneLine(r.Content), 180) + "\n\nThe playbook gets a new version; the rule stays in its history.",
					Yes:  "Delete", No: "Keep", Danger: true, Payload: [2]string{m.pbAgent, r.ID}})
			}
		}
		m.ruleSel = max(0, m.ruleSel)
	case viewHistory:
		switch {
		case key.Matches(msg, km.Down):
			m.verSel = min(m.verSel+1, len(m.history)-1)
		case key.Matches(msg, km.Up):
			m.verSel = max(m.verSel-1, 0)
		case key.Matches(msg, km.Top):
			m.verSel = 0
		case key.Matches(msg, km.Bottom):
			m.verSel = len(m.history) - 1
		}
		m.verSel = max(0, m.verSel)
	case viewPending:
		switch {
		case key.Matches(msg, km.Down):
			m.pendSel = min(m.pendSel+1, len(m.pending)-1)
		case key.Matches(msg, km.Up):
			m.pendSel = max(m.pendSel-1, 0)
		case key.Matches(msg, km.Approve):
			if p, ok := m.selectedPending(); ok {
				src, ctx := m.src, m.c.Ctx
				return m.act(fmt.Sprintf("approved delta #%d for %s", p.ID, p.Agent), func() error {
					_, err := src.ApproveDelta(ctx, p.ID)
					return err
				})
			}
		case key.Matches(msg, km.Reject):
			if p, ok := m.selectedPending(); ok {
				m.confirm.Open(confirm.Options{ID: "reject-pending", Title: fmt.Sprintf("Reject delta #%d for %s?", p.ID, p.Agent),
					Body: string(p.Delta.Op) + ": " + common.Truncate(oneLine(m.pendingText(p)), 180) + "\n\nIt leaves the queue and is not applied.",
					Yes:  "Reject", No: "Keep", Danger: true, Payload: p.ID})
			}
		}
		m.pendSel = max(0, m.pendSel)
	}
	return nil
}

func (m *Model) selectedPending() (ace.Pending, bool) {
	if m.pendSel >= 0 && m.pendSel < len(m.pending) {
		return m.pending[m.pendSel], true
	}
	return ace.Pending{}, false
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
	a, ok := m.selectedAgent()
	if !ok || m.src == nil {
		return nil
	}
	mk := func(prompt, placeholder string, limit int) textinput.Model {
		in := textinput.New()
		in.Prompt = prompt
		in.Placeholder = placeholder
		in.CharLimit = limit
		in.SetStyles(m.c.Styles.TextInput)
		in.SetWidth(m.formWidth() - 12)
		return in
	}
	f := &formState{agent: a.Agent,
		content: mk("rule › ", "e.g. Validate request bodies before touching the database", 2000),
		tags:    mk("tags › ", "comma separated, e.g. api, validation", 300)}
	if r != nil {
		f.ruleID = r.ID
		f.content.SetValue(r.Content)
		f.tags.SetValue(strings.Join(r.Tags, ", "))
	}
	m.form = f
	return f.content.Focus()
}

func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	f := m.form
	switch {
	case key.Matches(msg, km.Back):
		m.form = nil
		return nil
	case key.Matches(msg, km.Tab, km.ShiftTab):
		f.field = 1 - f.field
		if f.field == 0 {
			f.tags.Blur()
			return f.content.Focus()
		}
		f.content.Blur()
		return f.tags.Focus()
	case msg.String() == "enter":
		content := strings.TrimSpace(f.content.Value())
		if content == "" {
			f.err = "A rule needs some text."
			return nil
		}
		var tags []string
		for _, t := range strings.Split(f.tags.Value(), ",") {
			if t = strings.TrimSpace(t); t != "" {
				tags = append(tags, t)
			}
		}
		src, ctx, agent, id := m.src, m.c.Ctx, f.agent, f.ruleID
		if id == "" {
			return m.act("added a rule to "+agent, func() error {
				_, err := src.AddRule(ctx, agent, content, tags, ace.DefaultConfidence)
				return err
			})
		}
		if tags == nil {
			tags = []string{} // an emptied tag field clears the tags
		}
		return m.act("edited rule "+id+" of "+agent, func() error {
			_, err := src.EditRule(ctx, agent, id, content, tags, 0)
			return err
		})
	}
	f.err = ""
	var cmd tea.Cmd
	if f.field == 0 {
		f.content, cmd = f.content.Update(msg)
	} else {
		f.tags, cmd = f.tags.Update(msg)
	}
	return cmd
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km := m.c.KeyMap
	switch {
	case m.confirm.Active():
		return m.confirm.ShortHelp()
	case m.form != nil:
		return []key.Binding{withHelp(km.Enter, "save"), withHelp(km.Tab, "field"), withHelp(km.Back, "cancel")}
	case m.filterOn:
		return []key.Binding{withHelp(km.Enter, "keep filter"), withHelp(km.Back, "clear")}
	case m.view == viewPending:
		return []key.Binding{withHelp(km.Approve, "approve"), withHelp(km.Reject, "reject"), withHelp(km.Tab, "view")}
	}
	return []key.Binding{withHelp(km.Tab, "rules/history/pending"), withHelp(km.Filter, "filter"), withHelp(km.Sort, "sort"),
		withHelp(km.New, "add"), withHelp(km.Edit, "edit"), withHelp(km.Delete, "delete")}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km := m.c.KeyMap
	return [][]key.Binding{
		{km.Down, km.Up, withHelp(km.Left, "agents"), withHelp(km.Right, "rules/history/pending"), km.Top, km.Bottom},
		{withHelp(km.Tab, "next view"), withHelp(km.ShiftTab, "previous view"), withHelp(km.Filter, "filter rules"), withHelp(km.Sort, "sort rules"), km.Refresh},
		{withHelp(km.New, "add rule"), withHelp(km.Edit, "edit rule"), withHelp(km.Delete, "delete rule"),
			withHelp(km.Approve, "approve pending"), withHelp(km.Reject, "reject pending")},
	}
}

func withHelp(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// pendingText describes what a pending delta changes: its content, or the
// rule it updates or removes with that rule's current text.
func (m *Model) pendingText(p ace.Pending) string {
	d := p.Delta
	if d.Op == ace.OpAdd {
		return d.Content
	}
	text := d.RuleID
	if cur, ok := m.pendingRules[p.ID]; ok {
		text += " (" + cur + ")"
	}
	if d.Content != "" {
		text += " → " + d.Content
	}
	return text
}
