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
	"github.com/nova-dev/nova/engine/mcp"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/engine/secrets"
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

// Local is the in-process Workspace and the composition root: it builds
// the services of one open workspace (core) and embeds one small service
// value per area, each implementing that area's verbs (area_*.go). It
// declares no verb itself: a verb is added in its area's file.
type Local struct {
	*core
	workspaceArea
	dbArea
	vaultArea
	wisdomArea
	importArea
	agentArea
	changeArea
	buildArea
	goalArea
	boardArea
	playbookArea
	libraryArea
	rehearsalArea
	knowledgeArea
	chatArea
	teamArea
	mcpArea
	codeMapArea
}

// core holds the services of one open workspace, most of them built on
// first use; every area reaches them through its embedded *core.
type core struct {
	ws  *workspace.Workspace
	db  *storage.DB
	bus *events.Broker[Event]
	llm llm.Provider

	mu  sync.RWMutex
	cfg workspace.Config

	now      func() time.Time
	defaults fs.FS
	plans    planStore // scanned import plans (area_import.go)

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
	lib          libraryState   // skills, workflows, blueprints, built on first use (library.go)
	mc           mcpState       // MCP servers, started on first use (mcp.go)
	ch           chatState      // chat sessions, built on first use (area_chat.go)
	cmap         codeMapState   // repository map and language servers, built on first use (area_codemap.go)

	getenv func(string) string // the environment Open was given

	// runs holds the runs active in this process, of every kind (builds,
	// goal runs, workflow runs, chat turns): one registry (engine/run).
	runs *run.Registry

	tm teamState // team share over NATS JetStream (area_team.go)
}

// RunRegistry returns the registry of the runs active in this process.
func (l *core) RunRegistry() *run.Registry { return l.runs }

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
	client, err := NewLLMClient(ws.Config, opts.Getenv)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	l := &core{
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
	l.acs.logf = opts.Logf
	// The hooks of the build engine are all set before anything can build
	// it (it reads them once, when first used).
	l.initRehearsal()
	l.initACE()
	l.initKnowledge()
	l.initBoard()
	if !opts.ReadOnly {
		l.recoverApplies(ctx)
		l.interruptRuns(ctx, opts.Logf)
	}
	if !opts.ReadOnly {
		if err := l.startTeam(); err != nil {
			l.Publish(Event{Type: EventLog, Topic: TopicTeam, Text: "team: " + err.Error()})
		}
	}
	return newLocal(l), nil
}

// newLocal wires the areas over c: one line per area.
func newLocal(c *core) *Local {
	return &Local{
		core:          c,
		workspaceArea: workspaceArea{c},
		dbArea:        dbArea{c},
		vaultArea:     vaultArea{c},
		wisdomArea:    wisdomArea{c},
		importArea:    importArea{c},
		agentArea:     agentArea{c},
		changeArea:    changeArea{c},
		buildArea:     buildArea{c},
		goalArea:      goalArea{c},
		boardArea:     boardArea{c},
		playbookArea:  playbookArea{c},
		libraryArea:   libraryArea{c},
		rehearsalArea: rehearsalArea{c},
		knowledgeArea: knowledgeArea{c},
		chatArea:      chatArea{c},
		teamArea:      teamArea{c},
		mcpArea:       mcpArea{c},
		codeMapArea:   codeMapArea{c},
	}
}

// NewLLMClient builds the model provider from a config: without
// providers: the Ollama client of the ollama: section, exactly as before;
// with providers: a router over them (each a pool of its hosts), where
// models without a provider prefix go to the ollama: section's host (or to
// a provider named "ollama"). ${VAR} in apiKey is read with getenv (nil:
// os.Getenv).
func NewLLMClient(cfg workspace.Config, getenv func(string) string) (llm.Provider, error) {
	base := llmConfig(cfg)
	c, err := llm.New(base)
	if err != nil {
		return nil, fmt.Errorf("ollama host %q: %w", cfg.Ollama.Host, err)
	}
	if len(cfg.Providers) == 0 {
		return c, nil
	}
	getenv = Getenv(getenv)
	providers := map[string]llm.Provider{}
	if _, ok := cfg.Providers[workspace.ProviderOllama]; !ok {
		def, err := llm.NewPool(llm.PoolConfig{Name: workspace.ProviderOllama, Type: workspace.ProviderOllama}, c)
		if err != nil {
			return nil, err
		}
		providers[workspace.ProviderOllama] = def
	}
	for _, name := range cfg.ProviderNames() {
		pc := cfg.Providers[name]
		hc := base
		if pc.ContextSize > 0 {
			hc.NumCtx = pc.ContextSize
		}
		var hosts []llm.Provider
		for _, u := range pc.URLs() {
			switch pc.Type {
			case workspace.ProviderOpenAI:
				if pc.ContextSize == 0 {
					hc.NumCtx = 0 // the server's report, else nothing
				}
				h, err := llm.NewOpenAI(name, u, mcp.Expand(pc.APIKey, getenv), hc)
				if err != nil {
					return nil, fmt.Errorf("providers.%s: %w", name, err)
				}
				hosts = append(hosts, h)
			default:
				hc.Host = u
				h, err := llm.New(hc)
				if err != nil {
					return nil, fmt.Errorf("providers.%s: host %q: %w", name, u, err)
				}
				hosts = append(hosts, h)
			}
		}
		p, err := llm.NewPool(llm.PoolConfig{Name: name, Type: pc.Type, Slots: pc.Slots}, hosts...)
		if err != nil {
			return nil, fmt.Errorf("providers.%s: %w", name, err)
		}
		providers[name] = p
	}
	return llm.NewRouter(workspace.ProviderOllama, providers)
}

// llmConfig is the client config of the ollama: section.
func llmConfig(cfg workspace.Config) llm.Config {
	retries := cfg.Ollama.Retries
	if retries == 0 {
		retries = -1 // llm: 0 means its default, negative means none
	}
	idle := cfg.Ollama.IdleTimeout.D()
	if idle == 0 {
		idle = -1 // config 0 means none; llm: 0 means its default
	}
	return llm.Config{
		Host:         cfg.Ollama.Host,
		ChatTimeout:  cfg.Ollama.Timeout.D(),
		IdleTimeout:  idle,
		Retries:      retries,
		NumCtx:       cfg.Ollama.NumCtx,
		KeepAlive:    cfg.Ollama.KeepAlive.D(),
		ReplyReserve: cfg.Budgets.ReplyReserve,
		MaxReply:     cfg.Ollama.MaxReply,
	}
}

// The accessors below (DB, LLM, Dir, and the service accessors Vault,
// Builds, ACE, Changes, Runs, Importer, Rehearsals, Agents, Tools in the
// area files) are in-process wiring for the engine and its tests. They are
// not part of the Workspace facade: the TUI and the CLI never use them.

// DB exposes the database to engine sub-packages wired by the facade.
func (l *core) DB() *storage.DB { return l.db }

// LLM exposes the model client.
func (l *core) LLM() llm.Provider { return l.llm }

// Dir returns the workspace's .nova path.
func (l *core) Dir() string { return l.ws.Dir() }

// Subscribers is the number of live event subscriptions (in-process wiring
// and tests; not part of the Workspace facade).
func (l *core) Subscribers() int { return l.bus.Subscribers() }

// Publish sends an event to subscribers. Call it only after the state it
// describes is committed.
func (l *core) Publish(ev Event) {
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
	// Hosts are the hosts of the configured providers, each with its
	// models and load (empty without providers: in the config).
	Hosts []HostStatus `json:"hosts,omitempty"`
}

// HostStatus is one host of a configured provider: reachable, its models,
// the models it has loaded, and its load (llm.HostStatus).
type HostStatus = llm.HostStatus

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

// probeOllama probes the server; the error is the probe's failure (for
// Doctor's root cause), already described in the status.
func probeOllama(ctx context.Context, c llm.Provider, cfg workspace.Config) (OllamaStatus, error) {
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
