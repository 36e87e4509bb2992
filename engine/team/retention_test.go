package team

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// purgeStream drops every record the stream holds now, as retention does
// with records past their age or the stream's bytes.
func purgeStream(t *testing.T, c Config) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	js := jsOf(ctx, t, c, "retention")
	s, err := js.Stream(ctx, c.StreamName())
	require.NoError(t, err)
	require.NoError(t, s.Purge(ctx))
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.Zero(t, info.State.Msgs)
	return info.State.LastSeq
}

func streamConfig(t *testing.T, c Config) jetstream.StreamConfig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	js := jsOf(ctx, t, c, "retention")
	s, err := js.Stream(ctx, c.StreamName())
	require.NoError(t, err)
	info, err := s.Info(ctx)
	require.NoError(t, err)
	return info.Config
}

// The stream is made with the configured retention (defaults otherwise),
// and the hub's admin can change it.
func TestTheStreamHasARetentionPolicy(t *testing.T) {
	t.Parallel()
	hub := startTestHub(t, t.TempDir(), 0)
	c := Config{URL: hub.URL, Name: "ret"}
	m := startMember(t, newStore(t, nil), c)
	_, err := m.store.AddFact(context.Background(), FactBody{Content: "made the stream"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return m.syncer.Status().Published == 1 }, 10*time.Second, 10*time.Millisecond)
	got := streamConfig(t, c)
	assert.Equal(t, DefaultMaxAge, got.MaxAge)
	assert.Equal(t, DefaultMaxBytes, got.MaxBytes)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	js := jsOf(ctx, t, c, "admin")
	c.MaxAge, c.MaxBytes = 7*24*time.Hour, 64<<20
	_, err = SetRetention(ctx, js, c)
	require.NoError(t, err)
	got = streamConfig(t, c)
	assert.Equal(t, 7*24*time.Hour, got.MaxAge)
	assert.Equal(t, int64(64<<20), got.MaxBytes)

	other := Config{URL: hub.URL, Name: "ret2", MaxAge: 48 * time.Hour, MaxBytes: 8 << 20}
	_, err = EnsureStream(ctx, js, other)
	require.NoError(t, err)
	got = streamConfig(t, other)
	assert.Equal(t, 48*time.Hour, got.MaxAge, "a workspace's team.retention applies when it makes the stream")
}

// A workspace whose position fell behind what the stream keeps (offline
// longer than retention), and one that joins after records were dropped,
// read the team's snapshot again: every workspace ends with the same
// records, none lost, none doubled.
func TestAWorkspaceBehindRetentionResyncsFromTheSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, admin := testTeam(t, "behind")
	a, b, late := newStore(t, nil), newStore(t, nil), newStore(t, nil)
	addMembers(t, c, admin, a, b, late)
	ma, mb := startMember(t, a, c), startMember(t, b, c)
	membersKnown(t, 3, ma, mb)
	p := WisdomBody{Type: "Pattern", Content: "Retry idempotent calls only", Confidence: 0.9}
	_, err := a.BackPattern(ctx, p, false)
	require.NoError(t, err)
	_, err = b.BackPattern(ctx, p, false)
	require.NoError(t, err)
	converged(t, 2, 15*time.Second, ma, mb)

	// b goes offline; a goes on; then everything the stream holds is
	// dropped (past retention) before b comes back.
	mb.stop()
	for i := range 5 {
		_, err := a.AddFact(ctx, FactBody{Content: fmt.Sprintf("fact %d written while b was away", i)})
		require.NoError(t, err)
	}
	subj, err := a.ShareRule(ctx, "", RuleBody{Agent: "MARS", Text: "Run vet"})
	require.NoError(t, err)
	_, err = a.ShareRule(ctx, subj, RuleBody{Agent: "MARS", Text: "Run vet and staticcheck"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := a.LocalStatus(ctx)
		return err == nil && st.Outbox == 0
	}, 10*time.Second, 10*time.Millisecond)
	last := purgeStream(t, c)
	require.Positive(t, last)
	_, err = a.AddFact(ctx, FactBody{Content: "written after the purge"})
	require.NoError(t, err)

	mb = startMember(t, b, c)
	ml := startMember(t, late, c)
	converged(t, 10, 20*time.Second, ma, mb, ml)
	for name, m := range map[string]*member{"b (offline too long)": mb, "late joiner": ml} {
		assert.Equal(t, 1, m.syncer.Status().Resyncs, name)
		assert.Zero(t, m.syncer.Status().Lost, name)
		v, err := m.store.Views(ctx)
		require.NoError(t, err)
		assert.Len(t, v.Facts, 6, name)
		assert.Len(t, v.Rules[subj], 2, "%s: both versions of the rule", name)
	}
	// The record written after the purge came from the snapshot too; the
	// stream's copy of it (a duplicate) moves the position on.
	assert.Eventually(t, func() bool {
		pos, _, err := late.StreamMark()
		return err == nil && pos == last+1
	}, 10*time.Second, 10*time.Millisecond, "the position went on from the stream's first record")
}

// Without a snapshot (a team made before there was one) the records the
// stream dropped are counted as lost and said so, never skipped silently.
func TestWithoutASnapshotDroppedRecordsAreCountedLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, admin := testTeam(t, "nosnap")
	a, late := newStore(t, nil), newStore(t, nil)
	addMembers(t, c, admin, a, late)
	ma := startMember(t, a, c)
	for i := range 3 {
		_, err := a.AddFact(ctx, FactBody{Content: fmt.Sprintf("old fact %d", i)})
		require.NoError(t, err)
	}
	converged(t, 3, 10*time.Second, ma)
	ma.stop()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	js := jsOf(cctx, t, c, "admin")
	require.NoError(t, js.DeleteKeyValue(cctx, c.SnapshotBucket()))
	last := purgeStream(t, c)

	ml := startMember(t, late, c)
	require.Eventually(t, func() bool { return ml.syncer.Status().Lost == last }, 10*time.Second, 10*time.Millisecond,
		"the dropped records are counted")
	pos, _, err := late.StreamMark()
	require.NoError(t, err)
	assert.Equal(t, last, pos)
}

// A snapshot made after the team's records (a team from before snapshots,
// or a snapshot deleted by hand) is filled from the workspaces' records, so
// that a later resync finds them.
func TestTheSnapshotIsFilledFromTheWorkspaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, admin := testTeam(t, "fill")
	a, late := newStore(t, nil), newStore(t, nil)
	addMembers(t, c, admin, a, late)
	ma := startMember(t, a, c)
	for i := range 4 {
		_, err := a.AddFact(ctx, FactBody{Content: fmt.Sprintf("fact %d", i)})
		require.NoError(t, err)
	}
	converged(t, 4, 10*time.Second, ma)
	ma.stop()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	js := jsOf(cctx, t, c, "admin")
	require.NoError(t, js.DeleteKeyValue(cctx, c.SnapshotBucket()))
	purgeStream(t, c)

	ma = startMember(t, a, c) // a's sync makes the snapshot again and fills it
	require.Eventually(t, func() bool {
		kv, err := js.KeyValue(cctx, c.SnapshotBucket())
		if err != nil {
			return false
		}
		st, err := kv.Status(cctx)
		return err == nil && st.Values() == 4
	}, 10*time.Second, 20*time.Millisecond)
	ml := startMember(t, late, c)
	converged(t, 4, 10*time.Second, ma, ml)
	assert.Equal(t, 1, ml.syncer.Status().Resyncs)
}
