package edits

import (
	"errors"
	"fmt"
	"strings"
)

// Match rules, tried in this order; the first rule with candidates decides.
const (
	RuleExact              = "exact"
	RuleTrailingWhitespace = "trailing-whitespace"
	RuleBlankLines         = "blank-lines"
	RuleIndentation        = "indentation"
	RuleBlockAnchor        = "block-anchor"
)

// Rules lists the match rules in the order Find tries them.
var Rules = []string{RuleExact, RuleTrailingWhitespace, RuleBlankLines, RuleIndentation, RuleBlockAnchor}

// Sentinel errors of Find (wrapped in a *MatchError that says more).
var (
	ErrNoMatch     = errors.New("the search text matches nowhere")
	ErrAmbiguous   = errors.New("the search text matches more than one place")
	ErrEmptySearch = errors.New("the search text is empty")
)

// blockAnchorSimilarity is how alike the middle lines of a block-anchor
// candidate must be to the search's (0..1).
const blockAnchorSimilarity = 0.7

// maxExactHits bounds how many exact places Find collects.
const maxExactHits = 100

// maxAnchorPairs bounds the block-anchor rule's work on files full of
// identical anchor lines ("}").
const maxAnchorPairs = 20000

// Match is where Find found the search text: bytes [Start, End) of the
// content, by Rule. Line and EndLine are the 1-based lines it covers.
type Match struct {
	Start, End    int
	Rule          string
	Line, EndLine int

	// For Replace: the search's blank lines left out (blank-lines and
	// later rules), and the indentation offset (indentation rule).
	skipLead, skipTrail int
	delta, tabWidth     int
	fileTabs            bool
	lineBased           bool
}

// MatchError is Find's error: Err is ErrNoMatch, ErrAmbiguous or
// ErrEmptySearch; the message names the places or the closest lines.
type MatchError struct {
	Err    error
	Rule   string   // the rule that found several places
	Places [][2]int // 1-based line ranges of the places found
	Detail string
}

func (e *MatchError) Error() string {
	if e.Detail == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + e.Detail
}

func (e *MatchError) Unwrap() error { return e.Err }

// text is content split into lines without their terminators; off[i] is
// the byte offset of line i, end[i] the offset after its terminator.
type text struct {
	lines    []string
	off, end []int
	crlf     bool
}

func splitText(s string) text {
	var t text
	t.crlf = isCRLF(s)
	pos := 0
	for pos <= len(s) {
		nl := strings.IndexByte(s[pos:], '\n')
		if nl < 0 {
			if pos < len(s) {
				t.lines = append(t.lines, strings.TrimSuffix(s[pos:], "\r"))
				t.off = append(t.off, pos)
				t.end = append(t.end, len(s))
			}
			break
		}
		t.lines = append(t.lines, strings.TrimSuffix(s[pos:pos+nl], "\r"))
		t.off = append(t.off, pos)
		t.end = append(t.end, pos+nl+1)
		pos += nl + 1
	}
	return t
}

// searchLines splits a search text into lines (a final newline adds no
// empty line).
func searchLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func trimBlank(ls []string) (out []string, lead, trail int) {
	for lead < len(ls) && isBlank(ls[lead]) {
		lead++
	}
	end := len(ls)
	for end > lead && isBlank(ls[end-1]) {
		end--
	}
	return ls[lead:end], lead, len(ls) - end
}

// Find locates search in content with the first rule that finds it, and
// only when that rule finds exactly one place.
func Find(content, search string) (Match, error) {
	ms, err := candidates(content, search)
	if err != nil {
		return Match{}, err
	}
	if len(ms) > 1 {
		return Match{}, ambiguous(ms)
	}
	return ms[0], nil
}

func ambiguous(ms []Match) error {
	e := &MatchError{Err: ErrAmbiguous, Rule: ms[0].Rule}
	for _, m := range ms {
		e.Places = append(e.Places, [2]int{m.Line, m.EndLine})
	}
	more := ""
	switch {
	case len(ms) > maxExactHits:
		more = " (and many more)"
	case len(ms) > 2:
		more = fmt.Sprintf(" (and %d more)", len(ms)-2)
	}
	e.Detail = fmt.Sprintf(" (rule %s): %s and %s%s; include more surrounding lines to make it unique",
		ms[0].Rule, lineRange(ms[0].Line, ms[0].EndLine), lineRange(ms[1].Line, ms[1].EndLine), more)
	return e
}

func lineRange(a, b int) string {
	if a == b {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d–%d", a, b)
}

// candidates returns every place the first successful rule finds (at
// least one), or the error saying why there is none.
func candidates(content, search string) ([]Match, error) {
	if strings.TrimSpace(search) == "" {
		return nil, &MatchError{Err: ErrEmptySearch}
	}
	t := splitText(content)
	if ms := exactAll(content, search, t); len(ms) > 0 {
		if len(ms) > 1 && strings.HasSuffix(search, "\n") && !strings.HasPrefix(search, "\n") {
			// Whole lines were asked for: a single place where the search
			// starts a line is the match ("\tx()\n" inside "\t\tx()\n" is not).
			var whole []Match
			for _, m := range ms {
				if m.Start == 0 || content[m.Start-1] == '\n' {
					whole = append(whole, m)
				}
			}
			if len(whole) == 1 {
				return whole, nil
			}
		}
		return ms, nil
	}
	sl := searchLines(search)
	core, lead, trail := trimBlank(sl)
	if ms := linesRule(t, sl, RuleTrailingWhitespace, 0, 0, eqTrailing); len(ms) > 0 {
		return ms, nil
	}
	if lead+trail > 0 {
		if ms := linesRule(t, core, RuleBlankLines, lead, trail, eqTrailing); len(ms) > 0 {
			return ms, nil
		}
	}
	if ms := indentRule(t, core, lead, trail); len(ms) > 0 {
		return ms, nil
	}
	if ms := anchorRule(t, core, lead, trail); len(ms) > 0 {
		return ms, nil
	}
	return nil, closest(t, core)
}

func (t text) match(i, n int, rule string) Match {
	return Match{Start: t.off[i], End: t.end[i+n-1], Rule: rule, Line: i + 1, EndLine: i + n, lineBased: true}
}

// exactAll finds search as a substring (with CRLF line ends when the file
// has them and the search has not).
func exactAll(content, search string, t text) []Match {
	needle := search
	if t.crlf && !strings.Contains(search, "\r\n") && strings.Contains(search, "\n") {
		needle = strings.ReplaceAll(search, "\n", "\r\n")
	}
	var ms []Match
	for from := 0; from <= len(content); {
		i := strings.Index(content[from:], needle)
		if i < 0 {
			break
		}
		start := from + i
		m := Match{Start: start, End: start + len(needle), Rule: RuleExact}
		m.Line = lineOf(t, start)
		m.EndLine = lineOf(t, max(start, start+len(needle)-1))
		ms = append(ms, m)
		if len(ms) > maxExactHits {
			break
		}
		from = start + 1
	}
	return ms
}

// lineOf is the 1-based line holding byte offset b.
func lineOf(t text, b int) int {
	lo, hi := 0, len(t.off)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if t.off[mid] <= b {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}

func eqTrailing(a, b string) bool {
	return strings.TrimRight(a, " \t") == strings.TrimRight(b, " \t")
}

// linesRule finds every window of t equal to sl line by line under eq.
func linesRule(t text, sl []string, rule string, lead, trail int, eq func(a, b string) bool) []Match {
	n := len(sl)
	if n == 0 || n > len(t.lines) {
		return nil
	}
	var ms []Match
	for i := 0; i+n <= len(t.lines); i++ {
		ok := true
		for k := 0; k < n; k++ {
			if !eq(t.lines[i+k], sl[k]) {
				ok = false
				break
			}
		}
		if ok {
			m := t.match(i, n, rule)
			m.skipLead, m.skipTrail = lead, trail
			ms = append(ms, m)
		}
	}
	return ms
}

// indentCols is the width of s's leading whitespace with tabs of tw columns.
func indentCols(s string, tw int) int {
	c := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			c++
		case '\t':
			c += tw - c%tw
		default:
			return c
		}
	}
	return c
}

// indentRule matches lines equal once their indentation is removed, when
// the file's indentation differs from the search's by one uniform offset
// (tabs counted as 4, 8 or 2 columns).
func indentRule(t text, sl []string, lead, trail int) []Match {
	n := len(sl)
	if n == 0 || n > len(t.lines) {
		return nil
	}
	trimmed := make([]string, n)
	for k, l := range sl {
		trimmed[k] = strings.TrimSpace(l)
	}
	var ms []Match
	for i := 0; i+n <= len(t.lines); i++ {
		ok := true
		for k := 0; k < n; k++ {
			if strings.TrimSpace(t.lines[i+k]) != trimmed[k] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for _, tw := range []int{4, 8, 2} {
			delta, ok := uniformDelta(t.lines[i:i+n], sl, tw)
			if !ok {
				continue
			}
			m := t.match(i, n, RuleIndentation)
			m.skipLead, m.skipTrail = lead, trail
			m.delta, m.tabWidth = delta, tw
			if indented(t.lines[i : i+n]) {
				m.fileTabs = usesTabs(t.lines[i : i+n])
			} else {
				m.fileTabs = usesTabs(t.lines) // flush-left lines: the file's own style
			}
			ms = append(ms, m)
			break
		}
	}
	return ms
}

func uniformDelta(file, search []string, tw int) (int, bool) {
	delta, set := 0, false
	for k := range search {
		if isBlank(search[k]) {
			continue
		}
		d := indentCols(file[k], tw) - indentCols(search[k], tw)
		if !set {
			delta, set = d, true
		} else if d != delta {
			return 0, false
		}
	}
	return delta, set
}

func indented(ls []string) bool {
	for _, l := range ls {
		if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, " ") {
			return true
		}
	}
	return false
}

func usesTabs(ls []string) bool {
	tabs, spaces := 0, 0
	for _, l := range ls {
		if strings.HasPrefix(l, "\t") {
			tabs++
		} else if strings.HasPrefix(l, " ") {
			spaces++
		}
	}
	return tabs > spaces
}

// anchorRule matches a block of at least three lines whose first and last
// lines equal the search's (spaces aside) and whose middle is similar.
func anchorRule(t text, sl []string, lead, trail int) []Match {
	n := len(sl)
	if n < 3 {
		return nil
	}
	first, last := strings.TrimSpace(sl[0]), strings.TrimSpace(sl[n-1])
	if first == "" || last == "" {
		return nil
	}
	minLen, maxLen := max(3, n-n/4), n+n/4
	var ms []Match
	pairs := 0
	for i := 0; i < len(t.lines); i++ {
		if strings.TrimSpace(t.lines[i]) != first {
			continue
		}
		for j := i + minLen - 1; j < len(t.lines) && j <= i+maxLen-1; j++ {
			if strings.TrimSpace(t.lines[j]) != last {
				continue
			}
			pairs++
			if pairs > maxAnchorPairs {
				return nil // too many anchors to judge: no tolerant match
			}
			if similarity(t.lines[i+1:j], sl[1:n-1]) >= blockAnchorSimilarity {
				m := t.match(i, j-i+1, RuleBlockAnchor)
				m.skipLead, m.skipTrail = lead, trail
				ms = append(ms, m)
			}
		}
	}
	return ms
}

// similarity of two line lists (spaces around lines ignored): with equal
// lengths the mean of the lines' character similarity, else the share of
// lines in common (longest common subsequence).
func similarity(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	if len(a) == len(b) {
		sum := 0.0
		for k := range a {
			sum += lineSimilarity(strings.TrimSpace(a[k]), strings.TrimSpace(b[k]))
		}
		return sum / float64(len(a))
	}
	if len(a)*len(b) > 1<<20 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case strings.TrimSpace(a[i-1]) == strings.TrimSpace(b[j-1]):
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return 2 * float64(prev[len(b)]) / float64(len(a)+len(b))
}

// lineSimilarity is 1 - edit distance / longer length, on bytes; long
// lines compare by equality only.
func lineSimilarity(a, b string) float64 {
	if a == b {
		return 1
	}
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a) > 400 || len(b) > 400 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return 1 - float64(prev[len(b)])/float64(max(len(a), len(b)))
}

// closest builds the no-match error: the window of the file most like the
// search, shown with line numbers.
func closest(t text, sl []string) error {
	e := &MatchError{Err: ErrNoMatch}
	e.Detail = fmt.Sprintf(" (rules tried: %s)", strings.Join(Rules, ", "))
	n := len(sl)
	if n == 0 || len(t.lines) == 0 {
		if len(t.lines) == 0 {
			e.Detail += "; the file is empty"
		}
		return e
	}
	// Votes: a file line equal (spaces aside) to search line k votes for a
	// window starting k lines earlier.
	index := map[string][]int{}
	for k, l := range sl {
		if s := strings.TrimSpace(l); s != "" && len(index) < 10000 {
			index[s] = append(index[s], k)
		}
	}
	votes := make([]int32, len(t.lines)+n) // votes[start+n]
	best, bestVotes := -1, int32(0)
	for i, l := range t.lines {
		for _, k := range index[strings.TrimSpace(l)] {
			start := i - k
			votes[start+n]++
			if v := votes[start+n]; v > bestVotes || v == bestVotes && start < best {
				best, bestVotes = start, v
			}
		}
	}
	if best < 0 {
		// No line in common: the line most like the first search line.
		first := ""
		for _, l := range sl {
			if s := strings.TrimSpace(l); s != "" {
				first = s
				break
			}
		}
		bestSim := 0.0
		for i, l := range t.lines {
			if i > 20000 {
				break
			}
			if s := lineSimilarity(strings.TrimSpace(l), first); s > bestSim {
				best, bestSim = i, s
			}
		}
		if best < 0 || bestSim < 0.5 {
			e.Detail += "; no line of the file resembles it: read the file again"
			return e
		}
	}
	best = max(best, 0)
	end := min(best+n, len(t.lines))
	if best >= end {
		best = max(end-n, 0)
	}
	equal := 0
	for k := 0; k < n && best+k < len(t.lines); k++ {
		if strings.TrimSpace(t.lines[best+k]) == strings.TrimSpace(sl[k]) {
			equal++
		}
	}
	var b strings.Builder
	if best+1 == end {
		fmt.Fprintf(&b, "; the closest line is %d (%d of %d lines equal):", end, equal, n)
	} else {
		fmt.Fprintf(&b, "; the closest lines are %d–%d (%d of %d lines equal):", best+1, end, equal, n)
	}
	shown := 0
	for i := best; i < end; i++ {
		if shown == 12 {
			fmt.Fprintf(&b, "\n… (%d more lines)", end-i)
			break
		}
		l := t.lines[i]
		if len(l) > 200 {
			l = l[:200] + "…"
		}
		fmt.Fprintf(&b, "\n%d: %s", i+1, l)
		shown++
	}
	for k := 0; k < n && best+k < len(t.lines); k++ {
		if strings.TrimSpace(t.lines[best+k]) != strings.TrimSpace(sl[k]) {
			fmt.Fprintf(&b, "\nfirst difference: line %d of the file is %q, the search has %q", best+k+1, clipString(strings.TrimSpace(t.lines[best+k]), 120), clipString(strings.TrimSpace(sl[k]), 120))
			break
		}
	}
	e.Detail += b.String()
	return e
}

func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Replace returns content with the match m of search replaced by replace.
// Line ends follow the file's (CRLF stays CRLF); with the indentation rule
// the replacement is re-indented to the file's style (tabs or spaces, the
// same offset); blank lines left out of the search are left out of the
// replacement too.
func Replace(content string, m Match, search, replace string) string {
	if m.Start < 0 || m.End > len(content) || m.Start > m.End {
		return content
	}
	crlf := isCRLF(content)
	if !crlf {
		replace = strings.ReplaceAll(replace, "\r\n", "\n")
	}
	if !m.lineBased {
		if crlf {
			replace = toCRLF(replace)
		}
		return content[:m.Start] + replace + content[m.End:]
	}
	rl := searchLines(replace)
	if replace == "" {
		rl = nil
	}
	// Drop from the replacement the blank lines the match left out of the
	// search, when the replacement has them too.
	for k := 0; k < m.skipLead && len(rl) > 0 && isBlank(rl[0]); k++ {
		rl = rl[1:]
	}
	for k := 0; k < m.skipTrail && len(rl) > 0 && isBlank(rl[len(rl)-1]); k++ {
		rl = rl[:len(rl)-1]
	}
	if m.Rule == RuleIndentation {
		for k, l := range rl {
			if isBlank(l) {
				rl[k] = ""
				continue
			}
			cols := max(indentCols(l, m.tabWidth)+m.delta, 0)
			rl[k] = indentString(cols, m.tabWidth, m.fileTabs) + strings.TrimLeft(l, " \t")
		}
	}
	eol := "\n"
	if crlf {
		eol = "\r\n"
	}
	region := content[m.Start:m.End]
	var b strings.Builder
	b.WriteString(content[:m.Start])
	for k, l := range rl {
		b.WriteString(l)
		if k < len(rl)-1 || strings.HasSuffix(region, "\n") {
			b.WriteString(eol)
		}
	}
	b.WriteString(content[m.End:])
	return b.String()
}

// isCRLF reports a file whose lines mostly end in CRLF.
func isCRLF(s string) bool {
	crlf := strings.Count(s, "\r\n")
	return crlf > 0 && crlf*2 >= strings.Count(s, "\n")
}

func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

func indentString(cols, tw int, tabs bool) string {
	if !tabs || tw <= 0 {
		return strings.Repeat(" ", cols)
	}
	return strings.Repeat("\t", cols/tw) + strings.Repeat(" ", cols%tw)
}

// TrimUnpairedBlankLines removes from search the leading and trailing line
// breaks (blank lines) that replace does not also have, so that
// `"\n\treturn x\n"` → `"\tr := y\n"` edits the line rather than the
// line break before it. Text other than line breaks is never touched.
func TrimUnpairedBlankLines(search, replace string) (string, string) {
	lead := func(s string) int { return len(s) - len(strings.TrimLeft(s, "\r\n")) }
	trail := func(s string) int { return len(s) - len(strings.TrimRight(s, "\r\n")) }
	if ls, lr := lead(search), lead(replace); ls > lr && strings.TrimSpace(search) != "" {
		search = search[ls-lr:]
	}
	if ts, tr := trail(search), trail(replace); ts > tr && ts > 1 && strings.TrimSpace(search) != "" {
		// One trailing line break is the end of the last line: keep it.
		search = search[:len(search)-(ts-max(tr, 1))]
	}
	return search, replace
}
