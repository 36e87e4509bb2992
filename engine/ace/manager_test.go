package ace_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/storage"
)

func TestPlaybookCRUDVersionsAndHistory(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := e.m

	p, err := m.GetPlaybook(ctx(), "mars")
	require.NoError(t, err)
	assert.Equal(t, "MARS", p.Agent)
	assert.Equal(t, 0, p.Version)
	assert.Empty(t, p.Rules)

	r1 := addRule(t, m, "mars", "Run go vet before declaring a task done", 0.9, "go", "Go")
	assert.Equal(t, "r1", r1.ID)
	assert.Equal(t, ace.SourceManual, r1.Source)
	assert.Equal(t, []string{"go"}, r1.Tags, "tags are cleaned and deduplicated")
	r2 := addRule(t, m, "MARS", "Prefer table-driven tests", 0, "test")
	assert.Equal(t, "r2", r2.ID)
	assert.InDelta(t, ace.DefaultConfidence, r2.Confidence, 1e-9)

	edited, err := m.EditRule(ctx(), "mars", "r2", "Prefer table-driven tests with t.Run", nil, 0.75)
	require.NoError(t, err)
	assert.Equal(t, "Prefer table-driven tests with t.Run", edited.Content)
	assert.Equal(t, []string{"test"}, edited.Tags, "nil tags keep the old ones")
	assert.InDelta(t, 0.75, edited.Confidence, 1e-9)

	require.NoError(t, m.DeleteRule(ctx(), "mars", "r1"))
	assert.ErrorIs(t, m.DeleteRule(ctx(), "mars", "r1"), ace.ErrNotFound)
	_, err = m.EditRule(ctx(), "mars", "r9", "x", nil, 0)
	assert.ErrorIs(t, err, ace.ErrNotFound)

	p, err = m.GetPlaybook(ctx(), "mars")
	require.NoError(t, err)
	assert.Equal(t, 4, p.Version, "add, add, edit, delete; failed deltas do not bump")
	require.Len(t, p.Rules, 1)
	assert.Equal(t, "r2", p.Rules[0].ID)

	// A new rule never reuses a deleted id.
	r3 := addRule(t, m, "mars", "Keep functions short", 0.7)
	assert.Equal(t, "r3", r3.ID)

	hist, err := m.History(ctx(), "mars")
	require.NoError(t, err)
	require.Len(t, hist, 5)
	assert.Equal(t, 5, hist[0].Version, "newest first")
	assert.Equal(t, 1, hist[4].Version)
	upd := hist[2]
	require.Len(t, upd.Changes, 1)
	assert.Equal(t, ace.OpUpdate, upd.Changes[0].Op)
	require.NotNil(t, upd.Changes[0].Before)
	require.NotNil(t, upd.Changes[0].After)
	assert.Equal(t, "Prefer table-driven tests", upd.Changes[0].Before.Content)
	assert.Equal(t, "Prefer table-driven tests with t.Run", upd.Changes[0].After.Content)
	del := hist[1]
	assert.Equal(t, ace.OpRemove, del.Changes[0].Op)
	assert.Nil(t, del.Changes[0].After)
	assert.Equal(t, "r1", del.Changes[0].Before.ID)
	assert.Equal(t, "manual", del.Origin)

	list, err := m.List(ctx())
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, ace.Summary{Agent: "MARS", Version: 5, Rules: 2, UpdatedAt: list[0].UpdatedAt}, list[0])

	// Other agents' history is separate.
	addRule(t, m, "MARSH", "Unrelated", 0.7)
	hist, err = m.History(ctx(), "mars")
	require.NoError(t, err)
	assert.Len(t, hist, 5)
}

func TestUpdatePlaybookRejectsBadDeltasAtomically(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	addRule(t, e.m, "venus", "Use semantic HTML", 0.8)
	cases := []ace.Delta{
		{Op: "rewrite", Content: "x", Confidence: 0.5},
		{Op: ace.OpAdd, Content: "   ", Confidence: 0.5},
		{Op: ace.OpAdd, Content: "ok", Confidence: 1.5},
		{Op: ace.OpUpdate, Content: "x", Confidence: 0.5},
	}
	for _, d := range cases {
		_, _, err := e.m.UpdatePlaybook(ctx(), "venus", []ace.Delta{{Op: ace.OpAdd, Content: "fine", Confidence: 0.6}, d}, "test")
		assert.ErrorIs(t, err, ace.ErrInvalid, "%+v", d)
	}
	_, _, err := e.m.UpdatePlaybook(ctx(), "venus", []ace.Delta{{Op: ace.OpAdd, Content: "fine", Confidence: 0.6}, {Op: ace.OpRemove, RuleID: "r42"}}, "test")
	assert.ErrorIs(t, err, ace.ErrNotFound)
	p, err := e.m.GetPlaybook(ctx(), "venus")
	require.NoError(t, err)
	assert.Equal(t, 1, p.Version, "nothing of a failed update is kept")
	assert.Len(t, p.Rules, 1)
	_, err = e.m.GetPlaybook(ctx(), "")
	assert.ErrorIs(t, err, ace.ErrInvalid)
}

func TestCountersDoNotBumpVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := addRule(t, e.m, "earth", "Check nil maps", 0.8)
	require.NoError(t, e.m.IncrementApplied(ctx(), "earth", []string{r.ID, "nope"}))
	require.NoError(t, e.m.IncrementApplied(ctx(), "earth", []string{r.ID}))
	require.NoError(t, e.m.RecordSuccess(ctx(), "earth", []string{r.ID}))
	require.NoError(t, e.m.RecordTaskApplied(ctx(), "earth", []string{r.ID}, true))
	require.NoError(t, e.m.RecordTaskApplied(ctx(), "earth", []string{r.ID}, false))
	require.NoError(t, e.m.RecordHarm(ctx(), "earth", []string{r.ID}))
	p, err := e.m.GetPlaybook(ctx(), "earth")
	require.NoError(t, err)
	assert.Equal(t, 1, p.Version)
	got, _ := p.Rule(r.ID)
	assert.Equal(t, 2, got.AppliedCount)
	assert.Equal(t, 2, got.SuccessCount)
	assert.Equal(t, 2, got.HelpfulCount)
	assert.Equal(t, 1, got.HarmfulCount)
	assert.InDelta(t, 0.8+2*ace.SuccessStep-ace.HarmStep, got.Confidence, 1e-9)
	assert.Equal(t, 2, p.Tasks)
	assert.InDelta(t, 0.5, p.SuccessRate(), 1e-9)
}

func TestBadRecordFallsBackToDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	addRule(t, e.m, "pluto", "A good rule", 0.8)
	put := func(agent string, raw []byte) {
		require.NoError(t, e.db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(storage.BucketPlaybooks).Put([]byte(agent), raw)
		}))
	}
	put("JUNK", []byte("not a record at all"))
	put("NEWER", []byte("n\x09{}"))
	put("BADRULES", []byte(`n`+"\x01"+`{"agent":"BADRULES","version":3,"rules":[`+
		`{"id":"r1","content":"keep","source":"learned","confidence":0.7},`+
		`{"id":"r1","content":"duplicate id","source":"learned","confidence":0.7},`+
		`{"id":"r2","content":"","source":"learned","confidence":0.7},`+
		`{"id":"r3","content":"too sure","source":"learned","confidence":7},`+
		`{"id":"r4","content":"odd source","source":"alien","confidence":0.7}]}`))

	for _, agent := range []string{"junk", "newer"} {
		p, err := e.m.GetPlaybook(ctx(), agent)
		require.NoError(t, err)
		assert.Equal(t, 0, p.Version)
		assert.Empty(t, p.Rules)
	}
	p, err := e.m.GetPlaybook(ctx(), "badrules")
	require.NoError(t, err)
	assert.Equal(t, 3, p.Version)
	require.Len(t, p.Rules, 1)
	assert.Equal(t, "keep", p.Rules[0].Content)
	assert.GreaterOrEqual(t, e.logs.Len(), 6, "every bad record or rule is logged")

	// Listing survives the junk; a write replaces it.
	list, err := e.m.List(ctx())
	require.NoError(t, err)
	assert.Len(t, list, 4)
	r := addRule(t, e.m, "junk", "fresh start", 0.8)
	assert.Equal(t, "r1", r.ID)
	// Ids continue after the highest surviving rule.
	r = addRule(t, e.m, "badrules", "next", 0.8)
	assert.Equal(t, "r2", r.ID)
}

func TestPendingQueueApproveReject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	addRule(t, e.m, "saturn", "Old advice", 0.6)
	p1, err := e.m.AddPending(ctx(), "saturn", ace.Delta{Op: ace.OpAdd, Content: "Document exported symbols", Confidence: 0.6}, "review")
	require.NoError(t, err)
	p2, err := e.m.AddPending(ctx(), "saturn", ace.Delta{Op: ace.OpRemove, RuleID: "r1", Confidence: 0.6}, "review")
	require.NoError(t, err)
	p3, err := e.m.AddPending(ctx(), "saturn", ace.Delta{Op: ace.OpUpdate, RuleID: "r1", Content: "Newer advice", Confidence: 0.6}, "review")
	require.NoError(t, err)
	_, err = e.m.AddPending(ctx(), "saturn", ace.Delta{Op: ace.OpAdd}, "review")
	assert.ErrorIs(t, err, ace.ErrInvalid)

	list, err := e.m.ListPending(ctx())
	require.NoError(t, err)
	require.Len(t, list, 3)
	assert.Equal(t, []uint64{p1.ID, p2.ID, p3.ID}, []uint64{list[0].ID, list[1].ID, list[2].ID})
	n, err := e.m.CountPending(ctx())
	require.NoError(t, err)
	assert.Equal(t, 3, n)

	pb, err := e.sys.Approve(ctx(), p1.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, pb.Version)
	assert.Len(t, pb.Rules, 2)
	hist, err := e.m.History(ctx(), "saturn")
	require.NoError(t, err)
	assert.Equal(t, "approved:review", hist[0].Origin)

	_, err = e.sys.Reject(ctx(), p3.ID)
	require.NoError(t, err)
	pb, err = e.sys.Approve(ctx(), p2.ID)
	require.NoError(t, err)
	assert.Len(t, pb.Rules, 1)

	_, err = e.sys.Approve(ctx(), p2.ID)
	assert.ErrorIs(t, err, ace.ErrNotFound)
	_, err = e.sys.Reject(ctx(), 999)
	assert.ErrorIs(t, err, ace.ErrNotFound)
	n, err = e.m.CountPending(ctx())
	require.NoError(t, err)
	assert.Zero(t, n)

	// A pending delta whose rule is gone is removed with a clear error.
	p4, err := e.m.AddPending(ctx(), "saturn", ace.Delta{Op: ace.OpRemove, RuleID: "r1", Confidence: 0.6}, "review")
	require.NoError(t, err)
	_, err = e.sys.Approve(ctx(), p4.ID)
	require.Error(t, err)
	assert.ErrorIs(t, err, ace.ErrNotFound)
	n, _ = e.m.CountPending(ctx())
	assert.Zero(t, n)
}

func TestGlobalCandidates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	good := addRule(t, e.m, "jupiter", "Validate input at the boundary", 0.9)
	low := addRule(t, e.m, "jupiter", "Low confidence rule", 0.8)
	few := addRule(t, e.m, "jupiter", "Few successes rule", 0.95)
	_, _, err := e.m.UpdatePlaybook(ctx(), "jupiter", []ace.Delta{{Op: ace.OpAdd, Content: "From global wisdom", Source: ace.SourceGlobal, Confidence: 0.95}}, "test")
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		require.NoError(t, e.m.RecordSuccess(ctx(), "jupiter", []string{good.ID, low.ID, "r4"}))
	}
	require.NoError(t, e.m.RecordSuccess(ctx(), "jupiter", []string{few.ID}))
	// low: 0.8 + 3×0.02 = 0.86 → qualifies now; lower it back under.
	_, err = e.m.EditRule(ctx(), "jupiter", low.ID, "", nil, 0.84)
	require.NoError(t, err)
	c, err := e.m.GetGlobalCandidates(ctx(), "jupiter")
	require.NoError(t, err)
	require.Len(t, c, 1)
	assert.Equal(t, good.ID, c[0].ID)
}

func TestPlaybookIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ds := make([]ace.Delta, 0, ace.MaxRules+5)
	for i := range ace.MaxRules + 5 {
		ds = append(ds, ace.Delta{Op: ace.OpAdd, Content: fmt.Sprintf("rule number %d", i), Confidence: 0.5 + float64(i%5)/10})
	}
	p, v, err := e.m.UpdatePlaybook(ctx(), "sun", ds, "test")
	require.NoError(t, err)
	assert.Len(t, p.Rules, ace.MaxRules)
	assert.Len(t, v.Changes, ace.MaxRules+10)
}
