package agents_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

const (
	smallModel  = "qwen2.5-coder:1.5b"
	mediumModel = "qwen2.5-coder:7b"
	largeModel  = "qwen2.5-coder:14b"
)

var allTools = []string{"readFile", "listFiles", "searchFiles", "writeFile", "editFile", "deleteFile", "runCommand"}

// harness is a workspace, a real bbolt database, a fake Ollama and a Runner
// wired to them through the real llm client.
type harness struct {
	t      testing.TB
	root   string
	srv    *ollamatest.Server
	db     *storage.DB
	runner *agents.Runner

	mu     sync.Mutex
	events []agents.Event
}

type harnessOpt func(*harnessConfig)

type harnessConfig struct {
	files    map[string]string
	models   ollamatest.Option
	srvOpts  []ollamatest.Option
	llmCfg   llm.Config
	settings agents.Settings
	noSync   bool
}

func withFiles(files map[string]string) harnessOpt {
	return func(c *harnessConfig) { c.files = files }
}

// withModels replaces the installed models (all three tiers, with tools).
func withModels(models ...ollamatest.Model) harnessOpt {
	return func(c *harnessConfig) { c.models = ollamatest.WithModel(models...) }
}
func withSettings(fn func(*agents.Settings)) harnessOpt {
	return func(c *harnessConfig) { fn(&c.settings) }
}
func withLLM(fn func(*llm.Config)) harnessOpt {
	return func(c *harnessConfig) { fn(&c.llmCfg) }
}

func newHarness(t testing.TB, opts ...harnessOpt) *harness {
	t.Helper()
	cfg := harnessConfig{
		files: map[string]string{
			"go.mod":  "module example.com/app\n\ngo 1.22\n",
			"main.go": "package main\n\nfunc main() {\n\tserve()\n}\n",
		},
		models: ollamatest.WithModels(smallModel, mediumModel, largeModel),
		llmCfg: llm.Config{Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, Retries: 1},
		noSync: true,
	}
	for _, o := range opts {
		o(&cfg)
	}
	root := t.TempDir()
	for p, c := range cfg.files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		require.NoError(t, os.WriteFile(abs, []byte(c), 0o644))
	}
	srv := ollamatest.New(t, append([]ollamatest.Option{cfg.models}, cfg.srvOpts...)...)
	cfg.llmCfg.Host = srv.URL()
	client, err := llm.New(cfg.llmCfg)
	require.NoError(t, err)
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: cfg.noSync})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	models := llm.Models{llm.TierSmall: smallModel, llm.TierMedium: mediumModel, llm.TierLarge: largeModel}
	return &harness{
		t: t, root: root, srv: srv, db: db,
		runner: &agents.Runner{
			LLM: client, Models: models, Tools: tools.Core(),
			Changes: changes.New(db, root, changes.Options{}), Runs: agents.NewRunStore(db),
			Root: root, Settings: cfg.settings,
		},
	}
}

// spec is a MARS-like agent with every tool.
func spec(mod ...func(*agents.Spec)) agents.Spec {
	s := agents.Spec{
		Schema: agents.SchemaV1, ID: "MARS", Role: "You are MARS, a backend engineer.",
		StaticContext: "Backend checklist: validate input.",
		Tools:         append([]string(nil), allTools...),
		Tier:          agents.TierMedium, MaxTier: agents.TierLarge,
		Limits:   agents.Limits{MaxSteps: 12, MaxToolCalls: 24, Timeout: "30s"},
		Examples: []agents.Example{{Input: "Add a ping endpoint.", Output: "Changed server.go: GET /ping."}},
	}
	for _, m := range mod {
		m(&s)
	}
	return s
}

func (h *harness) run(task string, s agents.Spec, opts ...func(*agents.RunOptions)) agents.Run {
	h.t.Helper()
	r, err := h.runErr(context.Background(), task, s, opts...)
	require.NoError(h.t, err)
	return r
}

func (h *harness) runErr(ctx context.Context, task string, s agents.Spec, opts ...func(*agents.RunOptions)) (agents.Run, error) {
	o := agents.RunOptions{OnEvent: func(ev agents.Event) {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
	}}
	for _, m := range opts {
		m(&o)
	}
	return h.runner.Run(ctx, s, task, o)
}

func (h *harness) eventTypes() []agents.EventType {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]agents.EventType, 0, len(h.events))
	for _, e := range h.events {
		if e.Type != agents.EventDelta {
			out = append(out, e.Type)
		}
	}
	return out
}

func (h *harness) eventsOf(tp agents.EventType) []agents.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []agents.Event
	for _, e := range h.events {
		if e.Type == tp {
			out = append(out, e)
		}
	}
	return out
}

func (h *harness) traces(runID uint64) []agents.Trace {
	h.t.Helper()
	tr, err := h.runner.Runs.Traces(context.Background(), runID)
	require.NoError(h.t, err)
	return tr
}

func (h *harness) file(p string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(h.root, filepath.FromSlash(p)))
	return string(b), err == nil
}

func tc(name string, args map[string]any) ollamatest.Reply {
	return ollamatest.ToolCalls(ollamatest.Call(name, args))
}

// toolMessages returns the contents of the tool-role messages of a chat
// request.
func toolMessages(req api.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

func lastMessage(req api.ChatRequest) api.Message {
	return req.Messages[len(req.Messages)-1]
}

func allContent(req api.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}
