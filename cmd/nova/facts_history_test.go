package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// `facts history` of a 500-entry chain shows the newest entries, says that
// older ones exist and how to see them, and pages back with --before
// (issue 26, finding 11).
func TestFactsHistoryPagesALongChain(t *testing.T) {
	t.Parallel()
	env, _ := knowledgeEnv(t)
	dir := initDir(t)
	if testWorkspaceKind(t) == "owner" {
		stopTestOwner(t, dir) // the chain is written straight into the database
	}
	ws, err := engine.Open(t.Context(), engine.Options{Root: dir, Getenv: testGetenv(dir, env), NoSync: true})
	require.NoError(t, err)
	f, err := ws.AddFact(t.Context(), facts.NewFact{Content: "revision 0 of the deploy rule"})
	require.NoError(t, err)
	chain := []string{f.ID}
	for i := 1; i < 500; i++ {
		c, err := ws.CorrectFact(t.Context(), chain[len(chain)-1], "revised", fmt.Sprintf("revision %d of the deploy rule", i))
		require.NoError(t, err)
		chain = append(chain, c.New.ID)
	}
	require.NoError(t, ws.Close())

	r := runNova(t, dir, env, "facts", "history", chain[0])
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "older entries exist: --before "+chain[300])
	assert.Contains(t, r.stdout, "revision 499 of the deploy rule")
	assert.Contains(t, r.stdout, "revision 300 of the deploy rule")
	assert.NotContains(t, r.stdout, "revision 299 of the deploy rule")

	r = runNova(t, dir, env, "facts", "history", chain[0], "--limit", "100", "--before", chain[100], "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var hist []facts.Fact
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &hist))
	require.Len(t, hist, 100)
	assert.Equal(t, chain[0], hist[0].ID, "the oldest page")
	assert.Equal(t, chain[99], hist[99].ID)
	assert.NotContains(t, r.stderr, "older entries exist", "nothing older than the first entry")

	r = runNova(t, dir, env, "facts", "history", chain[499], "--limit", "50", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "older entries exist: --before "+chain[450], strings.TrimSpace(r.stderr))

	r = runNova(t, dir, env, "facts", "history", chain[0], "--limit", "-1")
	assert.Equal(t, 2, r.code)
}
