package vault

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
)

// statementWordsReference is the straightforward version statementWords replaced (one
// builder, one allocation per word); the fast one must split every text the same way.
func statementWordsReference(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		if len(out) >= maxStatementWords {
			break
		}
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
		default:
			flush()
		}
	}
	if len(out) < maxStatementWords {
		flush()
	}
	return out
}

func TestStatementWordsMatchesReference(t *testing.T) {
	t.Parallel()
	pieces := []string{"Never", "use", "eval()", "don't", "DON’T", "Ünïcödé", "日本語", "x1", "\xff\xfe", " ", "\t",
		"--", "İstanbul", "ǅ", "a", "0", "'", "’", "UPPER", "mixedCase", "snake_case", ".", "\x00"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(90) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) == 0 {
				b.WriteByte(' ')
			}
		}
		s := b.String()
		want := statementWordsReference(s)
		got := statementWords(s)
		if len(want) == 0 {
			assert.Empty(t, got, "%q", s)
			continue
		}
		assert.Equal(t, want, got, "%q", s)
	}
}
