package home

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
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

// Home counts the knowledge layer: a facts card (docs in its hint); on a
// short screen the strip carries facts, and docs when they fit.
func TestCardsCountFactsAndDocs(t *testing.T) {
	t.Parallel()
	c := &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, nil)
	_, _ = m.Update(common.SummaryMsg{Summary: engine.Summary{VaultNodes: 42, Playbooks: 3, Builds: 1, PendingApprovals: 2, Facts: 7, Docs: 3}})
	for _, tc := range []struct {
		w, h     int
		want     []string
		wantNone string
	}{
		{80, 24, []string{"7 facts"}, "docs"},
		{120, 24, []string{"7 facts", "3 docs"}, ""},
		{160, 48, []string{"facts", "3 docs · alt+9"}, ""},
		{110, 48, []string{"facts", "3 docs · alt+9"}, ""},
	} {
		m.SetSize(tc.w, tc.h)
		view := ansi.Strip(m.cardsView())
		for _, w := range tc.want {
			assert.Contains(t, view, w, "%dx%d", tc.w, tc.h)
		}
		if tc.wantNone != "" {
			assert.NotContains(t, view, tc.wantNone, "%dx%d: docs only when they fit", tc.w, tc.h)
		}
		for _, line := range strings.Split(view, "\n") {
			assert.LessOrEqual(t, ansi.StringWidth(line), tc.w, "%dx%d", tc.w, tc.h)
		}
	}
}

// Home counts the library: a card for workflow runs (blueprints in its
// hint) from 114 columns, the compact strip when they fit, and a line in
// "Now & next" for runs waiting to be resumed.
func TestCardsCountWorkflowRunsAndBlueprints(t *testing.T) {
	t.Parallel()
	c := &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, nil)
	_, _ = m.Update(common.SummaryMsg{Summary: engine.Summary{VaultNodes: 42, Playbooks: 3, Builds: 1, Facts: 7, Docs: 3,
		WorkflowRuns: 4, WorkflowRunsWaiting: 1, Blueprints: 2}})
	for _, tc := range []struct {
		w, h     int
		want     []string
		wantNone []string
	}{
		{80, 24, []string{"7 facts"}, []string{"workflow run", "blueprint"}},
		{160, 24, []string{"7 facts", "3 docs", "4 workflow runs", "2 blueprints"}, nil},
		{110, 48, []string{"facts", "3 docs · alt+9", "build plans run"}, []string{"workflow runs"}},
		{114, 48, []string{"3 docs · alt+9", "build plans run", "workflow runs", "2 blueprints"}, nil},
		{180, 50, []string{"3 docs · alt+9", "workflow runs", "2 blueprints"}, nil},
	} {
		m.SetSize(tc.w, tc.h)
		view := ansi.Strip(m.cardsView())
		for _, w := range tc.want {
			assert.Contains(t, view, w, "%dx%d", tc.w, tc.h)
		}
		for _, w := range tc.wantNone {
			assert.NotContains(t, view, w, "%dx%d: only when it fits", tc.w, tc.h)
		}
		for _, line := range strings.Split(view, "\n") {
			assert.LessOrEqual(t, ansi.StringWidth(line), tc.w, "%dx%d", tc.w, tc.h)
		}
	}
	m.SetSize(120, 40)
	next := ansi.Strip(m.nextStepsView())
	assert.Contains(t, next, "1 workflow run waits to be resumed")
	assert.Contains(t, next, "alt+l")

	_, _ = m.Update(common.SummaryMsg{Summary: engine.Summary{VaultNodes: 1, Builds: 1, WorkflowRuns: 4}})
	assert.NotContains(t, ansi.Strip(m.nextStepsView()), "resumed", "nothing waits")
}

// A teammate's record is one line in the feed; Home's workspace panel
// carries the team state once the workspace joined a team.
func TestTeamRecordsAndStateOnHome(t *testing.T) {
	t.Parallel()
	ev := engine.Event{Type: engine.EventTeamRecord, Topic: engine.TopicTeam, Op: "fact", Status: "k-1a2b3c4d",
		Text: "The staging database is read-only on Fridays"}
	assert.Equal(t, "team · k-1a2b3c4d shared a fact: The staging database is read-only on Fridays", describe(ev))
	ev.Op = "wisdom.back"
	assert.Contains(t, describe(ev), "backs a pattern")
	assert.Empty(t, describe(engine.Event{Type: engine.EventChanged, Topic: engine.TopicTeam, Text: "records"}), "the echo adds no line")

	c := &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
	m := New(c, nil)
	assert.Empty(t, m.teamLine(80), "not in a team: no line")
	_, _ = m.Update(teamMsg{st: engine.TeamStatus{Joined: true, Team: "core", Connected: true, Member: true, LagKnown: true, Lag: 2,
		Outbox: 1, RefusedTotal: 3, Members: []engine.TeamMember{{Key: "a"}, {Key: "b"}, {Key: "c"}},
		Shared: engine.TeamCounts{Patterns: 2, Facts: 5}}})
	line := ansi.Strip(m.teamLine(200))
	for _, want := range []string{"team core", "online", "3 members", "lag 2", "outbox 1", "7 shared", "3 refused"} {
		assert.Contains(t, line, want)
	}
	assert.LessOrEqual(t, ansi.StringWidth(m.teamLine(40)), 40)
}

// Issue 32: the Activity feed is in the order events happened, whatever
// order they arrive in, and an event delivered twice is one line.
func TestActivityInOrderAndOnce(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	ev := func(sec int, task, status string) engine.Event {
		return engine.Event{Type: engine.EventTask, Topic: engine.TopicBuild, BuildID: "3", TaskID: task, Status: status,
			Time: at.Add(time.Duration(sec) * time.Second)}
	}
	m := &Model{}
	for _, e := range []engine.Event{
		ev(0, "t1", "running"), ev(10, "t1", "done"), ev(5, "t2", "running"), // t2 started before t1 ended: late
		ev(10, "t1", "done"), // delivered twice
		ev(20, "t2", "done"), ev(15, "t3", "running"),
	} {
		m.record(e)
	}
	var got []string
	for _, a := range m.activity {
		got = append(got, a.text)
		assert.Equal(t, 1, a.times, a.text)
	}
	assert.Equal(t, []string{"build t1 running", "build t2 running", "build t1 done", "build t3 running", "build t2 done"}, got)

	// The same line again shortly after is one line that counts.
	m.record(engine.Event{Type: engine.EventChanged, Topic: engine.TopicVault, Status: "learn", Time: at.Add(30 * time.Second)})
	m.record(engine.Event{Type: engine.EventChanged, Topic: engine.TopicVault, Status: "learn", Time: at.Add(31 * time.Second)})
	last := m.activity[len(m.activity)-1]
	assert.Equal(t, 2, last.times)
	assert.Len(t, m.activity, 6)
}
