package vault

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// statement is a node's content reduced to a polarity and a core: "Never
// use eval()" is (negative, "eval"), "Always use eval" is (positive,
// "eval"), "Do not log secrets" is (negative, "log secrets") and "Log
// secrets" is (positive, "log secrets").
type statement struct {
	neg  bool
	core string
}

// Leading words that carry no meaning for the comparison.
var fillerWords = map[string]bool{
	"you": true, "we": true, "i": true, "please": true, "should": true, "must": true,
	"to": true, "always": true, "ever": true, "generally": true, "really": true, "also": true,
}

// Negations at the start of a statement, as word sequences.
var negations = [][]string{
	{"never"}, {"avoid"}, {"avoiding"}, {"dont"}, {"don", "t"}, {"do", "not"}, {"does", "not"},
	{"should", "not"}, {"shouldn", "t"}, {"shouldnt"}, {"must", "not"}, {"mustn", "t"}, {"mustnt"},
	{"no", "longer"}, {"stop"}, {"cannot"}, {"can", "not"}, {"not"},
}

// Verbs of use stripped after the polarity, so "never use X", "avoid X" and
// "prefer X" share the core X.
var useVerbs = map[string]bool{"use": true, "using": true, "prefer": true, "preferring": true, "choose": true, "pick": true}

// Articles are dropped from the core (a comparison, not a map lookup: it runs for every
// word of every node written).
func isArticle(w string) bool { return w == "a" || w == "an" || w == "the" }

// maxStatementWords bounds the work on long contents.
const maxStatementWords = 64

// asciiWord maps an ASCII byte to its lower-case letter or digit, an apostrophe to itself
// (it is dropped inside a word) and a separator to 0.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c + 'a' - 'A')
		case c == '\'':
			t[c] = '\''
		}
	}
	return t
}()

// statementWords splits s into lower-case words of letters and digits. The words are
// slices of one lower-cased copy of s (two allocations, not one per word): it runs for
// every node written, 100,000 times in an import.
func statementWords(s string) []string { return appendStatementWords(nil, s) }

// appendStatementWords appends the words of s to dst (see statementWords).
func appendStatementWords(dst []string, s string) []string {
	buf := make([]byte, 0, len(s))
	var endsArr [maxStatementWords]int
	ends := endsArr[:0] // end offsets of the words in buf
	start := 0          // of the current word in buf
	// No closure for the end of a word: variables it captured lived in memory, not in
	// registers, in the loop over every byte.
	for i := 0; i < len(s) && len(ends) < maxStatementWords; {
		// A run of ASCII letters and digits, in a tight loop.
		for i < len(s) {
			l := asciiWord[s[i]&0x7f]
			if l <= '\'' || s[i] >= utf8.RuneSelf {
				break
			}
			buf = append(buf, l)
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		sep := false
		if c < utf8.RuneSelf {
			i++
			switch l := asciiWord[c]; l {
			case 0:
				sep = true
			case '\'':
				// "don't" → "dont"
			default:
				buf = append(buf, l)
			}
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			case r == '’':
			default:
				sep = true
			}
		}
		if sep && len(buf) > start {
			ends = append(ends, len(buf))
			start = len(buf)
		}
	}
	if len(ends) < maxStatementWords && len(buf) > start {
		ends = append(ends, len(buf))
	}
	if len(ends) == 0 {
		return dst
	}
	all := unsafe.String(&buf[0], len(buf)) // buf is not written again
	prev := 0
	for _, e := range ends {
		dst = append(dst, all[prev:e])
		prev = e
	}
	return dst
}

// parseStatement reduces content to its polarity and core. ok is false when
// nothing is left to compare (empty content or only markers).
func parseStatement(content string) (statement, bool) {
	var arr [maxStatementWords]string
	words := appendStatementWords(arr[:0], content)
	i := 0
	skip := func() {
		for i < len(words) && fillerWords[words[i]] {
			i++
		}
	}
	neg := false
	for range 2 { // "you should never", "never avoid" (double negation)
		skip()
		matched := false
		for _, n := range negations {
			if hasWordsAt(words, i, n) {
				neg = !neg
				i += len(n)
				matched = true
				break
			}
		}
		if !matched {
			break
		}
	}
	skip()
	verb := false // "prefer X over Y" and "use X instead of Y" are about X
	if i < len(words) && useVerbs[words[i]] {
		verb = true
		i++
	}
	var core strings.Builder
	core.Grow(len(content))
	for _, w := range words[i:] {
		if verb && (w == "over" || w == "instead") {
			break
		}
		if !isArticle(w) {
			if core.Len() > 0 {
				core.WriteByte(' ')
			}
			core.WriteString(w)
		}
	}
	if core.Len() == 0 {
		return statement{}, false
	}
	return statement{neg: neg, core: core.String()}, true
}

func hasWordsAt(words []string, i int, seq []string) bool {
	if i+len(seq) > len(words) {
		return false
	}
	for j, w := range seq {
		if words[i+j] != w {
			return false
		}
	}
	return true
}

// DetectConflict reports whether two statements contradict each other: the
// same core with opposite polarity — "never X" vs "always X", "avoid X" vs
// "use X" / "prefer X", "do not X" vs "X". It is symmetric and never panics.
func DetectConflict(a, b string) bool {
	sa, okA := parseStatement(a)
	sb, okB := parseStatement(b)
	return okA && okB && sa.neg != sb.neg && sa.core == sb.core
}
