package diffview

import (
	"image/color"
	"strconv"
	"strings"
	"unicode"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/aymanbagabas/go-udiff/lcs"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/themes"
)

// bg is the background class of a span.
type bg uint8

const (
	bgNone bg = iota
	bgAdd
	bgDel
	bgAddWord
	bgDelWord
	bgCount
)

type sgrKey struct {
	tt chroma.TokenType
	bg bg
}

// palette turns the theme into raw SGR sequences. Rows are assembled from
// these instead of lipgloss.Style.Render per token: a 2,000-line diff has
// tens of thousands of tokens and Render costs microseconds each.
type palette struct {
	styles  *themes.Styles
	name    string
	chroma  *chroma.Style
	bgs     [bgCount]color.Color
	text    color.Color
	subtle  color.Color
	sgr     map[sgrKey]string
	lineNo  [bgCount]string
	signAdd string
	signDel string
	hunk    string
	hunkSub string
	sep     string
}

const reset = ansi.ResetStyle

func newPalette(s *themes.Styles) *palette {
	p := &palette{styles: s, name: s.Name, chroma: s.Chroma, sgr: map[sgrKey]string{}}
	p.bgs[bgAdd] = realColor(s.DiffAdd.GetBackground())
	p.bgs[bgDel] = realColor(s.DiffDel.GetBackground())
	p.bgs[bgAddWord] = realColor(s.DiffAddWord.GetBackground())
	p.bgs[bgDelWord] = realColor(s.DiffDelWord.GetBackground())
	if p.bgs[bgAddWord] == nil {
		p.bgs[bgAddWord] = p.bgs[bgAdd]
	}
	if p.bgs[bgDelWord] == nil {
		p.bgs[bgDelWord] = p.bgs[bgDel]
	}
	p.text = realColor(s.Text.GetForeground())
	p.subtle = realColor(s.DiffEmpty.GetForeground())
	for b := bg(0); b < bgCount; b++ {
		p.lineNo[b] = sgrOf(s.DiffLineNo, p.bgs[b])
	}
	p.signAdd = sgrOf(s.DiffAddSign, nil)
	p.signDel = sgrOf(s.DiffDelSign, nil)
	p.hunk = sgrOf(s.DiffHunk, nil)
	p.hunkSub = sgrOf(s.DiffLineNo, nil)
	p.sep = sgrOf(s.DiffLineNo, nil)
	return p
}

// stale reports whether the theme changed since the palette was built (the
// root replaces *Styles in place on a theme switch).
func (p *palette) stale(s *themes.Styles) bool {
	return p == nil || p.styles != s || p.name != s.Name || p.chroma != s.Chroma
}

func realColor(c color.Color) color.Color {
	if c == nil {
		return nil
	}
	if _, ok := c.(lipgloss.NoColor); ok {
		return nil
	}
	return c
}

// sgrOf converts a lipgloss style's colours and attributes to one SGR
// sequence that starts from a reset. bgOverride replaces the background.
func sgrOf(st lipgloss.Style, bgOverride color.Color) string {
	s := ansi.Style{}.Reset()
	if fg := realColor(st.GetForeground()); fg != nil {
		s = s.ForegroundColor(fg)
	}
	b := realColor(st.GetBackground())
	if bgOverride != nil {
		b = bgOverride
	}
	if b != nil {
		s = s.BackgroundColor(b)
	}
	if st.GetBold() {
		s = s.Bold()
	}
	if st.GetItalic() {
		s = s.Italic(true)
	}
	if st.GetUnderline() {
		s = s.Underline(true)
	}
	return s.String()
}

// token returns the SGR for a token type on a background.
func (p *palette) token(tt chroma.TokenType, b bg) string {
	k := sgrKey{tt, b}
	if s, ok := p.sgr[k]; ok {
		return s
	}
	s := ansi.Style{}.Reset()
	fg := p.text
	var bold, italic, underline bool
	if tt == ttMarker {
		fg = p.subtle
		italic = true
	} else if p.chroma != nil {
		e := p.chroma.Get(tt)
		if e.Colour.IsSet() {
			fg = color.RGBA{R: e.Colour.Red(), G: e.Colour.Green(), B: e.Colour.Blue(), A: 0xff}
		}
		bold, italic, underline = e.Bold == chroma.Yes, e.Italic == chroma.Yes, e.Underline == chroma.Yes
	}
	if fg != nil {
		s = s.ForegroundColor(fg)
	}
	if c := p.bgs[b]; c != nil {
		s = s.BackgroundColor(c)
	}
	if bold {
		s = s.Bold()
	}
	if italic {
		s = s.Italic(true)
	}
	if underline {
		s = s.Underline(true)
	}
	out := s.String()
	p.sgr[k] = out
	return out
}

// tabWidth is the tab stop used to expand tabs.
const tabWidth = 4

// cellWidth is the terminal width of r (lipgloss measures the same way).
func cellWidth(r rune) int {
	if r < 0x80 {
		return 1
	}
	return ansi.StringWidth(string(r))
}

// sanitize makes raw file text safe to print: tabs are expanded from column
// col, control characters (an ESC in a file would drive the terminal) and
// bidi overrides become visible placeholders. It returns the new column.
func sanitize(s string, col int) (string, int) {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s, col + len(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case r == '\t':
			n := tabWidth - col%tabWidth
			b.WriteString("    "[:n])
			col += n
		case r < 0x20:
			b.WriteRune(0x2400 + r) // ␀ … ␟
			col++
		case r == 0x7f:
			b.WriteRune('␡')
			col++
		case r == utf8RuneError || (r >= 0x80 && r < 0xa0) || isBidiControl(r):
			b.WriteRune('�')
			col++
		default:
			w := cellWidth(r)
			if w == 0 && !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Me, r) {
				// Zero-width format characters (ZWSP, …) are made visible.
				b.WriteRune('�')
				col++
				continue
			}
			b.WriteRune(r)
			col += w
		}
	}
	return b.String(), col
}

const utf8RuneError = '\uFFFD'

func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// textWidth is the cell width of sanitized text.
func textWidth(s string) int {
	w := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			w = i
			for _, r := range s[i:] {
				w += cellWidth(r)
			}
			return w
		}
	}
	return len(s)
}

// lineSegs returns the sanitized tokens of one side of a diff line.
func (d *document) lineSegs(l dline, old bool) []seg {
	var raw []seg
	idx := l.new
	if old {
		idx = l.old
	}
	if d.hl != nil {
		side := d.hl.new
		if old {
			side = d.hl.old
		}
		if int(idx) < len(side) {
			raw = side[idx]
		}
	}
	if raw == nil {
		if t := strings.TrimSuffix(d.lineText(l, old), "\r"); t != "" {
			raw = []seg{{text: t, tt: chroma.Text}}
		}
	}
	out := make([]seg, len(raw))
	col := 0
	for i, s := range raw {
		out[i].tt = s.tt
		out[i].text, col = sanitize(s.text, col)
	}
	return out
}

func joinSegs(segs []seg) string {
	if len(segs) == 1 {
		return segs[0].text
	}
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.text)
	}
	return b.String()
}

// emitter writes text into a fixed number of cells, skipping the first xoff
// cells (horizontal scroll) and cutting at the limit.
type emitter struct {
	b     *strings.Builder
	skip  int
	room  int
	cur   string
	p     *palette
	words [][2]int // byte ranges (of the line) on the word background
	pos   int      // byte offset in the line
	wi    int
}

func (e *emitter) write(text string, tt chroma.TokenType, base, word bg) {
	for i, r := range text {
		if e.room <= 0 {
			return
		}
		pos := e.pos + i
		b := base
		for e.wi < len(e.words) && e.words[e.wi][1] <= pos {
			e.wi++
		}
		if e.wi < len(e.words) && pos >= e.words[e.wi][0] {
			b = word
		}
		w := 1
		if r >= 0x80 {
			w = cellWidth(r)
		}
		if e.skip > 0 {
			e.skip -= w
			if e.skip < 0 { // a wide rune cut by the scroll
				e.set(e.p.token(chroma.Text, b))
				n := min(-e.skip, e.room)
				e.b.WriteString(strings.Repeat(" ", n))
				e.room -= n
				e.skip = 0
			}
			continue
		}
		if w > e.room { // a wide rune that does not fit: pad instead
			e.set(e.p.token(chroma.Text, b))
			e.b.WriteString(strings.Repeat(" ", e.room))
			e.room = 0
			return
		}
		e.set(e.p.token(tt, b))
		e.b.WriteRune(r)
		e.room -= w
	}
	e.pos += len(text)
}

func (e *emitter) set(sgr string) {
	if sgr != e.cur {
		e.b.WriteString(sgr)
		e.cur = sgr
	}
}

// content writes one side's text into exactly width cells.
func (m *Model) content(b *strings.Builder, l dline, old bool, width int, base, word bg) {
	d, p := m.doc, m.pal
	segs := d.lineSegs(l, old)
	var words [][2]int
	if l.pair >= 0 && m.intraLine {
		words = d.wordRanges(l, old)
	}
	if d.isLastLine(l, old) && ((old && d.oldNoEOL) || (!old && d.newNoEOL)) && d.oldNoEOL != d.newNoEOL {
		segs = append(segs, seg{text: " ⏎ no newline at end of file", tt: ttMarker})
	}
	total := 0
	for _, s := range segs {
		total += textWidth(s.text)
	}
	e := emitter{b: b, skip: m.xoff, room: width, p: p, words: words}
	cut := total-m.xoff > width
	if cut {
		e.room = max(0, width-1)
	}
	for _, s := range segs {
		e.write(s.text, s.tt, base, word)
		if e.room <= 0 {
			break
		}
	}
	if cut && width > 0 {
		e.set(p.token(ttMarker, base))
		b.WriteString("…")
	} else if e.room > 0 {
		e.set(p.token(chroma.Text, base))
		b.WriteString(strings.Repeat(" ", e.room))
	}
}

// wordRanges returns the byte ranges of the changed words of a paired line
// (on the sanitized text), memoised per pair.
func (d *document) wordRanges(l dline, old bool) [][2]int {
	del, add := l, d.lines[l.pair]
	key := l.pair
	if old {
		key = add.pair
	}
	if del.kind != kindDel {
		del, add = add, del
	}
	if d.words == nil {
		d.words = map[int32][2][][2]int{}
	}
	r, ok := d.words[key]
	if !ok {
		a := joinSegs(d.lineSegs(del, true))
		bb := joinSegs(d.lineSegs(add, false))
		r[0], r[1] = changedWords(a, bb)
		d.words[key] = r
	}
	if old {
		return r[0]
	}
	return r[1]
}

// maxIntraLine bounds the lines compared word by word.
const maxIntraLine = 1000

// changedWords diffs two lines word by word and returns the changed byte
// ranges on each side; nothing when the lines share too little for the
// emphasis to help.
func changedWords(a, b string) (ra, rb [][2]int) {
	if a == b || len(a) > maxIntraLine || len(b) > maxIntraLine {
		return nil, nil
	}
	ta, oa := words(a)
	tb, ob := words(b)
	diffs := lcs.DiffLines(ta, tb)
	changed := 0
	for _, df := range diffs {
		if df.End > df.Start {
			ra = append(ra, [2]int{oa[df.Start], oa[df.End]})
			changed += oa[df.End] - oa[df.Start]
		}
		if df.ReplEnd > df.ReplStart {
			rb = append(rb, [2]int{ob[df.ReplStart], ob[df.ReplEnd]})
			changed += ob[df.ReplEnd] - ob[df.ReplStart]
		}
	}
	// Mostly rewritten lines are clearer without word emphasis.
	if changed*10 > (len(a)+len(b))*6 {
		return nil, nil
	}
	return ra, rb
}

// words splits s into word, space and punctuation tokens, and returns the
// byte offset of each token plus a final offset of len(s).
func words(s string) ([]string, []int) {
	var toks []string
	var offs []int
	class := func(r rune) int {
		switch {
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			return 1
		case unicode.IsSpace(r):
			return 2
		}
		return 3
	}
	start, prev := 0, 0
	for i, r := range s {
		c := class(r)
		if i > start && (c != prev || c == 3) {
			toks = append(toks, s[start:i])
			offs = append(offs, start)
			start = i
		}
		prev = c
	}
	if start < len(s) {
		toks = append(toks, s[start:])
		offs = append(offs, start)
	}
	offs = append(offs, len(s))
	return toks, offs
}

// lineNo writes a right-aligned line number (blank for n < 0).
func lineNo(b *strings.Builder, n int32, w int) {
	if n < 0 {
		b.WriteString(strings.Repeat(" ", w))
		return
	}
	s := strconv.Itoa(int(n) + 1)
	if len(s) < w {
		b.WriteString(strings.Repeat(" ", w-len(s)))
	}
	b.WriteString(s)
}

func bgsOf(k kind) (bg, bg) {
	switch k {
	case kindAdd:
		return bgAdd, bgAddWord
	case kindDel:
		return bgDel, bgDelWord
	}
	return bgNone, bgNone
}

// renderRow renders one layout row at exactly width cells.
func (m *Model) renderRow(r vrow, split bool, width int) string {
	var b strings.Builder
	b.Grow(width + 64)
	if r.hunk >= 0 {
		m.hunkRow(&b, m.doc.hunks[r.hunk], width)
		b.WriteString(reset)
		return b.String()
	}
	if !split {
		m.unifiedRow(&b, m.doc.lines[r.left], width)
	} else {
		lw := (width - 1) / 2
		m.half(&b, r.left, true, lw)
		b.WriteString(m.pal.sep)
		b.WriteString("│")
		m.half(&b, r.right, false, width-1-lw)
	}
	b.WriteString(reset)
	return b.String()
}

func (m *Model) hunkRow(b *strings.Builder, h hunk, width int) {
	text := "@@ -" + strconv.Itoa(h.oldStart) + "," + strconv.Itoa(h.oldCount) +
		" +" + strconv.Itoa(h.newStart) + "," + strconv.Itoa(h.newCount) + " @@"
	sub := ""
	if h.hidden > 0 {
		sub = "  " + strconv.Itoa(h.hidden) + " unchanged line"
		if h.hidden > 1 {
			sub += "s"
		}
	}
	text = truncateCells(text, width)
	b.WriteString(m.pal.hunk)
	b.WriteString(text)
	used := textWidth(text)
	if sub != "" && used < width {
		sub = truncateCells(sub, width-used)
		b.WriteString(m.pal.hunkSub)
		b.WriteString(sub)
		used += textWidth(sub)
	}
	b.WriteString(reset)
	b.WriteString(strings.Repeat(" ", max(0, width-used)))
}

// unifiedRow: "old new ±  text".
func (m *Model) unifiedRow(b *strings.Builder, l dline, width int) {
	nw := m.doc.numWidth
	base, word := bgsOf(l.kind)
	gutter := 2*nw + 2
	if width < gutter+2 {
		b.WriteString(strings.Repeat(" ", max(0, width)))
		return
	}
	b.WriteString(m.pal.lineNo[base])
	lineNo(b, l.old, nw)
	b.WriteByte(' ')
	lineNo(b, l.new, nw)
	b.WriteByte(' ')
	m.sign(b, l.kind)
	m.content(b, l, l.kind == kindDel, width-gutter-2, base, word)
}

// half renders one side of a split row: "num ±  text".
func (m *Model) half(b *strings.Builder, idx int32, old bool, width int) {
	nw := m.doc.numWidth
	if idx < 0 || width < nw+3 {
		b.WriteString(m.pal.token(chroma.Text, bgNone))
		b.WriteString(strings.Repeat(" ", max(0, width)))
		return
	}
	l := m.doc.lines[idx]
	base, word := bgsOf(l.kind)
	b.WriteString(m.pal.lineNo[base])
	n := l.new
	if old {
		n = l.old
	}
	lineNo(b, n, nw)
	b.WriteByte(' ')
	m.sign(b, l.kind)
	m.content(b, l, old, width-nw-3, base, word)
}

func (m *Model) sign(b *strings.Builder, k kind) {
	switch k {
	case kindAdd:
		b.WriteString(m.pal.signAdd)
		b.WriteString("+ ")
	case kindDel:
		b.WriteString(m.pal.signDel)
		b.WriteString("- ")
	default:
		b.WriteString(m.pal.token(chroma.Text, bgNone))
		b.WriteString("  ")
	}
}

// truncateCells cuts plain text to width cells with an ellipsis.
func truncateCells(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if textWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}
