package patterns

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// cleanEmphasisReference applies every emphasis regex unconditionally, as cleanEmphasis
// did before it learned to skip those that cannot match.
func cleanEmphasisReference(s string) string {
	s = reStrong.ReplaceAllString(s, "$2")
	s = reEmStar.ReplaceAllString(s, "$1$2")
	s = reEmUnder.ReplaceAllString(s, "$1$2$3")
	s = reStrike.ReplaceAllString(s, "$1")
	return reEscape.ReplaceAllString(s, "$1")
}

func TestCleanEmphasisSkipsOnlyWhatCannotMatch(t *testing.T) {
	t.Parallel()
	pieces := []string{"*", "**", "_", "__", "~~", "\\", "\\*", "word", "snake_case", "a*b", " ", "\t", "\n", "é", "日本",
		"*x*", "_y_", "**z**", "~~s~~", "x_", "_", "`", "[l](u)", "!", "<br>", "  ", "\r\n", "\f", "\v"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		s := randomText(rng, pieces, 14)
		assert.Equal(t, cleanEmphasisReference(s), cleanEmphasis(s), "%q", s)
		assert.Equal(t, reSpaces.ReplaceAllString(s, " "), collapseSpaces(s), "%q", s)
	}
}

// reReuse is the definition reuseNumbers is held to.
var reReuse = regexp.MustCompile(`^\s*(\d+(?:\.\d+)?)\s*(?:/\s*(\d+))?`)

// reuseNumbersReference is reuseNumbers by the regex.
func reuseNumbersReference(s string) (num, den string, ok bool) {
	m := reReuse.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

func TestReuseNumbersMatchesRegex(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"9/10", "9", "4/5", "8.5/10", " 7 / 10 ", "7/", "7 /x", "8.", "8.x/10",
		".5/10", "", "x", "10/0", "3\t/\n4", "1.2.3/4", "12/34/56", "\f5\r/\v6", "９/10", "5/١٠"} {
		n, d, ok := reuseNumbers(s)
		rn, rd, rok := reuseNumbersReference(s)
		assert.Equal(t, [3]any{rn, rd, rok}, [3]any{n, d, ok}, "%q", s)
	}
}

func FuzzReuseNumbers(f *testing.F) {
	for _, s := range []string{"9/10", "8.5 / 10", " 4/5", "x", "7./", "1.2.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, d, ok := reuseNumbers(s)
		rn, rd, rok := reuseNumbersReference(s)
		if n != rn || d != rd || ok != rok {
			t.Fatalf("%q: got (%q, %q, %v), regex (%q, %q, %v)", s, n, d, ok, rn, rd, rok)
		}
	})
}

// hasInlineMarkup is the test cleanInline's fast path made with strings.ContainsAny and
// strings.Contains.
func TestHasInlineMarkupMatchesContainsAny(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", " ", "  ", "`", "*", "_", "[", "]", "!", "<", "~", "\\", "\t", "\n", "\r", "\v", "\f", "é", "x y", "\x00", "\xff"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		s := randomText(rng, pieces, 8)
		want := strings.ContainsAny(s, "`*_[]!<~\\\t\n\r\v\f") || strings.Contains(s, "  ")
		assert.Equal(t, want, hasInlineMarkup(s), "%q", s)
	}
}
