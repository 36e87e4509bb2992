package vault_test

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

func TestAddAssignsIDsDefaultsAndTimestamps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "  Wrap errors with %w  ", Tags: []string{"Go", "#errors", "go", " "}})
	b := e.add(vault.Node{Type: vault.Strategy, Content: "Plan before coding", Confidence: 0.9, UserID: "ana"})
	assert.Equal(t, uint64(1), a.ID)
	assert.Equal(t, uint64(2), b.ID)
	assert.Equal(t, "Wrap errors with %w", a.Content, "content is trimmed")
	assert.InDelta(t, vault.DefaultConfidence, a.Confidence, 1e-9)
	assert.Equal(t, []string{"go", "errors"}, a.Tags, "tags lower-cased, deduplicated, # dropped")
	assert.Equal(t, "local", a.UserID)
	assert.Equal(t, "ana", b.UserID)
	assert.Equal(t, vault.SourceManual, a.Source)
	assert.Equal(t, t0, a.CreatedAt)
	assert.Equal(t, t0, a.UpdatedAt)

	raw, err := json.Marshal(a)
	require.NoError(t, err)
	for _, field := range []string{`"id":1`, `"type":"Pattern"`, `"content":`, `"confidence":0.7`, `"helpfulCount":0`,
		`"tags":["go","errors"]`, `"userId":"local"`, `"isGlobal":false`, `"source":"manual"`, `"createdAt":`, `"updatedAt":`, `"globalSuccessCount":0`} {
		assert.Contains(t, string(raw), field)
	}
	e.verify()
}

func TestAddRejectsBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	long := strings.Repeat("x", vault.MaxContentLen+1)
	manyTags := make([]string, vault.MaxTags+1)
	for i := range manyTags {
		manyTags[i] = "t" + strings.Repeat("a", i)
	}
	cases := map[string]vault.Node{
		"empty content":      {Type: vault.Pattern, Content: "   \n\t"},
		"unknown type":       {Type: "Recipe", Content: "x"},
		"confidence above 1": {Type: vault.Pattern, Content: "x", Confidence: 1.2},
		"negative conf":      {Type: vault.Pattern, Content: "x", Confidence: -0.1},
		"NaN confidence":     {Type: vault.Pattern, Content: "x", Confidence: math.NaN()},
		"content too long":   {Type: vault.Pattern, Content: long},
		"too many tags":      {Type: vault.Pattern, Content: "x", Tags: manyTags},
		"negative helpful":   {Type: vault.Pattern, Content: "x", HelpfulCount: -1},
	}
	for name, n := range cases {
		_, err := e.v.Add(t.Context(), n)
		assert.ErrorIs(t, err, vault.ErrInvalid, name)
	}
	st, err := e.v.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 0, st.Nodes, "nothing was stored")
}

func TestParseNodeTypeAndRelation(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]vault.NodeType{"pattern": vault.Pattern, "STRATEGY": vault.Strategy,
		" Mistakes ": vault.Mistake, "preference": vault.Preference, "decision": vault.Decision, "strategies": vault.Strategy} {
		got, err := vault.ParseNodeType(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := vault.ParseNodeType("idea")
	assert.ErrorIs(t, err, vault.ErrInvalid)
	for in, want := range map[string]vault.Relation{"supports": vault.Supports, "Contradicts": vault.Contradicts,
		"depends-on": vault.DependsOn, "dependsOn": vault.DependsOn, "REPLACES": vault.Replaces} {
		got, err := vault.ParseRelation(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err = vault.ParseRelation("likes")
	assert.ErrorIs(t, err, vault.ErrInvalid)
}

func TestGetReturnsBodyListingsDoNot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.add(vault.Node{Type: vault.Pattern, Title: "Sessions", Content: "Keep sessions in cookies", Body: "Long explanation\nwith lines."})
	got, err := e.v.Get(t.Context(), n.ID)
	require.NoError(t, err)
	assert.Equal(t, "Long explanation\nwith lines.", got.Body)
	assert.True(t, got.HasBody)
	p, err := e.v.List(t.Context(), vault.ListOptions{})
	require.NoError(t, err)
	require.Len(t, p.Nodes, 1)
	assert.Empty(t, p.Nodes[0].Body)
	assert.True(t, p.Nodes[0].HasBody)
	_, err = e.v.Get(t.Context(), 42)
	assert.ErrorIs(t, err, vault.ErrNotFound)
	assert.ErrorIs(t, err, storage.ErrNotFound, "the sentinels are the same")
}

func TestUpdateChangesOnlyGivenFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.add(vault.Node{Type: vault.Pattern, Title: "T", Content: "Use table tests", Body: "body", Tags: []string{"go"}, Language: "go"})
	e.clock.Advance(time.Hour)
	got, err := e.v.Update(t.Context(), n.ID, vault.Patch{Confidence: vault.Ptr(0.95), Tags: &[]string{"testing"}})
	require.NoError(t, err)
	assert.InDelta(t, 0.95, got.Confidence, 1e-9)
	assert.Equal(t, []string{"testing"}, got.Tags)
	assert.Equal(t, "Use table tests", got.Content)
	assert.Equal(t, "T", got.Title)
	assert.Equal(t, "body", got.Body)
	assert.Equal(t, "go", got.Language)
	assert.Equal(t, t0, got.CreatedAt)
	assert.Equal(t, t0.Add(time.Hour), got.UpdatedAt)

	byOld, err := e.v.ByTag(t.Context(), "go", 0)
	require.NoError(t, err)
	assert.Empty(t, byOld, "the old tag's index entry is gone")
	byNew, err := e.v.ByTag(t.Context(), "testing", 0)
	require.NoError(t, err)
	assert.Equal(t, []uint64{n.ID}, ids(byNew))

	got, err = e.v.Update(t.Context(), n.ID, vault.Patch{Type: vault.Ptr(vault.Decision), Body: vault.Ptr("")})
	require.NoError(t, err)
	assert.Equal(t, vault.Decision, got.Type)
	full, err := e.v.Get(t.Context(), n.ID)
	require.NoError(t, err)
	assert.Empty(t, full.Body)
	assert.False(t, full.HasBody)
	e.verify()
}

func TestUpdateValidates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.add(vault.Node{Type: vault.Pattern, Content: "x"})
	_, err := e.v.Update(t.Context(), n.ID, vault.Patch{Confidence: vault.Ptr(2.0)})
	assert.ErrorIs(t, err, vault.ErrInvalid)
	_, err = e.v.Update(t.Context(), n.ID, vault.Patch{Content: vault.Ptr(" ")})
	assert.ErrorIs(t, err, vault.ErrInvalid)
	_, err = e.v.Update(t.Context(), n.ID, vault.Patch{Type: vault.Ptr(vault.NodeType("Nope"))})
	assert.ErrorIs(t, err, vault.ErrInvalid)
	_, err = e.v.Update(t.Context(), 99, vault.Patch{Content: vault.Ptr("y")})
	assert.ErrorIs(t, err, vault.ErrNotFound)
	got, err := e.v.Get(t.Context(), n.ID)
	require.NoError(t, err)
	assert.Equal(t, "x", got.Content, "failed updates change nothing")
}

func TestRemoveDeletesEdgesBodyAndIndexes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "a", Body: "body a", Tags: []string{"x"}})
	b := e.add(vault.Node{Type: vault.Pattern, Content: "b"})
	c := e.add(vault.Node{Type: vault.Pattern, Content: "c"})
	e.link(a.ID, b.ID, vault.Supports)
	e.link(c.ID, a.ID, vault.Refines)
	keep := e.link(b.ID, c.ID, vault.DependsOn)
	require.NoError(t, e.v.Remove(t.Context(), a.ID))
	_, err := e.v.Get(t.Context(), a.ID)
	assert.ErrorIs(t, err, vault.ErrNotFound)
	st, err := e.v.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2, st.Nodes)
	assert.Equal(t, 1, st.Edges, "only the edge not touching the node survives")
	edges, err := e.v.Edges(t.Context(), b.ID)
	require.NoError(t, err)
	require.Len(t, edges, 1)
	assert.Equal(t, keep.ID, edges[0].ID)
	assert.ErrorIs(t, e.v.Remove(t.Context(), a.ID), vault.ErrNotFound)
	e.verify()
}

func TestLinkRefusesMissingNodesSelfAndBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "a"})
	b := e.add(vault.Node{Type: vault.Pattern, Content: "b"})
	_, err := e.v.Link(t.Context(), a.ID, 77, vault.Supports, 0.5)
	assert.ErrorIs(t, err, vault.ErrNotFound)
	_, err = e.v.Link(t.Context(), 77, a.ID, vault.Supports, 0.5)
	assert.ErrorIs(t, err, vault.ErrNotFound)
	_, err = e.v.Link(t.Context(), a.ID, a.ID, vault.Supports, 0.5)
	assert.ErrorIs(t, err, vault.ErrInvalid)
	_, err = e.v.Link(t.Context(), a.ID, b.ID, "likes", 0.5)
	assert.ErrorIs(t, err, vault.ErrInvalid)
	_, err = e.v.Link(t.Context(), a.ID, b.ID, vault.Supports, 1.5)
	assert.ErrorIs(t, err, vault.ErrInvalid)
	st, err := e.v.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 0, st.Edges)
}

func TestLinkTwiceUpdatesStrength(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "a"})
	b := e.add(vault.Node{Type: vault.Pattern, Content: "b"})
	first, err := e.v.Link(t.Context(), a.ID, b.ID, vault.Supports, 0)
	require.NoError(t, err)
	assert.InDelta(t, vault.DefaultStrength, first.Strength, 1e-9)
	second, err := e.v.Link(t.Context(), a.ID, b.ID, "SUPPORTS", 0.9)
	require.NoError(t, err)
	assert.Equal(t, first.ID, second.ID)
	assert.InDelta(t, 0.9, second.Strength, 1e-9)
	other, err := e.v.Link(t.Context(), b.ID, a.ID, vault.Supports, 0.3)
	require.NoError(t, err)
	assert.NotEqual(t, first.ID, other.ID, "edges are directed")
	st, _ := e.v.Stats(t.Context())
	assert.Equal(t, 2, st.Edges)
}

func TestRelatedAndNeighbours(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "a"})
	b := e.add(vault.Node{Type: vault.Pattern, Content: "b"})
	c := e.add(vault.Node{Type: vault.Pattern, Content: "c"})
	d := e.add(vault.Node{Type: vault.Pattern, Content: "d"})
	e.link(a.ID, b.ID, vault.Supports)
	e.link(c.ID, a.ID, vault.Supports)
	e.link(a.ID, d.ID, vault.Replaces)

	all, err := e.v.Related(t.Context(), a.ID, "")
	require.NoError(t, err)
	require.Len(t, all, 3)
	sup, err := e.v.Related(t.Context(), a.ID, vault.Supports)
	require.NoError(t, err)
	require.Len(t, sup, 2)
	assert.Equal(t, "out", sup[0].Direction)
	assert.Equal(t, b.ID, sup[0].Node.ID)
	assert.Equal(t, "in", sup[1].Direction)
	assert.Equal(t, c.ID, sup[1].Node.ID)

	groups, err := e.v.Neighbours(t.Context(), a.ID)
	require.NoError(t, err)
	require.Len(t, groups, 2)
	assert.Equal(t, vault.Supports, groups[0].Relation)
	assert.Len(t, groups[0].Out, 1)
	assert.Len(t, groups[0].In, 1)
	assert.Equal(t, vault.Replaces, groups[1].Relation)
	assert.Equal(t, d.ID, groups[1].Out[0].Node.ID)

	_, err = e.v.Related(t.Context(), 99, "")
	assert.ErrorIs(t, err, vault.ErrNotFound)
	_, err = e.v.Related(t.Context(), a.ID, "hates")
	assert.ErrorIs(t, err, vault.ErrInvalid)
}

// chain builds n nodes linked 1→2→…→n with relation rel.
func chain(e *testEnv, n int, rel vault.Relation) []vault.Node {
	var nodes []vault.Node
	for i := range n {
		nodes = append(nodes, e.add(vault.Node{Type: vault.Pattern, Content: "node " + string(rune('a'+i))}))
		if i > 0 {
			e.link(nodes[i-1].ID, nodes[i].ID, rel)
		}
	}
	return nodes
}

func TestTraverseDepthRelationAndDirection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ns := chain(e, 6, vault.DependsOn)
	side := e.add(vault.Node{Type: vault.Pattern, Content: "side"})
	e.link(ns[1].ID, side.ID, vault.Supports)

	steps, err := e.v.Traverse(t.Context(), ns[0].ID, vault.TraverseOptions{})
	require.NoError(t, err)
	var got []uint64
	depth := map[uint64]int{}
	for _, s := range steps {
		got = append(got, s.Node.ID)
		depth[s.Node.ID] = s.Depth
	}
	assert.Equal(t, []uint64{ns[0].ID, ns[1].ID, ns[2].ID, side.ID, ns[3].ID}, got, "BFS order, default depth 3")
	assert.Equal(t, 2, depth[side.ID])
	assert.Nil(t, steps[0].Via)
	require.NotNil(t, steps[1].Via)
	assert.Equal(t, vault.DependsOn, steps[1].Via.Relation)

	steps, err = e.v.Traverse(t.Context(), ns[0].ID, vault.TraverseOptions{Depth: 10, Relation: vault.DependsOn})
	require.NoError(t, err)
	assert.Len(t, steps, 6, "the supports edge is not followed")

	steps, err = e.v.Traverse(t.Context(), ns[3].ID, vault.TraverseOptions{Depth: 1, Direction: vault.Incoming})
	require.NoError(t, err)
	assert.Equal(t, []uint64{ns[3].ID, ns[2].ID}, []uint64{steps[0].Node.ID, steps[1].Node.ID})
	assert.Len(t, steps, 2)

	_, err = e.v.Traverse(t.Context(), 999, vault.TraverseOptions{})
	assert.ErrorIs(t, err, vault.ErrNotFound)
	_, err = e.v.Traverse(t.Context(), ns[0].ID, vault.TraverseOptions{Direction: "sideways"})
	assert.ErrorIs(t, err, vault.ErrInvalid)
}

func TestTraverseVisitsEachNodeOnceInCycles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ns := chain(e, 4, vault.Supports)
	e.link(ns[3].ID, ns[0].ID, vault.Supports)
	e.link(ns[2].ID, ns[0].ID, vault.Refines)
	steps, err := e.v.Traverse(t.Context(), ns[0].ID, vault.TraverseOptions{Depth: 10})
	require.NoError(t, err)
	seen := map[uint64]bool{}
	for _, s := range steps {
		assert.False(t, seen[s.Node.ID], "node %d visited twice", s.Node.ID)
		seen[s.Node.ID] = true
	}
	assert.Len(t, steps, 4)
}

func TestListByTypeTagUserPagingAndTotals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var patternsWithGo []uint64
	for i := range 30 {
		typ := vault.NodeTypes()[i%5]
		tags := []string{"t" + string(rune('a'+i%3))}
		if i%2 == 0 {
			tags = append(tags, "go")
		}
		n := e.add(vault.Node{Type: typ, Content: "node number " + strings.Repeat("i", i+1), Tags: tags, UserID: []string{"ana", "bo"}[i%2]})
		if typ == vault.Pattern && i%2 == 0 {
			patternsWithGo = append(patternsWithGo, n.ID)
		}
	}
	p, err := e.v.List(t.Context(), vault.ListOptions{Type: vault.Pattern, Tag: "GO"})
	require.NoError(t, err)
	assert.Equal(t, patternsWithGo, ids(p.Nodes), "type and tag intersect")
	assert.Equal(t, len(patternsWithGo), p.Total)

	page, err := e.v.List(t.Context(), vault.ListOptions{Offset: 10, Limit: 5})
	require.NoError(t, err)
	assert.Equal(t, 30, page.Total)
	assert.Equal(t, []uint64{11, 12, 13, 14, 15}, ids(page.Nodes))

	newest, err := e.v.List(t.Context(), vault.ListOptions{Limit: 3, Newest: true})
	require.NoError(t, err)
	assert.Equal(t, []uint64{30, 29, 28}, ids(newest.Nodes))

	byUser, err := e.v.List(t.Context(), vault.ListOptions{UserID: "bo", Tag: "go"})
	require.NoError(t, err)
	assert.Equal(t, 0, byUser.Total, "bo has only odd nodes, which carry no go tag")

	conf, err := e.v.List(t.Context(), vault.ListOptions{MinConfidence: 0.5, Offset: 28, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, 30, conf.Total)
	assert.Len(t, conf.Nodes, 2)

	n, err := e.v.Count(t.Context(), vault.ListOptions{Type: vault.Mistake})
	require.NoError(t, err)
	assert.Equal(t, 6, n)
	_, err = e.v.List(t.Context(), vault.ListOptions{Type: "Nope"})
	assert.ErrorIs(t, err, vault.ErrInvalid)
}

func TestByTypeByTagHighConfidenceAndSubstring(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	low := e.add(vault.Node{Type: vault.Mistake, Content: "Forgot to close the file", Confidence: 0.4, Tags: []string{"io"}})
	mid := e.add(vault.Node{Type: vault.Pattern, Content: "Close files with defer", Confidence: 0.8})
	high := e.add(vault.Node{Type: vault.Pattern, Content: "Check errors of Close on write", Confidence: 0.95, Tags: []string{"io"}})

	pats, err := e.v.ByType(t.Context(), vault.Pattern, 0)
	require.NoError(t, err)
	assert.Equal(t, []uint64{mid.ID, high.ID}, ids(pats))
	io, err := e.v.ByTag(t.Context(), "io", 0)
	require.NoError(t, err)
	assert.Equal(t, []uint64{low.ID, high.ID}, ids(io))
	hc, err := e.v.HighConfidenceNodes(t.Context(), 0, 0)
	require.NoError(t, err)
	assert.Equal(t, []uint64{high.ID, mid.ID}, ids(hc), "threshold 0.8 by default, highest first")
	hc, err = e.v.HighConfidenceNodes(t.Context(), 0.9, 0)
	require.NoError(t, err)
	assert.Equal(t, []uint64{high.ID}, ids(hc))
	sub, err := e.v.SearchSubstring(t.Context(), "CLOSE", 0)
	require.NoError(t, err)
	assert.Equal(t, []uint64{low.ID, mid.ID, high.ID}, ids(sub))
	sub, err = e.v.SearchSubstring(t.Context(), "defer", 0)
	require.NoError(t, err)
	assert.Equal(t, []uint64{mid.ID}, ids(sub))
}

func TestReinforceDemoteAndHelpfulBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.add(vault.Node{Type: vault.Pattern, Content: "x", Confidence: 0.97})
	got, err := e.v.Reinforce(t.Context(), n.ID)
	require.NoError(t, err)
	assert.InDelta(t, 1.0, got.Confidence, 1e-9, "capped at 1")
	got, err = e.v.Reinforce(t.Context(), n.ID)
	require.NoError(t, err)
	assert.InDelta(t, 1.0, got.Confidence, 1e-9)
	for range 12 {
		got, err = e.v.Demote(t.Context(), n.ID)
		require.NoError(t, err)
	}
	assert.InDelta(t, 0.0, got.Confidence, 1e-9, "floored at 0")
	n2 := e.add(vault.Node{Type: vault.Pattern, Content: "y", Confidence: 0.7})
	got, err = e.v.Reinforce(t.Context(), n2.ID)
	require.NoError(t, err)
	assert.Equal(t, "0.75", strconv.FormatFloat(got.Confidence, 'f', -1, 64), "no floating-point residue")
	got, err = e.v.IncrementHelpful(t.Context(), n2.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.HelpfulCount)
	_, err = e.v.Reinforce(t.Context(), 999)
	assert.ErrorIs(t, err, vault.ErrNotFound)
	hc, err := e.v.HighConfidenceNodes(t.Context(), 0.01, 0)
	require.NoError(t, err)
	assert.Equal(t, []uint64{n2.ID}, ids(hc), "the confidence index follows updates")
	e.verify()
}

func TestStatsAndTags(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st, err := e.v.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 0, st.Nodes)
	assert.Zero(t, st.AvgConfidence)
	assert.Len(t, st.ByType, 5, "every type is listed, even at zero")
	a := e.add(vault.Node{Type: vault.Pattern, Content: "a", Confidence: 0.6, Tags: []string{"go", "db"}})
	b := e.add(vault.Node{Type: vault.Pattern, Content: "b", Confidence: 0.8, Tags: []string{"go"}})
	e.add(vault.Node{Type: vault.Mistake, Content: "c", Confidence: 1})
	e.link(a.ID, b.ID, vault.Contradicts)
	st, err = e.v.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 3, st.Nodes)
	assert.Equal(t, 1, st.Edges)
	assert.Equal(t, 2, st.ByType["Pattern"])
	assert.Equal(t, 1, st.ByType["Mistake"])
	assert.Equal(t, 0, st.ByType["Decision"])
	assert.InDelta(t, 0.8, st.AvgConfidence, 1e-4)
	assert.Equal(t, 1, st.Conflicts)
	assert.Equal(t, 2, st.Tags)
	tags, err := e.v.Tags(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []vault.TagCount{{Tag: "go", Count: 2}, {Tag: "db", Count: 1}}, tags)
}

// TestStatsFollowEveryWrite: Stats comes from the counters; every write,
// by this vault or by another on the same database, is counted.
func TestStatsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "a", Confidence: 0.5})
	st, err := e.v.Stats(t.Context())
	require.NoError(t, err)
	assert.InDelta(t, 0.5, st.AvgConfidence, 1e-4)
	st.ByType["Pattern"] = 99 // a caller's copy: nothing shared is touched
	again, err := e.v.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, again.ByType["Pattern"])

	_, err = e.v.Reinforce(t.Context(), a.ID)
	require.NoError(t, err)
	after, err := e.v.Stats(t.Context())
	require.NoError(t, err)
	assert.Greater(t, after.AvgConfidence, 0.5, "a confidence change is seen")
	assert.Greater(t, after.Revision, again.Revision)

	other := vault.New(e.db, e.options())
	defer other.Close()
	_, err = other.Add(t.Context(), vault.Node{Type: vault.Mistake, Content: "b", Confidence: 1})
	require.NoError(t, err)
	last, err := e.v.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2, last.Nodes, "a write by another vault on the database is seen")
	assert.Equal(t, 1, last.ByType["Mistake"])
}

func TestAddBatchIsAllOrNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	good := []vault.Node{{Type: vault.Pattern, Content: "one"}, {Type: vault.Decision, Content: "two", Body: "b"}}
	out, err := e.v.AddBatch(t.Context(), good)
	require.NoError(t, err)
	assert.Equal(t, []uint64{1, 2}, ids(out))
	_, err = e.v.AddBatch(t.Context(), []vault.Node{{Type: vault.Pattern, Content: "three"}, {Type: vault.Pattern, Content: ""}})
	require.ErrorIs(t, err, vault.ErrInvalid)
	assert.Contains(t, err.Error(), "node 2 of 2")
	st, _ := e.v.Stats(t.Context())
	assert.Equal(t, 2, st.Nodes)
	empty, err := e.v.AddBatch(t.Context(), nil)
	require.NoError(t, err)
	assert.Empty(t, empty)
	e.verify()
}

func TestChangesArePublishedAfterCommitWithRevision(t *testing.T) {
	t.Parallel()
	var e *testEnv
	var seenInDB []bool
	e = newEnv(t, func(o *vault.Options) {
		prev := o.OnChange
		o.OnChange = func(c vault.Change) {
			// The write is visible to a fresh read when the event arrives.
			rev, err := e.v.Revision(t.Context())
			seenInDB = append(seenInDB, err == nil && rev == c.Revision)
			prev(c)
		}
	})
	a := e.add(vault.Node{Type: vault.Pattern, Content: "a"})
	b := e.add(vault.Node{Type: vault.Pattern, Content: "b"})
	e.link(a.ID, b.ID, vault.Supports)
	_, _ = e.v.Reinforce(t.Context(), a.ID)
	require.NoError(t, e.v.Remove(t.Context(), b.ID))
	_, err := e.v.Add(t.Context(), vault.Node{Content: ""})
	require.Error(t, err)
	assert.Equal(t, []string{"add", "add", "link", "reinforce", "remove"}, e.ops(), "failed writes publish nothing")
	for i, ok := range seenInDB {
		assert.True(t, ok, "event %d came after its commit", i)
	}
	rev, err := e.v.Revision(t.Context())
	require.NoError(t, err)
	assert.Equal(t, uint64(5), rev)
	last := e.changes[len(e.changes)-1]
	assert.Equal(t, []uint64{b.ID}, last.Nodes)
	assert.Len(t, last.Edges, 1, "the removed edge is reported")
}

func TestReadOnlyVaultReadsAndRefusesWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "Cache expensive queries", Body: "memoize the database lookups"})
	e.reopen(true)
	assert.True(t, e.v.ReadOnly())
	got, err := e.v.Get(t.Context(), a.ID)
	require.NoError(t, err)
	assert.Equal(t, a.Content, got.Content)
	hits, err := e.v.Search(t.Context(), "database lookup", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{a.ID}, scoredIDs(hits))
	_, err = e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "x"})
	assert.ErrorIs(t, err, storage.ErrReadOnly)
	_, err = e.v.Reinforce(t.Context(), a.ID)
	assert.ErrorIs(t, err, storage.ErrReadOnly)
	_, err = e.v.Wisdom().Promote(t.Context(), a.ID)
	assert.ErrorIs(t, err, storage.ErrReadOnly)
	_, err = e.v.Import(t.Context(), strings.NewReader(""))
	assert.ErrorIs(t, err, storage.ErrReadOnly)
}

func TestDataSurvivesReopen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.add(vault.Node{Type: vault.Pattern, Content: "Retry with backoff", Tags: []string{"net"}, Body: "exponential backoff with jitter"})
	b := e.add(vault.Node{Type: vault.Mistake, Content: "Retried forever"})
	e.link(b.ID, a.ID, vault.Contradicts)
	e.reopen(false)
	got, err := e.v.Get(t.Context(), a.ID)
	require.NoError(t, err)
	assert.Equal(t, "exponential backoff with jitter", got.Body)
	hits, err := e.v.Search(t.Context(), "jitter", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{a.ID}, scoredIDs(hits), "the text index is rebuilt from bbolt")
	cs, err := e.v.Conflicts(t.Context())
	require.NoError(t, err)
	assert.Len(t, cs, 1)
	c := e.add(vault.Node{Type: vault.Pattern, Content: "after reopen"})
	assert.Equal(t, uint64(3), c.ID, "the id sequence survives")
	e.verify()
}

func TestUndecodableRecordsAreSkipped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	good := e.add(vault.Node{Type: vault.Pattern, Content: "Profile before optimising"})
	require.NoError(t, e.db.Update(func(tx *bolt.Tx) error {
		// What another tool (or an old version) might have written.
		return tx.Bucket(storage.BucketVaultNodes).Put(storage.Key(50), []byte(`{"content":"raw json without header"}`))
	}))
	e.reopen(false)
	hits, err := e.v.Search(t.Context(), "profile optimising", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{good.ID}, scoredIDs(hits))
	p, err := e.v.List(t.Context(), vault.ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{good.ID}, ids(p.Nodes), "listings skip what they cannot decode")
	problems, err := e.v.Verify(t.Context())
	require.NoError(t, err)
	assert.Contains(t, problems, "node 50: bad record: missing version header", "Verify reports the bad record")
}

func TestConcurrentWritersAndReaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	require.NoError(t, e.v.WaitIndex(t.Context()))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 25 {
				n, err := e.v.Add(t.Context(), vault.Node{Type: vault.Pattern, Content: "concurrent note about caching " + strings.Repeat("z", w*25+i)})
				if !assert.NoError(t, err) {
					return
				}
				if i%5 == 0 {
					_, err = e.v.Reinforce(t.Context(), n.ID)
					assert.NoError(t, err)
				}
			}
		})
		wg.Go(func() {
			for range 25 {
				_, err := e.v.Search(t.Context(), "caching note", vault.SearchOptions{Limit: 5})
				assert.NoError(t, err)
				_, err = e.v.List(t.Context(), vault.ListOptions{Limit: 10})
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	hits, err := e.v.Search(t.Context(), "caching", vault.SearchOptions{Limit: 200})
	require.NoError(t, err)
	assert.Len(t, hits, 100, "every committed node is searchable")
	e.verify()
}

func TestWritesDuringIndexBuildAreNotLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withTier(vault.TierPremium)) // more nodes than the free tier keeps
	nodes := make([]vault.Node, 3000)
	for i := range nodes {
		nodes[i] = vault.Node{Type: vault.Pattern, Content: "filler about widgets and gadgets"}
	}
	_, err := e.v.AddBatch(t.Context(), nodes)
	require.NoError(t, err)
	e.reopen(false, withTier(vault.TierPremium))
	e.v.Warm() // nothing to build: the index is in the database
	added := e.add(vault.Node{Type: vault.Pattern, Content: "Quarantine flaky integration suites"})
	require.NoError(t, e.v.Remove(t.Context(), 1))
	_, err = e.v.Update(t.Context(), 2, vault.Patch{Content: vault.Ptr("renamed to zeppelin")})
	require.NoError(t, err)
	hits, err := e.v.Search(t.Context(), "quarantine flaky", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{added.ID}, scoredIDs(hits))
	hits, err = e.v.Search(t.Context(), "zeppelin", vault.SearchOptions{})
	require.NoError(t, err)
	assert.Equal(t, []uint64{2}, scoredIDs(hits))
	assert.Equal(t, 3000, e.v.IndexInfo().Docs, "3000 + 1 added - 1 removed")
}

func TestNormalizeTags(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"go", "db", "c++"}, vault.NormalizeTags([]string{" Go ", "DB", "#go", "", "c++", "\x00"}))
	assert.Empty(t, vault.NormalizeTags(nil))
}

func TestControlCharactersCannotCorruptIndexKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.add(vault.Node{Type: vault.Pattern, Content: "nul\x00inside", Tags: []string{"a\x00b"}, UserID: "u\x00v"})
	assert.Equal(t, "nulinside", n.Content)
	assert.Equal(t, []string{"ab"}, n.Tags)
	assert.Equal(t, "uv", n.UserID)
	e.verify()
}
