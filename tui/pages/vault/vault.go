// Package vault is the vault browser: the taste vault's nodes in a
// virtualised list with type tabs and ranked search as you type, a detail
// pane (markdown, provenance, links you can follow and come back from), a
// graph view of a node's neighbourhood, a conflicts view, the archive (what
// the tier cap moved out, restorable), and the actions reinforce, demote,
// forget, link and tag.
//
// The page is composed like soft-serve's repo page: panes (browse = list +
// detail, graph, conflicts, archive) and dialogs (link picker, tags,
// confirmation), each a small component owning its state, messages and
// view. The page routes keys to the dialog or pane that has them, handles
// the actions on the pane's target node, and keeps the history of places
// (follow a link, come back). Every engine call runs in a tea.Cmd; results
// come back as messages tagged with a sequence number or generation so
// stale ones are dropped.
package vault

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/engine"
	engvault "github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/components/confirm"
)

// ID is the router id of the page.
const ID = "vault"

// Timings.
const (
	searchDebounce  = 150 * time.Millisecond
	refreshDebounce = 150 * time.Millisecond
)

// SplitMinWidth is the width from which the detail pane sits beside the
// list; below it enter opens the detail full width.
const SplitMinWidth = 120

// Confirmation ids (ResultMsg is seen by every page).
const confirmForget = "vault.forget"

type viewKind uint8

const (
	viewList viewKind = iota
	viewGraph
	viewConflicts
	viewArchive
)

// loc is a place the history can return to.
type loc struct {
	view        viewKind
	id          uint64 // detail node or graph root
	focusDetail bool
	depth       int
	cursor      int // the detail's link cursor, the conflicts cursor
}

// Model is the vault page.
type Model struct {
	*shared
	width  int
	height int

	view      viewKind
	browse    *browsePane
	graph     *graphPane
	conflicts *conflictsPane
	archive   *archivePane

	confirm *confirm.Model
	picker  *linkPicker
	tags    *tagsDialog

	history    []loc
	refreshSeq int
	warmed     bool // the search index build has been asked for
	// under is the view beneath an open dialog.
	under common.ViewCache
}

type actionMsg struct {
	op   string
	id   uint64
	node engvault.Node
	text string
	err  error
}

type refreshTickMsg struct{ seq int }

// New builds the page.
func New(c *common.Common, src Source) *Model {
	sh := &shared{c: c, keys: newKeyMap(), src: src, now: c.Clock()}
	m := &Model{shared: sh, confirm: confirm.New(c)}
	m.browse = newBrowsePane(sh)
	m.graph = newGraphPane(sh)
	m.conflicts = newConflictsPane(sh)
	m.archive = newArchivePane(sh)
	m.picker = newLinkPicker(sh, m.nodeByID)
	m.tags = newTagsDialog(sh, m.nodeByID)
	return m
}

// Title implements common.Page.
func (m *Model) Title() string { return "Vault" }

// Capturing implements common.Page: true while a text input or a dialog has
// the keyboard, so letters are not global shortcuts.
func (m *Model) Capturing() bool {
	return m.browse.capturing() || m.picker.active() || m.tags.open || m.confirm.Active()
}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd {
	if m.src == nil {
		return nil
	}
	return m.browse.list.init()
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.browse.setSize(w, h)
	m.graph.setSize(w, h)
	m.conflicts.setSize(w, h)
	m.archive.setSize(w, h)
	m.picker.setSize(w, h)
	m.tags.setSize(w)
	m.confirm.SetSize(w, h)
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	m.under.Update(msg, m.dialogOpen())
	cmd := m.update(msg)
	var rec tea.Cmd
	if m.src != nil && m.width > 0 {
		rec = m.browse.reconcile(m.view == viewList)
	}
	return m, tea.Batch(cmd, rec)
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.WindowSizeMsg:
		// The root has already called SetSize; fetch what the new window shows.
		return m.browse.list.browse.SetCursor(m.browse.list.browse.Cursor())
	case common.EventMsg:
		ev := msg.Event
		if ev.Type == engine.EventChanged && (ev.Topic == engine.TopicVault || ev.Topic == engine.TopicImport) {
			m.refreshSeq++
			return common.Debounce(refreshDebounce, refreshTickMsg{seq: m.refreshSeq})
		}
		return nil
	case refreshTickMsg:
		if msg.seq == m.refreshSeq {
			return m.refreshAll()
		}
		return nil
	case common.NavigateMsg:
		if msg.Page != ID || m.src == nil {
			return nil
		}
		if id, ok := navID(msg.Arg); ok {
			return m.jump(id)
		}
		return nil
	case jumpMsg:
		return m.jump(msg.id)
	case backMsg:
		return m.back()
	case forgetHistoryMsg:
		m.history = nil
		return nil
	case actionMsg:
		return m.afterAction(msg)
	case confirm.ResultMsg:
		if msg.ID == confirmForget && msg.Confirmed && m.src != nil {
			id, _ := msg.Payload.(uint64)
			return m.forgetCmd(id)
		}
	}
	// Results of the panes' and dialogs' commands, pages of their lists,
	// cursor blinks: each takes what is its own.
	return tea.Batch(m.browse.update(msg), m.graph.update(msg), m.conflicts.update(msg),
		m.archive.update(msg), m.picker.update(msg), m.tags.update(msg))
}

func navID(arg any) (uint64, bool) {
	switch a := arg.(type) {
	case uint64:
		return a, a != 0
	case int:
		return uint64(a), a > 0
	case engvault.Node:
		return a.ID, a.ID != 0
	}
	return 0, false
}

// refreshAll reloads everything shown after the vault changed.
func (m *Model) refreshAll() tea.Cmd {
	if m.src == nil {
		return nil
	}
	cmds := []tea.Cmd{m.browse.refresh()}
	if m.view == viewGraph && m.graph.root != 0 {
		cmds = append(cmds, m.graph.load(m.graph.root, m.graph.depth))
	}
	if m.conflicts.loaded || m.view == viewConflicts {
		cmds = append(cmds, m.conflicts.load())
	}
	if m.archive.loaded || m.view == viewArchive {
		cmds = append(cmds, m.archive.load())
	}
	cmds = append(cmds, m.picker.refresh())
	return tea.Batch(cmds...)
}

func (m *Model) afterAction(msg actionMsg) tea.Cmd {
	if msg.err != nil {
		return tea.Batch(common.Failure(msg.err), m.refreshAll())
	}
	if msg.op == "forget" {
		m.history = slices.DeleteFunc(m.history, func(l loc) bool {
			return l.id == msg.id && l.view != viewConflicts && l.view != viewArchive
		})
		m.browse.detail.forget(msg.id)
		if m.browse.focusDetail && m.browse.detail.id == msg.id {
			m.browse.detail.id = 0
			if len(m.history) > 0 {
				m.back()
			} else {
				m.browse.focusDetail = false
			}
		}
		if m.view == viewGraph && m.graph.root == msg.id {
			m.view = viewList
		}
	}
	return tea.Batch(common.Toast(msg.text), m.refreshAll())
}

// target returns the node the actions apply to.
func (m *Model) target() (engvault.Node, bool) {
	switch m.view {
	case viewGraph:
		id, ok := m.graph.selected()
		if !ok {
			return engvault.Node{}, false
		}
		return m.nodeByID(id), true
	case viewConflicts:
		return m.conflicts.target()
	case viewArchive:
		return engvault.Node{}, false // archived nodes are restored, not acted on
	}
	return m.browse.actionTarget()
}

// nodeByID is the best value the page has for node id: its loaded detail,
// a node of the graph, or just the id.
func (m *Model) nodeByID(id uint64) engvault.Node {
	if n, ok := m.browse.detail.node(id); ok {
		return n
	}
	if m.view == viewGraph {
		if n, ok := m.graph.node(id); ok {
			return n
		}
	}
	return engvault.Node{ID: id}
}

// ---- history ---------------------------------------------------------------

// jump shows node id in the detail pane, remembering where we were.
func (m *Model) jump(id uint64) tea.Cmd {
	m.history = append(m.history, m.here())
	if len(m.history) > 100 {
		m.history = m.history[len(m.history)-100:]
	}
	m.view = viewList
	m.browse.focus(id, 0)
	return nil
}

func (m *Model) here() loc {
	l := loc{view: m.view, focusDetail: m.browse.focusDetail, depth: m.graph.depth}
	switch m.view {
	case viewGraph:
		l.id = m.graph.root
	case viewConflicts:
		l.cursor = m.conflicts.cursor()
	case viewArchive:
		l.cursor = m.archive.cursor()
	default:
		if m.browse.focusDetail {
			l.id, l.cursor = m.browse.detail.id, m.browse.detail.linkCursor()
		}
	}
	return l
}

// push remembers where we are before opening another view.
func (m *Model) push() { m.history = append(m.history, m.here()) }

// back returns to the last place in the history; without history it leaves
// the detail or the current view.
func (m *Model) back() tea.Cmd {
	if n := len(m.history); n > 0 {
		l := m.history[n-1]
		m.history = m.history[:n-1]
		m.view, m.browse.focusDetail = l.view, l.focusDetail
		switch l.view {
		case viewGraph:
			return m.graph.load(l.id, l.depth)
		case viewConflicts:
			m.conflicts.rows.SetCursor(l.cursor)
		case viewArchive:
			m.archive.rows.SetCursor(l.cursor)
		default:
			if l.focusDetail {
				d := m.browse.detail
				d.show(l.id, l.cursor)
			}
		}
		return nil
	}
	switch {
	case m.view != viewList:
		m.view = viewList
	case m.browse.focusDetail:
		m.browse.focusDetail = false
	}
	return nil
}

// ---- keys ------------------------------------------------------------------

func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if !m.warmed && m.src != nil {
		// Keys reach only the active page: the user is here, and will
		// likely search. Build the search index in the background now
		// rather than at start-up for everyone.
		m.warmed = true
		return tea.Batch(warmCmd(m.ctx(), m.src), m.handleKey(k))
	}
	switch {
	case m.confirm.Active():
		_, cmd := m.confirm.Update(k)
		return cmd
	case m.picker.active():
		return m.picker.key(k, m.linkCmd)
	case m.tags.open:
		return m.tags.key(k, m.tagsCmd)
	case m.browse.list.capturing():
		return m.browse.list.keySearch(k)
	case m.src == nil:
		return nil
	}
	km := m.c.KeyMap
	switch {
	case key.Matches(k, km.Refresh):
		return m.refreshAll()
	case key.Matches(k, km.Filter):
		m.view, m.browse.focusDetail = viewList, false
		return m.browse.list.focusSearch()
	case key.Matches(k, m.keys.Conflicts):
		if m.view == viewConflicts {
			return m.back()
		}
		m.push()
		m.view = viewConflicts
		return m.conflicts.load()
	case key.Matches(k, m.keys.Archive):
		if m.view == viewArchive {
			return m.back()
		}
		m.push()
		m.view = viewArchive
		m.archive.restoreErr = nil
		return m.archive.load()
	}
	var cmd tea.Cmd
	var ok bool
	switch m.view {
	case viewGraph:
		cmd, ok = m.graph.key(k)
	case viewConflicts:
		cmd, ok = m.conflicts.key(k)
	case viewArchive:
		cmd, ok = m.archive.key(k, m.confirm.Open)
	default:
		cmd, ok = m.browse.key(k)
	}
	if ok {
		return cmd
	}
	return m.keyAction(k)
}

// keyAction handles the actions on the target node.
func (m *Model) keyAction(k tea.KeyPressMsg) tea.Cmd {
	km := m.keys
	n, ok := m.target()
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, km.Reinforce):
		return m.reinforceCmd(n.ID)
	case key.Matches(k, km.Demote):
		return m.demoteCmd(n.ID)
	case key.Matches(k, km.Forget):
		m.confirm.Open(confirm.Options{
			ID:      confirmForget,
			Title:   fmt.Sprintf("Forget node #%d?", n.ID),
			Body:    m.forgetBody(n),
			Yes:     "Forget",
			No:      "Keep",
			Danger:  true,
			Payload: n.ID,
		})
		return nil
	case key.Matches(k, km.Link):
		return m.picker.open(n.ID)
	case key.Matches(k, km.Tags):
		tags := n.Tags
		if d, ok := m.browse.detail.node(n.ID); ok {
			tags = d.Tags
		}
		return m.tags.start(n.ID, tags)
	case key.Matches(k, km.Graph):
		if m.view == viewGraph {
			return m.back()
		}
		m.push()
		m.view = viewGraph
		return m.graph.load(n.ID, m.graph.depth)
	}
	return nil
}

func (m *Model) forgetBody(n engvault.Node) string {
	body := fmt.Sprintf("“%s” will be removed from the vault", common.Truncate(label(n), 80))
	if d := m.browse.detail.details[n.ID]; d != nil && len(d.links) > 0 {
		body += ", with its " + plural(len(d.links), "link", "links")
	}
	return body + ". This cannot be undone."
}

// ---- actions ---------------------------------------------------------------

func (m *Model) actionCmd(op string, id uint64, fn func(ctx context.Context, src Source) (engvault.Node, string, error)) tea.Cmd {
	src, ctx := m.src, m.ctx()
	return func() tea.Msg {
		n, text, err := fn(ctx, src)
		return actionMsg{op: op, id: id, node: n, text: text, err: err}
	}
}

func (m *Model) reinforceCmd(id uint64) tea.Cmd {
	return m.actionCmd("reinforce", id, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		n, err := src.ReinforceNode(ctx, id)
		if err != nil {
			return n, "", fmt.Errorf("reinforce #%d: %w", id, err)
		}
		return n, fmt.Sprintf("#%d reinforced: confidence %.2f", id, n.Confidence), nil
	})
}

func (m *Model) demoteCmd(id uint64) tea.Cmd {
	return m.actionCmd("demote", id, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		n, err := src.DemoteNode(ctx, id)
		if err != nil {
			return n, "", fmt.Errorf("demote #%d: %w", id, err)
		}
		return n, fmt.Sprintf("#%d demoted: confidence %.2f", id, n.Confidence), nil
	})
}

func (m *Model) forgetCmd(id uint64) tea.Cmd {
	return m.actionCmd("forget", id, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		if err := src.ForgetNode(ctx, id); err != nil {
			return engvault.Node{}, "", fmt.Errorf("forget #%d: %w", id, err)
		}
		return engvault.Node{}, fmt.Sprintf("#%d forgotten", id), nil
	})
}

func (m *Model) linkCmd(from, to uint64, rel engvault.Relation) tea.Cmd {
	return m.actionCmd("link", from, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		if _, err := src.LinkNodes(ctx, from, to, rel, 0); err != nil {
			return engvault.Node{}, "", fmt.Errorf("link #%d %s #%d: %w", from, rel, to, err)
		}
		return engvault.Node{}, fmt.Sprintf("linked #%d %s #%d", from, rel, to), nil
	})
}

func (m *Model) tagsCmd(id uint64, tags []string) tea.Cmd {
	return m.actionCmd("tags", id, func(ctx context.Context, src Source) (engvault.Node, string, error) {
		n, err := src.UpdateNode(ctx, id, engvault.Patch{Tags: &tags})
		if err != nil {
			return n, "", fmt.Errorf("tags of #%d: %w", id, err)
		}
		if len(n.Tags) == 0 {
			return n, fmt.Sprintf("#%d has no tags", id), nil
		}
		return n, fmt.Sprintf("#%d tagged %s", id, strings.Join(n.Tags, ", ")), nil
	})
}

func warmCmd(ctx context.Context, src Source) tea.Cmd {
	return func() tea.Msg {
		_ = src.WarmVault(ctx) // builds the search index in the background; search works without
		return nil
	}
}

// ---- view ------------------------------------------------------------------

// View implements common.Component.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	s := m.c.Styles
	if m.src == nil {
		return s.Panel.Width(m.width).Render(m.c.Empty("The vault is not available.", "This workspace does not offer a taste vault."))
	}
	if !m.dialogOpen() {
		return m.baseView()
	}
	out := m.under.Get(m.c, m.width, m.height, m.baseView)
	switch {
	case m.confirm.Active():
		out = common.Overlay(out, m.confirm.View(), m.width, m.height)
	case m.picker.active():
		out = common.Overlay(out, m.picker.view(), m.width, m.height)
	case m.tags.open:
		out = common.Overlay(out, m.tags.view(), m.width, m.height)
	}
	return out
}

// ArchiveCursor is the archive view's selection (tests).
func (m *Model) ArchiveCursor() int { return m.archive.cursor() }

// dialogOpen reports a dialog over the view (it has the keyboard).
func (m *Model) dialogOpen() bool { return m.confirm.Active() || m.picker.active() || m.tags.open }

// baseView is the view under the dialogs.
func (m *Model) baseView() string {
	var out string
	switch m.view {
	case viewGraph:
		out = m.graph.view(m.nodeByID(m.graph.root))
	case viewConflicts:
		out = m.conflicts.view()
	case viewArchive:
		out = m.archive.view()
	default:
		out = m.browse.view()
	}
	return common.FitHeight(out, m.height)
}

var _ common.Page = (*Model)(nil)
