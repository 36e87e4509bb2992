package ace_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/ace"
)

func TestFilterAndSortRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i, c := range []string{"alpha rule", "beta rule", "gamma rule", "delta rule", "epsilon rule", "zeta rule", "eta rule", "theta rule", "iota rule", "kappa rule"} {
		addRule(t, e.m, "sun", c, 0.5+float64(i%3)/10, map[bool]string{true: "even", false: "odd"}[i%2 == 0])
	}
	_, _, err := e.m.UpdatePlaybook(ctx(), "sun", []ace.Delta{{Op: ace.OpAdd, Content: "learned mistake", Kind: ace.KindMistake, Confidence: 0.99}}, "test")
	require.NoError(t, err)
	require.NoError(t, e.m.IncrementApplied(ctx(), "sun", []string{"r3", "r3", "r5"}))
	p, err := e.m.GetPlaybook(ctx(), "sun")
	require.NoError(t, err)

	all := ace.FilterRules(p.Rules, ace.RuleFilter{}, ace.SortID)
	require.Len(t, all, 11)
	assert.Equal(t, "r10", all[9].ID, "numeric id order")

	learned := ace.FilterRules(p.Rules, ace.RuleFilter{Source: ace.SourceLearned}, "")
	require.Len(t, learned, 1)
	assert.Equal(t, ace.KindMistake, learned[0].Kind)
	assert.Len(t, ace.FilterRules(p.Rules, ace.RuleFilter{Kind: ace.KindMistake}, ""), 1)
	assert.Len(t, ace.FilterRules(p.Rules, ace.RuleFilter{Tag: "EVEN"}, ""), 5)
	assert.Len(t, ace.FilterRules(p.Rules, ace.RuleFilter{Query: "ETA"}, ""), 4, "beta, zeta, eta and theta contain eta")

	byConf := ace.FilterRules(p.Rules, ace.RuleFilter{}, ace.SortConfidence)
	assert.Equal(t, "r11", byConf[0].ID)
	byApplied := ace.FilterRules(p.Rules, ace.RuleFilter{}, ace.SortApplied)
	assert.Equal(t, "r3", byApplied[0].ID)
	assert.Equal(t, "r5", byApplied[1].ID)

	_, err = ace.ParseSortKey("size")
	assert.ErrorIs(t, err, ace.ErrInvalid)
	k, err := ace.ParseSortKey(" Confidence ")
	require.NoError(t, err)
	assert.Equal(t, ace.SortConfidence, k)
}

func TestDiffBetweenVersions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	addRule(t, e.m, "moon", "one", 0.8)                                // v1 +r1
	addRule(t, e.m, "moon", "two", 0.8)                                // v2 +r2
	_, err := e.m.EditRule(ctx(), "moon", "r1", "one, edited", nil, 0) // v3 ~r1
	require.NoError(t, err)
	require.NoError(t, e.m.DeleteRule(ctx(), "moon", "r2"))                 // v4 -r2
	addRule(t, e.m, "moon", "three", 0.8)                                   // v5 +r3
	_, err = e.m.EditRule(ctx(), "moon", "r1", "one, edited twice", nil, 0) // v6 ~r1
	require.NoError(t, err)

	d, err := e.m.Diff(ctx(), "moon", 2, 6)
	require.NoError(t, err)
	require.Len(t, d, 3)
	assert.Equal(t, ace.OpUpdate, d[0].Op)
	assert.Equal(t, "one", d[0].Before.Content)
	assert.Equal(t, "one, edited twice", d[0].After.Content)
	assert.Equal(t, ace.OpRemove, d[1].Op)
	assert.Equal(t, "r2", d[1].RuleID)
	assert.Equal(t, ace.OpAdd, d[2].Op)
	assert.Equal(t, "three", d[2].After.Content)

	d, err = e.m.Diff(ctx(), "moon", 0, 6)
	require.NoError(t, err)
	require.Len(t, d, 2, "r2 came and went")
	assert.Equal(t, ace.OpAdd, d[0].Op)

	d, err = e.m.Diff(ctx(), "moon", 6, 6)
	require.NoError(t, err)
	assert.Empty(t, d)
	_, err = e.m.Diff(ctx(), "moon", 4, 2)
	assert.ErrorIs(t, err, ace.ErrInvalid)
}
