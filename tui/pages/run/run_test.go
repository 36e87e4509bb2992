package run

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/tools"
)

// Page sizes are the body under the header and the status bar (3 lines):
// 80×24 and 180×50 terminals.
var sizes = [][2]int{{80, 21}, {180, 47}}

func (l *loop) golden(t *testing.T) {
	t.Helper()
	l.m.spin = 0 // the spinner's frame depends on timing
	golden.RequireEqual(t, l.Pinned())
}

func TestGoldenRunPage(t *testing.T) {
	t.Parallel()
	for _, size := range sizes {
		name := fmt.Sprintf("%dx%d", size[0], size[1]+3)
		t.Run("live_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, sample(), size[0], size[1])
			l.m.streams[streamKey(2, "t3")] = builder("→ readFile {\"path\":\"go.mod\"}\n← readFile ok\nI will add Handler to internal/health/health.go and register it under /healthz.\n")
			l.golden(t)
		})
		t.Run("board_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, sample(), size[0], size[1])
			l.PressAsync("tab", "tab", "down")
			l.golden(t)
		})
		t.Run("handoff_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, sample(), size[0], size[1])
			l.PressAsync("up", "up")
			l.golden(t)
		})
		t.Run("empty_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, newFake(), size[0], size[1])
			l.golden(t)
		})
		t.Run("goal_dialog_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, newFake(), size[0], size[1])
			l.PressAsync("n")
			l.TypeAsync("add a health check")
			l.golden(t)
		})
		t.Run("artifact_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, sample(), size[0], size[1])
			l.PressAsync("tab", "tab", "down", "enter")
			l.Until(func() bool { return !l.m.viewer.loading })
			l.golden(t)
		})
		t.Run("escalation_"+name, func(t *testing.T) {
			t.Parallel()
			src := sample()
			src.runs[0].Run.Question = "Which port should the service listen on?"
			l := newLoop(t, src, size[0], size[1])
			l.m.mine[2] = true
			src.events <- engine.Event{Type: engine.EventGoalAsking, Topic: engine.TopicGoal, GoalRunID: "2", Text: src.runs[0].Run.Question}
			l.Until(func() bool { return l.m.answer.open })
			l.golden(t)
		})
	}
}

func builder(s string) *strings.Builder {
	b := &strings.Builder{}
	b.WriteString(s)
	return b
}

func TestRunPageShowsTheTimelineDelegationAndBoard(t *testing.T) {
	t.Parallel()
	l := newLoop(t, sample(), 180, 47)
	v := l.Plain()
	for _, want := range []string{
		"Run 2", "add a health check endpoint with tests", "turn 3/12",
		"EARTH Specify a health check endpoint", "Nothing exists yet", // the timeline with the reasoning
		"rejected GOPHER", "there is no agent \"GOPHER\"", // a rejected decision stays visible
		"t3 · MARS", "with a1 (in full)", // the selected delegation (the newest)
		"Board run:2", "goal implement the handler", "the endpoint is GET /healthz", "⊘ b1 which port", "a1 output",
	} {
		assert.Contains(t, v, want)
	}
	l.PressAsync("up", "up") // turn 1: EARTH's handoff
	v = l.Plain()
	for _, want := range []string{"verdict", "accepted as text", "handoff specified GET /healthz", "keep: keep the route /healthz", "next: MARS"} {
		assert.Contains(t, v, want)
	}
}

func TestStartAGoal(t *testing.T) {
	t.Parallel()
	src := newFake()
	l := newLoop(t, src, 100, 30)
	assert.Contains(t, l.Plain(), "No goal runs yet")
	l.PressAsync("n")
	require.True(t, l.m.Capturing(), "the dialog owns the keys")
	l.PressAsync("enter")
	assert.Contains(t, l.Plain(), "write something first", "an empty goal is refused")
	l.TypeAsync("add a health check endpoint with tests")
	l.PressAsync("enter")
	l.Until(func() bool { return l.m.cur == 1 && l.m.detail != nil })
	l.Settle(50 * time.Millisecond)
	assert.False(t, l.m.goalIn.open)
	assert.Contains(t, src.called(), "create add a health check endpoint with tests")
	assert.Contains(t, src.called(), "run 1 attended=true approvals=", "the TUI runs it attended, asking for approvals")
	assert.True(t, l.m.mine[1])

	l.PressAsync("n")
	l.PressAsync("esc")
	assert.False(t, l.m.goalIn.open, "esc closes the dialog")
}

func TestAnswerTheLead(t *testing.T) {
	t.Parallel()
	src := sample()
	src.runs[0].Run.Question = "Which port?"
	l := newLoop(t, src, 100, 30)
	// Another process's run: no dialog pops up, a still answers.
	src.events <- engine.Event{Type: engine.EventGoalAsking, Topic: engine.TopicGoal, GoalRunID: "2", Text: "Which port?"}
	l.Settle(150 * time.Millisecond)
	assert.False(t, l.m.answer.open)
	l.PressAsync("a")
	require.True(t, l.m.answer.open)
	assert.Contains(t, l.Plain(), "Which port?")
	l.TypeAsync("8080")
	l.PressAsync("enter")
	l.Until(func() bool { return !l.m.answer.open && len(l.Said) > 0 })
	assert.Contains(t, src.called(), "answer 2 8080")
	assert.Contains(t, l.Said, "answered; run 2 goes on")

	src.mu.Lock()
	src.runs[0].Run.Question = ""
	src.mu.Unlock()
	l.Settle(250 * time.Millisecond)
	n := len(l.Said)
	l.PressAsync("a")
	assert.False(t, l.m.answer.open)
	l.Until(func() bool { return len(l.Said) > n })
	assert.Contains(t, l.Said[len(l.Said)-1], "it asks nothing now")
}

func TestCancelResolveAndApprove(t *testing.T) {
	t.Parallel()
	src := sample()
	l := newLoop(t, src, 180, 47)
	l.PressAsync("X")
	require.True(t, l.m.confirm.Active())
	assert.Contains(t, l.Plain(), "Cancel run 2?")
	assert.Contains(t, l.Plain(), "what it staged stays staged")
	l.PressAsync("y")
	l.Until(func() bool { return len(src.called()) > 0 })
	assert.Equal(t, []string{"cancel 2"}, src.called())

	l.PressAsync("tab", "tab", "enter") // the blocker is the board's first item
	require.True(t, l.m.confirm.Active())
	assert.Contains(t, l.Plain(), "Resolve blocker b1?")
	l.PressAsync("y")
	l.Until(func() bool { return len(src.called()) > 1 })
	assert.Equal(t, "resolve run:2 b1", src.called()[1])

	// A delegated agent's command: asked only for a run this page runs.
	req := tools.ApprovalRequest{ID: "req-1", Agent: "MARS", Command: "go test ./...", Dir: ".",
		Unvetted: "option -exec runs another program"}
	src.events <- engine.Event{Type: engine.EventNeedsApproval, Topic: engine.TopicAgent, GoalRunID: "2", Approval: &req}
	l.Settle(150 * time.Millisecond)
	assert.False(t, l.m.confirm.Active(), "not this page's run")
	l.m.mine[2] = true
	src.events <- engine.Event{Type: engine.EventNeedsApproval, Topic: engine.TopicAgent, GoalRunID: "2", Approval: &req}
	l.Until(func() bool { return l.m.confirm.Active() })
	assert.Contains(t, l.Plain(), "go test ./...")
	assert.Contains(t, l.Plain(), "Careful: option -exec runs another program.", "the dialog says why it asks")
	l.PressAsync("y")
	l.Until(func() bool { return len(src.called()) > 2 })
	assert.Equal(t, "approval req-1 true", src.called()[2])
}

func TestLiveStreamOfADelegation(t *testing.T) {
	t.Parallel()
	src := sample()
	l := newLoop(t, src, 180, 47)
	ae := agents.Event{Type: agents.EventToolCall, Tool: "writeFile", Args: `{"path":"internal/health/health.go"}`}
	src.events <- engine.Event{Type: engine.EventLog, Topic: engine.TopicAgent, GoalRunID: "2", TaskID: "t3", Agent: &ae}
	src.events <- engine.Event{Type: engine.EventDelta, Topic: engine.TopicAgent, GoalRunID: "2", TaskID: "t3", Text: "Created the handler."}
	src.events <- engine.Event{Type: engine.EventDelta, Topic: engine.TopicAgent, GoalRunID: "3", TaskID: "t3", Text: "another run"}
	l.Until(func() bool { return strings.Contains(l.Plain(), "Created the handler.") })
	v := l.Plain()
	assert.Contains(t, v, "→ writeFile")
	assert.Contains(t, v, "live output")
	assert.NotContains(t, v, "another run")

	// A model's control characters never reach the terminal; long lines
	// wrap at words within the pane.
	src.events <- engine.Event{Type: engine.EventDelta, Topic: engine.TopicAgent, GoalRunID: "2", TaskID: "t3",
		Text: "\n\x1b[2Jcleared?\x07 " + strings.Repeat("word ", 40) + "end"}
	l.Until(func() bool { return strings.Contains(l.Plain(), "cleared?") })
	raw := l.m.View()
	assert.NotContains(t, raw, "\x1b[2J")
	assert.NotContains(t, raw, "\x07")
	for _, line := range strings.Split(l.Plain(), "\n") {
		assert.NotContains(t, line, "wo rd")
		assert.NotRegexp(t, `│ *(ord|rd|d) `, line, "no word is cut at the pane's edge")
	}
}

func TestRunsListSwitches(t *testing.T) {
	t.Parallel()
	l := newLoop(t, sample(), 100, 30)
	l.PressAsync("b")
	require.True(t, l.m.runsOpen)
	assert.Contains(t, l.Plain(), "rename the config loader")
	l.PressAsync("down", "enter")
	l.Until(func() bool { return l.m.detail != nil && l.m.detail.Run.ID == 1 })
	assert.Contains(t, l.Plain(), "completed")
	l.PressAsync("p")
	l.Until(func() bool { return len(l.Said) > 0 })
	assert.Contains(t, l.Said[len(l.Said)-1], "is completed")
}
