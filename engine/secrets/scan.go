package secrets

import (
	"regexp"
	"slices"
	"strings"
)

// Speed. Redact runs on every vault write, fact, event and stored trace,
// so two things that cost the most are done once per text rather than
// once per rule:
//
//   - Keywords: instead of one strings.Contains per keyword of every rule
//     (about 600 scans of the text), the text is scanned once against an
//     index of all keywords by their first two bytes.
//   - Anchored rules: a rule whose match starts with one of a few words
//     (the prose rules, gitleaks' generic rule) is run, anchored, only
//     where one of those words occurs, instead of over the whole text.
//     Hand-written rather than a library: the standard regexp package has
//     no way to run from a given position only.

// kwIndex finds which of a set of lower-case ASCII keywords occur in a
// text.
type kwIndex struct {
	words []string
	one   [256][]int32         // one-byte keywords by their byte
	two   map[uint16][]int32   // longer keywords by their first two bytes
	maybe [1 << 16 / 64]uint64 // bit set of the two-byte keys in two
}

func newKWIndex(words []string) *kwIndex {
	ix := &kwIndex{words: words, two: map[uint16][]int32{}}
	for i, w := range words {
		switch len(w) {
		case 0:
		case 1:
			ix.one[w[0]] = append(ix.one[w[0]], int32(i))
		default:
			k := uint16(w[0])<<8 | uint16(w[1])
			ix.two[k] = append(ix.two[k], int32(i))
			ix.maybe[k/64] |= 1 << (k % 64)
		}
	}
	return ix
}

// present marks the keywords that occur in lower.
func (ix *kwIndex) present(lower string) []bool {
	found := make([]bool, len(ix.words))
	for i := 0; i < len(lower); i++ {
		for _, id := range ix.one[lower[i]] {
			found[id] = true
		}
		if i+1 == len(lower) {
			break
		}
		k := uint16(lower[i])<<8 | uint16(lower[i+1])
		if ix.maybe[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, id := range ix.two[k] {
			if strings.HasPrefix(lower[i:], ix.words[id]) {
				found[id] = true
			}
		}
	}
	return found
}

// asciiLower lower-cases ASCII letters only, so byte offsets in the result
// are offsets in s (strings.ToLower may change lengths).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// anchorWindow is how much text an anchored rule reads from an anchor
// (the standard library's backtracker clears a bit set of program size
// times input length per call, so short is fast); a match that reaches the
// end of the window is run again on the rest of the text (a long value).
const anchorWindow = 320

func nearAny(window string, near []string) bool {
	for _, n := range near {
		if strings.Contains(window, n) {
			return true
		}
	}
	return false
}

// anchoredMatches runs an anchored rule at every occurrence of its anchors
// in lower (the ASCII-lower-cased s), left to right, skipping occurrences
// inside an earlier match as an unanchored search would; the indexes are
// those of s.
func anchoredMatches(r *compiled, s, lower string) [][]int {
	var starts []int
	for _, a := range r.Anchors {
		for i := 0; ; {
			j := strings.Index(lower[i:], a)
			if j < 0 {
				break
			}
			starts = append(starts, i+j)
			i += j + 1
		}
	}
	if len(starts) == 0 {
		return nil
	}
	slices.Sort(starts)
	starts = slices.Compact(starts)
	var out [][]int
	end := 0
	for _, p := range starts {
		if p < end {
			continue
		}
		if r.wordStart && p > 0 && isWordByte(s[p-1]) {
			continue
		}
		if len(r.near) > 0 && !nearAny(lower[p:min(len(lower), p+r.nearDist)], r.near) {
			continue // no assignment or verb after the word: the rule cannot match here
		}
		m := matchAt(r.anchored, s, p)
		if m == nil {
			continue
		}
		out = append(out, m)
		end = max(m[1], p+1)
	}
	return out
}

// matchAt runs an anchored regexp on s from p; the indexes are those of s.
func matchAt(re *regexp.Regexp, s string, p int) []int {
	lim := min(len(s), p+anchorWindow)
	m := re.FindStringSubmatchIndex(s[p:lim])
	if m != nil && lim < len(s) && p+m[1] == lim {
		m = re.FindStringSubmatchIndex(s[p:])
	}
	if m == nil {
		return nil
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += p
		}
	}
	return m
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
