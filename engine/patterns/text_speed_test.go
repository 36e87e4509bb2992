package patterns

import (
	"math/rand/v2"
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
		var b strings.Builder
		for range rng.IntN(14) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		assert.Equal(t, cleanEmphasisReference(s), cleanEmphasis(s), "%q", s)
		assert.Equal(t, reSpaces.ReplaceAllString(s, " "), collapseSpaces(s), "%q", s)
	}
}
