package teamlink_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/team"
	"github.com/nova-dev/nova/engine/team/teamlink"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

type ws struct {
	db     *storage.DB
	vault  *vault.Vault
	facts  *facts.Service
	store  *team.Store
	linker *teamlink.Linker
}

func newWS(t *testing.T, i int) *ws {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	v := vault.New(db, vault.Options{UserID: fmt.Sprintf("dev%d@example.com", i), OptInGlobal: true})
	var key ed25519.PrivateKey
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		key, err = vault.SigningKeyTx(tx)
		return err
	}))
	s, err := team.Open(team.Options{DB: db, Key: key})
	require.NoError(t, err)
	l := teamlink.New(s, v.Wisdom())
	v.Wisdom().SetTeamHook(l.WisdomHook)
	fs := facts.New(facts.Options{DB: db, Author: "dev"})
	fs.SetTeam(l)
	return &ws{db: db, vault: v, facts: fs, store: s, linker: l}
}

func exchange(t *testing.T, all ...*ws) {
	t.Helper()
	var in []team.Incoming
	for _, w := range all {
		es, err := w.store.Outbox(1 << 20)
		require.NoError(t, err)
		var keys []uint64
		for _, e := range es {
			in = append(in, team.Incoming{Data: e.Data})
			keys = append(keys, e.Key)
		}
		require.NoError(t, w.store.Acked(keys))
	}
	for _, w := range all {
		_, err := w.store.Apply(context.Background(), in)
		require.NoError(t, err)
	}
}

func admitAll(t *testing.T, all ...*ws) {
	t.Helper()
	_, admin, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	m := team.Membership{Team: "t", Version: 1, At: time.Now()}
	for _, w := range all {
		m.Members = append(m.Members, w.store.Self())
	}
	_, data, err := team.SignMembership(m, admin)
	require.NoError(t, err)
	for _, w := range all {
		_, err := w.store.SetMembership(context.Background(), data)
		require.NoError(t, err)
	}
}

// A pattern promoted in one workspace and endorsed in the two others is
// active in all three.
func TestPromoteHereEndorseThereActivatesEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, c := newWS(t, 1), newWS(t, 2), newWS(t, 3)
	admitAll(t, a, b, c)
	n, err := a.vault.Add(ctx, vault.Node{Type: "Pattern", Content: "Return early on errors to keep the happy path flat", Confidence: 0.9})
	require.NoError(t, err)
	res, err := a.vault.Wisdom().Promote(ctx, n.ID)
	require.NoError(t, err)
	assert.Equal(t, vault.WisdomPending, res.Pattern.Status)
	exchange(t, a, b, c)
	for _, w := range []*ws{b, c} {
		ps, err := w.vault.Wisdom().List(ctx, "")
		require.NoError(t, err)
		require.Len(t, ps, 1, "the team's pattern arrived")
		assert.Equal(t, vault.WisdomPending, ps[0].Status)
		_, err = w.vault.Wisdom().Endorse(ctx, ps[0].ID)
		require.NoError(t, err)
	}
	exchange(t, a, b, c)
	for i, w := range []*ws{a, b, c} {
		ps, err := w.vault.Wisdom().List(ctx, "")
		require.NoError(t, err)
		require.Len(t, ps, 1, "workspace %d", i)
		assert.Equal(t, vault.WisdomActive, ps[0].Status, "workspace %d: three members back it", i)
	}
}

// A team fact added in one workspace is a team-scope fact in the others,
// seen by a workspace search and corrected as a chain.
func TestTeamFactsReachEveryWorkspaceAtTheTeamScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := newWS(t, 1), newWS(t, 2)
	admitAll(t, a, b)
	f, err := a.facts.Add(ctx, facts.NewFact{Content: "the CI runners have 2 cores", Scope: facts.Team()})
	require.NoError(t, err)
	assert.Equal(t, facts.Team(), f.Scope)
	exchange(t, a, b)
	res, err := b.facts.Search(ctx, "CI runners cores", facts.SearchOptions{Scope: facts.Workspace()})
	require.NoError(t, err)
	require.NotEmpty(t, res.Facts)
	got := res.Facts[0].Fact
	assert.Equal(t, facts.Team(), got.Scope)
	assert.Equal(t, facts.SourceTeam, got.Source.Type)
	corr, err := b.facts.Correct(ctx, got.ID, "upgraded", "the CI runners have 4 cores", facts.Source{})
	require.NoError(t, err)
	require.NotNil(t, corr.New)
	exchange(t, a, b)
	res, err = a.facts.Search(ctx, "CI runners cores", facts.SearchOptions{Scope: facts.Workspace()})
	require.NoError(t, err)
	require.NotEmpty(t, res.Facts)
	assert.Contains(t, res.Facts[0].Content, "4 cores")
	old, err := a.facts.Get(ctx, f.ID)
	require.NoError(t, err)
	assert.Equal(t, facts.StatusSuperseded, old.Status, "never overwritten: the first version is kept, superseded")
	// A workspace without a team refuses team-scope facts clearly.
	lone := facts.New(facts.Options{DB: a.db})
	_, err = lone.Add(ctx, facts.NewFact{Content: "x", Scope: facts.Team()})
	require.ErrorIs(t, err, facts.ErrNoTeam)
}
