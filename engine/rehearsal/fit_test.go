package rehearsal

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
)

func bigBlock(tag string) string {
	return "<" + tag + ">\n" + strings.Repeat(tag+" has a lot to say here. ", 200) + "\n</" + tag + ">"
}

func TestRehearsalPromptsFitTheBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	e.cfg.Budgets.PromptTokens = 2048
	ss, err := e.svc.Rehearse(context.Background(), Request{Task: task("T1", "Add a Total function to calc."), Branches: 2, Force: true,
		Context: []string{bigBlock("dependency_artifacts"), bigBlock("taste_vault_context"), bigBlock("knowledge_context")}})
	require.NoError(t, err)
	require.Len(t, ss.Branches, 2)
	for _, r := range e.srv.ChatRequests() {
		sys := r.Messages[0].Content
		assert.NotContains(t, sys, "<knowledge_context>", "knowledge is trimmed first")
		assert.Contains(t, sys, "<dependency_artifacts>", "dependency previews are kept longest")
		n := 0
		for _, m := range r.Messages {
			n += 8 + llm.EstimateTokens(m.Content)
		}
		assert.LessOrEqual(t, n, 2048)
		assert.Contains(t, r.Messages[1].Content, "Add a Total function to calc.", "the task is whole")
	}
	assert.Contains(t, ss.Trimmed(), "prompt trimmed to 2048 tokens", "the session says what gave way")
	assert.Contains(t, ss.Trimmed(), "dropped knowledge hits")
	assert.Contains(t, FormatSummary(ss), "✂ prompt trimmed")
}

func TestRehearsalCutsAHugeTaskAndRefusesWhatCannotFit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rehearsaltest.Three(), 0)
	e.cfg.Budgets.PromptTokens = 2048
	ss, err := e.svc.Rehearse(context.Background(), Request{Task: task("T1", "Add a Total function.\n"+strings.Repeat("More detail. ", 20000)), Branches: 2, Force: true})
	require.NoError(t, err)
	assert.Contains(t, ss.Trimmed(), "cut the task")
	for _, r := range e.srv.ChatRequests() {
		assert.Contains(t, r.Messages[1].Content, "task cut to fit the model's context")
		assert.True(t, strings.HasSuffix(r.Messages[1].Content, "</task>"))
	}

	e2 := newEnv(t, rehearsaltest.Three(), 0)
	e2.cfg.Budgets.PromptTokens = 200
	_, err = e2.svc.Rehearse(context.Background(), Request{Task: task("T1", "Add a Total function."), Branches: 2, Force: true})
	require.ErrorIs(t, err, llm.ErrPromptTooLong)
	assert.Contains(t, err.Error(), "budgets.replyReserve")
	assert.Zero(t, e2.srv.Count("/api/chat"))
}

func TestRehearsalBranchCutAtTheTokenLimitIsSkipped(t *testing.T) {
	t.Parallel()
	cut := ollamatest.Text(`{"description": "half`).WithDoneReason("length")
	e := newEnv(t, rehearsaltest.Script{"minimal": cut, "idiomatic": rehearsaltest.Three()["idiomatic"]}, 0)
	ss, err := e.rehearse(2)
	require.NoError(t, err)
	require.Len(t, ss.Branches, 1)
	require.Len(t, ss.Rounds[0].Skipped, 1)
	assert.Contains(t, ss.Rounds[0].Skipped[0].Reason, "token limit", "a cut branch is never scored as an answer")
}
