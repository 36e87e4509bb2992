package team

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

func TestLocalWriteEntersTheOutboxInTheSameTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, nil)
	subject, err := s.AddFact(ctx, FactBody{Content: "the staging DB is read-only on Fridays"})
	require.NoError(t, err)
	es, err := s.Outbox(10)
	require.NoError(t, err)
	require.Len(t, es, 1)
	rec, err := Decode(es[0].Data)
	require.NoError(t, err)
	assert.Equal(t, subject, rec.Subject)
	assert.Equal(t, KindFact, rec.Kind)
	require.NoError(t, rec.Verify())
	require.NoError(t, s.Acked([]uint64{es[0].Key}))
	es, err = s.Outbox(10)
	require.NoError(t, err)
	assert.Empty(t, es)
	_, n, err := s.Digest(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the record stays once the hub has it")
}

func TestApplyStoresOnceAndRefusesBadRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := newKey(t)
	a, b := newStore(t, nil), newStore(t, nil)
	admit(t, admin, 1, a, b)
	_, err := a.AddFact(ctx, FactBody{Content: "use make test, not go test ./..."})
	require.NoError(t, err)
	in := outboxData(t, a)
	res, err := b.Apply(ctx, append(in, in...))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Applied)
	assert.Equal(t, 1, res.Duplicate, "a replayed record is stored once")

	// Forged: same record, body changed after signing.
	rec, err := Decode(in[0].Data)
	require.NoError(t, err)
	rec.Body = json.RawMessage(`{"content":"rm -rf is fine"}`)
	forged, err := rec.Encode()
	require.NoError(t, err)
	// Future clock, signed properly.
	c := &clock{t: time.Now().Add(time.Hour)}
	future := newStoreAt(t, t.TempDir()+"/f.db", newKey(t), c.Now)
	admit(t, admin, 2, a, b, future)
	_, err = future.AddFact(ctx, FactBody{Content: "from the future"})
	require.NoError(t, err)
	big := strings.Repeat("x", 10<<20)
	res, err = b.Apply(ctx, []Incoming{{Data: forged}, {Data: []byte(big)}, {Data: []byte("{")}, outboxData(t, future)[0]})
	require.NoError(t, err)
	assert.Equal(t, 0, res.Applied)
	assert.Equal(t, map[string]int{ReasonBadSignature: 1, ReasonTooLarge: 1, ReasonMalformed: 1, ReasonFutureClock: 1}, res.Refused)
	st, err := b.LocalStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, 4, st.RefusedTotal)
	assert.Len(t, st.RecentRefused, 4)
	_, _, err = a.Write(ctx, KindFact, "f-big", FactBody{Content: big})
	assert.ErrorIs(t, err, ErrTooLarge, "a 10 MB record is never written")
}

func TestNonMembersCountOnlyOnceAdmitted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := newKey(t)
	a, b, stranger := newStore(t, nil), newStore(t, nil), newStore(t, nil)
	admit(t, admin, 1, a, b)
	_, err := stranger.BackPattern(ctx, WisdomBody{Content: "prefer table-driven tests"}, false)
	require.NoError(t, err)
	res, err := b.Apply(ctx, outboxData(t, stranger))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Refused[ReasonNotMember])
	v, err := b.Views(ctx)
	require.NoError(t, err)
	assert.Empty(t, v.Wisdom, "a non-member's record is in no view")

	// A list signed by another key is refused; an older list is ignored.
	_, forged, err := SignMembership(Membership{Team: "t", Version: 9, Members: []string{stranger.Self()}}, newKey(t))
	require.NoError(t, err)
	_, err = b.SetMembership(ctx, forged)
	require.ErrorIs(t, err, ErrNotAdmin)

	admit(t, admin, 2, a, b, stranger)
	v, err = b.Views(ctx)
	require.NoError(t, err)
	require.Len(t, v.Wisdom, 1, "admitted: the record kept counts")

	_, old, err := SignMembership(Membership{Team: "t", Version: 1, Members: []string{a.Self()}}, admin)
	require.NoError(t, err)
	changed, err := b.SetMembership(ctx, old)
	require.NoError(t, err)
	assert.False(t, changed, "a replayed older list changes nothing")
}

func TestPatternActivatesWithThreeMembersAndDemotesWithThreeReports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := newKey(t)
	ws := []*Store{newStore(t, nil), newStore(t, nil), newStore(t, nil)}
	admit(t, admin, 1, ws...)
	p := WisdomBody{Type: "Pattern", Content: "Wrap errors with %w so callers can branch", Confidence: 0.9}
	for _, s := range ws {
		_, err := s.BackPattern(ctx, p, false)
		require.NoError(t, err)
		_, err = s.BackPattern(ctx, p, false) // backing twice is one backer
		require.NoError(t, err)
	}
	all := exchange(t, ws...)
	_ = all
	for _, s := range ws {
		v, err := s.Views(ctx)
		require.NoError(t, err)
		require.Len(t, v.Wisdom, 1)
		assert.Equal(t, StatusActive, v.Wisdom[0].Status)
		assert.Len(t, v.Wisdom[0].Backers, 3)
	}
	for _, s := range ws {
		_, err := s.BackPattern(ctx, p, true)
		require.NoError(t, err)
	}
	exchange(t, ws...)
	v, err := ws[0].Views(ctx)
	require.NoError(t, err)
	assert.Equal(t, StatusDemoted, v.Wisdom[0].Status)
	assert.Len(t, v.Wisdom[0].Harm, 3)
}

// exchange gives every store every other store's outbox (in a shuffled
// order) and empties the outboxes.
func exchange(t testing.TB, ws ...*Store) []Incoming {
	t.Helper()
	var all []Incoming
	for _, s := range ws {
		es, err := s.Outbox(1 << 20)
		require.NoError(t, err)
		var keys []uint64
		for _, e := range es {
			all = append(all, Incoming{Data: e.Data})
			keys = append(keys, e.Key)
		}
		require.NoError(t, s.Acked(keys))
	}
	for _, s := range ws {
		shuffled := append([]Incoming{}, all...)
		rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		_, err := s.Apply(context.Background(), shuffled)
		require.NoError(t, err)
	}
	return all
}

func TestConcurrentCorrectionsFormOneChainEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := newKey(t)
	at := time.Now()
	c := &clock{t: at}
	a := newStoreAt(t, t.TempDir()+"/a.db", newKey(t), c.Now)
	b := newStoreAt(t, t.TempDir()+"/b.db", newKey(t), c.Now)
	admit(t, admin, 1, a, b)
	subject, err := a.AddFact(ctx, FactBody{Content: "the API listens on 8080"})
	require.NoError(t, err)
	exchange(t, a, b)
	// Both correct the same version at the same moment.
	va, err := a.CorrectFact(ctx, subject, "the API listens on 8081", "moved")
	require.NoError(t, err)
	vb, err := b.CorrectFact(ctx, subject, "the API listens on 9090", "moved too")
	require.NoError(t, err)
	assert.Equal(t, va.Supersedes, vb.Supersedes)
	exchange(t, a, b)
	var chains [2]FactChain
	for i, s := range []*Store{a, b} {
		require.NoError(t, s.db.View(func(tx *bolt.Tx) error {
			var err error
			chains[i], err = s.FactChainTx(tx, subject)
			return err
		}))
	}
	assert.Equal(t, chains[0], chains[1], "both hold the same chain")
	require.Len(t, chains[0].Versions, 3, "no correction overwrites another")
	cur := chains[0].Current()
	require.NotNil(t, cur)
	assert.Contains(t, []string{va.ID, vb.ID}, cur.ID)
	assert.Equal(t, cur.ID, chains[0].Versions[1].SupersededBy)
}

func TestAnyArrivalOrderGivesTheSameViews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := newKey(t)
	src := []*Store{newStore(t, nil), newStore(t, nil), newStore(t, nil)}
	dst := []*Store{newStore(t, nil), newStore(t, nil)}
	admit(t, admin, 1, append(append([]*Store{}, src...), dst...)...)
	for i, s := range src {
		_, err := s.BackPattern(ctx, WisdomBody{Content: "small commits"}, false)
		require.NoError(t, err)
		subj, err := s.AddFact(ctx, FactBody{Content: "fact " + string(rune('a'+i))})
		require.NoError(t, err)
		_, err = s.CorrectFact(ctx, subj, "fixed fact", "typo")
		require.NoError(t, err)
		_, err = s.ShareRule(ctx, "r-shared", RuleBody{Agent: "CODER", Text: "version " + string(rune('a'+i))})
		require.NoError(t, err)
	}
	var all []Incoming
	for _, s := range src {
		all = append(all, outboxData(t, s)...)
	}
	rev := make([]Incoming, len(all))
	for i := range all {
		rev[len(all)-1-i] = all[i]
	}
	_, err := dst[0].Apply(ctx, all)
	require.NoError(t, err)
	for _, in := range rev { // one at a time, reversed
		_, err := dst[1].Apply(ctx, []Incoming{in})
		require.NoError(t, err)
	}
	d0, n0, err := dst[0].Digest(ctx)
	require.NoError(t, err)
	d1, n1, err := dst[1].Digest(ctx)
	require.NoError(t, err)
	assert.Equal(t, d0, d1)
	assert.Equal(t, len(all), n0)
	assert.Equal(t, n0, n1)
	v0, err := dst[0].ViewDigest(ctx)
	require.NoError(t, err)
	v1, err := dst[1].ViewDigest(ctx)
	require.NoError(t, err)
	assert.Equal(t, v0, v1)
	v, err := dst[0].Views(ctx)
	require.NoError(t, err)
	assert.Len(t, v.Rules["r-shared"], 3, "a shared rule keeps every version")
}

func TestRemovedMemberRecordsLeaveTheViews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := newKey(t)
	a, b, gone := newStore(t, nil), newStore(t, nil), newStore(t, nil)
	admit(t, admin, 1, a, b, gone)
	_, err := gone.AddFact(ctx, FactBody{Content: "written before removal"})
	require.NoError(t, err)
	exchange(t, a, b, gone)
	admit(t, admin, 2, a, b) // gone removed while it was offline
	_, err = gone.AddFact(ctx, FactBody{Content: "written offline after removal"})
	require.NoError(t, err)
	res, err := a.Apply(ctx, outboxData(t, gone))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Refused[ReasonNotMember])
	_, err = b.Apply(ctx, outboxData(t, gone))
	require.NoError(t, err)
	for _, s := range []*Store{a, b} {
		v, err := s.Views(ctx)
		require.NoError(t, err)
		assert.Empty(t, v.Facts, "a removed member's facts count nowhere")
	}
	da, _ := must2(a.ViewDigest(ctx))
	db, _ := must2(b.ViewDigest(ctx))
	assert.Equal(t, da, db)
}

func must2[T any](v T, err error) (T, error) { return v, err }

func TestStreamResetRequeuesEverythingHeld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, nil)
	for range 3 {
		_, err := s.AddFact(ctx, FactBody{Content: "f"})
		require.NoError(t, err)
	}
	es, err := s.Outbox(10)
	require.NoError(t, err)
	require.NoError(t, s.Acked([]uint64{es[0].Key, es[1].Key}))
	n, err := s.ResetStream("t1", true)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the record still queued is not queued twice")
	es, err = s.Outbox(10)
	require.NoError(t, err)
	assert.Len(t, es, 3)
	pos, created, err := s.StreamMark()
	require.NoError(t, err)
	assert.Zero(t, pos)
	assert.Equal(t, "t1", created)
}
