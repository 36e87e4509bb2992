package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// revertFixture sets up a build task whose prompt drew on one playbook rule and
// one vault node, and an applied changeset it staged; it returns the
// workspace, the changeset, the rule and the node.
func revertFixture(t *testing.T) (*engine.Local, uint64, string, uint64) {
	t.Helper()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })

	rule, err := ws.AddRule(ctx, "MARS", "Wrap handlers in a recovery middleware", nil, 0.8)
	require.NoError(t, err)
	node, err := ws.LearnNode(ctx, vault.Node{Type: vault.Pattern, Content: "Recovery middleware around every handler", Confidence: 0.8})
	require.NoError(t, err)

	path := filepath.Join(root, "plan.json")
	require.NoError(t, os.WriteFile(path, []byte(facadePRD), 0o644))
	b, err := ws.CreateBuild(ctx, path, engine.BuildOptions{})
	require.NoError(t, err)
	tasks, err := ws.BuildTasks(ctx, b.ID)
	require.NoError(t, err)
	task := tasks[0]
	task.RuleIDs, task.VaultNodeIDs = []string{rule.Rule.ID}, []uint64{node.Node.ID}
	require.NoError(t, ws.DB().Update(func(tx *bolt.Tx) error {
		key := append(storage.Key(b.ID), storage.Key(uint64(task.Ordinal))...)
		return storage.Codec[build.Task]{Version: 1}.Put(tx.Bucket(storage.BucketBuildTasks), key, task)
	}))

	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644))
	d := ws.Changes().NewDraft(changes.Meta{Agent: "MARS", Task: "one", BuildID: "1", TaskID: task.ID})
	id, err := d.Put(ctx, "main.go", []byte("package main\n\nfunc main() {}\n"))
	require.NoError(t, err)
	_, err = ws.ApplyChange(ctx, id, changes.ApplyOptions{}, "")
	require.NoError(t, err)
	return ws, id, rule.Rule.ID, node.Node.ID
}

func ruleOf(t *testing.T, ws *engine.Local, agent, id string) ace.Rule {
	t.Helper()
	p, err := ws.GetPlaybook(context.Background(), agent)
	require.NoError(t, err)
	for _, r := range p.Rules {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no rule %s", id)
	return ace.Rule{}
}

func mistakeRules(t *testing.T, ws *engine.Local) int {
	t.Helper()
	p, err := ws.GetPlaybook(context.Background(), "MARS")
	require.NoError(t, err)
	n := 0
	for _, r := range p.Rules {
		if r.Kind == ace.KindMistake {
			n++
		}
	}
	return n
}

// DESIGN "Revert": a revert is learned once, like a rejection: the agent's
// playbook records it and the rule and node that shaped the change are
// demoted. Bringing the change back (revert of the revert) and undoing it
// again learn nothing more.
func TestRevertIsLearnedOnceLikeARejection(t *testing.T) {
	t.Parallel()
	ws, id, ruleID, nodeID := revertFixture(t)
	ctx := context.Background()
	before := ruleOf(t, ws, "MARS", ruleID)
	nodeBefore, err := ws.GetNode(ctx, nodeID)
	require.NoError(t, err)
	mistakesBefore := mistakeRules(t, ws)

	r1, err := ws.RevertChange(ctx, id, changes.RevertOptions{}, "it broke the build")
	require.NoError(t, err)
	assert.True(t, r1.Learned)
	assert.Equal(t, 1, r1.DemotedRules)
	assert.Equal(t, 1, r1.DemotedNodes)
	after := ruleOf(t, ws, "MARS", ruleID)
	assert.Equal(t, before.HarmfulCount+1, after.HarmfulCount)
	assert.Less(t, after.Confidence, before.Confidence)
	nodeAfter, err := ws.GetNode(ctx, nodeID)
	require.NoError(t, err)
	assert.InDelta(t, nodeBefore.Confidence-0.1, nodeAfter.Confidence, 1e-9)
	assert.Equal(t, mistakesBefore+1, mistakeRules(t, ws), "the rejection is a rule of the agent's playbook")

	// Bring it back, then undo it again: nothing more is learned.
	r2, err := ws.RevertChange(ctx, r1.Revert.ID, changes.RevertOptions{}, "")
	require.NoError(t, err)
	assert.False(t, r2.Learned)
	r3, err := ws.RevertChange(ctx, r2.Revert.ID, changes.RevertOptions{}, "")
	require.NoError(t, err)
	assert.False(t, r3.Learned, "the same change is never learned twice")
	assert.Equal(t, after.HarmfulCount, ruleOf(t, ws, "MARS", ruleID).HarmfulCount)
	nodeEnd, err := ws.GetNode(ctx, nodeID)
	require.NoError(t, err)
	assert.InDelta(t, nodeAfter.Confidence, nodeEnd.Confidence, 1e-9)
	p, err := ws.GetPlaybook(ctx, "MARS")
	require.NoError(t, err)
	var signals int
	for _, r := range p.Rules {
		if r.Kind == ace.KindMistake {
			signals++
		}
	}
	assert.Equal(t, mistakesBefore+1, signals)
}

// The edit verb: the edited proposal is what is applied.
func TestEditChangeIsWhatIsApplied(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	d := ws.Changes().NewDraft(changes.Meta{Agent: "MARS", Task: "x"})
	id, err := d.Put(ctx, "notes.md", []byte("model's words\n"))
	require.NoError(t, err)
	cs, err := ws.EditChange(ctx, id, "notes.md", "my words\n")
	require.NoError(t, err)
	assert.Contains(t, cs.Diff(), "+my words")
	_, err = ws.ApplyChange(ctx, id, changes.ApplyOptions{}, "")
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(root, "notes.md"))
	require.NoError(t, err)
	assert.Equal(t, "my words\n", string(got))
}
