package build_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

var testModels = []string{"qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"}

// taskRE finds the task id in a build prompt (see build.TaskHeader).
var taskRE = regexp.MustCompile(`PRD task (\S+?): `)

// Script answers the fake Ollama by the task id found in the prompt: a task
// with files first calls writeFile for each, then answers with its text; a
// task listed in fail answers with an empty reply (a failed run) for its
// first fail[id] attempts.
type Script struct {
	mu      sync.Mutex
	Files   map[string]map[string]string // task id -> path -> content
	Text    map[string]string            // task id -> final answer (default "Done: <id>.")
	Fail    map[string]int               // task id -> attempts that fail
	Latency time.Duration
	seen    map[string]int // task id -> final answers given
	Prompts map[string][]string
	Judge   func(prompt string) string // reply for judge requests
}

func NewScript() *Script {
	return &Script{Files: map[string]map[string]string{}, Text: map[string]string{}, Fail: map[string]int{},
		seen: map[string]int{}, Prompts: map[string][]string{}}
}

func (s *Script) Answers(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[id]
}

func (s *Script) Handle(_ int, req api.ChatRequest) ollamatest.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	var user, all string
	toolSeen := false
	for _, m := range req.Messages {
		all += m.Content + "\n"
		if m.Role == "user" && user == "" {
			user = m.Content
		}
		if m.Role == "tool" {
			toolSeen = true
		}
	}
	if strings.Contains(all, "You are MERCURY, nova's reviewer") && s.Judge != nil {
		return s.lat(ollamatest.Text(s.Judge(all)))
	}
	m := taskRE.FindStringSubmatch(user)
	if m == nil {
		return s.lat(ollamatest.Text("ok"))
	}
	id := m[1]
	if files := s.Files[id]; len(files) > 0 && !toolSeen {
		var calls []api.ToolCall
		for p, c := range files {
			calls = append(calls, ollamatest.Call("writeFile", map[string]any{"path": p, "content": c}))
		}
		return s.lat(ollamatest.ToolCalls(calls...))
	}
	s.seen[id]++
	s.Prompts[id] = append(s.Prompts[id], all)
	if s.seen[id] <= s.Fail[id] {
		return s.lat(ollamatest.Text("```json\n{broken\n```"))
	}
	if txt, ok := s.Text[id]; ok {
		return s.lat(ollamatest.Text(txt).WithTokens(100, 20))
	}
	return s.lat(ollamatest.Text("Done: "+id+".").WithTokens(100, 20))
}

func (s *Script) lat(r ollamatest.Reply) ollamatest.Reply {
	if s.Latency > 0 {
		r = r.WithLatency(s.Latency)
	}
	return r
}

// Harness is a build engine over a real bbolt file, the real agent runner
// and a fake Ollama.
type Harness struct {
	Eng     *build.Engine
	Srv     *ollamatest.Server
	Script  *Script
	Root    string
	DB      *storage.DB
	Changes *changes.Store
	Vault   *vault.Vault
	Proxy   *Proxy
	mu      sync.Mutex
	Events  []build.Event
}

type harnessOpts struct {
	cfg   build.Config
	hooks build.Hooks
	vault bool
	// zeroShares turns the prompt context off (every share 0); otherwise
	// the shipped shares apply.
	zeroShares bool
	// ping replaces the server check used while a task waits.
	ping func(context.Context) error
	// proxy puts a switchable proxy between the engine and the fake Ollama
	// (h.Proxy), to take the server down and bring it back.
	proxy bool
	// allow is the runCommand allowlist of the agents.
	allow []string
	// onEvent sees every event as it is published, on the publishing
	// goroutine (after it is recorded).
	onEvent func(*Harness, build.Event)
}

// Proxy forwards to the fake Ollama while up; while down nothing listens on
// its address (connection refused), as when Ollama is stopped.
type Proxy struct {
	t      testing.TB
	target *url.URL
	addr   string
	mu     sync.Mutex
	srv    *http.Server
}

func newProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &Proxy{t: t, target: u, addr: ln.Addr().String()}
	p.serve(ln)
	t.Cleanup(p.Down)
	return p
}

func (p *Proxy) URL() string { return "http://" + p.addr }

func (p *Proxy) serve(ln net.Listener) {
	srv := &http.Server{Handler: httputil.NewSingleHostReverseProxy(p.target), ReadHeaderTimeout: 5 * time.Second}
	p.srv = srv
	go func() { _ = srv.Serve(ln) }()
}

// Down stops listening: connections are refused.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv != nil {
		_ = p.srv.Close()
		p.srv = nil
	}
}

// Up listens again on the same address.
func (p *Proxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv != nil {
		return
	}
	var ln net.Listener
	var err error
	for range 50 { // the port may take a moment to be free again
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(p.t, err)
	p.serve(ln)
}

func newHarness(t testing.TB, o harnessOpts) *Harness {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/app\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".nova"), 0o755))
	db, err := storage.Open(filepath.Join(root, ".nova", "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	script := NewScript()
	srv := ollamatest.New(t, ollamatest.WithModels(testModels...), ollamatest.WithHandler(script.Handle))
	host := srv.URL()
	var proxy *Proxy
	if o.proxy {
		proxy = newProxy(t, srv.URL())
		host = proxy.URL()
	}
	client, err := llm.New(llm.Config{Host: host, Retries: -1})
	require.NoError(t, err)
	cs := changes.New(db, root, changes.Options{})
	runner := &agents.Runner{
		LLM:     client,
		Models:  llm.Models{llm.TierSmall: testModels[0], llm.TierMedium: testModels[1], llm.TierLarge: testModels[2]},
		Tools:   tools.Core(),
		Changes: cs,
		Runs:    agents.NewRunStore(db),
		Root:    root,
	}
	runner.Settings.Commands.Allow = o.allow
	roster, errs := agents.LoadFS(nova.Defaults, ".nova/agents")
	require.Empty(t, errs)
	h := &Harness{Srv: srv, Script: script, Root: root, DB: db, Changes: cs, Proxy: proxy}
	if o.vault {
		h.Vault = vault.New(db, vault.Options{UserID: "local", Tier: "free"})
		t.Cleanup(func() { _ = h.Vault.Close() })
	}
	cfg := o.cfg
	cfg.Root = root
	if cfg.Tier == "" {
		cfg.Tier = "free"
	}
	// The prompt context comes from the vault and the hooks' sources, as
	// the engine root composes it.
	pc := promptctx.Sources{Shares: promptctx.Shares{Vault: promptctx.DefaultVaultShare,
		Playbook: promptctx.DefaultPlaybookShare, Knowledge: promptctx.DefaultKnowledgeShare}}
	if o.zeroShares {
		pc.Shares = promptctx.Shares{}
	}
	if h.Vault != nil {
		pc.Vault = h.Vault
	}
	if ps, ok := o.hooks.Playbook.(promptctx.PlaybookSource); ok {
		pc.Playbook = ps
	}
	if ks, ok := o.hooks.Knowledge.(promptctx.KnowledgeSource); ok {
		pc.Knowledge = ks
	}
	if cfg.WaitBackoff == 0 {
		cfg.WaitBackoff = 20 * time.Millisecond
	}
	cfg.JudgeModel = testModels[1]
	h.Eng = build.New(cfg, build.Deps{
		DB:      db,
		Context: pc,
		Runner: build.RunnerFunc(func(ctx context.Context, req build.ExecRequest) (agents.Run, error) {
			spec, err := roster.Get(req.Agent)
			if err != nil {
				return agents.Run{}, err
			}
			var tier llm.Tier
			if req.Tier != "" {
				tier = llm.Tier(req.Tier)
			}
			autonomy := req.Autonomy
			return runner.Run(ctx, spec, req.Task, agents.RunOptions{ExtraContext: req.Extra, TaskID: req.TaskID, BuildID: req.BuildID,
				Tier: tier, Autonomy: &autonomy, Approve: req.Approve, Checks: req.Checks})
		}),
		Ping:        o.ping,
		Changes:     cs,
		Vault:       h.Vault,
		LLM:         client,
		KnownAgents: func() func(string) bool { return roster.Has },
		Hooks:       o.hooks,
		Publish: func(ev build.Event) {
			h.mu.Lock()
			h.Events = append(h.Events, ev)
			h.mu.Unlock()
			if o.onEvent != nil {
				o.onEvent(h, ev)
			}
		},
	})
	return h
}

func (h *Harness) events() []build.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]build.Event(nil), h.Events...)
}

// corpusDir walks up to go.mod, then ../shared/corpus/nova26; it skips the
// test when the corpus is absent.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test")
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "corpus", "nova26")
	if _, err := os.Stat(c); err != nil {
		t.Skip("corpus absent")
	}
	return c
}

func loadCorpus(t testing.TB, name string) *prd.PRD {
	t.Helper()
	p, err := prd.Load(filepath.Join(corpusDir(t), name))
	require.NoError(t, err)
	return p
}

// plan builds a PRD from "id:agent:phase:dep,dep" specs.
func plan(specs ...string) *prd.PRD {
	p := &prd.PRD{Meta: prd.Meta{Name: "test plan", Version: "1"}}
	for _, s := range specs {
		parts := strings.Split(s, ":")
		t := prd.Task{ID: parts[0], Title: "do " + parts[0], Description: "work for " + parts[0], Agent: parts[1], Status: prd.StatusPending, Dependencies: []string{}}
		if len(parts) > 2 && parts[2] != "" {
			t.Phase = int(parts[2][0] - '0')
		}
		if len(parts) > 3 && parts[3] != "" {
			t.Dependencies = strings.Split(parts[3], ",")
		}
		p.Tasks = append(p.Tasks, t)
	}
	return p
}

func intp(n int) *int { return &n }
