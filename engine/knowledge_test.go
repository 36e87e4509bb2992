package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/docs/docstest"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	prdpkg "github.com/nova-dev/nova/engine/prd"
)

// openKnowledge opens a workspace whose docs come from a local
// Context7-compatible server and whose user-level file is under a temp
// NOVA_HOME.
func openKnowledge(t *testing.T, config string, extraEnv map[string]string, libs ...docstest.Library) (*engine.Local, *ollamatest.Server, *docstest.Server, string) {
	t.Helper()
	root := newWorkspace(t)
	if config != "" {
		require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), []byte(config), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644))
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"))
	d7 := docstest.New(t, docstest.Options{Libraries: libs})
	env := map[string]string{"OLLAMA_HOST": srv.URL(), "CONTEXT7_API_URL": d7.URL(), "NOVA_HOME": t.TempDir()}
	for k, v := range extraEnv {
		env[k] = v
	}
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, Getenv: envOf(env), NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	return ws, srv, d7, root
}

func TestDocsFetchOnceThenFromCache(t *testing.T) {
	t.Parallel()
	ws, _, d7, _ := openKnowledge(t, "", nil)
	ctx := context.Background()
	r, err := ws.FetchDocs(ctx, "react", "hooks", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, "network", r.Source)
	r, err = ws.FetchDocs(ctx, "react", "hooks", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, "cache", r.Source)
	assert.Equal(t, 2, d7.Count(""), "the second fetch made no request")
	list, err := ws.DocsList(ctx, "")
	require.NoError(t, err)
	require.Len(t, list, 1)
	st, err := ws.DocsStats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Entries)
	res, err := ws.SearchKnowledge(ctx, "useEffect cleanup", 5)
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits)
	assert.Equal(t, "docs", res.Hits[0].Source)
	item, err := ws.KnowledgeItem(ctx, res.Hits[0].Ref)
	require.NoError(t, err)
	assert.Contains(t, item.Text, "useEffect")
	n, err := ws.DocsClear(ctx, "react")
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	d7.Close()
	r, err = ws.FetchDocs(ctx, "react", "hooks", docs.FetchOptions{})
	require.NoError(t, err, "nothing found is a report, not an error (it crosses a socket whole)")
	assert.False(t, r.Available)
	assert.Equal(t, "none", r.Source)
	assert.NotEmpty(t, r.Warning, "the cause")
	assert.Equal(t, "Documentation unavailable for react (hooks). Please consult the official docs.", r.Content)
	_, err = ws.FetchDocs(ctx, "", "", docs.FetchOptions{})
	require.ErrorIs(t, err, docs.ErrInvalid)
}

func TestGoModuleDocsOfflineFromTheModuleCache(t *testing.T) {
	t.Parallel()
	mc := t.TempDir()
	dir := filepath.Join(mc, "github.com", "stretchr", "testify@v1.12.1", "assert")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "assertions.go"), []byte(
		"// Package assert provides assertions.\npackage assert\n\n// Equal asserts that two objects are equal.\nfunc Equal(t TestingT, expected, actual any) bool { return true }\n\n// TestingT is an interface wrapper around *testing.T.\ntype TestingT interface{ Errorf(string, ...any) }\n"), 0o644))
	ws, _, d7, root := openKnowledge(t, "docs:\n  context7:\n    url: http://127.0.0.1:9\n", map[string]string{"GOMODCACHE": mc, "CONTEXT7_API_URL": ""})
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/app\n\ngo 1.22\n\nrequire github.com/stretchr/testify v1.12.1\n"), 0o644))
	r, err := ws.FetchDocs(context.Background(), "github.com/stretchr/testify", "assert", docs.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, "local", r.Source)
	assert.Equal(t, "v1.12.1", r.Version)
	assert.Contains(t, r.Content, "func Equal(t TestingT, expected, actual any) bool")
	assert.Zero(t, d7.Count(""))
}

func TestFactAddCorrectHistoryThroughTheFacade(t *testing.T) {
	t.Parallel()
	ws, _, _, _ := openKnowledge(t, "", nil)
	ctx := context.Background()
	ch := ws.Subscribe(ctx)
	f, err := ws.AddFact(ctx, facts.NewFact{Content: "Releases are cut from the main branch", Tags: []string{"release"}})
	require.NoError(t, err)
	ev := <-ch
	assert.Equal(t, engine.TopicKnowledge, ev.Topic)
	assert.Equal(t, engine.EventChanged, ev.Type)

	c, err := ws.CorrectFact(ctx, f.ID, "we release from release/* branches now", "Releases are cut from release/* branches")
	require.NoError(t, err)
	hist, err := ws.FactHistory(ctx, c.New.ID)
	require.NoError(t, err)
	require.Len(t, hist, 2)
	assert.Equal(t, facts.StatusSuperseded, hist[0].Status)
	assert.Equal(t, facts.StatusValid, hist[1].Status)

	u, err := ws.AddFact(ctx, facts.NewFact{Content: "I like small pull requests", Scope: facts.User()})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(u.ID, "u"))
	list, err := ws.ListFacts(ctx, facts.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, list.Facts, 2)
	res, err := ws.SearchFacts(ctx, "release branches", facts.SearchOptions{Scope: facts.Workspace()})
	require.NoError(t, err)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, c.New.ID, res.Facts[0].ID)
	_, err = ws.AddFact(ctx, facts.NewFact{Content: "x", Confidence: ptr(1.5)})
	require.ErrorIs(t, err, facts.ErrInvalid)
}

func ptr[T any](v T) *T { return &v }

func TestAgentRunWithTheDocsServerDownStillCompletes(t *testing.T) {
	t.Parallel()
	ws, srv, d7, _ := openKnowledge(t, "", nil)
	d7.Close()
	srv.Enqueue(
		ollamatest.ToolCalls(ollamatest.Call("fetchDocs", map[string]any{"library": "react", "topic": "hooks"})),
		ollamatest.Text("I could not read the docs, so I used what I know."),
	)
	// On medium (the small tier is offered only the shared tools a spec
	// lists: TestSmallTierOffersTheSharedToolsItsSpecLists).
	res, err := ws.RunAgent(context.Background(), "researcher", "how do react hooks work?", engine.RunOptions{Tier: "medium"})
	require.NoError(t, err)
	require.True(t, res.Outcome.OK, "%+v", res.Outcome.Failure)
	traces, err := ws.Runs().Traces(context.Background(), res.ID)
	require.NoError(t, err)
	require.Len(t, traces, 1)
	assert.Equal(t, "fetchDocs", traces[0].Tool)
	assert.Equal(t, "Documentation unavailable for react (hooks). Please consult the official docs.", traces[0].Output)
	reqs := srv.ChatRequests()
	var names []string
	for _, tl := range reqs[0].Tools {
		names = append(names, tl.Function.Name)
	}
	assert.Subset(t, names, []string{"fetchDocs", "queryKnowledge", "recall", "remember", "correct"},
		"every agent gets the knowledge tools on medium, whatever its spec lists")
}

func TestFetchDocsOutputKeepsItsOwnLargerCap(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Hooks keep state between renders of a component. ", 60) + "THE END" // ≈ 3,000 chars
	ws, srv, _, _ := openKnowledge(t, "", nil, docstest.Library{ID: "/facebook/react", Title: "React", Docs: map[string]string{"": long}})
	srv.Enqueue(
		ollamatest.ToolCalls(ollamatest.Call("fetchDocs", map[string]any{"library": "react"})),
		ollamatest.Text("done"),
	)
	res, err := ws.RunAgent(context.Background(), "researcher", "read the react docs", engine.RunOptions{})
	require.NoError(t, err)
	require.True(t, res.Outcome.OK, "%+v", res.Outcome.Failure)
	reqs := srv.ChatRequests()
	require.Len(t, reqs, 2)
	var tool string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			tool = m.Content
		}
	}
	assert.Greater(t, len(tool), ws.Config().Budgets.ToolOutput, "more than budgets.toolOutput reaches the model")
	assert.Contains(t, tool, "THE END", "fetchDocs keeps its own 2,000-token cap")
}

var taskRE = regexp.MustCompile(`PRD task (\S+?): `)

func TestBuildPromptsCarryKnowledgeWithIDsInProvenance(t *testing.T) {
	t.Parallel()
	ws, srv, _, root := openKnowledge(t, "autonomy: 2\n", nil)
	ctx := context.Background()
	f, err := ws.AddFact(ctx, facts.NewFact{Content: "Health endpoints in this project return JSON with a status field"})
	require.NoError(t, err)
	var mu sync.Mutex
	prompts := map[string]string{}
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		var all, user string
		for _, m := range req.Messages {
			all += m.Content + "\n"
			if m.Role == "user" && user == "" {
				user = m.Content
			}
		}
		if id := taskRE.FindStringSubmatch(user); id != nil {
			prompts[id[1]] = all
			return ollamatest.Text("Done: " + id[1] + ".")
		}
		return ollamatest.Text(`{"facts":[{"content":"The health endpoint task was finished by MARS in one attempt","confidence":0.7}]}`)
	})
	prd := `{"meta":{"name":"health"},"tasks":[{"id":"h-1","title":"Add a health endpoint","description":"return JSON status","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`
	path := filepath.Join(root, "health.json")
	require.NoError(t, os.WriteFile(path, []byte(prd), 0o644))
	p, err := prdpkg.Load(path)
	require.NoError(t, err)
	b, err := ws.Builds().Create(ctx, p, path, build.Options{})
	require.NoError(t, err)
	b, err = ws.Builds().Run(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status, b.Reason)
	tasks, err := ws.Builds().Tasks(ctx, b.ID)
	require.NoError(t, err)
	assert.Contains(t, tasks[0].KnowledgeIDs, "fact:"+f.ID, "the injected fact is in the task's provenance")
	mu.Lock()
	assert.Contains(t, prompts["h-1"], "<knowledge>")
	assert.Contains(t, prompts["h-1"], "[fact:"+f.ID+"]")
	mu.Unlock()
	got, err := ws.Knowledge().Facts().Get(ctx, f.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Retrievals)
	assert.Equal(t, 1, got.Helpful, "the task passed")
	learned, err := ws.ListFacts(ctx, facts.ListOptions{Scope: facts.Build("1")})
	require.NoError(t, err)
	require.Len(t, learned.Facts, 1, "the build taught one fact at build scope")
	assert.Equal(t, facts.SourceBuild, learned.Facts[0].Source.Type)
	pr, err := ws.PromoteFact(ctx, learned.Facts[0].ID, facts.Workspace())
	require.NoError(t, err)
	assert.Equal(t, facts.Workspace(), pr.New.Scope)
}

func TestKnowledgeShareZeroLeavesBuildPromptsAlone(t *testing.T) {
	t.Parallel()
	ws, srv, _, root := openKnowledge(t, "budgets:\n  knowledgeShare: 0\n", nil)
	ctx := context.Background()
	_, err := ws.AddFact(ctx, facts.NewFact{Content: "Health endpoints in this project return JSON with a status field"})
	require.NoError(t, err)
	var mu sync.Mutex
	var prompt string
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range req.Messages {
			prompt += m.Content + "\n"
		}
		return ollamatest.Text("Done.")
	})
	prd := `{"meta":{"name":"health"},"tasks":[{"id":"h-1","title":"Add a health endpoint","description":"return JSON status","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`
	path := filepath.Join(root, "health.json")
	require.NoError(t, os.WriteFile(path, []byte(prd), 0o644))
	p, err := prdpkg.Load(path)
	require.NoError(t, err)
	b, err := ws.Builds().Create(ctx, p, path, build.Options{})
	require.NoError(t, err)
	_, err = ws.Builds().Run(ctx, b.ID, nil)
	require.NoError(t, err)
	tasks, err := ws.Builds().Tasks(ctx, b.ID)
	require.NoError(t, err)
	assert.Empty(t, tasks[0].KnowledgeIDs)
	mu.Lock()
	defer mu.Unlock()
	assert.NotContains(t, prompt, "<knowledge>")
	assert.Contains(t, prompt, "PRD task h-1", "the task itself did run")
}

// Home and doctor count what the knowledge layer holds: valid facts of both
// files (closed ones are not), cached docs; doctor names the user-level file
// and where docs come from, read-only, after the owner closed.
func TestSummaryAndDoctorCountFactsAndDocs(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws, srv, d7, root := openKnowledge(t, "", map[string]string{"NOVA_HOME": home})
	ctx := context.Background()
	sum, err := ws.Summary(ctx)
	require.NoError(t, err)
	assert.Zero(t, sum.Facts)
	assert.Zero(t, sum.Docs)

	f, err := ws.AddFact(ctx, facts.NewFact{Content: "Releases are cut from the main branch"})
	require.NoError(t, err)
	_, err = ws.CorrectFact(ctx, f.ID, "we moved", "Releases are cut from release branches")
	require.NoError(t, err)
	_, err = ws.AddFact(ctx, facts.NewFact{Content: "I like small pull requests", Scope: facts.User()})
	require.NoError(t, err)
	_, err = ws.FetchDocs(ctx, "react", "hooks", docs.FetchOptions{})
	require.NoError(t, err)
	sum, err = ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, sum.Facts, "the replacement and the user-level fact; the superseded one is not counted")
	assert.Zero(t, sum.FactsReview)
	assert.Equal(t, 1, sum.Docs)

	require.NoError(t, ws.Close())
	env := envOf(map[string]string{"OLLAMA_HOST": srv.URL(), "CONTEXT7_API_URL": d7.URL(), "NOVA_HOME": home})
	rep := engine.Doctor(ctx, engine.DoctorOptions{Explicit: root, Getenv: env})
	fc := checkByName(t, rep, "facts")
	assert.Equal(t, "pass", fc.Status, "%+v", fc)
	assert.Equal(t, "1 valid (1 closed) in the workspace; 1 user-level in "+filepath.Join(home, "user.db"), fc.Detail)
	dc := checkByName(t, rep, "docs")
	assert.Equal(t, "pass", dc.Status)
	assert.Equal(t, "1 cached; Context7 at "+d7.URL(), dc.Detail)

	// A damaged user-level file is a warning that says what to do; docs off
	// is named as such.
	require.NoError(t, os.WriteFile(filepath.Join(home, "user.db"), []byte("not a database"), 0o600))
	rep = engine.Doctor(ctx, engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{
		"OLLAMA_HOST": srv.URL(), "CONTEXT7_API_URL": "off", "NOVA_HOME": home})})
	fc = checkByName(t, rep, "facts")
	assert.Equal(t, "warn", fc.Status)
	assert.Contains(t, fc.Detail, "user-level facts unavailable")
	assert.Contains(t, fc.Hint, "move it away")
	assert.Contains(t, checkByName(t, rep, "docs").Detail, "Context7 off")
}
