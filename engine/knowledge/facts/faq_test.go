package facts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/facts"
)

func TestProblemEntriesAreTroubleshootingAndRankFirstForAProblem(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := t.Context()
	know := add(t, fx, "The sqlite driver needs cgo; the build tag is sqlite_cgo.", facts.Workspace())
	fix, err := fx.s.Add(ctx, facts.NewFact{Problem: "go build fails with undefined: sqlite3 in the sqlite driver",
		Content: "Build with CGO_ENABLED=1 and the sqlite_cgo tag."})
	require.NoError(t, err)
	assert.Equal(t, facts.CategoryTroubleshooting, fix.Category, "a problem makes a troubleshooting entry")
	assert.Equal(t, "Problem: go build fails with undefined: sqlite3 in the sqlite driver → Solution: Build with CGO_ENABLED=1 and the sqlite_cgo tag.", fix.Text())
	assert.Empty(t, know.Category, "knowledge is the default and is not stored")

	// A problem-like query puts the troubleshooting entry first.
	res, err := fx.s.Search(ctx, "sqlite driver build error", facts.SearchOptions{})
	require.NoError(t, err)
	require.Len(t, res.Facts, 2)
	assert.Equal(t, fix.ID, res.Facts[0].ID)
	// The problem text is searchable.
	res, err = fx.s.Search(ctx, "undefined sqlite3", facts.SearchOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Facts)
	assert.Equal(t, fix.ID, res.Facts[0].ID)

	exp, err := fx.s.Add(ctx, facts.NewFact{Content: "Tests mock the clock with a fixed time.", Category: facts.CategoryExperience})
	require.NoError(t, err)
	assert.Equal(t, facts.CategoryExperience, exp.Category)
	_, err = fx.s.Add(ctx, facts.NewFact{Content: "x", Category: "gossip"})
	require.ErrorIs(t, err, facts.ErrInvalid)
	for _, c := range []string{"", "knowledge", " Troubleshooting "} {
		_, err := facts.ParseCategory(c)
		require.NoError(t, err, c)
	}
	assert.True(t, facts.ProblemLike("panic: nil map"))
	assert.False(t, facts.ProblemLike("where do handlers live"))
}

func TestMarkCountsTheUsersWordAndArchivesWhatNeverHelps(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := t.Context()
	f := add(t, fx, "Run make generate after editing the schema.", facts.Workspace())
	got, err := fx.s.Mark(ctx, f.ID, true)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Helpful)
	for range facts.ArchiveMinUses {
		got, err = fx.s.Mark(ctx, f.ID, false)
		require.NoError(t, err)
	}
	assert.Equal(t, 3, got.NotHelpful)
	rate, uses := got.HelpRate()
	assert.Equal(t, 4, uses)
	assert.InDelta(t, 0.25, rate, 1e-9)
	assert.False(t, got.Archived, "25% is above the archive rate")
	got, err = fx.s.Mark(ctx, f.ID, false)
	require.NoError(t, err)
	assert.False(t, got.Archived, "1 of 5 is the archive rate itself, not below it")
	got, err = fx.s.Mark(ctx, f.ID, false)
	require.NoError(t, err)
	assert.True(t, got.Archived, "1 of 6 helped: archived")
	assert.Contains(t, got.ArchiveReason, "helped 1 of 6")
	_, err = fx.s.Mark(ctx, "f999", true)
	require.ErrorIs(t, err, facts.ErrNotFound)
}
