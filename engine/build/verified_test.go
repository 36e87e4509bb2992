package build_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/failure"
)

const (
	addTest  = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n"
	addRight = "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n"
	addWrong = "package calc\n\n// Add returns the sum.\nfunc Add(a, b int) int { return a * b }\n"
)

func needGoAndShell(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"go", "sh"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skip("needs " + bin)
		}
	}
}

func checkGates(ts build.Task) []build.GateResult {
	var out []build.GateResult
	for _, g := range ts.Gates {
		if strings.HasPrefix(g.Name, build.GateCheck) {
			out = append(out, g)
		}
	}
	return out
}

// With a go test check: the correct solution is done and Verified, its
// check gate reuses the run's own check (the command ran once); the wrong
// one is fed back by the run, fails its verdict and is blocked, never done.
func TestGoTestCheckVerifiesTasks(t *testing.T) {
	t.Parallel()
	needGoAndShell(t)
	counter := filepath.Join(t.TempDir(), "runs")
	check := "go test ./... && echo ran >> " + counter
	h := newHarness(t, harnessOpts{cfg: build.Config{Checks: []string{check}}})
	h.Script.Files["good"] = map[string]string{"calc/add.go": addRight, "calc/add_test.go": addTest}
	h.Script.Files["bad"] = map[string]string{"calc/add.go": addWrong, "calc/add_test.go": addTest}
	ctx := context.Background()

	b, err := h.Eng.Create(ctx, plan("good:MARS:0"), "p.json", build.Options{Autonomy: intp(3)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	ts, err := h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)
	good := ts[0]
	assert.True(t, good.Verified)
	require.NotNil(t, good.Verdict)
	assert.Equal(t, agents.VerdictPassed, good.Verdict.Status)
	gs := checkGates(good)
	require.Len(t, gs, 1)
	assert.True(t, gs[0].Passed)
	assert.Contains(t, gs[0].Output, "ok  \texample.com/app/calc", "go test really ran")
	assert.Contains(t, gs[0].Detail, "run by the agent", "the gate reused the run's check")
	runs, err := os.ReadFile(counter)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(runs), "ran"), "the check ran once for run and gate together")
	assert.True(t, good.Applied, "verified work is applied at autonomy 3")
	assert.Equal(t, "done", agents.DisplayStatus(string(good.Status), 2, good.Verified))

	b, err = h.Eng.Create(ctx, plan("bad:MARS:0"), "p.json", build.Options{Autonomy: intp(3)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status)
	ts, err = h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)
	bad := ts[0]
	assert.Equal(t, build.TaskBlocked, bad.Status)
	assert.False(t, bad.Verified)
	assert.False(t, bad.Applied)
	require.NotNil(t, bad.Verdict)
	assert.Equal(t, agents.VerdictFailed, bad.Verdict.Status)
	assert.Contains(t, bad.Reason, "Add(2, 3) = 6, want 5")
	// Each attempt: one answer and two answers after the check's feedback.
	require.NotEmpty(t, h.Script.Prompts["bad"])
	assert.Contains(t, h.Script.Prompts["bad"][1], "Add(2, 3) = 6, want 5", "the failing output was fed back to the model")
}

// Issue 25: no checks, a staged change nothing executed. The task is done
// but not Verified, and autonomy 3 does not apply it.
func TestAutonomyNeverAppliesUnverifiedWork(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.Script.Files["w"] = map[string]string{"pkg/hello.go": "package pkg\n"}
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("w:MARS:0"), "p.json", build.Options{Autonomy: intp(3)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	w := ts[0]
	assert.Equal(t, build.TaskDone, w.Status)
	assert.False(t, w.Verified)
	assert.Equal(t, agents.StatusUnverified, agents.DisplayStatus(string(w.Status), 1, w.Verified))
	assert.False(t, w.Applied)
	assert.Contains(t, w.ApplyError, "unverified")
	cs, err := h.Changes.Get(ctx, w.ChangesetID)
	require.NoError(t, err)
	assert.Equal(t, changes.StatusPending, cs.Status, "the change waits for the user")
	_, statErr := os.Stat(filepath.Join(h.Root, "pkg", "hello.go"))
	assert.ErrorIs(t, statErr, os.ErrNotExist)
}

// verify.inconclusive: fail is strict: a change nothing executed blocks
// the task at once.
func TestUnverifiedBlocksUnderInconclusiveFail(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{cfg: build.Config{Inconclusive: build.InconclusiveFail}})
	h.Script.Files["w"] = map[string]string{"pkg/hello.go": "package pkg\n"}
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("w:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	assert.Equal(t, build.TaskBlocked, ts[0].Status)
	assert.Equal(t, 1, ts[0].Attempts, "no retry")
	assert.Contains(t, ts[0].Reason, "nothing executed the changed code")
}

// A PRD task's own checks replace the workspace's: [] runs none, a list
// runs that list.
func TestTaskChecksReplaceTheWorkspaces(t *testing.T) {
	t.Parallel()
	needGoAndShell(t)
	h := newHarness(t, harnessOpts{cfg: build.Config{Checks: []string{"false"}}})
	h.Script.Files["own"] = map[string]string{"pkg/hello.go": "package pkg\n"}
	h.Script.Files["none"] = map[string]string{"pkg/other.go": "package pkg\n"}
	p := plan("own:MARS:0", "none:MARS:0")
	p.Tasks[0].Checks = []string{"test -f pkg/hello.go && echo own-check"}
	p.Tasks[1].Checks = []string{}
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, p, "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	ts, _ := h.Eng.Tasks(ctx, b.ID)
	own, none := taskByID(t, ts, "own"), taskByID(t, ts, "none")
	assert.Equal(t, []string{"test -f pkg/hello.go && echo own-check"}, own.Checks)
	assert.True(t, own.Verified)
	gs := checkGates(own)
	require.Len(t, gs, 1)
	assert.Equal(t, "check: test -f pkg/hello.go && echo own-check", gs[0].Name)
	assert.Contains(t, gs[0].Output, "own-check")
	assert.Equal(t, build.TaskDone, none.Status)
	assert.Empty(t, checkGates(none), "an empty list runs no check")
	assert.False(t, none.Verified)
}

// A check whose command is not installed fails the gate as misconfigured,
// never as a mistake of the work (nothing is learned from it).
func TestMissingCheckToolIsMisconfiguredNotAMistake(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{cfg: build.Config{Checks: []string{"nova-no-such-check-tool ./..."}, CheckTimeout: 20 * time.Second}})
	h.Script.Files["w"] = map[string]string{"pkg/hello.go": "package pkg\n"}
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("w:MARS:0"), "p.json", build.Options{Autonomy: intp(2)})
	require.NoError(t, err)
	_, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	ts, err := h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)
	require.NotEmpty(t, ts[0].History)
	att := ts[0].History[0]
	assert.False(t, att.Passed)
	assert.Equal(t, failure.Misconfigured, att.Kind, "%s", att.Reason)
	assert.Contains(t, att.Reason, "command not found (exit status 127)")
	assert.False(t, att.Kind.Learnable())
}
