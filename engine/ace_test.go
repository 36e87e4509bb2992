package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
)

func TestACEFacadeSummaryAndChangeSignals(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil), NoSync: true})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	w := ws
	require.NotNil(t, w.ACE())

	_, _, err = w.ACE().Playbooks().AddRule(ctx, "MARS", "Run go vet", nil, 0.9)
	require.NoError(t, err)
	_, err = w.ACE().Playbooks().AddPending(ctx, "MARS", ace.Delta{Op: ace.OpAdd, Content: "Maybe this", Confidence: 0.6}, "review")
	require.NoError(t, err)
	before, err := w.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, before.Playbooks)
	assert.GreaterOrEqual(t, before.PendingApprovals, 1, "pending deltas count as pending approvals")

	run, err := ws.Runs().Create(ctx, agents.Run{Agent: "VENUS", Task: "Build the settings page layout"})
	require.NoError(t, err)
	buildRun, err := ws.Runs().Create(ctx, agents.Run{Agent: "VENUS", Task: "Build the settings page layout", BuildID: "7", TaskID: "T1"})
	require.NoError(t, err)
	n := 0
	stage := func(runID uint64) uint64 {
		n++
		d := w.Changes().NewDraft(changes.Meta{RunID: runID, Agent: "VENUS", Task: "Build the settings page layout"})
		id, err := d.Put(ctx, "page.css", []byte(fmt.Sprintf("body{margin:%dpx}", n)))
		require.NoError(t, err)
		return id
	}
	rules := func() []ace.Rule {
		p, err := w.ACE().Playbooks().GetPlaybook(ctx, "venus")
		require.NoError(t, err)
		return p.Rules
	}

	// The build engine discards failed attempts itself: not a user signal.
	_, err = w.Changes().Discard(ctx, stage(buildRun.ID))
	require.NoError(t, err)
	assert.Empty(t, rules())

	// A user discarding a single run's changeset teaches its playbook.
	_, err = w.Changes().Discard(ctx, stage(run.ID))
	require.NoError(t, err)
	require.Len(t, rules(), 1)
	assert.Equal(t, ace.KindMistake, rules()[0].Kind)
	assert.Contains(t, rules()[0].Tags, "ui")

	// Applying one is an approval.
	_, err = w.Changes().Apply(ctx, stage(run.ID), changes.ApplyOptions{})
	require.NoError(t, err)
	require.Len(t, rules(), 2)
	assert.Equal(t, ace.KindStrategy, rules()[1].Kind)

	// Build changesets are learned from through the explicit user paths,
	// with the reason, once.
	_, err = w.DiscardChange(ctx, stage(buildRun.ID), "it ignored the theme tokens")
	require.NoError(t, err)
	require.Len(t, rules(), 3)
	assert.Contains(t, rules()[2].Content, "it ignored the theme tokens")
	rep0, err := w.ApplyChange(ctx, stage(buildRun.ID), changes.ApplyOptions{}, "")
	require.NoError(t, err)
	assert.Equal(t, changes.StatusApplied, rep0.Changeset.Status)
	require.Len(t, rules(), 3, "a generic approval reinforces the existing rule")
	p, err := w.ACE().Playbooks().GetPlaybook(ctx, "venus")
	require.NoError(t, err)
	assert.Equal(t, 4, p.Version)

	rep, err := w.RecordUserSignal(ctx, "venus", "ui", false, "the colours were hard-coded")
	require.NoError(t, err)
	assert.NotZero(t, rep.VaultID, "the reason is learned by the vault too")
	node, err := w.Vault().Get(ctx, rep.VaultID)
	require.NoError(t, err)
	assert.Equal(t, "the colours were hard-coded", node.Content)
}

func TestACEReadOnlyWorkspaceReads(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil), NoSync: true})
	require.NoError(t, err)
	_, _, err = ws.ACE().Playbooks().AddRule(ctx, "MARS", "Run go vet", nil, 0.9)
	require.NoError(t, err)
	require.NoError(t, ws.Close())

	ro, err := engine.Open(ctx, engine.Options{Root: root, ReadOnly: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ro.Close() }()
	inj, err := ro.ACE().Context(ctx, "MARS", "vet the code", 100)
	require.NoError(t, err, "a read-only workspace still renders the block")
	assert.Equal(t, []string{"r1"}, inj.RuleIDs)
	_, _, err = ro.ACE().Playbooks().AddRule(ctx, "MARS", "x", nil, 0.9)
	assert.Error(t, err)
}
