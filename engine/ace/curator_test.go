package ace_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/vault"
)

func decisionOf(rep ace.CurateReport, content string) ace.Decision {
	for _, d := range rep.Decisions {
		if d.Delta.Content == content {
			return d
		}
	}
	return ace.Decision{}
}

func TestCuratorDedupReplaceScoreLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	strong := addRule(t, e.m, "mars", "always run go vet before finishing a task", 0.9)
	weak := addRule(t, e.m, "mars", "always run the tests before finishing a task", 0.5)

	deltas := []ace.Delta{
		// Duplicate of a more confident rule: rejected.
		{Op: ace.OpAdd, Content: "always run go vet before finishing any task", Confidence: 0.8, Helpful: 0.8},
		// Duplicate of a less confident rule: replaces it.
		{Op: ace.OpAdd, Content: "always run the unit tests before finishing a task", Confidence: 0.85, Helpful: 0.9},
		// Score below 0.4: 0.1·0.6 + 0.6·0.4 = 0.30.
		{Op: ace.OpAdd, Content: "consider tabs", Confidence: 0.6, Helpful: 0.1},
		// Harm pulls it under: 0.5·0.6 + 0.6·0.4 − 0.9·0.3 = 0.27.
		{Op: ace.OpAdd, Content: "delete failing tests", Confidence: 0.6, Helpful: 0.5, Harmful: 0.9},
		// Good new rules; only two more fit in the round of three.
		{Op: ace.OpAdd, Content: "wrap errors with context", Confidence: 0.8, Helpful: 0.7},
		{Op: ace.OpAdd, Content: "prefer early returns", Confidence: 0.7, Helpful: 0.6},
		{Op: ace.OpAdd, Content: "log at the boundary only", Confidence: 0.6, Helpful: 0.5},
		// Invalid.
		{Op: ace.OpUpdate, Content: "no id", Confidence: 0.9, Helpful: 1},
		{Op: ace.OpRemove, RuleID: "r99", Confidence: 0.9, Helpful: 1},
	}
	rep, err := e.sys.Curator().Curate(ctx(), "mars", deltas, ace.CurateOptions{})
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Applied())
	assert.Equal(t, 3, rep.Version, "one version for the round")

	assert.Equal(t, "rejected", decisionOf(rep, "always run go vet before finishing any task").Action)
	assert.Contains(t, decisionOf(rep, "always run go vet before finishing any task").Reason, strong.ID)
	assert.Equal(t, "replaced", decisionOf(rep, "always run the unit tests before finishing a task").Action)
	low := decisionOf(rep, "consider tabs")
	assert.Equal(t, "rejected", low.Action)
	assert.InDelta(t, 0.30, low.Score, 1e-9)
	assert.Equal(t, "rejected", decisionOf(rep, "delete failing tests").Action)
	assert.Equal(t, "applied", decisionOf(rep, "wrap errors with context").Action)
	assert.Equal(t, "applied", decisionOf(rep, "prefer early returns").Action)
	limited := decisionOf(rep, "log at the boundary only")
	assert.Equal(t, "rejected", limited.Action)
	assert.Contains(t, limited.Reason, "limit")
	assert.Len(t, rep.Decisions, len(deltas))

	p, err := e.m.GetPlaybook(ctx(), "mars")
	require.NoError(t, err)
	require.Len(t, p.Rules, 4)
	replaced, ok := p.Rule(weak.ID)
	require.True(t, ok)
	assert.Equal(t, "always run the unit tests before finishing a task", replaced.Content)
	assert.InDelta(t, 0.85, replaced.Confidence, 1e-9)
	kept, _ := p.Rule(strong.ID)
	assert.Equal(t, strong.Content, kept.Content)

	// Duplicates inside one round: the better one wins.
	rep, err = e.sys.Curator().Curate(ctx(), "mars", []ace.Delta{
		{Op: ace.OpAdd, Content: "name test helpers after what they build", Confidence: 0.8, Helpful: 0.8},
		{Op: ace.OpAdd, Content: "name test helpers after what they build please", Confidence: 0.7, Helpful: 0.7},
	}, ace.CurateOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Applied())
}

func TestCuratorPendingBelow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rep, err := e.sys.Curator().Curate(ctx(), "earth", []ace.Delta{
		{Op: ace.OpAdd, Content: "sure thing", Confidence: 0.9, Helpful: 0.9},
		{Op: ace.OpAdd, Content: "unsure thing", Confidence: 0.6, Helpful: 0.9},
	}, ace.CurateOptions{Origin: "review", PendingBelow: 0.7})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Applied())
	pend := decisionOf(rep, "unsure thing")
	assert.Equal(t, "pending", pend.Action)
	assert.NotZero(t, pend.PendingID)
	list, err := e.m.ListPending(ctx())
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "EARTH", list[0].Agent)
	assert.Equal(t, "unsure thing", list[0].Delta.Content)
}

func TestGlobalCandidatesGoToVault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withVault())
	good := addRule(t, e.m, "pluto", "Validate every external input at the boundary", 0.9, "input")
	meh := addRule(t, e.m, "pluto", "Use short names in loops", 0.9)
	for range 3 {
		require.NoError(t, e.m.IncrementApplied(ctx(), "pluto", []string{good.ID, meh.ID}))
		require.NoError(t, e.m.RecordTaskApplied(ctx(), "pluto", []string{good.ID}, true))
	}
	require.NoError(t, e.m.RecordSuccess(ctx(), "pluto", []string{meh.ID}))
	require.NoError(t, e.m.RecordSuccess(ctx(), "pluto", []string{meh.ID}))
	require.NoError(t, e.m.RecordSuccess(ctx(), "pluto", []string{meh.ID}))
	// meh: 3 successes but 3 harms → score under 0.75.
	for range 3 {
		require.NoError(t, e.m.RecordHarm(ctx(), "pluto", []string{meh.ID}))
	}
	// Bring meh's confidence back over the candidate threshold.
	_, err := e.m.EditRule(ctx(), "pluto", meh.ID, "", nil, 0.9)
	require.NoError(t, err)

	cands, err := e.m.GetGlobalCandidates(ctx(), "pluto")
	require.NoError(t, err)
	assert.Len(t, cands, 2)

	ids, err := e.sys.Curator().PromoteGlobal(ctx(), "pluto")
	require.NoError(t, err)
	require.Len(t, ids, 1)
	n, err := e.vault.Get(ctx(), ids[0])
	require.NoError(t, err)
	assert.True(t, n.IsGlobal)
	assert.Equal(t, good.Content, n.Content)
	assert.Equal(t, vault.Strategy, n.Type)
	assert.Equal(t, "playbook:PLUTO/"+good.ID, n.Source)
	assert.Contains(t, n.Tags, "playbook")

	// Once only.
	again, err := e.sys.Curator().PromoteGlobal(ctx(), "pluto")
	require.NoError(t, err)
	assert.Empty(t, again)
	p, _ := e.m.GetPlaybook(ctx(), "pluto")
	r, _ := p.Rule(good.ID)
	assert.Equal(t, ids[0], r.VaultNodeID)
}
