package patterns

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// fuzzSeeds start FuzzParse; TestParseOutputUnchanged checks Parse's output on them too.
var fuzzSeeds = []string{
	"", "# T\n", twoPatterns, aliasBomb, "---\n---\n# T\n", "---\ntitle: x\n", "```\n", "````\n```\n",
	"# T\n\n```\n## H\n", "Title\n===\n", "- a\n  ```go\n  x\n  ```\n", "| a |\n|---|\n",
	"<!-- c\n# T\n", "> q\n# T\n", "# T\n\n**Priority:** P9\n**Reusability:** 99/10\n",
	"# `a` **b** _c_ [d](e) ![f](g)\n\nx y z.\n", "\uFEFF# T\r\n\r\nw x y\r\n", "# T\n\n## Pattern\n\n## Pattern 2\n",
	"**x:** y\n", "#\n##\n###### x\n####### y\n", "\\`\\*a\\*\\`", "``` ``` ```\n",
}

// FuzzParse checks that Parse never panics (a recovered panic surfaces as errParserBug) and that
// every Doc it returns keeps the documented invariants.
//
//	go test -fuzz FuzzParse ./engine/patterns/
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, true)
	}
	if dir, ok := findCorpus(); ok {
		for _, rel := range []string{"01-security/nova26-security-enforcement.md", "17-nova26-adaptations/enhanced-prd-format.md", "09-hooks/use-debounce.md"} {
			if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err == nil {
				f.Add(string(data), true)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string, split bool) {
		d, err := Parse("fz/file.md", []byte(src), ParseOptions{Split: split, MaxSize: 256 << 10})
		if err != nil {
			if errors.Is(err, errParserBug) {
				t.Fatalf("parser panicked: %v", err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %T %v", err, err)
			}
			return
		}
		if d.Title == "" || d.Category == "" || d.ContentHash == "" {
			t.Fatalf("missing title/category/hash: %+v", d)
		}
		if utf8.RuneCountInString(d.Description) > MaxDescriptionRunes || !utf8.ValidString(d.Description) {
			t.Fatalf("bad description %q", d.Description)
		}
		if len(d.Priority) != 2 || d.Priority[0] != 'P' || d.Reusability < 0 || d.Reusability > 10 {
			t.Fatalf("bad priority/reusability %q %d", d.Priority, d.Reusability)
		}
		for _, tag := range d.Tags {
			if tag == "" || strings.ContainsAny(tag, " _A") || strings.HasPrefix(tag, "-") || strings.HasSuffix(tag, "-") || utf8.RuneCountInString(tag) > 48 && tag != d.Category {
				t.Fatalf("bad tag %q", tag)
			}
		}
		for _, s := range d.Sections {
			if !strings.HasPrefix(s.SourceFile, "fz/file.md#") || utf8.RuneCountInString(s.Description) > MaxDescriptionRunes {
				t.Fatalf("bad section %+v", s)
			}
		}
		_ = d.Draft(DraftOptions{})
		_ = d.SectionDrafts(DraftOptions{})
	})
}

// reFieldLine is the regular expression fieldLine is written from (its reference).
var reFieldLine = regexp.MustCompile(`^\s*(?:\*\*|__)([^*_:][^*]{0,60}?)(?::\s*(?:\*\*|__)|(?:\*\*|__)\s*:)\s*(.*?)\s*$`)

// fieldLineByRegexp is fieldLine as it was: the regexp's groups, trimmed.
func fieldLineByRegexp(s string) (key, value string, ok bool) {
	m := reFieldLine.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	key = strings.ToLower(strings.TrimSpace(m[1]))
	if key == "" {
		return "", "", false
	}
	return key, strings.TrimSpace(m[2]), true
}

var fieldLineSeeds = []string{
	"**Priority:** P1", "**Priority**: P1", "__Type:__ guide", "__Type__ : guide", "  **Tags:**   a, b  ",
	"**a:b:** x", "**a:** **b:** c", "** :** x", "**:** x", "***x:** y", "**_x:** y", "**x_y:** z",
	"**" + strings.Repeat("k", 61) + ":** v", "**" + strings.Repeat("k", 62) + ":** v", "**é" + strings.Repeat("ü", 60) + ":** v",
	"**k\xff\xfe:** v", "**k:**\n v", "**k:** v\n", "**k:** a\nb", "**k\n:** v", "\t**k** \t: v\v", "**k:** \u00a0v\u00a0",
	"**k:**", "**k:", "**", "*k:* v", "**k:** __", "** k :** v", "**Field** x: y", "**a**:**b**: c",
}

func TestFieldLineMatchesRegexp(t *testing.T) {
	t.Parallel()
	for _, s := range fieldLineSeeds {
		k, v, ok := fieldLine(s)
		wk, wv, wok := fieldLineByRegexp(s)
		if k != wk || v != wv || ok != wok {
			t.Errorf("%q: fieldLine = (%q, %q, %v), regexp = (%q, %q, %v)", s, k, v, ok, wk, wv, wok)
		}
	}
}

// Random lines over the characters the expression cares about (markers, colons, blanks,
// newlines, multi-byte and invalid runes), many more than the fuzzer's seeds reach.
func TestFieldLineMatchesRegexpRandom(t *testing.T) {
	t.Parallel()
	alphabet := []string{"*", "**", "_", "__", ":", " ", "\t", "\n", "\v", "a", "K", "é", "\xff", "\u00a0", "x y"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		var b strings.Builder
		if rng.IntN(2) == 0 {
			b.WriteString("**")
		}
		for range rng.IntN(30) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		k, v, ok := fieldLine(s)
		wk, wv, wok := fieldLineByRegexp(s)
		if k != wk || v != wv || ok != wok {
			t.Fatalf("%q: fieldLine = (%q, %q, %v), regexp = (%q, %q, %v)", s, k, v, ok, wk, wv, wok)
		}
	}
}

func FuzzFieldLine(f *testing.F) {
	for _, s := range fieldLineSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, v, ok := fieldLine(s)
		wk, wv, wok := fieldLineByRegexp(s)
		if k != wk || v != wv || ok != wok {
			t.Fatalf("%q: fieldLine = (%q, %q, %v), regexp = (%q, %q, %v)", s, k, v, ok, wk, wv, wok)
		}
	})
}

// kebabByRunes is kebab as it was, rune by rune (its ASCII bytes are now classified without
// decoding).
func kebabByRunes(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		switch {
		case r == '\'' || r == '’' || r == '`':
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

func TestKebabMatchesRuneByRune(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "Z", "9", " ", "-", "'", "’", "`", "_", "É", "ß", "İ", "\xff", "日", "٣", "\u0301", ":", "K"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50000 {
		if s := randomText(rng, alphabet, 12); kebab(s) != kebabByRunes(s) {
			t.Fatalf("%q: kebab %q, rune by rune %q", s, kebab(s), kebabByRunes(s))
		}
	}
}

func FuzzKebab(f *testing.F) {
	f.Add("Don't Repeat-Yourself: Café ß")
	f.Add("\xff`x’y")
	f.Fuzz(func(t *testing.T, s string) {
		if kebab(s) != kebabByRunes(s) {
			t.Fatalf("%q: kebab %q, rune by rune %q", s, kebab(s), kebabByRunes(s))
		}
	})
}

// controlCountByRunes is checkContent's control count as it was, rune by rune (the
// reference of the eight-bytes-at-a-time count).
func controlCountByRunes(sample []byte) int {
	bad := 0
	for i := 0; i < len(sample); {
		r, size := utf8.DecodeRune(sample[i:])
		switch {
		case r == utf8.RuneError && size == 1 && len(sample)-i >= utf8.UTFMax:
			bad++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v', r == 0x7f:
			bad++
		}
		i += size
	}
	return bad
}

// checkContentByRunes is checkContent with the rune-by-rune count.
func checkContentByRunes(data []byte, maxSize int64) *ParseError {
	if int64(len(data)) > maxSize || len(bytes.TrimSpace(data)) == 0 || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) ||
		bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.IndexByte(data, 0) >= 0 {
		return checkContent(data, maxSize) // the checks before the count are unchanged
	}
	sample := data[:min(len(data), 8<<10)]
	if bad := controlCountByRunes(sample); bad*10 > len(sample)*3 {
		return &ParseError{Err: ErrBinary, Detail: "mostly control characters or invalid UTF-8"}
	}
	if !utf8.Valid(data) {
		off := invalidUTF8At(data)
		return &ParseError{Line: lineAt(data, off), Err: ErrNotUTF8, Detail: fmt.Sprintf("invalid byte 0x%02x at offset %d", data[off], off)}
	}
	return nil
}

func sameParseError(a, b *ParseError) bool {
	if a == nil || b == nil {
		return a == b
	}
	return errors.Is(a.Err, b.Err) && a.Line == b.Line && a.Detail == b.Detail
}

func TestCheckContentMatchesRuneByRune(t *testing.T) {
	t.Parallel()
	pieces := [][]byte{[]byte("text "), []byte("\n"), []byte("\t"), {0x01}, {0x1b}, {0x7f}, {0x0b}, {0xff}, {0xc3}, []byte("é"), []byte("日本"), []byte("\r\n"), {0xe2, 0x82}}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := range 20000 {
		var b []byte
		limit := rng.IntN(40)
		if n%100 == 0 {
			limit = 3000 // past the 8 KiB sample
		}
		for range limit {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		if got, want := checkContent(b, 1<<20), checkContentByRunes(b, 1<<20); !sameParseError(got, want) {
			t.Fatalf("%q: checkContent %+v, rune by rune %+v", b, got, want)
		}
	}
}

func FuzzCheckContent(f *testing.F) {
	f.Add([]byte("# T\n\ntext\x01\x02\x7f more text"))
	f.Add([]byte("\xff\xfe\x01abcdefgh"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := checkContent(b, 1<<20), checkContentByRunes(b, 1<<20); !sameParseError(got, want) {
			t.Fatalf("%q: checkContent %+v, rune by rune %+v", b, got, want)
		}
	})
}

// truncateWordsCounting is truncateWords as it was: count all runes first.
func truncateWordsCounting(s string, maxRunes int) string {
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	return truncateWords(s, maxRunes) // the cut itself is unchanged
}

func TestTruncateWordsMatchesCounting(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "word ", " ", "é", "日", ",", "-", "—", "\xff", "\t", "x"}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 30000 {
		s := randomText(rng, alphabet, 40)
		for _, limit := range []int{1, 2, 3, 5, 10, 20, 37} {
			if got, want := truncateWords(s, limit), truncateWordsCounting(s, limit); got != want {
				t.Fatalf("%q limit %d: %q, counting first %q", s, limit, got, want)
			}
		}
	}
}

// wordCountByFields is the word count hasWords stops early on: fields with a letter or digit.
func wordCountByFields(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

func TestHasWordsMatchesFields(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "Z", "7", " ", "\t", "\n", "\v", "\u00a0", "\u0085", "\u2003", "-", "é", "日", "\xff", "٣", "_", "\u0301"}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 30000 {
		s := randomText(rng, alphabet, 16)
		count := wordCountByFields(s)
		for n := range 5 {
			if got := hasWords(s, n); got != (count >= n) {
				t.Fatalf("%q: hasWords(%d) = %v, %d words", s, n, got, count)
			}
		}
	}
}

// randomText joins up to most-1 pieces picked by rng: random input for the tests that
// compare a hand-written matcher with its reference, over the characters it cares about.
func randomText(rng *rand.Rand, pieces []string, most int) string {
	var b strings.Builder
	for range rng.IntN(most) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}
