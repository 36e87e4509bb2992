// Package edits reads file edits that a model wrote as text — whole files in
// fenced code blocks, SEARCH/REPLACE blocks and unified diffs — and locates
// search text in a file tolerantly, without ever taking a wrong match.
//
// Parse finds the edit blocks of a reply; Find locates a block's search
// text with a ladder of rules (exact, trailing-whitespace, blank-lines,
// indentation, block-anchor) and applies only a unique match; Replace puts
// the replacement in, re-indented to the file's own style when the
// indentation rule matched; ApplyDiff applies a diff's hunks by their
// context, tolerating wrong line numbers.
//
// The package imports nothing from nova's engine: paths are kept as the
// model wrote them, and confinement to the workspace is the tools' job.
//
// Why hand-written: go-udiff (already a dependency) applies edits it
// computed itself; it neither parses model-written patches nor locates
// hunks whose line numbers are wrong, which is what this package is for.
package edits

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Block kinds.
const (
	KindWhole         = "whole"
	KindSearchReplace = "search-replace"
	KindDiff          = "diff"
	// KindNoPath is a fenced code block with no file path: ordinary example
	// code, not an edit. It is returned so the caller can mention it.
	KindNoPath = "no-path"
)

// MaxBlockBytes is the largest block Parse accepts; larger blocks come back
// with Err set.
const MaxBlockBytes = 4 << 20

// Block is one edit (or one path-less code block) found in a reply.
type Block struct {
	Kind string
	// Path is the file path as the model wrote it ("" for no-path blocks).
	Path string
	// Index is the block's 1-based position among the blocks of the reply.
	Index int
	// Content is the new file content of a whole-file block, or the code of
	// a no-path block.
	Content string
	// Search and Replace are the two sides of a SEARCH/REPLACE block.
	Search, Replace string
	// Hunks are the hunks of a diff block; Create and Delete mark a diff
	// from or to /dev/null.
	Hunks          []Hunk
	Create, Delete bool
	// Err, when set, says why the block cannot be used (too large, not
	// closed, malformed); the other fields hold what could be read.
	Err string
	// Line and EndLine are the 1-based lines of the reply the block spans,
	// path line included (see Prose).
	Line, EndLine int
}

// IsEdit reports whether the block is an edit (not a path-less code block).
func (b Block) IsEdit() bool { return b.Kind != KindNoPath }

// Describe names the block for messages, e.g. "block 2 (SEARCH/REPLACE on main.go)".
func (b Block) Describe() string {
	what := map[string]string{
		KindWhole: "whole file", KindSearchReplace: "SEARCH/REPLACE", KindDiff: "diff", KindNoPath: "code block without a path",
	}[b.Kind]
	if b.Path == "" {
		return fmt.Sprintf("block %d (%s)", b.Index, what)
	}
	return fmt.Sprintf("block %d (%s %s %s)", b.Index, what, map[bool]string{true: "of", false: "on"}[b.Kind == KindWhole], b.Path)
}

// Hunk is one hunk of a unified diff.
type Hunk struct {
	// OldStart and NewStart are the line numbers of the header (0 when the
	// header has none); they are hints only.
	OldStart, OldLines, NewStart, NewLines int
	// Header is the @@ line as written.
	Header string
	// Lines keep their first character: ' ' context, '-' removed, '+' added.
	Lines []string
}

// Old is the text the hunk expects (context and removed lines).
func (h Hunk) Old() string { return h.side('-') }

// New is the text the hunk leaves (context and added lines).
func (h Hunk) New() string { return h.side('+') }

func (h Hunk) side(keep byte) string {
	var b strings.Builder
	for _, l := range h.Lines {
		if l == "" {
			continue
		}
		if l[0] == ' ' || l[0] == keep {
			b.WriteString(l[1:])
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Parse returns the blocks of text in order. It never panics; blocks it
// could only partly read carry Err.
func Parse(text string) []Block {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	p := &parser{lines: strings.Split(text, "\n")}
	p.run()
	for i := range p.blocks {
		p.blocks[i].Index = i + 1
	}
	return p.blocks
}

// Prose is text without the lines of its edit blocks (path-less code
// blocks stay): what the model said around its edits.
func Prose(text string, blocks []Block) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	drop := make([]bool, len(lines))
	for _, b := range blocks {
		if !b.IsEdit() {
			continue
		}
		for l := max(b.Line, 1); l <= b.EndLine && l <= len(lines); l++ {
			drop[l-1] = true
		}
	}
	var kept []string
	for i, l := range lines {
		if !drop[i] {
			kept = append(kept, l)
		}
	}
	out := strings.TrimSpace(strings.Join(kept, "\n"))
	for strings.Contains(out, "\n\n\n") {
		out = strings.ReplaceAll(out, "\n\n\n", "\n\n")
	}
	return out
}

type parser struct {
	lines    []string
	blocks   []Block
	lastPath string // the path of the previous SEARCH/REPLACE block
}

func (p *parser) add(b Block) {
	p.blocks = append(p.blocks, b)
}

// fence is an opening code fence.
type fence struct {
	char byte
	n    int
	info string
}

func openFence(line string) (fence, bool) {
	s := strings.TrimLeft(line, " \t")
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return fence{}, false
	}
	c := s[0]
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 {
		return fence{}, false
	}
	info := strings.TrimSpace(s[n:])
	if c == '`' && strings.Contains(info, "`") {
		return fence{}, false // inline code such as ```x``` on one line
	}
	return fence{char: c, n: n, info: info}, true
}

func (f fence) closes(line string) bool {
	s := strings.TrimSpace(line)
	if len(s) < f.n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != f.char {
			return false
		}
	}
	return true
}

// prevPathLine returns the path named on the nearest non-blank line before
// line i (at most two lines up), and that line's index.
func (p *parser) prevPathLine(i, floor int) (string, int) {
	for j := i - 1; j >= floor && j >= i-2; j-- {
		if strings.TrimSpace(p.lines[j]) == "" {
			continue
		}
		if path := pathFromLine(p.lines[j]); path != "" {
			return path, j
		}
		return "", -1
	}
	return "", -1
}

func (p *parser) run() {
	n := len(p.lines)
	for i := 0; i < n; {
		line := p.lines[i]
		if f, ok := openFence(line); ok {
			i = p.fenced(i, f)
			continue
		}
		if isSearchMarker(line) {
			path, pl := p.prevPathLine(i, 0)
			first := i
			if pl >= 0 {
				first = pl
			}
			i = p.searchReplace(i, n, path, first)
			continue
		}
		if strings.HasPrefix(line, "--- ") && i+1 < n && strings.HasPrefix(p.lines[i+1], "+++ ") {
			start := i
			for start > 0 && isGitHeader(p.lines[start-1]) {
				start-- // git's extended header belongs to the diff
			}
			end := bareDiffEnd(p.lines, i)
			p.diff(start, end, "", start)
			i = end
			continue
		}
		i++
	}
}

// fenced reads the code block opened at line i and returns the line after it.
func (p *parser) fenced(i int, f fence) int {
	n := len(p.lines)
	// A fence with an info string inside the block opens a nested block
	// (a README's examples); a bare fence closes the innermost one.
	end, depth := -1, 0
	for j := i + 1; j < n && end < 0; j++ {
		switch l := p.lines[j]; {
		case l == "":
		case f.closes(l) && depth == 0:
			end = j
		case f.closes(l):
			depth--
		default:
			if g, ok := openFence(l); ok && g.char == f.char && g.n == f.n && g.info != "" {
				depth++
			}
		}
	}
	bodyLo, bodyHi, next, last := i+1, end, end+1, end
	if end < 0 {
		bodyHi, next, last = n, n, n-1
	}
	infoPath := pathFromInfo(f.info)
	before, bl := p.prevPathLine(i, 0)
	first := i
	if bl >= 0 && infoPath == "" {
		first = bl
	}
	body := p.lines[bodyLo:bodyHi]
	for _, l := range body {
		if isSearchMarker(l) {
			path := infoPath
			if path == "" {
				path = before
			}
			firstBlock := len(p.blocks)
			for j := bodyLo; j < bodyHi; {
				if !isSearchMarker(p.lines[j]) {
					j++
					continue
				}
				bpath, pl := p.prevPathLine(j, bodyLo)
				if bpath == "" {
					bpath = path
				}
				firstLine := j
				if pl >= 0 {
					firstLine = pl
				}
				if len(p.blocks) == firstBlock {
					firstLine = first // the fence and the path before it belong to the first block
				}
				j = p.searchReplace(j, bodyHi, bpath, firstLine)
			}
			if len(p.blocks) > firstBlock {
				p.blocks[len(p.blocks)-1].EndLine = last + 1
			}
			return next
		}
	}
	lang := strings.ToLower(firstField(f.info))
	if lang == "diff" || lang == "patch" || lang == "udiff" || looksLikeDiff(body) {
		path := infoPath
		if path == "" && (lang == "diff" || lang == "patch" || lang == "udiff") {
			path = pathFromInfo(strings.TrimSpace(strings.TrimPrefix(f.info, firstField(f.info))))
		}
		if path == "" {
			path = before
		}
		before := len(p.blocks)
		p.diff(bodyLo, bodyHi, path, first)
		if len(p.blocks) > before {
			p.blocks[len(p.blocks)-1].EndLine = last + 1
			if end < 0 {
				p.blocks[len(p.blocks)-1].Err = fmt.Sprintf("the code block opened on line %d is never closed (the reply may have been cut off)", i+1)
			}
		}
		return next
	}
	path := infoPath
	if path == "" {
		path = before
	}
	content := strings.Join(body, "\n")
	if len(body) > 0 {
		content += "\n"
	}
	b := Block{Kind: KindWhole, Path: path, Line: first + 1, EndLine: last + 1}
	if path == "" {
		b.Kind, b.Line = KindNoPath, i+1
	}
	switch {
	case len(content) > MaxBlockBytes:
		b.Err = fmt.Sprintf("the block is %d bytes, more than the %d-byte limit; split the change into SEARCH/REPLACE edits", len(content), MaxBlockBytes)
	case end < 0 && b.Kind == KindWhole:
		b.Content = content
		b.Err = fmt.Sprintf("the code block opened on line %d is never closed (the reply may have been cut off); the file was not written", i+1)
	default:
		b.Content = content
	}
	p.add(b)
	return next
}

func firstField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// --- SEARCH/REPLACE ----------------------------------------------------------

func markerLine(line string, c byte, word string) bool {
	s := strings.TrimSpace(line)
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 5 || n > 9 {
		return false
	}
	return strings.EqualFold(strings.TrimSpace(s[n:]), word)
}

// ORIGINAL/UPDATED are older spellings some models still write.
func isSearchMarker(line string) bool {
	return markerLine(line, '<', "SEARCH") || markerLine(line, '<', "ORIGINAL")
}
func isDivider(line string) bool { return markerLine(line, '=', "") }
func isReplaceMarker(line string) bool {
	return markerLine(line, '>', "REPLACE") || markerLine(line, '>', "UPDATED")
}

// searchReplace reads the block whose SEARCH marker is line i (hi bounds
// it) and returns the line after it. first is the block's first line.
func (p *parser) searchReplace(i, hi int, path string, first int) int {
	if path == "" {
		path = p.lastPath
	}
	p.lastPath = path
	b := Block{Kind: KindSearchReplace, Path: path, Line: first + 1}
	div, end := -1, -1
	for j := i + 1; j < hi; j++ {
		l := p.lines[j]
		switch {
		case div < 0 && isDivider(l):
			div = j
		case div >= 0 && isReplaceMarker(l):
			end = j
		case isSearchMarker(l):
			// The next block starts before this one ended.
			b.EndLine = j
			b.Err = fmt.Sprintf("the SEARCH block on line %d has no %s line before the next SEARCH",
				i+1, map[bool]string{true: ">>>>>>> REPLACE", false: "======="}[div >= 0])
			p.add(b)
			return j
		}
		if end >= 0 {
			break
		}
	}
	if div < 0 || end < 0 {
		b.EndLine = hi
		b.Err = fmt.Sprintf("the SEARCH block on line %d is not closed: it needs a ======= line and a >>>>>>> REPLACE line", i+1)
		p.add(b)
		return hi
	}
	b.EndLine = end + 1
	b.Search = joinLines(p.lines[i+1 : div])
	b.Replace = joinLines(p.lines[div+1 : end])
	switch {
	case path == "":
		b.Err = "the SEARCH/REPLACE block names no file: put the file path on the line before it"
	case len(b.Search)+len(b.Replace) > MaxBlockBytes:
		b.Err = fmt.Sprintf("the block is %d bytes, more than the %d-byte limit", len(b.Search)+len(b.Replace), MaxBlockBytes)
		b.Search, b.Replace = "", ""
	}
	if path != "" {
		p.lastPath = path
	}
	p.add(b)
	return end + 1
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// --- unified diffs -------------------------------------------------------------

func looksLikeDiff(body []string) bool {
	for i, l := range body {
		if strings.HasPrefix(l, "@@ ") || strings.TrimSpace(l) == "@@" {
			return true
		}
		if strings.HasPrefix(l, "--- ") && i+1 < len(body) && strings.HasPrefix(body[i+1], "+++ ") {
			return true
		}
	}
	return false
}

// bareDiffEnd is the line after a diff that starts at line i outside a
// code block.
func bareDiffEnd(lines []string, i int) int {
	n := len(lines)
	for j := i; j < n; j++ {
		l := lines[j]
		if l == "" {
			if j+1 < n && lines[j+1] != "" && strings.ContainsRune(" +-@\\", rune(lines[j+1][0])) {
				continue
			}
			return j
		}
		if strings.ContainsRune(" +-@\\", rune(l[0])) || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "index ") {
			continue
		}
		return j
	}
	return n
}

func isGitHeader(l string) bool {
	for _, pre := range []string{"diff ", "index ", "new file mode ", "deleted file mode ", "old mode ", "new mode ", "similarity index ", "rename from ", "rename to "} {
		if strings.HasPrefix(l, pre) {
			return true
		}
	}
	return false
}

// diffPath cleans a --- or +++ header's path.
func diffPath(h string) string {
	s := strings.TrimSpace(h[4:])
	if t := strings.IndexByte(s, '\t'); t >= 0 {
		s = s[:t] // a timestamp follows
	}
	s = strings.Trim(s, "\"`")
	if s == "/dev/null" {
		return s
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}

// diff reads lines [lo, hi) as a unified diff of one or more files and
// adds one block per file. path is the file when the diff has no headers.
func (p *parser) diff(lo, hi int, path string, first int) {
	var cur *Block
	flush := func(endLine int) {
		if cur == nil {
			return
		}
		trimHunkTail(cur)
		cur.EndLine = endLine
		if cur.Err == "" {
			switch {
			case cur.Path == "":
				cur.Err = "the diff names no file: start it with --- a/path and +++ b/path lines"
			case len(cur.Hunks) == 0:
				cur.Err = "the diff has no @@ hunks"
			}
		}
		p.add(*cur)
		cur = nil
	}
	size := 0
	startBlocks := len(p.blocks)
	gitStart := -1
	for j := lo; j < hi; j++ {
		l := p.lines[j]
		switch {
		case strings.HasPrefix(l, "--- ") && j+1 < hi && strings.HasPrefix(p.lines[j+1], "+++ "):
			flush(j)
			oldP, newP := diffPath(l), diffPath(p.lines[j+1])
			b := Block{Kind: KindDiff, Path: newP, Line: j + 1}
			if gitStart >= 0 && gitStart < j {
				b.Line = gitStart + 1
			}
			if len(p.blocks) == startBlocks && first < j {
				b.Line = first + 1 // the first file's block starts at the fence or its path line
			}
			gitStart = -1
			if oldP == "/dev/null" {
				b.Create = true
			}
			if newP == "/dev/null" {
				b.Delete, b.Path = true, oldP
			}
			cur = &b
			size = 0
			j++
		case strings.HasPrefix(l, "diff "):
			flush(j)
			gitStart = j
		case isGitHeader(l) && (cur == nil || len(cur.Hunks) == 0):
			// git's extended header lines: nothing to apply.
		case strings.HasPrefix(l, "@@"):
			if cur == nil {
				cur = &Block{Kind: KindDiff, Path: path, Line: first + 1}
			}
			cur.Hunks = append(cur.Hunks, parseHunkHeader(l))
		default:
			if cur == nil || len(cur.Hunks) == 0 {
				continue // prose or headers before the first hunk
			}
			h := &cur.Hunks[len(cur.Hunks)-1]
			switch {
			case l == "":
				h.Lines = append(h.Lines, " ")
			case l[0] == ' ' || l[0] == '+' || l[0] == '-':
				h.Lines = append(h.Lines, l)
			case l[0] == '\\':
				// "\ No newline at end of file"
			default:
				h.Lines = append(h.Lines, " "+l) // a context line that lost its leading space
			}
			size += len(l) + 1
			if size > MaxBlockBytes && cur.Err == "" {
				cur.Err = fmt.Sprintf("the diff of %s is more than the %d-byte limit", cur.Path, MaxBlockBytes)
				cur.Hunks = nil
			}
		}
	}
	flush(hi)
}

// trimHunkTail drops blank context lines at the end of the last hunk (the
// space before a closing fence, not part of the file).
func trimHunkTail(b *Block) {
	if len(b.Hunks) == 0 {
		return
	}
	h := &b.Hunks[len(b.Hunks)-1]
	for len(h.Lines) > 0 && strings.TrimSpace(h.Lines[len(h.Lines)-1]) == "" && h.Lines[len(h.Lines)-1] != "+" && h.Lines[len(h.Lines)-1] != "-" {
		h.Lines = h.Lines[:len(h.Lines)-1]
	}
}

// parseHunkHeader reads "@@ -a,b +c,d @@"; numbers it cannot read stay 0.
func parseHunkHeader(l string) Hunk {
	h := Hunk{Header: l}
	for _, f := range strings.Fields(strings.Trim(l, "@ ")) {
		if len(f) < 2 || (f[0] != '-' && f[0] != '+') {
			continue
		}
		start, count, _ := strings.Cut(f[1:], ",")
		s, err := strconv.Atoi(start)
		if err != nil || s < 0 {
			continue
		}
		c := 1
		if count != "" {
			if v, err := strconv.Atoi(count); err == nil && v >= 0 {
				c = v
			}
		}
		if f[0] == '-' {
			h.OldStart, h.OldLines = s, c
		} else {
			h.NewStart, h.NewLines = s, c
		}
	}
	return h
}

// --- paths -----------------------------------------------------------------------

// pathFromInfo finds a file path in a fence's info string:
// "go path/to/x.go", "path/to/x.go", "python:src/x.py", "title=x.go".
func pathFromInfo(info string) string {
	for _, f := range strings.Fields(info) {
		f = strings.Trim(f, "{}\"'`,")
		for _, pre := range []string{"title=", "file=", "path=", "filename="} {
			if len(f) > len(pre) && strings.EqualFold(f[:len(pre)], pre) {
				f = strings.Trim(f[len(pre):], "\"'")
			}
		}
		if _, after, ok := strings.Cut(f, ":"); ok && looksLikePath(after) {
			return after
		}
		if looksLikePath(f) {
			return f
		}
	}
	return ""
}

// pathFromLine finds the file path a line before a block names: the line
// is the path (bare, `backticked`, **bold**, "File: x", "# x"), or it
// ends with a colon after a backticked path or a path as its last word.
func pathFromLine(line string) string {
	s := strings.TrimSpace(line)
	if s == "" || len(s) > 300 {
		return ""
	}
	// A backticked span that is a path.
	rest := s
	for {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		j := strings.IndexByte(rest, '`')
		if j < 0 {
			break
		}
		if cand := strings.TrimSpace(rest[:j]); looksLikePath(cand) {
			return cand
		}
		rest = rest[j+1:]
	}
	s = strings.TrimLeft(s, "#>*-+ \t")
	s = strings.TrimSpace(strings.Trim(s, "*_"))
	for _, pre := range []string{"file:", "filename:", "file name:", "path:", "file path:"} {
		if len(s) > len(pre) && strings.EqualFold(s[:len(pre)], pre) {
			s = strings.TrimSpace(s[len(pre):])
		}
	}
	colon := strings.HasSuffix(s, ":") || strings.HasSuffix(s, ":**") || strings.HasSuffix(s, ":*")
	s = strings.TrimSpace(strings.Trim(s, "*_`\"' :"))
	if looksLikePath(s) {
		return s
	}
	if colon {
		fields := strings.Fields(s)
		if len(fields) > 1 {
			if last := strings.Trim(fields[len(fields)-1], "*_`\"'():"); looksLikePath(last) && (strings.Contains(last, "/") || strings.Contains(last, ".")) {
				return last
			}
		}
	}
	return ""
}

// knownExt is built on first use (no package-level work at start-up).
var knownExt = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`go mod sum work py pyi js jsx ts tsx mjs cjs json jsonc yaml yml toml md mdx txt
		html htm css scss sass less c h cc cpp hpp cxx hh rs java kt kts swift rb php pl pm sh bash zsh fish sql
		xml svg proto graphql gql lua r dart ex exs erl hrl hs ml mli scala sc clj cljs vue svelte ini cfg conf env
		lock gradle cs fs fsx vb m mm zig nim tf tfvars hcl mk cmake bat cmd ps1 csv tsv rst adoc tex tmpl tpl
		gotmpl j2 jinja properties gitignore dockerignore editorconfig gitattributes dockerfile containerfile nix
		el vim jl ipynb cabal elm purs sol v sv vhd asm s awk sed http rest templ astro prisma`) {
		m[e] = true
	}
	return m
})

func knownName(base string) bool {
	switch base {
	case "Makefile", "Dockerfile", "Containerfile", "LICENSE", "README", "Procfile", "Gemfile", "Rakefile",
		"Justfile", "justfile", "Vagrantfile", "Jenkinsfile", "GNUmakefile", "CODEOWNERS":
		return true
	}
	return false
}

// looksLikePath reports whether s reads as a file path: no spaces or
// code punctuation, and a known extension, a slash, or a known file name.
func looksLikePath(s string) bool {
	if s == "" || len(s) > 255 || strings.ContainsAny(s, " \t()[]{}<>;,=|\"'`*?!$&") || strings.Contains(s, "://") {
		return false
	}
	if strings.HasSuffix(s, "/") || strings.HasSuffix(s, ".") {
		return false
	}
	base := s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		base = s[i+1:]
	}
	if base == "" || base == ".." {
		return false
	}
	if knownName(base) {
		return true
	}
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return false
	}
	ext := base[dot+1:]
	if knownExt()[strings.ToLower(ext)] && ext == strings.ToLower(ext) || ext == "R" || ext == "H" || ext == "C" {
		return true
	}
	if !strings.Contains(s, "/") {
		return false
	}
	for _, r := range ext {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return false
		}
	}
	return len(ext) > 0 && len(ext) <= 10
}
