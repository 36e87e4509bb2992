package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/storage"
)

func initPlaybookWS(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r := runNova(t, dir, nil, "init")
	require.Equal(t, 0, r.code, r.stderr)
	return dir
}

// withDB runs fn on the workspace's database while no nova process runs
// (seeding state no verb writes, such as pending deltas: direct workspaces only).
func withDB(t *testing.T, dir string, fn func(db *storage.DB)) {
	t.Helper()
	stopTestOwner(t, dir) // the file to ourselves, as a user would quit nova first
	db, err := storage.Open(filepath.Join(dir, ".nova", "nova.db"), storage.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	fn(db)
}

type summaryJSON struct {
	Agent       string  `json:"agent"`
	Version     int     `json:"version"`
	Rules       int     `json:"rules"`
	SuccessRate float64 `json:"successRate"`
}

func TestPlaybookCLI(t *testing.T) {
	t.Parallel()
	dir := initPlaybookWS(t)

	r := runNova(t, dir, nil, "playbook", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.JSONEq(t, "[]", r.stdout)
	r = runNova(t, dir, nil, "playbook", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "no playbooks yet")

	r = runNova(t, dir, nil, "playbook", "add", "mars", "Run go vet before finishing", "--tags", "go,quality")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "added r1 to MARS (version 1)")
	r = runNova(t, dir, nil, "playbook", "add", "MARS", "Prefer table-driven tests", "--confidence", "0.6", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var rule ace.Rule
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rule), r.stdout)
	assert.Equal(t, "r2", rule.ID)
	assert.Equal(t, ace.SourceManual, rule.Source)
	assert.InDelta(t, 0.6, rule.Confidence, 1e-9)

	r = runNova(t, dir, nil, "playbook", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var list []summaryJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list), r.stdout)
	assert.Equal(t, []summaryJSON{{Agent: "MARS", Version: 2, Rules: 2}}, list)
	var raw []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &raw))
	for _, k := range []string{"agent", "version", "rules", "successRate"} {
		assert.Contains(t, raw[0], k)
	}

	r = runNova(t, dir, nil, "playbook", "edit", "mars", "r2", "Prefer table-driven tests with t.Run", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, nil, "playbook", "show", "mars", "--json", "--sort", "confidence")
	require.Equal(t, 0, r.code, r.stderr)
	var show struct {
		Agent   string `json:"agent"`
		Version int    `json:"version"`
		Rules   []struct {
			ID          string   `json:"id"`
			Content     string   `json:"content"`
			Tags        []string `json:"tags"`
			SuccessRate float64  `json:"successRate"`
		} `json:"rules"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &show), r.stdout)
	assert.Equal(t, 3, show.Version)
	require.Len(t, show.Rules, 2)
	assert.Equal(t, "r1", show.Rules[0].ID, "sorted by confidence")
	assert.Equal(t, []string{"go", "quality"}, show.Rules[0].Tags)
	assert.Equal(t, "Prefer table-driven tests with t.Run", show.Rules[1].Content)
	r = runNova(t, dir, nil, "playbook", "show", "mars")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "MARS playbook, version 3")

	r = runNova(t, dir, nil, "playbook", "delete", "mars", "r1")
	require.Equal(t, 2, r.code, "delete asks first: off a terminal it needs --yes")
	assert.Contains(t, r.stderr, "pass --yes")
	r = runNova(t, dir, nil, "playbook", "delete", "mars", "r1", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, nil, "playbook", "delete", "mars", "r1", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "not found")

	r = runNova(t, dir, nil, "playbook", "history", "mars", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var hist []ace.Version
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &hist))
	require.Len(t, hist, 4)
	assert.Equal(t, ace.OpRemove, hist[0].Changes[0].Op)
	r = runNova(t, dir, nil, "playbook", "history", "mars")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "- r1 Run go vet before finishing")

	r = runNova(t, dir, nil, "playbook", "diff", "mars", "0", "4", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var diff []ace.Change
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &diff), r.stdout)
	require.Len(t, diff, 1, "r1 came and went; r2 was added")
	assert.Equal(t, ace.OpAdd, diff[0].Op)
	assert.Equal(t, "Prefer table-driven tests with t.Run", diff[0].After.Content)
	r = runNova(t, dir, nil, "playbook", "diff", "mars", "2", "4")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "was: Prefer table-driven tests")
	assert.Contains(t, r.stdout, "- r1")

	r = runNova(t, dir, nil, "playbook", "show", "mars", "--source", "learned", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &show), r.stdout)
	assert.Empty(t, show.Rules)
}

func TestPlaybookPendingApproveRejectCLI(t *testing.T) {
	t.Parallel()
	dir := initPlaybookWS(t)
	var ids []uint64
	withDB(t, dir, func(db *storage.DB) {
		m := ace.NewManager(db, nil, nil)
		for _, c := range []string{"Keep commits small", "Explain every schema change"} {
			p, err := m.AddPending(context.Background(), "earth", ace.Delta{Op: ace.OpAdd, Content: c, Confidence: 0.6}, "review")
			require.NoError(t, err)
			ids = append(ids, p.ID)
		}
	})

	r := runNova(t, dir, nil, "playbook", "pending", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var pend []ace.Pending
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &pend), r.stdout)
	require.Len(t, pend, 2)
	assert.Equal(t, "EARTH", pend[0].Agent)
	r = runNova(t, dir, nil, "playbook", "pending")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Keep commits small")

	r = runNova(t, dir, nil, "playbook", "approve", jsonID(ids[0]))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "EARTH playbook is now version 1")
	r = runNova(t, dir, nil, "playbook", "reject", jsonID(ids[1]), "--json")
	require.Equal(t, 2, r.code, "reject drops the delta: off a terminal it needs --yes")
	r = runNova(t, dir, nil, "playbook", "reject", jsonID(ids[1]), "--json", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.JSONEq(t, `{"id":`+jsonID(ids[1])+`,"approved":false,"agent":"EARTH"}`, r.stdout)

	r = runNova(t, dir, nil, "playbook", "approve", jsonID(ids[0]))
	assert.Equal(t, 1, r.code, "already decided")
	r = runNova(t, dir, nil, "playbook", "pending", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.JSONEq(t, "[]", r.stdout)
	r = runNova(t, dir, nil, "playbook", "show", "earth", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Keep commits small")
	assert.NotContains(t, r.stdout, "Explain every schema change")

	// doctor/home count pending deltas as pending approvals: checked in engine tests.
}

func jsonID(id uint64) string {
	b, _ := json.Marshal(id)
	return string(b)
}

func TestPlaybookCLIBadUsageAndBadRecords(t *testing.T) {
	t.Parallel()
	dir := initPlaybookWS(t)
	for _, args := range [][]string{
		{"playbook", "show"},
		{"playbook", "approve", "abc"},
		{"playbook", "reject", "0"},
		{"playbook", "add", "mars"},
		{"playbook", "add", "mars", "  "},
		{"playbook", "add", "mars", "x", "--confidence", "2"},
		{"playbook", "show", "mars", "--sort", "nonsense"},
		{"playbook", "edit", "mars", "r1"},
		{"playbook", "list", "extra"},
		{"playbook", "diff", "mars", "3", "1"},
		{"playbook", "show", "mars", "--kind", "vibe"},
	} {
		r := runNova(t, dir, nil, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}

	// A corrupt record is reported on stderr and replaced by an empty playbook.
	withDB(t, dir, func(db *storage.DB) {
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(storage.BucketPlaybooks).Put([]byte("PLUTO"), []byte("garbage"))
		}))
	})
	r := runNova(t, dir, nil, "playbook", "show", "pluto", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	if testWorkspaceKind(t) == "direct" {
		// Diagnostics are the owner's (its stderr, or its TUI's log).
		assert.Contains(t, r.stderr, "PLUTO")
	}
	var show struct {
		Version int   `json:"version"`
		Rules   []any `json:"rules"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &show), r.stdout)
	assert.Zero(t, show.Version)
	assert.Empty(t, show.Rules)
	r = runNova(t, dir, nil, "playbook", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(strings.TrimSpace(r.stdout), "["))

	r = runNova(t, dir, nil, "playbook", "review", "mars")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "not due")
	r = runNova(t, dir, nil, "playbook", "review", "mars", "--force", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"ran": true`)
}
