package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
)

type sessionJSON struct {
	ID        uint64 `json:"id"`
	TaskID    string `json:"taskId"`
	AgentName string `json:"agentName"`
	Status    string `json:"status"`
	Branches  []struct {
		ID          string `json:"id"`
		Description string `json:"description"`
		Files       []struct {
			Path string `json:"path"`
		} `json:"files"`
	} `json:"branches"`
	Results []struct {
		BranchID string  `json:"branchId"`
		Score    float64 `json:"score"`
	} `json:"results"`
	Winner       string `json:"winner"`
	UserApproved *bool  `json:"userApproved"`
	Reason       string `json:"reason"`
	PreferenceID uint64 `json:"preferenceId"`
}

const rehearsePRD = `{"meta":{"name":"calc","version":"1"},"tasks":[
 {"id":"T1","title":"Add totals","description":"Add a Total function to calc and change the schema.","agent":"MARS","status":"pending","dependencies":[],"phase":1,"attempts":0}]}`

func rehearseWorkspace(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	r := runNova(t, dir, nil, "init")
	require.Equal(t, 0, r.code, r.stderr)
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"),
		ollamatest.WithHandler(rehearsaltest.Handler(rehearsaltest.Three(), 0, nil)))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "calc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "calc", "calc.go"), []byte("package calc\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prd.json"), []byte(rehearsePRD), 0o644))
	return dir, map[string]string{"OLLAMA_HOST": srv.URL(), "NOVA_TIER": "premium"}
}

func TestRehearseCLI(t *testing.T) {
	t.Parallel()
	dir, env := rehearseWorkspace(t)

	r := runNova(t, dir, env, "rehearse", "prd.json", "T1", "--branches", "3", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var ss sessionJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ss), r.stdout)
	assert.Equal(t, "T1", ss.TaskID)
	assert.Equal(t, "MARS", ss.AgentName)
	require.Len(t, ss.Branches, 3)
	require.Len(t, ss.Results, 3)
	assert.Equal(t, "pending", ss.Status)
	assert.Nil(t, ss.UserApproved)

	r = runNova(t, dir, env, "rehearsal", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var list []sessionJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	require.Len(t, list, 1)

	r = runNova(t, dir, env, "rehearsal", "show", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "typeCheck")
	assert.Contains(t, r.stdout, "Key differences")

	// no terminal and no --yes: bad usage, nothing written
	r = runNova(t, dir, env, "rehearsal", "approve", "1", "2")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, env, "rehearsal", "approve", "1", "9", "--yes")
	assert.Equal(t, 2, r.code, r.stderr)

	r = runNova(t, dir, env, "rehearsal", "approve", "1", "2", "--yes", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ss))
	assert.Equal(t, ss.Branches[1].ID, ss.Winner)
	require.NotNil(t, ss.UserApproved)
	assert.True(t, *ss.UserApproved)
	assert.NotZero(t, ss.PreferenceID)
	assert.FileExists(t, filepath.Join(dir, "calc", "doc.go"))
	assert.NoFileExists(t, filepath.Join(dir, "calc", "calc_test.go"))

	r = runNova(t, dir, env, "vault", "list", "--type", "preference", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "prefer idiomatic over minimal and defensive")
	assert.Contains(t, r.stdout, "rehearsal:1")

	r = runNova(t, dir, env, "rehearsal", "reject", "1")
	assert.Equal(t, 1, r.code, "a decided session cannot be rejected")
}

func TestRehearseCLIRejectAndTier(t *testing.T) {
	t.Parallel()
	dir, env := rehearseWorkspace(t)
	r := runNova(t, dir, env, "rehearse", "prd.json", "T1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Waiting for a decision")
	r = runNova(t, dir, env, "rehearsal", "reject", "1", "--reason", "too clever", "--json")
	require.Equal(t, 2, r.code, "reject asks first: off a terminal it needs --yes")
	r = runNova(t, dir, env, "rehearsal", "reject", "1", "--reason", "too clever", "--json", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	var ss sessionJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ss))
	assert.Equal(t, "rejected", ss.Status)
	assert.Equal(t, "too clever", ss.Reason)
	b, err := os.ReadFile(filepath.Join(dir, "calc", "calc.go"))
	require.NoError(t, err)
	assert.Equal(t, "package calc\n", string(b))

	env["NOVA_TIER"] = "free"
	r = runNova(t, dir, env, "rehearse", "prd.json", "T1")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "premium")
	assert.NotContains(t, r.stderr, "rehearsing", "refused before it is announced (issue 32)")
	r = runNova(t, dir, env, "rehearse", "prd.json", "NOPE")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "(its tasks: T1)", "the valid ids are listed")

	// A PRD naming an agent that is not on the team: the agents are listed.
	env["NOVA_TIER"] = "premium"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ghost.json"), []byte(strings.Replace(rehearsePRD, `"MARS"`, `"GHOST"`, 1)), 0o644))
	r = runNova(t, dir, env, "rehearse", "ghost.json", "T1")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `task T1 names agent "GHOST", which is not on the team (the agents: `)
	assert.Contains(t, r.stderr, "MARS")
	assert.NotContains(t, r.stderr, "rehearsing")
	r = runNova(t, dir, env, "rehearse", "prd.json", "T1", "--branches", "5")
	assert.Equal(t, 2, r.code)
}
