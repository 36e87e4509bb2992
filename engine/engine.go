// Package engine is nova's domain core and the one facade the TUI and the CLI
// use (Workspace). It never imports bubbletea, lipgloss, bubbles or glamour.
package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/events"
	"github.com/nova-dev/nova/engine/importer"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// Workspace is the facade over one open workspace. The TUI and the CLI talk
// to the engine only through it.
type Workspace interface {
	// Info describes the workspace (cheap, no I/O).
	Info() Info
	// Config returns the effective configuration.
	Config() workspace.Config
	// Subscribe streams events until ctx is done.
	Subscribe(ctx context.Context) <-chan Event
	// Summary counts what the workspace holds.
	Summary(ctx context.Context) (Summary, error)
	// Ollama probes the model server once.
	Ollama(ctx context.Context) OllamaStatus
	// SetTheme persists the theme name in config.yaml.
	SetTheme(ctx context.Context, name string) error
	// Agents loads the roster from .nova/agents; problems with files are
	// returned beside the agents that loaded.
	Agents() (*agents.Roster, []error)
	// Changes is the changeset store (list, get, apply, discard).
	Changes() *changes.Store
	// Runs is the store of agent runs and their tool traces.
	Runs() *agents.RunStore
	// RunAgent runs one task through an agent; progress is published with
	// Topic "agent" (see runtime.go).
	RunAgent(ctx context.Context, agentID, task string, opts RunOptions) (RunResult, error)
	// RunEvents replays the recent events of a run started by this process.
	RunEvents(runID uint64) []agents.Event
	// AnswerApproval answers an EventNeedsApproval request by its id.
	AnswerApproval(id string, approve bool) error
	// Vault is the taste vault (graph memory, retrieval, learning); built on
	// first use, cheap to call (engine/vault.go).
	Vault() *vault.Vault
	// Wisdom is the global-wisdom pipeline of the vault.
	Wisdom() *vault.Wisdom
	// Importer imports pattern libraries into the vault in undoable batches
	// (engine/importer.go).
	Importer() *importer.Importer
	// Rehearsals is the rehearsal service (sessions of alternative
	// branches: run, list, approve, reject, regenerate; engine/rehearsal.go).
	Rehearsals() *rehearsal.Service
	// Builds is the build engine (the Ralph loop over a PRD): list, get,
	// tasks by phase, create/run/resume (Go), pause, cancel (engine/build.go).
	Builds() *build.Engine
	// Plans lists the build plans in .nova/prds/, parsed and validated
	// against the roster.
	Plans(ctx context.Context) ([]build.PlanFile, error)
	// StartBuild loads, validates and starts a PRD in the background.
	StartBuild(ctx context.Context, prdPath string, opts build.Options) (build.Build, error)
	// ResumeBuild continues a paused, canceled, failed or crashed build in
	// the background (done tasks are not re-run).
	ResumeBuild(ctx context.Context, id uint64, approve tools.ApproveFunc) error
	// ACE is the playbook system: per-agent playbooks (rules, versions and
	// their history, pending deltas), generator, reflector, curator,
	// self-improvement profiles (engine/ace.go).
	ACE() *ace.System
	// RecordUserSignal learns from a user approving or rejecting an agent's
	// change, with an optional reason, at every autonomy level.
	RecordUserSignal(ctx context.Context, agent, taskType string, approved bool, reason string) (ace.SignalReport, error)
	// ApplyChange and DiscardChange apply or discard a changeset as a user's
	// decision, which the agent's playbook (and, with a reason, the vault)
	// learns from; Changes().Apply/Discard do not (engine/ace.go).
	ApplyChange(ctx context.Context, id uint64, opts changes.ApplyOptions, reason string) (changes.ApplyReport, error)
	DiscardChange(ctx context.Context, id uint64, reason string) (changes.Changeset, error)
	// StarterPatternsDir is the workspace's shipped pattern library,
	// .nova/patterns (the import wizard's default source).
	StarterPatternsDir() string
	// Close releases the database.
	Close() error
}

// Info describes an open workspace.
type Info struct {
	Root      string               `json:"root"`
	DBPath    string               `json:"dbPath"`
	ReadOnly  bool                 `json:"readOnly"`
	Overrides []workspace.Override `json:"overrides"`
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
}

// Local is the in-process Workspace.
type Local struct {
	ws  *workspace.Workspace
	db  *storage.DB
	bus *events.Broker[Event]
	llm *llm.Client

	mu  sync.RWMutex
	cfg workspace.Config

	rt  runtimeState // agent runtime, built on first use (runtime.go)
	vs  vaultState   // taste vault, built on first use (vault.go)
	imp importState  // pattern importer, built on first use (importer.go)

	build buildState     // build engine and its hooks (build.go)
	rh    rehearsalState // rehearsal service, built on first use (rehearsal.go)
	acs   aceState       // ACE playbook system, built in Open (ace.go)
	lib   libraryState   // skills, workflows, blueprints, built on first use (library.go)
}

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
		ws:  ws,
		db:  db,
		bus: events.New(Event.Droppable),
		llm: client,
		cfg: ws.Config,
	}
	l.initRehearsal()
	l.initACE()
	return l, nil
}

// NewLLMClient builds the Ollama client from a config.
func NewLLMClient(cfg workspace.Config) (*llm.Client, error) {
	retries := cfg.Ollama.Retries
	if retries == 0 {
		retries = -1 // llm: 0 means its default, negative means none
	}
	c, err := llm.New(llm.Config{
		Host:        cfg.Ollama.Host,
		ChatTimeout: cfg.Ollama.Timeout.D(),
		Retries:     retries,
		NumCtx:      cfg.Ollama.NumCtx,
		KeepAlive:   cfg.Ollama.KeepAlive.D(),
	})
	if err != nil {
		return nil, fmt.Errorf("ollama host %q: %w", cfg.Ollama.Host, err)
	}
	return c, nil
}

// Info implements Workspace.
func (l *Local) Info() Info {
	return Info{Root: l.ws.Root, DBPath: l.ws.DBPath(), ReadOnly: l.db.ReadOnly(), Overrides: l.ws.Overrides}
}

// Config implements Workspace.
func (l *Local) Config() workspace.Config {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.cfg
}

// DB exposes the database to engine sub-packages wired by the facade.
func (l *Local) DB() *storage.DB { return l.db }

// LLM exposes the model client.
func (l *Local) LLM() *llm.Client { return l.llm }

// Dir returns the workspace's .nova path.
func (l *Local) Dir() string { return l.ws.Dir() }

// Subscribe implements Workspace.
func (l *Local) Subscribe(ctx context.Context) <-chan Event { return l.bus.Subscribe(ctx) }

// Publish sends an event to subscribers. Call it only after the state it
// describes is committed.
func (l *Local) Publish(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	l.bus.Publish(ev)
}

// Close implements Workspace.
func (l *Local) Close() error {
	l.closeVault()
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
	l.Publish(Event{Type: EventThemeChanged, Text: name})
	return nil
}

// OllamaStatus is the model server's state with the tier models checked.
type OllamaStatus struct {
	llm.Probe
	// Tiers maps tier name to model name and whether it is installed.
	Tiers []TierModel `json:"tiers"`
}

// TierModel is one configured tier model.
type TierModel struct {
	Tier      string `json:"tier"`
	Model     string `json:"model"`
	Installed bool   `json:"installed"`
	Optional  bool   `json:"optional"`
}

// Ollama implements Workspace.
func (l *Local) Ollama(ctx context.Context) OllamaStatus {
	return probeOllama(ctx, l.llm, l.Config())
}

func probeOllama(ctx context.Context, c *llm.Client, cfg workspace.Config) OllamaStatus {
	p := c.Probe(ctx)
	st := OllamaStatus{Probe: p}
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
	return st
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
	Imports          int    `json:"imports"`
	Rehearsals       int    `json:"rehearsals"`
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
	counts := []struct {
		bucket []byte
		dst    *int
	}{
		{storage.BucketVaultNodes, &s.VaultNodes},
		{storage.BucketVaultEdges, &s.VaultEdges},
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
	s.PendingApprovals += pending + l.pendingPlaybookDeltas(ctx)
	if running, err := l.runningBuilds(ctx); err == nil {
		s.RunningBuilds = running
	}
	if waiting, err := l.Rehearsals().CountPending(ctx); err == nil {
		s.PendingApprovals += waiting
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
