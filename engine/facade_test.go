package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/vault"
)

// The facade's verbs are thin delegations; these tests cover what the
// facade adds itself: plans kept between calls, options without callbacks,
// approval policies, absolute paths and plain problem values.

func TestImportPlanVerbs(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	lib := filepath.Join(t.TempDir(), "lib")
	require.NoError(t, os.MkdirAll(filepath.Join(lib, "01-caching"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "01-caching", "cache-aside.md"), []byte("# Cache Aside\n\nRead the cache first; fill it on a miss.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "01-caching", "ttl.md"), []byte("# TTL Jitter\n\nSpread expiry times.\n"), 0o644))
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()

	_, err = ws.ScanPatterns(ctx, "lib", engine.ImportOptions{})
	assert.ErrorIs(t, err, engine.ErrRelativePath, "paths are the caller's to resolve")

	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	events := ws.Subscribe(sub)
	def, err := ws.ImportDefaults(ctx)
	require.NoError(t, err)
	assert.Equal(t, "bistrolens-import", def.User)
	plan, err := ws.ScanPatterns(ctx, lib, engine.ImportOptions{Op: "scan-1"})
	require.NoError(t, err)
	assert.Equal(t, 2, plan.Files)
	assert.Equal(t, 2, plan.Preview.Loaded)
	assert.True(t, plan.Preview.DryRun, "a scan writes nothing")
	progress := collect(t, events, func(ev engine.Event) bool { return ev.Topic == engine.TopicImport && ev.Op == "scan-1" })
	assert.Equal(t, engine.EventProgress, progress[len(progress)-1].Type, "progress carries the caller's op")

	body, err := ws.ImportPlanBody(ctx, plan.ID, "01-caching/ttl.md")
	require.NoError(t, err)
	assert.Contains(t, body, "Spread expiry times")
	_, err = ws.ImportPlanBody(ctx, plan.ID, "01-caching/missing.md")
	assert.Error(t, err)

	res, err := ws.PreviewImport(ctx, plan.ID, engine.ImportOptions{Exclude: []string{"01-caching/ttl.md"}})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Loaded)
	res, err = ws.ApplyImport(ctx, plan.ID, engine.ImportOptions{})
	require.NoError(t, err)
	assert.NotZero(t, res.Batch)
	recent, err := ws.RecentImportSources(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{lib}, recent, "applying remembers the folder")

	require.NoError(t, ws.DropImportPlan(ctx, plan.ID))
	_, err = ws.PreviewImport(ctx, plan.ID, engine.ImportOptions{})
	assert.ErrorIs(t, err, engine.ErrNoSuchPlan)

	undone, err := ws.UndoImport(ctx, res.Batch)
	require.NoError(t, err)
	assert.Equal(t, res.Batch, undone.Batch)
}

func TestListAgentsReportsProblemsAsValues(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "agents", "BROKEN.yaml"), []byte("id: BROKEN\ntools: [teleport]\n"), 0o644))
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	r, err := ws.ListAgents(context.Background())
	require.NoError(t, err)
	assert.True(t, r.Has("mars"), "lookups ignore case")
	assert.Greater(t, r.Files, len(r.Agents), "the broken file is counted, not loaded")
	require.NotEmpty(t, r.Problems)
	assert.Contains(t, r.Problems[0].File, "BROKEN.yaml")
	assert.NotEmpty(t, r.Problems[0].Text)

	_, err = engine.LoadRoster(filepath.Join(root, "nowhere"))
	assert.Error(t, err, "a directory that cannot be read is an error, not a problem")
}

func TestApprovalPolicies(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/echo"); err != nil {
		t.Skip("needs /bin/echo")
	}
	for _, tc := range []struct {
		policy engine.ApprovalPolicy
		ran    bool
	}{{engine.ApproveAll, true}, {engine.ApproveNone, false}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			t.Parallel()
			ws, srv, _ := openWithFake(t, "autonomy: 2\ncommands:\n  allow: [echo]\n")
			srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
				for _, m := range req.Messages {
					if m.Role == "tool" {
						return ollamatest.Text("observed: " + m.Content)
					}
				}
				return ollamatest.ToolCalls(ollamatest.Call("runCommand", map[string]any{"command": "echo policy-run"}))
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			events := ws.Subscribe(ctx)
			res, err := ws.RunAgent(ctx, "MARS", "run echo", engine.RunOptions{Approvals: tc.policy, Op: "op-" + string(tc.policy)})
			require.NoError(t, err)
			assert.Contains(t, res.Outcome.Result, "policy-run")
			assert.Equal(t, !tc.ran, strings.Contains(res.Outcome.Result, "declined"), res.Outcome.Result)
			pending, err := ws.PendingApprovals(ctx)
			require.NoError(t, err)
			assert.Empty(t, pending, "nobody was asked")
			if tc.policy == engine.ApproveNone {
				evs := collect(t, events, func(ev engine.Event) bool { return ev.Type == engine.EventLog && strings.Contains(ev.Text, "denied") })
				last := evs[len(evs)-1]
				assert.Equal(t, "op-none", last.Op)
				assert.Contains(t, last.Text, "echo policy-run")
			}
		})
	}
}

func TestPathVerbsWantAbsolutePaths(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	_, err = ws.ExportVault(ctx, "out.jsonl")
	assert.ErrorIs(t, err, engine.ErrRelativePath)
	_, err = ws.ImportVault(ctx, "in.jsonl")
	assert.ErrorIs(t, err, engine.ErrRelativePath)
	_, err = ws.BackupDB(ctx, "backup.db", engine.BackupOptions{})
	assert.ErrorIs(t, err, engine.ErrRelativePath)
	_, err = ws.CreateBuild(ctx, "prd.json", engine.BuildOptions{})
	assert.ErrorIs(t, err, engine.ErrRelativePath)
	_, err = ws.ExportWisdom(ctx, "bundle.json")
	assert.ErrorIs(t, err, engine.ErrRelativePath)
	_, err = ws.ImportWisdom(ctx, "bundle.json")
	assert.ErrorIs(t, err, engine.ErrRelativePath)

	_, err = ws.LearnNode(ctx, vault.Node{Type: vault.Pattern, Content: "Export me"})
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "vault.jsonl")
	st, err := ws.ExportVault(ctx, out)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Nodes)
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
	rep, err := ws.CheckDB(ctx)
	require.NoError(t, err)
	assert.True(t, rep.OK)
	assert.NotNil(t, rep.Problems, "an empty list, not null")
}

// A dry run over the tier cap is a report with OverCap (one result, no
// error, so nothing is lost over a socket); the real import is refused.
func TestDryRunOverTheCapIsAReport(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	nodes := make([]vault.Node, 499)
	for i := range nodes {
		nodes[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("filler rule %d", i), Confidence: 0.5}
	}
	_, err = ws.Vault().AddBatch(ctx, nodes)
	require.NoError(t, err)
	lib := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(lib, "cache-aside.md"), []byte("# Cache Aside\n\nRead the cache first; fill it on a miss.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "ttl.md"), []byte("# TTL Jitter\n\nSpread expiry times.\n"), 0o644))

	res, err := ws.ImportPatterns(ctx, lib, engine.ImportOptions{DryRun: true})
	require.NoError(t, err)
	require.NotNil(t, res.OverCap)
	assert.Equal(t, 501, res.OverCap.Would)
	plan, err := ws.ScanPatterns(ctx, lib, engine.ImportOptions{})
	require.NoError(t, err, "the wizard can show an import over the cap")
	require.NotNil(t, plan.Preview.OverCap)
	res, err = ws.PreviewImport(ctx, plan.ID, engine.ImportOptions{})
	require.NoError(t, err)
	assert.NotNil(t, res.OverCap)
	_, err = ws.ApplyImport(ctx, plan.ID, engine.ImportOptions{})
	require.ErrorIs(t, err, vault.ErrOverCap, "the real import is refused")
	_, err = ws.ImportPatterns(ctx, lib, engine.ImportOptions{})
	require.ErrorIs(t, err, vault.ErrOverCap)
	capa, err := ws.VaultCapacity(ctx)
	require.NoError(t, err)
	assert.Equal(t, 499, capa.Nodes, "nothing was written")
	assert.Equal(t, 1, capa.Free)
}

func TestArchiveVerbs(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	nodes := make([]vault.Node, 500)
	for i := range nodes {
		nodes[i] = vault.Node{Type: vault.Pattern, Content: fmt.Sprintf("filler rule %d", i), Confidence: 0.5}
	}
	added, err := ws.Vault().AddBatch(ctx, nodes)
	require.NoError(t, err)
	_, err = ws.Vault().LearnAs(ctx, vault.ByLearning, vault.Node{Type: vault.Mistake, Content: "never skip the tests", Confidence: 0.9})
	require.NoError(t, err)

	list, err := ws.ListArchived(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	id := list[0].Node.ID
	a, err := ws.GetArchived(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, list[0].Node.Content, a.Node.Content)
	_, err = ws.RestoreNode(ctx, id)
	require.ErrorIs(t, err, vault.ErrOverCap, "restoring is a user write")
	require.NoError(t, ws.ForgetNode(ctx, added[len(added)-1].ID))
	res, err := ws.RestoreNode(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, id, res.Node.ID)
	_, err = ws.GetArchived(ctx, id)
	require.ErrorIs(t, err, vault.ErrNotFound)
}

func TestAnswerTaskAndRunningBuildsVerbs(t *testing.T) {
	t.Parallel()
	root := newWorkspace(t)
	ctx := context.Background()
	ws, err := engine.Open(ctx, engine.Options{Root: root, NoSync: true, Getenv: envOf(nil)})
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	ids, err := ws.RunningBuilds(ctx)
	require.NoError(t, err)
	assert.NotNil(t, ids, "an empty list, not null")
	assert.Empty(t, ids)
	_, err = ws.AnswerTask(ctx, 99, "t", "x")
	assert.Error(t, err)
}

// Regression (issue 26): approve-all (`--yes`) covers allowlisted commands
// whose arguments nova vouches for; a command with an option that runs
// another program is denied, with a log line saying why.
func TestApproveAllDoesNotCoverUnvettedArguments(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "autonomy: 5\ncommands:\n  allow: [go vet]\n")
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				return ollamatest.Text("observed: " + m.Content)
			}
		}
		return ollamatest.ToolCalls(ollamatest.Call("runCommand", map[string]any{"command": "go vet -toolexec=/bin/false ./..."}))
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := ws.Subscribe(ctx)
	res, err := ws.RunAgent(ctx, "MARS", "vet", engine.RunOptions{Approvals: engine.ApproveAll, Op: "op-all"})
	require.NoError(t, err)
	assert.Contains(t, res.Outcome.Result, "declined")
	assert.Contains(t, res.Outcome.Result, "option -toolexec runs another program")
	evs := collect(t, events, func(ev engine.Event) bool {
		return ev.Type == engine.EventLog && strings.Contains(ev.Text, "not covered by approve-all")
	})
	assert.Contains(t, evs[len(evs)-1].Text, "-toolexec")
}
