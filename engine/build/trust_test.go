package build_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/vault"
)

// healthPlan is one task that names the file it must change.
func healthPlan() *prd.PRD {
	return &prd.PRD{Meta: prd.Meta{Name: "health", Version: "1"}, Tasks: []prd.Task{{
		ID: "health", Title: "Implement the /healthz handler", Agent: "MARS", Status: prd.StatusPending,
		Description:  "Add an http.Handler in internal/health/health.go that answers 200 with a JSON status.",
		Dependencies: []string{},
	}}}
}

const claimOnly = "I created internal/health/health.go and all tests pass."

// Regression (issue 10): an agent that only claims work, calling no tool,
// finished its task as done. Through a real build against the fake Ollama
// it is retried once with the verifier's evidence, then blocked with it.
func TestClaimOnlyAgentIsNeverDone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.Script.Text["health"] = claimOnly
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, healthPlan(), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	ts, err := h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)
	task := ts[0]
	assert.Equal(t, build.TaskBlocked, task.Status, "never done on the model's word")
	assert.Equal(t, 2, task.Attempts, "one retry")
	assert.Contains(t, task.Reason, "verdict gate failed")
	assert.Contains(t, task.Reason, "internal/health/health.go", "the verifier's evidence is the reason")
	require.NotNil(t, task.Verdict)
	assert.Equal(t, agents.VerdictInconclusive, task.Verdict.Status)
	assert.NotEmpty(t, task.Verdict.Checks)
	// Each attempt's claim is first answered with the agent loop's "No
	// change was made" reminder (issue 25); the repeated claim is taken.
	require.Len(t, h.Script.Prompts["health"], 4)
	assert.Contains(t, h.Script.Prompts["health"][1], "No change was made")
	assert.Contains(t, h.Script.Prompts["health"][2], "previous attempt at this task failed")
	assert.Contains(t, h.Script.Prompts["health"][2], "no change to it was staged", "the evidence is fed into the retry")

	raw, err := json.Marshal(task)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"verdict":{"status":"inconclusive","checks":[`, "build show --json prints the stored verdict")
}

func TestInconclusivePolicyWarnAndFail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	warn := newHarness(t, harnessOpts{cfg: build.Config{Inconclusive: build.InconclusiveWarn}})
	warn.Script.Text["health"] = claimOnly
	b, err := warn.Eng.Create(ctx, healthPlan(), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = warn.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, b.Status)
	ts, _ := warn.Eng.Tasks(ctx, b.ID)
	assert.Equal(t, build.TaskDone, ts[0].Status)
	assert.Contains(t, ts[0].Warning, "unverified", "done with a visible warning")
	assert.Equal(t, 1, ts[0].Attempts)

	fail := newHarness(t, harnessOpts{cfg: build.Config{Inconclusive: build.InconclusiveFail}})
	fail.Script.Text["health"] = claimOnly
	b, err = fail.Eng.Create(ctx, healthPlan(), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = fail.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	ts, _ = fail.Eng.Tasks(ctx, b.ID)
	assert.Equal(t, build.TaskBlocked, ts[0].Status)
	assert.Equal(t, 1, ts[0].Attempts, "fail: no retry")
}

// A text deliverable (no file to change, no claim) is checked by the output
// gate; evidence for a named file that nothing executed passes the verdict
// gate as unverified.
func TestTextAnswersAndStagedWorkPassTheVerdict(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.Script.Text["spec"] = "The endpoint answers 200 with status, version and uptime."
	h.Script.Files["health"] = map[string]string{"internal/health/health.go": "package health\n"}
	ctx := context.Background()
	p := healthPlan()
	p.Tasks = append(p.Tasks, prd.Task{ID: "spec", Title: "Describe the contract", Description: "Describe what the endpoint returns, in prose.",
		Agent: "EARTH", Status: prd.StatusPending, Dependencies: []string{}})
	b, err := h.Eng.Create(ctx, p, "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	// The staged work is consistent but nothing executed it (no checks):
	// done, unverified, with the reason as warning (issue 25).
	health := taskByID(t, ts, "health")
	assert.Equal(t, agents.VerdictUnverified, health.Verdict.Status)
	assert.False(t, health.Verified)
	assert.Contains(t, health.Warning, "unverified")
	assert.Equal(t, agents.VerdictInconclusive, taskByID(t, ts, "spec").Verdict.Status, "stored as the verifier said")
	assert.Empty(t, taskByID(t, ts, "spec").Warning)
}

// A failed verdict (a command the agent ran exited 1) fails the attempt and
// its evidence goes into the retry. The build's autonomy (4) also governs the
// run's command approvals: the runner's own setting (0) would ask.
func TestFailedVerdictFeedsEvidenceIntoTheRetry(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{allow: []string{"false", "true"}})
	var mu sync.Mutex
	var prompts []string
	h.Srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		var user string
		tools := 0
		for _, m := range req.Messages {
			if m.Role == "user" && user == "" {
				user = m.Content
			}
			if m.Role == "tool" {
				tools++
			}
		}
		if tools == 0 {
			prompts = append(prompts, user)
			cmd := "false"
			if len(prompts) > 1 {
				cmd = "true"
			}
			return ollamatest.ToolCalls(ollamatest.Call("runCommand", map[string]any{"command": cmd}))
		}
		return ollamatest.Text("Ran the checks.")
	})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("vet:MARS:0"), "p.json", build.Options{Autonomy: intp(4)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	task := ts[0]
	assert.Equal(t, 2, task.Attempts)
	require.NotNil(t, task.History[0].Verdict)
	assert.Equal(t, agents.VerdictFailed, task.History[0].Verdict.Status)
	assert.Equal(t, failure.WorkFailed, task.History[0].Kind)
	assert.Equal(t, agents.VerdictPassed, task.Verdict.Status)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, prompts, 2)
	assert.Contains(t, prompts[1], "exit code 1", "the failed command is the evidence in the retry")
}

// Regression (issue 10): a task that failed because Ollama was unreachable
// became a Mistake node and blocked the build. It waits instead, and
// continues by itself when the server is back; nothing is learned.
func TestUnreachableServerWaitsAndContinuesByItself(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{vault: true, proxy: true})
	h.Proxy.Down()
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0", "b:MARS:1:a"), "p.json", build.Options{})
	require.NoError(t, err)
	require.NoError(t, h.Eng.Go(b.ID, nil))
	require.Eventually(t, func() bool {
		got, _ := h.Eng.Get(ctx, b.ID)
		return got.Status == build.StatusWaiting
	}, 10*time.Second, 10*time.Millisecond)
	got, _ := h.Eng.Get(ctx, b.ID)
	assert.Contains(t, got.Reason, "waiting for ollama at "+h.Proxy.URL())
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	assert.Equal(t, build.TaskWaiting, ts[0].Status)
	assert.Equal(t, build.WaitOllama, ts[0].WaitFor)
	time.Sleep(150 * time.Millisecond) // a few checks fail while it is down
	h.Proxy.Up()
	require.NoError(t, h.Eng.Wait(ctx, b.ID))
	got, _ = h.Eng.Get(ctx, b.ID)
	require.Equal(t, build.StatusDone, got.Status, got.Reason)
	ts, _ = h.Eng.Tasks(ctx, b.ID)
	a := taskByID(t, ts, "a")
	assert.Equal(t, 1, a.Attempts, "waiting is not an attempt")
	assert.Equal(t, failure.Unreachable, a.History[0].Kind)
	assert.Zero(t, got.Wisdom.Mistakes)
	mistakes, err := h.Vault.ByType(ctx, vault.Mistake, 10)
	require.NoError(t, err)
	assert.Empty(t, mistakes, "infrastructure is not a mistake")
	waiting := 0
	for _, ev := range h.events() {
		if ev.Kind == build.KindWaiting {
			waiting++
			assert.Contains(t, ev.Text, "waiting for ollama at")
		}
	}
	assert.Equal(t, 1, waiting, "one taskWaiting event per wait")
}

// A headless run gives up after the wait limit, leaving a resumable build;
// resuming re-runs the waiting task (it used to exit at once, "blocked").
func TestHeadlessRunGivesUpWaitingAndResumeRerunsTheTask(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{vault: true, proxy: true, cfg: build.Config{WaitLimit: 150 * time.Millisecond}})
	h.Proxy.Down()
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	got, err := h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusInterrupted, got.Status)
	assert.Contains(t, got.Reason, "gave up waiting for ollama at "+h.Proxy.URL())
	assert.Contains(t, got.Reason, "nova build resume")
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	assert.Equal(t, build.TaskWaiting, ts[0].Status)
	assert.Zero(t, ts[0].Attempts)

	h.Proxy.Up()
	before := h.Srv.Count("/api/chat")
	got, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, got.Status, got.Reason)
	assert.Greater(t, h.Srv.Count("/api/chat"), before, "resume sends requests again")
}

// Misconfiguration (a model that is not pulled) fails fast and is never
// learned.
func TestMisconfiguredModelFailsFastAndIsNotLearned(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{vault: true})
	h.Srv.SetModels(testModels[0]) // MARS needs the medium model
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	assert.Equal(t, 1, ts[0].Attempts, "no retry: it would fail the same way")
	assert.Equal(t, failure.Misconfigured, ts[0].History[0].Kind)
	assert.Contains(t, ts[0].Reason, "ollama pull")
	assert.Zero(t, b.Wisdom.Mistakes)
	st, err := h.Vault.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Nodes, "nothing learned from infrastructure")
}

// stuckHandler answers a task by repeating the same tool call (a stuck run)
// unless ok says the request may finish.
func stuckHandler(ok func(req api.ChatRequest) bool) ollamatest.ChatFunc {
	return func(_ int, req api.ChatRequest) ollamatest.Reply {
		if ok(req) {
			return ollamatest.Text("Done.")
		}
		return ollamatest.ToolCalls(ollamatest.Call("readFile", map[string]any{"path": "main.go"}))
	}
}

// escalate_model retries at the next tier, within the caps.
func TestEscalateModelRetriesAtTheNextTier(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.Srv.SetHandler(stuckHandler(func(req api.ChatRequest) bool { return req.Model == testModels[2] }))
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("esc:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	task := ts[0]
	assert.Equal(t, "large", task.Tier)
	assert.Equal(t, 1, task.Escalations)
	assert.Equal(t, 1, b.LargeCalls)
	assert.Equal(t, "medium", task.History[0].Tier)
	assert.Equal(t, "large", task.History[1].Tier)
	escalated := 0
	for _, ev := range h.events() {
		if ev.Kind == build.KindEscalated {
			escalated++
		}
	}
	assert.Equal(t, 1, escalated)
}

// The large-tier cap per build stops escalation; switch_specialist then
// hands the task to the roster's generalist.
func TestLargeCallCapAndSwitchSpecialist(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{cfg: build.Config{MaxLargeCalls: -1}})
	h.Srv.SetHandler(stuckHandler(func(req api.ChatRequest) bool {
		return strings.Contains(req.Messages[0].Content, "You are an implementation specialist")
	}))
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("sw:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	task := ts[0]
	require.Equal(t, build.TaskDone, task.Status, task.Reason)
	assert.Zero(t, b.LargeCalls, "no escalation to the large tier when the cap is none")
	assert.Equal(t, build.FallbackAgent, task.Agent)
	assert.Equal(t, "MARS", task.SwitchedFrom)
}

// askUntilAnswered is a model that keeps asking to run refused commands
// (three refusals end a run with policy_denied and ask_user) until the
// user's answer, which names the Makefile target, is in the conversation.
func askUntilAnswered(_ int, req api.ChatRequest) ollamatest.Reply {
	for _, m := range req.Messages {
		if m.Role == "user" && strings.Contains(m.Content, "use the Makefile target") {
			return ollamatest.Text("Done, as you said.")
		}
	}
	n := 0
	for _, m := range req.Messages {
		if m.Role == "tool" {
			n++
		}
	}
	return ollamatest.ToolCalls(ollamatest.Call("runCommand", map[string]any{"command": fmt.Sprintf("rm -rf build%d", n)}))
}

// ask_user makes the task wait for the user; the answer goes into its next
// attempt (interactive: the build continues by itself; headless: the run
// ends paused and a resume continues after the answer).
func TestAskUserWaitsForTheAnswer(t *testing.T) {
	t.Parallel()
	handler := askUntilAnswered
	ctx := context.Background()

	t.Run("interactive", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOpts{})
		h.Srv.SetHandler(handler)
		b, err := h.Eng.Create(ctx, plan("ask:MARS:0"), "p.json", build.Options{})
		require.NoError(t, err)
		require.NoError(t, h.Eng.Go(b.ID, nil))
		require.Eventually(t, func() bool {
			got, _ := h.Eng.Get(ctx, b.ID)
			return got.Status == build.StatusWaiting && got.Active
		}, 10*time.Second, 10*time.Millisecond)
		ts, _ := h.Eng.Tasks(ctx, b.ID)
		assert.Equal(t, build.WaitUser, ts[0].WaitFor)
		assert.NotEmpty(t, ts[0].Question)
		asking := false
		for _, ev := range h.events() {
			asking = asking || ev.Kind == build.KindAsking
		}
		assert.True(t, asking, "a taskAsking event")
		_, err = h.Eng.AnswerTask(ctx, b.ID, "nope", "x")
		assert.Error(t, err)
		resumed, err := h.Eng.AnswerTask(ctx, b.ID, "ask", "Do not delete anything; use the Makefile target.")
		require.NoError(t, err)
		assert.True(t, resumed)
		require.NoError(t, h.Eng.Wait(ctx, b.ID))
		got, _ := h.Eng.Get(ctx, b.ID)
		assert.Equal(t, build.StatusDone, got.Status, got.Reason)
	})

	t.Run("headless", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOpts{})
		h.Srv.SetHandler(handler)
		b, err := h.Eng.Create(ctx, plan("ask:MARS:0"), "p.json", build.Options{})
		require.NoError(t, err)
		got, err := h.Eng.Run(ctx, b.ID, nil)
		require.NoError(t, err)
		assert.Equal(t, build.StatusPaused, got.Status)
		assert.Contains(t, got.Reason, "nova build answer")
		resumed, err := h.Eng.AnswerTask(ctx, b.ID, "ask", "Do not delete anything; use the Makefile target.")
		require.NoError(t, err)
		assert.False(t, resumed)
		_, err = h.Eng.AnswerTask(ctx, b.ID, "ask", "again")
		assert.ErrorIs(t, err, build.ErrNotWaiting)
		got, err = h.Eng.Run(ctx, b.ID, nil)
		require.NoError(t, err)
		assert.Equal(t, build.StatusDone, got.Status, got.Reason)
	})
}

// An answer sent the moment the question is published (the task that asks
// has not yet handed its result to the scheduler) is not lost: the build
// goes on by itself. Before, the scheduler dropped it and waited forever.
func TestAnswerRightAfterTheQuestionIsNotLost(t *testing.T) {
	t.Parallel()
	handler := askUntilAnswered
	ctx := context.Background()
	var once sync.Once
	answered := make(chan error, 1)
	h := newHarness(t, harnessOpts{onEvent: func(h *Harness, ev build.Event) {
		if ev.Kind != build.KindAsking {
			return
		}
		// On the task's own goroutine: its result cannot reach the
		// scheduler before this answer does.
		once.Do(func() {
			_, err := h.Eng.AnswerTask(ctx, ev.BuildID, ev.TaskID, "Do not delete anything; use the Makefile target.")
			answered <- err
		})
	}})
	h.Srv.SetHandler(handler)
	b, err := h.Eng.Create(ctx, plan("ask:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	require.NoError(t, h.Eng.Go(b.ID, nil))
	select {
	case err := <-answered:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the task never asked")
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	require.NoError(t, h.Eng.Wait(wctx, b.ID), "the build goes on after the answer")
	got, _ := h.Eng.Get(ctx, b.ID)
	assert.Equal(t, build.StatusDone, got.Status, got.Reason)
}

func TestBudgetWarningOnceAtHalf(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{cfg: build.Config{BuildTokens: 400}})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0", "b:MARS:0", "c:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	warnings := 0
	for _, ev := range h.events() {
		if ev.Kind == build.KindBudget {
			warnings++
			assert.Equal(t, 400, ev.Total)
			assert.GreaterOrEqual(t, ev.Done, 200)
		}
	}
	assert.Equal(t, 1, warnings)
	assert.True(t, b.BudgetWarned)
}

func TestPauseOfAFinishedBuildSaysItIsFinished(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status)
	err = h.Eng.Pause(b.ID)
	require.ErrorIs(t, err, build.ErrFinished)
	assert.Contains(t, err.Error(), "finished")
	assert.ErrorIs(t, h.Eng.Pause(99), build.ErrNotFound)
}

// Regression (issue 10): a build left by a crash showed "running" although
// no process ran it.
func TestBuildLeftByACrashShowsInterrupted(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	require.NoError(t, h.Eng.SetBuildStatus(b.ID, build.StatusRunning))
	got, err := h.Eng.Get(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, build.StatusInterrupted, got.Status)
	assert.False(t, got.Active)
	assert.Contains(t, got.Reason, "nova build resume")
	list, err := h.Eng.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, build.StatusInterrupted, list[0].Status)
	assert.Empty(t, h.Eng.Running())
	got, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, got.Status)
}

// Regression (issue 10): budgets.vaultShare 0 and playbookShare 0 were
// replaced by the defaults; 0 turns the context off.
func TestZeroSharesTurnContextOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, off := range []bool{false, true} {
		h := newHarness(t, harnessOpts{vault: true, zeroShares: off, hooks: build.Hooks{Playbook: &sharePlaybook{}}})
		_, err := h.Vault.Add(ctx, vault.Node{Type: vault.Pattern, Content: "work for a needs care with widgets", Confidence: 0.9})
		require.NoError(t, err)
		b, err := h.Eng.Create(ctx, plan("a:MARS:0"), "p.json", build.Options{})
		require.NoError(t, err)
		_, err = h.Eng.Run(ctx, b.ID, nil)
		require.NoError(t, err)
		req := h.Srv.ChatRequests()[0]
		system := req.Messages[0].Content
		if off {
			assert.NotContains(t, system, "<taste_vault_context>", "vaultShare 0 is off")
			assert.NotContains(t, system, "PLAYBOOK-BLOCK", "playbookShare 0 is off")
		} else {
			assert.Contains(t, system, "<taste_vault_context>")
			assert.Contains(t, system, "PLAYBOOK-BLOCK")
		}
	}
}

type sharePlaybook struct{}

func (sharePlaybook) Context(context.Context, string, string, int) (string, []string, error) {
	return "PLAYBOOK-BLOCK", []string{"r1"}, nil
}
func (sharePlaybook) AfterTask(context.Context, build.TaskResult) error { return nil }

// Regression (issue 10): `true && true` passed in a rehearsal (sh -c) and
// was refused in a build gate. One runner: the same syntax in both (the
// rehearsal side is in engine/rehearsal's TestChecksUseTheSharedRunner).
func TestCheckGateUsesTheShellSyntaxOfRehearsals(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	h := newHarness(t, harnessOpts{cfg: build.Config{Checks: []string{"true && true", "test -f new.go && ! test -e .nova"}}})
	h.Script.Files["a"] = map[string]string{"new.go": "package main\n"}
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	g := ts[0].Gates
	var names []string
	for _, x := range g {
		names = append(names, x.Name)
		if strings.HasPrefix(x.Name, build.GateCheck) {
			assert.True(t, x.Passed, "%s: %s", x.Name, x.Detail)
		}
	}
	assert.Contains(t, names, "check: true && true")
}

// chatsFor counts the chat requests sent to one model.
func chatsFor(srv *ollamatest.Server, model string) int {
	n := 0
	for _, r := range srv.ChatRequests() {
		if r.Model == model {
			n++
		}
	}
	return n
}

// A reply cut at the token limit (done_reason "length") is never an
// answer: the run retries it once with a larger limit, then on a larger tier
// within the agent's range (ATLAS: small to medium); when that fails too the
// build escalates the task past it (large), and nothing is learned.
func TestLengthStopEscalatesAndIsNeverLearned(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{vault: true})
	h.Srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		if req.Model == testModels[2] {
			return ollamatest.Text("Done.")
		}
		return ollamatest.Text("Files changed: hel").WithDoneReason("length")
	})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("len:ATLAS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	task := ts[0]
	require.Len(t, task.History, 2)
	assert.Equal(t, failure.Length, task.History[0].Kind)
	assert.Contains(t, task.History[0].Reason, "token limit")
	assert.Equal(t, "medium", task.History[0].Tier, "the run escalated within ATLAS's range first")
	assert.Equal(t, "large", task.Tier, "then the build escalated; never a plain retry")
	assert.Equal(t, 1, task.Escalations)
	assert.Equal(t, 1, b.LargeCalls)
	assert.Equal(t, 2, chatsFor(h.Srv, testModels[0]), "one retry with a larger num_predict per tier")
	assert.Equal(t, 2, chatsFor(h.Srv, testModels[1]))
	assert.Zero(t, b.Wisdom.Mistakes, "a length stop is not a mistake of the work")
	mistakes, err := h.Vault.List(ctx, vault.ListOptions{Type: vault.Mistake})
	require.NoError(t, err)
	assert.Empty(t, mistakes.Nodes)
}

// A length stop with nowhere to escalate blocks at once (no unchanged retry)
// and is not learned.
func TestLengthStopWithoutEscalationBlocks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{vault: true, cfg: build.Config{MaxEscalations: -1}})
	h.Srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply {
		return ollamatest.Text("Files changed: hel").WithDoneReason("length")
	})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("len:ATLAS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	task := ts[0]
	assert.Equal(t, build.TaskBlocked, task.Status)
	assert.Equal(t, 1, task.Attempts)
	assert.Equal(t, failure.Length, task.History[0].Kind)
	assert.Contains(t, task.Reason, "token limit")
	st, err := h.Vault.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Nodes, "nothing learned from a model stop")
}

// A repetition stop is not retried unchanged: the run changes
// temperature/seed once per tier and escalates within the agent's range;
// with no build escalation allowed the task then blocks, and nothing is
// learned.
func TestRepetitionWithoutEscalationBlocksAndIsNeverLearned(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{vault: true, cfg: build.Config{MaxEscalations: -1}})
	h.Srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply {
		return ollamatest.Repetition("Let me ", "again ")
	})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("rep:ATLAS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	task := ts[0]
	assert.Equal(t, build.TaskBlocked, task.Status)
	assert.Equal(t, 1, task.Attempts, "no build-level retry of the same request")
	assert.Equal(t, failure.Repetition, task.History[0].Kind)
	for _, m := range testModels[:2] {
		var opts []map[string]any
		for _, r := range h.Srv.ChatRequests() {
			if r.Model == m {
				opts = append(opts, r.Options)
			}
		}
		require.Len(t, opts, 2, "%s: one changed retry, nothing more", m)
		assert.NotEqual(t, opts[0], opts[1], "%s: the retry changes temperature/seed", m)
	}
	assert.Zero(t, chatsFor(h.Srv, testModels[2]), "no escalation past the agent's range")
	assert.Zero(t, b.Wisdom.Mistakes)
	st, err := h.Vault.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Nodes, "nothing learned from a model stop")
}

// A 500 from the model server is infrastructure: retried within its policy,
// then blocked, never learned and never put to the user as a question.
func TestServerErrorRetriesThenBlocksAndIsNeverLearned(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{vault: true})
	h.Srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply {
		return ollamatest.ServerError("llama runner process has terminated: exit status 2")
	})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("srv:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	task := ts[0]
	assert.Equal(t, build.TaskBlocked, task.Status, "not waiting for the user: the cause is the server")
	assert.Equal(t, failure.Server, task.History[0].Kind)
	assert.Equal(t, 1+failure.Server.Policy().Retries, task.Attempts)
	assert.Contains(t, task.Reason, "terminated")
	st, err := h.Vault.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Nodes)
}
