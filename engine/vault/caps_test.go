package vault_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// fill adds n Pattern nodes with the given confidence (premium-free path:
// one batch that fits the cap).
func fill(t *testing.T, e *testEnv, n int, conf float64) []vault.Node {
	t.Helper()
	nodes := make([]vault.Node, n)
	for i := range nodes {
		nodes[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("stored rule %d", i), Confidence: conf}
	}
	out, err := e.v.AddBatch(t.Context(), nodes)
	require.NoError(t, err)
	return out
}

func nodeCount(t *testing.T, e *testEnv) int {
	t.Helper()
	st, err := e.v.Stats(t.Context())
	require.NoError(t, err)
	return st.Nodes
}

func TestCapErrorNamesTierCapCountAndHowToSwitch(t *testing.T) {
	t.Parallel()
	err := vault.CheckCap(vault.TierFree, 40, 10000)
	require.Error(t, err)
	assert.ErrorIs(t, err, vault.ErrOverCap)
	var ce *vault.CapError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 10040, ce.Would)
	msg := err.Error()
	for _, want := range []string{"free tier", "500", "10,040", "tier: premium", "NOVA_TIER=premium", "nothing was written"} {
		assert.Contains(t, msg, want)
	}
	assert.NoError(t, vault.CheckCap(vault.TierFree, 499, 1))
	assert.NoError(t, vault.CheckCap(vault.TierPremium, 1_000_000, 5))
	assert.NoError(t, vault.CheckCap(vault.TierFree, 600, 0), "a write that adds nothing passes")
}

// Regression (issue 10): a free-tier import of 10,000 nodes succeeded and
// the next add deleted 9,541 nodes. Now the import is refused with nothing
// written, and so is the add that would cross the cap.
func TestUserWritesAreRefusedOverTheCapWithNothingWritten(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierFree))
	fill(t, e, 40, 0.9)

	big := make([]vault.Node, 10_000)
	for i := range big {
		big[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("imported %d", i)}
	}
	_, err := e.v.AddBatch(t.Context(), big)
	require.ErrorIs(t, err, vault.ErrOverCap)
	assert.Contains(t, err.Error(), "10,040")
	assert.Equal(t, 40, nodeCount(t, e), "nothing was written")

	// The JSONL import path is refused the same way.
	var dump bytes.Buffer
	for i := range 480 {
		fmt.Fprintf(&dump, `{"kind":"node","id":%d,"type":"Pattern","content":"dump %d"}`+"\n", 1000+i, i)
	}
	_, err = e.v.Import(t.Context(), &dump)
	require.ErrorIs(t, err, vault.ErrOverCap)
	assert.Contains(t, err.Error(), "520")
	assert.Equal(t, 40, nodeCount(t, e))

	fill(t, e, 460, 0.9) // exactly at the cap
	_, err = e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "one too many"})
	require.ErrorIs(t, err, vault.ErrOverCap)
	_, err = e.v.Learn(t.Context(), vault.Node{Type: vault.Strategy, Content: "a user's lesson", Confidence: 0.99})
	require.ErrorIs(t, err, vault.ErrOverCap, "vault add is a user write: refused, never evicting")
	assert.Equal(t, 500, nodeCount(t, e))
	arch, err := e.v.Archived(t.Context())
	require.NoError(t, err)
	assert.Empty(t, arch, "user writes never archive")

	// A duplicate adds no node: it is reinforced even when the vault is full.
	res, err := e.v.Learn(t.Context(), vault.Node{Type: vault.Pattern, Content: "stored rule 3"})
	require.NoError(t, err)
	assert.False(t, res.Created)
	assert.Equal(t, 500, nodeCount(t, e))
	e.verify()
}

// Regression (issue 10): a 0.70-confidence add evicted nodes of 0.85 and
// above. Learning never archives a node at least as confident as the
// incoming one; when there is none the learned node is not stored.
func TestLearningNeverArchivesMoreConfidentNodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierFree))
	stored := fill(t, e, 500, 0.85)
	rs, err := e.v.LearnAs(t.Context(), vault.ByLearning, vault.Node{Type: vault.Mistake, Content: "a weak lesson", Confidence: 0.7})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.True(t, rs[0].NotStored, "no node is less confident: the lesson is left out")
	assert.False(t, rs[0].Created)
	assert.Empty(t, rs[0].Evicted)
	assert.Equal(t, 500, nodeCount(t, e))
	for _, id := range []uint64{stored[0].ID, stored[499].ID} {
		_, err := e.v.Get(t.Context(), id)
		assert.NoError(t, err)
	}
	e.mu.Lock()
	last := e.changes[len(e.changes)-1]
	e.mu.Unlock()
	assert.Equal(t, 1, last.NotStored, "the change event says a node was left out")
}

// Learning archives at most what the one write needs, least confident first.
func TestLearningArchivesOneLeastConfidentNodeWithItsEdges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierFree))
	stored := fill(t, e, 498, 0.9)
	low := e.add(vault.Node{Type: vault.Pattern, Content: "weak pattern", Body: "long body of the weak pattern", Confidence: 0.2, Tags: []string{"weak"}})
	lower := e.add(vault.Node{Type: vault.Pattern, Content: "weaker pattern", Confidence: 0.1})
	e.link(low.ID, stored[0].ID, vault.Supports)
	e.link(stored[1].ID, low.ID, vault.Refines)
	e.link(lower.ID, low.ID, vault.DependsOn)

	rs, err := e.v.LearnAs(t.Context(), vault.ByLearning,
		vault.Node{Type: vault.Strategy, Content: "first lesson", Confidence: 0.6},
		vault.Node{Type: vault.Strategy, Content: "second lesson", Confidence: 0.6})
	require.NoError(t, err)
	require.Len(t, rs, 2)
	assert.Equal(t, []uint64{lower.ID}, rs[0].Evicted, "the least confident goes first")
	assert.Equal(t, []uint64{low.ID}, rs[1].Evicted, "one node per learned node")
	assert.Equal(t, 500, nodeCount(t, e))

	e.mu.Lock()
	last := e.changes[len(e.changes)-1]
	e.mu.Unlock()
	assert.Equal(t, []uint64{lower.ID, low.ID}, last.Archived, "one change, with the archived nodes as a list")

	arch, err := e.v.Archived(t.Context())
	require.NoError(t, err)
	require.Len(t, arch, 2)
	a, err := e.v.ArchivedNodeByID(t.Context(), low.ID)
	require.NoError(t, err)
	assert.Equal(t, "long body of the weak pattern", a.Node.Body, "the body is kept")
	assert.Len(t, a.Edges, 2, "edges to nodes that stayed; the one to the node archived before it went with that node")
	assert.Contains(t, a.Reason, "free tier")
	e.verify()
}

func TestRestoreBringsNodeAndEdgesBackAndIsRefusedOverTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierFree))
	stored := fill(t, e, 497, 0.9)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "archived a", Body: "body a", Confidence: 0.1})
	b := e.add(vault.Node{Type: vault.Pattern, Content: "archived b", Confidence: 0.2})
	c := e.add(vault.Node{Type: vault.Pattern, Content: "kept c", Confidence: 0.95})
	e.link(a.ID, b.ID, vault.Supports)
	e.link(a.ID, stored[0].ID, vault.Refines)
	e.link(c.ID, b.ID, vault.DependsOn)
	_, err := e.v.LearnAs(t.Context(), vault.ByLearning,
		vault.Node{Type: vault.Strategy, Content: "lesson one", Confidence: 0.5},
		vault.Node{Type: vault.Strategy, Content: "lesson two", Confidence: 0.5})
	require.NoError(t, err)
	_, err = e.v.Get(t.Context(), a.ID)
	require.ErrorIs(t, err, vault.ErrNotFound)

	_, err = e.v.Restore(t.Context(), b.ID)
	require.ErrorIs(t, err, vault.ErrOverCap, "the vault is full: restore is a user write")
	assert.Contains(t, err.Error(), "NOVA_TIER=premium")

	require.NoError(t, e.v.Remove(t.Context(), stored[10].ID))
	require.NoError(t, e.v.Remove(t.Context(), stored[11].ID))

	ra, err := e.v.Restore(t.Context(), a.ID)
	require.NoError(t, err)
	assert.Equal(t, a.ID, ra.Node.ID, "same id")
	assert.Equal(t, 1, ra.Edges, "a → stored[0] comes back")
	assert.Equal(t, 1, ra.Deferred, "a → b waits for b, which is archived too")
	rb, err := e.v.Restore(t.Context(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, rb.Edges, "c → b, and a → b handed over by a's restore")
	got, err := e.v.Get(t.Context(), a.ID)
	require.NoError(t, err)
	assert.Equal(t, "body a", got.Body)
	edges, err := e.v.Edges(t.Context(), b.ID)
	require.NoError(t, err)
	assert.Len(t, edges, 2)
	arch, err := e.v.Archived(t.Context())
	require.NoError(t, err)
	assert.Empty(t, arch)
	hits, err := e.v.Search(t.Context(), "archived", vault.SearchOptions{Limit: 5})
	require.NoError(t, err)
	assert.Len(t, hits, 2, "restored nodes are searchable again")
	_, err = e.v.Restore(t.Context(), a.ID)
	assert.ErrorIs(t, err, vault.ErrNotFound)
	e.verify()
}

func TestForgetLeavesATombstoneForImportedNodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	imported := e.add(vault.Node{Type: vault.Pattern, Content: "imported pattern", UserID: "nova-starter",
		Source: "01-security/input.md", Meta: map[string]string{vault.MetaContentHash: "abc123"}})
	manual := e.add(vault.Node{Type: vault.Pattern, Content: "typed by hand"})
	require.NoError(t, e.v.Remove(t.Context(), imported.ID))
	require.NoError(t, e.v.Remove(t.Context(), manual.ID))
	ts, err := e.v.Tombstones(t.Context())
	require.NoError(t, err)
	require.Len(t, ts, 1, "manual nodes need no tombstone")
	assert.Equal(t, "nova-starter", ts[0].User)
	assert.Equal(t, "01-security/input.md", ts[0].Source)
	assert.Equal(t, "abc123", ts[0].ContentHash)
	require.NoError(t, e.v.WithReadTx(t.Context(), func(r *vault.ReadTx) error {
		tomb, ok := r.Forgotten("nova-starter", "01-security/input.md")
		assert.True(t, ok)
		assert.Equal(t, imported.ID, tomb.NodeID)
		_, ok = r.Forgotten("someone-else", "01-security/input.md")
		assert.False(t, ok)
		return nil
	}))
}

func TestCapacityReportsCapNodesAndArchive(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierFree))
	fill(t, e, 499, 0.9)
	e.add(vault.Node{Type: vault.Pattern, Content: "weakest", Confidence: 0.1})
	_, err := e.v.LearnAs(t.Context(), vault.ByLearning, vault.Node{Type: vault.Strategy, Content: "lesson", Confidence: 0.5})
	require.NoError(t, err)
	c, err := e.v.Capacity(t.Context())
	require.NoError(t, err)
	assert.Equal(t, vault.Capacity{Tier: vault.TierFree, Cap: 500, Nodes: 500, Free: 0, Archived: 1}, c)
	assert.ErrorIs(t, e.v.CheckAdd(t.Context(), 1), vault.ErrOverCap)
	assert.NoError(t, e.v.CheckAdd(t.Context(), 0))
}

// A dump large enough to be written in several journaled transactions is held
// to the same cap: refused with the whole dump's count, nothing left behind,
// including when the cap is crossed only by a later chunk.
func TestJournaledImportIsRefusedOverTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierFree))
	vault.SetImportChunk(e.v, 100)
	fill(t, e, 40, 0.9)
	revBefore, err := e.v.Revision(t.Context())
	require.NoError(t, err)

	var dump bytes.Buffer
	for i := range 600 {
		fmt.Fprintf(&dump, `{"kind":"node","id":%d,"type":"Pattern","content":"dump %d"}`+"\n", 1000+i, i)
	}
	_, err = e.v.Import(t.Context(), &dump)
	require.ErrorIs(t, err, vault.ErrOverCap)
	var ce *vault.CapError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 640, ce.Would, "the whole dump is counted")
	assert.Equal(t, 40, nodeCount(t, e), "nothing was written")

	// 461 new nodes do not fit in 460 free places; the chunk that crosses the cap is the
	// fifth, after four were written.
	dump.Reset()
	for i := range 461 {
		fmt.Fprintf(&dump, `{"kind":"node","id":%d,"type":"Pattern","content":"late %d"}`+"\n", 5000+i, i)
	}
	_, err = e.v.Import(t.Context(), &dump)
	require.ErrorIs(t, err, vault.ErrOverCap)
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 501, ce.Would)
	assert.Equal(t, 40, nodeCount(t, e), "the chunks written before the cap was crossed are rolled back")
	hits, err := e.v.Search(t.Context(), "late", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Empty(t, hits, "the full-text index holds none of them")

	dump.Reset()
	for i := range 460 {
		fmt.Fprintf(&dump, `{"kind":"node","id":%d,"type":"Pattern","content":"fits %d"}`+"\n", 9000+i, i)
	}
	rep, err := e.v.Import(t.Context(), &dump)
	require.NoError(t, err)
	assert.Equal(t, 460, rep.Nodes)
	assert.Equal(t, 500, nodeCount(t, e))
	revAfter, err := e.v.Revision(t.Context())
	require.NoError(t, err)
	assert.Greater(t, revAfter, revBefore)
	e.verify()
}
