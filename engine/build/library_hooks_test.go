package build_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/build"
)

type finishRecorder struct {
	mu    sync.Mutex
	seen  []build.Build
	tasks [][]build.Task
}

func (f *finishRecorder) BuildFinished(_ context.Context, b build.Build, ts []build.Task) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, b)
	f.tasks = append(f.tasks, ts)
}

// The finish hook hears of builds that end done or failed, with their
// tasks, after the end state is committed.
func TestFinishHookHearsDoneAndFailedBuilds(t *testing.T) {
	t.Parallel()
	rec := &finishRecorder{}
	h := newHarness(t, harnessOpts{hooks: build.Hooks{Finished: rec}})
	h.Script.Fail["bad"] = 5
	ctx := context.Background()
	ok, err := h.Eng.Create(ctx, plan("a:MARS:0"), "ok.json", build.Options{Autonomy: intp(2)})
	require.NoError(t, err)
	_, err = h.Eng.Run(ctx, ok.ID, nil)
	require.NoError(t, err)
	bad, err := h.Eng.Create(ctx, plan("bad:MARS:0"), "bad.json", build.Options{Autonomy: intp(2)})
	require.NoError(t, err)
	_, err = h.Eng.Run(ctx, bad.ID, nil)
	require.NoError(t, err)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.seen, 2)
	assert.Equal(t, build.StatusDone, rec.seen[0].Status)
	assert.Equal(t, build.StatusFailed, rec.seen[1].Status)
	require.Len(t, rec.tasks[0], 1)
	assert.Equal(t, build.TaskDone, rec.tasks[0][0].Status)
	stored, err := h.Eng.Get(ctx, bad.ID)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, stored.Status, "committed before the hook")
}

// SkipChecks leaves the check gates out (a read-only workflow step).
func TestSkipChecksLeavesTheCheckGatesOut(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/false"); err != nil {
		t.Skip("needs /bin/false")
	}
	h := newHarness(t, harnessOpts{cfg: build.Config{Checks: []string{"false"}, CheckTimeout: 10 * time.Second}})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("look:MARS:0"), "p.json", build.Options{Autonomy: intp(2), SkipChecks: true})
	require.NoError(t, err)
	assert.True(t, b.SkipChecks)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, b.Status, b.Reason)
	ts, err := h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)
	for _, g := range ts[0].Gates {
		assert.False(t, strings.HasPrefix(g.Name, build.GateCheck), g.Name)
	}

	b, err = h.Eng.Create(ctx, plan("look:MARS:0"), "p.json", build.Options{Autonomy: intp(2)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, build.StatusFailed, b.Status, "without SkipChecks the failing check blocks the task")
}
