package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/docs/docstest"
	"github.com/nova-dev/nova/engine/knowledge/facts"
)

// knowledgeEnv is a test environment whose docs come from a local
// Context7-compatible server and whose user-level facts live in a temp
// NOVA_HOME.
func knowledgeEnv(t *testing.T) (map[string]string, *docstest.Server) {
	t.Helper()
	d7 := docstest.New(t, docstest.Options{})
	return map[string]string{"CONTEXT7_API_URL": d7.URL(), "NOVA_HOME": t.TempDir()}, d7
}

func TestDocsFetchOnceThenFromTheCache(t *testing.T) {
	t.Parallel()
	env, d7 := knowledgeEnv(t)
	dir := initDir(t)

	r := runNova(t, dir, env, "docs", "fetch", "react", "hooks")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "useEffect")
	assert.Contains(t, r.stderr, "react (hooks) — network, /facebook/react")
	first := d7.Count("")
	assert.Positive(t, first)

	r = runNova(t, dir, env, "docs", "fetch", "react", "hooks", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var got docs.Result
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	assert.Equal(t, "cache", got.Source)
	assert.True(t, got.Available)
	assert.Equal(t, "react", got.Library)
	assert.Equal(t, "hooks", got.Topic)
	assert.False(t, got.FetchedAt.IsZero())
	assert.Equal(t, first, d7.Count(""), "the second fetch made no request")

	r = runNova(t, dir, env, "docs", "list", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var list []docs.EntryInfo
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	require.Len(t, list, 1)
	assert.Equal(t, "docs:context7:react#hooks", list[0].Ref)

	r = runNova(t, dir, env, "docs", "list")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "SOURCE")
	assert.Contains(t, r.stdout, "context7")

	r = runNova(t, dir, env, "docs", "stats", "--json")
	require.Equal(t, 0, r.code)
	var st docs.Stats
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	assert.Equal(t, 1, st.Entries)
	assert.Equal(t, 1, st.BySource["context7"])
}

func TestDocsFetchWithNothingFoundPrintsTheFallbackAndExits1(t *testing.T) {
	t.Parallel()
	env, d7 := knowledgeEnv(t)
	dir := initDir(t)
	d7.Close()

	r := runNova(t, dir, env, "docs", "fetch", "react", "hooks")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "Documentation unavailable for react (hooks). Please consult the official docs.\n", r.stdout)
	assert.Contains(t, r.stderr, "no documentation found for react (hooks)")

	r = runNova(t, dir, env, "docs", "fetch", "react", "hooks", "--json")
	assert.Equal(t, 1, r.code)
	var got docs.Result
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), "one JSON document even on failure")
	assert.Equal(t, "none", got.Source)
	assert.False(t, got.Available)
	assert.NotEmpty(t, got.Warning)

	for _, args := range [][]string{
		{"docs", "fetch", ""},
		{"docs", "fetch"},
		{"docs", "fetch", "react", "hooks", "extra"},
		{"docs", "fetch", "react", "--max-tokens", "5"},
		{"docs", "fetch", strings.Repeat("x", 600)},
	} {
		r := runNova(t, dir, env, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
}

func TestDocsClearAsksAndRefusesOffATerminal(t *testing.T) {
	t.Parallel()
	env, _ := knowledgeEnv(t)
	e, ws, so, se := testWorkspace(t, env)
	ctx := t.Context()
	_, err := ws.FetchDocs(ctx, "react", "hooks", docs.FetchOptions{})
	require.NoError(t, err)
	_, err = ws.FetchDocs(ctx, "zod", "", docs.FetchOptions{})
	require.NoError(t, err)

	err = runDocsClear(ctx, &docsClearOptions{Env: e, Library: "react"})
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err))
	assert.Contains(t, err.Error(), "pass --yes")

	terminal(e, "n\n")
	err = runDocsClear(ctx, &docsClearOptions{Env: e, Library: "react"})
	require.Error(t, err)
	assert.Equal(t, 1, exitCode(err))
	assert.Contains(t, se.String(), "Remove 1 cached docs of react? [y/N]")
	list, err := ws.DocsList(ctx, "")
	require.NoError(t, err)
	assert.Len(t, list, 2, "nothing removed")

	terminal(e, "y\n")
	require.NoError(t, runDocsClear(ctx, &docsClearOptions{Env: e, Library: "react"}))
	assert.Contains(t, so.String(), "removed 1 cached docs")
	so.Reset()
	require.NoError(t, runDocsClear(ctx, &docsClearOptions{Env: e, Yes: true, JSON: true}))
	assert.JSONEq(t, `{"removed":1}`, so.String())
	list, err = ws.DocsList(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, list)
}

// `nova docs remove REF...`: refs from `docs list`; bad refs are bad usage,
// unknown ones fail before anything is asked or removed; it asks on a
// terminal (No by default) and refuses off one without --yes.
func TestDocsRemoveByReference(t *testing.T) {
	t.Parallel()
	env, _ := knowledgeEnv(t)
	dir := initDir(t)
	for _, lib := range [][]string{{"react", "hooks"}, {"zod"}} {
		r := runNova(t, dir, env, append([]string{"docs", "fetch"}, lib...)...)
		require.Equal(t, 0, r.code, r.stderr)
	}
	r := runNova(t, dir, env, "docs", "list")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "REF")
	assert.Contains(t, r.stdout, "docs:context7:react#hooks", "the list shows what remove takes")
	refs := func() []string {
		r := runNova(t, dir, env, "docs", "list", "--json")
		require.Equal(t, 0, r.code, r.stderr)
		var list []docs.EntryInfo
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
		var out []string
		for _, e := range list {
			out = append(out, e.Ref)
		}
		return out
	}
	require.ElementsMatch(t, []string{"docs:context7:react#hooks", "docs:context7:zod"}, refs())

	for _, args := range [][]string{
		{"docs", "remove"},
		{"docs", "remove", "react"},
		{"docs", "remove", "docs:context7"},
		{"docs", "remove", "  "},
	} {
		r := runNova(t, dir, env, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
	r = runNova(t, dir, env, "docs", "remove", "docs:context7:zod", "docs:context7:vue", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no cached docs at docs:context7:vue")
	r = runNova(t, dir, env, "docs", "remove", "docs:context7:zod")
	assert.Equal(t, 2, r.code, "off a terminal without --yes")
	assert.Contains(t, r.stderr, "pass --yes")
	require.Len(t, refs(), 2, "nothing removed so far")

	e, so, se := newTestEnv(t, dir, env, "")
	terminal(e, "\n")
	err := runDocsRemove(t.Context(), &docsRemoveOptions{Env: e, Refs: []string{"docs:context7:react#hooks"}})
	require.Error(t, err)
	assert.Equal(t, 1, exitCode(err))
	assert.Contains(t, se.String(), "Remove the cached docs of react (hooks) from context7? [y/N]")
	terminal(e, "y\n")
	require.NoError(t, runDocsRemove(t.Context(), &docsRemoveOptions{Env: e, Refs: []string{"docs:context7:react#hooks"}}))
	assert.Contains(t, so.String(), "removed docs:context7:react#hooks")
	so.Reset()
	require.NoError(t, runDocsRemove(t.Context(), &docsRemoveOptions{Env: e, Refs: []string{"docs:context7:zod"}, Yes: true, JSON: true}))
	assert.JSONEq(t, `{"removed":["docs:context7:zod"]}`, so.String())
}

func TestFactAddCorrectHistoryFromTheCLI(t *testing.T) {
	t.Parallel()
	env, _ := knowledgeEnv(t)
	dir := initDir(t)

	r := runNova(t, dir, env, "facts", "add", "Releases are cut from the main branch", "--tags", "release", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var f facts.Fact
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &f))
	assert.Equal(t, facts.Workspace(), f.Scope)
	assert.Equal(t, []string{"release"}, f.Tags)

	r = runNova(t, dir, env, "facts", "correct", f.ID, "--reason", "we release from release/* branches now",
		"--replace", "Releases are cut from release/* branches", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var c facts.Correction
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &c))
	require.NotNil(t, c.New)
	assert.Equal(t, facts.StatusSuperseded, c.Old.Status)
	assert.Equal(t, c.New.ID, c.Old.SupersededBy)

	r = runNova(t, dir, env, "facts", "history", c.New.ID)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, f.ID+"   valid ")
	assert.Contains(t, r.stdout, "superseded by "+c.New.ID+": we release from release/* branches now")
	assert.Contains(t, r.stdout, c.New.ID+"   valid since ")
	assert.Less(t, strings.Index(r.stdout, f.ID), strings.Index(r.stdout, c.New.ID), "oldest first")

	r = runNova(t, dir, env, "facts", "history", f.ID, "--json")
	require.Equal(t, 0, r.code)
	var hist []facts.Fact
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &hist))
	require.Len(t, hist, 2)

	// Correcting it again names the replacement; an unknown fact fails.
	r = runNova(t, dir, env, "facts", "correct", f.ID, "--reason", "again")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "its replacement is "+c.New.ID)
	r = runNova(t, dir, env, "facts", "correct", "f99", "--reason", "x")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "fact not found")

	r = runNova(t, dir, env, "facts", "search", "release", "branches", "--json")
	require.Equal(t, 0, r.code)
	var found []facts.Scored
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &found))
	require.Len(t, found, 1, "the superseded fact is hidden")
	assert.Equal(t, c.New.ID, found[0].ID)
	r = runNova(t, dir, env, "facts", "search", "release", "--include-invalidated", "--json")
	require.Equal(t, 0, r.code)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &found))
	assert.Len(t, found, 2)

	r = runNova(t, dir, env, "facts", "add", "I prefer small pull requests", "--scope", "user")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "(user, confidence 0.90)")
	r = runNova(t, dir, env, "facts", "list", "--scope", "user", "--json")
	require.Equal(t, 0, r.code)
	var listed []facts.Fact
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &listed))
	require.Len(t, listed, 1)
	assert.True(t, strings.HasPrefix(listed[0].ID, "u"))

	r = runNova(t, dir, env, "facts", "promote", c.New.ID, "--to", "user", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var pr facts.Correction
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &pr))
	require.NotNil(t, pr.New)
	assert.Equal(t, facts.User(), pr.New.Scope)
}

func TestFactsBadInputIsBadUsage(t *testing.T) {
	t.Parallel()
	env, _ := knowledgeEnv(t)
	dir := initDir(t)
	for _, args := range [][]string{
		{"facts", "add", "x", "--confidence", "1.5"},
		{"facts", "add", "x", "--confidence", "NaN"},
		{"facts", "add", "x", "--scope", "planet"},
		{"facts", "add", "   "},
		{"facts", "search", "x", "--recency", "sometimes"},
		{"facts", "search", "x", "--scope", "build:"},
		{"facts", "correct", "f1"},
		{"facts", "correct", "zz", "--reason", "r"},
		{"facts", "history", "../f1"},
		{"facts", "promote", "f1", "--to", "galaxy"},
		{"knowledge", "search", " "},
		{"knowledge", "search", "x", "--limit", "0"},
		{"knowledge", "show", "bogus"},
		{"facts", "add", "x", "--category", "gossip"},
		{"facts", "helpful"},
	} {
		r := runNova(t, dir, env, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
	r := runNova(t, dir, env, "facts", "list", "--json")
	require.Equal(t, 0, r.code)
	assert.Equal(t, "[]\n", r.stdout, "nothing was written")
}

func TestFactsProblemEntriesAndTheUsersWord(t *testing.T) {
	t.Parallel()
	env, _ := knowledgeEnv(t)
	dir := initDir(t)
	r := runNova(t, dir, env, "facts", "add", "Set CGO_ENABLED=1; the driver needs cgo.",
		"--problem", "go build fails: undefined sqlite3 in the sqlite driver")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "added fact f1 (troubleshooting, workspace, confidence 0.90)\n", r.stdout)
	r = runNova(t, dir, env, "facts", "add", "Handlers live in internal/api.")
	require.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, env, "facts", "search", "sqlite build error")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "[troubleshooting] go build fails: undefined sqlite3")

	r = runNova(t, dir, env, "facts", "helpful", "f1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "f1: helped 1 of 1 uses (100%)\n", r.stdout)
	r = runNova(t, dir, env, "facts", "unhelpful", "f2", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var f facts.Fact
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &f))
	assert.Equal(t, 1, f.NotHelpful)
	r = runNova(t, dir, env, "facts", "unhelpful", "f99")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "fact not found: f99")
}

func TestKnowledgeSearchMergesSources(t *testing.T) {
	t.Parallel()
	env, _ := knowledgeEnv(t)
	e, ws, so, _ := testWorkspace(t, env)
	ctx := t.Context()
	_, err := ws.FetchDocs(ctx, "react", "hooks", docs.FetchOptions{})
	require.NoError(t, err)
	f, err := ws.AddFact(ctx, facts.NewFact{Content: "Our components use hooks, never class lifecycles"})
	require.NoError(t, err)

	require.NoError(t, runKnowledgeSearch(ctx, &knowledgeSearchOptions{Env: e, Query: "hooks", Limit: 10, JSON: true}))
	var hits []struct {
		Source, Title, Snippet, Ref string
		Score                       float64
	}
	require.NoError(t, json.Unmarshal(so.Bytes(), &hits), so.String())
	sources := map[string]string{}
	for _, h := range hits {
		if _, ok := sources[h.Source]; !ok {
			sources[h.Source] = h.Ref
		}
		assert.GreaterOrEqual(t, h.Score, 0.0)
		assert.LessOrEqual(t, h.Score, 1.0)
	}
	assert.Equal(t, "fact:"+f.ID, sources["facts"])
	assert.Equal(t, "docs:context7:react#hooks", sources["docs"])

	so.Reset()
	require.NoError(t, runKnowledgeShow(ctx, &knowledgeShowOptions{Env: e, Ref: "fact:" + f.ID}))
	assert.Contains(t, so.String(), "Our components use hooks")
	assert.Contains(t, so.String(), "valid since")
}

// A fact recorded from the CLI reaches a build's prompt, and `build show`
// names it in the task's provenance (JSON and text).
func TestBuildShowNamesTheInjectedKnowledge(t *testing.T) {
	t.Parallel()
	dir, _, env := buildWorkspace(t, 0)
	env["NOVA_HOME"] = t.TempDir()
	env["CONTEXT7_API_URL"] = "off"
	r := runNova(t, dir, env, "facts", "add", "The first task of a small plan is done in one attempt", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var f facts.Fact
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &f))
	writeFile(t, dir, "plan.json", smallPRD)
	r = runNova(t, dir, env, "build", "run", "plan.json", "--headless")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)

	r = runNova(t, dir, env, "build", "show", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var show struct {
		Phases []struct {
			Tasks []struct {
				ID           string   `json:"id"`
				KnowledgeIDs []string `json:"knowledgeIds"`
			} `json:"tasks"`
		} `json:"phases"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &show))
	require.NotEmpty(t, show.Phases)
	first := show.Phases[0].Tasks[0]
	assert.Equal(t, "s-1", first.ID)
	assert.Contains(t, first.KnowledgeIDs, "fact:"+f.ID)
	r = runNova(t, dir, env, "build", "show", "1")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "knowledge: fact:"+f.ID)
}
