package engine_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
)

// Issue 32: a goal run's build (stopped before its first delegation, it
// stays "paused 0/0") is not counted as a build of its own on Home.
func TestSummaryCountsOnlyPlanBuilds(t *testing.T) {
	t.Parallel()
	ws, _, root := openWithFake(t, "")
	ctx := t.Context()
	r, err := ws.CreateGoalRun(ctx, "add a health check endpoint", engine.GoalRunOptions{})
	require.NoError(t, err)
	require.NotZero(t, r.BuildID)
	s, err := ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, s.Builds, "the goal run's build is the goal run")

	_, err = ws.CreateBuild(ctx, filepath.Join(root, ".nova", "prds", "prd-health-endpoint.json"), engine.BuildOptions{})
	require.NoError(t, err)
	s, err = ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Builds)
}
