package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/team"
)

// startTestHubCmd runs `nova hub` in this process until the test ends.
func startTestHubCmd(t *testing.T) hubReport {
	t.Helper()
	ready := make(chan hubReport, 1)
	ctx, cancel := context.WithCancel(context.Background())
	e, _, _ := newTestEnv(t, t.TempDir(), nil, "")
	opts := &hubOptions{Env: e, Dir: t.TempDir(), Host: "127.0.0.1", Port: 0, Name: "nova", MaxAge: team.DefaultMaxAge,
		MaxBytes: team.DefaultMaxBytes, ready: func(r hubReport) { ready <- r }}
	done := make(chan error, 1)
	go func() { done <- runHub(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case r := <-ready:
		return r
	case err := <-done:
		t.Fatalf("nova hub: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("nova hub did not start in 20s")
	}
	return hubReport{}
}

// As a user would on one machine: a hub, three workspaces that join it; a
// pattern promoted in one and endorsed in the two others is active in all
// three; a team fact added in one is found in the others.
func TestTeamPromoteHereEndorseThereAsAUserWould(t *testing.T) {
	t.Parallel()
	hub := startTestHubCmd(t)
	var dirs []string
	for range 3 {
		dir := initDir(t)
		out := novaOK(t, dir, "team", "join", hub.URL)
		assert.Contains(t, out, "not a member yet")
		var st struct {
			Key string `json:"key"`
		}
		novaJSON(t, dir, &st, "team", "status")
		require.True(t, strings.HasPrefix(st.Key, "ed25519:"))
		novaOK(t, dir, "team", "members", "add", st.Key, "--admin-key", hub.AdminKey)
		dirs = append(dirs, dir)
	}
	for _, dir := range dirs {
		novaOK(t, dir, "wisdom", "optin", "on")
	}
	var node struct {
		ID uint64 `json:"id"`
	}
	novaJSON(t, dirs[0], &node, "vault", "add", "--type", "Pattern", "--confidence", "0.9",
		"--content", "Close response bodies in a defer right after the error check")
	novaOK(t, dirs[0], "wisdom", "promote", fmt.Sprint(node.ID))
	novaOK(t, dirs[0], "facts", "add", "--scope", "team", "The integration tests need Docker running")
	// A short command leaves what it could not send within a second in the
	// outbox, for the next nova of the workspace; on a loaded machine that
	// can be all of it. `team sync` sends it and waits (as a user would).
	out := novaOK(t, dirs[0], "team", "sync", "--timeout", "20s")
	assert.Contains(t, out, "outbox: 0")
	type pattern struct {
		ID     uint64 `json:"id"`
		Status string `json:"status"`
	}
	for _, dir := range dirs[1:] {
		var ps []pattern
		require.Eventually(t, func() bool {
			novaOK(t, dir, "team", "sync", "--timeout", "2s")
			ps = nil
			novaJSON(t, dir, &ps, "wisdom", "list")
			return len(ps) == 1
		}, 20*time.Second, 100*time.Millisecond)
		novaOK(t, dir, "wisdom", "endorse", fmt.Sprint(ps[0].ID))
		novaOK(t, dir, "team", "sync", "--timeout", "2s")
	}
	for i, dir := range dirs {
		require.Eventually(t, func() bool {
			novaOK(t, dir, "team", "sync", "--timeout", "2s")
			var ps []pattern
			novaJSON(t, dir, &ps, "wisdom", "list")
			return len(ps) == 1 && ps[0].Status == "active"
		}, 20*time.Second, 100*time.Millisecond, "workspace %d", i)
	}
	out = novaOK(t, dirs[2], "facts", "search", "integration tests Docker")
	assert.Contains(t, out, "team")
	assert.Contains(t, out, "Docker running")
	st := novaOK(t, dirs[1], "team", "status")
	assert.Contains(t, st, "members (3)")
	assert.Contains(t, st, "refused: 0")
}

func TestTeamStatusOutsideATeam(t *testing.T) {
	t.Parallel()
	dir := initDir(t)
	out := novaOK(t, dir, "team", "status")
	assert.Contains(t, out, "not in a team")
	r := runNova(t, dir, nil, "team", "members", "add", "ed25519:AAAA")
	assert.NotEqual(t, 0, r.code)
	r = runNova(t, dir, nil, "facts", "add", "--scope", "team", "x")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "nova team join")
}

// As a user would: a rule and a vault node marked shared in one workspace
// appear in the other's playbook and vault, marked as the team's with their
// author; an edit in the first reaches the second without sharing again.
func TestTeamSharedRuleAndNodeAsAUserWould(t *testing.T) {
	t.Parallel()
	hub := startTestHubCmd(t)
	var dirs []string
	for range 2 {
		dir := initDir(t)
		novaOK(t, dir, "team", "join", hub.URL)
		var st struct {
			Key string `json:"key"`
		}
		novaJSON(t, dir, &st, "team", "status")
		novaOK(t, dir, "team", "members", "add", st.Key, "--admin-key", hub.AdminKey)
		dirs = append(dirs, dir)
	}
	a, b := dirs[0], dirs[1]
	var rule struct {
		ID string `json:"id"`
	}
	novaJSON(t, a, &rule, "playbook", "add", "mars", "Run the linters before pushing", "--json")
	out := novaOK(t, a, "team", "share", "rule", "mars", rule.ID)
	assert.Contains(t, out, "edits are published")
	var node struct {
		ID uint64 `json:"id"`
	}
	novaJSON(t, a, &node, "vault", "add", "--type", "Preference", "--content", "Small pull requests, one concern each")
	novaOK(t, a, "team", "share", "node", fmt.Sprint(node.ID))
	novaOK(t, a, "team", "sync", "--timeout", "2s")

	require.Eventually(t, func() bool {
		novaOK(t, b, "team", "sync", "--timeout", "2s")
		return strings.Contains(novaOK(t, b, "playbook", "show", "MARS"), "Run the linters before pushing")
	}, 20*time.Second, 100*time.Millisecond)
	show := novaOK(t, b, "playbook", "show", "MARS")
	assert.Contains(t, show, "team")
	assert.Contains(t, show, "[team: k-")
	var nodes []struct {
		Content string            `json:"content"`
		Source  string            `json:"source"`
		Meta    map[string]string `json:"meta"`
	}
	novaJSON(t, b, &nodes, "vault", "list")
	var shared []string
	for _, n := range nodes {
		if n.Source == "team" {
			assert.True(t, strings.HasPrefix(n.Meta["team.author"], "k-"), "marked with its author")
			shared = append(shared, n.Content)
		}
	}
	assert.Equal(t, []string{"Small pull requests, one concern each"}, shared)

	novaOK(t, a, "playbook", "edit", "mars", rule.ID, "Run the linters and the tests before pushing")
	novaOK(t, a, "team", "sync", "--timeout", "2s")
	require.Eventually(t, func() bool {
		novaOK(t, b, "team", "sync", "--timeout", "2s")
		return strings.Contains(novaOK(t, b, "playbook", "show", "MARS"), "the linters and the tests")
	}, 20*time.Second, 100*time.Millisecond, "the edit is published without sharing again")
	// b edits its copy; a's next version does not overwrite it until b
	// takes it.
	var pb struct {
		Rules []struct {
			ID string `json:"id"`
		} `json:"rules"`
	}
	novaJSON(t, b, &pb, "playbook", "show", "MARS", "--json")
	require.Len(t, pb.Rules, 1)
	novaOK(t, b, "playbook", "edit", "MARS", pb.Rules[0].ID, "Run the linters, the tests and vet before pushing")
	novaOK(t, a, "playbook", "edit", "mars", rule.ID, "Run the linters and the race tests before pushing")
	novaOK(t, a, "team", "sync", "--timeout", "2s")
	require.Eventually(t, func() bool {
		novaOK(t, b, "team", "sync", "--timeout", "2s")
		return strings.Contains(novaOK(t, b, "playbook", "show", "MARS"), "a newer version is not applied")
	}, 20*time.Second, 100*time.Millisecond)
	assert.Contains(t, novaOK(t, b, "playbook", "show", "MARS"), "the tests and vet", "the local edit stays")
	assert.Contains(t, novaOK(t, b, "team", "take", "rule", "MARS", pb.Rules[0].ID), "now holds the teammate's current version")
	assert.Contains(t, novaOK(t, b, "playbook", "show", "MARS"), "the race tests")

	out = novaOK(t, a, "team", "unshare", "rule", "mars", rule.ID)
	assert.Contains(t, out, "no longer shared")
	assert.Contains(t, novaOK(t, a, "team", "unshare", "rule", "mars", rule.ID), "was not marked shared")
}
