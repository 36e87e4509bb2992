package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/vault"
)

// Issue 26, finding 3, as a user meets it: three bundle files with made-up
// author ids no longer make a pattern active; bundles signed by trusted
// teammates' keys do.
func TestWisdomForgedBundlesStayPendingTrustedOnesActivate(t *testing.T) {
	t.Parallel()
	const lesson = "Review generated code before applying it"
	dir := initDir(t)
	bundles := t.TempDir()
	for i := range 3 {
		raw, err := json.Marshal(vault.Bundle{Format: vault.BundleFormat, Author: fmt.Sprintf("u-%016x", 0xf00+i), CreatedAt: time.Now().UTC(),
			Patterns: []vault.BundlePattern{{Type: vault.Pattern, Content: lesson, Confidence: 0.9}}})
		require.NoError(t, err)
		p := filepath.Join(bundles, fmt.Sprintf("forged%d.json", i))
		require.NoError(t, os.WriteFile(p, raw, 0o600))
		out := novaOK(t, dir, "wisdom", "import", p)
		assert.Contains(t, out, "the bundle is unsigned: imported for reading")
	}
	var list []struct {
		Status  string   `json:"status"`
		Backers []string `json:"backers"`
	}
	novaJSON(t, dir, &list, "wisdom", "list")
	require.Len(t, list, 1)
	assert.Equal(t, "pending", list[0].Status, "forged authors never activate")
	assert.Len(t, list[0].Backers, 3)

	// Two teammates export signed bundles; this workspace trusts their keys.
	for _, mate := range []string{"ana@example.org", "bo@example.org"} {
		md := initDir(t)
		cfg := filepath.Join(md, ".nova", "config.yaml")
		raw, err := os.ReadFile(cfg)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(cfg, []byte(strings.Replace(string(raw), "userId: local", "userId: "+mate, 1)), 0o600))
		id := idStr(addNode(t, md, "--type", "pattern", "--content", lesson, "--confidence", "0.9"))
		novaOK(t, md, "wisdom", "optin", "on")
		novaOK(t, md, "wisdom", "promote", id)
		file := filepath.Join(bundles, strings.Split(mate, "@")[0]+".json")
		novaOK(t, md, "wisdom", "export", file)
		key := strings.TrimSpace(novaOK(t, md, "wisdom", "key"))
		require.True(t, strings.HasPrefix(key, "ed25519:"), key)
		out := novaOK(t, dir, "wisdom", "import", file)
		assert.Contains(t, out, "a key you do not trust")
		novaOK(t, dir, "wisdom", "trust", key, "--note", mate)
	}
	novaJSON(t, dir, &list, "wisdom", "list")
	require.Len(t, list, 1)
	assert.Equal(t, "pending", list[0].Status, "two trusted keys are two backers")
	var pid []struct {
		ID uint64 `json:"id"`
	}
	novaJSON(t, dir, &pid, "wisdom", "list")
	novaOK(t, dir, "wisdom", "endorse", idStr(pid[0].ID))
	novaJSON(t, dir, &list, "wisdom", "list")
	assert.Equal(t, "active", list[0].Status, "own backing plus two trusted teammates")
	out := novaOK(t, dir, "wisdom", "trusted")
	assert.Contains(t, out, "this workspace (always trusted)")
	assert.Contains(t, out, "ana@example.org")

	r := runNova(t, dir, nil, "wisdom", "trust", "ed25519:nope")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "is not a public key")
}
