// Package vlist is nova's virtualised list: it renders only the rows in its
// window and fetches rows a page at a time from a Source, inside tea.Cmds,
// so a list of 100k records scrolls as fast as a list of ten.
//
// A list has two modes. With a Source (SetSource) it knows nothing until
// the first page arrives; it then keeps a bounded cache of pages (least
// recently used pages outside the window are evicted) and asks for the
// pages around the window whenever the cursor moves. With SetRows it shows
// a slice it already holds (search results, small lists).
//
// Pages arrive as messages the owner must pass to Update (forward every
// message you do not handle yourself). Every list has its own id and every
// SetSource/Refresh starts a new generation, so a page fetched for another
// list, or before a refresh, is dropped.
//
// bubbles' list component keeps every item in memory and renders through
// its own delegate and filter; nova needs paging over an engine cursor and
// nova's styles, hence this small component.
package vlist

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/tui/common"
)

// Source fetches the rows [offset, offset+limit) of a list and the total
// number of rows. It runs inside a tea.Cmd, off the UI goroutine.
type Source[T any] interface {
	Fetch(ctx context.Context, offset, limit int) (rows []T, total int, err error)
}

// SourceFunc adapts a function to Source.
type SourceFunc[T any] func(ctx context.Context, offset, limit int) ([]T, int, error)

// Fetch implements Source.
func (f SourceFunc[T]) Fetch(ctx context.Context, offset, limit int) ([]T, int, error) {
	return f(ctx, offset, limit)
}

// RenderFunc draws one row in at most width cells; selected is the cursor
// row and focused says whether the list has the keyboard.
type RenderFunc[T any] func(row T, index int, selected, focused bool, width int) string

// Defaults.
const (
	DefaultPageSize = 100
	DefaultMaxPages = 64
)

var ids atomic.Uint64

type pageMsg[T any] struct {
	list   uint64
	gen    uint64
	index  int
	rows   []T
	total  int
	err    error
	offset int
}

type page[T any] struct {
	rows []T
	gen  uint64
	used uint64
}

// Model is one virtualised list.
type Model[T any] struct {
	c      *common.Common
	id     uint64
	render RenderFunc[T]

	src    Source[T]
	static []T
	isStat bool

	gen      uint64
	pages    map[int]*page[T]
	inflight map[int]uint64
	clock    uint64
	total    int // -1 until the first page arrives
	err      error

	pageSize, maxPages int
	cursor, top        int
	width, height      int
	focused            bool
	scrollbar          bool
	exact              bool
	marker             bool
	rowHeight          int
	emptyText          string
}

// New returns an empty list drawing rows with render.
func New[T any](c *common.Common, render RenderFunc[T]) *Model[T] {
	return &Model[T]{
		c: c, id: ids.Add(1), render: render, total: 0, isStat: true,
		pages: map[int]*page[T]{}, inflight: map[int]uint64{},
		pageSize: DefaultPageSize, maxPages: DefaultMaxPages,
		focused: true, scrollbar: true, emptyText: "nothing here", rowHeight: 1,
	}
}

// SetMarker puts a "›" before the cursor row (two cells of every row go to
// the gutter): the selection shows by more than colour.
func (m *Model[T]) SetMarker(on bool) { m.marker = on }

// SetRowHeight makes every row n lines tall (the render function returns
// n lines joined by newlines; missing lines are blank, extra ones dropped).
func (m *Model[T]) SetRowHeight(n int) {
	m.rowHeight = max(1, n)
	m.clamp()
}

// visible is how many rows fit the height.
func (m *Model[T]) visible() int { return max(1, m.height/m.rowHeight) }

// Position is "cursor/total" (1-based), "" for an empty list: the place in
// a list taller than its panel, for the panel's title.
func (m *Model[T]) Position() string {
	if m.Len() == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", m.cursor+1, m.Len())
}

// Above and Below count the rows scrolled out of view on each side.
func (m *Model[T]) Above() int { return m.top }

// Below counts the rows under the window.
func (m *Model[T]) Below() int { return max(0, m.Len()-m.top-m.visible()) }

// SetPageSize changes how many rows one fetch asks for (before SetSource).
func (m *Model[T]) SetPageSize(n int) { m.pageSize = max(1, n) }

// SetMaxPages bounds the page cache (at least 2).
func (m *Model[T]) SetMaxPages(n int) { m.maxPages = max(2, n) }

// SetEmptyText is shown when the list has no rows.
func (m *Model[T]) SetEmptyText(s string) { m.emptyText = s }

// SetExactRows promises that the render function returns rows exactly
// width cells wide, so the list does not measure them (a frame then costs
// no width computation at all for cached rows).
func (m *Model[T]) SetExactRows(on bool) { m.exact = on }

// SetScrollbar turns the one-column scrollbar on or off.
func (m *Model[T]) SetScrollbar(on bool) { m.scrollbar = on }

// SetFocused says whether the list has the keyboard (rows may draw the
// cursor differently).
func (m *Model[T]) SetFocused(f bool) { m.focused = f }

// Focused reports whether the list has the keyboard.
func (m *Model[T]) Focused() bool { return m.focused }

// SetSource shows src from its first row; the returned command fetches the
// first pages.
func (m *Model[T]) SetSource(src Source[T]) tea.Cmd {
	m.src, m.static, m.isStat = src, nil, false
	m.gen++
	m.pages = map[int]*page[T]{}
	m.inflight = map[int]uint64{}
	m.total, m.err = -1, nil
	m.cursor, m.top = 0, 0
	return m.ensure()
}

// SetRows shows rows (no fetching), from the first row.
func (m *Model[T]) SetRows(rows []T) {
	m.src, m.static, m.isStat = nil, rows, true
	m.gen++
	m.pages = map[int]*page[T]{}
	m.inflight = map[int]uint64{}
	m.total, m.err = len(rows), nil
	m.cursor, m.top = 0, 0
}

// ReplaceRows shows rows (no fetching) keeping the cursor on the row keep
// finds (nil, or no row found: the same index, clamped): a refreshed list
// does not jump.
func (m *Model[T]) ReplaceRows(rows []T, keep func(T) bool) {
	cur, top := m.cursor, m.top
	m.SetRows(rows)
	m.cursor, m.top = cur, top
	if keep != nil {
		for i, r := range rows {
			if keep(r) {
				m.cursor = i
				break
			}
		}
	}
	m.clamp()
}

// Refresh fetches the pages around the window again, keeping the cursor.
// The cached pages stay on screen until their fresh copies arrive.
func (m *Model[T]) Refresh() tea.Cmd {
	if m.isStat {
		return nil
	}
	m.gen++
	m.inflight = map[int]uint64{}
	return m.ensure()
}

// Len returns the number of rows (0 while the first page is loading).
func (m *Model[T]) Len() int { return max(0, m.total) }

// Loading reports whether the first page has not arrived yet.
func (m *Model[T]) Loading() bool { return !m.isStat && m.total < 0 }

// Err returns the last fetch error (nil after a successful fetch).
func (m *Model[T]) Err() error { return m.err }

// Cursor returns the index of the selected row.
func (m *Model[T]) Cursor() int { return m.cursor }

// Top returns the index of the first visible row.
func (m *Model[T]) Top() int { return m.top }

// Row returns row i when it is loaded.
func (m *Model[T]) Row(i int) (T, bool) {
	var zero T
	if i < 0 || i >= m.Len() {
		return zero, false
	}
	if m.isStat {
		return m.static[i], true
	}
	p, ok := m.pages[i/m.pageSize]
	if !ok || i%m.pageSize >= len(p.rows) {
		return zero, false
	}
	return p.rows[i%m.pageSize], true
}

// Selected returns the row under the cursor when it is loaded.
func (m *Model[T]) Selected() (T, bool) { return m.Row(m.cursor) }

// SetCursor moves the cursor to i (clamped) and scrolls it into view.
func (m *Model[T]) SetCursor(i int) tea.Cmd {
	m.cursor = i
	m.clamp()
	return m.ensure()
}

// SetSize implements common.Component.
func (m *Model[T]) SetSize(w, h int) {
	m.width, m.height = max(0, w), max(0, h)
	m.clamp()
}

// Width and Height return the size.
func (m *Model[T]) Width() int  { return m.width }
func (m *Model[T]) Height() int { return m.height }

// Init implements common.Component.
func (m *Model[T]) Init() tea.Cmd { return nil }

// Update implements common.Component: pages for this list, and the
// movement keys (up, down, page up/down, top, bottom).
func (m *Model[T]) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg := msg.(type) {
	case pageMsg[T]:
		return m, m.receive(msg)
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	}
	return m, nil
}

// HandleKey moves the cursor for a movement key and reports whether the key
// was one.
func (m *Model[T]) HandleKey(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	km := m.c.KeyMap
	if !key.Matches(msg, km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom) {
		return false, nil
	}
	return true, m.handleKey(msg)
}

func (m *Model[T]) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	km := m.c.KeyMap
	n := m.Len()
	if n == 0 {
		return nil
	}
	step := max(1, m.visible()-1)
	switch {
	case key.Matches(msg, km.Up):
		m.cursor--
	case key.Matches(msg, km.Down):
		m.cursor++
	case key.Matches(msg, km.PageUp):
		m.cursor -= step
		m.top -= step
	case key.Matches(msg, km.PageDown):
		m.cursor += step
		m.top += step
	case key.Matches(msg, km.Top):
		m.cursor = 0
	case key.Matches(msg, km.Bottom):
		m.cursor = n - 1
	default:
		return nil
	}
	m.clamp()
	return m.ensure()
}

func (m *Model[T]) clamp() {
	n := m.Len()
	m.cursor = min(max(m.cursor, 0), max(0, n-1))
	h := m.visible()
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+h {
		m.top = m.cursor - h + 1
	}
	m.top = min(max(m.top, 0), max(0, n-h))
}

func (m *Model[T]) receive(msg pageMsg[T]) tea.Cmd {
	if msg.list != m.id || m.isStat {
		return nil
	}
	if g, ok := m.inflight[msg.index]; ok && g == msg.gen {
		delete(m.inflight, msg.index)
	}
	if msg.gen != m.gen {
		return nil
	}
	if msg.err != nil {
		m.err = msg.err
		if m.total < 0 {
			m.total = 0
		}
		return common.Failure(fmt.Errorf("load rows %d–%d: %w", msg.offset, msg.offset+m.pageSize, msg.err))
	}
	m.err = nil
	m.clock++
	m.pages[msg.index] = &page[T]{rows: msg.rows, gen: msg.gen, used: m.clock}
	if msg.total != m.total {
		m.total = msg.total
		// Pages past the end belong to a longer list.
		for i := range m.pages {
			if i > 0 && i*m.pageSize >= m.total {
				delete(m.pages, i)
			}
		}
	}
	m.clamp()
	m.evict()
	return m.ensure()
}

// window returns the page indexes the list wants: the visible rows plus
// half a page either side.
func (m *Model[T]) window() (lo, hi int) {
	if m.total <= 0 {
		// Unknown or empty: the first page tells how many rows there are.
		return 0, 0
	}
	margin := m.pageSize / 2
	first := max(0, m.top-margin)
	last := min(m.top+m.visible()+margin, m.total-1)
	return first / m.pageSize, last / m.pageSize
}

// ensure returns the fetches the window needs that are not cached for the
// current generation nor already on their way.
func (m *Model[T]) ensure() tea.Cmd {
	if m.isStat || m.src == nil {
		return nil
	}
	lo, hi := m.window()
	var cmds []tea.Cmd
	for i := lo; i <= hi; i++ {
		if p, ok := m.pages[i]; ok {
			m.clock++
			p.used = m.clock
			if p.gen == m.gen {
				continue
			}
		}
		if g, ok := m.inflight[i]; ok && g == m.gen {
			continue
		}
		m.inflight[i] = m.gen
		cmds = append(cmds, m.fetch(i))
	}
	return tea.Batch(cmds...)
}

func (m *Model[T]) fetch(index int) tea.Cmd {
	src, ctx := m.src, m.c.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	id, gen, off, lim := m.id, m.gen, index*m.pageSize, m.pageSize
	return func() tea.Msg {
		rows, total, err := src.Fetch(ctx, off, lim)
		return pageMsg[T]{list: id, gen: gen, index: index, rows: rows, total: total, err: err, offset: off}
	}
}

// evict drops the least recently used pages outside the window while the
// cache holds more than maxPages.
func (m *Model[T]) evict() {
	if len(m.pages) <= m.maxPages {
		return
	}
	lo, hi := m.window()
	for len(m.pages) > m.maxPages {
		victim, oldest := -1, ^uint64(0)
		for i, p := range m.pages {
			if i >= lo && i <= hi {
				continue
			}
			if p.used < oldest {
				victim, oldest = i, p.used
			}
		}
		if victim < 0 {
			return
		}
		delete(m.pages, victim)
	}
}

// CachedPages returns how many pages are held (tests, benchmarks).
func (m *Model[T]) CachedPages() int { return len(m.pages) }

// View implements common.Component: exactly height lines of width cells.
func (m *Model[T]) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	s := m.c.Styles
	lines := make([]string, 0, m.height)
	n := m.Len()
	switch {
	case m.Loading():
		lines = append(lines, s.Subtle.Render(common.Truncate("loading…", m.width)))
	case n == 0:
		for _, l := range strings.Split(m.emptyText, "\n") {
			lines = append(lines, ansi.Truncate(l, m.width, "…"))
		}
	}
	vis := m.visible()
	bar := m.scrollbar && n > vis
	rowW := m.width
	if bar {
		rowW--
	}
	gutter := ""
	if m.marker {
		rowW = max(1, rowW-2)
		gutter = "  "
	}
	var thumbLo, thumbHi int
	var thumb, track string
	if bar {
		thumb, track = s.BarFull.Render("┃"), s.BarEmpty.Render("│")
		size := max(1, m.height*vis/n)
		pos := 0
		if n > vis {
			pos = (m.height - size) * m.top / (n - vis)
		}
		thumbLo, thumbHi = pos, pos+size
	}
	for i := 0; i < vis && m.top+i < n && len(lines) < m.height; i++ {
		idx := m.top + i
		var row []string
		if r, ok := m.Row(idx); ok {
			row = strings.Split(m.render(r, idx, idx == m.cursor, m.focused, rowW), "\n")
		} else {
			row = []string{s.Subtle.Render("  ·")}
		}
		for j := 0; j < m.rowHeight && len(lines) < m.height; j++ {
			line := ""
			if j < len(row) {
				line = row[j]
			}
			if !m.exact || j >= len(row) {
				line = fit(line, rowW)
			}
			if m.marker {
				mark := gutter
				if idx == m.cursor && j == 0 {
					mark = s.Selected.Render("›") + " "
					if !m.focused {
						mark = s.Bold.Render("›") + " "
					}
				}
				line = mark + line
			}
			if bar {
				if k := len(lines); k >= thumbLo && k < thumbHi {
					line += thumb
				} else {
					line += track
				}
			}
			lines = append(lines, line)
		}
	}
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// fit truncates or pads a styled line to exactly w cells.
func fit(line string, w int) string {
	lw := lipgloss.Width(line)
	if lw > w {
		line = ansi.Truncate(line, w, "…")
		lw = lipgloss.Width(line)
	}
	if lw < w {
		line += strings.Repeat(" ", w-lw)
	}
	return line
}

// ShortHelp implements help.KeyMap.
func (m *Model[T]) ShortHelp() []key.Binding {
	km := m.c.KeyMap
	return []key.Binding{km.Up, km.Down}
}

// FullHelp implements help.KeyMap.
func (m *Model[T]) FullHelp() [][]key.Binding {
	km := m.c.KeyMap
	return [][]key.Binding{{km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom}}
}

var _ common.Component = (*Model[int])(nil)
