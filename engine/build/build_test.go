package build_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/vault"
)

func taskByID(t *testing.T, ts []build.Task, id string) build.Task {
	t.Helper()
	for _, x := range ts {
		if x.ID == id {
			return x
		}
	}
	t.Fatalf("no task %s", id)
	return build.Task{}
}

func TestCorpusDashboardCompletes(t *testing.T) {
	t.Parallel()
	p := loadCorpus(t, "prd-ua-dashboard-v1.json")
	h := newHarness(t, harnessOpts{vault: true})
	h.Script.Text["ua-005"] = "Done: ua-005. Every table carries companyId and every query filters by it."
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, p, "prd-ua-dashboard-v1.json", build.Options{Autonomy: intp(2)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, b.Status, b.Reason)
	assert.Equal(t, 15, b.Counts[build.TaskDone])
	assert.Positive(t, b.Tokens)
	assert.Positive(t, b.Wisdom.Learned+b.Wisdom.Strengthened, "the vault learned from the build")

	tasks, err := h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, tasks, len(p.Tasks))
	for _, tk := range tasks {
		assert.Equal(t, build.TaskDone, tk.Status, tk.ID)
		assert.Equal(t, 1, tk.Attempts)
		assert.True(t, strings.HasPrefix(tk.Output, "Done: "+tk.ID+"."), tk.Output)
		data, err := os.ReadFile(tk.OutputPath)
		require.NoError(t, err, tk.ID)
		assert.Contains(t, string(data), "Done: "+tk.ID)
		assert.InDelta(t, 1.0, tk.Score, 1e-9)
		assert.NotEmpty(t, tk.Gates)
	}
	phases, err := h.Eng.Phases(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, phases, 4)
	for i, ph := range phases {
		assert.Equal(t, i, ph.Phase)
		assert.Equal(t, len(ph.Tasks), ph.Done)
	}

	// Scheduling: a task starts only after its dependencies are done, and
	// with parallelism 1 the order is phase first, then file order.
	doneAt := map[string]int{}
	var started []string
	for i, ev := range h.events() {
		if ev.Kind != build.KindTask {
			continue
		}
		switch ev.Status {
		case "done":
			doneAt[ev.TaskID] = i
		case "running":
			started = append(started, ev.TaskID)
			tk, _ := p.Task(ev.TaskID)
			for _, d := range tk.Dependencies {
				_, ok := doneAt[d]
				assert.True(t, ok, "%s started before its dependency %s was done", ev.TaskID, d)
			}
		}
	}
	var want []string
	for _, ph := range p.Phases() {
		for _, tk := range p.Tasks {
			if tk.Phase == ph {
				want = append(want, tk.ID)
			}
		}
	}
	assert.Equal(t, want, started)
	last := h.events()[len(h.events())-1]
	assert.Equal(t, build.KindDone, last.Kind)
	assert.Contains(t, last.Text, "wisdom:")

	// Dependency outputs reach the prompt as artifacts with their path.
	prompts := h.Script.Prompts["ua-013"]
	require.NotEmpty(t, prompts)
	assert.Contains(t, prompts[0], "<dependency_artifacts>")
	assert.Contains(t, prompts[0], "Done: ua-005.")
	assert.Contains(t, prompts[0], ".nova/output/")

	list, err := h.Eng.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Nil(t, list[0].PRD)
}

func TestInvalidPlansNeverStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	ctx := context.Background()
	_, err := h.Eng.Create(ctx, plan("a:MARS:0:c", "b:MARS:0:a", "c:MARS:0:b"), "cyc.json", build.Options{})
	require.Error(t, err)
	assert.ErrorIs(t, err, prd.ErrInvalid)
	assert.Contains(t, err.Error(), "cycle")

	_, err = h.Eng.Create(ctx, plan("a:NOBODY:0", "b:MARS:0:zzz"), "bad.json", build.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NOBODY")
	assert.Contains(t, err.Error(), "zzz")

	list, err := h.Eng.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list, "nothing is stored for an invalid plan")
	assert.Zero(t, h.Srv.Count("/api/chat"))

	_, err = h.Eng.Create(ctx, plan("a:MARS"), "x.json", build.Options{Autonomy: intp(9)})
	assert.Error(t, err)
	_, err = h.Eng.Run(ctx, 99, nil)
	assert.ErrorIs(t, err, build.ErrNotFound)
}

func TestRetryThenBlocked(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{vault: true})
	h.Script.Fail["flaky"] = 1
	h.Script.Fail["broken"] = 5
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("flaky:MARS:0", "broken:MARS:0", "after:MARS:1:broken", "ok:VENUS:1:flaky"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	assert.Contains(t, b.Reason, "broken")
	assert.Positive(t, b.Wisdom.Mistakes, "failures become Mistake nodes")

	ts, err := h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)
	flaky := taskByID(t, ts, "flaky")
	assert.Equal(t, build.TaskDone, flaky.Status)
	assert.Equal(t, 2, flaky.Attempts)
	require.Len(t, flaky.History, 2)
	assert.False(t, flaky.History[0].Passed)
	assert.Contains(t, flaky.History[0].Reason, "output gate failed")
	assert.True(t, flaky.History[1].Passed)
	// The failure is fed back into the retry's prompt.
	require.Len(t, h.Script.Prompts["flaky"], 2)
	assert.NotContains(t, h.Script.Prompts["flaky"][0], "previous attempt")
	assert.Contains(t, h.Script.Prompts["flaky"][1], "previous attempt at this task failed")
	assert.Contains(t, h.Script.Prompts["flaky"][1], "does not parse")

	broken := taskByID(t, ts, "broken")
	assert.Equal(t, build.TaskBlocked, broken.Status)
	assert.Equal(t, 2, broken.Attempts, "one retry, then blocked")
	assert.Contains(t, broken.Reason, "output gate failed")
	assert.Equal(t, 2, h.Script.Answers("broken"))
	data, err := os.ReadFile(broken.OutputPath)
	require.NoError(t, err)
	assert.Contains(t, string(data), "Blocked")

	assert.Equal(t, build.TaskPending, taskByID(t, ts, "after").Status, "dependents of a blocked task never run")
	assert.Zero(t, h.Script.Answers("after"))
	assert.Equal(t, build.TaskDone, taskByID(t, ts, "ok").Status)

	mistakes, err := h.Vault.ByType(ctx, vault.Mistake, 10)
	require.NoError(t, err)
	assert.NotEmpty(t, mistakes)
}

func TestCheckGateRunsOnACopy(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	h := newHarness(t, harnessOpts{cfg: build.Config{Checks: []string{
		`sh -c "test ! -e .nova && test -f main.go && ! grep -rq BROKEN . && echo checked"`,
	}, CheckTimeout: 20 * time.Second}})
	h.Script.Files["good"] = map[string]string{"good.go": "package main\n"}
	h.Script.Files["bad"] = map[string]string{"bad.go": "package main\n// BROKEN\n"}
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("good:MARS:0", "bad:MARS:0"), "p.json", build.Options{Autonomy: intp(2)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	ts, err := h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)

	good := taskByID(t, ts, "good")
	require.Equal(t, build.TaskDone, good.Status, good.Reason)
	var check build.GateResult
	for _, g := range good.Gates {
		if strings.HasPrefix(g.Name, build.GateCheck) {
			check = g
		}
	}
	assert.True(t, check.Passed)
	assert.Contains(t, check.Output, "checked")
	assert.InDelta(t, 1.0, good.Score, 1e-9)

	bad := taskByID(t, ts, "bad")
	assert.Equal(t, build.TaskBlocked, bad.Status)
	assert.Contains(t, bad.Reason, "check: sh -c")
	assert.Less(t, bad.History[0].Score, 1.0)
	assert.Greater(t, bad.History[0].Score, 0.0, "output and confinement passed")
	for _, a := range bad.History {
		cs, err := h.Changes.Get(ctx, a.ChangesetID)
		require.NoError(t, err)
		assert.Equal(t, changes.StatusDiscarded, cs.Status, "a failed attempt's changeset is not offered")
	}
	_, err = os.Stat(filepath.Join(h.Root, "bad.go"))
	assert.ErrorIs(t, err, os.ErrNotExist, "checks never touch the workspace")
}

func TestCheckTimeout(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/sleep"); err != nil {
		t.Skip("needs /bin/sleep")
	}
	h := newHarness(t, harnessOpts{cfg: build.Config{Checks: []string{"sleep 5"}, CheckTimeout: 200 * time.Millisecond}})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	assert.Contains(t, ts[0].Reason, "timed out")
}

func TestAutonomyAppliesChangesets(t *testing.T) {
	t.Parallel()
	for _, level := range []int{2, 3} {
		t.Run(string(rune('0'+level)), func(t *testing.T) {
			t.Parallel()
			// A check executes the change: autonomy 3 applies only verified
			// work (TestAutonomyNeverAppliesUnverifiedWork).
			h := newHarness(t, harnessOpts{cfg: build.Config{Checks: []string{"test -f pkg/hello.go"}}})
			h.Script.Files["w"] = map[string]string{"pkg/hello.go": "package pkg\n"}
			ctx := context.Background()
			b, err := h.Eng.Create(ctx, plan("w:MARS:0"), "p.json", build.Options{Autonomy: intp(level)})
			require.NoError(t, err)
			b, err = h.Eng.Run(ctx, b.ID, nil)
			require.NoError(t, err)
			require.Equal(t, build.StatusDone, b.Status, b.Reason)
			ts, _ := h.Eng.Tasks(ctx, b.ID)
			require.NotZero(t, ts[0].ChangesetID)
			cs, err := h.Changes.Get(ctx, ts[0].ChangesetID)
			require.NoError(t, err)
			_, statErr := os.Stat(filepath.Join(h.Root, "pkg", "hello.go"))
			if level >= 3 {
				assert.True(t, ts[0].Applied)
				assert.Equal(t, changes.StatusApplied, cs.Status)
				assert.NoError(t, statErr)
			} else {
				assert.False(t, ts[0].Applied)
				assert.Equal(t, changes.StatusPending, cs.Status, "waits in Changes")
				assert.ErrorIs(t, statErr, os.ErrNotExist)
			}
		})
	}
}

func TestInterruptAndResume(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.Script.Latency = 30 * time.Millisecond
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0", "b:MARS:0:a", "c:MARS:1:b", "d:MARS:1:c"), "p.json", build.Options{})
	require.NoError(t, err)

	// ctrl+c: cancel the caller's context once "a" is done.
	rctx, cancel := context.WithCancel(ctx)
	go func() {
		for rctx.Err() == nil {
			for _, ev := range h.events() {
				if ev.Kind == build.KindTask && ev.TaskID == "a" && ev.Status == "done" {
					cancel()
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	got, err := h.Eng.Run(rctx, b.ID, nil)
	cancel()
	require.NoError(t, err)
	assert.Equal(t, build.StatusInterrupted, got.Status, "ctrl+c interrupts; never shown as running")
	assert.Contains(t, got.Reason, "resume")
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	assert.Equal(t, build.TaskDone, taskByID(t, ts, "a").Status)
	assert.NotEqual(t, build.TaskRunning, taskByID(t, ts, "b").Status, "nothing is left running")

	// A crash in the middle of "c" (status stays running in the store).
	require.NoError(t, h.Eng.SetTaskStatus(b.ID, "c", build.TaskRunning))

	got, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, got.Status, got.Reason)
	assert.Equal(t, 1, h.Script.Answers("a"), "done tasks are not re-run")
	assert.Equal(t, 1, h.Script.Answers("c"))
	ts, _ = h.Eng.Tasks(ctx, b.ID)
	assert.Equal(t, 1, taskByID(t, ts, "c").Interruptions)
	assert.Equal(t, 1, got.Resumes)
}

func TestPauseAndCancel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.Script.Latency = 40 * time.Millisecond
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0", "b:MARS:0", "c:MARS:0", "d:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	require.NoError(t, h.Eng.Go(b.ID, nil))
	assert.ErrorIs(t, h.Eng.Go(b.ID, nil), build.ErrActive)
	require.Eventually(t, func() bool {
		got, _ := h.Eng.Get(ctx, b.ID)
		return got.Counts[build.TaskRunning] == 1
	}, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, h.Eng.Pause(b.ID))
	require.NoError(t, h.Eng.Wait(ctx, b.ID))
	got, err := h.Eng.Get(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, build.StatusPaused, got.Status)
	assert.False(t, got.Active)
	assert.Equal(t, 1, got.Counts[build.TaskDone], "the running task finished; no new one started")
	assert.ErrorIs(t, h.Eng.Pause(b.ID), build.ErrNotActive)

	require.NoError(t, h.Eng.Go(b.ID, nil))
	require.Eventually(t, func() bool {
		got, _ := h.Eng.Get(ctx, b.ID)
		return got.Counts[build.TaskRunning] == 1 && got.Counts[build.TaskDone] == 1
	}, 5*time.Second, 2*time.Millisecond)
	require.NoError(t, h.Eng.Cancel(b.ID))
	require.NoError(t, h.Eng.Wait(ctx, b.ID))
	got, _ = h.Eng.Get(ctx, b.ID)
	assert.Equal(t, build.StatusCanceled, got.Status)
	assert.Zero(t, got.Counts[build.TaskRunning])

	got, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, got.Status)
}

func TestTokenBudgetStopsTheBuild(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{cfg: build.Config{BuildTokens: 150}})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0", "b:MARS:0", "c:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	assert.Contains(t, b.Reason, "budget")
	assert.Contains(t, b.Reason, "budgets.buildTokens")
	assert.Less(t, b.Counts[build.TaskDone], 3)
}

func TestParallelism(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{cfg: build.Config{Parallelism: 3}})
	h.Script.Latency = 20 * time.Millisecond
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0", "b:MARS:0", "c:MARS:0", "d:MARS:1:a,b,c"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, b.Status)
	running, peak := 0, 0
	for _, ev := range h.events() {
		if ev.Kind != build.KindTask {
			continue
		}
		switch ev.Status {
		case "running":
			running++
		case "done":
			running--
		}
		peak = max(peak, running)
	}
	assert.Equal(t, 3, peak)
}

// --- hooks ---------------------------------------------------------------

type fakePlaybook struct {
	mu      sync.Mutex
	results []build.TaskResult
	budget  int
}

func (f *fakePlaybook) Context(_ context.Context, agent, _ string, budget int) (string, []string, error) {
	f.mu.Lock()
	f.budget = budget
	f.mu.Unlock()
	return "<playbook agent=\"" + agent + "\">- keep handlers small</playbook>", []string{"r-1", "r-2"}, nil
}

func (f *fakePlaybook) AfterTask(_ context.Context, r build.TaskResult) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.results = append(f.results, r)
	return nil
}

type fakeRehearsal struct {
	mu    sync.Mutex
	calls []build.RehearsalRequest
	wait  bool
}

func (f *fakeRehearsal) ShouldRehearse(t prd.Task) bool { return strings.HasPrefix(t.ID, "risky") }

func (f *fakeRehearsal) Rehearse(_ context.Context, req build.RehearsalRequest) (build.RehearsalOutcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, req)
	if f.wait {
		return build.RehearsalOutcome{SessionID: 7, Waiting: true, Reason: "choose a branch in the TUI"}, nil
	}
	return build.RehearsalOutcome{SessionID: 7, Output: "branch minimal chosen", Tokens: 42}, nil
}

func TestHooksProvenanceAndRehearsal(t *testing.T) {
	t.Parallel()
	pb := &fakePlaybook{}
	rh := &fakeRehearsal{}
	h := newHarness(t, harnessOpts{vault: true, hooks: build.Hooks{Playbook: pb, Rehearsal: rh}, cfg: build.Config{Tier: "premium", PromptTokens: 10000}})
	ctx := context.Background()
	n, err := h.Vault.Add(ctx, vault.Node{Type: vault.Strategy, Content: "Health endpoints return JSON with a status field", Confidence: 0.7})
	require.NoError(t, err)
	p := plan("health:MARS:0", "risky-migration:MARS:1:health")
	p.Tasks[0].Title = "Add a health endpoint returning JSON status"
	b, err := h.Eng.Create(ctx, p, "p.json", build.Options{Autonomy: intp(3)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)

	ts, _ := h.Eng.Tasks(ctx, b.ID)
	health := taskByID(t, ts, "health")
	assert.Contains(t, health.VaultNodeIDs, n.ID, "injected vault nodes are recorded")
	assert.Equal(t, []string{"r-1", "r-2"}, health.RuleIDs)
	assert.Contains(t, h.Script.Prompts["health"][0], "taste_vault_context")
	assert.Contains(t, h.Script.Prompts["health"][0], "keep handlers small")
	assert.Equal(t, 1000, pb.budget, "playbook gets 10 % of the prompt budget")
	after, err := h.Vault.Get(ctx, n.ID)
	require.NoError(t, err)
	assert.Greater(t, after.Confidence, n.Confidence, "a node that helped is reinforced")
	assert.Positive(t, b.Wisdom.Reinforced)

	risky := taskByID(t, ts, "risky-migration")
	assert.True(t, risky.Rehearsed)
	assert.Equal(t, "branch minimal chosen", risky.Output)
	require.Len(t, rh.calls, 1)
	assert.Equal(t, "risky-migration", rh.calls[0].Task.ID)
	assert.Equal(t, 3, rh.calls[0].Autonomy)
	assert.Zero(t, h.Script.Answers("risky-migration"), "the agent loop did not run")

	require.Len(t, pb.results, 2)
	assert.True(t, pb.results[0].Success)
	assert.Equal(t, []string{"r-1", "r-2"}, pb.results[0].RuleIDs)
	assert.Equal(t, 3, pb.results[0].Autonomy)
	assert.InDelta(t, 1.0, pb.results[0].GateScore, 1e-9)
}

func TestRehearsalWaitsAndFreeTierLogs(t *testing.T) {
	t.Parallel()
	rh := &fakeRehearsal{wait: true}
	h := newHarness(t, harnessOpts{hooks: build.Hooks{Rehearsal: rh}, cfg: build.Config{Tier: "premium"}})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("risky-1:MARS:0", "plain:MARS:0"), "p.json", build.Options{Autonomy: intp(2)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusPaused, b.Status)
	assert.Contains(t, b.Reason, "risky-1")
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	assert.Equal(t, build.TaskWaiting, taskByID(t, ts, "risky-1").Status)
	assert.Equal(t, build.TaskDone, taskByID(t, ts, "plain").Status)

	// Resume asks the hook again; now it has a decision.
	rh.mu.Lock()
	rh.wait = false
	rh.mu.Unlock()
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, b.Status)

	free := newHarness(t, harnessOpts{hooks: build.Hooks{Rehearsal: &fakeRehearsal{}}})
	fb, err := free.Eng.Create(ctx, plan("risky-2:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	fb, err = free.Eng.Run(ctx, fb.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, fb.Status)
	var logged bool
	for _, ev := range free.events() {
		logged = logged || (ev.Kind == build.KindLog && strings.Contains(ev.Text, "rehearsal would have run"))
	}
	assert.True(t, logged)
	assert.Equal(t, 1, free.Script.Answers("risky-2"), "the agent loop ran instead")
}

func TestJudgeGate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{cfg: build.Config{Judge: true}})
	h.Script.Judge = func(prompt string) string {
		if strings.Contains(prompt, "PRD task poor:") {
			return `{"score":0.2,"passed":false,"reason":"does not do the task"}`
		}
		return `{"score":0.9,"passed":true,"reason":"fine"}`
	}
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("good:MARS:0", "poor:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	good := taskByID(t, ts, "good")
	require.Equal(t, build.TaskDone, good.Status, good.Reason)
	assert.InDelta(t, (1+1+1+0.9)/4, good.Score, 1e-9, "output, confinement, verdict and judge")
	poor := taskByID(t, ts, "poor")
	assert.Equal(t, build.TaskBlocked, poor.Status)
	assert.Contains(t, poor.Reason, "judge gate failed: does not do the task")
}

func TestOutputGateParsing(t *testing.T) {
	t.Parallel()
	for in, bad := range map[string]bool{
		"plain text":                   false,
		`{"a":1}`:                      false,
		`{"a":`:                        true,
		"[1,2":                         true,
		"see ```json\n{\"x\":2}\n```":  false,
		"see ```json\n{x}\n``` done":   true,
		"```json\n{}\n``` ```json\n[":  true,
		"{ not json but prose } maybe": true,
	} {
		assert.Equal(t, bad, build.JSONProblem(in) != "", in)
	}
}

func TestParseIDAndSlug(t *testing.T) {
	t.Parallel()
	id, err := build.ParseID("#12")
	require.NoError(t, err)
	assert.Equal(t, uint64(12), id)
	for _, bad := range []string{"", "0", "-1", "x", "1.5"} {
		_, err := build.ParseID(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, "add-a-health-endpoint", build.Slug("Add a /health endpoint!"))
	assert.Equal(t, "plan", build.Slug("¡¿"))
	assert.Equal(t, "t-001", build.SafeName("t-001"), "plain ids are kept as they are")
	assert.Regexp(t, `^a_b____c~[0-9a-f]{16}$`, build.SafeName("a/b/../c"))
}

// Issue 11: task ids "a/b" and "a_b", ".." and "task", or ids sharing a
// 100-character prefix mapped to the same .nova/output/<build>/*.md.
func TestOutputNamesAreInjectiveAndSafe(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("p", 100)
	ids := []string{"a/b", "a_b", "..", "task", ".", "", long + "1", long + "2", "A", "a", "con", "Con.txt",
		"a b", "a\\b", "a:b", "ü", "u", "x~0123456789abcdef", "t-001", "T-001", "-", "_", "a.", "a"}
	seen := map[string]string{}
	safe := regexp.MustCompile(`^[a-z0-9_\-][a-z0-9._~\-]*$`)
	for _, id := range ids {
		n := build.SafeName(id)
		assert.Regexp(t, safe, n, "%q", id)
		assert.LessOrEqual(t, len(n), 80)
		key := strings.ToLower(n) // case-insensitive file systems
		if prev, dup := seen[key]; dup && prev != id {
			t.Errorf("%q and %q share the file name %q", prev, id, n)
		}
		seen[key] = id
	}
}

func FuzzOutputGate(f *testing.F) {
	for _, s := range []string{"", "{", "```json", "```json\n{}\n```", "[1]", "\xff\xfe", "```json```json```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.TrimSpace(s) == "" {
			return
		}
		_ = build.JSONProblem(strings.TrimSpace(s))
		_, _ = build.ParseID(s)
		n := build.SafeName(s)
		if strings.ContainsAny(n, `/\`) || n == "" || n == "." || n == ".." || strings.HasPrefix(n, ".") {
			t.Fatalf("unsafe name %q from %q", n, s)
		}
		if n != s && !strings.Contains(n, "~") {
			t.Fatalf("a rewritten name without its hash: %q from %q", n, s)
		}
	})
}

var _ = errors.New

func TestYAMLPlanRuns(t *testing.T) {
	t.Parallel()
	doc := `meta:
  name: yaml plan
tasks:
  - id: y-1
    title: first
    description: do the first thing
    agent: MARS
    dependencies: []
    phase: 0
  - id: y-2
    title: second
    agent: venus
    dependencies: [y-1]
    phase: 1
    status: done
`
	p, err := prd.Parse("plan.yaml", []byte(doc))
	require.NoError(t, err)
	h := newHarness(t, harnessOpts{})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, p, "plan.yaml", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, b.Status)
	assert.Equal(t, 1, h.Script.Answers("y-1"))
	assert.Zero(t, h.Script.Answers("y-2"), "a task already done in the PRD is not run")
}

func TestPRDFromPlanMalformed(t *testing.T) {
	t.Parallel()
	known := func(s string) bool { return strings.EqualFold(s, "MARS") }
	for _, raw := range []string{"", "{", `{"tasks":"x"}`, `{"meta":{},"tasks":[]}`,
		`{"meta":{"name":"x"},"tasks":[{"id":"a","title":"t","agent":"ZED","dependencies":[],"phase":0}]}`,
		`{"meta":{"name":"x"},"tasks":[{"id":"a","title":"t","agent":"MARS","dependencies":["a"],"phase":0}]}`} {
		_, err := build.PRDFromPlan([]byte(raw), known)
		require.Error(t, err, raw)
		assert.ErrorIs(t, err, build.ErrPlan)
	}
	p, err := build.PRDFromPlan([]byte(`{"meta":{"name":"x"},"tasks":[{"id":"a","title":"t","description":"d","agent":"MARS","phase":0}]}`), known)
	require.NoError(t, err)
	assert.Equal(t, prd.StatusPending, p.Tasks[0].Status)
	assert.NotEmpty(t, p.Tasks[0].CreatedAt)
	assert.Equal(t, []string{}, p.Tasks[0].Dependencies)
}

func FuzzPRDFromPlan(f *testing.F) {
	f.Add([]byte(`{"meta":{"name":"x"},"tasks":[{"id":"a","title":"t","agent":"MARS","dependencies":[],"phase":0}]}`))
	f.Add([]byte(`{"meta":{"name":"x"},"tasks":[{"id":"a","title":"t","agent":"MARS","dependencies":["b"],"phase":0},{"id":"b","title":"u","agent":"MARS","dependencies":["a"],"phase":0}]}`))
	f.Add([]byte("meta: {name: y}\ntasks: []\n"))
	f.Add([]byte("{\"tasks\":[null]}"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := build.PRDFromPlan(raw, nil)
		if err == nil && prd.Validate(p, nil) != nil {
			t.Fatalf("accepted an invalid plan")
		}
	})
}

func TestCopyWorkspaceIsBoundedAndApplyToConfined(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := t.TempDir()
	for _, p := range []string{"a.go", "sub/b.go", ".nova/nova.db", ".git/HEAD", "sub/.git/x"} {
		require.NoError(t, os.MkdirAll(filepath.Join(src, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(src, p), []byte("x"), 0o644))
	}
	dst := t.TempDir()
	require.NoError(t, build.CopyWorkspace(ctx, src, dst, build.CopyLimit{}))
	assert.FileExists(t, filepath.Join(dst, "sub", "b.go"))
	assert.NoDirExists(t, filepath.Join(dst, ".nova"))
	assert.NoDirExists(t, filepath.Join(dst, ".git"))
	assert.NoDirExists(t, filepath.Join(dst, "sub", ".git"))

	err := build.CopyWorkspace(ctx, src, t.TempDir(), build.CopyLimit{Files: 1})
	assert.ErrorIs(t, err, build.ErrCopyTooLarge)

	err = build.ApplyTo(dst, changes.Changeset{Files: []changes.File{{Path: "../escape.go", Op: changes.OpCreate, Proposed: "x"}}})
	require.Error(t, err)
	assert.NoFileExists(t, filepath.Join(filepath.Dir(dst), "escape.go"))
	require.NoError(t, build.ApplyTo(dst, changes.Changeset{Files: []changes.File{
		{Path: "new/c.go", Op: changes.OpCreate, Proposed: "package c\n"},
		{Path: "a.go", Op: changes.OpDelete},
	}}))
	assert.FileExists(t, filepath.Join(dst, "new", "c.go"))
	assert.NoFileExists(t, filepath.Join(dst, "a.go"))
}

// Issue 11: a kill -9 0.35–0.45 s into a build (inside the first task's
// agent run, after it staged a write) left changeset 1 pending after the
// resume. The resumed task discards what its killed attempt staged.
func TestResumeLeavesNoOrphanChangeset(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.Script.Files["w"] = map[string]string{"pkg/hello.go": "package pkg\n"}
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("w:MARS:0"), "p.json", build.Options{Autonomy: intp(2)})
	require.NoError(t, err)
	// What the killed process left: the task running, and the changeset its
	// agent run staged (linked to the task), never recorded on the task.
	d := h.Changes.NewDraft(changes.Meta{Agent: "MARS", BuildID: strconv.FormatUint(b.ID, 10), TaskID: "w"})
	orphan, err := d.Put(ctx, "pkg/hello.go", []byte("package pkg // half done\n"))
	require.NoError(t, err)
	other := h.Changes.NewDraft(changes.Meta{Agent: "MARS", TaskID: "w"}) // not of this build
	keep, err := other.Put(ctx, "other.go", []byte("package main\n"))
	require.NoError(t, err)
	require.NoError(t, h.Eng.SetTaskStatus(b.ID, "w", build.TaskRunning))

	got, err := h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, got.Status, got.Reason)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	pending, err := h.Changes.List(ctx, changes.Filter{Status: changes.StatusPending})
	require.NoError(t, err)
	var ids []uint64
	for _, cs := range pending {
		ids = append(ids, cs.ID)
	}
	assert.ElementsMatch(t, []uint64{ts[0].ChangesetID, keep}, ids, "only the resumed attempt's changeset waits")
	cs, err := h.Changes.Get(ctx, orphan)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusDiscarded, cs.Status)
}
