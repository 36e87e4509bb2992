package promptctx_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/vault"
)

// countingVault counts its searches (each embeds the query on the model
// server in the real vault).
type countingVault struct{ calls atomic.Int32 }

func (f *countingVault) BuildVaultContext(_ context.Context, task, agent, _ string, _ int) (vault.VaultContext, error) {
	n := f.calls.Add(1)
	return vault.VaultContext{Text: fmt.Sprintf("<taste_vault_context>\n%s %s #%d\n</taste_vault_context>", task, agent, n),
		Injected: vault.Injected{NodeIDs: []uint64{4}, WisdomIDs: []uint64{}}}, nil
}

type countingPlaybook struct {
	calls   atomic.Int32
	applied [][]string
}

func (f *countingPlaybook) Context(_ context.Context, agent, _ string, _ int) (string, []string, error) {
	f.calls.Add(1)
	return "<playbook_context>rules of " + agent + "</playbook_context>", []string{"r1"}, nil
}

func (f *countingPlaybook) Applied(_ context.Context, _ string, ids []string) error {
	f.applied = append(f.applied, ids)
	return nil
}

type countingKnowledge struct {
	calls atomic.Int32
	q     promptctx.KnowledgeQuery
}

func (f *countingKnowledge) Hits(_ context.Context, q promptctx.KnowledgeQuery, _ int) (string, []string, error) {
	f.calls.Add(1)
	f.q = q
	return "<knowledge_context>fact</knowledge_context>", []string{"fact:f1"}, nil
}

// A specialist given the same task again reuses its vault and playbook
// blocks while the sources are unchanged; the knowledge block is built
// each time (it counts retrievals), the reused rules are counted as applied
// again, and a change of revision, agent or task builds them anew.
func TestSpecialistContextIsCachedBetweenDelegations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rev := "1"
	cache := promptctx.NewCache(2, func(context.Context, promptctx.Request) (string, error) { return rev, nil })
	v, pb, kn := &countingVault{}, &countingPlaybook{}, &countingKnowledge{}
	src := promptctx.Sources{Vault: v, Playbook: pb, Knowledge: kn, Shares: defaults, Cache: cache}
	req := promptctx.Request{Task: "add retries to the client", Agent: "MARS", Tier: "free", PromptTokens: 8000, BuildID: "3", TaskID: "t1"}

	first, err := src.Blocks(ctx, req)
	require.NoError(t, err)
	assert.False(t, first.Cached)
	req.TaskID = "t2" // the lead delegates the same task again
	second, err := src.Blocks(ctx, req)
	require.NoError(t, err)
	assert.True(t, second.Cached, "the second delegation reuses the context")
	assert.Equal(t, int32(1), v.calls.Load(), "the vault is searched once")
	assert.Equal(t, int32(1), pb.calls.Load())
	assert.Equal(t, int32(2), kn.calls.Load(), "knowledge is built every time")
	assert.Equal(t, "t2", kn.q.TaskID)
	assert.Equal(t, []uint64{4}, kn.q.ExcludeVault, "knowledge still leaves out the vault's nodes")
	assert.Equal(t, first.Vault, second.Vault)
	assert.Equal(t, first.Playbook, second.Playbook)
	assert.Equal(t, first.Provenance, second.Provenance)
	assert.Equal(t, [][]string{{"r1"}}, pb.applied, "the reused rules are counted as applied")

	rev = "2" // a vault node was added, a rule learned
	third, err := src.Blocks(ctx, req)
	require.NoError(t, err)
	assert.False(t, third.Cached)
	assert.Equal(t, int32(2), v.calls.Load())
	assert.Contains(t, third.Vault, "#2")

	other := req
	other.Agent = "VENUS"
	_, err = src.Blocks(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, int32(3), v.calls.Load(), "another specialist gets its own context")
	other.Task = "something else"
	_, err = src.Blocks(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, int32(4), v.calls.Load())

	// Two entries at most: the oldest (MARS) went.
	_, err = src.Blocks(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, int32(5), v.calls.Load())
	hits, misses := cache.Stats()
	assert.Equal(t, int64(1), hits)
	assert.Equal(t, int64(5), misses)
}

// A revision that cannot be read, or a source that failed, caches nothing.
func TestCacheKeepsNothingUncertain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := &countingVault{}
	bad := promptctx.NewCache(0, func(context.Context, promptctx.Request) (string, error) { return "", errors.New("db closed") })
	src := promptctx.Sources{Vault: v, Shares: defaults, Cache: bad}
	req := promptctx.Request{Task: "x", Agent: "MARS"}
	for range 2 {
		b, err := src.Blocks(ctx, req)
		require.NoError(t, err)
		assert.False(t, b.Cached)
	}
	assert.Equal(t, int32(2), v.calls.Load())

	good := promptctx.NewCache(0, func(context.Context, promptctx.Request) (string, error) { return "1", nil })
	failing := &fakeVault{err: errors.New("vault busy")}
	src = promptctx.Sources{Vault: failing, Shares: defaults, Cache: good}
	_, err := src.Blocks(ctx, req)
	require.Error(t, err)
	failing.err = nil
	b, err := src.Blocks(ctx, req)
	require.NoError(t, err)
	assert.False(t, b.Cached, "a context built with an error is not kept")
	assert.NotEmpty(t, b.Vault)
}
