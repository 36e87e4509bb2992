// Package engine is nova's domain core and the one facade the TUI and the CLI
// use (Workspace). It never imports bubbletea, lipgloss, bubbles or glamour.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/events"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/engine/secrets"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// Info describes an open workspace.
type Info struct {
	// Root is the workspace root (the directory holding .nova/).
	Root string `json:"root"`
	// Dir is the workspace's .nova directory.
	Dir string `json:"dir"`
	// DBPath is the database file.
	DBPath   string `json:"dbPath"`
	ReadOnly bool   `json:"readOnly"`
	// Overrides are the config fields set by environment variables.
	Overrides []workspace.Override `json:"overrides"`
	// ConfigSum is the SHA-256 of the config.yaml this engine's settings
	// were parsed from (workspace.Workspace.ConfigSum; empty: defaults, or an
	// owner older than the field). A client whose file has the same sum needs
	// not parse it (cmd/nova settingsDiff).
	ConfigSum string `json:"configSum,omitempty"`
}

// Options configures Open.
type Options struct {
	// Root is the workspace root (the directory holding .nova/).
	Root string
	// ReadOnly opens the database with a shared lock and never writes.
	ReadOnly bool
	// Getenv reads environment overrides; nil means os.Getenv.
	Getenv func(string) string
	// LockTimeout overrides storage.DefaultLockTimeout.
	LockTimeout time.Duration
	// NoSync disables fsync (tests and benchmarks).
	NoSync bool
	// Now is the clock of stored timestamps (vault, changesets, imports);
	// nil means time.Now. Tests pin it for stable views.
	Now func() time.Time
	// Defaults is the file tree the binary carries (the root package's
	// Defaults): ImportStarterPatterns falls back to its .nova/patterns.
	Defaults fs.FS
	// Logf, when set, also receives the playbook system's diagnostics
	// (the CLI passes its stderr); everyone else reads EventLog events.
	Logf func(format string, a ...any)
}

// Local is the in-process Workspace.
type Local struct {
	ws  *workspace.Workspace
	db  *storage.DB
	bus *events.Broker[Event]
	llm *llm.Client

	mu  sync.RWMutex
	cfg workspace.Config

	now      func() time.Time
	defaults fs.FS
	plans    planStore // scanned import plans (facade_import.go)

	rt  runtimeState // agent runtime, built on first use (runtime.go)
	vs  vaultState   // taste vault, built on first use (vault.go)
	imp importState  // pattern importer, built on first use (importer.go)

	build buildState     // build engine and its hooks (build.go)
	bd    boardState     // session boards, built on first use (board.go)
	gl    goalState      // goal runs (`nova run`), built on first use (goal.go)
	rh    rehearsalState // rehearsal service, built on first use (rehearsal.go)
	acs   aceState       // ACE playbook system, built in Open (ace.go)

	recovered    []changes.Recovered // interrupted applies completed by Open (recover.go)
	recoverErr   error
	recoverMu    sync.Mutex
	recoverTaken bool           // TakeRecoveredApplies handed them out
	kn           knowledgeState // knowledge layer, built on first use (knowledge.go)
	lib          libraryState   // skills, workflows, blueprints, built on first use (facade_library.go)
	mc           mcpState       // MCP servers, started on first use (facade_mcp.go)
	codeMapArea                 // repository map and language servers, built on first use (area_codemap.go)

	getenv func(string) string // the environment Open was given

	// runs holds the runs active in this process, of every kind (builds,
	// goal runs, workflow runs, chat turns): one registry (engine/run).
	runs *run.Registry
}

// RunRegistry returns the registry of the runs active in this process.
func (l *Local) RunRegistry() *run.Registry { return l.runs }

var _ Workspace = (*Local)(nil)

// Open loads the workspace config and opens its database.
func Open(ctx context.Context, opts Options) (*Local, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ws, err := workspace.Load(opts.Root, opts.Getenv)
	if err != nil {
		return nil, err
	}
	db, err := storage.Open(ws.DBPath(), storage.Options{
		ReadOnly: opts.ReadOnly, LockTimeout: opts.LockTimeout, NoSync: opts.NoSync,
	})
	if err != nil {
		return nil, err
	}
	client, err := NewLLMClient(ws.Config)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	l := &Local{
		ws:       ws,
		db:       db,
		bus:      events.New(Event.Droppable, events.WithMaxBacklog(MaxEventBacklog, droppedEvent)),
		llm:      client,
		cfg:      ws.Config,
		now:      opts.Now,
		defaults: opts.Defaults,
		getenv:   Getenv(opts.Getenv),
		runs:     run.NewRegistry(),
	}
	if l.now == nil {
		l.now = time.Now
	}
	l.codeMapArea.l = l
	l.acs.logf = opts.Logf
	l.initRehearsal()
	l.initACE()
	if !opts.ReadOnly {
		l.recoverApplies(ctx)
	}
	l.initKnowledge()
	l.initBoard()
	return l, nil
}

// NewLLMClient builds the Ollama client from a config.
func NewLLMClient(cfg workspace.Config) (*llm.Client, error) {
	retries := cfg.Ollama.Retries
	if retries == 0 {
		retries = -1 // llm: 0 means its default, negative means none
	}
	idle := cfg.Ollama.IdleTimeout.D()
	if idle == 0 {
		idle = -1 // config 0 means none; llm: 0 means its default
	}
	c, err := llm.New(llm.Config{
		Host:         cfg.Ollama.Host,
		ChatTimeout:  cfg.Ollama.Timeout.D(),
		IdleTimeout:  idle,
		Retries:      retries,
		NumCtx:       cfg.Ollama.NumCtx,
		KeepAlive:    cfg.Ollama.KeepAlive.D(),
		ReplyReserve: cfg.Budgets.ReplyReserve,
		MaxReply:     cfg.Ollama.MaxReply,
	})
	if err != nil {
		return nil, fmt.Errorf("ollama host %q: %w", cfg.Ollama.Host, err)
	}
	return c, nil
}

// Info implements Workspace.
func (l *Local) Info() Info {
	return Info{Root: l.ws.Root, Dir: l.ws.Dir(), DBPath: l.ws.DBPath(), ReadOnly: l.db.ReadOnly(), Overrides: l.ws.Overrides, ConfigSum: l.ws.ConfigSum}
}

// Config implements Workspace.
func (l *Local) Config() workspace.Config {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.cfg
}

// The accessors below (DB, LLM, Dir, and the service accessors Vault,
// Builds, ACE, Changes, Runs, Importer, Rehearsals, Agents, Tools in the
// area files) are in-process wiring for the engine and its tests. They are
// not part of the Workspace facade: the TUI and the CLI never use them.

// DB exposes the database to engine sub-packages wired by the facade.
func (l *Local) DB() *storage.DB { return l.db }

// LLM exposes the model client.
func (l *Local) LLM() *llm.Client { return l.llm }

// Dir returns the workspace's .nova path.
func (l *Local) Dir() string { return l.ws.Dir() }

// Subscribe implements Workspace.
func (l *Local) Subscribe(ctx context.Context) <-chan Event { return l.bus.Subscribe(ctx) }

// Subscribers is the number of live event subscriptions (in-process wiring
// and tests; not part of the Workspace facade).
func (l *Local) Subscribers() int { return l.bus.Subscribers() }

// Publish sends an event to subscribers. Call it only after the state it
// describes is committed.
func (l *Local) Publish(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if ev.GoalRunID == "" && ev.BuildID != "" {
		// The events of a goal run's build and of its agents carry the run.
		ev.GoalRunID = l.goalRunOf(ev.BuildID)
	}
	l.bus.Publish(RedactEvent(ev))
}

// RedactEvent returns ev with the secrets in its free text redacted
// (secrets.Redact): every event leaves the process (`--json`, the TUI, the
// event stream of a remote workspace) and carries what models wrote (the
// lead's reasoning, an agent's reply, a tool's first output line). ev is
// not modified (its agent event is copied). A secret split between two
// streamed deltas is not found; the stored run and traces are redacted
// whole.
func RedactEvent(ev Event) Event {
	ev.Text = secrets.Redact(ev.Text)
	if ev.Agent != nil {
		a := *ev.Agent
		a.Text = secrets.Redact(a.Text)
		a.Args = secrets.Redact(a.Args)
		if a.Run != nil {
			r := *a.Run
			r.Task = secrets.Redact(r.Task)
			a.Run = &r
		}
		ev.Agent = &a
	}
	return ev
}

// Close implements Workspace. Workflow runs, goal runs and builds still
// running in this process are interrupted first (resumable; bounded wait),
// so none is left "running".
func (l *Local) Close() error {
	l.stopWorkflowRuns()
	l.stopGoalRuns()
	l.stopBuilds()
	l.closeVault()
	l.closeMCP()
	l.closeCodeMap()
	l.bus.Shutdown()
	return l.db.Close()
}

// SetTheme implements Workspace.
func (l *Local) SetTheme(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.db.ReadOnly() {
		return storage.ErrReadOnly
	}
	if err := workspace.SetConfigValue(l.ws.ConfigPath(), "theme", name); err != nil {
		return fmt.Errorf("save theme: %w", err)
	}
	l.mu.Lock()
	l.cfg.Theme = name
	l.mu.Unlock()
	l.Publish(Event{Type: EventThemeChanged, Topic: TopicWorkspace, Text: name})
	return nil
}

// OllamaStatus is the model server's state with the tier models checked
// (llm.Probe's fields, without its error value: Error says what failed).
type OllamaStatus struct {
	Host      string      `json:"host"`
	Reachable bool        `json:"reachable"`
	Version   string      `json:"version,omitempty"`
	Models    []llm.Model `json:"models"`
	// LatencyMs is how long the version request took, in milliseconds.
	LatencyMs float64 `json:"latencyMs"`
	Error     string  `json:"error,omitempty"`
	// Tiers maps tier name to model name and whether it is installed.
	Tiers []TierModel `json:"tiers"`
}

// HasModel reports whether name is installed ("llama3.2" matches
// "llama3.2:latest").
func (s OllamaStatus) HasModel(name string) bool {
	for _, m := range s.Models {
		if llm.SameModel(m.Name, name) {
			return true
		}
	}
	return false
}

// TierModel is one configured tier model.
type TierModel struct {
	Tier      string `json:"tier"`
	Model     string `json:"model"`
	Installed bool   `json:"installed"`
	Optional  bool   `json:"optional"`
}

// Ollama implements Workspace.
func (l *Local) Ollama(ctx context.Context) (OllamaStatus, error) {
	st, _ := probeOllama(ctx, l.llm, l.Config())
	return st, nil
}

// probeOllama probes the server; the error is the probe's failure (for
// Doctor's root cause), already described in the status.
func probeOllama(ctx context.Context, c *llm.Client, cfg workspace.Config) (OllamaStatus, error) {
	p := c.Probe(ctx)
	st := OllamaStatus{Host: p.Host, Reachable: p.Reachable, Version: p.Version, Models: p.Models, LatencyMs: float64(p.Latency.Microseconds()) / 1000, Error: p.Error}
	for _, tm := range []TierModel{
		{Tier: "small", Model: cfg.Models.Small},
		{Tier: "medium", Model: cfg.Models.Medium},
		{Tier: "large", Model: cfg.Models.Large},
		{Tier: "embed", Model: cfg.Models.Embed, Optional: true},
	} {
		if tm.Model == "" {
			continue
		}
		tm.Installed = p.HasModel(tm.Model)
		st.Tiers = append(st.Tiers, tm)
	}
	return st, p.Err
}

// Summary counts the workspace's contents for Home and `nova doctor`.
type Summary struct {
	Root             string `json:"root"`
	Tier             string `json:"tier"`
	Autonomy         int    `json:"autonomy"`
	Theme            string `json:"theme"`
	SchemaVersion    int    `json:"schemaVersion"`
	VaultNodes       int    `json:"vaultNodes"`
	VaultEdges       int    `json:"vaultEdges"`
	Playbooks        int    `json:"playbooks"`
	Builds           int    `json:"builds"`
	RunningBuilds    int    `json:"runningBuilds"`
	PendingApprovals int    `json:"pendingApprovals"`
	PendingDeltas    int    `json:"pendingDeltas"` // playbook deltas waiting (part of PendingApprovals)
	Imports          int    `json:"imports"`
	Rehearsals       int    `json:"rehearsals"`
	// Facts counts the valid facts (workspace and user-level; archived and
	// closed ones are not counted); FactsReview those flagged for review.
	Facts       int `json:"facts"`
	FactsReview int `json:"factsReview"`
	// Docs counts the cached documentation entries (local and Context7).
	Docs int `json:"docs"`
	// WorkflowRuns counts the workflow runs; WorkflowRunsWaiting those
	// that wait to be resumed (paused, or interrupted). Blueprints counts
	// the stored blueprints.
	WorkflowRuns        int `json:"workflowRuns"`
	WorkflowRunsWaiting int `json:"workflowRunsWaiting"`
	Blueprints          int `json:"blueprints"`
}

// Summary implements Workspace.
func (l *Local) Summary(ctx context.Context) (Summary, error) {
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	cfg := l.Config()
	s := Summary{Root: l.ws.Root, Tier: cfg.Tier, Autonomy: cfg.Autonomy, Theme: cfg.Theme}
	v, err := l.db.SchemaVersion()
	if err != nil {
		return s, err
	}
	s.SchemaVersion = v
	if s.VaultNodes, s.VaultEdges, err = vault.NodeCounts(l.db); err != nil {
		return s, fmt.Errorf("count vault nodes: %w", err)
	}
	counts := []struct {
		bucket []byte
		dst    *int
	}{
		{storage.BucketPlaybooks, &s.Playbooks},
		{storage.BucketBuilds, &s.Builds},
		{storage.BucketImports, &s.Imports},
		{storage.BucketRehearsals, &s.Rehearsals},
	}
	for _, c := range counts {
		n, err := l.db.Count(c.bucket)
		if err != nil {
			return s, fmt.Errorf("count %s: %w", c.bucket, err)
		}
		*c.dst = n
	}
	pending, err := l.pendingApprovals(ctx)
	if err != nil {
		return s, err
	}
	s.PendingDeltas = l.pendingPlaybookDeltas(ctx)
	s.PendingApprovals += pending + s.PendingDeltas
	if running, err := l.runningBuilds(ctx); err == nil {
		s.RunningBuilds = running
	}
	if waiting, err := l.Rehearsals().CountPending(ctx); err == nil {
		s.PendingApprovals += waiting
	}
	// A user-level facts file that is locked or damaged only leaves its
	// own facts out of the count (the Knowledge screen says why).
	fc, _, err := l.Knowledge().Facts().Counts(ctx)
	if err != nil {
		return s, fmt.Errorf("count facts: %w", err)
	}
	s.Facts, s.FactsReview = fc.Valid, fc.Review
	if s.Docs, err = l.Knowledge().Docs().Cache().Count(ctx); err != nil {
		return s, err
	}
	if s.WorkflowRuns, s.WorkflowRunsWaiting, s.Blueprints, err = l.libraryCounts(ctx); err != nil {
		return s, err
	}
	return s, nil
}

// IsCanceled reports whether err is a cancellation, which is not a failure.
func IsCanceled(err error) bool {
	return errors.Is(err, context.Canceled)
}

// Getenv returns os.Getenv when fn is nil.
func Getenv(fn func(string) string) func(string) string {
	if fn == nil {
		return os.Getenv
	}
	return fn
}
