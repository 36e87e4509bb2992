package vault_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
)

// Issue 32: in a Go workspace the prompt's vault context carries no
// pattern about another stack (a TypeScript Zod pattern, a bbolt pattern
// when the project does not use bbolt), while patterns about Go or about no
// stack at all stay; the browser's search still finds every node.
func TestVaultContextLeavesOutOtherStacks(t *testing.T) {
	t.Parallel()
	stack := workspace.Stack{Languages: []string{"go"}, Frameworks: []string{"testify"}}
	build := func(foreign func(string, []string) bool) (vault.VaultContext, map[string]uint64) {
		e := newEnv(t, func(o *vault.Options) { o.Foreign = foreign })
		ids := map[string]uint64{}
		for name, n := range map[string]vault.Node{
			"zod":     {Type: vault.Pattern, Content: "Validate request input at the boundary with a schema before it reaches the handler.", Tags: []string{"typescript", "zod", "validation"}, Language: "typescript"},
			"bbolt":   {Type: vault.Pattern, Content: "Validate request input, then copy values out of a bbolt transaction before the handler uses them.", Tags: []string{"go", "bbolt"}, Language: "go"},
			"go":      {Type: vault.Pattern, Content: "Validate request input at the boundary and wrap errors with the handler's context.", Tags: []string{"go", "errors"}, Language: "go"},
			"testify": {Type: vault.Pattern, Content: "Test request input validation at the handler with table tests and require.", Tags: []string{"go", "testify"}},
			"plain":   {Type: vault.Decision, Content: "Request input validation failures answer 400 with the field that failed."},
		} {
			n.Confidence = 0.8
			added, err := e.v.Add(t.Context(), n)
			require.NoError(t, err)
			ids[name] = added.ID
		}
		vc, err := e.v.BuildVaultContext(t.Context(), "validate request input in the handler", "MARS", vault.TierPremium, 8192)
		require.NoError(t, err)
		return vc, ids
	}
	all, ids := build(nil)
	assert.ElementsMatch(t, []uint64{ids["zod"], ids["bbolt"], ids["go"], ids["testify"], ids["plain"]}, all.NodeIDs, "no stack: every match")

	vc, ids := build(stack.Foreign)
	assert.ElementsMatch(t, []uint64{ids["go"], ids["testify"], ids["plain"]}, vc.NodeIDs)
	assert.NotContains(t, vc.Text, "schema before it reaches")
	assert.NotContains(t, vc.Text, "bbolt")
}
