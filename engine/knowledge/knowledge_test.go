package knowledge_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/docs/docstest"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

type fixture struct {
	svc   *knowledge.Service
	facts *facts.Service
	docs  *docs.Fetcher
	vault *vault.Vault
	srv   *docstest.Server
	db    *storage.DB
	root  string
}

type options struct {
	vault func(v *vault.Vault) knowledge.VaultSearcher
	llm   *llm.Client
}

func newFixture(t testing.TB, o options) fixture {
	t.Helper()
	root := t.TempDir()
	db, err := storage.Open(filepath.Join(root, ".nova", "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	srv := docstest.New(t, docstest.Options{})
	v := vault.New(db, vault.Options{UserID: "local", Tier: "premium"})
	t.Cleanup(func() { _ = v.Close() })
	fs := facts.New(facts.Options{DB: db, UserPath: filepath.Join(t.TempDir(), "user.db"), Root: root})
	d := docs.New(db, docs.Options{Root: root, BaseURL: srv.URL(), Getenv: func(string) string { return "" }})
	var vs knowledge.VaultSearcher = v
	if o.vault != nil {
		vs = o.vault(v)
	}
	svc := knowledge.New(knowledge.Options{Vault: func() knowledge.VaultSearcher { return vs }, Facts: fs, Docs: d,
		LLM: o.llm, SmallModel: "qwen2.5-coder:1.5b", SourceTimeout: 500 * time.Millisecond})
	return fixture{svc: svc, facts: fs, docs: d, vault: v, srv: srv, db: db, root: root}
}

func seed(t testing.TB, fx fixture) (facts.Fact, vault.Node) {
	t.Helper()
	ctx := context.Background()
	f, err := fx.facts.Add(ctx, facts.NewFact{Content: "React components in this project use hooks for state, never classes", Tags: []string{"react"}})
	require.NoError(t, err)
	n, err := fx.vault.Add(ctx, vault.Node{Type: vault.Pattern, Content: "Extract repeated React state logic into custom hooks", Confidence: 0.8, Tags: []string{"react"}})
	require.NoError(t, err)
	_, err = fx.docs.Fetch(ctx, "react", "hooks", docs.FetchOptions{})
	require.NoError(t, err)
	return f, n
}

func TestSearchMergesVaultFactsAndDocs(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, options{})
	f, n := seed(t, fx)
	res, err := fx.svc.Search(context.Background(), "react hooks state", knowledge.SearchOptions{})
	require.NoError(t, err)
	assert.Empty(t, res.Warnings)
	bySource := map[string]knowledge.Hit{}
	for i, h := range res.Hits {
		bySource[h.Source] = h
		assert.True(t, h.Score > 0 && h.Score <= 1, h.Score)
		assert.NotEmpty(t, h.Title)
		assert.NotEmpty(t, h.Snippet)
		if i > 0 {
			assert.GreaterOrEqual(t, res.Hits[i-1].Score, h.Score, "best first")
		}
	}
	require.Len(t, bySource, 3, "%+v", res.Hits)
	assert.Equal(t, "fact:"+f.ID, bySource["facts"].Ref)
	assert.Equal(t, "vault:"+itoa(n.ID), bySource["vault"].Ref)
	assert.Equal(t, "docs:context7:react#hooks", bySource["docs"].Ref)
	require.Len(t, res.Sources, 3)

	only, err := fx.svc.Search(context.Background(), "react hooks", knowledge.SearchOptions{Sources: []string{"docs"}, Limit: 1})
	require.NoError(t, err)
	require.Len(t, only.Hits, 1)
	assert.Equal(t, "docs", only.Hits[0].Source)
	_, err = fx.svc.Search(context.Background(), "x", knowledge.SearchOptions{Sources: []string{"web"}})
	require.ErrorIs(t, err, knowledge.ErrInvalid)
	_, err = fx.svc.Search(context.Background(), " ", knowledge.SearchOptions{})
	require.ErrorIs(t, err, knowledge.ErrInvalid)

	for _, ref := range []string{bySource["facts"].Ref, bySource["vault"].Ref, bySource["docs"].Ref} {
		item, err := fx.svc.Resolve(context.Background(), ref)
		require.NoError(t, err, ref)
		assert.NotEmpty(t, item.Text)
	}
	_, err = fx.svc.Resolve(context.Background(), "web:1")
	require.ErrorIs(t, err, knowledge.ErrInvalid)
}

func itoa(n uint64) string { b, _ := json.Marshal(n); return string(b) }

type brokenVault struct {
	knowledge.VaultSearcher
	mode string
}

func (b brokenVault) Search(ctx context.Context, q string, o vault.SearchOptions) ([]vault.Scored, error) {
	switch b.mode {
	case "error":
		return nil, errors.New("vault index is busy")
	case "panic":
		panic("boom")
	}
	<-ctx.Done() // hangs until the source timeout
	return nil, ctx.Err()
}

func TestAFailingSourceNeverHidesTheOthers(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"error", "panic", "hang"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t, options{vault: func(v *vault.Vault) knowledge.VaultSearcher { return brokenVault{v, mode} }})
			seed(t, fx)
			start := time.Now()
			res, err := fx.svc.Search(context.Background(), "react hooks state", knowledge.SearchOptions{})
			require.NoError(t, err)
			assert.Less(t, time.Since(start), 10*time.Second, "a hanging source is cut by its timeout")
			var sources []string
			for _, h := range res.Hits {
				sources = append(sources, h.Source)
			}
			assert.Contains(t, sources, "facts")
			assert.Contains(t, sources, "docs")
			assert.NotContains(t, sources, "vault")
			require.NotEmpty(t, res.Warnings)
			assert.Contains(t, res.Warnings[len(res.Warnings)-1], "vault search failed")
		})
	}
}

func TestHookInjectsWithinBudgetAndCountsRetrievals(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, options{})
	ctx := context.Background()
	_, n := seed(t, fx)
	bf, err := fx.facts.Add(ctx, facts.NewFact{Content: "Build 4 learned that React hooks need the eslint plugin", Scope: facts.Build("4")})
	require.NoError(t, err)
	other, err := fx.facts.Add(ctx, facts.NewFact{Content: "Build 5 says React hooks are slow", Scope: facts.Build("5")})
	require.NoError(t, err)
	_, err = fx.vault.Add(ctx, vault.Node{Type: vault.Mistake, Content: "Forgot React hooks dependency arrays", Confidence: 0.9})
	require.NoError(t, err)

	block, ids, err := fx.svc.Hits(ctx, build.KnowledgeQuery{BuildID: "4", TaskID: "t1", Agent: "VENUS", Text: "Add React hooks for the cart state"}, 800)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(block, "<knowledge>"))
	assert.True(t, strings.HasSuffix(block, "</knowledge>"))
	assert.LessOrEqual(t, docs.EstimateTokens(block), 800)
	assert.Contains(t, ids, "fact:"+bf.ID, "the build's own facts are seen")
	assert.NotContains(t, ids, "fact:"+other.ID, "another build's are not")
	assert.Contains(t, ids, "vault:"+itoa(n.ID), "imported patterns are included")
	for _, id := range ids {
		assert.Contains(t, block, "["+id+"]")
		if strings.HasPrefix(id, "vault:") {
			assert.Equal(t, "vault:"+itoa(n.ID), id, "only patterns, not every vault node")
		}
	}
	got, err := fx.facts.Get(ctx, bf.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Retrievals)

	_, ids, err = fx.svc.Hits(ctx, build.KnowledgeQuery{BuildID: "4", Agent: "VENUS", Text: "Add React hooks for the cart state", ExcludeVault: []uint64{n.ID}}, 800)
	require.NoError(t, err)
	assert.NotContains(t, ids, "vault:"+itoa(n.ID), "vault nodes already in the prompt are left out")

	small, ids, err := fx.svc.Hits(ctx, build.KnowledgeQuery{BuildID: "4", Agent: "VENUS", Text: "Add React hooks for the cart state"}, 90)
	require.NoError(t, err)
	assert.LessOrEqual(t, docs.EstimateTokens(small), 90)
	assert.LessOrEqual(t, len(ids), 1)
	none, ids, err := fx.svc.Hits(ctx, build.KnowledgeQuery{Agent: "VENUS", Text: "quantum chromodynamics lattice"}, 800)
	require.NoError(t, err)
	assert.Empty(t, none)
	assert.Empty(t, ids)
}

func TestAfterTaskCreditsOnlyLearnableOutcomes(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, options{})
	ctx := context.Background()
	f, err := fx.facts.Add(ctx, facts.NewFact{Content: "Use the staging database for migrations"})
	require.NoError(t, err)
	ref := []string{"fact:" + f.ID, "docs:context7:react#hooks", "vault:3"}
	require.NoError(t, fx.svc.KnowledgeAfterTask(ctx, build.KnowledgeOutcome{IDs: ref, Passed: true}))
	require.NoError(t, fx.svc.KnowledgeAfterTask(ctx, build.KnowledgeOutcome{IDs: ref, Kind: failure.WorkFailed}))
	require.NoError(t, fx.svc.KnowledgeAfterTask(ctx, build.KnowledgeOutcome{IDs: ref, Kind: failure.Unreachable}))
	require.NoError(t, fx.svc.KnowledgeAfterTask(ctx, build.KnowledgeOutcome{IDs: ref, Kind: failure.Unknown}))
	got, err := fx.facts.Get(ctx, f.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Helpful)
	assert.Equal(t, 1, got.NotHelpful, "infrastructure failures are never held against a fact")
}

func TestExtractFactsAfterABuild(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b"))
	client, err := llm.New(llm.Config{Host: srv.URL(), Retries: -1})
	require.NoError(t, err)
	fx := newFixture(t, options{llm: client})
	ctx := context.Background()
	_, err = fx.facts.Add(ctx, facts.NewFact{Content: "Tests run with make test"})
	require.NoError(t, err)
	reply := `{"facts":[
		{"content":"The HTTP handlers live in internal/api and return JSON errors","confidence":0.9,"tags":["api"]},
		{"content":"Tests run with make test","confidence":0.95},
		{"content":"Maybe the cache is slow sometimes","confidence":0.4},
		{"content":"Migrations are numbered and applied in order","confidence":0.8},
		{"content":"Builds need Go 1.26 or newer","confidence":0.6}]}`
	srv.Enqueue(ollamatest.Text(reply))
	b := build.Build{ID: 9, Name: "api", Status: build.StatusDone, Total: 2, Counts: map[build.TaskStatus]int{build.TaskDone: 2}}
	tasks := []build.Task{
		{ID: "a-1", Title: "Add handlers", Agent: "MARS", Status: build.TaskDone, Output: "Added internal/api handlers."},
		{ID: "a-2", Title: "Add tests", Agent: "SATURN", Status: build.TaskBlocked, Reason: "gate failed: go test"},
	}
	require.NoError(t, fx.svc.KnowledgeAfterBuild(ctx, b, tasks))
	list, err := fx.facts.List(ctx, facts.ListOptions{Scope: facts.Build("9")})
	require.NoError(t, err)
	var got []string
	for _, f := range list.Facts {
		got = append(got, f.Content)
		assert.Equal(t, facts.SourceBuild, f.Source.Type)
		assert.Equal(t, "9", f.Source.BuildID)
		assert.GreaterOrEqual(t, f.Confidence, 0.6)
	}
	assert.ElementsMatch(t, []string{
		"The HTTP handlers live in internal/api and return JSON errors",
		"Migrations are numbered and applied in order",
		"Builds need Go 1.26 or newer",
	}, got, "low confidence and duplicates of visible facts are skipped")
	reqs := srv.ChatRequests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "qwen2.5-coder:1.5b", reqs[0].Model, "the small tier")
	assert.NotEmpty(t, reqs[0].Format, "structured output")
	assert.Contains(t, reqs[0].Messages[len(reqs[0].Messages)-1].Content, "gate failed: go test")

	// A model that answers nonsense teaches nothing and breaks nothing.
	srv.Enqueue(ollamatest.Text("sure!"), ollamatest.Text("still no"))
	err = fx.svc.KnowledgeAfterBuild(ctx, build.Build{ID: 10, Status: build.StatusFailed}, tasks)
	require.Error(t, err)
	assert.ErrorIs(t, err, llm.ErrInvalidOutput)
	list, err = fx.facts.List(ctx, facts.ListOptions{Scope: facts.Build("10")})
	require.NoError(t, err)
	assert.Empty(t, list.Facts)
}

func execTool(t testing.TB, reg *tools.Registry, env *tools.Env, name string, args map[string]any) tools.Result {
	t.Helper()
	b, err := json.Marshal(args)
	require.NoError(t, err)
	return reg.Execute(context.Background(), env, tools.Call{Name: name, Args: b})
}

func TestAgentToolsForEveryAgent(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, options{})
	seed(t, fx)
	reg := tools.Core()
	require.NoError(t, fx.svc.Register(reg))
	names := []string{}
	for _, tl := range reg.For("researcher", []string{"readFile"}) {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"readFile", "fetchDocs", "queryKnowledge", "recall", "remember", "correct"}, names,
		"offered to an agent whose spec lists none of them")
	inBuild := &tools.Env{Agent: "MARS", BuildID: "12", TaskID: "t-3", Tools: []string{"readFile"}}
	alone := &tools.Env{Agent: "VENUS", Tools: []string{}}

	r := execTool(t, reg, inBuild, "fetchDocs", map[string]any{"library": "react", "topic": "hooks"})
	require.True(t, r.OK(), r.Output)
	assert.Contains(t, r.Output, "Documentation for react (hooks)")
	assert.Contains(t, r.Output, "useEffect runs after render")
	fx.srv.Close()
	r = execTool(t, reg, inBuild, "fetchDocs", map[string]any{"library": "vue", "topic": "refs"})
	require.True(t, r.OK(), "the fallback is an answer, not an error")
	assert.Equal(t, "Documentation unavailable for vue (refs). Please consult the official docs.", r.Output)
	r = execTool(t, reg, inBuild, "fetchDocs", map[string]any{"library": ""})
	assert.Equal(t, tools.StatusInvalid, r.Status)

	r = execTool(t, reg, inBuild, "remember", map[string]any{"fact": "The cart total is computed server side", "tags": []string{"cart"}})
	require.True(t, r.OK(), r.Output)
	assert.Contains(t, r.Output, "at build:12")
	r = execTool(t, reg, alone, "remember", map[string]any{"fact": "VENUS prefers CSS modules", "confidence": 0.8})
	require.True(t, r.OK(), r.Output)
	assert.Contains(t, r.Output, "at agent:VENUS (confidence 0.80)")
	r = execTool(t, reg, alone, "remember", map[string]any{"fact": "x", "confidence": 1.5})
	assert.Equal(t, tools.StatusInvalid, r.Status, "the schema refuses confidence 1.5")

	r = execTool(t, reg, inBuild, "recall", map[string]any{"query": "cart total"})
	require.True(t, r.OK(), r.Output)
	assert.Contains(t, r.Output, "(build:12, confidence 0.70")
	r = execTool(t, reg, alone, "recall", map[string]any{"query": "cart total"})
	require.True(t, r.OK())
	assert.Contains(t, r.Output, "No facts found", "another agent outside the build does not see build facts")
	r = execTool(t, reg, inBuild, "recall", map[string]any{"query": "cart total", "scope": "workspace"})
	assert.Contains(t, r.Output, "No facts found", "a workspace search never sees narrower facts")

	r = execTool(t, reg, inBuild, "queryKnowledge", map[string]any{"query": "react hooks state", "maxResults": 2})
	require.True(t, r.OK(), r.Output)
	assert.Contains(t, r.Output, "Knowledge for \"react hooks state\" (2 results")
	assert.LessOrEqual(t, docs.EstimateTokens(r.Output), knowledge.QueryKnowledgeTokens)

	list, err := fx.facts.List(context.Background(), facts.ListOptions{Scope: facts.Build("12")})
	require.NoError(t, err)
	require.Len(t, list.Facts, 1)
	id := list.Facts[0].ID
	assert.Equal(t, "t-3", list.Facts[0].Source.TaskID)
	r = execTool(t, reg, inBuild, "correct", map[string]any{"factId": id, "reason": "it moved to the client", "replacement": "The cart total is computed in the browser"})
	require.True(t, r.OK(), r.Output)
	assert.Contains(t, r.Output, "Fact "+id+" invalidated: it moved to the client. Replacement recorded as")
	r = execTool(t, reg, inBuild, "correct", map[string]any{"factId": id, "reason": "again"})
	assert.Equal(t, tools.StatusError, r.Status)
	assert.Contains(t, r.Output, "already invalidated")
	r = execTool(t, reg, inBuild, "correct", map[string]any{"factId": "f999", "reason": "x"})
	assert.Contains(t, r.Output, "not found")
}

func TestFormatForPromptKeepsAtLeastOneHit(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 3000)
	res := knowledge.Result{Query: "q", Hits: []knowledge.Hit{
		{Source: "docs", Title: "a", Snippet: long, Score: 0.9, Ref: "docs:x:a"},
		{Source: "facts", Title: "b", Snippet: "short", Score: 0.5, Ref: "fact:f1"},
	}}
	out := knowledge.FormatForPrompt(res, 100)
	assert.Contains(t, out, "[1] a")
	assert.LessOrEqual(t, docs.EstimateTokens(out), 100)
	assert.Contains(t, knowledge.FormatForPrompt(knowledge.Result{Query: "zz"}, 100), "No knowledge found")
}

var _ sync.Locker = (*sync.Mutex)(nil)

func TestFactsAnAgentRecalledInABuildTaskAreCreditedWithIt(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, options{})
	ctx := context.Background()
	f, err := fx.facts.Add(ctx, facts.NewFact{Content: "Payments go through the billing service"})
	require.NoError(t, err)
	reg := tools.NewRegistry()
	require.NoError(t, fx.svc.Register(reg))
	env := &tools.Env{Agent: "MARS", BuildID: "3", TaskID: "t-9", Tools: []string{}}
	r := execTool(t, reg, env, "recall", map[string]any{"query": "billing payments"})
	require.True(t, r.OK(), r.Output)
	require.NoError(t, fx.svc.KnowledgeAfterTask(ctx, build.KnowledgeOutcome{BuildID: "3", TaskID: "t-9", Passed: true}))
	got, err := fx.facts.Get(ctx, f.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Retrievals)
	assert.Equal(t, 1, got.Helpful, "the task that recalled it passed")
	require.NoError(t, fx.svc.KnowledgeAfterTask(ctx, build.KnowledgeOutcome{BuildID: "3", TaskID: "t-9", Passed: true}))
	got, err = fx.facts.Get(ctx, f.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Helpful, "credited once per retrieval")
}

// Cached docs and facts are scored on an absolute scale (how much of the
// query they contain), not only relative to the best of their source: a doc
// sharing one word with the query used to score 0.8 as the only doc hit and
// outrank a pattern matching the query literally, and a fact sharing one
// word scored 0.95 as the best fact; a doc sharing a word with a long query
// is not a hit at all; a literal match keeps its full score.
func TestAWeakDocOrFactNeverOutranksALiteralMatch(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, options{})
	ctx := context.Background()
	n, err := fx.vault.Add(ctx, vault.Node{Type: vault.Pattern, Title: "Release checklist",
		Content: "Every release follows the same release checklist kept in the repository.", Confidence: 0.6})
	require.NoError(t, err)
	require.NoError(t, fx.docs.Cache().Put(ctx, docs.Key{Source: "context7", Library: "git", Topic: "hooks"}, docs.Entry{
		Source: "context7", Library: "git", Topic: "hooks", Title: "Git — hooks",
		Content: "Hooks are scripts git runs before or after events such as commit and push. " +
			"A pre-push hook can run a checklist of tests.",
		FetchedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}))
	require.NoError(t, fx.docs.Cache().Put(ctx, docs.Key{Source: "context7", Library: "react", Topic: "effects"}, docs.Entry{
		Source: "context7", Library: "react", Topic: "effects", Title: "React — effects",
		Content:   "useEffect runs after render; return a cleanup function to undo subscriptions.",
		FetchedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}))

	// One query word in a doc: it ranks below the literal match.
	res, err := fx.svc.Search(ctx, "release checklist", knowledge.SearchOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits)
	assert.Equal(t, "vault:"+itoa(n.ID), res.Hits[0].Ref, "the literal match ranks first: %+v", res.Hits)
	for _, h := range res.Hits[1:] {
		if h.Source == "docs" {
			assert.Less(t, h.Score, res.Hits[0].Score)
			assert.LessOrEqual(t, h.Score, 0.45, "half the query covered: at most half the docs weight")
		}
	}

	// Two common words of a task's worth of text: no docs hit at all.
	res, err = fx.svc.Search(ctx, "Add a release checklist step that tags the version and writes the changelog before publishing",
		knowledge.SearchOptions{Sources: []string{"docs"}})
	require.NoError(t, err)
	assert.Empty(t, res.Hits, "a doc sharing a word with a long text is not a hit")

	// A literal docs match keeps its score, and a fact that shares one word
	// with the query (it was the best fact, so it scored 0.95) no longer
	// outranks it: it is not a hit at all.
	weak, err := fx.facts.Add(ctx, facts.NewFact{Content: "Cleanup scripts run every night"})
	require.NoError(t, err)
	res, err = fx.svc.Search(ctx, "useEffect cleanup", knowledge.SearchOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits)
	assert.Equal(t, "docs:context7:react#effects", res.Hits[0].Ref)
	assert.InDelta(t, 0.8, res.Hits[0].Score, 1e-9)
	for _, h := range res.Hits {
		assert.NotEqual(t, "fact:"+weak.ID, h.Ref, "%+v", res.Hits)
	}
	// The same fact is a hit for what it says.
	res, err = fx.svc.Search(ctx, "nightly cleanup scripts", knowledge.SearchOptions{Sources: []string{"facts"}})
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits)
	assert.Equal(t, "fact:"+weak.ID, res.Hits[0].Ref)
}
