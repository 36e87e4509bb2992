package run_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/run"
)

func TestClaimIsExclusivePerKey(t *testing.T) {
	t.Parallel()
	r := run.NewRegistry()
	c, err := r.Claim(run.Key{Kind: run.KindBuild, ID: 1})
	require.NoError(t, err)
	_, err = r.Claim(run.Key{Kind: run.KindBuild, ID: 1})
	require.ErrorIs(t, err, run.ErrActive)
	// The same id of another kind is another run.
	g, err := r.Claim(run.Key{Kind: run.KindGoal, ID: 1})
	require.NoError(t, err)
	assert.Equal(t, []uint64{1}, r.Running(run.KindBuild))
	assert.Equal(t, []uint64{1}, r.Running(run.KindGoal))
	r.Release(c)
	r.Release(c) // twice is harmless
	assert.Empty(t, r.Running(run.KindBuild))
	_, err = r.Claim(run.Key{Kind: run.KindBuild, ID: 1})
	require.NoError(t, err)
	r.Release(g)
	<-g.Done()
}

func TestCancelStopsTheRunContext(t *testing.T) {
	t.Parallel()
	r := run.NewRegistry()
	k := run.Key{Kind: run.KindWorkflow, ID: 7}
	require.ErrorIs(t, r.Cancel(k), run.ErrNotActive)
	c, err := r.Claim(k)
	require.NoError(t, err)
	ctx, cancel := c.Context(context.Background())
	defer cancel()
	require.NoError(t, r.Cancel(k))
	<-ctx.Done()
	assert.True(t, c.Canceled())
	r.Release(c)
	require.NoError(t, r.Wait(context.Background(), k))
}

func TestCancelBeforeTheContextExistsStopsItAtOnce(t *testing.T) {
	t.Parallel()
	r := run.NewRegistry()
	k := run.Key{Kind: run.KindChat, ID: 3}
	c, err := r.Claim(k)
	require.NoError(t, err)
	require.NoError(t, r.Cancel(k))
	ctx, cancel := c.Context(context.Background())
	defer cancel()
	<-ctx.Done()
	r.Release(c)
}

func TestPauseWakesAndAnswerIsDelivered(t *testing.T) {
	t.Parallel()
	r := run.NewRegistry()
	k := run.Key{Kind: run.KindBuild, ID: 2}
	c, err := r.Claim(k)
	require.NoError(t, err)
	got := make(chan run.Answer, 1)
	go func() {
		<-c.Wake()
		got <- <-c.Answers()
	}()
	require.NoError(t, r.Pause(k))
	assert.True(t, c.Paused())
	require.NoError(t, r.Answer(context.Background(), k, run.Answer{Task: "t1", Text: "yes"}))
	assert.Equal(t, run.Answer{Task: "t1", Text: "yes"}, <-got)
	r.Release(c)
	require.ErrorIs(t, r.Answer(context.Background(), k, run.Answer{}), run.ErrNotActive)
}

func TestShutdownInterruptsOnlyTheGivenKinds(t *testing.T) {
	t.Parallel()
	r := run.NewRegistry()
	b, err := r.Claim(run.Key{Kind: run.KindBuild, ID: 1})
	require.NoError(t, err)
	g, err := r.Claim(run.Key{Kind: run.KindGoal, ID: 1})
	require.NoError(t, err)
	bctx, bcancel := b.Context(context.Background())
	defer bcancel()
	go func() { <-bctx.Done(); r.Release(b) }()
	require.NoError(t, r.Shutdown(context.Background(), run.KindBuild))
	assert.False(t, b.Canceled(), "a shutdown interrupts, it does not cancel")
	assert.Equal(t, []uint64{1}, r.Running(run.KindGoal))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, r.Shutdown(ctx), context.Canceled)
	r.Release(g)
}

func TestStatusMachine(t *testing.T) {
	t.Parallel()
	for _, s := range []run.Status{run.Pending, run.Running, run.Waiting, run.Paused, run.Canceled, run.Interrupted, run.Done, run.Failed} {
		assert.True(t, s.Valid(), s)
		assert.False(t, s.Finished() && s.Resumable(), s)
	}
	assert.False(t, run.Status("nope").Valid())
	assert.Equal(t, run.Interrupted, run.Running.OnOpen())
	assert.Equal(t, run.Interrupted, run.Waiting.OnOpen())
	assert.Equal(t, run.Paused, run.Paused.OnOpen())
	assert.True(t, run.Done.Finished())
}

func TestShutdownBeforeTheContextExistsStopsItAtOnce(t *testing.T) {
	t.Parallel()
	r := run.NewRegistry()
	k := run.Key{Kind: run.KindWorkflow, ID: 4}
	c, err := r.Claim(k)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Shutdown gives up waiting (ctx), but the run is told to stop.
	require.ErrorIs(t, r.Shutdown(ctx, run.KindWorkflow), context.Canceled)
	rctx, rcancel := c.Context(context.Background())
	defer rcancel()
	<-rctx.Done()
	assert.False(t, c.Canceled(), "interrupted, not canceled")
	r.Release(c)
}

func TestWakeReportsWhetherTheRunIsActive(t *testing.T) {
	t.Parallel()
	r := run.NewRegistry()
	k := run.Key{Kind: run.KindBuild, ID: 9}
	assert.False(t, r.Wake(k))
	c, err := r.Claim(k)
	require.NoError(t, err)
	assert.True(t, r.Wake(k))
	<-c.Wake()
	r.Release(c)
}

func TestRunningIsAnEmptyListWhenNothingRuns(t *testing.T) {
	t.Parallel()
	ids := run.NewRegistry().Running(run.KindGoal)
	require.NotNil(t, ids)
	assert.Empty(t, ids)
}
