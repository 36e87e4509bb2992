// Package rehearsal is the Rehearsal screen: the list of rehearsal sessions
// (pending and past) and the review of one session. At 150 columns and more
// the branches stand side by side, one diff view each; narrower, one branch
// is shown at a time behind tabs. Each branch shows its approach, composite
// score, quality band, the four score dimensions as bars and the check
// result, its files as tabs and the diff of the selected file against the
// original. Approving a branch (after a confirmation listing the files)
// writes exactly its files through the changeset path; rejecting asks for a
// reason. Past sessions are read-only. All engine calls run in tea.Cmds.
package rehearsal

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/knowledge"
	rh "github.com/nova-dev/nova/engine/rehearsal"
	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
	"github.com/nova-dev/nova/tui/components/diffview"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the router id of the page.
const ID = "rehearsal"

// SideBySideFrom is the page width from which branches are shown side by
// side.
const SideBySideFrom = 150

// filters of the session list.
const (
	filterAll = iota
	filterPending
	filterDecided
	filterCount
)

var filterNames = [filterCount]string{"All", "Pending", "Decided"}

type listMsg struct {
	sessions []rh.Session
	err      error
}

type sessionMsg struct {
	s   rh.Session
	err error
}

type actionMsg struct {
	verb string
	s    rh.Session
	err  error
}

type whyMsg struct {
	id    uint64
	nodes map[uint64]string
	// knowledge maps each injected knowledge ref to its title.
	knowledge map[string]string
}

// Model is the Rehearsal page.
type Model struct {
	c      *common.Common
	src    Source
	width  int
	height int
	now    func() time.Time

	sessions []rh.Session
	loaded   bool
	loadErr  error
	filter   int
	// list is the filtered sessions, newest first.
	list *vlist.Model[rh.Session]
	keys keyMap
	want uint64
	// wantPending opens the first pending session once the list is loaded
	// (the palette's "Open the rehearsal waiting for review").
	wantPending bool

	sess     *rh.Session
	focus    int
	fileSel  []int
	dvs      []*diffview.Model
	shown    []string
	sync     bool
	userMode diffview.Mode
	why      bool
	whyNodes map[uint64]string
	whyKnow  map[string]string

	dialog    *confirm.Model
	rejecting bool
	reason    textinput.Model
	busy      string
}

// New builds the page.
func New(c *common.Common, src Source) *Model {
	in := textinput.New()
	in.Placeholder = "why none of the branches fits (optional)"
	in.Prompt = "› "
	in.SetStyles(c.Styles.TextInput)
	m := &Model{c: c, src: src, now: c.Clock(), dialog: confirm.New(c), reason: in, keys: newKeyMap()}
	m.list = vlist.New(c, m.renderSession)
	m.list.SetMarker(true)
	return m
}

// refilter shows the sessions the filter keeps, the cursor staying on the
// same session when it still shows (or reset to the newest: top).
func (m *Model) refilter(top bool) {
	var keep func(rh.Session) bool
	if cur, ok := m.list.Selected(); ok && !top {
		keep = func(x rh.Session) bool { return x.ID == cur.ID }
	}
	m.list.ReplaceRows(m.visible(), keep)
	if top {
		m.list.SetCursor(0)
	}
}

// Title implements common.Page.
func (m *Model) Title() string { return "Rehearsal" }

// Capturing implements common.Page: a dialog or the reason prompt owns the
// keyboard.
func (m *Model) Capturing() bool { return m.dialog.Active() || m.rejecting }

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return m.load() }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.dialog.SetSize(w, h)
	m.reason.SetWidth(max(10, min(60, w-14)))
	m.layout()
}

// Session returns the session under review (tests).
func (m *Model) Session() (rh.Session, bool) {
	if m.sess == nil {
		return rh.Session{}, false
	}
	return *m.sess, true
}

// Focus is the focused branch index (tests).
func (m *Model) Focus() int { return m.focus }

// Source is what the Rehearsal page needs from the engine: a subset of
// engine.Workspace's verbs. The page calls it only from tea.Cmds.
type Source interface {
	ListRehearsals(ctx context.Context, f rh.Filter) ([]rh.Session, error)
	GetRehearsal(ctx context.Context, id uint64) (rh.Session, error)
	ApproveRehearsal(ctx context.Context, id uint64, branch string, o rh.ApproveOptions) (rh.Session, error)
	RejectRehearsal(ctx context.Context, id uint64, reason string) (rh.Session, error)
	RegenerateRehearsal(ctx context.Context, id uint64) (rh.Session, error)
	GetNodes(ctx context.Context, ids []uint64, withBody bool) ([]engvault.Node, error)
	// KnowledgeItem resolves the facts and docs the branches' prompts
	// carried (the "why" panel).
	KnowledgeItem(ctx context.Context, ref string) (knowledge.Item, error)
}

// call runs an engine call off the UI goroutine; an error becomes wrap's
// message.
func call(f func() (tea.Msg, error), wrap func(error) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		out, err := f()
		if err != nil {
			return wrap(err)
		}
		return out
	}
}

func (m *Model) load() tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return call(func() (tea.Msg, error) {
		list, err := src.ListRehearsals(ctx, rh.Filter{}) // brief: no file contents
		if err != nil {
			return nil, err
		}
		return listMsg{sessions: list}, nil
	}, func(err error) tea.Msg { return listMsg{err: err} })
}

func (m *Model) open(id uint64) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return call(func() (tea.Msg, error) {
		s, err := src.GetRehearsal(ctx, id)
		return sessionMsg{s: s}, err
	}, func(err error) tea.Msg { return sessionMsg{err: err} })
}

// visible is the filtered session list.
func (m *Model) visible() []rh.Session {
	var out []rh.Session
	for _, s := range m.sessions {
		switch {
		case m.filter == filterPending && !s.Pending(),
			m.filter == filterDecided && s.Pending():
			continue
		}
		out = append(out, s)
	}
	return out
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case listMsg:
		m.loaded, m.loadErr = true, msg.err
		if msg.err == nil {
			m.sessions = msg.sessions
		}
		m.refilter(false)
		if m.want != 0 {
			id := m.want
			m.want = 0
			return m, m.open(id)
		}
		if m.wantPending {
			m.wantPending = false
			for _, s := range m.sessions {
				if s.Pending() {
					return m, m.open(s.ID)
				}
			}
			return m, common.Toast("no rehearsal waits for review")
		}
		return m, nil
	case sessionMsg:
		if msg.err != nil {
			return m, common.Failure(msg.err)
		}
		return m, m.show(msg.s)
	case actionMsg:
		return m, m.actionDone(msg)
	case whyMsg:
		if m.sess != nil && m.sess.ID == msg.id {
			m.whyNodes, m.whyKnow = msg.nodes, msg.knowledge
		}
		return m, nil
	case confirm.ResultMsg:
		if msg.ID == "approve" && msg.Confirmed {
			ref, _ := msg.Payload.(string)
			return m, m.approve(ref)
		}
		if msg.ID == "regenerate" && msg.Confirmed {
			id, _ := msg.Payload.(uint64)
			return m, m.regenerate(id)
		}
		return m, nil
	case common.NavigateMsg:
		if msg.Page != ID {
			return m, nil
		}
		if id, ok := msg.Arg.(uint64); ok && id != 0 {
			if m.loaded {
				return m, m.open(id)
			}
			m.want = id
		}
		if msg.Arg == common.ArgPending {
			m.wantPending = true
		}
		return m, m.load()
	case common.EventMsg:
		if msg.Event.Topic == engine.TopicRehearsal {
			return m, m.load()
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	// highlighting results and the like belong to the diff views
	var cmds []tea.Cmd
	for _, dv := range m.dvs {
		_, cmd := dv.Update(msg)
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}

func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if m.dialog.Active() {
		_, cmd := m.dialog.Update(k)
		return cmd
	}
	if m.rejecting {
		switch {
		case key.Matches(k, m.keys.RejectAll):
			m.rejecting = false
			reason := strings.TrimSpace(m.reason.Value())
			m.reason.Blur()
			return m.reject(reason)
		case key.Matches(k, m.keys.CancelReject):
			m.rejecting = false
			m.reason.Blur()
			return nil
		}
		var cmd tea.Cmd
		m.reason, cmd = m.reason.Update(k)
		return cmd
	}
	if m.sess == nil {
		return m.listKey(k)
	}
	s := *m.sess
	n := len(s.Branches)
	switch {
	case key.Matches(k, m.keys.Sessions):
		m.sess, m.why = nil, false
		return m.load()
	case key.Matches(k, m.keys.PrevBranch):
		m.setFocus(m.focus - 1)
	case key.Matches(k, m.keys.NextBranch):
		m.setFocus(m.focus + 1)
	case key.Matches(k, m.keys.Branch1):
		m.setFocus(0)
	case key.Matches(k, m.keys.Branch2):
		m.setFocus(1)
	case key.Matches(k, m.keys.Branch3):
		m.setFocus(2)
	case key.Matches(k, m.keys.NextFile, m.keys.PrevFile):
		if n == 0 {
			return nil
		}
		files := len(s.Branches[m.focus].Files)
		d := 1
		if key.Matches(k, m.keys.PrevFile) {
			d = -1
		}
		m.fileSel[m.focus] = (m.fileSel[m.focus] + d + files) % max(1, files)
		return m.refreshContent()
	case key.Matches(k, m.keys.SyncScroll):
		m.sync = !m.sync
		if m.sync && n > 0 {
			m.syncFrom(m.focus)
		}
		return common.Toast(map[bool]string{true: "synchronised scrolling on", false: "synchronised scrolling off"}[m.sync])
	case key.Matches(k, m.keys.SplitToggle):
		if n == 0 {
			return nil
		}
		mode := diffview.Split
		if m.dvs[m.focus].IsSplit() {
			mode = diffview.Unified
		}
		m.userMode = mode
		for _, dv := range m.dvs {
			dv.SetMode(mode)
		}
	case key.Matches(k, m.keys.OpenKnowledge):
		if len(s.KnowledgeIDs) == 0 {
			return common.Toast("no knowledge was injected into this rehearsal's prompts")
		}
		arg := common.KnowledgeRefs{Title: fmt.Sprintf("Injected into rehearsal #%d (task %s)", s.ID, s.TaskID), Refs: append([]string{}, s.KnowledgeIDs...)}
		return func() tea.Msg { return common.NavigateMsg{Page: "knowledge", Arg: arg} }
	case key.Matches(k, m.keys.Why):
		m.why = !m.why
		if m.why && m.whyNodes == nil {
			return m.loadWhy()
		}
	case key.Matches(k, km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom):
		if n == 0 {
			return nil
		}
		_, cmd := m.dvs[m.focus].Update(k)
		if m.sync {
			m.syncFrom(m.focus)
		}
		return cmd
	case key.Matches(k, m.keys.Approve):
		if !s.Pending() {
			return common.Toast("this session is already decided (read-only)")
		}
		if n == 0 {
			return nil
		}
		b := s.Branches[m.focus]
		var paths []string
		for _, f := range b.Files {
			mark := "~"
			if f.New {
				mark = "+"
			}
			paths = append(paths, "  "+mark+" "+f.Path)
		}
		m.dialog.Open(confirm.Options{ID: "approve", Payload: b.ID,
			Title: fmt.Sprintf("Approve branch %d (%s)?", m.focus+1, b.Approach),
			Body: fmt.Sprintf("Writes %s through a changeset, and nothing else:\n%s",
				countNoun(len(b.Files), "file", "files"), strings.Join(paths, "\n")),
			Yes: "Approve", No: "Cancel"})
	case key.Matches(k, m.keys.Reject):
		if !s.Pending() {
			return common.Toast("this session is already decided (read-only)")
		}
		m.rejecting = true
		m.reason.SetValue("")
		return m.reason.Focus()
	case key.Matches(k, m.keys.Regenerate):
		if !s.Pending() {
			return common.Toast("this session is already decided (read-only)")
		}
		if m.busy != "" {
			return nil
		}
		// It costs model time: say what it does, and default to keeping.
		n := max(1, len(s.Branches))
		m.dialog.Open(confirm.Options{ID: "regenerate", Payload: s.ID,
			Title: "Regenerate the branches?",
			Body: fmt.Sprintf("Runs the model again for %s of task %s — as long as this round took, and its tokens. "+
				"The branches on screen stay in the session as round %d. Nothing is written to your files.",
				countNoun(n, "new branch", "new branches"), s.TaskID, max(1, len(s.Rounds))),
			Yes: "Regenerate", No: "Keep these", Danger: true})
	}
	return nil
}

// regenerate runs a new round of branches for session id.
func (m *Model) regenerate(id uint64) tea.Cmd {
	m.busy = "regenerating branches…"
	src, ctx := m.src, m.c.Ctx
	return call(func() (tea.Msg, error) {
		out, err := src.RegenerateRehearsal(ctx, id)
		return actionMsg{verb: "regenerate", s: out}, err
	}, func(err error) tea.Msg { return actionMsg{verb: "regenerate", err: err} })
}

func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (m *Model) listKey(k tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if ok, cmd := m.list.HandleKey(k); ok {
		return cmd
	}
	switch {
	case key.Matches(k, m.keys.NextFilter):
		m.filter = (m.filter + 1) % filterCount
		m.refilter(true)
	case key.Matches(k, m.keys.PrevFilter):
		m.filter = (m.filter + filterCount - 1) % filterCount
		m.refilter(true)
	case key.Matches(k, m.keys.Review):
		if x, ok := m.list.Selected(); ok {
			return m.open(x.ID)
		}
	case key.Matches(k, km.Refresh):
		return m.load()
	}
	return nil
}

func (m *Model) setFocus(i int) {
	if m.sess == nil || len(m.sess.Branches) == 0 {
		return
	}
	m.focus = max(0, min(len(m.sess.Branches)-1, i))
	for j, dv := range m.dvs {
		dv.SetFocused(j == m.focus)
	}
}

func (m *Model) syncFrom(i int) {
	off := m.dvs[i].Offset()
	for j, dv := range m.dvs {
		if j != i {
			dv.SetOffset(off)
		}
	}
}

// show makes s the session under review.
func (m *Model) show(s rh.Session) tea.Cmd {
	same := m.sess != nil && m.sess.ID == s.ID && len(m.sess.Rounds) == len(s.Rounds)
	m.sess = &s
	if !same {
		m.focus, m.why, m.whyNodes, m.whyKnow = 0, false, nil, nil
		m.fileSel = make([]int, len(s.Branches))
		m.dvs = make([]*diffview.Model, len(s.Branches))
		m.shown = make([]string, len(s.Branches))
		for i := range m.dvs {
			m.dvs[i] = diffview.New(m.c)
			if m.userMode != diffview.Auto {
				m.dvs[i].SetMode(m.userMode)
			}
		}
	}
	m.setFocus(m.focus)
	m.layout()
	return m.refreshContent()
}

// refreshContent puts each branch's selected file into its diff view.
func (m *Model) refreshContent() tea.Cmd {
	if m.sess == nil {
		return nil
	}
	var cmds []tea.Cmd
	for i, b := range m.sess.Branches {
		if len(b.Files) == 0 {
			continue
		}
		f := b.Files[min(m.fileSel[i], len(b.Files)-1)]
		k := b.ID + "\x00" + f.Path
		if m.shown[i] == k {
			continue
		}
		m.shown[i] = k
		cmds = append(cmds, m.dvs[i].SetContent(f.Path, f.OriginalContent, f.ProposedContent))
		if m.sync && i != m.focus {
			m.dvs[i].SetOffset(m.dvs[m.focus].Offset())
		}
	}
	return tea.Batch(cmds...)
}

func (m *Model) approve(ref string) tea.Cmd {
	if m.sess == nil {
		return nil
	}
	m.busy = "writing branch…"
	src, ctx, id := m.src, m.c.Ctx, m.sess.ID
	return call(func() (tea.Msg, error) {
		out, err := src.ApproveRehearsal(ctx, id, ref, rh.ApproveOptions{})
		return actionMsg{verb: "approve", s: out}, err
	}, func(err error) tea.Msg { return actionMsg{verb: "approve", err: err} })
}

func (m *Model) reject(reason string) tea.Cmd {
	if m.sess == nil {
		return nil
	}
	src, ctx, id := m.src, m.c.Ctx, m.sess.ID
	return call(func() (tea.Msg, error) {
		out, err := src.RejectRehearsal(ctx, id, reason)
		return actionMsg{verb: "reject", s: out}, err
	}, func(err error) tea.Msg { return actionMsg{verb: "reject", err: err} })
}

func (m *Model) actionDone(msg actionMsg) tea.Cmd {
	m.busy = ""
	if msg.err != nil {
		if context.Cause(m.c.Ctx) != nil {
			return nil
		}
		return common.Failure(fmt.Errorf("%s: %w", msg.verb, msg.err))
	}
	var text string
	switch msg.verb {
	case "approve":
		text = fmt.Sprintf("approved %s: wrote %s", msg.s.Winner, strings.Join(msg.s.Written, ", "))
		if msg.s.PreferenceID != 0 {
			text += fmt.Sprintf(" · learned preference #%d", msg.s.PreferenceID)
		}
	case "reject":
		text = fmt.Sprintf("rejected rehearsal #%d: %s", msg.s.ID, msg.s.Reason)
	case "regenerate":
		text = fmt.Sprintf("round %d: %s", len(msg.s.Rounds), countNoun(len(msg.s.Branches), "new branch", "new branches"))
	}
	return tea.Batch(m.show(msg.s), common.Toast(text), m.load())
}

// loadWhy reads the contents of the vault nodes the branches were given.
func (m *Model) loadWhy() tea.Cmd {
	if m.sess == nil {
		return nil
	}
	s := *m.sess
	src, ctx := m.src, m.c.Ctx
	return call(func() (tea.Msg, error) {
		var ids []uint64
		for _, b := range s.Branches {
			ids = append(ids, b.VaultNodeIDs...)
			ids = append(ids, b.WisdomIDs...)
			if r, ok := s.Result(b.ID); ok {
				ids = append(ids, r.Reflected...)
			}
		}
		nodes := map[uint64]string{}
		know := map[string]string{}
		for _, ref := range s.KnowledgeIDs {
			know[ref] = "(no longer available)"
			if it, err := src.KnowledgeItem(ctx, ref); err == nil {
				know[ref] = it.Title
			}
		}
		if len(ids) == 0 {
			return whyMsg{id: s.ID, nodes: nodes, knowledge: know}, nil
		}
		found, err := src.GetNodes(ctx, ids, false)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			nodes[id] = "(no longer in the vault)"
		}
		for _, n := range found {
			nodes[n.ID] = fmt.Sprintf("[%s] %s", n.Type, n.Content)
		}
		return whyMsg{id: s.ID, nodes: nodes, knowledge: know}, nil
	}, func(error) tea.Msg {
		return whyMsg{id: s.ID, nodes: map[uint64]string{}, knowledge: map[string]string{}}
	})
}
