package patterns

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Defaults applied when a file does not say otherwise.
const (
	DefaultMaxSize     int64 = 1 << 20 // 1 MiB
	DefaultPriority          = "P2"
	DefaultReusability       = 5
)

// errParserBug marks a recovered panic; it should never be seen (the fuzz target checks).
var errParserBug = errors.New("internal parser error")

// ParseOptions tunes Parse.
type ParseOptions struct {
	// Split fills Doc.Sections with one Section per "## Pattern…" heading when a file has two
	// or more of them.
	Split bool
	// MaxSize is the largest accepted file in bytes; 0 means DefaultMaxSize.
	MaxSize int64
}

func (o ParseOptions) maxSize() int64 {
	if o.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return o.MaxSize
}

// CodeExample is one fenced code block.
type CodeExample struct {
	// Language is the normalised language ("typescript" for ts/tsx), "" when the fence has none.
	Language string `json:"language"`
	// Info is the fence's raw info string ("tsx title=x").
	Info string `json:"info,omitempty"`
	Code string `json:"code"`
	// Line is the file line of the opening fence.
	Line int `json:"line"`
	// Heading is the text of the nearest heading above the block.
	Heading string `json:"heading,omitempty"`
}

// Section is one "## Pattern…" part of a multi-pattern file (split mode). An importer turns it
// into its own node linked to the file's node with a RelationRefines edge.
type Section struct {
	Title       string `json:"title"`
	Heading     string `json:"heading"`
	Anchor      string `json:"anchor"`
	Description string `json:"description"`
	// SourceFile is ParentSourceFile + "#" + Anchor.
	SourceFile       string        `json:"sourceFile"`
	ParentSourceFile string        `json:"parentSourceFile"`
	Line             int           `json:"line"`
	Tags             []string      `json:"tags"`
	CodeExamples     []CodeExample `json:"codeExamples"`
	Language         string        `json:"language"`
	Priority         string        `json:"priority"`
	Reusability      int           `json:"reusability"`
	Body             string        `json:"body"`
}

// Doc is one parsed pattern file: a plain draft, not yet a vault node.
type Doc struct {
	// SourceFile is the path relative to the import root, slash-separated.
	SourceFile  string `json:"sourceFile"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Category is the parent folder without its numeric prefix ("01-security" → "security"),
	// or front matter's category. Files in the import root get "general".
	Category string `json:"category"`
	// Type is the vault node type: front matter `type`, else a `**Type:**` line, else
	// TypeForCategory(Category).
	Type         string        `json:"type"`
	Tags         []string      `json:"tags"`
	Priority     string        `json:"priority"`
	Reusability  int           `json:"reusability"`
	Language     string        `json:"language"`
	CodeExamples []CodeExample `json:"codeExamples"`
	Sections     []Section     `json:"sections,omitempty"`
	// Body is the markdown after the front matter, with CRLF turned into LF.
	Body string `json:"body"`
	// ContentHash is the hex SHA-256 of the raw file bytes.
	ContentHash string `json:"contentHash"`
	// Fields holds the `**Field:** value` lines of the file's header (keys lowercased).
	Fields map[string]string `json:"fields,omitempty"`
	// FrontMatter is the decoded YAML front matter, nil when there is none.
	FrontMatter map[string]any `json:"frontMatter,omitempty"`
	// Warnings are non-fatal oddities (unclosed fence, unreadable priority value, …).
	Warnings []string `json:"warnings,omitempty"`
}

// Parse parses one pattern file. relPath is the file's path relative to the import root (either
// separator); it becomes SourceFile and gives the category. Problems with the file itself are
// returned as *ParseError wrapping ErrEmpty, ErrBinary, ErrTooLarge, ErrNotUTF8, ErrHeadless,
// ErrFrontMatter or ErrUnsafePath. Parse never panics.
func Parse(relPath string, data []byte, opts ParseOptions) (doc Doc, err error) {
	return parseFile(relPath, data, opts, false)
}

// parseFile is Parse; owned says that data is the caller's to give away: it is never
// changed again, so the Doc may keep pointing into it (a scan reads every file into a buffer
// of its own, and copying it into a string was a fifth of the parser's allocation).
func parseFile(relPath string, data []byte, opts ParseOptions, owned bool) (doc Doc, err error) {
	rel, perr := cleanRelPath(relPath)
	if perr != nil {
		return Doc{}, perr
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = Doc{}, &ParseError{Path: rel, Err: errParserBug, Detail: fmt.Sprint(r)}
		}
	}()
	if perr := checkContent(data, opts.maxSize()); perr != nil {
		perr.Path = rel
		return Doc{}, perr
	}
	sum := sha256.Sum256(data)
	p := parser{rel: rel, opts: opts}
	var text string
	if owned {
		// The caller hands data over and never touches it again (scanOne): the Doc's
		// strings may point into it instead of into a copy.
		text = unsafe.String(unsafe.SliceData(data), len(data))
	} else {
		text = string(data)
	}
	doc, perr = p.parse(text)
	if perr != nil {
		perr.Path = rel
		return Doc{}, perr
	}
	doc.ContentHash = hex.EncodeToString(sum[:])
	return doc, nil
}

// cleanRelPath normalises a path relative to the import root and refuses absolute or escaping
// ones (paths in pattern libraries are untrusted).
func cleanRelPath(p string) (string, *ParseError) {
	orig := p
	p = strings.ReplaceAll(p, "\\", "/")
	bad := func(detail string) *ParseError {
		return &ParseError{Path: orig, Err: ErrUnsafePath, Detail: detail}
	}
	if strings.ContainsRune(p, 0) {
		return "", bad("path contains a NUL byte")
	}
	if strings.HasPrefix(p, "/") || len(p) >= 2 && p[1] == ':' {
		return "", bad("path is absolute")
	}
	p = path.Clean(p)
	if p == "." || p == "" {
		return "", bad("path is empty")
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", bad("path climbs out of the root")
	}
	return p, nil
}

// checkContent rejects files that cannot be a markdown pattern.
func checkContent(data []byte, maxSize int64) *ParseError {
	if int64(len(data)) > maxSize {
		return &ParseError{Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", len(data), maxSize)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &ParseError{Err: ErrEmpty}
	}
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return &ParseError{Err: ErrNotUTF8, Detail: "UTF-16 byte-order mark; save the file as UTF-8"}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return &ParseError{Line: lineAt(data, i), Err: ErrBinary, Detail: "contains NUL bytes"}
	}
	// "Mostly non-text": more than 30% control bytes or invalid UTF-8 in the first 8 KiB.
	sample := data[:min(len(data), 8<<10)]
	bad := 0
	for i := 0; i < len(sample); {
		// Eight ASCII bytes at a time: what DecodeRune would say of each, without it.
		if i+8 <= len(sample) {
			if w := binary.LittleEndian.Uint64(sample[i:]); w&0x8080808080808080 == 0 {
				b := sample[i : i+8 : i+8]
				bad += int(asciiControl[b[0]] + asciiControl[b[1]] + asciiControl[b[2]] + asciiControl[b[3]] +
					asciiControl[b[4]] + asciiControl[b[5]] + asciiControl[b[6]] + asciiControl[b[7]])
				i += 8
				continue
			}
		}
		if c := sample[i]; c < utf8.RuneSelf {
			bad += int(asciiControl[c])
			i++
			continue
		}
		r, size := utf8.DecodeRune(sample[i:])
		switch {
		case r == utf8.RuneError && size == 1 && len(sample)-i >= utf8.UTFMax:
			bad++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v', r == 0x7f:
			bad++
		}
		i += size
	}
	if bad*10 > len(sample)*3 {
		return &ParseError{Err: ErrBinary, Detail: "mostly control characters or invalid UTF-8"}
	}
	if !utf8.Valid(data) {
		off := invalidUTF8At(data)
		return &ParseError{Line: lineAt(data, off), Err: ErrNotUTF8, Detail: fmt.Sprintf("invalid byte 0x%02x at offset %d", data[off], off)}
	}
	return nil
}

// asciiControl is 1 for the ASCII bytes checkContent counts as control characters (all
// below 0x20 except tab, newline, carriage return, form feed and vertical tab, and DEL).
var asciiControl = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' || c == 0x7f {
			t[c] = 1
		}
	}
	return t
}()

func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return 0
}

func lineAt(data []byte, off int) int {
	return bytes.Count(data[:min(off, len(data))], []byte{'\n'}) + 1
}

type parser struct {
	rel    string
	opts   ParseOptions
	lines  []line
	blocks []block
	body   string
}

func (p *parser) parse(text string) (Doc, *ParseError) {
	text = strings.TrimPrefix(text, "\uFEFF")
	if strings.Contains(text, "\r") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	yml, body, bodyLine, hasFM, perr := splitFrontMatter(text)
	if perr != nil {
		return Doc{}, perr
	}
	var fm frontMatter
	if hasFM {
		// The YAML starts on line 2, right after the opening "---".
		if fm, perr = parseFrontMatter(yml, 2); perr != nil {
			return Doc{}, perr
		}
	}
	p.body = body
	sc := scratchPool.Get().(*scratch)
	defer func() {
		sc.lines, sc.blocks = p.lines, p.blocks // keep what grew for the next file
		p.lines, p.blocks = nil, nil
		putScratch(sc)
	}()
	p.lines, sc.texts = splitLines(sc.lines, sc.texts, body, bodyLine)
	var warnings []string
	p.blocks, warnings = scanBlocks(sc.blocks, p.lines, sc.texts, body)

	if fm.title == "" && fm.description == "" && !p.hasHeading() && !p.hasAnyProse() {
		return Doc{}, &ParseError{Err: ErrHeadless, Detail: "no heading, no prose paragraph and no front matter title or description"}
	}

	doc := Doc{
		SourceFile:  p.rel,
		Body:        body,
		FrontMatter: fm.raw,
		Fields:      p.headerFields(),
	}
	doc.Title = cleanInline(fm.title)
	if doc.Title == "" {
		doc.Title = p.firstH1()
	}
	if doc.Title == "" {
		doc.Title = humanize(path.Base(p.rel))
	}

	doc.Category = categoryOf(p.rel)
	if fm.category != "" {
		if c := NormalizeCategory(fm.category); c != "" {
			doc.Category = c
		}
	}

	doc.Type = fm.typ
	if doc.Type == "" {
		if v, ok := doc.Fields["type"]; ok {
			if t, known := normalizeType(v); known {
				doc.Type = t
			} else {
				warnings = append(warnings, fmt.Sprintf("unknown **Type:** %q ignored", v))
			}
		}
	}
	if doc.Type == "" {
		doc.Type = TypeForCategory(doc.Category)
	}

	doc.Priority = DefaultPriority
	if fm.priority != "" {
		doc.Priority = fm.priority
	} else if v, ok := doc.Fields["priority"]; ok {
		if pr, valid := normalizePriority(v); valid {
			doc.Priority = pr
		} else {
			warnings = append(warnings, fmt.Sprintf("unreadable **Priority:** %q, using %s", v, DefaultPriority))
		}
	}

	doc.Reusability = DefaultReusability
	if fm.hasReusability {
		doc.Reusability = fm.reusability
	} else if v, ok := firstField(doc.Fields, "reusability", "reusability score"); ok {
		if r, valid := parseReusability(v); valid {
			doc.Reusability = r
		} else {
			warnings = append(warnings, fmt.Sprintf("unreadable **Reusability:** %q, using %d", v, DefaultReusability))
		}
	}

	doc.CodeExamples = p.codeExamples(0, len(p.blocks))
	doc.Language = majorityLanguage(doc.CodeExamples)
	doc.Tags = p.docTags(doc.Category, fm.tags, doc.Fields["tags"])
	// Front matter may hold inline markdown; the body candidates are plain text already (and
	// must not be cleaned twice: `__proto__` would lose its underscores).
	doc.Description = cleanInline(fm.description)
	if doc.Description == "" {
		doc.Description = p.description(doc.Title)
	}
	doc.Description = truncateWords(doc.Description, MaxDescriptionRunes)
	if p.opts.Split {
		doc.Sections = p.sections(&doc)
	}
	doc.Warnings = warnings
	return doc, nil
}

func firstField(fields map[string]string, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := fields[k]; ok {
			return v, true
		}
	}
	return "", false
}

func (p *parser) hasHeading() bool {
	for _, b := range p.blocks {
		if b.kind == kindHeading && b.plain != "" {
			return true
		}
	}
	return false
}

func (p *parser) hasAnyProse() bool {
	for _, b := range p.blocks {
		if b.kind == kindParagraph && hasWords(cleanInline(strings.Join(b.lines, " ")), 1) {
			return true
		}
	}
	return false
}

func (p *parser) firstH1() string {
	for _, b := range p.blocks {
		if b.kind == kindHeading && b.level == 1 && b.plain != "" {
			return b.plain
		}
	}
	return ""
}

// anchors gives every heading its GitHub anchor (block index → anchor); repeats get "-1",
// "-2", …. Only split sections use them.
func (p *parser) anchors() map[int]string {
	anchor := map[int]string{}
	seen := map[string]int{}
	for i, b := range p.blocks {
		if b.kind != kindHeading {
			continue
		}
		s := slug(b.plain)
		a := s
		if n, ok := seen[s]; ok {
			a = fmt.Sprintf("%s-%d", s, n)
			seen[s] = n + 1
		} else {
			seen[s] = 1
		}
		anchor[i] = a
	}
	return anchor
}

// headerFields collects `**Field:** value` lines before the first non-provenance H2 (the block
// of metadata under the title and under "## Source" / "## Adapted from …"). The first
// occurrence of a key wins.
func (p *parser) headerFields() map[string]string {
	var fields map[string]string
	for _, b := range p.blocks {
		if b.kind == kindHeading && b.level >= 2 && !isBoilerplateHeading(b.plain) {
			break
		}
		fields = collectFields(b, fields)
	}
	return fields
}

func collectFields(b block, fields map[string]string) map[string]string {
	if b.kind != kindParagraph {
		return fields
	}
	for _, l := range b.lines {
		k, v, ok := fieldLine(l)
		if !ok {
			continue
		}
		if fields == nil {
			fields = map[string]string{}
		}
		if _, dup := fields[k]; !dup {
			fields[k] = v
		}
	}
	return fields
}

func (p *parser) codeExamples(from, to int) []CodeExample {
	var out []CodeExample
	// The heading in force at from; sections start right after theirs, so this is O(1) there.
	heading := ""
	for i := min(from, len(p.blocks)) - 1; i >= 0; i-- {
		if p.blocks[i].kind == kindHeading {
			heading = p.blocks[i].plain
			break
		}
	}
	for i := from; i < to && i < len(p.blocks); i++ {
		b := p.blocks[i]
		if b.kind == kindHeading {
			heading = b.plain
			continue
		}
		if b.kind != kindFence {
			continue
		}
		out = append(out, CodeExample{
			Language: NormalizeLanguage(b.info),
			Info:     b.info,
			Code:     b.code,
			Line:     b.num,
			Heading:  heading,
		})
	}
	return out
}

// docTags is the tag rule for a file: the category, then explicit tags (front matter `tags`,
// then a `**Tags:**` line), then one tag per H2 heading. Every tag is lowercase kebab-case and
// at most 48 runes; duplicates are dropped keeping the first. Heading tags also drop the
// "Pattern N:" / "N." prefix, provenance headings ("Source", "Adapted from …") and generic
// headings (overview, examples, usage, benefits, anti-patterns, related patterns, when to use,
// implementation, … see genericTags). Explicit tags are kept even when generic.
func (p *parser) docTags(category string, fmTags []string, fieldTags string) []string {
	seen := map[string]bool{}
	tags := appendTags(nil, seen, category)
	for _, t := range fmTags {
		tags = appendTags(tags, seen, clipTag(kebab(t)))
	}
	for _, t := range splitList(cleanInline(fieldTags)) {
		tags = appendTags(tags, seen, clipTag(kebab(t)))
	}
	for _, b := range p.blocks {
		if b.kind == kindHeading && b.level == 2 {
			tags = appendTags(tags, seen, headingTag(b.plain))
		}
	}
	return tags
}

// scope is a run of blocks under one heading of level ≤ 2 (or the blocks before the first one).
type scope struct {
	head     int // block index of the heading, -1 for the top of the file
	from, to int // block range of the content [from, to)
}

func (p *parser) scopes() []scope {
	var out []scope
	cur := scope{head: -1, from: 0}
	for i, b := range p.blocks {
		if b.kind == kindHeading && b.level <= 2 {
			cur.to = i
			out = append(out, cur)
			cur = scope{head: i, from: i + 1}
		}
	}
	cur.to = len(p.blocks)
	return append(out, cur)
}

func (p *parser) headingLevel(s scope) int {
	if s.head < 0 {
		return 0
	}
	return p.blocks[s.head].level
}

func (p *parser) headingText(s scope) string {
	if s.head < 0 {
		return ""
	}
	return p.blocks[s.head].plain
}

// description picks the summary paragraph. The order of preference is:
//  1. an Overview-like H2 (overview, summary, introduction, description, purpose, about, …);
//  2. prose between the title and the first H2;
//  3. the "## Pattern…" sections, in file order;
//  4. the other sections in file order, except provenance ("Source", "Adapted from …") and
//     trailing ones (when to use, benefits, anti-patterns, related patterns, files to modify);
//  5. an outline: "<title>: <heading>, <heading>, …" from the content H2 headings, for files
//     that are all code and lists;
//  6. any short paragraph or list outside provenance sections.
//
// Within a section, "prose" is a paragraph of at least three words that is not a
// `**Field:**` line, a provenance line ("Extracted from …", "Source: …") or an italic footnote;
// headings, tables, quotes, HTML and code never count. A lead-in paragraph ending with ":"
// counts only together with the list right after it (items joined with "; ") plus the
// paragraph that follows the list, if any.
func (p *parser) description(title string) string {
	sc := p.scopes()
	for _, s := range sc {
		if p.headingLevel(s) == 2 && isOverviewHeading(p.headingText(s)) {
			if d := p.bestProse(s.from, s.to); d != "" {
				return d
			}
		}
	}
	for _, s := range sc {
		if p.headingLevel(s) <= 1 {
			if d := p.bestProse(s.from, s.to); d != "" {
				return d
			}
		}
	}
	for _, s := range sc {
		if p.headingLevel(s) == 2 && isPatternHeading(p.headingText(s)) {
			if d := p.bestProse(s.from, s.to); d != "" {
				return d
			}
		}
	}
	for _, s := range sc {
		h := p.headingText(s)
		if k := kebab(h); isBoilerplateKebab(k) || isTrailingKebab(k) {
			continue
		}
		if d := p.bestProse(s.from, s.to); d != "" {
			return d
		}
	}
	var outline []string
	for _, s := range sc {
		h := p.headingText(s)
		if p.headingLevel(s) == 2 && !isTrailingHeading(h) && headingTag(h) != "" {
			outline = append(outline, stripPatternPrefix(h))
		}
	}
	if len(outline) > 0 {
		return title + ": " + strings.Join(outline, ", ") + "."
	}
	for _, s := range sc {
		if isBoilerplateHeading(p.headingText(s)) {
			continue
		}
		for i := s.from; i < s.to; i++ {
			b := p.blocks[i]
			switch b.kind {
			case kindParagraph:
				if t := proseText(b); t != "" {
					return t
				}
			case kindList:
				if items := cleanAll(listItems(b.lines)); len(items) > 0 {
					return joinItems(items)
				}
			}
		}
	}
	return ""
}

func isTrailingHeading(text string) bool { return isTrailingKebab(kebab(text)) }

// isTrailingKebab is isTrailingHeading of a heading already in kebab form.
func isTrailingKebab(k string) bool {
	for _, pre := range []string{"anti-pattern", "antipattern", "related", "files-to-modify", "see-also", "references", "when-to-use", "when-not-to-use", "benefits"} {
		if strings.HasPrefix(k, pre) {
			return true
		}
	}
	return false
}

func cleanAll(items []string) []string {
	out := items[:0]
	for _, it := range items {
		if c := cleanInline(it); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// joinItems joins list items with "; " and ends the sentence with a full stop.
func joinItems(items []string) string {
	s := strings.Join(items, "; ")
	if s != "" && !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return s
}

// bestProse returns the description candidate of blocks [from, to): the first prose paragraph,
// or a lead-in ("…:") with its list and the paragraph after the list. Lead-ins followed by
// anything but a list (usually code) are skipped.
func (p *parser) bestProse(from, to int) string {
	to = min(to, len(p.blocks))
	for i := from; i < to; i++ {
		if p.blocks[i].kind != kindParagraph {
			continue
		}
		t := proseText(p.blocks[i])
		if !hasWords(t, 3) {
			continue
		}
		if !strings.HasSuffix(t, ":") {
			return t
		}
		if i+1 >= to || p.blocks[i+1].kind != kindList {
			continue
		}
		items := cleanAll(listItems(p.blocks[i+1].lines))
		if len(items) == 0 {
			continue
		}
		d := t + " " + joinItems(items)
		if i+2 < to && p.blocks[i+2].kind == kindParagraph {
			if next := proseText(p.blocks[i+2]); hasWords(next, 3) && !strings.HasSuffix(next, ":") {
				d += " " + next
			}
		}
		return d
	}
	return ""
}

var provenancePrefixes = []string{
	"extracted from", "adapted from", "source:", "sources:", "source files:", "based on",
	"generated by", "extracted:", "last updated", "provenance",
}

// proseText returns the plain text of a paragraph without its field lines, or "" when what is
// left is provenance boilerplate or an italic footnote.
func proseText(b block) string {
	var buf [8]string
	keep := buf[:0]
	allEmph := true
	for _, l := range b.lines {
		if _, _, ok := fieldLine(l); ok {
			continue
		}
		t := strings.TrimSpace(l)
		keep = append(keep, t)
		if !isEmphasisOnly(t) {
			allEmph = false
		}
	}
	if len(keep) == 0 || allEmph {
		return ""
	}
	t := cleanInline(strings.Join(keep, " "))
	for _, pre := range provenancePrefixes {
		if hasLowerPrefix(t, pre) {
			return ""
		}
	}
	return t
}

// hasLowerPrefix is strings.HasPrefix(strings.ToLower(s), prefix) for an ASCII prefix,
// without lowering (and copying) s.
func hasLowerPrefix(s, prefix string) bool {
	j := 0
	for i := 0; j < len(prefix); {
		if i >= len(s) {
			return false
		}
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if r = unicode.ToLower(r); r != rune(prefix[j]) {
			return false
		}
		j++
	}
	return true
}

// isEmphasisOnly reports a line wrapped entirely in single emphasis: "*Extracted: 2026-02-18*".
func isEmphasisOnly(t string) bool {
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "\\"))
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if (c != '*' && c != '_') || t[len(t)-1] != c {
		return false
	}
	return t[1] != c || len(t) < 5 || t[len(t)-2] != c // **bold** lines are prose, not notes
}

// sections builds the split-mode sections: one per "## Pattern…" H2, only when there are two
// or more. A section runs to the next heading of level ≤ 2.
func (p *parser) sections(doc *Doc) []Section {
	var heads []int
	for i, b := range p.blocks {
		if b.kind == kindHeading && b.level == 2 && isPatternHeading(b.plain) {
			heads = append(heads, i)
		}
	}
	if len(heads) < 2 {
		return nil
	}
	anchor := p.anchors()
	out := make([]Section, 0, len(heads))
	for n, hi := range heads {
		end := len(p.blocks)
		for j := hi + 1; j < len(p.blocks); j++ {
			if p.blocks[j].kind == kindHeading && p.blocks[j].level <= 2 {
				end = j
				break
			}
		}
		h := p.blocks[hi]
		sec := Section{
			Heading:          h.plain,
			Title:            stripPatternPrefix(h.plain),
			Anchor:           anchor[hi],
			ParentSourceFile: doc.SourceFile,
			Line:             h.num,
			Priority:         doc.Priority,
			Reusability:      doc.Reusability,
		}
		if sec.Title == "" {
			sec.Title = fmt.Sprintf("%s: pattern %d", doc.Title, n+1)
		}
		sec.SourceFile = doc.SourceFile + "#" + sec.Anchor
		sec.Description = truncateWords(p.sectionDescription(hi+1, end, sec.Title), MaxDescriptionRunes)
		sec.CodeExamples = p.codeExamples(hi+1, end)
		sec.Language = majorityLanguage(sec.CodeExamples)
		if sec.Language == "" {
			sec.Language = doc.Language
		}
		var fields map[string]string
		seen := map[string]bool{}
		sec.Tags = appendTags(nil, seen, doc.Category, normalizeTag(sec.Title))
		for j := hi + 1; j < end; j++ {
			b := p.blocks[j]
			fields = collectFields(b, fields)
			if b.kind == kindHeading && b.level == 3 {
				sec.Tags = appendTags(sec.Tags, seen, headingTag(b.plain))
			}
		}
		if v, ok := fields["priority"]; ok {
			if pr, valid := normalizePriority(v); valid {
				sec.Priority = pr
			}
		}
		if v, ok := firstField(fields, "reusability", "reusability score"); ok {
			if r, valid := parseReusability(v); valid {
				sec.Reusability = r
			}
		}
		sec.Body = p.slice(hi, end)
		out = append(out, sec)
	}
	return out
}

// metaFieldKeys are header fields that describe provenance or ranking, not the pattern.
var metaFieldKeys = []string{"source", "category", "priority", "reusability", "type", "tags", "extracted", "date", "status", "author", "version", "last updated"}

// sectionDescription is a section's summary: its first prose (as for files), else the first
// descriptive `**Field:**` value ("Title: value"), else an outline of its H3 headings
// ("Title: h3, h3."). "" when the section has none of these.
func (p *parser) sectionDescription(from, to int, title string) string {
	if d := p.bestProse(from, to); d != "" {
		return d
	}
	var outline []string
	for i := from; i < to && i < len(p.blocks); i++ {
		b := p.blocks[i]
		if b.kind == kindHeading && b.level == 3 && headingTag(b.plain) != "" {
			outline = append(outline, b.plain)
		}
		if b.kind != kindParagraph {
			continue
		}
		for _, l := range b.lines {
			k, v, ok := fieldLine(l)
			if !ok || isMetaField(k) {
				continue
			}
			if v = cleanInline(v); hasWords(v, 2) {
				return title + ": " + v
			}
		}
	}
	if len(outline) > 0 {
		return title + ": " + strings.Join(outline, ", ") + "."
	}
	return ""
}

func isMetaField(key string) bool {
	for _, m := range metaFieldKeys {
		if strings.HasPrefix(key, m) {
			return true
		}
	}
	return false
}

// slice returns the body text from the first line of block from to just before block to,
// without trailing blank lines and a trailing "---" separator.
func (p *parser) slice(from, to int) string {
	start := p.lines[p.blocks[from].first].start
	end := len(p.body)
	if to < len(p.blocks) {
		end = p.lines[p.blocks[to].first].start
	}
	s := strings.TrimRight(p.body[start:end], " \t\n")
	for strings.HasSuffix(s, "\n---") {
		s = strings.TrimRight(strings.TrimSuffix(s, "---"), " \t\n")
	}
	return s + "\n"
}
