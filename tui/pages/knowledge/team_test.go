package knowledge

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// A teammate's fact (team scope, from the team's records) names its author
// in the facts pane's preview.
func TestTeamFactsShowTheirAuthor(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 21}, {120, 37}} {
		t.Run(fmt.Sprintf("team_facts_%dx%d", size[0], size[1]+3), func(t *testing.T) {
			t.Parallel()
			ws, _, _ := newWS(t)
			require.NoError(t, ws.DB().Update(func(tx *bolt.Tx) error {
				return facts.PutTeamChainTx(tx, "f-0011223344556677", []facts.TeamVersion{{TeamID: "9f8e7d6c5b4a", Author: "k-1a2b3c4d",
					Content: "The staging database is reset every Monday at 06:00 UTC", Confidence: 0.8, At: epoch}}, map[string]string{})
			}))
			l := newLoop(t, ws, size[0], size[1])
			l.PressAsync("tab")
			l.Until(func() bool { return len(l.m.factsRes.Facts) == 1 })
			f, ok := l.m.selectedFact()
			require.True(t, ok)
			assert.Equal(t, facts.Team(), f.Scope)
			view := l.Pinned()
			assert.Contains(t, view, "teammate k-1a2b3c4d")
			golden.RequireEqual(t, view)
		})
	}
}
