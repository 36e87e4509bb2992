package patterns

import (
	"fmt"
	"strings"
	"sync"
)

// This file holds a small block-level markdown scanner.
//
// Why not goldmark (which is in the module graph)? The parser needs three things goldmark does
// not give directly: (1) file line numbers for every block, including lines inside front matter
// offsets, (2) `**Field:** value` lines kept line by line (goldmark merges them into one paragraph
// with soft breaks), and (3) a recovery rule for the corpus' nested fences: a ```markdown block
// that itself contains ``` fences leaves one bare ``` unmatched at the end, and CommonMark then
// swallows the rest of the file as code (17-nova26-adaptations/enhanced-prd-format.md does this).
// We only need the block outline (headings, paragraphs, fences, lists, tables), never inline
// rendering, so a line scanner is shorter than walking goldmark's AST and patching it.

type blockKind int

const (
	kindParagraph blockKind = iota + 1
	kindHeading
	kindFence
	kindList
	kindTable
	kindQuote
	kindHTML
	kindRule
)

// line is one line of the body with its byte offset in the body and its 1-based file line number.
type line struct {
	text  string
	start int
	num   int
}

// block is one block-level element of the body.
type block struct {
	kind  blockKind
	level int      // heading level 1..6
	text  string   // heading text (raw inline markdown)
	plain string   // heading text as plain text (cleanInline of text, computed once)
	lines []string // raw lines (paragraph, list, table, quote, html)
	info  string   // fence info string
	code  string   // fence content
	first int      // index into the lines slice of the first line
	last  int      // index of the last line (inclusive)
	num   int      // file line number of the first line
}

// splitLines splits body into lines, appending them to out[:0] and their texts to texts[:0]
// (texts[i] == lines[i].text: the raw blocks' lines are ranges of texts, so a block costs no
// slice of its own). firstNum is the file line number of body's first line.
func splitLines(out []line, texts []string, body string, firstNum int) ([]line, []string) {
	out, texts = out[:0], texts[:0]
	for start := 0; start < len(body); {
		end := strings.IndexByte(body[start:], '\n')
		next := start + end + 1
		if end < 0 {
			end, next = len(body)-start, len(body)
		}
		t := body[start : start+end]
		out = append(out, line{text: t, start: start, num: firstNum + len(out)})
		texts = append(texts, t)
		start = next
	}
	return out, texts
}

// scratch is a parser's working memory (lines, their texts, blocks), pooled: Parse runs once
// per file of an import and growing these slices afresh each time was half of its allocation.
// Nothing of it outlives parse: a Doc holds strings of the text, never these slices.
type scratch struct {
	lines  []line
	texts  []string
	blocks []block
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooledLines bounds what goes back to the pool (a 1 MiB file of short lines would
// otherwise keep its slices alive for the next small one).
const maxPooledLines = 1 << 14

func putScratch(sc *scratch) {
	if cap(sc.lines) > maxPooledLines || cap(sc.blocks) > maxPooledLines {
		return
	}
	// Drop the references to the file's text so the pool does not keep it alive. Only the
	// used part holds any: what lies beyond was cleared when it was last used.
	clear(sc.lines)
	clear(sc.texts)
	clear(sc.blocks)
	scratchPool.Put(sc)
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// indentOf returns the indentation width of s (a tab counts as 4 columns) and the rest of s.
func indentOf(s string) (int, string) {
	w := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w, s[i:]
		}
	}
	return w, ""
}

type fence struct {
	char   byte
	n      int
	indent int
	info   string
}

// fenceOpen reports whether s opens a fenced code block. Unlike CommonMark, any indentation is
// accepted so that fences nested in list items are still seen as code (the corpus never uses
// 4-space indented code blocks, which is the only case this changes).
func fenceOpen(s string) (fence, bool) {
	ind, rest := indentOf(s)
	if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return fence{}, false
	}
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	if n < 3 {
		return fence{}, false
	}
	info := strings.TrimSpace(rest[n:])
	if c == '`' && strings.ContainsRune(info, '`') {
		return fence{}, false // inline code span such as ```x``` on one line
	}
	return fence{char: c, n: n, indent: ind, info: info}, true
}

func fenceCloses(s string, f fence) bool {
	_, rest := indentOf(s)
	n := 0
	for n < len(rest) && rest[n] == f.char {
		n++
	}
	return n >= f.n && isBlank(rest[n:])
}

// atxHeading parses "## Heading ##".
func atxHeading(s string) (int, string, bool) {
	ind, rest := indentOf(s)
	if ind > 3 || !strings.HasPrefix(rest, "#") {
		return 0, "", false
	}
	lvl := 0
	for lvl < len(rest) && rest[lvl] == '#' {
		lvl++
	}
	if lvl > 6 {
		return 0, "", false
	}
	rest = rest[lvl:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false // "#hashtag" is not a heading
	}
	text := strings.TrimSpace(rest)
	// Optional closing sequence: " ##".
	if j := strings.TrimRight(text, "#"); j != text && (j == "" || strings.HasSuffix(j, " ") || strings.HasSuffix(j, "\t")) {
		text = strings.TrimSpace(j)
	}
	return lvl, text, true
}

// isRule reports a thematic break: three or more of the same *, - or _ with optional spaces.
func isRule(s string) bool {
	ind, rest := indentOf(s)
	if ind > 3 || rest == "" {
		return false
	}
	c := rest[0]
	if c != '*' && c != '-' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// setextLevel reports a setext underline ("===" → 1, "---" → 2).
func setextLevel(s string) int {
	ind, rest := indentOf(s)
	rest = strings.TrimRight(rest, " \t")
	if ind > 3 || rest == "" {
		return 0
	}
	if strings.Trim(rest, "=") == "" {
		return 1
	}
	if strings.Trim(rest, "-") == "" {
		return 2
	}
	return 0
}

// listMarker returns the text after a list marker ("- x", "* x", "+ x", "1. x", "2) x").
func listMarker(s string) (string, bool) {
	_, rest := indentOf(s)
	if rest == "" {
		return "", false
	}
	switch rest[0] {
	case '-', '*', '+':
		if len(rest) == 1 {
			return "", true
		}
		if rest[1] == ' ' || rest[1] == '\t' {
			return strings.TrimSpace(rest[2:]), true
		}
		return "", false
	}
	i := 0
	for i < len(rest) && i < 9 && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(rest) || (rest[i] != '.' && rest[i] != ')') {
		return "", false
	}
	if i+1 == len(rest) {
		return "", true
	}
	if rest[i+1] == ' ' || rest[i+1] == '\t' {
		return strings.TrimSpace(rest[i+2:]), true
	}
	return "", false
}

func isQuote(s string) bool {
	ind, rest := indentOf(s)
	return ind <= 3 && strings.HasPrefix(rest, ">")
}

// isHTMLStart reports a line that opens a raw HTML block: <tag, </tag, <!-- or <!X / <?.
func isHTMLStart(s string) bool {
	ind, rest := indentOf(s)
	if ind > 3 || len(rest) < 2 || rest[0] != '<' {
		return false
	}
	c := rest[1]
	if c == '/' && len(rest) > 2 {
		c = rest[2]
	}
	return c == '!' || c == '?' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// isTableDelim reports a GFM table delimiter row such as "|---|:--:|".
func isTableDelim(s string) bool {
	t := strings.TrimSpace(s)
	return strings.Contains(t, "|") && strings.Contains(t, "-") && strings.Trim(t, "|:- \t") == ""
}

func isTableStart(lines []line, i int) bool {
	t := strings.TrimSpace(lines[i].text)
	if !strings.Contains(t, "|") {
		return false
	}
	if strings.HasPrefix(t, "|") {
		return true
	}
	return i+1 < len(lines) && isTableDelim(lines[i+1].text)
}

// interruptsParagraph reports a line that ends a running paragraph (or list) by starting
// another block.
func interruptsParagraph(s string) bool {
	if _, ok := fenceOpen(s); ok {
		return true
	}
	if _, _, ok := atxHeading(s); ok {
		return true
	}
	return isRule(s) || isQuote(s) || isHTMLStart(s)
}

// interruptsWithList reports a list item that may interrupt a paragraph: a non-empty bullet
// or an ordered item numbered 1 (CommonMark's rule).
func interruptsWithList(s string) bool {
	text, ok := listMarker(s)
	if !ok || text == "" {
		return false
	}
	_, rest := indentOf(s)
	switch rest[0] {
	case '-', '*', '+':
		return true
	}
	return strings.HasPrefix(rest, "1.") || strings.HasPrefix(rest, "1)")
}

// scanBlocks turns lines into blocks, appended to blocks[:0]. texts are the lines' texts
// (splitLines) and body the text they are lines of. It never fails; oddities are returned as
// warnings.
func scanBlocks(blocks []block, lines []line, texts []string, body string) ([]block, []string) {
	var warnings []string
	blocks = blocks[:0]
	n := len(lines)
	i := 0
	for i < n {
		s := lines[i].text
		if isBlank(s) {
			i++
			continue
		}
		if f, ok := fenceOpen(s); ok {
			j := i + 1
			for j < n && !fenceCloses(lines[j].text, f) {
				j++
			}
			if j >= n {
				if f.info == "" {
					// A bare fence cannot be told apart from a closing fence. Unmatched at the end
					// of the file it is almost always the stray closer of a ```markdown block that
					// nested other fences, so it is dropped instead of swallowing the rest.
					warnings = append(warnings, fmt.Sprintf("line %d: unmatched bare code fence ignored", lines[i].num))
					i++
					continue
				}
				warnings = append(warnings, fmt.Sprintf("line %d: code fence never closed; it runs to the end of the file", lines[i].num))
			}
			last := min(j, n-1)
			blocks = append(blocks, block{kind: kindFence, info: f.info, code: fenceCode(lines, body, i+1, min(j, n), f.indent), first: i, last: last, num: lines[i].num})
			i = last + 1
			continue
		}
		if lvl, text, ok := atxHeading(s); ok {
			blocks = append(blocks, block{kind: kindHeading, level: lvl, text: text, plain: cleanInline(text), first: i, last: i, num: lines[i].num})
			i++
			continue
		}
		if isRule(s) {
			blocks = append(blocks, block{kind: kindRule, first: i, last: i, num: lines[i].num})
			i++
			continue
		}
		if isHTMLStart(s) {
			j := i
			if strings.Contains(s, "<!--") {
				for j < n && !strings.Contains(lines[j].text, "-->") {
					j++
				}
				j = min(j, n-1)
			} else {
				for j+1 < n && !isBlank(lines[j+1].text) {
					j++
				}
			}
			blocks = append(blocks, rawBlock(kindHTML, lines, texts, i, j))
			i = j + 1
			continue
		}
		if isQuote(s) {
			j := i
			// Quote lines plus lazy continuation lines (plain text right under a quote line).
			for j+1 < n && (isQuote(lines[j+1].text) || !isBlank(lines[j+1].text) && !interruptsParagraph(lines[j+1].text)) {
				j++
			}
			blocks = append(blocks, rawBlock(kindQuote, lines, texts, i, j))
			i = j + 1
			continue
		}
		if _, ok := listMarker(s); ok {
			j := scanList(lines, i)
			blocks = append(blocks, rawBlock(kindList, lines, texts, i, j))
			i = j + 1
			continue
		}
		if isTableStart(lines, i) {
			j := i
			for j+1 < n && !isBlank(lines[j+1].text) && strings.Contains(lines[j+1].text, "|") {
				j++
			}
			blocks = append(blocks, rawBlock(kindTable, lines, texts, i, j))
			i = j + 1
			continue
		}
		// Paragraph, possibly turned into a setext heading by its underline.
		j := i
		setext := 0
		for j+1 < n {
			next := lines[j+1].text
			if isBlank(next) {
				break
			}
			if lvl := setextLevel(next); lvl > 0 {
				setext = lvl
				break
			}
			if interruptsParagraph(next) {
				break
			}
			if interruptsWithList(next) {
				break
			}
			j++
		}
		if setext > 0 {
			b := rawBlock(kindHeading, lines, texts, i, j+1)
			b.level = setext
			b.text = strings.TrimSpace(strings.Join(b.lines[:len(b.lines)-1], " "))
			b.plain = cleanInline(b.text)
			b.lines = nil
			blocks = append(blocks, b)
			i = j + 2
			continue
		}
		blocks = append(blocks, rawBlock(kindParagraph, lines, texts, i, j))
		i = j + 1
	}
	return blocks, warnings
}

// rawBlock is the block of lines [i, j]; its lines are texts[i : j+1] (capacity clipped, so
// nobody appends into the next block's lines).
func rawBlock(k blockKind, lines []line, texts []string, i, j int) block {
	return block{kind: k, lines: texts[i : j+1 : j+1], first: i, last: j, num: lines[i].num}
}

// fenceCode is the content of a fence: lines [from, to), each without up to indent leading
// blanks and ending in "\n". When nothing is stripped and the last line ends in a newline it
// is that range of body itself, not a copy.
func fenceCode(lines []line, body string, from, to, indent int) string {
	if from >= to {
		return ""
	}
	verbatim := true
	if indent > 0 {
		for k := from; k < to; k++ {
			if t := lines[k].text; t != "" && (t[0] == ' ' || t[0] == '\t') {
				verbatim = false
				break
			}
		}
	}
	last := lines[to-1]
	if end := last.start + len(last.text); verbatim && end < len(body) { // body[end] is the '\n'
		return body[lines[from].start : end+1]
	}
	var code strings.Builder
	for k := from; k < to; k++ {
		code.WriteString(stripIndent(lines[k].text, indent))
		code.WriteByte('\n')
	}
	return code.String()
}

// scanList returns the index of the last line of the list starting at i.
func scanList(lines []line, i int) int {
	n := len(lines)
	last := i
	j := i + 1
	for j < n {
		s := lines[j].text
		if isBlank(s) {
			k := j + 1
			for k < n && isBlank(lines[k].text) {
				k++
			}
			if k >= n {
				break
			}
			if _, ok := listMarker(lines[k].text); ok && !isRule(lines[k].text) {
				j = k
				continue
			}
			if ind, _ := indentOf(lines[k].text); ind >= 2 && !interruptsParagraph(lines[k].text) {
				j = k
				continue
			}
			break
		}
		if interruptsParagraph(s) {
			break // fences inside items end the list so their code is still collected
		}
		last = j
		j++
	}
	return last
}

func stripIndent(s string, n int) string {
	for n > 0 && s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
		n--
	}
	return s
}

// listItems returns the text of each item of a list block (continuation lines joined).
func listItems(lines []string) []string {
	var items []string
	for _, l := range lines {
		if t, ok := listMarker(l); ok {
			items = append(items, t)
			continue
		}
		if len(items) > 0 && !isBlank(l) {
			items[len(items)-1] += " " + strings.TrimSpace(l)
		}
	}
	return items
}
