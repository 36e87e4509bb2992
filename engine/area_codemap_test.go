package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/lsp/lsptest"
	"github.com/nova-dev/nova/engine/workspace"
)

// shopFiles is a small Go module: a store, a handler that calls it.
var shopFiles = map[string]string{
	"go.mod": "module shop\n\ngo 1.22\n",
	"store/store.go": `package store

// Store keeps orders.
type Store struct{ orders map[int]Order }

// Order is one order.
type Order struct {
	ID    int
	Total float64
}

// SaveOrder stores o.
func (s *Store) SaveOrder(o Order) error {
	s.orders[o.ID] = o
	return nil
}
`,
	"api/handler.go": `package api

import "shop/store"

// Handler serves orders.
type Handler struct{ st *store.Store }

// CreateOrder saves a new order.
func (h *Handler) CreateOrder(id int, total float64) error {
	return h.st.SaveOrder(store.Order{ID: id, Total: total})
}
`,
}

// openShop opens a workspace holding shopFiles with extra config lines,
// served by srv.
func openShop(t *testing.T, config string, srv *ollamatest.Server) (*engine.Local, string) {
	t.Helper()
	root := newWorkspace(t)
	for p, c := range shopFiles {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	cfgPath := filepath.Join(root, ".nova", "config.yaml")
	data, err := os.ReadFile(cfgPath)
	require.NoError(t, err)
	// The shipped config ends with its lsp: section; the test's replaces it.
	if i := strings.Index(string(data), "\nlsp:\n"); i >= 0 {
		data = data[:i+1]
	}
	require.NoError(t, os.WriteFile(cfgPath, append(data, []byte("\n"+config)...), 0o644))
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true,
		Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	return ws, root
}

func systemOf(req api.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

// An agent run whose task names a function gets, in its first prompt, the
// map block with the file defining it (its signature) and its callers;
// nova map answers the same from the CLI's verb.
func TestAgentRunGetsTheMapOfTheFunctionItNames(t *testing.T) {
	t.Parallel()
	cfg := workspace.Defaults()
	var mu sync.Mutex
	var first *api.ChatRequest
	srv := ollamatest.New(t, ollamatest.WithModels(cfg.Models.Small, cfg.Models.Medium, cfg.Models.Large, cfg.Models.Embed),
		ollamatest.WithHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
			mu.Lock()
			if first == nil {
				first = &req
			}
			mu.Unlock()
			return ollamatest.Text("Nothing to change.")
		}))
	ws, root := openShop(t, "lsp:\n  off: true\n", srv)
	ctx := context.Background()
	_, err := ws.RunAgent(ctx, "implementer", "Make SaveOrder reject orders with a negative total.",
		engine.RunOptions{Tier: "medium", Approvals: engine.ApproveNone})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.NotNil(t, first)
	system := systemOf(*first)
	require.Contains(t, system, "<code_map>")
	block := system[strings.Index(system, "<code_map>"):]
	block = block[:strings.Index(block, "</code_map>")]
	assert.Contains(t, block, "store/store.go\n")
	assert.Contains(t, block, "func (s *Store) SaveOrder(o Order) error")
	assert.Contains(t, block, "used by: api/handler.go:10 (CreateOrder)")
	names := []string{}
	for _, tl := range first.Tools {
		names = append(names, tl.Function.Name)
	}
	assert.Subset(t, names, []string{"findSymbol", "references", "outline"})

	res, err := ws.CodeMap(ctx, engine.CodeMapOptions{Task: "SaveOrder", Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Stats.Files)
	require.Len(t, res.Files, 1)
	assert.Equal(t, "store/store.go", res.Files[0].Path)
	o, err := ws.CodeMapFile(ctx, filepath.Join(root, "api", "handler.go"))
	require.NoError(t, err)
	require.Len(t, o.Defs, 3, "the struct, its field, the method")
	_, err = ws.CodeMapFile(ctx, "api/handler.go")
	require.ErrorIs(t, err, engine.ErrRelativePath)
}

// An edit that breaks the build is reported by gopls (a real one,
// installed by the test set-up) to the agent in the same turn, and its
// errors fail the verdict although the run answered.
func TestEditBreakingTheBuildIsReportedByGoplsInTheSameTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: starts gopls")
	}
	gopls := lsptest.Gopls(t)
	cfg := workspace.Defaults()
	broken := strings.Replace(shopFiles["store/store.go"], "s.orders[o.ID] = o", "s.orders[o.ID] = order", 1)
	var mu sync.Mutex
	var toolResult string
	srv := ollamatest.New(t, ollamatest.WithModels(cfg.Models.Small, cfg.Models.Medium, cfg.Models.Large, cfg.Models.Embed),
		ollamatest.WithHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
			last := req.Messages[len(req.Messages)-1]
			if last.Role != "tool" {
				return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "store/store.go", "content": broken}))
			}
			mu.Lock()
			toolResult = last.Content
			mu.Unlock()
			return ollamatest.Text("Changed store/store.go.")
		}))
	ws, _ := openShop(t, "lsp:\n  timeout: 60s\n  servers:\n    gopls:\n      command: "+gopls+"\n", srv)
	run, err := ws.RunAgent(context.Background(), "implementer", "Rename the order variable in SaveOrder.",
		engine.RunOptions{Tier: "medium", Approvals: engine.ApproveNone})
	require.NoError(t, err)
	mu.Lock()
	got := toolResult
	mu.Unlock()
	assert.Contains(t, got, "language server (gopls) reports")
	assert.Contains(t, got, "store/store.go:14")
	assert.Contains(t, got, "undefined: order")
	require.NotNil(t, run.Verdict)
	assert.Equal(t, agents.VerdictFailed, run.Verdict.Status)
	var subjects []string
	for _, c := range run.Verdict.Checks {
		subjects = append(subjects, c.Subject+" "+string(c.Status))
	}
	assert.Contains(t, subjects, "language server: gopls failed")
}
