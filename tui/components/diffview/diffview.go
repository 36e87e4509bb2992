// Package diffview is nova's reusable diff component: one file's original
// and proposed content as a unified or side-by-side (split) diff, with line
// numbers, hunk headers, theme backgrounds, chroma syntax highlighting and
// changed-word emphasis.
//
// Several views can live side by side (the rehearsal screen shows three):
// a Model has no global state, its own scroll position (Offset/SetOffset
// for synchronised scrolling) and its own caches.
//
// The diff is computed once per content (SetContent) with go-udiff. Rows are
// rendered lazily, only when they become visible, and cached per width,
// mode, horizontal offset and theme, so scrolling re-renders only the rows
// that scroll in. Syntax highlighting runs in the tea.Cmd SetContent
// returns; its result arrives as a message the owner must pass to Update
// (forward every message you do not handle yourself).
package diffview

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/nova-dev/nova/tui/common"
)

// Mode is how the diff is laid out.
type Mode uint8

// Modes.
const (
	// Auto is split at SplitMinWidth columns and more, unified below.
	Auto Mode = iota
	// Unified shows one column with old and new line numbers.
	Unified
	// Split shows the original on the left and the proposal on the right.
	Split
)

// SplitMinWidth is the width from which Auto mode shows a split diff.
const SplitMinWidth = 140

// MinWidth is the narrowest width the view lays out for.
const MinWidth = 30

// hscrollStep is how far left/right scroll horizontally.
const hscrollStep = 8

// Model is one diff view.
type Model struct {
	c         *common.Common
	keys      keyMap
	width     int
	height    int
	mode      Mode
	offset    int
	xoff      int
	focused   bool
	intraLine bool

	doc   *document
	pal   *palette
	cache rowCache
}

type cacheKey struct {
	doc   *document
	hl    *highlighted
	pal   *palette
	width int
	split bool
	xoff  int
}

// rowCache keeps rendered rows for one cacheKey; "" means not rendered yet
// (a rendered row is never empty: it holds at least a reset sequence).
type rowCache struct {
	key  cacheKey
	rows []string
}

// New returns an empty view.
func New(c *common.Common) *Model {
	m := &Model{c: c, keys: newKeyMap(), intraLine: true, focused: true}
	m.doc = newDocument("", "", "")
	return m
}

// SetContent replaces the file shown. Either side may be empty (a new or a
// deleted file). Calling it again with the same content keeps the scroll
// position. The returned command highlights the syntax off the UI
// goroutine; run it and pass its message to Update.
func (m *Model) SetContent(path, original, proposed string) tea.Cmd {
	if d := m.doc; d != nil && d.status != statusNotice && d.path == path && d.old == original && d.new == proposed {
		if m.doc.hl == nil {
			return m.doc.highlightCmd()
		}
		return nil
	}
	m.doc = newDocument(path, original, proposed)
	m.offset, m.xoff = 0, 0
	return m.doc.highlightCmd()
}

// SetNotice shows a message for path instead of a diff, e.g. for a file
// whose content is not available as text.
func (m *Model) SetNotice(path, title, hint string) {
	if d := m.doc; d != nil && d.status == statusNotice && d.path == path && d.title == title && d.hint == hint {
		return
	}
	m.doc = &document{path: path, status: statusNotice, title: title, hint: hint, maxWidth: -1}
	m.offset, m.xoff = 0, 0
}

// Path returns the file shown.
func (m *Model) Path() string { return m.doc.path }

// Stats returns the added and deleted line counts.
func (m *Model) Stats() (adds, dels int) { return m.doc.adds, m.doc.dels }

// Highlighted reports whether syntax colours have arrived.
func (m *Model) Highlighted() bool { return m.doc.hl != nil }

// SetIntraLine turns changed-word emphasis on or off (on by default).
func (m *Model) SetIntraLine(on bool) { m.intraLine = on; m.cache = rowCache{} }

// SetFocused changes how the header is drawn (several views side by side).
func (m *Model) SetFocused(f bool) { m.focused = f }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	top := m.topAnchor()
	m.width, m.height = max(0, w), max(0, h)
	m.restoreAnchor(top)
}

// Mode returns the configured mode (Auto unless toggled or set).
func (m *Model) Mode() Mode { return m.mode }

// SetMode sets the layout; Auto follows the width again.
func (m *Model) SetMode(mode Mode) {
	top := m.topAnchor()
	m.mode = mode
	m.restoreAnchor(top)
}

// IsSplit reports whether the view currently shows a split diff.
func (m *Model) IsSplit() bool {
	switch m.mode {
	case Split:
		return true
	case Unified:
		return false
	}
	return m.width >= SplitMinWidth
}

// ToggleMode switches between split and unified.
func (m *Model) ToggleMode() {
	if m.IsSplit() {
		m.SetMode(Unified)
	} else {
		m.SetMode(Split)
	}
}

// Rows returns the number of body rows in the current mode.
func (m *Model) Rows() int { return len(m.doc.rows(m.IsSplit())) }

// bodyHeight is the height left for rows under the header line.
func (m *Model) bodyHeight() int { return max(0, m.height-1) }

// MaxOffset is the largest scroll offset.
func (m *Model) MaxOffset() int { return max(0, m.Rows()-m.bodyHeight()) }

// Offset returns the index of the first visible row.
func (m *Model) Offset() int { return m.offset }

// SetOffset scrolls to row n (clamped), e.g. to keep views in sync.
func (m *Model) SetOffset(n int) { m.offset = max(0, min(n, m.MaxOffset())) }

// ScrollBy scrolls by n rows (negative is up).
func (m *Model) ScrollBy(n int) { m.SetOffset(m.offset + n) }

// XOffset returns the horizontal scroll in cells.
func (m *Model) XOffset() int { return m.xoff }

// SetXOffset scrolls horizontally, clamped so that the end of the longest
// line stays in view.
func (m *Model) SetXOffset(n int) { m.xoff = max(0, min(n, m.doc.longest()-hscrollStep)) }

// topAnchor remembers the diff line at the top of the view.
func (m *Model) topAnchor() int32 {
	rows := m.doc.rows(m.IsSplit())
	if m.offset < len(rows) {
		return rows[m.offset].anchor
	}
	return -1
}

func (m *Model) restoreAnchor(a int32) {
	if a < 0 {
		m.SetOffset(m.offset)
		return
	}
	m.SetOffset(findAnchor(m.doc.rows(m.IsSplit()), a))
}

// Init implements common.Component.
func (m *Model) Init() tea.Cmd { return nil }

// Update implements common.Component: scrolling keys, the mode toggle, and
// the highlighting result.
func (m *Model) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case highlightMsg:
		if msg.doc == m.doc {
			m.doc.hl = msg.hl
		}
	case tea.KeyPressMsg:
		km := m.c.KeyMap
		page := max(1, m.bodyHeight()-1)
		switch {
		case key.Matches(msg, km.Down):
			m.ScrollBy(1)
		case key.Matches(msg, km.Up):
			m.ScrollBy(-1)
		case key.Matches(msg, km.PageDown):
			m.ScrollBy(page)
		case key.Matches(msg, km.PageUp):
			m.ScrollBy(-page)
		case key.Matches(msg, km.Top):
			m.SetOffset(0)
		case key.Matches(msg, km.Bottom):
			m.SetOffset(m.MaxOffset())
		case key.Matches(msg, km.Right):
			m.SetXOffset(m.xoff + hscrollStep)
		case key.Matches(msg, km.Left):
			m.SetXOffset(m.xoff - hscrollStep)
		case key.Matches(msg, m.keys.SplitToggle):
			m.ToggleMode()
		}
	}
	return m, nil
}

// View implements common.Component: a header line, then the rows; exactly
// height lines of at most width cells.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.pal.stale(m.c.Styles) {
		m.pal = newPalette(m.c.Styles)
	}
	var b strings.Builder
	b.WriteString(m.header())
	body := m.bodyHeight()
	if body == 0 {
		return b.String()
	}
	b.WriteByte('\n')
	if m.doc.status != statusOK {
		b.WriteString(common.FitHeight(m.message(), body))
		return b.String()
	}
	split := m.IsSplit()
	rows := m.doc.rows(split)
	m.ensureCache(split)
	lines := make([]string, 0, body)
	for i := m.offset; i < min(len(rows), m.offset+body); i++ {
		if m.cache.rows[i] == "" {
			m.cache.rows[i] = m.renderRow(rows[i], split, m.width)
		}
		lines = append(lines, m.cache.rows[i])
	}
	for len(lines) < body {
		lines = append(lines, "")
	}
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}

// Render is View under another name, for screens that compose several
// views and read better with it.
func (m *Model) Render() string { return m.View() }

func (m *Model) ensureCache(split bool) {
	k := cacheKey{doc: m.doc, hl: m.doc.hl, pal: m.pal, width: m.width, split: split, xoff: m.xoff}
	if m.cache.key != k || m.cache.rows == nil {
		m.cache = rowCache{key: k, rows: make([]string, len(m.doc.rows(split)))}
	}
}

// header is "path  +A −D  badges … mode · position".
func (m *Model) header() string {
	s := m.c.Styles
	d := m.doc
	pathStyle := s.Bold
	if m.focused {
		pathStyle = s.Title
	}
	var stats []string
	switch {
	case d.status != statusOK:
	case d.old == "":
		stats = append(stats, s.BadgeOK.Render("new"))
	case d.new == "":
		stats = append(stats, s.BadgeErr.Render("deleted"))
	}
	if d.status == statusOK {
		stats = append(stats, s.Success.Render("+"+strconv.Itoa(d.adds)), s.Error.Render("−"+strconv.Itoa(d.dels)))
	}
	right := ""
	if d.status == statusOK {
		mode := "unified"
		if m.IsSplit() {
			mode = "split"
		}
		right = mode + " · " + m.position()
		if m.xoff > 0 {
			right += fmt.Sprintf(" · col %d", m.xoff+1)
		}
	}
	statsText := strings.Join(stats, " ")
	statsW := lipgloss.Width(statsText)
	rightW := lipgloss.Width(right)
	path := d.path
	if path == "" {
		path = "(no file)"
	}
	room := m.width - statsW - 1
	if room-rightW-2 >= min(20, textWidth(path)) {
		room -= rightW + 2
	} else {
		right, rightW = "", 0
	}
	line := pathStyle.Render(truncateLeft(path, max(0, room)))
	if statsW > 0 && lipgloss.Width(line)+1+statsW <= m.width {
		line += " " + statsText
	}
	if rightW > 0 {
		gap := m.width - lipgloss.Width(line) - rightW
		line += strings.Repeat(" ", max(1, gap)) + s.Muted.Render(right)
	}
	return lipgloss.NewStyle().MaxWidth(m.width).Render(line)
}

// truncateLeft keeps the end of a path: "…/pkg/file.go".
func truncateLeft(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if textWidth(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && textWidth(string(r))+1 > width {
		r = r[1:]
	}
	return "…" + string(r)
}

// position is "all", "top", "end" or a percentage, like a pager.
func (m *Model) position() string {
	rows, body := m.Rows(), m.bodyHeight()
	switch {
	case rows <= body:
		return "all"
	case m.offset == 0:
		return "top"
	case m.offset >= m.MaxOffset():
		return "end"
	}
	return strconv.Itoa((m.offset+body)*100/rows) + "%"
}

// message explains a file that is not shown as a diff.
func (m *Model) message() string {
	d := m.doc
	var title, hint string
	switch d.status {
	case statusIdentical:
		title = "No changes"
		hint = "The proposed content is identical to the original."
		if d.path == "" {
			title, hint = "No file selected", "Pick a file to see its diff."
		}
	case statusBinary:
		title = "Binary file not shown"
		hint = sizes(d) + " — nova only diffs text."
	case statusNotUTF8:
		title = "Not UTF-8 text — not shown"
		hint = sizes(d) + " — the content has invalid UTF-8 bytes."
	case statusTooLarge:
		title = "File too large to diff"
		hint = sizes(d) + fmt.Sprintf(" — the limit is %s or %d lines a side.", humanBytes(MaxBytes), MaxLines)
	case statusNotice:
		title, hint = d.title, d.hint
	}
	w := m.width
	return "\n" + m.c.Empty(common.Truncate(title, w), common.Truncate(hint, w))
}

func sizes(d *document) string {
	switch {
	case d.old == "":
		return "new, " + humanBytes(len(d.new))
	case d.new == "":
		return "deleted, was " + humanBytes(len(d.old))
	}
	return humanBytes(len(d.old)) + " → " + humanBytes(len(d.new))
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
