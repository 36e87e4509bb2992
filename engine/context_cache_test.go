package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/vault"
)

// The workspace's prompt context reuses a specialist's vault and playbook
// blocks for the same task (issue 31: specialist contexts cached between
// delegations) and builds them anew once the vault or the agent's playbook
// changed.
func TestWorkspaceContextIsReusedUntilItsSourcesChange(t *testing.T) {
	t.Parallel()
	ws, _, _ := openWithFake(t, "")
	ctx := context.Background()
	_, err := ws.Vault().Add(ctx, vault.Node{Type: vault.Pattern, Content: "Wrap errors with %w and name the operation that failed"})
	require.NoError(t, err)
	_, _, err = ws.ACE().Playbooks().AddRule(ctx, "MARS", "Run go vet before you finish", nil, 0.9)
	require.NoError(t, err)
	req := promptctx.Request{Task: "wrap the errors of the client", Agent: "MARS", Tier: "free", PromptTokens: 8000}
	blocks := func() promptctx.Blocks {
		b, err := ws.PromptContext().Blocks(ctx, req)
		require.NoError(t, err)
		return b
	}
	first := blocks()
	require.NotEmpty(t, first.Playbook)
	assert.False(t, first.Cached)
	second := blocks()
	assert.True(t, second.Cached, "the same task for the same specialist reuses its context")
	assert.Equal(t, first.Playbook, second.Playbook)

	_, _, err = ws.ACE().Playbooks().AddRule(ctx, "MARS", "Keep the client's errors wrapped", nil, 0.8)
	require.NoError(t, err)
	third := blocks()
	assert.False(t, third.Cached, "a new rule makes the context anew")
	assert.Contains(t, third.Playbook, "Keep the client's errors wrapped")
	assert.True(t, blocks().Cached)

	_, err = ws.Vault().Add(ctx, vault.Node{Type: vault.Pattern, Content: "Name each client error after the call that failed"})
	require.NoError(t, err)
	assert.False(t, blocks().Cached, "a vault change makes the context anew")

	pb, err := ws.ACE().Playbooks().GetPlaybook(ctx, "MARS")
	require.NoError(t, err)
	applied := 0
	for _, r := range pb.Rules {
		applied += r.AppliedCount
	}
	assert.Equal(t, 1+1+2+2+2, applied, "each prompt counts its rules as applied, reused or not")
}

// BenchmarkSpecialistContext measures the vault, playbook and knowledge
// blocks of a delegation on a workspace made from the shipped defaults
// (starter patterns in the vault, the query embedded on a fake Ollama over
// HTTP): "fresh" is a specialist's first time with a task, "reused" the
// same specialist given the same task again with nothing changed (issue
// 31: contexts cached between delegations).
func BenchmarkSpecialistContext(b *testing.B) {
	w := newFirstTurnWorkspace(b)
	ctx := context.Background()
	pc := w.ws.PromptContext()
	b.Run("fresh", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			_, err := pc.Blocks(ctx, promptctx.Request{Task: fmt.Sprintf("add a health endpoint to the server, variant %d", i),
				Agent: "MARS", Tier: "free", PromptTokens: 8000})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reused", func(b *testing.B) {
		req := promptctx.Request{Task: "add a health endpoint to the server", Agent: "MARS", Tier: "free", PromptTokens: 8000}
		if _, err := pc.Blocks(ctx, req); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			blk, err := pc.Blocks(ctx, req)
			if err != nil || !blk.Cached {
				b.Fatalf("not reused: %v", err)
			}
		}
	})
}
