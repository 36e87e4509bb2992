package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An AllAgents tool is offered to agents that list their tools without it,
// within AllowedAgents and BlockedAgents.
func TestImplicitToolsAreOfferedWithinTheirAllowList(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	run := func(context.Context, *Env, json.RawMessage) (Output, error) { return Output{Text: "ok"}, nil }
	require.NoError(t, r.Register(Tool{Name: "plain", Run: run}))
	require.NoError(t, r.Register(Tool{Name: "everyone", AllAgents: true, Run: run}))
	require.NoError(t, r.Register(Tool{Name: "venusOnly", AllAgents: true, AllowedAgents: []string{"VENUS"}, Run: run}))
	require.NoError(t, r.Register(Tool{Name: "notMars", AllAgents: true, BlockedAgents: []string{"MARS"}, Run: run}))
	offered := []string{"plain"}
	assert.NoError(t, r.Permit("MARS", offered, "everyone"))
	assert.ErrorIs(t, r.Permit("MARS", []string{}, "plain"), ErrPolicyDenied)
	assert.ErrorIs(t, r.Permit("MARS", offered, "venusOnly"), ErrPolicyDenied)
	assert.NoError(t, r.Permit("venus", offered, "venusOnly"))
	assert.ErrorIs(t, r.Permit("MARS", offered, "notMars"), ErrPolicyDenied)
	names := func(ts []Tool) []string {
		var out []string
		for _, x := range ts {
			out = append(out, x.Name)
		}
		return out
	}
	assert.Equal(t, []string{"plain", "everyone", "venusOnly", "notMars"}, names(r.For("VENUS", offered)))
	assert.Equal(t, []string{"everyone"}, names(r.For("MARS", []string{})))
}
