package agents_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// A Go module whose test pins Add; sum.go is what the agent writes.
var sumModule = map[string]string{
	"go.mod":      "module example.com/sum\n\ngo 1.22\n",
	"sum.go":      "package sum\n\n// Add is not written yet.\nfunc Add(a, b int) int { panic(\"todo\") }\n",
	"sum_test.go": "package sum\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
}

const (
	wrongSum = "package sum\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a - b }\n"
	rightSum = "package sum\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a + b }\n"
)

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go binary on PATH")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
}

func withChecks(cmds ...string) func(*agents.RunOptions) {
	return func(o *agents.RunOptions) { o.Checks = &cmds }
}

// The issue-25 case: no checks configured, a wrong solution staged with
// writeFile and described in neutral words. Nothing ran it: unverified,
// never passed.
func TestWrongSolutionWithoutChecksIsUnverified(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withFiles(sumModule))
	h.srv.Enqueue(
		tc("writeFile", map[string]any{"path": "sum.go", "content": wrongSum}),
		ollamatest.Text("Implemented Add in sum.go."),
	)
	run := h.run("implement Add in sum.go", spec())

	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, agents.VerdictUnverified, run.Verdict.Status, "%+v", run.Verdict.Checks)
	assert.False(t, run.Verified)
	assert.Nil(t, run.Checked)
	assert.Equal(t, agents.StatusUnverified, agents.DisplayStatus(string(run.Status), len(run.Files), run.Verified))
	assert.Contains(t, strings.Join(run.Verdict.ProblemLines(), "\n"), "nothing executed the changed code")
	assert.Empty(t, h.eventsOf(agents.EventCheck), "no check is configured")
}

// A configured go test catches the wrong solution: its failing output is fed
// back to the model (twice at most), then the run ends with the failed
// verdict.
func TestFailingCheckIsFedBackThenFails(t *testing.T) {
	t.Parallel()
	needGo(t)
	h := newHarness(t, withFiles(sumModule))
	h.srv.Enqueue(
		tc("writeFile", map[string]any{"path": "sum.go", "content": wrongSum}),
		ollamatest.Text("Implemented Add in sum.go."),
		ollamatest.Text("I think Add is right."),
		ollamatest.Text("Add is implemented."),
	)
	run := h.run("implement Add in sum.go", spec(), withChecks("go test ./..."))

	require.Equal(t, agents.RunFailed, run.Status, "a change that fails the checks never ends done")
	require.NotNil(t, run.Outcome.Failure)
	assert.Equal(t, "checks_failed", run.Outcome.Failure.Cause)
	assert.Contains(t, run.Outcome.Failure.Message, "go test ./...")
	assert.Equal(t, agents.VerdictFailed, run.Verdict.Status, "%+v", run.Verdict.Checks)
	assert.False(t, run.Verified)
	var check agents.Check
	for _, c := range run.Verdict.Checks {
		if c.Subject == "check: go test ./..." {
			check = c
		}
	}
	assert.Equal(t, agents.TierExecution, check.Tier)
	assert.Equal(t, agents.VerdictFailed, check.Status)
	assert.Contains(t, check.Output, "Add(2, 3) = -1, want 5", "the check really ran the test")
	require.NotNil(t, run.Checked)
	assert.Equal(t, agents.MaxCheckRounds, run.Checked.Rounds)
	assert.Equal(t, 4, run.Outcome.Meta.Steps, "one write, an answer and two answers after feedback")

	// The failure reached the model as a user message, twice.
	reqs := h.srv.ChatRequests()
	require.Len(t, reqs, 4)
	fed := 0
	for _, m := range reqs[3].Messages {
		if m.Role == "user" && strings.Contains(m.Content, "Add(2, 3) = -1, want 5") {
			fed++
			assert.Contains(t, m.Content, "$ go test ./...")
		}
	}
	assert.Equal(t, 2, fed)
	assert.Len(t, h.eventsOf(agents.EventFeedback), 2)
	running := 0
	for _, ev := range h.eventsOf(agents.EventCheck) {
		if ev.Status == "running" {
			running++
			assert.Equal(t, "running check: go test ./...", ev.Text)
		}
	}
	assert.Equal(t, 1, running, "the same changeset is checked once")
}

// After the feedback the model fixes the code: the check runs again on the
// new changeset and passes; the verdict is passed with an execution check
// that really ran.
func TestCheckFeedbackLeadsToAPassingFix(t *testing.T) {
	t.Parallel()
	needGo(t)
	h := newHarness(t, withFiles(sumModule))
	h.srv.Enqueue(
		tc("writeFile", map[string]any{"path": "sum.go", "content": wrongSum}),
		ollamatest.Text("Implemented Add in sum.go."),
		tc("writeFile", map[string]any{"path": "sum.go", "content": rightSum}),
		ollamatest.Text("Fixed Add in sum.go: it adds now."),
	)
	run := h.run("implement Add in sum.go", spec(), withChecks("go test ./..."))

	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, agents.VerdictPassed, run.Verdict.Status, "%+v", run.Verdict.Checks)
	assert.True(t, run.Verified)
	assert.Equal(t, "done", agents.DisplayStatus(string(run.Status), len(run.Files), run.Verified))
	require.NotNil(t, run.Checked)
	assert.Equal(t, 1, run.Checked.Rounds)
	require.Len(t, run.Checked.Results, 1)
	assert.True(t, run.Checked.Results[0].Passed)
	assert.Contains(t, run.Checked.Results[0].Output, "ok  \texample.com/sum", "go test really ran on the fixed copy")
	var passed []agents.Check
	for _, c := range run.Verdict.Checks {
		if c.Tier == agents.TierExecution && c.Status == agents.VerdictPassed {
			passed = append(passed, c)
		}
	}
	require.Len(t, passed, 1)
	assert.Equal(t, "check: go test ./...", passed[0].Subject)
	assert.Contains(t, passed[0].Output, "example.com/sum")
	_, onDisk := h.file("sum.go")
	assert.True(t, onDisk)
	disk, _ := h.file("sum.go")
	assert.Contains(t, disk, "panic(\"todo\")", "checks run on a copy: the workspace is untouched")
}

// A correct solution on the first answer: one check run, passed.
func TestCorrectSolutionPassesItsCheck(t *testing.T) {
	t.Parallel()
	needGo(t)
	h := newHarness(t, withFiles(sumModule))
	h.runner.Checks = []string{"go vet ./... && go test ./..."}
	h.srv.Enqueue(
		tc("writeFile", map[string]any{"path": "sum.go", "content": rightSum}),
		ollamatest.Text("Implemented Add in sum.go."),
	)
	run := h.run("implement Add in sum.go", spec())

	assert.Equal(t, agents.VerdictPassed, run.Verdict.Status, "%+v", run.Verdict.Checks)
	assert.True(t, run.Verified)
	require.NotNil(t, run.Checked)
	assert.Zero(t, run.Checked.Rounds)
	assert.Contains(t, run.Checked.Results[0].Output, "ok  \texample.com/sum")
	assert.Len(t, h.srv.ChatRequests(), 2, "no feedback round")
}

// A run that staged nothing keeps today's behaviour (a text answer): the
// checks do not run.
func TestTextAnswerRunsNoChecks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withFiles(sumModule))
	h.runner.Checks = []string{"false"}
	h.srv.Enqueue(ollamatest.Text("Add should return a + b."))
	run := h.run("how should Add work?", spec())

	assert.Equal(t, agents.RunDone, run.Status)
	assert.Equal(t, agents.VerdictInconclusive, run.Verdict.Status)
	assert.True(t, run.Verdict.OnlyUnbackedAnswer())
	assert.Nil(t, run.Checked)
	assert.Empty(t, h.eventsOf(agents.EventCheck))
	assert.Equal(t, "done", agents.DisplayStatus(string(run.Status), len(run.Files), run.Verified))
}

// RunOptions.Checks replaces the runner's: an empty list runs none.
func TestRunChecksOverride(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withFiles(sumModule))
	h.runner.Checks = []string{"false"}
	h.srv.Enqueue(
		tc("writeFile", map[string]any{"path": "sum.go", "content": rightSum}),
		ollamatest.Text("Implemented Add in sum.go."),
	)
	run := h.run("implement Add in sum.go", spec(), withChecks())
	assert.Equal(t, agents.VerdictUnverified, run.Verdict.Status)
	assert.Nil(t, run.Checked)
}

// A check whose command is not installed is the machine's problem, not the
// model's: nothing is fed back, the run is done and its change unverified,
// with the reason.
func TestMissingCheckToolLeavesTheChangeUnverified(t *testing.T) {
	t.Parallel()
	needGo(t)
	h := newHarness(t, withFiles(sumModule))
	h.srv.Enqueue(
		tc("writeFile", map[string]any{"path": "sum.go", "content": rightSum}),
		ollamatest.Text("Implemented Add in sum.go."),
	)
	run := h.run("implement Add in sum.go", spec(), withChecks("nova-no-such-check-tool ./..."))

	require.Equal(t, agents.RunDone, run.Status, "%+v", run.Outcome.Failure)
	assert.Equal(t, agents.VerdictUnverified, run.Verdict.Status, "%+v", run.Verdict.Checks)
	assert.False(t, run.Verified)
	assert.Contains(t, strings.Join(run.Verdict.ProblemLines(), "\n"), "command not found (exit status 127)")
	assert.Len(t, h.srv.ChatRequests(), 2, "nothing was sent back to the model")
}
