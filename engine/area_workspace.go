package engine

import (
	"context"
	"fmt"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// WorkspaceVerbs are the verbs of the workspace itself: what it is, its configuration, its events, its counts, the model server.
type WorkspaceVerbs interface {
	// Info describes the workspace. It does no I/O (a remote implementation
	// fetches it once when it connects).
	//rpc:idempotent
	Info() Info
	// Config returns the effective configuration. It does no I/O; it
	// changes only through SetTheme (EventThemeChanged).
	//rpc:idempotent
	Config() workspace.Config
	// Subscribe streams every event published from now on until ctx is done.
	// Droppable events (deltas, progress) may be lost under load; all others
	// are always delivered.
	Subscribe(ctx context.Context) <-chan Event
	// Summary counts what the workspace holds (Home, `nova doctor`).
	//rpc:idempotent
	Summary(ctx context.Context) (Summary, error)
	// Ollama probes the model server once and checks the tier models. An
	// unreachable server is a status (Reachable false), not an error.
	//rpc:idempotent
	Ollama(ctx context.Context) (OllamaStatus, error)
	// SetTheme persists the theme name in config.yaml (EventThemeChanged).
	SetTheme(ctx context.Context, name string) error
	// Close releases the workspace (for a remote one: the connection).
	Close() error
}

// workspaceArea implements WorkspaceVerbs over the workspace's services.
type workspaceArea struct{ *core }

var _ WorkspaceVerbs = workspaceArea{}

// Info implements WorkspaceVerbs.
func (l workspaceArea) Info() Info {
	return Info{Root: l.ws.Root, Dir: l.ws.Dir(), DBPath: l.ws.DBPath(), ReadOnly: l.db.ReadOnly(), Overrides: l.ws.Overrides, ConfigSum: l.ws.ConfigSum}
}

// Config implements WorkspaceVerbs. It is a method of core, so every
// area reads the configuration the same way.
func (l *core) Config() workspace.Config {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.cfg
}

// Subscribe implements WorkspaceVerbs.
func (l workspaceArea) Subscribe(ctx context.Context) <-chan Event { return l.bus.Subscribe(ctx) }

// Close implements WorkspaceVerbs. Workflow runs, goal runs and builds still
// running in this process are interrupted first (resumable; bounded wait),
// so none is left "running".
func (l workspaceArea) Close() error {
	l.stopTeam()
	l.stopChats()
	l.stopWorkflowRuns()
	l.stopGoalRuns()
	l.stopBuilds()
	l.closeVault()
	l.closeMCP()
	l.closeCodeMap()
	l.bus.Shutdown()
	return l.db.Close()
}

// SetTheme implements WorkspaceVerbs.
func (l workspaceArea) SetTheme(ctx context.Context, name string) error {
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

// Ollama implements WorkspaceVerbs.
func (l workspaceArea) Ollama(ctx context.Context) (OllamaStatus, error) {
	if r, ok := l.llm.(*llm.Router); ok {
		_, hosts, st := providerChecks(ctx, r, l.Config())
		st.Hosts = hosts
		return st, nil
	}
	st, _ := probeOllama(ctx, l.llm, l.Config())
	return st, nil
}

// Summary implements WorkspaceVerbs.
func (l workspaceArea) Summary(ctx context.Context) (Summary, error) {
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
	if s.Builds, err = l.countPlanBuilds(ctx); err != nil {
		return s, err
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
