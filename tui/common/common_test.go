package common_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/tui/common"
)

func TestWrapWordsBreaksAtSpacesOnly(t *testing.T) {
	t.Parallel()
	text := "Next I will add GET /healthz to main.go and a table-driven test; the handler answers 200.\n\n    indented code stays\nend"
	for w := 8; w <= 60; w++ {
		lines := common.WrapWords(text, w)
		var words []string
		for _, l := range lines {
			assert.LessOrEqual(t, ansi.StringWidth(l), w, "width %d: %q", w, l)
			words = append(words, strings.Fields(l)...)
		}
		if w >= len("table-driven") {
			assert.Equal(t, strings.Fields(text), words, "width %d: every word whole, in order", w)
		}
	}
	assert.Equal(t, []string{"    indented", "code stays"}, common.WrapWords("    indented code stays", 12))
	assert.Equal(t, []string{"abcde", "fghij", "k x"}, common.WrapWords("abcdefghijk x", 5), "a word wider than the line is cut")
	assert.Equal(t, []string{"a", "", "b"}, common.WrapWords("a\n\nb", 10))
}
