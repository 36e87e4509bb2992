package runview

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine/agents"
)

// TestStreamsWrapByWords streams a reply in chunks that split words at every
// width the run view meets and checks that no line breaks inside a word:
// every word on screen is a whole word of the reply.
func TestStreamsWrapByWords(t *testing.T) {
	t.Parallel()
	reply := "I listed the files: the tool archives a project directory (./cmd/nova, ./engine) into a tarball — before it uploads it,\n" +
		"then verifies its checksum.\tNext I will add GET /healthz to main.go and a table-driven test; the handler answers 200 with the build version."
	words := map[string]bool{}
	for _, w := range strings.Fields(reply) {
		words[w] = true
	}
	for _, width := range []int{24, 37, 40, 53, 76, 116, 176} {
		for _, chunk := range []int{1, 3, 7} {
			m := newModel(nil, width, 60)
			st := script(m)
			feed(m, st, agents.Event{Type: agents.EventStep, Step: 1})
			for i := 0; i < len(reply); i += chunk {
				feed(m, st, agents.Event{Type: agents.EventDelta, Text: reply[i:min(len(reply), i+chunk)]})
			}
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			var body []string
			for _, l := range lines[4:] {
				assert.LessOrEqual(t, ansi.StringWidth(l), width)
				body = append(body, strings.Fields(l)...)
			}
			for _, w := range body {
				assert.True(t, words[w], "width %d, chunks of %d: %q is not a word of the reply", width, chunk, w)
			}
		}
	}
}
