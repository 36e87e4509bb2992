// Package chat is the Chat screen, the first thing nova shows: a
// conversation with the team. Type a request and press enter; the answer
// streams in, tool calls show as one-line entries that expand, and each
// staged change appears inline as a diff to apply (a), discard (x), edit
// (e) or apply with the rest of its turn (A).
package chat

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	chg "github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/chat"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/editor"
	"github.com/nova-dev/nova/internal/safefile"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/vlist"
)

// ID is the page's id.
const ID = "chat"

// RehearsalPage and ChangesPage are where /rehearse and the changes go.
const (
	RehearsalPage = "rehearsal"
	ChangesPage   = "changes"
	KnowledgePage = "knowledge"
)

type focus int

const (
	focusInput focus = iota
	focusTranscript
	focusSessions
)

// Messages of the page.
type (
	sessionsMsg struct {
		list []chat.Session
		open bool // open the most recent one
		err  error
	}
	transcriptMsg struct {
		tr      chat.Transcript
		changes map[uint64]chg.Changeset
		err     error
	}
	sentMsg struct {
		rep engine.ChatReply
		err error
	}
	completeMsg struct {
		seq  int
		word string
		list []engine.ChatCompletion
	}
	decidedMsg struct {
		what string
		err  error
	}
	editReadyMsg struct {
		id             uint64
		path, dir, tmp string
		proposal       string
		err            error
	}
	editDoneMsg struct {
		ready editReadyMsg
		err   error
	}
)

// Model is the Chat screen.
type Model struct {
	c      *common.Common
	src    Source
	getenv func(string) string

	session  uint64
	tr       chat.Transcript
	changes  map[uint64]chg.Changeset
	loaded   bool
	loadErr  error
	sessions []chat.Session
	// sessList is the sessions list (s, /sessions), most recent first.
	sessList *vlist.Model[chat.Session]
	keys     keyMap
	sending  bool
	sendOp   string
	// approval is the command this window's turn wants to run (y/n).
	approval  *tools.ApprovalRequest
	streams   map[int]*strings.Builder
	liveTools map[int][]chat.ToolCall
	// progress is each running turn's last progress estimate.
	progress map[int]agents.Progress
	expanded map[string]bool
	offered  map[string]bool // turns whose change was put under the keys
	showProv bool
	focus    focus
	input    textinput.Model
	comps    []engine.ChatCompletion
	compSel  int
	compSeq  int
	compWord string
	// turns holds the cursor over the turns (transcript focus); the
	// transcript draws them itself (turns are of any height).
	turns *vlist.Model[chat.Turn]
	// reveal scrolls the selected turn into view at the next render.
	reveal     bool
	scroll     int // lines scrolled up from the bottom
	note       string
	width      int
	height     int
	lastRender int
}

// New builds the page.
func New(c *common.Common, src Source) *Model {
	in := textinput.New()
	in.Placeholder = "ask or request a change, e.g. fix the bug in foo.go (@file attaches, / commands)"
	in.Prompt = "› "
	in.CharLimit = chat.MaxMessageBytes
	in.SetStyles(c.Styles.TextInput)
	m := &Model{c: c, src: src, getenv: os.Getenv, input: in, streams: map[int]*strings.Builder{},
		liveTools: map[int][]chat.ToolCall{}, progress: map[int]agents.Progress{}, expanded: map[string]bool{}, offered: map[string]bool{}, changes: map[uint64]chg.Changeset{},
		keys: newKeyMap()}
	m.turns = vlist.New(c, func(chat.Turn, int, bool, bool, int) string { return "" })
	m.sessList = vlist.New(c, m.renderSession)
	m.sessList.SetMarker(true)
	m.sessList.SetEmptyText("No sessions yet: type a request to start one.")
	m.input.Focus()
	return m
}

// Title implements common.Page.
func (m *Model) Title() string { return "Chat" }

// Capturing implements common.Page: the input line owns the keyboard.
func (m *Model) Capturing() bool { return m.focus == focusInput || m.approval != nil }

// TakesInterrupt reports whether ctrl+c cancels this screen's running
// turn rather than quitting nova.
func (m *Model) TakesInterrupt() bool { return m.running() }

// Session is the session on screen (0: none yet).
func (m *Model) Session() uint64 { return m.session }

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.loadSessions(true), m.input.Focus()) }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.input.SetWidth(max(10, w-4))
}

func (m *Model) loadSessions(open bool) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		list, err := src.ChatSessions(ctx)
		return sessionsMsg{list: list, open: open, err: err}
	}
}

// maxDiffTurns is how many of the newest turns get their changesets read.
const maxDiffTurns = 6

func (m *Model) loadTranscript() tea.Cmd {
	if m.session == 0 {
		return nil
	}
	src, ctx, id := m.src, m.c.Ctx, m.session
	return func() tea.Msg {
		tr, err := src.ChatTranscript(ctx, id)
		if err != nil {
			return transcriptMsg{err: err}
		}
		cs := map[uint64]chg.Changeset{}
		for i := len(tr.Turns) - 1; i >= 0 && i >= len(tr.Turns)-maxDiffTurns; i-- {
			if cid := tr.Turns[i].ChangesetID; cid != 0 {
				if c, err := src.GetChange(ctx, cid); err == nil {
					cs[cid] = c
				}
			}
		}
		return transcriptMsg{tr: tr, changes: cs}
	}
}

func (m *Model) running() bool {
	if m.sending {
		return true
	}
	if n := len(m.tr.Turns); n > 0 {
		return !m.tr.Turns[n-1].Finished()
	}
	return false
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case sessionsMsg:
		if msg.err != nil {
			m.loaded, m.loadErr = true, msg.err
			return m, nil
		}
		m.setSessions(msg.list, false)
		if msg.open && m.session == 0 && len(msg.list) > 0 {
			m.session = msg.list[0].ID
			return m, m.loadTranscript()
		}
		m.loaded = true
		return m, nil
	case transcriptMsg:
		m.loaded = true
		if msg.err != nil {
			m.loadErr = msg.err
			return m, nil
		}
		m.loadErr = nil
		if msg.tr.Session.ID != m.session {
			return m, nil
		}
		m.tr, m.changes = msg.tr, msg.changes
		for _, t := range m.tr.Turns {
			if t.Finished() {
				delete(m.streams, t.N)
				delete(m.liveTools, t.N)
				delete(m.progress, t.N)
			}
		}
		if p := m.pendingTurn(); p >= 0 && !m.running() && m.input.Value() == "" && m.focus == focusInput {
			key := fmt.Sprintf("%d/%d", m.session, m.tr.Turns[p].N)
			if !m.offered[key] {
				// A change is waiting: its keys act at once (a, x, e, A),
				// once per turn.
				m.offered[key] = true
				m.focusTranscript(p)
			}
		}
		return m, nil
	case sentMsg:
		m.sending, m.approval, m.note = false, nil, ""
		if msg.rep.Session.ID != 0 {
			m.session = msg.rep.Session.ID
		}
		var cmds []tea.Cmd
		if msg.err != nil {
			cmds = append(cmds, common.Failure(friendly(msg.err)))
		}
		switch {
		case msg.rep.Command == "new":
			m.tr, m.changes = chat.Transcript{Session: msg.rep.Session}, map[uint64]chg.Changeset{}
			m.note = msg.rep.Text
		case msg.rep.Command == "sessions":
			m.setSessions(msg.rep.Sessions, true)
			m.focus = focusSessions
			m.input.Blur()
		case msg.rep.Command == "rehearse" && msg.err == nil:
			cmds = append(cmds, func() tea.Msg { return common.NavigateMsg{Page: RehearsalPage, Arg: msg.rep.RehearsalID} })
			m.note = msg.rep.Text
		case msg.rep.Text != "":
			m.note = msg.rep.Text
		}
		cmds = append(cmds, m.loadTranscript(), m.loadSessions(false))
		return m, tea.Batch(cmds...)
	case completeMsg:
		if msg.seq == m.compSeq {
			m.comps, m.compSel, m.compWord = msg.list, 0, msg.word
		}
		return m, nil
	case decidedMsg:
		if msg.err != nil {
			return m, tea.Batch(common.Failure(msg.err), m.loadTranscript())
		}
		m.focusInputLine()
		return m, tea.Batch(common.Toast(msg.what), m.loadTranscript(), m.input.Focus())
	case editReadyMsg:
		return m, m.runEditor(msg)
	case editDoneMsg:
		return m, m.editDone(msg)
	case common.EventMsg:
		return m, m.event(msg.Event)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.focus != focusInput {
			m.focusInputLine()
		}
		return m, m.paste(msg.Content)
	}
	if m.focus == focusInput {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

// friendly adds what to do to the errors people meet in chat.
func friendly(err error) error {
	switch {
	case errors.Is(err, chat.ErrNothingToUndo):
		return fmt.Errorf("%w: apply a change first (a), /undo reverts the last one applied here", err)
	case errors.Is(err, chat.ErrEmptyMessage):
		return fmt.Errorf("%w: type a request first", err)
	}
	return err
}

// paste puts pasted text in the input line; a paste over the message limit
// is cut there, and the user is told.
func (m *Model) paste(text string) tea.Cmd {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", " ")
	room := chat.MaxMessageBytes - len(m.input.Value())
	var cmd tea.Cmd
	if len(text) > room {
		n := max(room, 0)
		for n > 0 && n < len(text) && !utf8.RuneStart(text[n]) {
			n--
		}
		cmd = common.Toast(fmt.Sprintf("the paste was %d KB: only its first %d KB fit in a message", len(text)>>10, n>>10))
		text = text[:n]
	}
	m.input.SetValue(m.input.Value() + text)
	m.input.CursorEnd()
	return cmd
}

func (m *Model) focusInputLine() {
	m.focus = focusInput
	m.input.Focus()
}

func (m *Model) focusTranscript(sel int) {
	m.focus = focusTranscript
	m.turns.SetRows(m.tr.Turns)
	m.turns.SetCursor(sel)
	m.input.Blur()
	m.comps = nil
}

// sel is the selected turn, an index in tr.Turns (-1: the turns do not
// have the keyboard).
func (m *Model) sel() int {
	if m.focus != focusTranscript || len(m.tr.Turns) == 0 {
		return -1
	}
	if m.turns.Len() != len(m.tr.Turns) {
		m.turns.ReplaceRows(m.tr.Turns, nil)
	}
	return m.turns.Cursor()
}

// setSessions shows list in the sessions list, on the same session
// (first: on the most recent).
func (m *Model) setSessions(list []chat.Session, first bool) {
	m.sessions = list
	var keep func(chat.Session) bool
	if cur, ok := m.sessList.Selected(); ok && !first {
		keep = func(s chat.Session) bool { return s.ID == cur.ID }
	}
	m.sessList.ReplaceRows(list, keep)
	if first {
		m.sessList.SetCursor(0)
	}
}

// pendingTurn is the newest turn with a pending changeset (-1: none).
func (m *Model) pendingTurn() int {
	for i := len(m.tr.Turns) - 1; i >= 0; i-- {
		if m.changeState(m.tr.Turns[i]) == "pending" {
			return i
		}
	}
	return -1
}

func (m *Model) changeState(t chat.Turn) string {
	if t.ChangesetID == 0 {
		return ""
	}
	if cs, ok := m.changes[t.ChangesetID]; ok {
		return string(cs.Status)
	}
	return t.Change
}

// event follows the engine: this session's turns (from this window or
// another), its streamed text and tool calls, and changes decided
// elsewhere.
func (m *Model) event(ev engine.Event) tea.Cmd {
	if ev.Type == engine.EventNeedsApproval && ev.Approval != nil && m.sending && ev.Op == m.sendOp {
		r := *ev.Approval
		m.approval = &r
		return nil
	}
	if ev.Topic == engine.TopicChanges {
		return m.loadTranscript()
	}
	if ev.Topic != engine.TopicChat || ev.Chat == nil {
		return nil
	}
	c := ev.Chat
	if c.Type == chat.EventSession {
		return m.loadSessions(false)
	}
	if m.sending && m.sendOp != "" && c.Op == m.sendOp && c.Session != m.session {
		// The first turn of a new session (this window's): follow it.
		m.session = c.Session
		m.tr = chat.Transcript{Session: chat.Session{ID: c.Session}}
	}
	if c.Session != m.session || m.session == 0 {
		return nil
	}
	switch c.Type {
	case chat.EventDelta:
		b := m.streams[c.N]
		if b == nil {
			b = &strings.Builder{}
			m.streams[c.N] = b
		}
		b.WriteString(c.Text)
	case chat.EventTool:
		if c.Tool != nil {
			tools := m.liveTools[c.N]
			if c.Tool.Status != "" && len(tools) > 0 && tools[len(tools)-1].Tool == c.Tool.Tool && tools[len(tools)-1].Status == "" {
				tools[len(tools)-1] = *c.Tool
			} else {
				tools = append(tools, *c.Tool)
			}
			m.liveTools[c.N] = tools
		}
	case chat.EventProgress:
		if c.Progress != nil {
			m.progress[c.N] = *c.Progress
		}
	case chat.EventTurn:
		if c.Turn != nil {
			m.upsert(*c.Turn)
			if c.Turn.Finished() {
				return m.loadTranscript()
			}
		}
	case chat.EventWaiting, chat.EventCompacted:
		m.note = c.Text
		return m.loadTranscript()
	}
	return nil
}

// upsert puts a turn's new state in the transcript.
func (m *Model) upsert(t chat.Turn) {
	for i := range m.tr.Turns {
		if m.tr.Turns[i].N == t.N {
			m.tr.Turns[i] = t
			return
		}
	}
	m.tr.Turns = append(m.tr.Turns, t)
	m.scroll = 0
}

// send sends the input line.
func (m *Model) send() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		return common.Toast("type a request first (or /help)")
	}
	m.input.SetValue("")
	m.comps = nil
	m.note = ""
	m.scroll = 0
	if !strings.HasPrefix(text, "/") {
		m.sending = true
	} else {
		m.note = strings.Fields(text)[0] + " …"
	}
	if strings.HasPrefix(text, "/new") {
		m.session = 0
	}
	src, ctx, id := m.src, m.c.Ctx, m.session
	op := engine.NewOp()
	m.sendOp = op
	return func() tea.Msg {
		rep, err := src.ChatSend(ctx, engine.ChatSendArgs{Session: id, Text: text, Op: op})
		return sentMsg{rep: rep, err: err}
	}
}

// complete asks for completions of the word being typed.
func (m *Model) complete() tea.Cmd {
	v := m.input.Value()
	word := v
	if i := strings.LastIndexAny(v, " \t"); i >= 0 {
		word = v[i+1:]
	}
	slash := strings.HasPrefix(word, "/") && word == v
	if !strings.HasPrefix(word, "@") && !slash {
		m.comps = nil
		return nil
	}
	m.compSeq++
	seq, src, ctx := m.compSeq, m.src, m.c.Ctx
	return func() tea.Msg {
		list, _ := src.ChatComplete(ctx, word)
		return completeMsg{seq: seq, word: word, list: list}
	}
}

func (m *Model) accept() {
	if len(m.comps) == 0 {
		return
	}
	c := m.comps[min(m.compSel, len(m.comps)-1)]
	v := strings.TrimSuffix(m.input.Value(), m.compWord)
	text := c.Text
	if !strings.HasSuffix(text, "/") {
		text += " "
	}
	m.input.SetValue(v + text)
	m.input.CursorEnd()
	m.comps = nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	if key.Matches(msg, km.ForceQuit) {
		if m.running() && m.session != 0 {
			src, ctx, id := m.src, m.c.Ctx, m.session
			m.note = "canceling the turn… (the session stays)"
			return func() tea.Msg {
				if err := src.ChatCancel(ctx, id); err != nil && !errors.Is(err, run.ErrNotActive) {
					return common.ErrMsg{Err: err}
				}
				return common.ToastMsg{Text: "turn canceled; the session goes on"}
			}
		}
		return nil
	}
	if m.approval != nil {
		if key.Matches(msg, m.keys.Allow, m.keys.Deny) {
			req, ok := *m.approval, key.Matches(msg, m.keys.Allow)
			m.approval = nil
			src, ctx := m.src, m.c.Ctx
			return func() tea.Msg {
				if err := src.AnswerApproval(ctx, req.ID, ok); err != nil {
					return common.ErrMsg{Err: fmt.Errorf("could not answer the approval: %w", err)}
				}
				return nil
			}
		}
		return nil // the question has the keys until it is answered
	}
	switch {
	case m.focus == focusSessions:
		// The list's own pages.
	case key.Matches(msg, km.PageUp):
		m.scroll += max(1, m.transcriptHeight()-2)
		return nil
	case key.Matches(msg, km.PageDown):
		m.scroll = max(0, m.scroll-max(1, m.transcriptHeight()-2))
		return nil
	}
	switch m.focus {
	case focusSessions:
		return m.sessionsKey(msg)
	case focusTranscript:
		return m.transcriptKey(msg)
	}
	return m.inputKey(msg)
}

func (m *Model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	switch {
	case len(m.comps) > 0 && key.Matches(msg, km.Up):
		m.compSel = (m.compSel + len(m.comps) - 1) % len(m.comps)
		return nil
	case len(m.comps) > 0 && key.Matches(msg, km.Down):
		m.compSel = (m.compSel + 1) % len(m.comps)
		return nil
	case len(m.comps) > 0 && (key.Matches(msg, km.Tab) || key.Matches(msg, km.Enter)):
		m.accept()
		return m.complete()
	case key.Matches(msg, km.Enter):
		return m.send()
	case key.Matches(msg, km.Back):
		if len(m.comps) > 0 {
			m.comps = nil
			return nil
		}
		if len(m.tr.Turns) > 0 {
			m.focusTranscript(len(m.tr.Turns) - 1)
		}
		return nil
	case key.Matches(msg, km.Tab):
		if len(m.tr.Turns) > 0 {
			m.focusTranscript(len(m.tr.Turns) - 1)
		}
		return nil
	case key.Matches(msg, m.keys.Help) && m.input.Value() == "":
		return func() tea.Msg { return common.HelpMsg{} }
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return tea.Batch(cmd, m.complete())
}

func (m *Model) transcriptKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	sel := m.sel()
	if ok, _ := m.turns.HandleKey(msg); ok {
		m.reveal = true
		return nil // a list of rows in memory fetches nothing
	}
	switch {
	case key.Matches(msg, k.Apply):
		return m.apply(false)
	case key.Matches(msg, k.ApplyAll):
		return m.apply(true)
	case key.Matches(msg, k.Discard):
		return m.discard()
	case key.Matches(msg, k.Edit):
		return m.edit()
	case key.Matches(msg, k.Expand):
		if sel >= 0 {
			n := fmt.Sprint(m.tr.Turns[sel].N)
			m.expanded[n] = !m.expanded[n]
		}
		return nil
	case key.Matches(msg, k.Context):
		m.showProv = !m.showProv
		return nil
	case key.Matches(msg, k.OpenContext):
		return m.openProvenance()
	case key.Matches(msg, k.Sessions):
		m.focus = focusSessions
		m.sessList.SetCursor(0)
		return m.loadSessions(false)
	case key.Matches(msg, k.Type):
		m.focusInputLine()
		return m.input.Focus()
	}
	if t := msg.Text; t != "" && t != "q" && t != "?" && utf8.RuneCountInString(t) == 1 {
		// Typing goes to the input line.
		m.focusInputLine()
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return tea.Batch(cmd, m.complete())
	}
	return nil
}

func (m *Model) sessionsKey(msg tea.KeyPressMsg) tea.Cmd {
	if ok, cmd := m.sessList.HandleKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.OpenSession):
		if s, ok := m.sessList.Selected(); ok {
			m.session = s.ID
			m.tr, m.changes, m.streams = chat.Transcript{}, map[uint64]chg.Changeset{}, map[int]*strings.Builder{}
			m.focusInputLine()
			return tea.Batch(m.loadTranscript(), m.input.Focus())
		}
	case key.Matches(msg, m.keys.CloseSessions):
		m.focusInputLine()
		return m.input.Focus()
	}
	return nil
}

// openProvenance opens what the selected turn's prompt context carried
// from the vault and the knowledge layer on the Knowledge screen.
func (m *Model) openProvenance() tea.Cmd {
	sel := m.sel()
	if sel < 0 {
		return nil
	}
	t := m.tr.Turns[sel]
	var refs []string
	for _, p := range t.Provenance {
		switch p.Block {
		case "vault":
			refs = append(refs, "vault:"+p.ID)
		case "knowledge":
			refs = append(refs, p.ID)
		}
	}
	if len(refs) == 0 {
		return common.Toast("this turn's prompt carried no vault or knowledge items (p lists its context)")
	}
	arg := common.KnowledgeRefs{Title: fmt.Sprintf("Context of chat %d, turn %d", t.Session, t.N), Refs: refs}
	return func() tea.Msg { return common.NavigateMsg{Page: KnowledgePage, Arg: arg} }
}

// selected is the selected turn's pending changeset.
func (m *Model) selected() (chat.Turn, chg.Changeset, bool) {
	sel := m.sel()
	if sel < 0 {
		return chat.Turn{}, chg.Changeset{}, false
	}
	t := m.tr.Turns[sel]
	cs, ok := m.changes[t.ChangesetID]
	return t, cs, ok && t.ChangesetID != 0
}

// apply applies the selected turn's change (all: every pending change of
// the turn), through the Changes screen's path (it teaches the vault and
// the playbooks).
func (m *Model) apply(all bool) tea.Cmd {
	t, cs, ok := m.selected()
	if !ok {
		return common.Toast("no change in this turn to apply")
	}
	if cs.Status != chg.StatusPending {
		return common.Toast(fmt.Sprintf("changeset %d is %s", cs.ID, cs.Status))
	}
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		rep, err := src.ApplyChange(ctx, cs.ID, chg.ApplyOptions{}, "")
		if err != nil {
			return decidedMsg{err: fmt.Errorf("apply changeset %d: %w", cs.ID, err)}
		}
		what := fmt.Sprintf("applied %s of turn %d (/undo reverts it)", strings.Join(rep.Applied, ", "), t.N)
		if all {
			what = "applied every change of turn " + fmt.Sprint(t.N) + ": " + strings.Join(rep.Applied, ", ")
		}
		return decidedMsg{what: what}
	}
}

func (m *Model) discard() tea.Cmd {
	t, cs, ok := m.selected()
	if !ok || cs.Status != chg.StatusPending {
		return common.Toast("no pending change in this turn to discard")
	}
	src, ctx := m.src, m.c.Ctx
	return func() tea.Msg {
		_, err := src.DiscardChange(ctx, cs.ID, "")
		if err != nil {
			return decidedMsg{err: err}
		}
		return decidedMsg{what: fmt.Sprintf("discarded the change of turn %d", t.N)}
	}
}

// edit opens the first pending file of the selected turn's change in
// $VISUAL / $EDITOR.
func (m *Model) edit() tea.Cmd {
	_, cs, ok := m.selected()
	if !ok || cs.Status != chg.StatusPending {
		return common.Toast("no pending change in this turn to edit")
	}
	var f chg.File
	for _, x := range cs.Files {
		if x.Status == chg.FilePending && !x.ProposedBinary() && x.Op != chg.OpDelete {
			f = x
			break
		}
	}
	if f.Path == "" {
		return common.Toast("no text file of this change can be edited")
	}
	ready := editReadyMsg{id: cs.ID, path: f.Path, proposal: f.Proposed}
	return func() tea.Msg {
		dir, err := os.MkdirTemp("", "nova-edit-")
		if err != nil {
			ready.err = err
			return ready
		}
		ready.dir, ready.tmp = dir, filepath.Join(dir, path.Base(ready.path))
		ready.err = os.WriteFile(ready.tmp, []byte(ready.proposal), 0o600)
		return ready
	}
}

func (m *Model) runEditor(msg editReadyMsg) tea.Cmd {
	if msg.err != nil {
		_ = os.RemoveAll(msg.dir)
		return common.Failure(fmt.Errorf("edit %s: %w", msg.path, msg.err))
	}
	return tea.ExecProcess(editor.Command(m.getenv, msg.tmp), func(err error) tea.Msg {
		return editDoneMsg{ready: msg, err: err}
	})
}

func (m *Model) editDone(msg editDoneMsg) tea.Cmd {
	src, ctx, r := m.src, m.c.Ctx, msg.ready
	if msg.err != nil {
		_ = os.RemoveAll(r.dir)
		return common.Failure(fmt.Errorf("the editor (%s) failed: %w; nothing changed", editor.Name(m.getenv), msg.err))
	}
	return func() tea.Msg {
		defer func() { _ = os.RemoveAll(r.dir) }()
		data, err := safefile.ReadFile(r.tmp, 8<<20)
		if err != nil {
			return decidedMsg{err: fmt.Errorf("read what was saved: %w", err)}
		}
		if !utf8.Valid(data) {
			return decidedMsg{err: errors.New("what was saved is not UTF-8 text; nothing changed")}
		}
		if string(data) == r.proposal {
			return decidedMsg{what: "nothing changed in " + r.path}
		}
		if _, err := src.EditChange(ctx, r.id, r.path, string(data)); err != nil {
			return decidedMsg{err: err}
		}
		return decidedMsg{what: "edited " + r.path + " (a applies it)"}
	}
}
