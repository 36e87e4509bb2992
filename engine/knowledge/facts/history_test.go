package facts_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// A chain longer than a page says that older entries exist and pages back
// to its first entry (issue 26, finding 11: `facts history` showed the
// newest 201 entries of a longer chain without a word).
func TestHistoryOfALongChainPagesAndSaysOlderEntriesExist(t *testing.T) {
	t.Parallel()
	fx := newService(t)
	ctx := context.Background()
	const n = 500
	first := add(t, fx, "revision 0 of the retry policy", facts.Workspace())
	chain := []string{first.ID}
	cur := first.ID
	for i := 1; i < n; i++ {
		c, err := fx.s.Correct(ctx, cur, "revised", fmt.Sprintf("revision %d of the retry policy", i), facts.Source{})
		require.NoError(t, err)
		cur = c.New.ID
		chain = append(chain, cur)
	}

	page, err := fx.s.HistoryPage(ctx, first.ID, facts.HistoryOptions{})
	require.NoError(t, err)
	require.Len(t, page.Facts, facts.DefaultHistoryLimit)
	assert.Equal(t, chain[n-facts.DefaultHistoryLimit:], factIDs(page.Facts), "the newest entries, oldest first, from any entry of the chain")
	assert.True(t, page.Older)
	assert.Equal(t, chain[n-facts.DefaultHistoryLimit], page.Before)

	// Page back with --before until the first entry.
	var got []string
	opts := facts.HistoryOptions{Limit: 150}
	pages := 0
	for {
		p, err := fx.s.HistoryPage(ctx, chain[250], opts)
		require.NoError(t, err)
		got = append(factIDs(p.Facts), got...)
		pages++
		if !p.Older {
			assert.Empty(t, p.Before)
			break
		}
		require.Less(t, pages, 10, "paging ends")
		opts.Before = p.Before
	}
	assert.Equal(t, 4, pages, "500 entries in pages of 150")
	assert.Equal(t, chain, got, "every entry once, oldest first")

	all, err := fx.s.HistoryPage(ctx, cur, facts.HistoryOptions{Limit: 1000})
	require.NoError(t, err)
	assert.Len(t, all.Facts, n)
	assert.False(t, all.Older)

	short, err := fx.s.History(ctx, cur)
	require.NoError(t, err)
	assert.Len(t, short, facts.DefaultHistoryLimit)

	other := add(t, fx, "an unrelated fact", facts.Workspace())
	_, err = fx.s.HistoryPage(ctx, cur, facts.HistoryOptions{Before: other.ID})
	require.ErrorIs(t, err, facts.ErrInvalid, "--before names an entry of the chain")
	_, err = fx.s.HistoryPage(ctx, cur, facts.HistoryOptions{Limit: -1})
	require.ErrorIs(t, err, facts.ErrInvalid)
	_, err = fx.s.HistoryPage(ctx, cur, facts.HistoryOptions{Before: "nonsense"})
	require.ErrorIs(t, err, facts.ErrInvalid)
}

func factIDs(fs []facts.Fact) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}
