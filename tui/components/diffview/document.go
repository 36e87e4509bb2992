package diffview

import (
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Limits beyond which a side is not diffed (a message is shown instead).
const (
	// MaxBytes is the largest side, in bytes, that is diffed.
	MaxBytes = 4 << 20
	// MaxLines is the largest side, in lines, that is diffed.
	MaxLines = 50_000
	// MaxHighlightBytes is the largest total (both sides) that is
	// syntax-highlighted; bigger diffs are shown without colours.
	MaxHighlightBytes = 1 << 20
	// contextLines is the unchanged context shown around each change.
	contextLines = 3
	// binarySniff is how much of a side is scanned for a NUL byte (git's
	// heuristic).
	binarySniff = 8000
)

// status says whether a document can be shown as a diff.
type status uint8

const (
	statusOK status = iota
	statusIdentical
	statusBinary
	statusNotUTF8
	statusTooLarge
	statusNotice // a caller's message (SetNotice)
)

// kind is the kind of one diff line.
type kind uint8

const (
	kindCtx kind = iota
	kindAdd
	kindDel
)

// dline is one line of the diff in unified order.
type dline struct {
	kind kind
	// old and new are 0-based indices into document.oldLines/newLines, -1
	// when the line does not exist on that side.
	old, new int32
	// pair is the index (into document.lines) of the line this one replaces
	// or is replaced by, for intra-line highlighting; -1 when unpaired.
	pair int32
}

// hunk is one "@@ -a,b +c,d @@" block: lines[first:end].
type hunk struct {
	oldStart, oldCount int
	newStart, newCount int
	first, end         int
	// hidden is how many unchanged lines precede the hunk since the
	// previous one (or the top of the file).
	hidden int
}

// vrow is one row of a layout. A hunk header has hunk >= 0; a line row has
// hunk < 0 and left/right indices into document.lines (-1 = blank side).
// In the unified layout only left is used.
type vrow struct {
	hunk        int32
	left, right int32
	// anchor is the index of the first diff line the row shows (or the
	// hunk's first line), used to keep the position when the mode changes.
	anchor int32
}

// document is one content version: the computed diff and both layouts. It
// is immutable once built, except for hl (set once, by Update) and the
// memoised intra-line ranges; its pointer identifies the content in async
// messages.
type document struct {
	path       string
	old, new   string
	status     status
	oldLines   []string
	newLines   []string
	oldNoEOL   bool // old side does not end with a newline
	newNoEOL   bool
	lines      []dline
	hunks      []hunk
	adds, dels int
	unified    []vrow
	split      []vrow
	// numWidth is the width of the widest line number.
	numWidth int

	hl    *highlighted
	words map[int32][2][][2]int // intra-line ranges by deleted line index
	// maxWidth is the widest shown line in cells (-1 until computed).
	maxWidth int
	// title and hint are the message of a statusNotice document.
	title, hint string
}

// newDocument computes the diff of old → new. It never fails: content that
// cannot be diffed gets a status that View explains.
func newDocument(path, old, new string) *document {
	d := &document{path: path, old: old, new: new, maxWidth: -1}
	switch {
	case old == new:
		d.status = statusIdentical
		return d
	case isBinary(old) || isBinary(new):
		d.status = statusBinary
		return d
	case !utf8.ValidString(old) || !utf8.ValidString(new):
		d.status = statusNotUTF8
		return d
	case len(old) > MaxBytes || len(new) > MaxBytes ||
		strings.Count(old, "\n") > MaxLines || strings.Count(new, "\n") > MaxLines:
		d.status = statusTooLarge
		return d
	}
	d.oldLines, d.oldNoEOL = splitLines(old)
	d.newLines, d.newNoEOL = splitLines(new)
	d.build(lcs.DiffLines(eolKeyed(d.oldLines, d.oldNoEOL), eolKeyed(d.newLines, d.newNoEOL)))
	if len(d.hunks) == 0 {
		d.status = statusIdentical // cannot happen when old != new; never render garbage
	}
	return d
}

func isBinary(s string) bool {
	return strings.IndexByte(s[:min(len(s), binarySniff)], 0) >= 0
}

// splitLines splits text into lines without their newline, and reports
// whether the last line lacks one. A CR before the newline is kept (it is a
// real difference); rendering hides it.
func splitLines(text string) ([]string, bool) {
	if text == "" {
		return nil, false
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1], false
	}
	return lines, true
}

// eolKeyed returns the lines to compare: a last line without a newline
// differs from the same text with one, as in diff(1).
func eolKeyed(lines []string, noEOL bool) []string {
	if !noEOL || len(lines) == 0 {
		return lines
	}
	out := append([]string(nil), lines...)
	out[len(out)-1] += "\x00no-eol"
	return out
}

// build turns line diffs into hunks with contextLines of context.
//
// go-udiff's ToUnifiedDiff would do this too, but it works on byte edits and
// counts newlines from the top of the file for every edit (quadratic: a
// third of the time of a busy 2,000-line diff); lcs gives line indices.
func (d *document) build(diffs []lcs.Diff) {
	nOld := len(d.oldLines)
	prevEnd := 0 // old line index after the previous hunk
	for i := 0; i < len(diffs); {
		// A hunk takes every following change within 2×context lines.
		j := i + 1
		for j < len(diffs) && diffs[j].Start-diffs[j-1].End <= 2*contextLines {
			j++
		}
		group := diffs[i:j]
		first, last := group[0], group[len(group)-1]
		o := max(0, first.Start-contextLines)
		n := first.ReplStart - (first.Start - o)
		h := hunk{oldStart: o + 1, newStart: n + 1, first: len(d.lines)}
		h.hidden = o - prevEnd
		for _, df := range group {
			for ; o < df.Start; o, n = o+1, n+1 {
				d.lines = append(d.lines, dline{kind: kindCtx, old: int32(o), new: int32(n), pair: -1})
			}
			firstDel := int32(len(d.lines))
			for ; o < df.End; o++ {
				d.lines = append(d.lines, dline{kind: kindDel, old: int32(o), new: -1, pair: -1})
				d.dels++
			}
			nDel := int32(len(d.lines)) - firstDel
			for k := int32(0); n < df.ReplEnd; n, k = n+1, k+1 {
				dl := dline{kind: kindAdd, old: -1, new: int32(n), pair: -1}
				if k < nDel { // the k-th deleted line is replaced by the k-th added one
					dl.pair = firstDel + k
					d.lines[firstDel+k].pair = int32(len(d.lines))
				}
				d.lines = append(d.lines, dl)
				d.adds++
			}
		}
		for end := min(nOld, last.End+contextLines); o < end; o, n = o+1, n+1 {
			d.lines = append(d.lines, dline{kind: kindCtx, old: int32(o), new: int32(n), pair: -1})
		}
		h.end = len(d.lines)
		prevEnd = o
		for _, l := range d.lines[h.first:h.end] {
			if l.old >= 0 {
				h.oldCount++
			}
			if l.new >= 0 {
				h.newCount++
			}
		}
		if h.oldCount == 0 {
			h.oldStart-- // diff(1) numbers an empty range by the line before it
		}
		if h.newCount == 0 {
			h.newStart--
		}
		d.hunks = append(d.hunks, h)
		i = j
	}
	d.numWidth = max(2, digits(max(len(d.oldLines), len(d.newLines))))
	d.layout()
}

func digits(n int) int {
	w := 1
	for n >= 10 {
		n /= 10
		w++
	}
	return w
}

// layout builds the unified and the split row lists.
func (d *document) layout() {
	d.unified = make([]vrow, 0, len(d.lines)+len(d.hunks))
	d.split = make([]vrow, 0, len(d.lines)+len(d.hunks))
	for hi, h := range d.hunks {
		hdr := vrow{hunk: int32(hi), left: -1, right: -1, anchor: int32(h.first)}
		d.unified = append(d.unified, hdr)
		d.split = append(d.split, hdr)
		for i := h.first; i < h.end; i++ {
			d.unified = append(d.unified, vrow{hunk: -1, left: int32(i), right: -1, anchor: int32(i)})
		}
		for i := h.first; i < h.end; {
			if d.lines[i].kind == kindCtx {
				d.split = append(d.split, vrow{hunk: -1, left: int32(i), right: int32(i), anchor: int32(i)})
				i++
				continue
			}
			// A run of deletions then a run of insertions, side by side.
			var dels, adds []int32
			for i < h.end && d.lines[i].kind == kindDel {
				dels = append(dels, int32(i))
				i++
			}
			for i < h.end && d.lines[i].kind == kindAdd {
				adds = append(adds, int32(i))
				i++
			}
			for k := 0; k < max(len(dels), len(adds)); k++ {
				r := vrow{hunk: -1, left: -1, right: -1}
				if k < len(dels) {
					r.left = dels[k]
					r.anchor = dels[k]
				}
				if k < len(adds) {
					r.right = adds[k]
					if r.left < 0 {
						r.anchor = adds[k]
					}
				}
				d.split = append(d.split, r)
			}
		}
	}
}

// rows returns the layout for a mode.
func (d *document) rows(split bool) []vrow {
	if split {
		return d.split
	}
	return d.unified
}

// findAnchor returns the first row of rows whose anchor is at least a.
func findAnchor(rows []vrow, a int32) int {
	lo, hi := 0, len(rows)
	for lo < hi {
		mid := (lo + hi) / 2
		if rows[mid].anchor < a {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// lineText returns the raw text of one side of a diff line.
func (d *document) lineText(l dline, old bool) string {
	if old {
		return d.oldLines[l.old]
	}
	return d.newLines[l.new]
}

// isLastLine reports whether the diff line is the last line of that side.
func (d *document) isLastLine(l dline, old bool) bool {
	if old {
		return int(l.old) == len(d.oldLines)-1
	}
	return int(l.new) == len(d.newLines)-1
}

// longest returns the width of the widest line the diff shows.
func (d *document) longest() int {
	if d.maxWidth >= 0 {
		return d.maxWidth
	}
	d.maxWidth = 0
	for _, l := range d.lines {
		var t string
		if l.old >= 0 {
			t = d.oldLines[l.old]
		} else {
			t = d.newLines[l.new]
		}
		s, _ := sanitize(t, 0)
		d.maxWidth = max(d.maxWidth, textWidth(s))
	}
	return d.maxWidth
}

// CountLines returns the added and deleted line counts of old → new, as the
// view's header shows them, without building a view (e.g. for file lists).
// Binary, non-UTF-8 and oversized content counts as zero.
func CountLines(old, new string) (adds, dels int) {
	if old == new || isBinary(old) || isBinary(new) || !utf8.ValidString(old) || !utf8.ValidString(new) ||
		len(old) > MaxBytes || len(new) > MaxBytes {
		return 0, 0
	}
	a, aNoEOL := splitLines(old)
	b, bNoEOL := splitLines(new)
	for _, d := range lcs.DiffLines(eolKeyed(a, aNoEOL), eolKeyed(b, bNoEOL)) {
		dels += d.End - d.Start
		adds += d.ReplEnd - d.ReplStart
	}
	return adds, dels
}
