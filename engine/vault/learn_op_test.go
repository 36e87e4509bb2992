package vault_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// The change event names what happened: a node the user added (nova vault
// add goes through LearnAs ByUser) is an "add", a lesson nova learned a
// "learn" — the TUI's Activity line reads it.
func TestLearnAsNamesTheUsersAddAnAdd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.v.LearnAs(t.Context(), vault.ByUser, vault.Node{Type: vault.Pattern, Content: "Table driven tests keep cases readable"})
	require.NoError(t, err)
	_, err = e.v.LearnAs(t.Context(), vault.ByLearning, vault.Node{Type: vault.Pattern, Content: "Name the failing case in a table test"})
	require.NoError(t, err)
	assert.Equal(t, []string{"add", "learn"}, e.ops())
}
