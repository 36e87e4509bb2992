package vault_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	engvault "github.com/nova-dev/nova/engine/vault"
)

// A teammate's shared node is marked in the list with its author, and the
// detail names the author, the version and a newer version left unapplied
// over a local edit.
func TestTeamNodesShowTheirAuthor(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, v := range []struct {
			name string
			keys []string
		}{{"team_list", nil}, {"team_detail", []string{"enter"}}} {
			t.Run(fmt.Sprintf("%s_%dx%d", v.name, size[0], size[1]), func(t *testing.T) {
				t.Parallel()
				ws := newWS(t)
				ctx := context.Background()
				_, err := ws.v.Add(ctx, engvault.Node{Type: engvault.Pattern, Title: "Wrap errors with context",
					Content: "Wrap every returned error with %w.", Tags: []string{"errors"}, Confidence: 0.8})
				require.NoError(t, err)
				var id uint64
				put := func(version, content string) {
					require.NoError(t, ws.DB().Update(func(tx *bolt.Tx) error {
						var err error
						id, _, err = ws.v.PutTeamNodeTx(tx, id, engvault.TeamNode{Subject: "n-1a2b3c4d-7", Author: "k-1a2b3c4d",
							Version: version, Type: "Preference", Title: "Small pull requests",
							Content: content, Tags: []string{"review"}, At: fixedNow.Add(-time.Hour)})
						return err
					}))
				}
				put("9f8e7d6c5b4a39281706f5e4d3c2b1a0", "One concern per pull request, under 300 lines.")
				_, err = ws.v.Update(ctx, id, engvault.Patch{Content: ptr("One concern per pull request, under 200 lines.")})
				require.NoError(t, err)
				put("0a1b2c3d4e5f60718293a4b5c6d7e8f9", "One concern per pull request, under 400 lines.")
				n, err := ws.v.Get(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, "One concern per pull request, under 200 lines.", n.Content, "the local edit stays")
				assert.Equal(t, "k-1a2b3c4d", n.TeamAuthor())
				a := newApp(t, ws, size[0], size[1])
				a.Press(v.keys...)
				view := a.Pinned()
				assert.Contains(t, view, "k-1a2b3c4d")
				golden.RequireEqual(t, view)
			})
		}
	}
}

func ptr[T any](v T) *T { return &v }
