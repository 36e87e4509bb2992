package promptctx_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/vault"
)

type fakeVault struct {
	budget int
	err    error
}

func (f *fakeVault) BuildVaultContext(_ context.Context, task, agent, tier string, budget int) (vault.VaultContext, error) {
	f.budget = budget
	if f.err != nil {
		return vault.VaultContext{}, f.err
	}
	return vault.VaultContext{Text: "<taste_vault_context>\n" + task + " " + agent + " " + tier + "\n</taste_vault_context>",
		Injected: vault.Injected{NodeIDs: []uint64{4, 9}, WisdomIDs: []uint64{2}}}, nil
}

type fakePlaybook struct {
	budget int
	block  string
	err    error
}

func (f *fakePlaybook) Context(_ context.Context, agent, _ string, budget int) (string, []string, error) {
	f.budget = budget
	return f.block, []string{"r1", "r2"}, f.err
}

type fakeKnowledge struct {
	q      promptctx.KnowledgeQuery
	budget int
	block  string
}

func (f *fakeKnowledge) Hits(_ context.Context, q promptctx.KnowledgeQuery, budget int) (string, []string, error) {
	f.q, f.budget = q, budget
	return f.block, []string{"fact:f3"}, nil
}

var defaults = promptctx.Shares{Vault: promptctx.DefaultVaultShare, Playbook: promptctx.DefaultPlaybookShare, Knowledge: promptctx.DefaultKnowledgeShare}

func TestSourcesGiveEveryBlockWithinItsShare(t *testing.T) {
	t.Parallel()
	v, pb, kn := &fakeVault{}, &fakePlaybook{block: "  <playbook_context>rules</playbook_context>\n"}, &fakeKnowledge{block: "fact: the API is v2"}
	src := promptctx.Sources{Vault: v, Playbook: pb, Knowledge: kn, Shares: defaults}
	b, err := src.Blocks(context.Background(), promptctx.Request{Task: "add retries", Agent: "MARS", Tier: "free",
		PromptTokens: 10000, BuildID: "7", TaskID: "t2"})
	require.NoError(t, err)
	assert.Equal(t, "<taste_vault_context>\nadd retries MARS free\n</taste_vault_context>", b.Vault)
	assert.Equal(t, "<playbook_context>rules</playbook_context>", b.Playbook, "trimmed")
	assert.Equal(t, "<knowledge_context>\nfact: the API is v2\n</knowledge_context>", b.Knowledge, "tagged for prompt fitting")
	assert.Empty(t, b.Wisdom, "the vault renders wisdom inside its block")
	assert.Equal(t, 10000, v.budget, "the vault caps itself at its share of what it is given")
	assert.Equal(t, 1000, pb.budget)
	assert.Equal(t, 1000, kn.budget)
	assert.Equal(t, promptctx.KnowledgeQuery{BuildID: "7", TaskID: "t2", Agent: "MARS", Text: "add retries", ExcludeVault: []uint64{4, 9}}, kn.q,
		"knowledge leaves out the nodes the vault block carries")
	assert.Equal(t, []string{"4", "9"}, b.IDs(promptctx.BlockVault))
	assert.Equal(t, []string{"2"}, b.IDs(promptctx.BlockWisdom))
	assert.Equal(t, []string{"r1", "r2"}, b.IDs(promptctx.BlockPlaybook))
	assert.Equal(t, []string{"fact:f3"}, b.IDs(promptctx.BlockKnowledge))
	assert.Equal(t, []string{}, b.IDs(promptctx.BlockRules))
}

func TestSourcesSharesScaleCapAndTurnOff(t *testing.T) {
	t.Parallel()
	v, pb, kn := &fakeVault{}, &fakePlaybook{block: "p"}, &fakeKnowledge{block: "k"}
	src := promptctx.Sources{Vault: v, Playbook: pb, Knowledge: kn, Shares: promptctx.Shares{Vault: 0.075, Playbook: 0.9, Knowledge: 0}}
	b, err := src.Blocks(context.Background(), promptctx.Request{Task: "x", PromptTokens: 10000})
	require.NoError(t, err)
	assert.Equal(t, 5000, v.budget, "half the shipped vault share")
	assert.Equal(t, 1000, pb.budget, "capped at the shipped playbook share")
	assert.Empty(t, b.Knowledge, "share 0 is off")
	assert.Zero(t, kn.budget, "an off source is not asked")

	none, err := promptctx.Sources{}.Blocks(context.Background(), promptctx.Request{Task: "x"})
	require.NoError(t, err)
	assert.Equal(t, promptctx.Blocks{}, none)
}

func TestSourcesAFailingSourceLeavesOnlyItsBlockOut(t *testing.T) {
	t.Parallel()
	boom := errors.New("vault busy")
	src := promptctx.Sources{Vault: &fakeVault{err: boom}, Playbook: &fakePlaybook{err: errors.New("no playbook")},
		Knowledge: &fakeKnowledge{block: "k"}, Shares: defaults}
	b, err := src.Blocks(context.Background(), promptctx.Request{Task: "x", PromptTokens: 4000})
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "vault context: vault busy")
	assert.Contains(t, err.Error(), "playbook context: no playbook")
	assert.Empty(t, b.Vault)
	assert.Empty(t, b.Playbook)
	assert.NotEmpty(t, b.Knowledge)
}

func TestCutTokensKeepsRunesWhole(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", 100) // 200 bytes, 50 tokens
	assert.Equal(t, s, promptctx.CutTokens(s, 50))
	cut := promptctx.CutTokens(s, 3)
	assert.True(t, utf8.ValidString(cut))
	assert.LessOrEqual(t, len(cut), 12)
	assert.Empty(t, promptctx.CutTokens(s, 0))
}
