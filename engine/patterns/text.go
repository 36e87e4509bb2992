package patterns

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nova-dev/nova/internal/lazyre"
)

// MaxDescriptionRunes is the longest Description (and section description) Parse produces.
const MaxDescriptionRunes = 500

// maxTagRunes bounds tags made from headings; longer ones are cut at a hyphen.
const maxTagRunes = 48

var (
	reImage    = lazyre.New(`!\[([^\]]*)\]\([^)]*\)`)
	reLink     = lazyre.New(`\[([^\]]+)\]\([^)]*\)`)
	reRefLink  = lazyre.New(`\[([^\]]+)\]\[[^\]]*\]`)
	reAutolink = lazyre.New(`<((?:https?|mailto):[^>\s]+)>`)
	reBreakTag = lazyre.New(`(?i)<br\s*/?>`)
	reStrong   = lazyre.New(`(\*\*|__)(\S(?:.*?\S)?)(\*\*|__)`)
	reEmStar   = lazyre.New(`(^|[^\w*])\*(\S(?:[^*]*?\S)?)\*`)
	reEmUnder  = lazyre.New(`(^|[^\w_])_(\S(?:[^_]*?\S)?)_($|[^\w_])`)
	reStrike   = lazyre.New(`~~(\S(?:.*?\S)?)~~`)
	reEscape   = lazyre.New("\\\\([\\\\`*_{}\\[\\]()#+\\-.!|>~])")
	reSpaces   = lazyre.New(`\s+`)
)

// cleanInline turns one piece of inline markdown into plain text: links and images keep their
// text, emphasis and code markers are removed, whitespace collapses to single spaces.
func cleanInline(s string) string {
	if !hasInlineMarkup(s) {
		return strings.TrimSpace(s) // nothing to clean: skip the regexes (hot for headings)
	}
	// Each regex runs only where its marker occurs: they cost a backtracking scan of the whole
	// text even when nothing matches, and prose with snake_case identifiers is common.
	if strings.Contains(s, "![") {
		s = reImage.ReplaceAllString(s, "$1")
	}
	if strings.IndexByte(s, '[') >= 0 {
		s = reLink.ReplaceAllString(s, "$1")
		s = reRefLink.ReplaceAllString(s, "$1")
	}
	if strings.IndexByte(s, '<') >= 0 {
		s = reAutolink.ReplaceAllString(s, "$1")
		s = reBreakTag.ReplaceAllString(s, " ")
	}
	// Code spans keep their content verbatim (`__proto__` must not lose its underscores), and
	// emphasis around a code span (**`useMemo`**) must still pair up: spans are swapped for
	// private-use placeholders while emphasis is removed, then put back.
	masked, spans := maskCodeSpans(s)
	out := cleanEmphasis(masked)
	if len(spans) > 0 {
		pairs := make([]string, 0, 2*len(spans))
		for i, sp := range spans {
			pairs = append(pairs, placeholder(i), sp)
		}
		out = strings.NewReplacer(pairs...).Replace(out)
	}
	out = strings.TrimSuffix(strings.TrimSpace(out), "\\") // hard line break marker
	return strings.TrimSpace(collapseSpaces(out))
}

// inlineMarkup marks the bytes after which cleanInline has work: "`*_[]!<~\\" and the
// whitespace other than a space.
var inlineMarkup = func() (t [256]bool) {
	for _, c := range []byte("`*_[]!<~\\\t\n\r\v\f") {
		t[c] = true
	}
	return t
}()

// hasInlineMarkup reports whether s has a byte of inlineMarkup or two spaces in a row (what
// cleanInline's fast path tested with strings.ContainsAny, which builds its byte set at
// every call, and strings.Contains).
func hasInlineMarkup(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; inlineMarkup[c] || c == ' ' && i+1 < len(s) && s[i+1] == ' ' {
			return true
		}
	}
	return false
}

// maskCodeSpans swaps every code span of s for placeholder(i) and returns the spans' trimmed
// contents; s itself when it has no backtick.
func maskCodeSpans(s string) (string, []string) {
	if strings.IndexByte(s, '`') < 0 {
		return s, nil
	}
	var (
		b     strings.Builder
		spans []string
	)
	for s != "" {
		open := strings.IndexByte(s, '`')
		if open < 0 {
			b.WriteString(s)
			break
		}
		n := 1
		for open+n < len(s) && s[open+n] == '`' {
			n++
		}
		end := indexRun(s[open+n:], s[open:open+n])
		if end < 0 {
			b.WriteString(s[:open+n])
			s = s[open+n:]
			continue
		}
		b.WriteString(s[:open])
		b.WriteString(placeholder(len(spans)))
		spans = append(spans, strings.TrimSpace(s[open+n:open+n+end]))
		s = s[open+n+end+n:]
	}
	return b.String(), spans
}

// collapseSpaces replaces every run of the whitespace of regexp's \s ([\t\n\f\r ]) with one
// space, as reSpaces.ReplaceAllString(s, " ") does, without a regex.
func collapseSpaces(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > ' ' { // most bytes: no whitespace is above the space
			continue
		}
		if isRESpace(c) && (c != ' ' || (i+1 < len(s) && isRESpace(s[i+1]))) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if !isRESpace(s[i]) {
			b = append(b, s[i])
			continue
		}
		b = append(b, ' ')
		for i+1 < len(s) && isRESpace(s[i+1]) {
			i++
		}
	}
	return string(b)
}

// placeholder is a token of private-use runes standing for the i-th code span.
func placeholder(i int) string {
	return "\uE000" + strconv.Itoa(i) + "\uE001"
}

// cleanEmphasis removes emphasis and escapes. Each regex runs only when the text has a
// place where it could match (see emphasisOpens): their lazy groups backtrack over the whole
// text, which made them a fifth of importing a library of prose with snake_case names.
func cleanEmphasis(s string) string {
	if strings.Contains(s, "**") || strings.Contains(s, "__") {
		s = reStrong.ReplaceAllString(s, "$2")
	}
	if emphasisOpens(s, '*') {
		s = reEmStar.ReplaceAllString(s, "$1$2")
	}
	if emphasisOpens(s, '_') {
		s = reEmUnder.ReplaceAllString(s, "$1$2$3")
	}
	if strings.Contains(s, "~~") {
		s = reStrike.ReplaceAllString(s, "$1")
	}
	if strings.IndexByte(s, '\\') >= 0 {
		s = reEscape.ReplaceAllString(s, "$1")
	}
	return s
}

// emphasisOpens reports whether s has a marker that reEmStar or reEmUnder could open at:
// the marker at the start or after a byte that is neither a word byte (\w) nor the marker,
// and followed by a non-space byte.
func emphasisOpens(s string, marker byte) bool {
	for i := strings.IndexByte(s, marker); i >= 0 && i < len(s); {
		if (i == 0 || !isWordByte(s[i-1]) && s[i-1] != marker) && i+1 < len(s) && !isRESpace(s[i+1]) {
			return true
		}
		j := strings.IndexByte(s[i+1:], marker)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// isWordByte is regexp's \w for a byte ([0-9A-Za-z_]).
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isRESpace is regexp's \s for a byte.
func isRESpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// indexRun finds a backtick run of exactly len(run) backticks in s.
func indexRun(s, run string) int {
	off := 0
	for {
		i := strings.Index(s[off:], run)
		if i < 0 {
			return -1
		}
		i += off
		j := i + len(run)
		if (i == 0 || s[i-1] != '`') && (j == len(s) || s[j] != '`') {
			return i
		}
		for j < len(s) && s[j] == '`' {
			j++
		}
		off = j
	}
}

// truncateWords cuts s to at most maxRunes runes, on a word boundary, ending in "…" when cut.
func truncateWords(s string, maxRunes int) string {
	if len(s) <= maxRunes { // no more runes than bytes
		return s
	}
	if maxRunes <= 1 {
		if utf8.RuneCountInString(s) <= maxRunes {
			return s
		}
		return "…"
	}
	// Byte offset of the first rune that no longer fits once "…" is appended, found in the
	// same pass that finds out whether s is too long (it stops there, not at the end of a
	// long paragraph).
	cut := len(s)
	count, over := 0, false
	for i := range s {
		if count == maxRunes-1 {
			cut = i
		}
		if count == maxRunes { // a rune past the limit: s is cut
			over = true
			break
		}
		count++
	}
	if !over {
		return s
	}
	head := s[:cut]
	// Back up to the last space when the cut falls inside a word.
	if cut < len(s) && !unicode.IsSpace(rune(s[cut])) {
		if sp := strings.LastIndexFunc(head, unicode.IsSpace); sp > 0 {
			head = head[:sp]
		}
	}
	head = strings.TrimRightFunc(head, func(r rune) bool {
		return unicode.IsSpace(r) || r == ',' || r == ';' || r == ':' || r == '-' || r == '—'
	})
	return head + "…"
}

// kebab lowercases s and joins runs of letters and digits with single hyphens. Apostrophes are
// dropped first so that "Don't" becomes "dont", not "don-t".
func kebab(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	dash := false
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII without decoding, as the rune cases below
			i++
			switch {
			case c == '\'' || c == '`':
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z':
				if dash && b.Len() > 0 {
					b.WriteByte('-')
				}
				dash = false
				if c <= 'Z' && c >= 'A' {
					c += 'a' - 'A'
				}
				b.WriteByte(c)
			default:
				dash = true
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '’':
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		default:
			dash = true
		}
	}
	return b.String()
}

// clipTag shortens a long kebab tag at a hyphen so it stays at most maxTagRunes runes.
func clipTag(t string) string {
	if utf8.RuneCountInString(t) <= maxTagRunes {
		return t
	}
	runes := []rune(t)
	cut := string(runes[:maxTagRunes])
	if i := strings.LastIndexByte(cut, '-'); i > 0 {
		cut = cut[:i]
	}
	return strings.Trim(cut, "-")
}

// slug is GitHub's heading anchor rule, applied to the heading's plain text: lowercase, drop everything that is not a letter, digit,
// space, hyphen or underscore, then spaces become hyphens.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// humanize turns a file name into a title: "use-local_storage.md" → "Use Local Storage".
func humanize(name string) string {
	name = strings.TrimSuffix(name, pathExt(name))
	name = stripNumericPrefix(name)
	words := strings.FieldsFunc(name, func(r rune) bool {
		return r == '-' || r == '_' || r == '.' || unicode.IsSpace(r)
	})
	for i, w := range words {
		r, size := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[size:]
	}
	return strings.Join(words, " ")
}

func pathExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[i:]
	}
	return ""
}

// stripNumericPrefix removes an ordering prefix such as "01-", "7_" or "12. ".
func stripNumericPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i == len(s) {
		return s
	}
	j := i
	for j < len(s) && (s[j] == '-' || s[j] == '_' || s[j] == '.' || s[j] == ' ') {
		j++
	}
	if j == i || j == len(s) {
		return s // "2fa" or "01-" keep their digits
	}
	return s[j:]
}

// fieldLine parses a `**Field:** value` (or `**Field**: value`) line. The key is lowercased.
//
// It is the regular expression
//
//	^\s*(?:\*\*|__)([^*_:][^*]{0,60}?)(?::\s*(?:\*\*|__)|(?:\*\*|__)\s*:)\s*(.*?)\s*$
//
// (key = TrimSpace(group 1), value = TrimSpace(group 2)) written out: the shortest key after
// which a separator follows, key runes counted as the regexp counts them (an invalid byte is
// one). Hand-written because every paragraph line of an import goes through it and the
// regexp's backtracking was a tenth of parsing; FuzzFieldLine compares the two.
func fieldLine(s string) (key, value string, ok bool) {
	i := 0
	for i < len(s) && isRESpace(s[i]) {
		i++
	}
	if !doubleMarker(s, i) {
		return "", "", false
	}
	i += 2
	ks := i
	if i >= len(s) {
		return "", "", false
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == '*' || r == '_' || r == ':' {
		return "", "", false
	}
	i += size
	for n := 1; ; n++ { // n key runes so far
		if j, found := fieldSep(s, i); found && fieldTail(s[j:]) {
			key = strings.ToLower(strings.TrimSpace(s[ks:i]))
			if key == "" {
				return "", "", false
			}
			return key, strings.TrimSpace(s[j:]), true
		}
		if n == 61 || i >= len(s) {
			return "", "", false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '*' {
			return "", "", false
		}
		i += size
	}
}

// doubleMarker reports "**" or "__" at s[i:].
func doubleMarker(s string, i int) bool {
	return i+1 < len(s) && s[i] == s[i+1] && (s[i] == '*' || s[i] == '_')
}

// fieldSep matches the separator after a key at s[i:] (":**", ": __", "**:", "** :", …) and
// returns where the value starts.
func fieldSep(s string, i int) (int, bool) {
	if i < len(s) && s[i] == ':' {
		j := i + 1
		for j < len(s) && isRESpace(s[j]) {
			j++
		}
		if doubleMarker(s, j) {
			return j + 2, true
		}
		return 0, false
	}
	if doubleMarker(s, i) {
		j := i + 2
		for j < len(s) && isRESpace(s[j]) {
			j++
		}
		if j < len(s) && s[j] == ':' {
			return j + 1, true
		}
	}
	return 0, false
}

// fieldTail reports whether \s*(.*?)\s*$ matches rest: no newline outside its leading and
// trailing whitespace (the regexp's . does not match one).
func fieldTail(rest string) bool {
	lead := 0
	for lead < len(rest) && isRESpace(rest[lead]) {
		lead++
	}
	trail := len(rest)
	for trail > lead && isRESpace(rest[trail-1]) {
		trail--
	}
	return strings.IndexByte(rest[lead:trail], '\n') < 0
}

// hasWords reports whether s has at least n space-separated words that contain a letter or
// digit: the count over strings.Fields(s), stopping at n (a paragraph only has to reach three).
func hasWords(s string, n int) bool {
	if n <= 0 {
		return true
	}
	count := 0
	inField, counted := false, false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		var space, word bool
		if r < utf8.RuneSelf { // ASCII: unicode.IsSpace / IsLetter / IsDigit without the tables
			space = r == ' ' || '\t' <= r && r <= '\r'
			word = 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
		} else {
			space = unicode.IsSpace(r)
			word = !space && (unicode.IsLetter(r) || unicode.IsDigit(r))
		}
		if space {
			inField = false
			continue
		}
		if !inField {
			inField, counted = true, false
		}
		if !counted && word {
			if count++; count >= n {
				return true
			}
			counted = true
		}
	}
	return false
}
