package markdown_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/tui/components/markdown"
)

func TestRenderFitsTheWidthWithoutPadding(t *testing.T) {
	t.Parallel()
	src := "# Wrap errors\n\nEvery returned error names the operation that failed, so the chain reads like a stack.\n\n- keep `%w`\n- name the layer\n\n```go\nreturn fmt.Errorf(\"open config file in the workspace directory: %w\", err)\n```"
	for _, dark := range []bool{true, false} {
		for _, w := range []int{10, 24, 40, 80} {
			out, err := markdown.Render(src, w, dark)
			require.NoError(t, err)
			words := strings.Fields(ansi.Strip(out))
			assert.Contains(t, words, "Wrap", "the heading")
			assert.Contains(t, words, "•", "the list")
			assert.NotContains(t, words, "#", "markdown syntax is rendered, not shown")
			for i, l := range strings.Split(out, "\n") {
				assert.LessOrEqual(t, ansi.StringWidth(l), w, "width %d line %d: %q", w, i, ansi.Strip(l))
				assert.Equal(t, strings.TrimRight(ansi.Strip(l), " "), ansi.Strip(l), "no padding: %q", ansi.Strip(l))
			}
			assert.False(t, strings.HasPrefix(out, "\n") || strings.HasSuffix(out, "\n"), "no blank frame")
		}
	}
}
