package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/workspace"
)

// firstTurn is the size of one run's first request as the model server
// receives it: the system prompt, and the tool schemas sent natively (the
// JSON of the request's "tools"), in nova's estimate ceil(chars/4).
type firstTurn struct {
	system, tools int
}

func (f firstTurn) total() int { return f.system + f.tools }

// firstTurnOf measures a captured chat request.
func firstTurnOf(tb testing.TB, req api.ChatRequest) firstTurn {
	tb.Helper()
	var f firstTurn
	for _, m := range req.Messages {
		if m.Role == "system" {
			f.system += agents.EstimateTokens(m.Content)
		}
	}
	if len(req.Tools) > 0 {
		data, err := json.Marshal(req.Tools)
		if err != nil {
			tb.Fatal(err)
		}
		f.tools = agents.EstimateTokens(string(data))
	}
	return f
}

// firstTurnWorkspace is a workspace made from the shipped defaults (the
// embedded .nova tree: config, agents) served by a fake Ollama whose chat
// handler keeps each run's first request and answers at once.
type firstTurnWorkspace struct {
	ws    *engine.Local
	mu    sync.Mutex
	first *api.ChatRequest
}

func newFirstTurnWorkspace(tb testing.TB) *firstTurnWorkspace {
	tb.Helper()
	root := tb.TempDir()
	if _, err := workspace.Init(root, nova.Defaults); err != nil {
		tb.Fatal(err)
	}
	// A small server: its map block is in every first turn (the small
	// tier's share is budgets.mapShare/2 of the prompt budget).
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(firstTurnMain), 0o644); err != nil {
		tb.Fatal(err)
	}
	cfg := workspace.Defaults()
	w := &firstTurnWorkspace{}
	srv := ollamatest.New(tb, ollamatest.WithModels(cfg.Models.Small, cfg.Models.Medium, cfg.Models.Large, cfg.Models.Embed),
		ollamatest.WithHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
			w.mu.Lock()
			if w.first == nil && len(req.Messages) == 2 {
				r := req
				w.first = &r
			}
			w.mu.Unlock()
			return ollamatest.Text("Nothing to change: main.go already does this.")
		}))
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true,
		Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ws.Close() })
	w.ws = ws
	return w
}

const firstTurnMain = `package main

import "net/http"

// routes registers the handlers.
func routes(mux *http.ServeMux) { mux.HandleFunc("/", index) }

// index answers the home page.
func index(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("hi")) }

func main() {
	mux := http.NewServeMux()
	routes(mux)
	_ = http.ListenAndServe(":8080", mux)
}
`

// measure runs agent on tier through the engine (RunAgent, as `nova agent
// run` does) and returns the size of its first request.
func (w *firstTurnWorkspace) measure(tb testing.TB, agent, tier string) (firstTurn, api.ChatRequest) {
	tb.Helper()
	w.mu.Lock()
	w.first = nil
	w.mu.Unlock()
	_, err := w.ws.RunAgent(context.Background(), agent, "Add a /healthz endpoint to main.go that answers 200 OK.",
		engine.RunOptions{Tier: tier, Approvals: engine.ApproveNone})
	if err != nil {
		tb.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first == nil {
		tb.Fatalf("%s on %s: no first request reached the model", agent, tier)
	}
	return firstTurnOf(tb, *w.first), *w.first
}

// measureBuild runs a one-task build of agent (on the agent's own tier, as
// a build starts it, with the session board's tools) and returns the size
// of the task's first request.
func (w *firstTurnWorkspace) measureBuild(tb testing.TB, agent string) firstTurn {
	tb.Helper()
	ctx := context.Background()
	w.mu.Lock()
	w.first = nil
	w.mu.Unlock()
	path := filepath.Join(tb.TempDir(), "health.json")
	prd := `{"meta":{"name":"health"},"tasks":[{"id":"h-1","title":"Health endpoint","description":"Add a /healthz endpoint to main.go that answers 200 OK.","agent":"` +
		agent + `","status":"pending","dependencies":[],"phase":0,"attempts":0}]}`
	if err := os.WriteFile(path, []byte(prd), 0o644); err != nil {
		tb.Fatal(err)
	}
	bd, err := w.ws.CreateBuild(ctx, path, engine.BuildOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.ws.RunBuild(ctx, bd.ID, engine.RunBuildOptions{Approvals: engine.ApproveNone}); err != nil {
		tb.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first == nil {
		tb.Fatalf("build of %s: no first request reached the model", agent)
	}
	return firstTurnOf(tb, *w.first)
}

// BenchmarkFirstTurnPrompt measures what a run's first model call carries
// (issue 25): the system prompt and the tool schemas sent natively, in
// tokens (ceil(chars/4), as nova estimates), for shipped default agents on
// each tier — the implementer and writing agents above all, since the small
// tier's context is where every token counts. Target: the small tier's
// first turn (system prompt + tool schemas) at most 2,500 tokens.
func BenchmarkFirstTurnPrompt(b *testing.B) {
	w := newFirstTurnWorkspace(b)
	for _, agent := range []string{"implementer", "MARS", "CALLISTO", "researcher"} {
		b.Run(agent, func(b *testing.B) {
			sizes := map[string]firstTurn{}
			for b.Loop() {
				for _, tier := range []string{"small", "medium", "large"} {
					f, _ := w.measure(b, agent, tier)
					sizes[tier] = f
				}
			}
			for tier, f := range sizes {
				b.ReportMetric(float64(f.system), "system/"+tier)
				b.ReportMetric(float64(f.tools), "tools/"+tier)
				b.ReportMetric(float64(f.total()), "tokens/"+tier)
			}
		})
	}
	// A build task of the small tier's writer (CALLISTO starts on small):
	// the task prompt of a build, and the session board's tools.
	b.Run("build-CALLISTO", func(b *testing.B) {
		var f firstTurn
		for b.Loop() {
			f = w.measureBuild(b, "CALLISTO")
		}
		b.ReportMetric(float64(f.system), "system/small")
		b.ReportMetric(float64(f.tools), "tools/small")
		b.ReportMetric(float64(f.total()), "tokens/small")
	})
}

// smallTierTarget is issue 25's ceiling for the small tier's first turn
// (system prompt + tool schemas as sent), in tokens.
const smallTierTarget = 2500

// Every shipped agent's first turn on the small tier, in a plain run and as
// a build task (with the board), stays within the target; the small tier
// is offered read, search, run and findSymbol (the code map replaces list), the write tools of an agent that
// writes (a native call must not be lost), and the shared tools its spec
// lists, and told to write whole files.
func TestSmallTierFirstTurnFitsTheTarget(t *testing.T) {
	t.Parallel()
	w := newFirstTurnWorkspace(t)
	roster, errs := w.ws.Agents()
	require.Empty(t, errs)
	require.NotEmpty(t, roster.IDs())
	for _, id := range roster.IDs() {
		spec, err := roster.Get(id)
		require.NoError(t, err)
		f, req := w.measure(t, id, "small")
		assert.LessOrEqual(t, f.total(), smallTierTarget, "%s: system %d + tools %d", id, f.system, f.tools)
		for _, tl := range req.Tools {
			// The code map stands in for listFiles (findSymbol, and the map
			// block in the prompt).
			assert.NotEqual(t, "listFiles", tl.Function.Name, id)
			minimal := slices.Contains([]string{"readFile", "searchFiles", "runCommand", "findSymbol"}, tl.Function.Name) ||
				spec.HasTool(tl.Function.Name) && slices.Contains([]string{"writeFile", "editFile"}, tl.Function.Name)
			assert.True(t, minimal || spec.HasTool(tl.Function.Name) && slices.Contains(agents.SharedTools(), tl.Function.Name),
				"%s is offered %s", id, tl.Function.Name)
		}
		if spec.CanWrite() {
			assert.Contains(t, req.Messages[0].Content, "the whole new file in a fenced block", id)
		}
	}
	f := w.measureBuild(t, "CALLISTO")
	assert.LessOrEqual(t, f.total(), smallTierTarget, "a build task: system %d + tools %d", f.system, f.tools)

	medium, req := w.measure(t, "implementer", "medium")
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	assert.Contains(t, names, "writeFile", "medium keeps the write tools")
	assert.Contains(t, names, "queryKnowledge", "and the knowledge tools")
	assert.Greater(t, medium.tools, 3*f.tools)
}

// agents.SharedTools names exactly the tools the engine offers every agent
// (tools.Tool.AllAgents), which a spec may list to keep on the small tier.
func TestSharedToolNamesMatchTheRegistry(t *testing.T) {
	t.Parallel()
	w := newFirstTurnWorkspace(t)
	var shared []string
	for _, name := range w.ws.Tools().Names() {
		if tl, _ := w.ws.Tools().Get(name); tl.AllAgents {
			shared = append(shared, name)
		}
	}
	assert.ElementsMatch(t, agents.SharedTools(), shared)
}

// The shipped researcher lists fetchDocs and queryKnowledge: it keeps them
// on the small tier, where the other shared tools are left out.
func TestSmallTierOffersTheSharedToolsItsSpecLists(t *testing.T) {
	t.Parallel()
	w := newFirstTurnWorkspace(t)
	_, req := w.measure(t, "researcher", "small")
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	assert.Equal(t, []string{"readFile", "searchFiles", "fetchDocs", "queryKnowledge", "findSymbol"}, names, "findSymbol and the map stand in for listFiles")
}
