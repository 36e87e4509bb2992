package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// leadScript answers a fake Ollama's chat requests: the lead's (structured
// output, its system prompt) from a queue of decisions, the agents' with a
// function of the task id, history compression with a short text.
type leadScript struct {
	mu        sync.Mutex
	decisions []string
	prompts   []string // the lead's turn messages, in order
	agentSys  map[string]string
	agent     func(task string, tooled bool) ollamatest.Reply
	extracts  []string // the knowledge layer's fact-extraction prompts
}

func (s *leadScript) handle(_ int, req api.ChatRequest) ollamatest.Reply {
	system, user := "", ""
	tooled := false
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = m.Content
		case "user":
			if user == "" {
				user = m.Content
			}
		case "tool":
			tooled = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case strings.Contains(system, "the lead of a team of coding agents"):
		s.prompts = append(s.prompts, user)
		if len(s.decisions) == 0 {
			return ollamatest.Text(`{"action":"complete","reasoning":"nothing left","summary":"done"}`)
		}
		d := s.decisions[0]
		s.decisions = s.decisions[1:]
		return ollamatest.Text(d)
	case strings.Contains(system, "keep the history of a team"):
		return ollamatest.Text("The team specified, built and tested the endpoint.")
	case strings.Contains(system, "results of a finished software build"):
		// The knowledge layer learns facts once the run has ended.
		s.extracts = append(s.extracts, user)
		return ollamatest.Text(`{"facts":[]}`)
	}
	id := ""
	if m := taskRe.FindStringSubmatch(user); m != nil {
		id = m[1]
	}
	if s.agentSys == nil {
		s.agentSys = map[string]string{}
	}
	s.agentSys[id] = system
	if s.agent != nil {
		return s.agent(id, tooled)
	}
	return ollamatest.Text("Done: " + id)
}

func (s *leadScript) extractPrompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.extracts...)
}

func (s *leadScript) leadPrompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.prompts...)
}

func (s *leadScript) system(task string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agentSys[task]
}

func decision(t *testing.T, d map[string]any) string {
	t.Helper()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	return string(b)
}

// The done-when scenario against a fake Ollama: the lead delegates to three
// specialists in turn, the board collects decisions and artifacts, a
// constraint and an included artifact reach the next agent, and the lead
// completes.
func TestGoalRunDelegatesAndCompletes(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "")
	s := &leadScript{decisions: []string{
		decision(t, map[string]any{"action": "delegate", "reasoning": "A spec first, so the handler and tests agree.", "agent": "EARTH",
			"task":        "Specify the health check endpoint: route, response, acceptance criteria. Text only.",
			"keyDecision": "the endpoint is GET /healthz answering {\"status\":\"ok\"}", "goal": "specify the endpoint"}),
		decision(t, map[string]any{"action": "delegate", "reasoning": "The spec is done; build it.", "agent": "MARS",
			"task": "Write health.go with the handler from the spec.", "includeArtifacts": []string{"a1"}, "goal": "implement the handler"}),
		decision(t, map[string]any{"action": "delegate", "reasoning": "Now tests.", "agent": "SATURN",
			"task": "Write health_test.go testing the handler."}),
		decision(t, map[string]any{"action": "complete", "reasoning": "Spec, handler and tests passed verification.",
			"summary": "GET /healthz is specified, implemented in health.go and tested in health_test.go (staged for review)."}),
	}}
	s.agent = func(task string, tooled bool) ollamatest.Reply {
		switch {
		case task == "t1":
			return ollamatest.Text("GET /healthz answers 200 with {\"status\":\"ok\"}; criteria: 1. status 200 2. JSON body.\n\n" +
				"Handoff:\nsummary: specified GET /healthz\nconstraints: answer within 50 ms\nnext: MARS\nquestions: none")
		case task == "t2" && !tooled:
			return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "health.go", "content": "package main\n\nfunc health() {}\n"}))
		case task == "t2":
			return ollamatest.Text("Created health.go with the handler.")
		case task == "t3" && !tooled:
			return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "health_test.go", "content": "package main\n"}))
		case task == "t3":
			return ollamatest.Text("Created health_test.go.")
		}
		return ollamatest.Text("ok")
	}
	srv.SetHandler(s.handle)
	ctx := t.Context()
	events := ws.Subscribe(ctx)
	r, err := ws.CreateGoalRun(ctx, "add a health check endpoint with tests", engine.GoalRunOptions{})
	require.NoError(t, err)
	assert.Equal(t, "SUN", r.Lead)
	got, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{Approvals: engine.ApproveNone})
	require.NoError(t, err)
	require.Equal(t, goal.StatusCompleted, got.Status, got.Reason)
	assert.Contains(t, got.Summary, "GET /healthz is specified")
	assert.Equal(t, []string{"EARTH", "MARS", "SATURN"}, got.Agents, "three different specialists")
	assert.Equal(t, 4, got.Turns)
	assert.Equal(t, 3, got.Delegations)
	assert.Positive(t, got.Tokens)
	assert.Greater(t, got.Tokens, got.LeadTokens, "the delegations' tokens count too")

	d, err := ws.GetGoalRun(ctx, r.ID)
	require.NoError(t, err)
	require.Len(t, d.Turns, 4)
	for _, turn := range d.Turns[:3] {
		require.NotNil(t, turn.Outcome, turn.TaskID)
		assert.Equal(t, "done", turn.Outcome.Status, turn.TaskID)
		require.NotNil(t, turn.Outcome.Handoff, "every task ends with a handoff")
	}
	assert.Equal(t, "inconclusive", d.Turns[0].Outcome.Verdict, "a text deliverable has no tool evidence; the gate accepts it")
	// No check is configured: the staged work is consistent but nothing
	// executed it (issue 25).
	assert.Equal(t, "unverified", d.Turns[1].Outcome.Verdict)
	assert.Equal(t, "unverified", d.Turns[2].Outcome.Verdict)
	assert.Equal(t, []string{"answer within 50 ms"}, d.Turns[0].Outcome.Handoff.Constraints)
	assert.NotZero(t, d.Turns[1].Outcome.ChangesetID, "MARS's work is staged")
	cs, err := ws.GetChange(ctx, d.Turns[1].Outcome.ChangesetID)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusPending, cs.Status, "autonomy 2: staged, not applied")

	// The board: the lead's key decision, the goal, artifacts from three agents.
	require.Len(t, d.Board.Decisions, 1)
	assert.Contains(t, d.Board.Decisions[0].Text, "GET /healthz")
	assert.Equal(t, "SUN", d.Board.Decisions[0].By)
	assert.Equal(t, "implement the handler", d.Board.Goal)
	by := map[string]bool{}
	for _, a := range d.Board.Artifacts {
		by[a.By] = true
	}
	assert.Equal(t, map[string]bool{"EARTH": true, "MARS": true, "SATURN": true}, by)
	assert.Len(t, d.Handoffs, 3)
	assert.NotEmpty(t, d.Board.Summary)

	// MARS got the included artifact in full, the spec's constraint and the board.
	mars := s.system("t2")
	assert.Contains(t, mars, "<included_artifacts>")
	assert.Contains(t, mars, "criteria: 1. status 200")
	assert.Contains(t, mars, "answer within 50 ms (from t1, EARTH)")
	assert.Contains(t, mars, "the endpoint is GET /healthz", "the key decision is on the board")
	// The lead read each outcome.
	prompts := s.leadPrompts()
	require.Len(t, prompts, 4)
	assert.Contains(t, prompts[1], "Turn 1 (t1): delegated to EARTH")
	assert.Contains(t, prompts[1], "done, accepted as a text deliverable")
	assert.Contains(t, prompts[2], "Turn 2 (t2): delegated to MARS")
	assert.Contains(t, prompts[2], "done, unverified (nothing executed the change")
	assert.Contains(t, prompts[1], "constraints: answer within 50 ms")
	assert.Contains(t, prompts[3], "Turn 3 (t3): delegated to SATURN")
	// The knowledge layer learned once, from the whole run (a led build
	// ends after each delegation; that is not the run's end).
	ex := s.extractPrompts()
	require.Len(t, ex, 1, "facts are extracted once per goal run")
	assert.Contains(t, ex[0], "3 of 3 tasks done")

	// The events: decisions, delegations, outcomes, the end; in order.
	var kinds []string
	timeout := time.After(5 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-events:
			if ev.Topic == engine.TopicGoal {
				kinds = append(kinds, string(ev.Type))
				assert.Equal(t, fmt.Sprint(r.ID), ev.GoalRunID)
				done = ev.Type == engine.EventDone
			}
		case <-timeout:
			t.Fatalf("no end event; got %v", kinds)
		}
	}
	assert.Equal(t, []string{"changed", "changed", "leadDecision", "delegation", "delegationOutcome", "leadDecision", "delegation",
		"delegationOutcome", "leadDecision", "delegation", "delegationOutcome", "leadDecision", "done"}, kinds)

	// Running a completed run again changes nothing.
	again, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusCompleted, again.Status)
	assert.Equal(t, 4, again.Turns)
	bld, err := ws.GetBuild(ctx, r.BuildID)
	require.NoError(t, err)
	assert.True(t, bld.Led)
	assert.Equal(t, r.ID, bld.GoalRunID)
	assert.Equal(t, "run:1", bld.BoardKey(), "the delegations share the run's board")
}

// Bad input from the lead: invalid JSON, an unknown agent, a 1 MB task, an
// unknown artifact, the lead delegating to itself, an empty decision. Each
// is rejected before anything runs and the lead is told why; three in a row
// stop the run.
func TestGoalRunRejectsBadDecisions(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "")
	huge := strings.Repeat("do it ", 1<<20/6)
	s := &leadScript{decisions: []string{
		`{"action": "delegate", "agent": "NOBODY", "reasoning": "x", "task": "write it"}`,
		decision(t, map[string]any{"action": "delegate", "agent": "MARS", "reasoning": "x", "task": huge}),
		decision(t, map[string]any{"action": "delegate", "agent": "MARS", "reasoning": "ok", "task": "Write health.go."}),
		decision(t, map[string]any{"action": "delegate", "agent": "MARS", "reasoning": "x", "task": "again", "includeArtifacts": []string{"a99"}}),
		decision(t, map[string]any{"action": "delegate", "agent": "SUN", "reasoning": "x", "task": "I do it"}),
		`not json at all`, `{"broken": `,
	}}
	var mu sync.Mutex
	ran := map[string]bool{}
	s.agent = func(task string, _ bool) ollamatest.Reply {
		mu.Lock()
		ran[task] = true
		mu.Unlock()
		return ollamatest.Text("Planned it; nothing to write.")
	}
	srv.SetHandler(s.handle)
	ctx := t.Context()
	// The 1 MB task costs tokens (the fake counts ceil(chars/4)): a large
	// token limit keeps this test on the decisions.
	r, err := ws.CreateGoalRun(ctx, "add a health check endpoint", engine.GoalRunOptions{MaxTokens: 100_000_000})
	require.NoError(t, err)
	got, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusStopped, got.Status)
	assert.Contains(t, got.Reason, "3 unusable decisions in a row")

	d, err := ws.GetGoalRun(ctx, r.ID)
	require.NoError(t, err)
	var kinds []string
	for _, turn := range d.Turns {
		kinds = append(kinds, string(turn.Kind))
	}
	assert.Equal(t, []string{"rejected", "rejected", "decision", "rejected", "rejected", "invalid"}, kinds)
	assert.Contains(t, d.Turns[0].Rejected, `no agent "NOBODY" on the team`)
	assert.Contains(t, d.Turns[1].Rejected, "keep it under 4000")
	assert.Contains(t, d.Turns[3].Rejected, "artifact a99 is not on this run's board")
	assert.Contains(t, d.Turns[4].Rejected, "SUN is the lead")
	assert.Contains(t, d.Turns[5].Rejected, "after one retry")
	mu.Lock()
	assert.Equal(t, map[string]bool{"t3": true}, ran, "only the valid decision ran")
	mu.Unlock()
	prompts := s.leadPrompts()
	assert.Contains(t, prompts[1], `Your last decision was rejected and did not run: there is no agent "NOBODY"`)
	assert.Contains(t, prompts[2], "keep it under 4000")
	tasks, err := ws.BuildTasks(ctx, r.BuildID)
	require.NoError(t, err)
	assert.Len(t, tasks, 1, "rejected decisions never became tasks")
	for _, p := range prompts {
		assert.Less(t, len(p), 60000, "a rejected 1 MB task does not come back in the prompts")
	}
}

// A lead that loops (the same delegation again and again) is stopped at the
// third with a clear reason; a turn limit stops a lead that never completes.
func TestGoalRunStopsAStuckLoopAndAtItsLimits(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "")
	same := decision(t, map[string]any{"action": "delegate", "agent": "MARS", "reasoning": "try", "task": "Plan the handler."})
	s := &leadScript{decisions: []string{same, same, same}}
	s.agent = func(string, bool) ollamatest.Reply { return ollamatest.Text("Planned; nothing written.") }
	srv.SetHandler(s.handle)
	ctx := t.Context()
	r, err := ws.CreateGoalRun(ctx, "plan a handler", engine.GoalRunOptions{})
	require.NoError(t, err)
	got, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusStopped, got.Status)
	assert.Contains(t, got.Reason, "stuck: the lead delegated the same task to MARS 3 times")
	assert.Equal(t, 2, got.Delegations, "the third never ran")

	s2 := &leadScript{}
	for i := range 5 {
		s2.decisions = append(s2.decisions, decision(t, map[string]any{"action": "delegate", "agent": "MARS", "reasoning": "more",
			"task": fmt.Sprintf("Plan step %d.", i)}))
	}
	s2.agent = s.agent
	srv.SetHandler(s2.handle)
	r2, err := ws.CreateGoalRun(ctx, "plan in many steps", engine.GoalRunOptions{MaxTurns: 2})
	require.NoError(t, err)
	got, err = ws.RunGoal(ctx, r2.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusStopped, got.Status)
	assert.Contains(t, got.Reason, "reached the turn limit (2 turns")
	assert.Equal(t, 2, got.Turns)
	// Resuming with a raised limit goes on.
	got, err = ws.RunGoal(ctx, r2.ID, engine.RunGoalOptions{MaxTurns: 3})
	require.NoError(t, err)
	assert.Equal(t, 3, got.Turns)
	assert.Equal(t, 1, got.Resumes)
}

// The lead escalates: headless the run ends paused with the question; the
// answer reaches the lead's next turn after a resume.
func TestGoalRunEscalatesToTheUser(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "")
	s := &leadScript{decisions: []string{
		decision(t, map[string]any{"action": "escalate", "reasoning": "The port is the user's choice.", "question": "Which port should the service use?"}),
		decision(t, map[string]any{"action": "complete", "reasoning": "answered", "summary": "Port noted."}),
	}}
	srv.SetHandler(s.handle)
	ctx := t.Context()
	r, err := ws.CreateGoalRun(ctx, "choose a port", engine.GoalRunOptions{})
	require.NoError(t, err)
	got, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusPaused, got.Status)
	assert.Contains(t, got.Reason, "Which port should the service use?")
	assert.Contains(t, got.Reason, fmt.Sprintf("nova run answer %d", r.ID))
	assert.Equal(t, "Which port should the service use?", got.Question)

	resumed, err := ws.AnswerGoalRun(ctx, r.ID, "8080")
	require.NoError(t, err)
	assert.False(t, resumed, "nothing runs it here: a resume continues")
	_, err = ws.AnswerGoalRun(ctx, r.ID, "again")
	require.ErrorIs(t, err, goal.ErrNotAsking)
	got, err = ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusCompleted, got.Status)
	prompts := s.leadPrompts()
	require.Len(t, prompts, 2)
	assert.Contains(t, prompts[1], `the user answered: 8080`)

	// Attended, the run waits for the answer and goes on by itself.
	s.mu.Lock()
	s.decisions = []string{
		decision(t, map[string]any{"action": "escalate", "reasoning": "r", "question": "Which database?"}),
		decision(t, map[string]any{"action": "complete", "reasoning": "r", "summary": "ok"}),
	}
	s.mu.Unlock()
	r2, err := ws.CreateGoalRun(ctx, "pick a database", engine.GoalRunOptions{})
	require.NoError(t, err)
	done := make(chan goal.Run, 1)
	go func() {
		r, _ := ws.RunGoal(ctx, r2.ID, engine.RunGoalOptions{Attended: true})
		done <- r
	}()
	require.Eventually(t, func() bool {
		d, err := ws.GetGoalRun(ctx, r2.ID)
		return err == nil && d.Run.Status == goal.StatusWaiting && d.Run.Question != ""
	}, 10*time.Second, 10*time.Millisecond)
	resumed, err = ws.AnswerGoalRun(ctx, r2.ID, "sqlite")
	require.NoError(t, err)
	assert.True(t, resumed)
	select {
	case fr := <-done:
		assert.Equal(t, goal.StatusCompleted, fr.Status)
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not go on after the answer")
	}
}

// The model server dies mid-run: the run waits for it and goes on when it
// is back; a headless run whose server stays away gives up, resumable.
func TestGoalRunWaitsForTheModelServer(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), []byte("ollama:\n  waitLimit: 2s\n  retries: 0\n"), 0o644))
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	gate := ollamatest.NewGate(t, srv)
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Getenv: envOf(map[string]string{"OLLAMA_HOST": gate.URL()})})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	s := &leadScript{decisions: []string{
		decision(t, map[string]any{"action": "delegate", "reasoning": "r", "agent": "MARS", "task": "Plan the handler."}),
		decision(t, map[string]any{"action": "complete", "reasoning": "r", "summary": "planned"}),
	}}
	var once sync.Once
	s.agent = func(string, bool) ollamatest.Reply {
		// The server dies while MARS works, and comes back a little later.
		once.Do(func() {
			go func() {
				gate.Down()
				time.Sleep(1500 * time.Millisecond)
				_ = gate.Up()
			}()
		})
		return ollamatest.Text("Planned it.").WithLatency(200 * time.Millisecond)
	}
	srv.SetHandler(s.handle)
	ctx := t.Context()
	events := ws.Subscribe(ctx)
	var waits []string
	var wmu sync.Mutex
	go func() {
		for ev := range events {
			if ev.Type == engine.EventTaskWaiting || ev.Type == engine.EventGoalWaiting {
				wmu.Lock()
				waits = append(waits, ev.Text)
				wmu.Unlock()
			}
		}
	}()
	r, err := ws.CreateGoalRun(ctx, "plan a handler", engine.GoalRunOptions{})
	require.NoError(t, err)
	got, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{Attended: true})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusCompleted, got.Status, got.Reason)
	assert.Eventually(t, func() bool {
		wmu.Lock()
		defer wmu.Unlock()
		return len(waits) > 0 && strings.Contains(waits[0], "waiting for ollama at "+gate.URL())
	}, 5*time.Second, 10*time.Millisecond, "the run said it waited for the server")
	learned, err := ws.VaultStats(ctx)
	require.NoError(t, err)
	for typ, n := range learned.ByType {
		if typ == "Mistake" {
			assert.Zero(t, n, "a server outage is never learned")
		}
	}

	// Headless, the server stays away: the run gives up, interrupted and resumable.
	s.mu.Lock()
	s.decisions = []string{decision(t, map[string]any{"action": "complete", "reasoning": "r", "summary": "ok"})}
	s.mu.Unlock()
	r2, err := ws.CreateGoalRun(ctx, "another goal", engine.GoalRunOptions{})
	require.NoError(t, err)
	gate.Down()
	got, err = ws.RunGoal(ctx, r2.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusInterrupted, got.Status)
	assert.Contains(t, got.Reason, "did not answer for 2s")
	assert.Contains(t, got.Reason, fmt.Sprintf("nova run resume %d", r2.ID))
	require.NoError(t, gate.Up())
	got, err = ws.RunGoal(ctx, r2.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusCompleted, got.Status)
}

// ctrl+c mid-delegation: the run is interrupted, what the agent staged stays
// staged, and a resume finishes the delegation without asking the lead again.
func TestGoalRunCanceledMidDelegationResumes(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "")
	s := &leadScript{decisions: []string{
		decision(t, map[string]any{"action": "delegate", "reasoning": "r", "agent": "MARS", "task": "Write health.go."}),
		decision(t, map[string]any{"action": "complete", "reasoning": "r", "summary": "written"}),
	}}
	var mu sync.Mutex
	calls := 0
	s.agent = func(_ string, tooled bool) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if !tooled {
			return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "health.go", "content": "package main\n"}))
		}
		if calls == 2 {
			return ollamatest.Text("Created health.go.").WithLatency(30 * time.Second) // canceled while it thinks
		}
		return ollamatest.Text("Created health.go.")
	}
	srv.SetHandler(s.handle)
	ctx := t.Context()
	r, err := ws.CreateGoalRun(ctx, "add health.go", engine.GoalRunOptions{})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan goal.Run, 1)
	go func() {
		r, _ := ws.RunGoal(runCtx, r.ID, engine.RunGoalOptions{})
		done <- r
	}()
	require.Eventually(t, func() bool {
		cs, err := ws.ListChanges(ctx, changes.Filter{})
		return err == nil && len(cs) == 1
	}, 10*time.Second, 10*time.Millisecond, "MARS staged health.go")
	cancel()
	var got goal.Run
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not stop the run")
	}
	assert.Equal(t, goal.StatusInterrupted, got.Status)
	assert.Contains(t, got.Reason, "nova run resume")
	cs, err := ws.ListChanges(ctx, changes.Filter{})
	require.NoError(t, err)
	require.Len(t, cs, 1)
	assert.Equal(t, changes.StatusPending, cs[0].Status, "the staged work stays staged")
	tasks, err := ws.BuildTasks(ctx, r.BuildID)
	require.NoError(t, err)
	require.Len(t, tasks, 1)
	assert.Equal(t, build.TaskPending, tasks[0].Status)
	assert.Contains(t, tasks[0].Reason, fmt.Sprintf("changeset %d", cs[0].ID))

	got, err = ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusCompleted, got.Status, got.Reason)
	assert.Equal(t, 2, got.Turns, "the lead was not asked again for the delegation")
	assert.Len(t, s.leadPrompts(), 2)
}

// An empty decision is no decision: recorded as an unusable reply, the lead
// is told, and its next valid decision goes on.
func TestGoalRunEmptyDecisionIsToldAndRetried(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "")
	s := &leadScript{decisions: []string{`{}`, `{}`,
		decision(t, map[string]any{"action": "delegate", "reasoning": ""}),
		decision(t, map[string]any{"action": "complete", "reasoning": "nothing to do", "summary": "nothing was needed"})}}
	srv.SetHandler(s.handle)
	ctx := t.Context()
	r, err := ws.CreateGoalRun(ctx, "check the goal", engine.GoalRunOptions{})
	require.NoError(t, err)
	got, err := ws.RunGoal(ctx, r.ID, engine.RunGoalOptions{})
	require.NoError(t, err)
	assert.Equal(t, goal.StatusCompleted, got.Status, got.Reason)
	d, err := ws.GetGoalRun(ctx, r.ID)
	require.NoError(t, err)
	require.Len(t, d.Turns, 3)
	assert.Equal(t, goal.TurnInvalid, d.Turns[0].Kind)
	assert.Contains(t, d.Turns[0].Rejected, "does not match the schema")
	assert.Equal(t, goal.TurnRejected, d.Turns[1].Kind)
	assert.Contains(t, d.Turns[1].Rejected, "delegate needs an agent")
	prompts := s.leadPrompts()
	require.Len(t, prompts, 4, "three turns and the structured-output retry of the first")
	assert.Contains(t, prompts[2], "Your last reply was not a usable decision")
	assert.Contains(t, prompts[3], "Your last decision was rejected and did not run: delegate needs an agent")
	assert.Contains(t, prompts[3], "Turn 2: rejected a delegation without an agent")
}
