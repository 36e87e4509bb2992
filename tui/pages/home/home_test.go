package home

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine"
)

// Issue 10's events read as one line each in the activity feed; the echoes
// of a task's wait (its task transition, the build's status) add none.
func TestTrustEventsAreOneLineEach(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	cases := []struct {
		ev   engine.Event
		want string
	}{
		{engine.Event{Type: engine.EventBudgetWarning, Topic: engine.TopicBuild, BuildID: "3", Done: 5000, Total: 10000,
			Text: "build 3 used 5000 of its 10000 tokens (half of budgets.buildTokens)"},
			"⚠ budget: build 3 used 5000 of its 10000 tokens (half of budgets.buildTokens)"},
		{engine.Event{Type: engine.EventTaskWaiting, Topic: engine.TopicBuild, BuildID: "3", TaskID: "ua-03",
			Text: "waiting for ollama at http://127.0.0.1:11434"},
			"build 3 · ua-03 waits: waiting for ollama at http://127.0.0.1:11434"},
		{engine.Event{Type: engine.EventTaskEscalated, Topic: engine.TopicBuild, BuildID: "3", TaskID: "ua-03",
			Text: "ua-03: escalating to the large tier after a cut reply"},
			"build 3 · ua-03: escalating to the large tier after a cut reply"},
		{engine.Event{Type: engine.EventNodesArchived, Topic: engine.TopicVault, Done: 2, Nodes: []uint64{4, 9},
			Text: "2 vault node(s) moved to the archive to make room (the free tier keeps 500 nodes); see `nova vault archive list`"},
			"vault: 2 vault node(s) moved to the archive to make room (the free tier keeps 500 nodes); see `nova vault archive list`"},
		{engine.Event{Type: engine.EventNodesNotStored, Topic: engine.TopicVault, Done: 1,
			Text: "1 learned node(s) not stored: the vault is at the free tier's 500-node cap"},
			"vault: 1 learned node(s) not stored: the vault is at the free tier's 500-node cap"},
		{engine.Event{Type: engine.EventTaskAsking, Topic: engine.TopicBuild, BuildID: "3", TaskID: "ua-04", Text: "May I add a chart library?"},
			"build 3 · ua-04 asks you: May I add a chart library? (answer on the Build screen, alt+6)"},
		{engine.Event{Type: engine.EventTask, Topic: engine.TopicBuild, BuildID: "3", TaskID: "ua-03", Status: "waiting", Text: "ua-03 waiting"}, ""},
		{engine.Event{Type: engine.EventChanged, Topic: engine.TopicBuild, BuildID: "3", Status: "waiting", Text: "the build waits: waiting for ollama"}, ""},
	}
	m := &Model{}
	for _, c := range cases {
		c.ev.Time = at
		assert.Equal(t, c.want, describe(c.ev), "%s", c.ev.Type)
		m.record(c.ev)
	}
	assert.Len(t, m.activity, 6, "one line per trust event, none for the echoes")
	for _, a := range m.activity {
		assert.NotContains(t, a.text, "\n")
		assert.False(t, strings.HasPrefix(a.text, " "))
	}
}
