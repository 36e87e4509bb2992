package runview

import (
	"strings"
	"testing"
	"time"

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

// TestElapsedIsWallClock: the header's time is the run's wall clock as the
// view saw it, to the tenth once it is over: a run of 1.3 s reads 1.3s (never
// 0s), and the figure never drops when the run ends, though the run's own
// measure (Meta.Duration) is shorter.
func TestElapsedIsWallClock(t *testing.T) {
	t.Parallel()
	m := newModel(&fakeWS{}, 100, 30)
	st := script(m)
	now := epoch.Add(1200 * time.Millisecond)
	m.now = func() time.Time { return now }
	feed(m, st, progress[:4]...)
	assert.Contains(t, ansi.Strip(m.View()), "· 1s\n", "running: whole seconds")
	now = epoch.Add(1350 * time.Millisecond)
	run := finished
	run.Outcome.Meta.Duration = 400 * time.Millisecond
	m.Update(finishedMsg{st: st, run: run})
	head := strings.Split(ansi.Strip(m.View()), "\n")[0]
	assert.True(t, strings.HasSuffix(strings.TrimSpace(head), "· 1.3s"), head)
	now = epoch.Add(time.Hour)
	assert.Equal(t, head, strings.Split(ansi.Strip(m.View()), "\n")[0], "a finished run's time stays put")
}
