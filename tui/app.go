package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
	"github.com/nova-dev/nova/tui/components/helpview"
	"github.com/nova-dev/nova/tui/components/palette"
	"github.com/nova-dev/nova/tui/keymap"
	agentspage "github.com/nova-dev/nova/tui/pages/agents"
	buildpage "github.com/nova-dev/nova/tui/pages/build"
	changespage "github.com/nova-dev/nova/tui/pages/changes"
	chatpage "github.com/nova-dev/nova/tui/pages/chat"
	"github.com/nova-dev/nova/tui/pages/home"
	"github.com/nova-dev/nova/tui/pages/importwiz"
	knowledgepage "github.com/nova-dev/nova/tui/pages/knowledge"
	librarypage "github.com/nova-dev/nova/tui/pages/library"
	"github.com/nova-dev/nova/tui/pages/playbooks"
	rehearsalpage "github.com/nova-dev/nova/tui/pages/rehearsal"
	runpage "github.com/nova-dev/nova/tui/pages/run"
	vaultpage "github.com/nova-dev/nova/tui/pages/vault"
)

// Minimum terminal size nova lays out for.
const (
	MinWidth  = 80
	MinHeight = 24
)

// ollamaEvery is how often the status bar re-probes Ollama.
const ollamaEvery = 15 * time.Second

type ollamaTickMsg struct{}
type themeSavedMsg struct {
	name string
	err  error
}
type clearToastMsg struct{ seq int }

// quitRequestMsg asks to quit (q, ctrl+c, the palette); quitCheckMsg
// carries the builds a quit would interrupt.
type quitRequestMsg struct{}
type quitCheckMsg struct {
	// work is what a quit would interrupt.
	work engine.RunningWork
	// owner: this process owns the workspace; clients are the other nova
	// processes working through it.
	owner   bool
	clients []int
	err     error
}

// quitCheckTimeout bounds the running-builds question: a quit never hangs
// on it.
const quitCheckTimeout = 2 * time.Second

// PageFactory builds one page; pages are registered in order. New hands
// the page the workspace as the narrow Source it declares.
type PageFactory struct {
	ID  string
	New func(*common.Common, engine.Workspace) common.Page
}

// Source is what the root model needs from the engine: the header's facts,
// the event stream, the Ollama probe and the theme setting.
type Source interface {
	Info() engine.Info
	Config() workspace.Config
	Subscribe(ctx context.Context) <-chan engine.Event
	Ollama(ctx context.Context) (engine.OllamaStatus, error)
	SetTheme(ctx context.Context, name string) error
	// RunningWork says which builds, goal runs and workflow runs run in
	// the owning process: quitting asks first while there are any.
	RunningWork(ctx context.Context) (engine.RunningWork, error)
	// TakeRecoveredApplies reports, once, the applies a crash interrupted
	// that opening the workspace completed (a toast and Activity lines).
	TakeRecoveredApplies(ctx context.Context) (engine.Recovery, error)
}

// Options configures the app.
type Options struct {
	// Themes is the registry of palettes (built-ins plus the workspace's).
	Themes *themes.Registry
	// Pages overrides the page list (tests); nil means DefaultPages.
	Pages []PageFactory
	// ThemeErrors are problems loading user themes, shown once at start.
	ThemeErrors []error
	// Link is how this TUI holds the workspace (owner or client); nil when
	// no other process can reach it.
	Link Link
	// Now is the clock screens show ages with; nil is time.Now (tests pin it).
	Now func() time.Time
	// Start is the screen shown first ("" = the first page; `nova` starts
	// on the Chat screen).
	Start string
}

// DefaultPages lists nova's screens in tab order.
func DefaultPages() []PageFactory {
	return []PageFactory{
		{ID: home.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return home.New(c, ws) }},
		{ID: vaultpage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return vaultpage.New(c, ws) }},
		{ID: importwiz.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return importwiz.New(c, ws) }},
		{ID: agentspage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return agentspage.New(c, ws) }},
		{ID: changespage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return changespage.New(c, ws) }},
		{ID: buildpage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return buildpage.New(c, ws) }},
		{ID: playbooks.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return playbooks.New(c, ws) }},
		{ID: rehearsalpage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return rehearsalpage.New(c, ws) }},
		{ID: knowledgepage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return knowledgepage.New(c, ws) }},
		{ID: runpage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return runpage.New(c, ws) }},
		{ID: librarypage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return librarypage.New(c, ws) }},
		{ID: chatpage.ID, New: func(c *common.Common, ws engine.Workspace) common.Page { return chatpage.New(c, ws) }},
	}
}

// Model is the root model.
type Model struct {
	c      *common.Common
	ws     Source
	themes *themes.Registry
	pages  []common.Page
	ids    []string
	// screens are the keys that show each screen, named by its title
	// (alt+1 … for the first twelve).
	screens []key.Binding
	active  int
	events  <-chan engine.Event
	help    help.Model
	helpv   *helpview.Model
	palette *palette.Model
	quit    *confirm.Model
	link    Link
	link0   LinkStatus
	runs    *runSet // builds this TUI runs (RunBuild calls in flight)
	chats   *runSet // chat sessions this TUI runs a turn of (ChatSend calls in flight)
	goals   *runSet // goal runs this TUI runs (RunGoal calls in flight)
	flows   *runSet // workflow runs this TUI runs (RunWorkflow calls in flight)

	// handingOver: a hand-over to a headless owner is under way; exitNote
	// is printed after the TUI quits (where the workspace went).
	handingOver bool
	exitNote    string

	showHelp    bool
	showPalette bool
	// bodyCache is the page's last view while an overlay has the keys.
	bodyCache  string
	bodyCached bool
	// frame is the last screen drawn; it stays valid through messages that
	// change nothing (a cursor blink cancelled by typing), so they cost no
	// redraw.
	frame     string
	frameOK   bool
	ollama    *engine.OllamaStatus
	toast     string
	toastErr  bool
	toastSeq  int
	startErrs []error
}

// New builds the root model for ws. ctx bounds every engine call and the
// event subscription.
func New(ctx context.Context, ws engine.Workspace, opts Options) *Model {
	reg := opts.Themes
	if reg == nil {
		reg = themes.NewRegistry()
	}
	pal, err := reg.Get(ws.Config().Theme)
	if err != nil {
		pal = themes.NovaDark
		opts.ThemeErrors = append(opts.ThemeErrors, err)
	}
	c := &common.Common{
		Ctx:    ctx,
		Styles: themes.Build(pal),
		KeyMap: keymap.DefaultKeyMap(),
		Now:    opts.Now,
	}
	factories := opts.Pages
	if factories == nil {
		factories = DefaultPages()
	}
	m := &Model{c: c, ws: ws, themes: reg, help: help.New(), quit: confirm.New(c), startErrs: opts.ThemeErrors,
		link: opts.Link, runs: &runSet{}, goals: &runSet{}, flows: &runSet{}, chats: &runSet{}}
	pagesWS := tracked{Workspace: ws, runs: m.runs, goals: m.goals, flows: m.flows, chats: m.chats}
	for _, f := range factories {
		m.pages = append(m.pages, f.New(c, pagesWS))
		m.ids = append(m.ids, f.ID)
	}
	m.screens = screenKeys(c.KeyMap, m.pages)
	if i := m.index(opts.Start); opts.Start != "" && i >= 0 {
		m.active = i
	}
	m.help.Styles = c.Styles.Help
	m.helpv = helpview.New(c)
	m.palette = palette.New(c, m.paletteItems())
	m.events = ws.Subscribe(ctx)
	if len(m.startErrs) > 0 {
		m.toast, m.toastErr = "theme: "+m.startErrs[0].Error(), true
	}
	return m
}

// Common exposes the shared context (tests).
func (m *Model) Common() *common.Common { return m.c }

// ExitNote is what to tell the user once the TUI has quit ("" = nothing):
// where the workspace went after a hand-over.
func (m *Model) ExitNote() string { return m.exitNote }

// ActivePage returns the id of the visible page.
func (m *Model) ActivePage() string { return m.ids[m.active] }

func (m *Model) paletteItems() []palette.Item {
	var items []palette.Item
	for i, p := range m.pages {
		items = append(items, palette.Item{Group: "Go to", Title: p.Title(), Hint: m.goKey(i), Msg: common.NavigateMsg{Page: m.ids[i]}})
	}
	// Actions that open a page's own dialog: the page takes the Arg. An
	// action shows only when its page is registered.
	for _, a := range []struct {
		page, title string
		arg         any
		hint        string
	}{
		{buildpage.ID, "New build (pick a PRD)", common.ArgNew, ""},
		{agentspage.ID, "New agent run (the selected agent)", common.ArgNew, ""},
		{runpage.ID, "Run a goal", runpage.NewGoal{}, "n on Run"},
		{importwiz.ID, "Import a pattern library", nil, ""},
		{rehearsalpage.ID, "Open the rehearsal waiting for review", common.ArgPending, ""},
		{changespage.ID, "Revert a change", changespage.ArgRevert, "R on Changes"},
	} {
		if i := m.index(a.page); i >= 0 {
			hint := a.hint
			if hint == "" {
				hint = m.goKey(i)
			}
			items = append(items, palette.Item{Group: "Action", Title: a.title, Hint: hint, Msg: common.NavigateMsg{Page: a.page, Arg: a.arg}})
		}
	}
	items = append(items, palette.Item{Group: "Action", Title: "Switch theme…", Hint: "current " + m.c.Styles.Name, Msg: openPaletteMsg{filter: "theme "}})
	for _, name := range m.themes.Names() {
		hint := ""
		if name == m.c.Styles.Name {
			hint = "current"
		}
		items = append(items, palette.Item{Group: "Theme", Title: name, Hint: hint, Msg: common.SetThemeMsg{Name: name}})
	}
	items = append(items,
		palette.Item{Group: "Action", Title: "Refresh", Hint: "ctrl+r", Msg: refreshAllMsg{}},
		palette.Item{Group: "Action", Title: "Help", Hint: "?", Msg: toggleHelpMsg{}},
		palette.Item{Group: "Action", Title: "Quit", Hint: "q", Msg: quitRequestMsg{}},
	)
	return items
}

// index is the position of page id, or -1.
func (m *Model) index(id string) int {
	for i, pid := range m.ids {
		if pid == id {
			return i
		}
	}
	return -1
}

// goKey is the key that shows screen i ("" past the last GoTo key).
func (m *Model) goKey(i int) string {
	if i < len(m.screens) {
		return m.screens[i].Help().Key
	}
	return ""
}

// openPaletteMsg opens the palette with a filter typed in.
type openPaletteMsg struct{ filter string }

type refreshAllMsg struct{}

// recoveredMsg carries what the open recovered of interrupted applies.
type recoveredMsg struct{ rec engine.Recovery }

// fetchRecovered asks, once, which interrupted applies the open completed.
func (m *Model) fetchRecovered() tea.Cmd {
	src, ctx := m.ws, m.c.Ctx
	return func() tea.Msg {
		rec, err := src.TakeRecoveredApplies(ctx)
		if err != nil {
			return nil
		}
		return recoveredMsg{rec: rec}
	}
}

// recovered tells the user about the applies a crash interrupted: a toast,
// one Activity line each (as log events of the changes topic), and a
// refresh of the pages that show changesets.
func (m *Model) recovered(rec engine.Recovery) tea.Cmd {
	lines := engine.RecoveryLines(rec)
	if len(lines) == 0 {
		return nil
	}
	now := time.Now()
	msgs := []tea.Msg{}
	for _, l := range lines {
		msgs = append(msgs, common.EventMsg{Event: engine.Event{Type: engine.EventLog, Topic: engine.TopicChanges, Time: now, Text: l}})
	}
	msgs = append(msgs, common.EventMsg{Event: engine.Event{Type: engine.EventChanged, Topic: engine.TopicChanges, Time: now, Text: "recovered"}})
	toast := lines[0]
	if len(lines) > 1 {
		toast += fmt.Sprintf(" (+%d more in Activity)", len(lines)-1)
	}
	isErr := rec.Problem != ""
	for _, r := range rec.Applies {
		isErr = isErr || len(r.Conflicts) > 0
	}
	cmds := []tea.Cmd{m.setToast(toast, isErr)}
	for _, msg := range msgs {
		cmds = append(cmds, m.broadcast(msg))
	}
	return tea.Batch(cmds...)
}

type toggleHelpMsg struct{}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitEvents(m.events), m.c.FetchOllama(m.ws), tea.Tick(ollamaEvery, func(time.Time) tea.Msg { return ollamaTickMsg{} }),
		m.fetchRecovered()}
	if m.link != nil {
		cmds = append(cmds, m.fetchLink(), linkTick(), waitReconnect(m.link))
	}
	for _, p := range m.pages {
		cmds = append(cmds, p.Init())
	}
	return tea.Batch(cmds...)
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if !common.ChangesNothing(msg) {
		m.frameOK = false
	}
	if _, key := msg.(tea.KeyPressMsg); (!key && !common.IsCursorBlink(msg)) || (!m.showPalette && !m.showHelp) {
		m.bodyCached = false // anything but typing into an overlay may change the page
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = msg.Width, msg.Height
		m.layout()
		// Pages are already sized; they may need to fetch what the new
		// size shows (a page cannot return a command from SetSize).
		return m, m.broadcast(msg)

	case tea.KeyPressMsg:
		return m.handleKey(msg)

	case palette.ClosedMsg:
		m.showPalette = false
		if msg.Chosen != nil {
			chosen := msg.Chosen.Msg
			return m, func() tea.Msg { return chosen }
		}
		return m, nil

	case common.NavigateMsg:
		cmd := m.navigate(msg.Page)
		page := m.pages[m.active]
		_, fwd := page.Update(msg)
		return m, tea.Batch(cmd, fwd)

	case common.SetThemeMsg:
		return m, m.setTheme(msg.Name)

	case themeSavedMsg:
		if msg.err != nil {
			return m, m.setToast("theme "+msg.name+" applied but not saved: "+msg.err.Error(), true)
		}
		return m, m.setToast("theme "+msg.name+" saved to config.yaml", false)

	case refreshAllMsg:
		return m, m.broadcast(tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl})

	case toggleHelpMsg:
		m.toggleHelp(!m.showHelp)
		return m, nil

	case common.HelpMsg:
		m.toggleHelp(true)
		return m, nil

	case openPaletteMsg:
		return m, m.openPalette(msg.filter)

	case quitRequestMsg:
		return m, m.checkQuit()

	case quitCheckMsg:
		return m, m.quitOrAsk(msg)

	case confirm.ResultMsg:
		if msg.ID == quitDialogID {
			switch {
			case msg.Alt:
				return m, m.handover(msg.Payload)
			case msg.Confirmed:
				return m, tea.Quit
			}
			return m, nil
		}
		return m, m.broadcast(msg)

	case handoverDoneMsg:
		m.handingOver = false
		if msg.err != nil {
			return m, m.setToast(msg.err.Error(), true)
		}
		m.exitNote = msg.note
		return m, tea.Quit

	case linkTickMsg:
		return m, tea.Batch(m.fetchLink(), linkTick())

	case linkStatusMsg:
		m.link0 = msg.status
		return m, nil

	case reconnectMsg:
		// The stream came back through a new connection: events may have
		// been lost meanwhile.
		return m, tea.Batch(waitReconnect(m.link), m.fetchLink(), func() tea.Msg { return refreshAllMsg{} })

	case eventsClosedMsg:
		if m.link == nil || m.c.Ctx.Err() != nil {
			return m, nil
		}
		m.link0 = LinkStatus{Lost: true}
		return m, m.rejoin()

	case rejoinedMsg:
		return m, m.rejoined(msg)

	case common.ToastMsg:
		return m, m.setToast(msg.Text, msg.Error)

	case common.ErrMsg:
		if msg.Err == nil || errors.Is(msg.Err, context.Canceled) {
			return m, nil
		}
		return m, m.setToast(msg.Err.Error(), true)

	case clearToastMsg:
		if msg.seq == m.toastSeq {
			m.toast = ""
		}
		return m, nil

	case ollamaTickMsg:
		return m, tea.Batch(m.c.FetchOllama(m.ws), tea.Tick(ollamaEvery, func(time.Time) tea.Msg { return ollamaTickMsg{} }))

	case common.OllamaMsg:
		st := msg.Status
		m.ollama = &st
		return m, m.broadcast(msg)

	case recoveredMsg:
		return m, m.recovered(msg.rec)

	case common.EventMsg:
		if msg.Event.Type == engine.EventDropped {
			// The owner dropped this window's stream (it fell far behind,
			// e.g. suspended with ctrl+z): subscribe again and reload
			// every page, since the events in between are lost.
			m.events = m.ws.Subscribe(m.c.Ctx)
			return m, tea.Batch(waitEvents(m.events), m.setToast(msg.Event.Text+" (reconnected, pages reloaded)", false),
				func() tea.Msg { return refreshAllMsg{} })
		}
		// Re-arm first so no event waits behind a slow page.
		cmds := []tea.Cmd{waitEvents(m.events)}
		if msg.Event.Type == engine.EventThemeChanged && msg.Event.Text != m.c.Styles.Name {
			m.applyTheme(msg.Event.Text)
		}
		cmds = append(cmds, m.broadcast(msg))
		return m, tea.Batch(cmds...)
	}
	// Everything else (results of commands) goes to every page: each page
	// ignores what is not its own.
	return m, m.broadcast(msg)
}

func (m *Model) handleKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km := m.c.KeyMap
	if m.quit.Active() {
		if key.Matches(msg, km.ForceQuit) {
			return m, tea.Quit // ctrl+c twice quits at once
		}
		_, cmd := m.quit.Update(msg)
		return m, cmd
	}
	if m.handingOver {
		if key.Matches(msg, km.ForceQuit) {
			return m, m.setToast("handing the workspace over… (it finishes by itself; it cannot be stopped half way)", false)
		}
		return m, nil
	}
	if key.Matches(msg, km.ForceQuit) {
		// ctrl+c cancels what the screen runs (a chat turn), not nova.
		if in, ok := m.pages[m.active].(interface{ TakesInterrupt() bool }); ok && !m.showPalette && !m.showHelp && in.TakesInterrupt() {
			_, cmd := m.pages[m.active].Update(msg)
			return m, cmd
		}
		return m, m.checkQuit()
	}
	if m.showPalette {
		_, cmd := m.palette.Update(msg)
		return m, cmd
	}
	if m.showHelp {
		if m.helpv.Update(msg) {
			m.toggleHelp(false)
		}
		return m, nil
	}
	page := m.pages[m.active]
	if key.Matches(msg, km.Palette) {
		return m, m.openPalette("")
	}
	// alt+N never types text: it switches screens even while a page takes
	// text input.
	for i, b := range m.screens {
		if key.Matches(msg, b) {
			return m, m.navigate(m.ids[i])
		}
	}
	if !page.Capturing() {
		switch {
		case key.Matches(msg, km.Quit):
			return m, m.checkQuit()
		case key.Matches(msg, km.Help):
			m.toggleHelp(true)
			return m, nil
		case key.Matches(msg, km.NextPage):
			return m, m.navigate(m.ids[(m.active+1)%len(m.pages)])
		case key.Matches(msg, km.PrevPage):
			return m, m.navigate(m.ids[(m.active+len(m.pages)-1)%len(m.pages)])
		}
	}
	_, cmd := page.Update(msg)
	return m, cmd
}

func (m *Model) openPalette(filter string) tea.Cmd {
	m.showPalette, m.showHelp = true, false
	m.palette.SetItems(m.paletteItems())
	m.palette.SetSize(m.c.Width, m.bodyHeight())
	return m.palette.Open(filter)
}

// toggleHelp shows or hides the help of the active screen.
func (m *Model) toggleHelp(on bool) {
	m.showHelp = on
	if on {
		page := m.pages[m.active]
		m.helpv.Set("Keys — "+page.Title(), []helpview.Section{
			{Title: page.Title(), Groups: page.FullHelp()},
			{Title: "Everywhere", Groups: m.globalHelp()},
		})
		m.helpv.SetSize(m.c.Width, m.bodyHeight())
	}
}

// globalHelp is every key the root handles.
func (m *Model) globalHelp() [][]key.Binding {
	km := m.c.KeyMap
	return [][]key.Binding{
		{km.Help, km.Palette, km.Back, km.Quit, km.ForceQuit},
		{km.NextPage, km.PrevPage, km.Refresh},
		m.screens,
	}
}

// screenKeys are the GoTo keys of the pages there are, each helped by its
// screen's title: built once, when the pages are.
func screenKeys(km *keymap.KeyMap, pages []common.Page) []key.Binding {
	out := make([]key.Binding, 0, min(len(pages), len(km.GoTo)))
	for i, p := range pages {
		if i == len(km.GoTo) {
			break
		}
		b := km.GoTo[i]
		out = append(out, keymap.Bind(b.Help().Key, p.Title(), b.Keys()...))
	}
	return out
}

const quitDialogID = "quit"

// checkQuit asks which builds a quit would stop and who else works through
// this nova; quitCheckMsg quits or asks.
func (m *Model) checkQuit() tea.Cmd {
	ws, ctx, link, runs, goals, flows, chats := m.ws, m.c.Ctx, m.link, m.runs, m.goals, m.flows, m.chats
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, quitCheckTimeout)
		defer cancel()
		msg := quitCheckMsg{owner: true}
		if link != nil {
			st := link.Status(ctx)
			msg.owner, msg.clients = st.Owner, st.Clients
		}
		if !msg.owner {
			// A client stops only the builds and runs it runs: its calls
			// end with it.
			msg.work = engine.RunningWork{Builds: runs.list(), GoalRuns: goals.list(), WorkflowRuns: flows.list(), ChatSessions: chats.list()}
			return msg
		}
		msg.work, msg.err = ws.RunningWork(ctx)
		return msg
	}
}

// quitOrAsk quits at once when nothing would be lost (or the question
// cannot be answered: a quit never gets stuck); otherwise it asks, staying
// by default (quitQuestion).
func (m *Model) quitOrAsk(msg quitCheckMsg) tea.Cmd {
	if m.handingOver {
		return nil
	}
	opts, ask := quitQuestion(msg.work, msg.owner, m.link != nil && msg.owner, msg.clients)
	if msg.err != nil || !ask {
		return tea.Quit
	}
	m.quit.Open(opts)
	m.quit.SetSize(m.c.Width, m.bodyHeight())
	return nil
}

// handover hands the workspace to a headless owner (a tea.Cmd: it takes a
// few seconds); handoverDoneMsg quits or says why not.
func (m *Model) handover(payload any) tea.Cmd {
	work, _ := payload.(engine.RunningWork)
	m.handingOver = true
	link, ws, ctx := m.link, m.ws, m.c.Ctx
	toast := m.setToast("handing the workspace over to a headless nova…", false)
	return tea.Batch(toast, func() tea.Msg {
		// What runs now (the question may have been open a while).
		qctx, cancel := context.WithTimeout(ctx, quitCheckTimeout)
		if now, err := ws.RunningWork(qctx); err == nil {
			work = now
		}
		cancel()
		note, err := link.Handover(context.WithoutCancel(ctx), work)
		return handoverDoneMsg{note: note, err: err}
	})
}

func (m *Model) navigate(id string) tea.Cmd {
	for i, pid := range m.ids {
		if pid == id {
			m.active = i
			return nil
		}
	}
	return m.setToast("no screen "+id, true)
}

func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.pages))
	for _, p := range m.pages {
		_, cmd := p.Update(msg)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

func (m *Model) setToast(text string, isErr bool) tea.Cmd {
	m.toastSeq++
	m.toast, m.toastErr = text, isErr
	seq := m.toastSeq
	return tea.Tick(6*time.Second, func(time.Time) tea.Msg { return clearToastMsg{seq: seq} })
}

func (m *Model) applyTheme(name string) bool {
	pal, err := m.themes.Get(name)
	if err != nil {
		return false
	}
	*m.c.Styles = *themes.Build(pal)
	m.help.Styles = m.c.Styles.Help
	m.layout()
	return true
}

func (m *Model) setTheme(name string) tea.Cmd {
	if !m.applyTheme(name) {
		return m.setToast("unknown theme "+name, true)
	}
	ws, ctx := m.ws, m.c.Ctx
	return func() tea.Msg { return themeSavedMsg{name: name, err: ws.SetTheme(ctx, name)} }
}

func (m *Model) bodyHeight() int { return max(0, m.c.Height-3) }

func (m *Model) layout() {
	for _, p := range m.pages {
		p.SetSize(m.c.Width, m.bodyHeight())
	}
	m.palette.SetSize(m.c.Width, m.bodyHeight())
	m.helpv.SetSize(m.c.Width, m.bodyHeight())
	m.quit.SetSize(m.c.Width, m.bodyHeight())
	m.help.SetWidth(m.c.Width - 8)
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	if !m.frameOK {
		m.frame, m.frameOK = m.render(), true
	}
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.WindowTitle = "nova — " + filepath.Base(m.ws.Info().Root)
	return v
}

func (m *Model) render() string {
	s := m.c.Styles
	w, h := m.c.Width, m.c.Height
	if w == 0 || h == 0 {
		return ""
	}
	if w < MinWidth || h < MinHeight {
		msg := s.Title.Render("nova needs a bigger window") + "\n\n" +
			s.Text.Render(fmt.Sprintf("The terminal is %d×%d; nova lays out from %d×%d.", w, h, MinWidth, MinHeight)) + "\n" +
			s.Muted.Render("Enlarge the window, or press q to quit.")
		return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, lipgloss.NewStyle().MaxWidth(w).Render(msg))
	}
	header := m.headerView()
	body := m.bodyView()
	// Overlays cover the body only: the tab bar and the status bar stay in
	// view, so the screen always says where you are.
	switch {
	case m.quit.Active():
		body = common.Overlay(body, m.quit.View(), w, m.bodyHeight())
	case m.showPalette:
		body = common.Overlay(body, m.palette.View(), w, m.bodyHeight())
	case m.showHelp:
		body = common.Overlay(body, m.helpv.View(), w, m.bodyHeight())
	}
	return lipgloss.JoinVertical(lipgloss.Left, header, body, m.statusView())
}

// bodyView is the active page's view, cut to the body. While the palette or
// the help is open the keys go to them and the page does not change, so the
// page's view is kept rather than drawn again for every key (Update drops it
// whenever anything else happens).
func (m *Model) bodyView() string {
	if m.bodyCached && (m.showPalette || m.showHelp) {
		return m.bodyCache
	}
	body := common.FitHeight(m.pages[m.active].View(), m.bodyHeight())
	body = lipgloss.NewStyle().MaxWidth(m.c.Width).Render(body)
	m.bodyCache, m.bodyCached = body, true
	return body
}

func (m *Model) headerView() string {
	s := m.c.Styles
	logo := s.Logo.Render("✦ nova")
	room := max(0, m.c.Width-lipgloss.Width(logo)-1)
	line := logo + " " + m.tabsView(room)
	return s.Header.Width(m.c.Width).Render(common.Truncate(line, m.c.Width))
}

// tabsView draws the tab bar in width cells. When the tabs do not all fit,
// it shows a window of them around the active one, with the number of tabs
// hidden on each side (‹2 … 3›), so the active tab is always in view.
func (m *Model) tabsView(width int) string {
	s := m.c.Styles
	tabs := make([]string, len(m.pages))
	widths := make([]int, len(m.pages))
	// keys: 2 every tab's key, 1 the active tab's, 0 none.
	draw := func(keys int) int {
		total := len(m.pages) - 1 // separators
		for i, p := range m.pages {
			k := ""
			if keys == 2 || keys == 1 && i == m.active {
				k = m.goKey(i)
			}
			var t string
			if i == m.active {
				t = s.TabActive.Render(strings.TrimSpace(k + " " + p.Title()))
			} else {
				t = s.Tab.Render(strings.TrimSpace(k + " " + p.Title()))
			}
			tabs[i], widths[i] = t, lipgloss.Width(t)
			total += widths[i]
		}
		return total
	}
	// Every tab with its key when they fit; else every tab, the key only
	// on the active one, else no key (the help and the palette list the
	// keys), so a 120-column screen shows every screen; narrower, a window
	// of them (the active tab with its key).
	if draw(2) > width && draw(1) > width && draw(0) > width {
		draw(1)
	}
	sep := s.TabSep.Render("│")
	span := func(lo, hi int) int { // tabs lo..hi with separators and the markers
		w := hi - lo
		for i := lo; i <= hi; i++ {
			w += widths[i]
		}
		if lo > 0 {
			w += len(fmt.Sprintf("‹%d ", lo))
		}
		if hi < len(tabs)-1 {
			w += len(fmt.Sprintf(" %d›", len(tabs)-1-hi))
		}
		return w
	}
	lo, hi := m.active, m.active
	for grown := true; grown; {
		grown = false
		if hi+1 < len(tabs) && span(lo, hi+1) <= width {
			hi, grown = hi+1, true
		}
		if lo > 0 && span(lo-1, hi) <= width {
			lo, grown = lo-1, true
		}
	}
	var b strings.Builder
	if lo > 0 {
		b.WriteString(s.Subtle.Render(fmt.Sprintf("‹%d ", lo)))
	}
	b.WriteString(strings.Join(tabs[lo:hi+1], sep))
	if hi < len(tabs)-1 {
		b.WriteString(s.Subtle.Render(fmt.Sprintf(" %d›", len(tabs)-1-hi)))
	}
	return b.String()
}

func (m *Model) statusView() string {
	s := m.c.Styles
	hint := s.StatusValue.Render(footerHint)
	// The left part shortens until the footer hint fits beside it, and a
	// toast too when one shows (it says what just happened): the Ollama
	// version goes first, then the link badge and autonomy shrink; a toast
	// that still does not fit shortens the hint to "? help".
	toast := 0
	if m.toast != "" {
		toast = lipgloss.Width(m.toast) + 3
	}
	var left string
	for terse := range 4 {
		left = m.statusLeft(terse)
		if lipgloss.Width(left)+lipgloss.Width(hint)+2+toast <= m.c.Width {
			break
		}
	}
	if toast > 0 && lipgloss.Width(left)+lipgloss.Width(hint)+2+toast > m.c.Width {
		hint = s.StatusValue.Render(footerHintShort)
	}
	room := max(0, m.c.Width-lipgloss.Width(left)-lipgloss.Width(hint)-2)
	var right string
	if m.toast != "" {
		style := s.StatusValue
		if m.toastErr {
			style = s.StatusErr
		}
		right = style.Render(common.Truncate(m.toast, max(0, room-2)))
	} else {
		h := m.help // a copy: View must not change the model
		h.SetWidth(room)
		// help adds an item that overflows when its ellipsis does not fit,
		// so cut the line to the room.
		bindings := m.pages[m.active].ShortHelp()
		short := ansi.Truncate(h.ShortHelpView(bindings), room, "…")
		// Not even one whole binding fits: show nothing rather than "…" or
		// "c…" (the footer hint leads to every key).
		if firstBindingFits(bindings, room) {
			right = s.StatusValue.Render(short)
		}
	}
	if right != "" {
		right += s.StatusSep.Render("│")
	}
	right += hint
	gap := max(0, m.c.Width-lipgloss.Width(left)-lipgloss.Width(right))
	return s.StatusBar.Width(m.c.Width).Render(left + s.StatusBar.Render(strings.Repeat(" ", gap)) + right)
}

// statusLeft is the left part of the status bar, terser as terse grows
// (0–3).
func (m *Model) statusLeft(terse int) string {
	s := m.c.Styles
	info := m.ws.Info()
	cfg := m.ws.Config()
	autonomy := fmt.Sprintf("autonomy %d", cfg.Autonomy)
	if terse >= 3 {
		autonomy = fmt.Sprintf("auto %d", cfg.Autonomy)
	}
	left := s.StatusKey.Render(filepath.Base(info.Root)) +
		s.StatusValue.Render(cfg.Tier) + s.StatusSep.Render("│") +
		s.StatusValue.Render(autonomy) + s.StatusSep.Render("│")
	switch {
	case m.ollama == nil:
		left += s.StatusValue.Render("ollama …")
	case m.ollama.Reachable && terse == 0:
		left += s.StatusOK.Render("● ollama " + m.ollama.Version)
	case m.ollama.Reachable:
		left += s.StatusOK.Render("● ollama")
	default:
		left += s.StatusErr.Render("○ ollama offline")
	}
	if info.ReadOnly {
		left += s.StatusWarn.Render("read-only")
	}
	b := m.link0.badge()
	if terse >= 2 {
		b = m.link0.shortBadge()
	}
	if b != "" {
		style := s.StatusValue
		if m.link0.Lost {
			style = s.StatusWarn
		}
		left += s.StatusSep.Render("│") + style.Render(b)
	}
	return left
}

// footerHint is on the status bar at every width: the two keys that lead
// to everything else.
const footerHint = "? help · ctrl+p commands"

// footerHintShort is the footer hint beside a toast that needs the room.
const footerHintShort = "? help"

// firstBindingFits reports whether the first shown binding ("key desc")
// fits in room cells.
func firstBindingFits(bindings []key.Binding, room int) bool {
	for _, b := range bindings {
		if !b.Enabled() || b.Help().Key == "" {
			continue
		}
		return lipgloss.Width(b.Help().Key+" "+b.Help().Desc) <= room
	}
	return false
}
