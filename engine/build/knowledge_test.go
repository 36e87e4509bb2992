package build_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/vault"
)

type fakeKnowledge struct {
	mu       sync.Mutex
	queries  []build.KnowledgeQuery
	budgets  []int
	outcomes []build.KnowledgeOutcome
	builds   []build.Build
	tasks    int
}

func (f *fakeKnowledge) Hits(_ context.Context, q build.KnowledgeQuery, budget int) (string, []string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	f.budgets = append(f.budgets, budget)
	return "<knowledge>\n- [fact:f3] Handlers return JSON errors.\n</knowledge>", []string{"fact:f3", "docs:local:net/http"}, nil
}

func (f *fakeKnowledge) KnowledgeAfterTask(_ context.Context, o build.KnowledgeOutcome) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outcomes = append(f.outcomes, o)
	return nil
}

func (f *fakeKnowledge) KnowledgeAfterBuild(_ context.Context, b build.Build, tasks []build.Task) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.builds = append(f.builds, b)
	f.tasks = len(tasks)
	return nil
}

func TestKnowledgeIsInjectedWithinItsShareAndRecordedAsProvenance(t *testing.T) {
	t.Parallel()
	kh := &fakeKnowledge{}
	h := newHarness(t, harnessOpts{vault: true, hooks: build.Hooks{Knowledge: kh},
		cfg: build.Config{PromptTokens: 10000}})
	ctx := context.Background()
	_, err := h.Vault.Add(ctx, vault.Node{Type: vault.Strategy, Content: "Health handlers return JSON with a status field", Confidence: 0.8})
	require.NoError(t, err)
	p := plan("health:MARS:0", "flaky:MARS:1:health")
	p.Tasks[0].Title = "Add a health handler returning JSON status"
	h.Script.Fail["flaky"] = 1 // its first attempt fails a gate
	b, err := h.Eng.Create(ctx, p, "p.json", build.Options{Autonomy: intp(2)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)

	tasks, err := h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)
	for _, tk := range tasks {
		assert.Equal(t, []string{"fact:f3", "docs:local:net/http"}, tk.KnowledgeIDs, "the injected ids are kept on the task")
	}
	assert.Contains(t, h.Script.Prompts["health"][0], "Handlers return JSON errors.", "the block reaches the prompt")

	kh.mu.Lock()
	defer kh.mu.Unlock()
	require.Len(t, kh.queries, 3, "one query per attempt")
	assert.Equal(t, 1000, kh.budgets[0], "10 % of the prompt budget")
	q := kh.queries[0]
	assert.Equal(t, "MARS", q.Agent)
	assert.Equal(t, "health", q.TaskID)
	assert.Equal(t, "1", q.BuildID)
	assert.Contains(t, q.Text, "health handler")
	assert.NotEmpty(t, q.ExcludeVault, "vault nodes already in the prompt are excluded")

	require.Len(t, kh.outcomes, 3)
	byPass := map[bool][]build.KnowledgeOutcome{}
	for _, o := range kh.outcomes {
		byPass[o.Passed] = append(byPass[o.Passed], o)
	}
	require.Len(t, byPass[false], 1)
	assert.Equal(t, "flaky", byPass[false][0].TaskID)
	assert.Equal(t, failure.WorkFailed, byPass[false][0].Kind, "a failed gate is the work failing")
	assert.Len(t, byPass[true], 2)
	require.Len(t, kh.builds, 1, "told once when the build ends")
	assert.Equal(t, build.StatusDone, kh.builds[0].Status)
	assert.Equal(t, 2, kh.tasks)
}

func TestKnowledgeShareZeroTurnsItOff(t *testing.T) {
	t.Parallel()
	kh := &fakeKnowledge{}
	h := newHarness(t, harnessOpts{zeroShares: true, hooks: build.Hooks{Knowledge: kh}})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	_, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	tasks, err := h.Eng.Tasks(ctx, b.ID)
	require.NoError(t, err)
	assert.Empty(t, tasks[0].KnowledgeIDs)
	assert.NotNil(t, tasks[0].KnowledgeIDs, "an empty list, not null, in JSON")
	kh.mu.Lock()
	defer kh.mu.Unlock()
	assert.Empty(t, kh.queries)
}

// An attempt that failed for an infrastructure reason (here a model that is
// not pulled) reaches the learner with that kind, so it is never held
// against the knowledge the attempt used.
func TestInfrastructureFailuresNeverCountAgainstKnowledge(t *testing.T) {
	t.Parallel()
	kh := &fakeKnowledge{}
	h := newHarness(t, harnessOpts{hooks: build.Hooks{Knowledge: kh}})
	h.Srv.SetModels(testModels[0]) // MARS needs the medium model
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("a:MARS:0"), "p.json", build.Options{})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusFailed, b.Status)

	kh.mu.Lock()
	defer kh.mu.Unlock()
	require.Len(t, kh.outcomes, 1)
	o := kh.outcomes[0]
	assert.False(t, o.Passed)
	assert.Equal(t, failure.Misconfigured, o.Kind)
	assert.False(t, o.Kind.Learnable(), "infrastructure is never learned")
	assert.Equal(t, []string{"fact:f3", "docs:local:net/http"}, o.IDs)
}

// A rehearsed task hands the rehearsal the knowledge ids its context
// carries, so the session keeps them as provenance ("why" panel).
func TestRehearsalGetsTheKnowledgeIDs(t *testing.T) {
	t.Parallel()
	kh := &fakeKnowledge{}
	rh := &fakeRehearsal{}
	h := newHarness(t, harnessOpts{hooks: build.Hooks{Knowledge: kh, Rehearsal: rh},
		cfg: build.Config{Tier: "premium", PromptTokens: 10000}})
	ctx := context.Background()
	b, err := h.Eng.Create(ctx, plan("risky-1:MARS:0"), "p.json", build.Options{Autonomy: intp(3)})
	require.NoError(t, err)
	b, err = h.Eng.Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	rh.mu.Lock()
	defer rh.mu.Unlock()
	require.Len(t, rh.calls, 1)
	assert.Equal(t, []string{"fact:f3", "docs:local:net/http"}, rh.calls[0].KnowledgeIDs)
	assert.Contains(t, strings.Join(rh.calls[0].Context, "\n"), "Handlers return JSON errors.")
}
