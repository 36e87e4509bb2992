package remote_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/internal/rpcdemo"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/engine/rehearsal/rehearsaltest"
	"github.com/nova-dev/nova/engine/remote"
	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/engine/rpc/gen"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// openLocal opens a fresh workspace in this process (Ollama unreachable).
func openLocal(t testing.TB) *engine.Local {
	t.Helper()
	return openLocalEnv(t, map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9"})
}

func openLocalEnv(t testing.TB, env map[string]string) *engine.Local {
	t.Helper()
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, Getenv: envOf(env), NoSync: true, Defaults: nova.Defaults})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	return ws
}

// serveLocal serves ws on a Unix socket and returns a remote workspace.
func serveLocal(t testing.TB, ws engine.Workspace) *remote.Workspace {
	t.Helper()
	return remote.NewWorkspace(serveClient(t, ws))
}

// serveClient serves ws on a Unix socket and returns a bare client of it
// (what any version's generated code calls through).
func serveClient(t testing.TB, ws engine.Workspace) *rpc.Client {
	t.Helper()
	srv, err := rpc.NewServer[engine.Workspace](ws, rpc.ServerOptions{Version: "test"})
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", "remote")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	c := rpc.NewClient(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}, rpc.ClientOptions{Version: "test"})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// asJSON is how values are compared: what crosses the socket is JSON, and
// JSON is what the CLI prints (times lose their monotonic reading).
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// same calls a read on the local engine and through the socket and
// requires the same answer (value and error text).
func same[T any](t *testing.T, local, r engine.Workspace, name string, call func(ws engine.Workspace) (T, error)) T {
	t.Helper()
	want, wantErr := call(local)
	got, err := call(r)
	if wantErr != nil {
		require.Error(t, err, name)
		assert.Equal(t, wantErr.Error(), err.Error(), name)
		return got
	}
	require.NoError(t, err, name)
	assert.JSONEq(t, asJSON(t, want), asJSON(t, got), name)
	return got
}

// TestRemoteWorkspaceMatchesLocal: the verbs of every area answer the same
// through the socket as in process; writes made through the socket are
// the owner's.
func TestRemoteWorkspaceMatchesLocal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	local := openLocalEnv(t, map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9", "NOVA_TIER": "premium"})
	r := serveLocal(t, local)
	root := local.Info().Root

	// Workspace.
	assert.Equal(t, local.Info(), r.Info())
	assert.Equal(t, local.Config(), r.Config())
	same(t, local, r, "Summary", func(ws engine.Workspace) (engine.Summary, error) { return ws.Summary(ctx) })
	want, err := local.Ollama(ctx)
	require.NoError(t, err)
	st, err := r.Ollama(ctx)
	require.NoError(t, err)
	assert.False(t, st.Reachable)
	assert.Equal(t, want.Error, st.Error)
	assert.Equal(t, want.Tiers, st.Tiers)

	// Vault: writes through the socket, reads compared.
	a, err := r.LearnNode(ctx, vault.Node{Type: vault.Pattern, Title: "Retry with backoff", Content: "retry transient errors with jittered backoff", Tags: []string{"errors"}})
	require.NoError(t, err)
	b, err := r.LearnNode(ctx, vault.Node{Type: vault.Mistake, Title: "Unbounded retries", Content: "never retry forever; cap the attempts", Tags: []string{"errors"}})
	require.NoError(t, err)
	require.NotZero(t, a.Node.ID)
	edge, err := r.LinkNodes(ctx, a.Node.ID, b.Node.ID, vault.Supports, 0.7)
	require.NoError(t, err)
	_, err = r.UpdateNode(ctx, a.Node.ID, vault.Patch{Body: ptr("Use exponential backoff with jitter.")})
	require.NoError(t, err)
	_, err = r.ReinforceNode(ctx, a.Node.ID)
	require.NoError(t, err)
	_, err = r.DemoteNode(ctx, b.Node.ID)
	require.NoError(t, err)
	n := same(t, local, r, "GetNode", func(ws engine.Workspace) (vault.Node, error) { return ws.GetNode(ctx, a.Node.ID) })
	assert.Equal(t, "Use exponential backoff with jitter.", n.Body)
	same(t, local, r, "GetNodes", func(ws engine.Workspace) ([]vault.Node, error) {
		return ws.GetNodes(ctx, []uint64{b.Node.ID, a.Node.ID}, true)
	})
	page := same(t, local, r, "ListNodes", func(ws engine.Workspace) (vault.Page, error) {
		return ws.ListNodes(ctx, vault.ListOptions{Tag: "errors", Limit: 1})
	})
	assert.Len(t, page.Nodes, 1)
	hits := same(t, local, r, "SearchNodes", func(ws engine.Workspace) ([]vault.Scored, error) {
		return ws.SearchNodes(ctx, "retry backoff", vault.SearchOptions{NoEmbeddings: true})
	})
	assert.NotEmpty(t, hits)
	same(t, local, r, "NodeNeighbours", func(ws engine.Workspace) ([]vault.RelationGroup, error) { return ws.NodeNeighbours(ctx, a.Node.ID) })
	same(t, local, r, "NodeEdges", func(ws engine.Workspace) ([]vault.Edge, error) { return ws.NodeEdges(ctx, a.Node.ID) })
	same(t, local, r, "GetEdge", func(ws engine.Workspace) (vault.Edge, error) { return ws.GetEdge(ctx, edge.ID) })
	same(t, local, r, "TraverseNodes", func(ws engine.Workspace) ([]vault.Step, error) {
		return ws.TraverseNodes(ctx, a.Node.ID, vault.TraverseOptions{Depth: 2})
	})
	same(t, local, r, "ListConflicts", func(ws engine.Workspace) ([]vault.Conflict, error) { return ws.ListConflicts(ctx) })
	stats := same(t, local, r, "VaultStats", func(ws engine.Workspace) (vault.Stats, error) { return ws.VaultStats(ctx) })
	assert.Equal(t, 2, stats.Nodes)
	same(t, local, r, "ListTags", func(ws engine.Workspace) ([]vault.TagCount, error) { return ws.ListTags(ctx) })
	same(t, local, r, "VaultContext", func(ws engine.Workspace) (vault.VaultContext, error) {
		return ws.VaultContext(ctx, engine.VaultContextRequest{Task: "add retries to the client"})
	})
	same(t, local, r, "GetNode missing", func(ws engine.Workspace) (vault.Node, error) { return ws.GetNode(ctx, 9999) })
	_, err = r.GetNode(ctx, 9999)
	assert.ErrorIs(t, err, vault.ErrNotFound, "sentinels survive the socket")
	export := filepath.Join(t.TempDir(), "vault.jsonl")
	_, err = r.ExportVault(ctx, export)
	require.NoError(t, err)
	assert.FileExists(t, export)
	require.NoError(t, r.UnlinkEdge(ctx, edge.ID))
	require.NoError(t, r.ForgetNode(ctx, b.Node.ID))
	_, err = r.ImportVault(ctx, export)
	require.NoError(t, err)
	same(t, local, r, "VaultStats after", func(ws engine.Workspace) (vault.Stats, error) { return ws.VaultStats(ctx) })

	// Wisdom.
	same(t, local, r, "WisdomCandidates", func(ws engine.Workspace) ([]vault.Node, error) { return ws.WisdomCandidates(ctx) })
	same(t, local, r, "ListWisdom", func(ws engine.Workspace) ([]vault.WisdomPattern, error) { return ws.ListWisdom(ctx, "") })
	same(t, local, r, "WisdomStats", func(ws engine.Workspace) (vault.WisdomStats, error) { return ws.WisdomStats(ctx) })

	// Pattern import: a plan kept in the owner between calls.
	lib := filepath.Join(t.TempDir(), "lib")
	require.NoError(t, os.MkdirAll(filepath.Join(lib, "caching"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "caching", "cache-aside.md"), []byte("# Cache Aside\n\nRead the cache first; fill it on a miss.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "README.md"), []byte("# Library\n"), 0o644))
	same(t, local, r, "ImportDefaults", func(ws engine.Workspace) (engine.ImportOptions, error) { return ws.ImportDefaults(ctx) })
	plan, err := r.ScanPatterns(ctx, lib, engine.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, plan.Preview.Meta, "skip kinds cross the socket")
	body := same(t, local, r, "ImportPlanBody", func(ws engine.Workspace) (string, error) {
		return ws.ImportPlanBody(ctx, plan.ID, "caching/cache-aside.md")
	})
	assert.Contains(t, body, "Read the cache first")
	res, err := r.ApplyImport(ctx, plan.ID, engine.ImportOptions{})
	require.NoError(t, err)
	require.NotZero(t, res.Batch)
	same(t, local, r, "ListImports", func(ws engine.Workspace) (any, error) { return ws.ListImports(ctx) })
	same(t, local, r, "GetImport", func(ws engine.Workspace) (any, error) { return ws.GetImport(ctx, res.Batch) })
	same(t, local, r, "RecentImportSources", func(ws engine.Workspace) ([]string, error) { return ws.RecentImportSources(ctx) })
	_, err = r.UndoImport(ctx, res.Batch)
	require.NoError(t, err)
	require.NoError(t, r.DropImportPlan(ctx, plan.ID))
	_, err = r.PreviewImport(ctx, plan.ID, engine.ImportOptions{})
	assert.ErrorIs(t, err, engine.ErrNoSuchPlan)
	_, err = r.ScanPatterns(ctx, "relative/lib", engine.ImportOptions{})
	assert.ErrorIs(t, err, engine.ErrRelativePath)

	// Agents, runs, approvals, changes.
	same(t, local, r, "ListAgents", func(ws engine.Workspace) (engine.Roster, error) { return ws.ListAgents(ctx) })
	same(t, local, r, "ListRuns", func(ws engine.Workspace) ([]agents.Run, error) { return ws.ListRuns(ctx, agents.RunFilter{}) })
	same(t, local, r, "RunEvents", func(ws engine.Workspace) ([]agents.Event, error) { return ws.RunEvents(ctx, 1) })
	same(t, local, r, "PendingApprovals", func(ws engine.Workspace) (any, error) { return ws.PendingApprovals(ctx) })
	assert.ErrorIs(t, r.AnswerApproval(ctx, "nobody-waits", true), engine.ErrNoSuchApproval)
	same(t, local, r, "ListChanges", func(ws engine.Workspace) ([]changes.Changeset, error) { return ws.ListChanges(ctx, changes.Filter{}) })

	// Plans and builds.
	plans := same(t, local, r, "ListPlans", func(ws engine.Workspace) ([]engine.PlanFile, error) { return ws.ListPlans(ctx) })
	require.NotEmpty(t, plans)
	bld, err := r.CreateBuild(ctx, plans[0].Path, engine.BuildOptions{})
	require.NoError(t, err)
	same(t, local, r, "ListBuilds", func(ws engine.Workspace) (any, error) { return ws.ListBuilds(ctx) })
	same(t, local, r, "GetBuild", func(ws engine.Workspace) (any, error) { return ws.GetBuild(ctx, bld.ID) })
	same(t, local, r, "BuildTasks", func(ws engine.Workspace) (any, error) { return ws.BuildTasks(ctx, bld.ID) })

	// Playbooks.
	rule, err := r.AddRule(ctx, "MARS", "Wrap errors with context", []string{"errors"}, 0.8)
	require.NoError(t, err)
	same(t, local, r, "ListPlaybooks", func(ws engine.Workspace) (any, error) { return ws.ListPlaybooks(ctx) })
	same(t, local, r, "GetPlaybook", func(ws engine.Workspace) (any, error) { return ws.GetPlaybook(ctx, "MARS") })
	same(t, local, r, "PlaybookHistory", func(ws engine.Workspace) (any, error) { return ws.PlaybookHistory(ctx, "MARS") })
	same(t, local, r, "PlaybookDiff", func(ws engine.Workspace) (any, error) { return ws.PlaybookDiff(ctx, "MARS", 0, rule.Playbook.Version) })
	same(t, local, r, "ListPendingDeltas", func(ws engine.Workspace) (any, error) { return ws.ListPendingDeltas(ctx) })
	same(t, local, r, "ListRehearsals", func(ws engine.Workspace) (any, error) { return ws.ListRehearsals(ctx, rehearsal.Filter{}) })

	// Database.
	chk := same(t, local, r, "CheckDB", func(ws engine.Workspace) (engine.CheckReport, error) { return ws.CheckDB(ctx) })
	assert.True(t, chk.OK)
	backup := filepath.Join(t.TempDir(), "backup.db")
	_, err = r.BackupDB(ctx, backup, engine.BackupOptions{})
	require.NoError(t, err)
	_, err = r.BackupDB(ctx, backup, engine.BackupOptions{})
	assert.ErrorIs(t, err, engine.ErrExists, "an existing file is refused, through the socket too")
	_, err = r.BackupDB(ctx, backup, engine.BackupOptions{Force: true})
	assert.NoError(t, err)

	// A write through the socket, seen by a subscriber through the socket.
	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	events := r.Subscribe(sub)
	require.NoError(t, r.SetTheme(ctx, "dracula"))
	assert.Equal(t, "dracula", local.Config().Theme)
	select {
	case ev := <-events:
		assert.Equal(t, engine.EventThemeChanged, ev.Type)
		assert.Equal(t, "dracula", ev.Text)
	case <-time.After(20 * time.Second):
		t.Fatal("no event through the socket")
	}
	_ = root
}

func ptr[T any](v T) *T { return &v }

// TestLongWorkThroughTheSocket: blocking verbs run in the owner and their
// events reach the caller through the socket, tagged with its op.
func TestLongWorkThroughTheSocket(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"),
		ollamatest.WithHandler(rehearsaltest.Handler(rehearsaltest.Three(), 0, nil)))
	local := openLocalEnv(t, map[string]string{"OLLAMA_HOST": srv.URL(), "NOVA_TIER": "premium"})
	root := local.Info().Root
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644))
	r := serveLocal(t, local)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := r.Subscribe(ctx)

	ss, err := r.Rehearse(ctx, rehearsal.Request{
		Task: prd.Task{ID: "T1", Title: "Totals", Description: "Add a Total function (schema change)", Agent: "MARS",
			Extra: map[string]json.RawMessage{"ticket": json.RawMessage(`"NOVA-1"`)}}})
	require.NoError(t, err)
	assert.Equal(t, rehearsal.StatusPending, ss.Status)
	got := waitFor(t, events, func(ev engine.Event) bool { return ev.Topic == engine.TopicRehearsal })
	assert.Equal(t, engine.EventNeedsApproval, got.Type)

	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				return ollamatest.Text("done: wrote notes.md")
			}
		}
		return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "notes.md", "content": "# notes\n"}))
	})
	op := engine.NewOp()
	run, err := r.RunAgent(ctx, "MARS", "write notes.md", engine.RunOptions{Op: op, Approvals: engine.ApproveNone})
	require.NoError(t, err)
	done := waitFor(t, events, func(ev engine.Event) bool {
		return ev.Topic == engine.TopicAgent && ev.Op == op && (ev.Type == engine.EventDone || ev.Type == engine.EventFailed)
	})
	assert.Equal(t, engine.EventDone, done.Type)
	runs, err := r.ListRuns(ctx, agents.RunFilter{})
	require.NoError(t, err)
	require.NotEmpty(t, runs)
	assert.Equal(t, run.ID, runs[0].ID)
}

func waitFor(t *testing.T, ch <-chan engine.Event, match func(engine.Event) bool) engine.Event {
	t.Helper()
	deadline := time.After(30 * time.Second) // catches hangs only
	for {
		select {
		case ev, ok := <-ch:
			require.True(t, ok, "the event stream ended")
			if match(ev) {
				return ev
			}
		case <-deadline:
			t.Fatal("no matching event")
		}
	}
}

// TestEveryVerbCrossesTheSocket calls every method of engine.Workspace with
// zero arguments, in process on one workspace and through the socket on a
// twin: each is served (no unknown method, no undecodable answer) and fails
// or succeeds alike, with the same message. New verbs are covered without
// touching this test.
func TestEveryVerbCrossesTheSocket(t *testing.T) {
	t.Parallel()
	local, twin := openLocal(t), openLocal(t)
	r := serveLocal(t, twin)
	norm := strings.NewReplacer(local.Info().Root, "ROOT", twin.Info().Root, "ROOT")
	it := reflect.TypeFor[engine.Workspace]()
	lv, rv := reflect.ValueOf(engine.Workspace(local)), reflect.ValueOf(engine.Workspace(r))
	for i := range it.NumMethod() {
		m := it.Method(i)
		switch m.Name {
		case "Close", "Subscribe": // Close is the client's own; Subscribe is tested above
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		args := func() []reflect.Value {
			var in []reflect.Value
			for j := range m.Type.NumIn() {
				if j == 0 && m.Type.In(0) == reflect.TypeFor[context.Context]() {
					in = append(in, reflect.ValueOf(ctx))
					continue
				}
				in = append(in, reflect.Zero(m.Type.In(j)))
			}
			return in
		}
		want := lv.MethodByName(m.Name).Call(args())
		got := rv.MethodByName(m.Name).Call(args())
		cancel()
		wantErr, gotErr := lastErr(want), lastErr(got)
		if gotErr != nil {
			assert.NotErrorIs(t, gotErr, rpc.ErrUnknownMethod, m.Name)
			assert.NotErrorIs(t, gotErr, rpc.ErrBadRequest, m.Name)
			assert.NotContains(t, gotErr.Error(), "decode the owner's answer", m.Name)
		}
		if wantErr == nil {
			assert.NoError(t, gotErr, m.Name)
			continue
		}
		if !assert.Error(t, gotErr, m.Name) {
			continue
		}
		if errors.Is(wantErr, context.DeadlineExceeded) {
			// A verb that waits (for a model, say) with zero arguments: both
			// sides ran out of time; the client names the method it called.
			assert.ErrorIs(t, gotErr, context.DeadlineExceeded, m.Name)
			continue
		}
		assert.Equal(t, norm.Replace(wantErr.Error()), norm.Replace(gotErr.Error()), m.Name)
	}
}

func lastErr(out []reflect.Value) error {
	if len(out) == 0 {
		return nil
	}
	err, _ := out[len(out)-1].Interface().(error)
	return err
}

func TestRemoteWorkspaceErrorsKeepSentinels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	local := openLocal(t)
	r := serveLocal(t, local)

	_, wantErr := local.DiscardChange(ctx, 999, "")
	require.Error(t, wantErr)
	_, err := r.DiscardChange(ctx, 999, "")
	require.Error(t, err)
	assert.Equal(t, wantErr.Error(), err.Error())
	assert.Equal(t, errors.Is(wantErr, changes.ErrNotFound), errors.Is(err, changes.ErrNotFound))
	assert.ErrorIs(t, err, changes.ErrNotFound)

	err = r.AnswerApproval(ctx, "nobody-waits", true)
	assert.ErrorIs(t, err, engine.ErrNoSuchApproval)
}

// TestEveryMethodIsServed: the generated client implements the whole
// interface (a verb whose values cannot cross the socket fails here, with
// the reason, instead of silently missing from the remote client).
func TestEveryMethodIsServed(t *testing.T) {
	t.Parallel()
	cfg, err := gen.ConfigFromFile("remote.go")
	require.NoError(t, err)
	res, err := gen.Generate(cfg)
	require.NoError(t, err)
	assert.Empty(t, res.Skipped, "every engine.Workspace method must be servable (see docs/PROTOCOL.md, \"Adding a method\")")
}

// TestGeneratorAgreesWithServer: rpcgen (go/types) and the server
// (reflection) apply the same servability rules to the same interfaces.
func TestGeneratorAgreesWithServer(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, goFile string, served []string) {
		t.Helper()
		cfg, err := gen.ConfigFromFile(goFile)
		require.NoError(t, err)
		res, err := gen.Generate(cfg)
		require.NoError(t, err)
		var generated []string
		for _, m := range res.Methods {
			if !contains(cfg.Local, m) {
				generated = append(generated, m)
			}
		}
		sort.Strings(generated)
		assert.Equal(t, served, generated)
	}
	t.Run("engine.Workspace", func(t *testing.T) {
		srv, err := rpc.NewServer[engine.Workspace](openLocal(t), rpc.ServerOptions{})
		require.NoError(t, err)
		check(t, "remote.go", srv.Methods())
	})
	t.Run("rpcdemo.Demo", func(t *testing.T) {
		st, err := rpcdemo.Open(filepath.Join(t.TempDir(), "nova.db"), time.Second)
		require.NoError(t, err)
		defer st.Close()
		srv, err := rpc.NewServer[rpcdemo.Demo](st, rpc.ServerOptions{})
		require.NoError(t, err)
		check(t, "../internal/rpcdemo/demo.go", srv.Methods())
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
