package vault

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	engvault "github.com/nova-dev/nova/engine/vault"
)

// browsePane is the vault's main view: the list and, from SplitMinWidth, the
// detail of the selected node beside it; enter gives the detail the focus
// (full width on narrow screens).
type browsePane struct {
	*shared
	list   *listPane
	detail *detailPane

	width, height int
	focusDetail   bool
	lastTarget    uint64
}

func newBrowsePane(sh *shared) *browsePane {
	return &browsePane{shared: sh, list: newListPane(sh), detail: newDetailPane(sh)}
}

func (b *browsePane) wide() bool { return b.width >= SplitMinWidth }

func (b *browsePane) listPanelWidth() int {
	if b.wide() {
		return b.width * 11 / 20
	}
	return b.width
}

func (b *browsePane) detailPanelWidth() int {
	if b.wide() {
		return b.width - b.listPanelWidth()
	}
	return b.width
}

// panelHeight is the height of the panels below the tab and search lines.
func (b *browsePane) panelHeight() int { return max(3, b.height-topLines) }

// topLines are the tab and search lines above the panels.
const topLines = 2

func (b *browsePane) setSize(w, h int) {
	b.width, b.height = w, h
	inner := max(1, b.listPanelWidth()-4)
	rows := max(1, b.panelHeight()-2-1) // border, header line
	b.list.setSize(w, inner, rows)
	b.detail.setSize(b.detailPanelWidth(), b.panelHeight())
}

// target is the node the detail pane shows (0 = none).
func (b *browsePane) target() uint64 {
	if b.focusDetail {
		return b.detail.id
	}
	if n, ok := b.list.selected(); ok {
		return n.ID
	}
	return 0
}

// actionTarget is the node the page's actions apply to.
func (b *browsePane) actionTarget() (engvault.Node, bool) {
	if b.focusDetail {
		if b.detail.id == 0 {
			return engvault.Node{}, false
		}
		if n, ok := b.detail.node(b.detail.id); ok {
			return n, true
		}
		return engvault.Node{ID: b.detail.id}, true
	}
	return b.list.selected()
}

// focus shows node id in the focused detail.
func (b *browsePane) focus(id uint64, cursor int) {
	b.focusDetail = true
	b.detail.show(id, cursor)
}

func (b *browsePane) capturing() bool { return b.list.capturing() }

// reconcile asks for the detail the screen shows and does not have; shown
// says whether the browse view is on screen.
func (b *browsePane) reconcile(shown bool) tea.Cmd {
	id := b.target()
	if id != b.lastTarget {
		b.lastTarget = id
		if !b.focusDetail {
			b.detail.want, b.detail.scroll, b.detail.linksOf = 0, 0, nil
		}
	}
	if !shown || (!b.wide() && !b.focusDetail) || id == 0 {
		return nil
	}
	return b.detail.load(id)
}

func (b *browsePane) update(msg tea.Msg) tea.Cmd {
	return tea.Batch(b.list.update(msg), b.detail.update(msg))
}

func (b *browsePane) refresh() tea.Cmd {
	b.detail.reload() // details reload; the old ones stay on screen meanwhile
	return b.list.refresh()
}

// key handles the browse view's keys; it reports whether it used k.
func (b *browsePane) key(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := b.c.KeyMap
	if b.focusDetail {
		if key.Matches(k, km.Tab) {
			b.focusDetail = false
			b.detail.fixScroll()
			return send(forgetHistoryMsg{}), true
		}
		return b.detail.key(k)
	}
	if cmd, ok := b.list.key(k); ok {
		return cmd, true
	}
	if key.Matches(k, km.Enter, km.Tab) {
		if n, ok := b.list.selected(); ok {
			b.focusDetail = true
			b.detail.show(n.ID, 0)
			return send(forgetHistoryMsg{}), true
		}
		return nil, true
	}
	return nil, false
}

func (b *browsePane) view() string {
	top := b.list.tabsView() + "\n" + b.list.searchLine()
	ph := b.panelHeight()
	listFocused := !b.focusDetail && !b.list.capturing()
	if !b.wide() {
		if b.focusDetail {
			return top + "\n" + b.detail.panel(b.target(), true)
		}
		return top + "\n" + b.list.panel(b.width, ph, listFocused)
	}
	left := strings.Split(b.list.panel(b.listPanelWidth(), ph, listFocused), "\n")
	right := strings.Split(b.detail.panel(b.target(), b.focusDetail), "\n")
	// Both panels are exactly ph lines of their width: join them line by
	// line (lipgloss.JoinHorizontal would measure every line again).
	var sb strings.Builder
	sb.WriteString(top)
	for i := range min(len(left), len(right)) {
		sb.WriteString("\n" + left[i] + right[i])
	}
	return sb.String()
}
