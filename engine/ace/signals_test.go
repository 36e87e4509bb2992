package ace_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/vault"
)

func TestUserSignals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withVault())

	rej, err := e.sys.RecordUserSignal(ctx(), "venus", "ui", false, "it hard-coded colours instead of theme tokens")
	require.NoError(t, err)
	assert.Equal(t, ace.OpAdd, rej.Delta.Op)
	assert.Equal(t, ace.KindMistake, rej.Delta.Kind)
	assert.InDelta(t, ace.SignalReasonConfidence, rej.Delta.Confidence, 1e-9)
	assert.Contains(t, rej.Delta.Content, "hard-coded colours")
	require.NotZero(t, rej.VaultID)
	n, err := e.vault.Get(ctx(), rej.VaultID)
	require.NoError(t, err)
	assert.Equal(t, vault.Mistake, n.Type)
	assert.Contains(t, n.Tags, "user-signal")

	app, err := e.sys.RecordUserSignal(ctx(), "venus", "Build the settings page layout", true, "clean split into small components")
	require.NoError(t, err)
	assert.Equal(t, "ui", app.TaskType, "a title is classified")
	assert.Equal(t, ace.KindPreference, app.Delta.Kind)
	n, err = e.vault.Get(ctx(), app.VaultID)
	require.NoError(t, err)
	assert.Equal(t, vault.Preference, n.Type)

	// Without a reason: a generic rule, no vault node; repeated, it is
	// reinforced rather than duplicated.
	g1, err := e.sys.RecordUserSignal(ctx(), "venus", "ui", false, "")
	require.NoError(t, err)
	assert.Zero(t, g1.VaultID)
	assert.Equal(t, ace.OpAdd, g1.Delta.Op)
	g2, err := e.sys.RecordUserSignal(ctx(), "venus", "ui", false, "")
	require.NoError(t, err)
	assert.Equal(t, ace.OpUpdate, g2.Delta.Op)
	assert.InDelta(t, ace.SignalGenericConfidence+ace.SignalReinforce, g2.Delta.Confidence, 1e-9)

	p, err := e.m.GetPlaybook(ctx(), "venus")
	require.NoError(t, err)
	assert.Len(t, p.Rules, 3)
	assert.Equal(t, 4, p.Version)
	hist, err := e.m.History(ctx(), "venus")
	require.NoError(t, err)
	assert.Equal(t, "signal", hist[0].Origin)

	// Without a vault the signal still teaches the playbook.
	e2 := newEnv(t)
	s, err := e2.sys.RecordUserSignal(ctx(), "mars", "", true, "small diff")
	require.NoError(t, err)
	assert.Equal(t, "general", s.TaskType)
	assert.Zero(t, s.VaultID)
}
