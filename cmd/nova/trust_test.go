package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/vault"
)

// Issue 10's commands on the facade: the tier cap's archive and capacity,
// dry runs over the cap, batch states, tasks that ask the user, verdicts,
// wisdom bundles and the identity.

// fillVault imports nodes of the given confidence (ids from 100,000) until
// the vault holds total nodes; it returns the ids it added.
func fillVault(t *testing.T, e *Env, ws engine.Workspace, total int, confidence float64) []uint64 {
	t.Helper()
	st, err := ws.VaultStats(t.Context())
	require.NoError(t, err)
	var jsonl strings.Builder
	var ids []uint64
	for i := range total - st.Nodes {
		id := uint64(100_000 + i)
		ids = append(ids, id)
		fmt.Fprintf(&jsonl, `{"kind":"node","id":%d,"type":"Pattern","content":"filler rule number %d","confidence":%v}`+"\n", id, i, confidence)
	}
	path := filepath.Join(t.TempDir(), "fill.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(jsonl.String()), 0o644))
	require.NoError(t, runVaultImport(t.Context(), &vaultFileOptions{Env: e, File: path}))
	return ids
}

func TestVaultArchiveListRestoreAndCapacity(t *testing.T) {
	t.Parallel()
	e, ws, so, se := testWorkspace(t, nil) // free tier: 500 nodes
	ctx := t.Context()
	fillVault(t, e, ws, 500, 0.3)

	so.Reset()
	require.NoError(t, runVaultArchiveList(ctx, &vaultArchiveListOptions{Env: e}))
	assert.Equal(t, "the archive is empty\n", so.String())
	so.Reset()
	require.NoError(t, runVaultArchiveList(ctx, &vaultArchiveListOptions{Env: e, JSON: true}))
	assert.Equal(t, "[]\n", so.String(), "an empty archive is [] not null")

	// A learning write (the user's reason for a rejection) on a full vault
	// moves the least confident node to the archive.
	rep, err := ws.RecordUserSignal(ctx, "MARS", "feature", false, "the change deleted the tests")
	require.NoError(t, err)
	require.NotZero(t, rep.VaultID, "the lesson was stored")

	so.Reset()
	require.NoError(t, runVaultArchiveList(ctx, &vaultArchiveListOptions{Env: e, JSON: true}))
	var list []vault.ArchivedNode
	require.NoError(t, json.Unmarshal(so.Bytes(), &list), "one JSON document")
	require.Len(t, list, 1)
	archived := list[0].Node.ID
	assert.InDelta(t, 0.3, list[0].Node.Confidence, 1e-9, "the least confident node went")
	assert.NotEmpty(t, list[0].Reason)
	assert.False(t, list[0].ArchivedAt.IsZero())

	so.Reset()
	require.NoError(t, runVaultArchiveList(ctx, &vaultArchiveListOptions{Env: e}))
	assert.Contains(t, so.String(), "ARCHIVED")
	assert.Contains(t, so.String(), fmt.Sprintf("%d ", archived))
	assert.Contains(t, so.String(), "nova vault archive restore ID")

	so.Reset()
	require.NoError(t, runVaultStats(ctx, &vaultReadOptions{Env: e, JSON: true}))
	var st struct {
		Nodes    int            `json:"nodes"`
		Capacity vault.Capacity `json:"capacity"`
	}
	require.NoError(t, json.Unmarshal(so.Bytes(), &st))
	assert.Equal(t, 500, st.Nodes)
	assert.Equal(t, vault.Capacity{Tier: "free", Cap: 500, Nodes: 500, Free: 0, Archived: 1}, st.Capacity)
	so.Reset()
	require.NoError(t, runVaultStats(ctx, &vaultReadOptions{Env: e}))
	assert.Contains(t, so.String(), "tier free: 500 of 500 nodes, 0 free; 1 in the archive")

	// Restoring is a user write: refused at the cap, nothing changes.
	err = runVaultArchiveRestore(ctx, &vaultArchiveRestoreOptions{Env: e, ID: archived})
	require.Error(t, err)
	assert.Equal(t, 1, exitCode(err))
	require.ErrorIs(t, err, vault.ErrOverCap)
	assert.Contains(t, err.Error(), "free tier keeps at most 500")
	assert.Contains(t, err.Error(), "NOVA_TIER=premium")
	_, err = ws.GetArchived(ctx, archived)
	require.NoError(t, err, "still archived")

	require.NoError(t, ws.ForgetNode(ctx, 100_001))
	so.Reset()
	se.Reset()
	require.NoError(t, runVaultArchiveRestore(ctx, &vaultArchiveRestoreOptions{Env: e, ID: archived}))
	assert.Contains(t, so.String(), fmt.Sprintf("restored node #%d (", archived))
	n, err := ws.GetNode(ctx, archived)
	require.NoError(t, err)
	assert.Equal(t, archived, n.ID, "the same id")

	err = runVaultArchiveRestore(ctx, &vaultArchiveRestoreOptions{Env: e, ID: archived})
	require.Error(t, err)
	assert.Equal(t, 1, exitCode(err))
	assert.ErrorIs(t, err, vault.ErrNotFound)
}

func TestVaultArchiveRestoreUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	r := runNova(t, dir, nil, "vault", "archive", "restore", "abc")
	assert.Equal(t, 2, r.code, r.stderr)
	r = runNova(t, dir, nil, "vault", "archive", "restore")
	assert.Equal(t, 2, r.code, r.stderr)
	r = runNova(t, dir, nil, "vault", "archive", "restore", "4242")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "not found")
}

// writeLibrary writes n markdown patterns, distinct enough not to be
// near-duplicates of each other.
func writeLibrary(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	words := []string{"cache", "retry", "stream", "index", "queue", "token", "schema", "render", "socket", "ledger",
		"parser", "cursor", "bucket", "router", "signal", "buffer", "mutex", "lease", "digest", "fence"}
	for i := range n {
		w1, w2, w3 := words[i%len(words)], words[(i*7+3)%len(words)], words[(i*13+5)%len(words)]
		body := fmt.Sprintf("# Pattern %d: %s %s\n\nKeep the %s apart from the %s and measure the %s before tuning %d.\n", i, w1, w2, w1, w2, w3, i*31)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%03d.md", i)), []byte(body), 0o644))
	}
	return dir
}

// Regression (issue 10): a dry run over the tier cap printed only the error;
// it prints the report (overCap included) and then fails like the real
// import, having written nothing.
func TestImportDryRunOverTheCapReportsThenFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	lib := writeLibrary(t, 12)
	fill := filepath.Join(t.TempDir(), "fill.jsonl")
	var before struct {
		Nodes int `json:"nodes"`
	}
	novaJSON(t, dir, &before, "vault", "stats")
	var jsonl strings.Builder
	for i := range 495 - before.Nodes {
		fmt.Fprintf(&jsonl, `{"kind":"node","id":%d,"type":"Pattern","content":"filler rule number %d","confidence":0.5}`+"\n", 100_000+i, i)
	}
	require.NoError(t, os.WriteFile(fill, []byte(jsonl.String()), 0o644))
	require.Equal(t, 0, runNova(t, dir, nil, "vault", "import", fill).code)

	r := runNova(t, dir, nil, "import", lib, "--dry-run", "--json")
	assert.Equal(t, 1, r.code, r.stderr)
	var res importer.Result
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), "the report is one JSON document: %s", r.stdout)
	require.NotNil(t, res.OverCap)
	assert.Equal(t, 495, res.OverCap.Count)
	assert.Equal(t, 507, res.OverCap.Would)
	assert.True(t, res.DryRun)
	assert.Contains(t, r.stderr, "would bring the vault to 507")

	r = runNova(t, dir, nil, "import", lib, "--dry-run")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "dry run: would import 12 of 12 files")
	assert.Contains(t, r.stdout, "0 forgotten, 0 archived")
	assert.Contains(t, r.stdout, "over the cap: the free tier keeps at most 500 nodes; this import would bring the vault to 507")
	assert.Contains(t, r.stderr, "so nothing was written")

	r = runNova(t, dir, nil, "import", lib)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "would bring the vault to 507")
	var after struct {
		Nodes int `json:"nodes"`
	}
	novaJSON(t, dir, &after, "vault", "stats")
	assert.Equal(t, 495, after.Nodes, "nothing was written")
	var batches []map[string]any
	novaJSON(t, dir, &batches, "import", "list")
	assert.Len(t, batches, 1, "only the starter batch")
}

// import list shows what is left of each batch: a forgotten starter node
// makes its batch partial; forgetting stays forgotten on the next init.
func TestImportListShowsBatchStateAndInitKeepsForgotten(t *testing.T) {
	t.Parallel()
	e, ws, so, _ := testWorkspace(t, nil)
	ctx := t.Context()
	batches, err := ws.ListImports(ctx)
	require.NoError(t, err)
	require.Len(t, batches, 1)
	require.NotEmpty(t, batches[0].Added)
	require.NoError(t, ws.ForgetNode(ctx, batches[0].Added[0]))

	require.NoError(t, runImportList(ctx, &importListOptions{Env: e, JSON: true}))
	var list []batchJSON
	require.NoError(t, json.Unmarshal(so.Bytes(), &list))
	require.Len(t, list, 1)
	assert.Equal(t, importer.BatchPartial, list[0].State)
	assert.Equal(t, 1, list[0].Gone)
	assert.Zero(t, list[0].Archived)
	assert.Equal(t, len(batches[0].Added)-1, list[0].Present)

	so.Reset()
	require.NoError(t, runImportList(ctx, &importListOptions{Env: e}))
	assert.Contains(t, so.String(), "STATE")
	assert.Contains(t, so.String(), "partial (0 archived, 1 gone)")

	so.Reset()
	require.NoError(t, runInit(ctx, &initOptions{Env: e, Dir: ws.Info().Root}))
	assert.Contains(t, so.String(), "1 starter pattern you forgot stay forgotten")
}

// askPRD has one task whose agent keeps asking to run a destructive command:
// denied headless, it ends in the ask_user recovery hint.
const askPRD = `{"meta":{"name":"ask"},"tasks":[
 {"id":"ask","title":"clean the build output","description":"remove old build output","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`

func askHandler(_ int, req api.ChatRequest) ollamatest.Reply {
	for _, m := range req.Messages {
		if m.Role == "user" && strings.Contains(m.Content, "use the Makefile target") {
			return ollamatest.Text("Done, as you said.")
		}
	}
	n := 0
	for _, m := range req.Messages {
		if m.Role == "tool" {
			n++
		}
	}
	return ollamatest.ToolCalls(ollamatest.Call("runCommand", map[string]any{"command": fmt.Sprintf("rm -rf build%d", n)}))
}

func TestBuildAnswerTellsAndContinues(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	srv.SetHandler(askHandler)
	writeFile(t, dir, "ask.json", askPRD)

	r := runNova(t, dir, env, "build", "run", "ask.json", "--headless")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, "ask asks you: ")
	assert.Contains(t, r.stdout, `answer with: nova build answer 1 ask "…"`)
	assert.Contains(t, r.stderr, "build 1 paused")

	r = runNova(t, dir, env, "build", "show", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "waiting for your answer: ")
	assert.Contains(t, r.stdout, `answer with: nova build answer 1 ask "…"`)

	r = runNova(t, dir, env, "build", "answer", "1", "ask", "   ")
	assert.Equal(t, 2, r.code, "an empty answer is bad usage")
	assert.Contains(t, r.stderr, "the answer is empty")
	r = runNova(t, dir, env, "build", "answer", "1", "ask")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, env, "build", "answer", "1", "nope", "x")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `no task "nope"`)

	r = runNova(t, dir, env, "build", "answer", "1", "ask", "Do not delete anything; use the Makefile target.")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "answered ask; `nova build resume 1` continues the build")
	r = runNova(t, dir, env, "build", "answer", "1", "ask", "again")
	assert.Equal(t, 1, r.code, "the task no longer asks")
	assert.Contains(t, r.stderr, "not waiting")

	r = runNova(t, dir, env, "build", "resume", "1")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	var b struct {
		Status string `json:"status"`
	}
	novaJSON(t, dir, &b, "build", "show", "1")
	assert.Equal(t, "done", b.Status)
}

// claimPRD asks for a file; the agent only claims to have written it.
const claimPRD = `{"meta":{"name":"claim"},"tasks":[
 {"id":"h-1","title":"Create internal/health/health.go","description":"Create internal/health/health.go with a health handler","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`

func TestBuildShowPrintsTheVerdictAndTheWarning(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	srv.SetHandler(func(int, api.ChatRequest) ollamatest.Reply {
		return ollamatest.Text("I created internal/health/health.go and all tests pass.")
	})
	writeFile(t, dir, "claim.json", claimPRD)

	r := runNova(t, dir, env, "build", "run", "claim.json", "--headless")
	assert.Equal(t, 1, r.code, "a claim alone never finishes done")
	r = runNova(t, dir, env, "build", "show", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "blocked")
	assert.Contains(t, r.stdout, "verdict: inconclusive", "a claim with no staged change cannot be confirmed")
	assert.Contains(t, r.stdout, "internal/health/health.go: the answer says this file changed, but no change to it was staged")
	var show struct {
		Phases []struct {
			Tasks []build.Task `json:"tasks"`
		} `json:"phases"`
	}
	novaJSON(t, dir, &show, "build", "show", "1")
	require.NotNil(t, show.Phases[0].Tasks[0].Verdict, "build show --json has the verdict")
	assert.NotEmpty(t, show.Phases[0].Tasks[0].Verdict.Checks)

	// verify.inconclusive: warn marks it done with a visible warning.
	cfg := filepath.Join(dir, ".nova", "config.yaml")
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, []byte(strings.Replace(string(data), "inconclusive: retry", "inconclusive: warn", 1)), 0o644))
	r = runNova(t, dir, env, "build", "run", "claim.json", "--headless")
	require.Equal(t, 0, r.code, "the verdict is inconclusive: warn passes it; %s", r.stderr)
	r = runNova(t, dir, env, "build", "show", "2")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "verdict: inconclusive")
	assert.Contains(t, r.stdout, "warning: unverified")
}

func TestBuildListFitsInterrupted(t *testing.T) {
	t.Parallel()
	e, ws, so, _ := testWorkspace(t, map[string]string{"OLLAMA_HOST": "127.0.0.1:1"})
	ctx := t.Context()
	path := filepath.Join(ws.Info().Root, "ask.json")
	require.NoError(t, os.WriteFile(path, []byte(askPRD), 0o644))
	b, err := ws.CreateBuild(ctx, path, engine.BuildOptions{})
	require.NoError(t, err)
	// The model server is unreachable: the build waits for it until ctrl+c.
	run, cancel := context.WithCancel(ctx)
	done := make(chan build.Build, 1)
	go func() {
		got, _ := ws.RunBuild(run, b.ID, engine.RunBuildOptions{})
		done <- got
	}()
	require.Eventually(t, func() bool {
		got, err := ws.GetBuild(ctx, b.ID)
		return err == nil && got.Status == build.StatusWaiting
	}, 10*time.Second, 10*time.Millisecond)
	cancel()
	<-done
	// Through an owner the cancelled call returns at once, before the owner
	// stored the end: read it back (the bound only catches a hang).
	var got build.Build
	require.Eventually(t, func() bool {
		got, err = ws.GetBuild(ctx, b.ID)
		return err == nil && got.Status != build.StatusRunning && got.Status != build.StatusWaiting
	}, 30*time.Second, 10*time.Millisecond)
	require.Equal(t, build.StatusInterrupted, got.Status, got.Reason)

	require.NoError(t, runBuildList(ctx, &buildListOptions{Env: e}))
	lines := strings.Split(strings.TrimSpace(so.String()), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, strings.Index(lines[0], "DONE"), strings.Index(lines[1], "0/1"), "the DONE column lines up after `interrupted`:\n%s", so.String())
}

// identityWorkspace is testWorkspace with config userId set to user and
// global wisdom opted in.
func identityWorkspace(t *testing.T, user string) (*Env, engine.Workspace, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	e, so, _ := newTestEnv(t, dir, nil, "")
	require.NoError(t, runInit(t.Context(), &initOptions{Env: e, Dir: dir}))
	cfg := filepath.Join(dir, ".nova", "config.yaml")
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	s := strings.Replace(string(data), "userId: local", "userId: "+user, 1)
	s = strings.Replace(s, "optInGlobal: false", "optInGlobal: true", 1)
	require.NoError(t, os.WriteFile(cfg, []byte(s), 0o644))
	ws, err := e.Workspace(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	e.Workspace = func(context.Context) (engine.Workspace, error) { return nopClose{ws}, nil }
	so.Reset()
	return e, ws, so
}

func TestWisdomBundlesAcrossTwoIdentities(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	// Ana's workspace: she promotes a node and exports her bundle.
	ea2, wsA, soa2 := identityWorkspace(t, "ana@example.org")
	n, err := wsA.LearnNode(ctx, vault.Node{Type: vault.Pattern, Content: "Close response bodies in a deferred call right after the error check", Confidence: 0.95})
	require.NoError(t, err)
	_, err = wsA.PromoteWisdom(ctx, n.Node.ID)
	require.NoError(t, err)

	require.NoError(t, runWisdomStats(ctx, &wisdomStatsOptions{Env: ea2}))
	assert.Contains(t, soa2.String(), "you are author u-")
	assert.NotContains(t, soa2.String(), "ana@example.org", "the e-mail never shows")

	bundle := filepath.Join(t.TempDir(), "ana.wisdom.json")
	soa2.Reset()
	require.NoError(t, runWisdomExport(ctx, &wisdomExportOptions{Env: ea2, File: bundle, JSON: true}))
	var exported struct {
		Author   string `json:"author"`
		Patterns int    `json:"patterns"`
	}
	require.NoError(t, json.Unmarshal(soa2.Bytes(), &exported))
	anaAuthor := vault.AuthorID("ana@example.org")
	assert.Equal(t, anaAuthor, exported.Author)
	assert.Equal(t, 1, exported.Patterns)
	data, err := os.ReadFile(bundle)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "ana@example.org")

	// Her own bundle changes nothing in her workspace.
	soa2.Reset()
	require.NoError(t, runWisdomImport(ctx, &wisdomImportOptions{Env: ea2, File: bundle}))
	assert.Contains(t, soa2.String(), "the bundle is yours")

	// Bo's workspace counts Ana as one backer, once.
	eb, _, sob := identityWorkspace(t, "bo@example.org")
	require.NoError(t, runWisdomImport(ctx, &wisdomImportOptions{Env: eb, File: bundle, JSON: true}))
	var imp vault.BundleImport
	require.NoError(t, json.Unmarshal(sob.Bytes(), &imp))
	assert.Equal(t, 1, imp.Created)
	assert.False(t, imp.Already)
	sob.Reset()
	require.NoError(t, runWisdomImport(ctx, &wisdomImportOptions{Env: eb, File: bundle}))
	assert.Contains(t, sob.String(), "was imported before: nothing changed")

	sob.Reset()
	require.NoError(t, runWisdomBundles(ctx, &wisdomBundlesOptions{Env: eb, JSON: true}))
	var bs []vault.BundleImport
	require.NoError(t, json.Unmarshal(sob.Bytes(), &bs))
	require.Len(t, bs, 1)
	assert.Equal(t, exported.Author, bs[0].Author)
	sob.Reset()
	require.NoError(t, runWisdomBundles(ctx, &wisdomBundlesOptions{Env: eb}))
	assert.Contains(t, sob.String(), exported.Author)

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"format":"nova.wisdom/1","author":"bob"}`), 0o644))
	err = runWisdomImport(ctx, &wisdomImportOptions{Env: eb, File: bad})
	require.Error(t, err)
	assert.Equal(t, 1, exitCode(err))
	assert.ErrorIs(t, err, vault.ErrInvalid)
}

func TestDoctorShowsTheAuthorIDNeverTheEmail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	cfg := filepath.Join(dir, ".nova", "config.yaml")
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, []byte(strings.Replace(string(data), "userId: local", "userId: dev@example.org", 1)), 0o644))
	env := map[string]string{"OLLAMA_HOST": "127.0.0.1:1"}

	r := runNova(t, dir, env, "doctor")
	assert.Contains(t, r.stdout, "identity")
	assert.Contains(t, r.stdout, "author "+vault.AuthorID("dev@example.org")+" (from config userId)")
	assert.NotContains(t, r.stdout, "dev@example.org")
	r = runNova(t, dir, env, "doctor", "--json")
	assert.NotContains(t, r.stdout, "dev@example.org")
	var rep engine.DoctorReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.Equal(t, vault.AuthorID("dev@example.org"), rep.Author)
}

func TestPlaybookShowAcceptsTheVaultSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, runNova(t, dir, nil, "init").code)
	r := runNova(t, dir, nil, "playbook", "show", "MARS", "--source", "vault")
	assert.Equal(t, 0, r.code, r.stderr)
	r = runNova(t, dir, nil, "playbook", "show", "MARS", "--source", "nope")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "learned, manual, global, vault or team")
}
