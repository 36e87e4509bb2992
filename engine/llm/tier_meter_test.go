package llm_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
)

func TestEscalate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cur, max llm.Tier
		want     llm.Tier
		ok       bool
	}{
		{llm.TierSmall, llm.TierLarge, llm.TierMedium, true},
		{llm.TierMedium, llm.TierLarge, llm.TierLarge, true},
		{llm.TierLarge, llm.TierLarge, llm.TierLarge, false},
		{llm.TierSmall, llm.TierMedium, llm.TierMedium, true},
		{llm.TierMedium, llm.TierMedium, llm.TierMedium, false},
		{llm.TierMedium, llm.TierSmall, llm.TierMedium, false},
		{llm.TierSmall, llm.TierSmall, llm.TierSmall, false},
		{llm.TierEmbed, llm.TierLarge, llm.TierEmbed, false},
		{llm.TierSmall, llm.TierEmbed, llm.TierSmall, false},
		{llm.Tier("huge"), llm.TierLarge, llm.Tier("huge"), false},
	}
	for _, c := range cases {
		got, ok := llm.Escalate(c.cur, c.max)
		assert.Equal(t, c.want, got, "%s→%s", c.cur, c.max)
		assert.Equal(t, c.ok, ok, "%s→%s", c.cur, c.max)
	}

	// Walking the ladder visits every tier once.
	var walked []llm.Tier
	for cur, ok := llm.TierSmall, true; ok; cur, ok = llm.Escalate(cur, llm.TierLarge) {
		walked = append(walked, cur)
	}
	assert.Equal(t, llm.Ladder, walked)
}

func TestParseTierAndModels(t *testing.T) {
	t.Parallel()
	tier, err := llm.ParseTier(" Medium ")
	require.NoError(t, err)
	assert.Equal(t, llm.TierMedium, tier)
	_, err = llm.ParseTier("premium")
	require.ErrorContains(t, err, `unknown model tier "premium"`)

	m := llm.Models{llm.TierSmall: "llama3.2:3b", llm.TierEmbed: "nomic-embed-text"}
	name, err := m.For(llm.TierSmall)
	require.NoError(t, err)
	assert.Equal(t, "llama3.2:3b", name)
	_, err = m.For(llm.TierLarge)
	require.ErrorContains(t, err, "models.large")

	p := llm.Probe{Models: []llm.Model{{Name: "nomic-embed-text:latest"}}}
	assert.Equal(t, []string{"llama3.2:3b"}, m.Missing(p))
}

func TestMeterConcurrent(t *testing.T) {
	t.Parallel()
	m := llm.NewMeter()
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			key := "task:even"
			if i%2 == 1 {
				key = "task:odd"
			}
			m.Record(llm.Usage{Calls: 1, PromptTokens: 10, EvalTokens: 1}, key, "build:B1", "build:B1")
		})
	}
	wg.Wait()
	assert.Equal(t, llm.Usage{Calls: 50, PromptTokens: 500, EvalTokens: 50}, m.Total())
	assert.Equal(t, m.Total(), m.Get("build:B1"), "a key repeated in one record counts once")
	assert.Equal(t, 25, m.Get("task:odd").Calls)
	snap := m.Snapshot()
	assert.Len(t, snap, 3)
	snap["build:B1"] = llm.Usage{}
	assert.Equal(t, 50, m.Get("build:B1").Calls, "a snapshot is a copy")

	var nilMeter *llm.Meter
	nilMeter.Record(llm.Usage{Calls: 1})
	assert.Equal(t, llm.Usage{}, nilMeter.Total())
}

func TestBudget(t *testing.T) {
	t.Parallel()
	m := llm.NewMeter()
	b := llm.NewBudget(m, "task:T9", 100)
	total := llm.NewBudget(m, "", 150)
	require.NoError(t, b.Check())
	assert.Equal(t, 100, b.Remaining())

	m.Record(llm.Usage{Calls: 1, PromptTokens: 70, EvalTokens: 20}, "task:T9")
	require.NoError(t, b.Check())
	assert.Equal(t, 10, b.Remaining())

	m.Record(llm.Usage{Calls: 1, PromptTokens: 30}, "task:T9")
	err := b.Check()
	require.ErrorIs(t, err, llm.ErrBudgetExceeded)
	assert.Equal(t, `token budget exceeded: 120 of 100 tokens used for "task:T9"`, err.Error())
	assert.Zero(t, b.Remaining())
	require.NoError(t, total.Check())

	m.Record(llm.Usage{Calls: 1, PromptTokens: 30})
	require.ErrorContains(t, total.Check(), "150 of 150 tokens used in total")

	var none *llm.Budget
	require.NoError(t, none.Check())
}
