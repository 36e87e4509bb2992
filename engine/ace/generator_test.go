package ace_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/ace"
)

func TestGetActiveRulesRanksByRelevance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := addRule(t, e.m, "mars", "Wrap database migrations in a transaction", 0.8, "database")
	auth := addRule(t, e.m, "mars", "Hash passwords with bcrypt in the login handler", 0.8)
	general := addRule(t, e.m, "mars", "Keep functions short", 0.95)
	weak := addRule(t, e.m, "mars", "Write a migration rollback for every database migration", 0.3)

	rules, err := e.m.GetActiveRules(ctx(), "mars", "Add a database migration for the orders table", 0)
	require.NoError(t, err)
	require.Len(t, rules, 4)
	assert.Equal(t, db.ID, rules[0].ID)
	assert.Greater(t, rules[0].Overlap, 0.0)
	ids := []string{rules[0].ID, rules[1].ID, rules[2].ID, rules[3].ID}
	assert.Less(t, indexOf(ids, weak.ID), indexOf(ids, auth.ID), "overlap outweighs confidence")
	assert.Contains(t, ids[1:], general.ID)
	for i := 1; i < len(rules); i++ {
		assert.GreaterOrEqual(t, rules[i-1].Relevance, rules[i].Relevance)
	}

	top, err := e.m.GetActiveRules(ctx(), "mars", "login handler passwords", 1)
	require.NoError(t, err)
	require.Len(t, top, 1)
	assert.Equal(t, auth.ID, top[0].ID)

	// Success history matters: the same text with a poor record ranks lower.
	require.NoError(t, e.m.IncrementApplied(ctx(), "mars", []string{auth.ID, auth.ID}))
	for range 5 {
		require.NoError(t, e.m.IncrementApplied(ctx(), "mars", []string{auth.ID}))
	}
	after, err := e.m.GetActiveRules(ctx(), "mars", "login handler passwords", 0)
	require.NoError(t, err)
	assert.Less(t, after[indexOfRule(after, auth.ID)].Relevance, top[0].Relevance)
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func indexOfRule(s []ace.ScoredRule, id string) int {
	for i, x := range s {
		if x.ID == id {
			return i
		}
	}
	return -1
}

func TestGeneratorBudgetAndProvenance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 12 {
		addRule(t, e.m, "venus", fmt.Sprintf("When styling component %d, reuse the shared theme tokens and check contrast", i), 0.7+float64(i)/100)
	}
	promptBudget := 4000
	budget := ace.Budget(promptBudget)
	assert.Equal(t, 400, budget, "10 % of the prompt budget")

	inj, err := e.sys.Context(ctx(), "venus", "Style the settings component with theme tokens", budget)
	require.NoError(t, err)
	require.NotEmpty(t, inj.RuleIDs)
	assert.LessOrEqual(t, ace.Tokens(inj.Block), budget)
	assert.Equal(t, inj.Tokens, ace.Tokens(inj.Block))
	assert.True(t, strings.HasPrefix(inj.Block, fmt.Sprintf(`<playbook_context agent="VENUS" version="12" rules_applied="%s">`, strings.Join(inj.RuleIDs, ","))), inj.Block)
	assert.True(t, strings.HasSuffix(inj.Block, "</playbook_context>"))
	for _, id := range inj.RuleIDs {
		assert.Contains(t, inj.Block, "["+id+"]")
	}

	// Applied rules are counted (provenance), the others are not.
	p, err := e.m.GetPlaybook(ctx(), "venus")
	require.NoError(t, err)
	applied := 0
	for _, r := range p.Rules {
		if indexOf(inj.RuleIDs, r.ID) >= 0 {
			assert.Equal(t, 1, r.AppliedCount, r.ID)
			applied++
		} else {
			assert.Zero(t, r.AppliedCount, r.ID)
		}
	}
	assert.Equal(t, len(inj.RuleIDs), applied)

	// A smaller budget injects fewer rules; a tiny one none at all.
	small, err := e.m.Generate(ctx(), "venus", "Style the settings component", 80)
	require.NoError(t, err)
	assert.Less(t, len(small.RuleIDs), len(inj.RuleIDs))
	assert.LessOrEqual(t, ace.Tokens(small.Block), 80)
	none, err := e.m.Generate(ctx(), "venus", "Style the settings component", 10)
	require.NoError(t, err)
	assert.Empty(t, none.Block)
	assert.Empty(t, none.RuleIDs)

	empty, err := e.sys.Context(ctx(), "nobody", "anything", 400)
	require.NoError(t, err)
	assert.Empty(t, empty.Block)
}

func TestTokensEstimate(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0, ace.Tokens(""))
	assert.Equal(t, 1, ace.Tokens("abcd"))
	assert.Equal(t, 2, ace.Tokens("abcde"))
	assert.Equal(t, 1, ace.Tokens("éé"), "characters, not bytes")
}
