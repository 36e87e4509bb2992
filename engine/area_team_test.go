package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/team"
)

// Two workspaces join one hub: a team fact added in one is a team-scope
// fact in the other after a sync; a workspace that never joined refuses
// team facts and shares nothing.
func TestTeamVerbsShareAFactBetweenWorkspaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	hub, err := team.StartHub(team.HubOptions{Dir: dir})
	require.NoError(t, err)
	defer hub.Shutdown()
	admin, _, err := team.AdminKey(dir)
	require.NoError(t, err)
	ws := make([]*engine.Local, 2)
	for i := range ws {
		l, err := engine.Open(ctx, engine.Options{Root: newWorkspace(t), Getenv: envOf(nil), NoSync: true})
		require.NoError(t, err)
		defer func() { _ = l.Close() }()
		ws[i] = l
		st, err := l.TeamStatus(ctx)
		require.NoError(t, err)
		assert.False(t, st.Joined)
		_, err = l.Knowledge().Facts().Add(ctx, facts.NewFact{Content: "x", Scope: facts.Team()})
		require.ErrorIs(t, err, facts.ErrNoTeam, "no team joined: a team fact is refused")
	}
	_, err = ws[0].TeamJoin(ctx, engine.TeamJoinRequest{URL: hub.URL})
	require.Error(t, err, "no membership list yet and no admin key given: nothing to pin")
	// The hub's first membership list, as `nova hub` writes it.
	require.NoError(t, initHubMembers(ctx, hub.URL, admin))
	_, err = ws[0].TeamJoin(ctx, engine.TeamJoinRequest{URL: hub.URL, Admin: selfKey(t, ws[0])})
	require.ErrorIs(t, err, team.ErrNotAdmin, "an admin key other than the list's is refused")
	keyFile := filepath.Join(dir, team.AdminKeyFile)
	for _, l := range ws {
		st, err := l.TeamJoin(ctx, engine.TeamJoinRequest{URL: hub.URL, WaitMS: 2000})
		require.NoError(t, err)
		assert.True(t, st.Joined)
		assert.False(t, st.Member)
		_, err = l.TeamMembersChange(ctx, engine.TeamMembersRequest{Key: st.Key, AdminKeyFile: keyFile})
		require.NoError(t, err)
	}
	// A workspace that joined, was added while it was closed, and syncs
	// once in a new process (`nova team sync`) with nothing to pull reports
	// itself a member on that first sync: the sync waits for the hub's
	// membership list.
	root := newWorkspace(t)
	late, err := engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil), NoSync: true})
	require.NoError(t, err)
	joined, err := late.TeamJoin(ctx, engine.TeamJoinRequest{URL: hub.URL, WaitMS: 2000})
	require.NoError(t, err)
	require.False(t, joined.Member)
	require.NoError(t, late.Close())
	_, err = ws[0].TeamMembersChange(ctx, engine.TeamMembersRequest{Key: joined.Key, AdminKeyFile: keyFile})
	require.NoError(t, err)
	late, err = engine.Open(ctx, engine.Options{Root: root, Getenv: envOf(nil), NoSync: true})
	require.NoError(t, err)
	defer func() { _ = late.Close() }()
	st, err := late.TeamSync(ctx, engine.TeamSyncRequest{TimeoutMS: 10000})
	require.NoError(t, err)
	assert.True(t, st.Member, "the first sync knows the list the hub holds")
	assert.Len(t, st.Members, 3)
	f, err := ws[0].Knowledge().Facts().Add(ctx, facts.NewFact{Content: "release branches are cut on Tuesdays", Scope: facts.Team()})
	require.NoError(t, err)
	assert.Equal(t, facts.Team(), f.Scope)
	_, err = ws[0].TeamSync(ctx, engine.TeamSyncRequest{TimeoutMS: 5000})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := ws[1].TeamSync(ctx, engine.TeamSyncRequest{TimeoutMS: 500})
		return err == nil && st.Shared.Facts == 1 && len(st.Members) == 3
	}, 15e9, 50e6)
	res, err := ws[1].Knowledge().Facts().Search(ctx, "release branches Tuesdays", facts.SearchOptions{Scope: facts.Workspace()})
	require.NoError(t, err)
	require.NotEmpty(t, res.Facts)
	assert.Equal(t, facts.Team(), res.Facts[0].Scope)
	st, err = ws[1].TeamStatus(ctx)
	require.NoError(t, err)
	assert.True(t, st.Member)
	assert.Zero(t, st.RefusedTotal)
	assert.Zero(t, st.Outbox)

}

func selfKey(t *testing.T, l *engine.Local) string {
	t.Helper()
	st, err := l.TeamStatus(context.Background())
	require.NoError(t, err)
	return st.Key
}
