package knowledge_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/knowledge/facts"
)

func TestARetryThatFixedAFailureIsLearnedAsTroubleshooting(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, options{})
	ctx := t.Context()
	fixed := build.Task{ID: "t1", Title: "Add the health handler", Status: build.TaskDone, History: []build.Attempt{
		{N: 1, Reason: "go test: undefined: healthHandler in main_test.go", Kind: failure.WorkFailed, Agent: "implementer", Tier: "small",
			Hypothesis: "the test names a handler the change never defined",
			HintNotes:  []agents.HintNote{{Action: agents.HintEscalateModel, Note: "a larger model can hold the test and the handler together"}}},
		{N: 2, Passed: true, Agent: "implementer", Tier: "medium"},
	}}
	// A failure of the model server is infrastructure: nothing to learn.
	infra := build.Task{ID: "t2", Title: "Add docs", Status: build.TaskDone, History: []build.Attempt{
		{N: 1, Reason: "the model server went away", Kind: failure.Unreachable},
		{N: 2, Passed: true},
	}}
	// Passed at once, or never: nothing to learn.
	first := build.Task{ID: "t3", Title: "Rename", Status: build.TaskDone, History: []build.Attempt{{N: 1, Passed: true}}}
	blocked := build.Task{ID: "t4", Title: "Port", Status: build.TaskBlocked, History: []build.Attempt{{N: 1, Reason: "no", Kind: failure.WorkFailed}}}

	added, err := fx.svc.LearnTroubleshooting(ctx, build.Build{ID: 7}, []build.Task{fixed, infra, first, blocked})
	require.NoError(t, err)
	require.Len(t, added, 1)
	f := added[0]
	assert.Equal(t, facts.CategoryTroubleshooting, f.Category)
	assert.Equal(t, "build:7", f.Scope.String())
	assert.Equal(t, "t1", f.Source.TaskID)
	assert.Contains(t, f.Problem, "Add the health handler: go test: undefined: healthHandler")
	assert.Contains(t, f.Content, "it ran on the medium tier instead of small")
	assert.Contains(t, f.Content, "the likely cause was the test names a handler")

	// The same build again learns nothing twice.
	again, err := fx.svc.LearnTroubleshooting(ctx, build.Build{ID: 7}, []build.Task{fixed})
	require.NoError(t, err)
	assert.Empty(t, again)
}
