package vault_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// Options.IdentityFunc (engine: git's user.email, a process start) is asked
// only when wisdom needs the identity, and once; reads and writes of nodes
// never ask. An empty answer falls back to the user id.
func TestIdentityFuncIsAskedOnFirstNeedOnly(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	e := newEnv(t, func(o *vault.Options) {
		o.IdentityFunc = func() string { asked.Add(1); return "ana@example.org" }
	})
	_, err := e.v.Add(context.Background(), vault.Node{Type: vault.Pattern, Content: "table driven tests keep cases readable"})
	require.NoError(t, err)
	_, err = e.v.Stats(context.Background())
	require.NoError(t, err)
	assert.Zero(t, asked.Load(), "adding and counting need no identity")

	assert.Equal(t, vault.AuthorID("ana@example.org"), e.v.Wisdom().Me())
	assert.Equal(t, vault.AuthorID("ana@example.org"), e.v.Wisdom().Me())
	assert.Equal(t, int32(1), asked.Load(), "asked once")

	empty := newEnv(t, func(o *vault.Options) {
		o.UserID = "bo"
		o.IdentityFunc = func() string { return " " }
	})
	assert.Equal(t, vault.AuthorID("bo"), empty.v.Wisdom().Me(), "no identity: the user id")
}
