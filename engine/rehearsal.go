package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/rehearsal"
	"github.com/nova-dev/nova/engine/workspace"
)

// rehearsalState is the rehearsal service of a Local, built on first use.
type rehearsalState struct {
	once sync.Once
	svc  *rehearsal.Service
}

// initRehearsal wires the rehearsal hook into the build engine (called from
// Open; it does no I/O: the service is built on first use).
func (l *core) initRehearsal() {
	l.build.Rehearsal = &rehearsal.Hook{
		Service: l.Rehearsals,
		Log: func(s string) {
			l.Publish(Event{Type: EventLog, Topic: TopicRehearsal, Text: s})
		},
	}
}

// Rehearsals is the rehearsal service: run a rehearsal, list, get, approve
// (through the changeset store), reject, regenerate.
func (l *core) Rehearsals() *rehearsal.Service {
	l.rh.once.Do(func() {
		l.rh.svc = &rehearsal.Service{
			DB:          l.db,
			Root:        l.ws.Root,
			LLM:         l.llm,
			Changes:     l.Changes(),
			Vault:       l.Vault(),
			Config:      l.rehearsalConfig,
			Now:         l.now,
			CallTimeout: l.Config().Ollama.Timeout.D(),
			Playbook: func(ctx context.Context, agent, task string, budget int) (string, []string, error) {
				if h := l.build.Playbook; h.S != nil {
					return h.Context(ctx, agent, task, budget)
				}
				return "", nil, nil
			},
			Notify: func(s rehearsal.Session) {
				typ := EventChanged
				if s.Status == rehearsal.StatusPending {
					typ = EventNeedsApproval
				}
				l.Publish(Event{Type: typ, Topic: TopicRehearsal, TaskID: s.TaskID, BuildID: s.BuildID,
					Status: string(s.Status), Text: fmt.Sprintf("rehearsal %d %s", s.ID, s.Status)})
			},
		}
	})
	return l.rh.svc
}

// rehearsalConfig is the config rehearsals run with: when the large tier's
// provider has several hosts, rehearsal.concurrency is raised to their
// number (at most 3, the most branches), so the branches run on different
// hosts at once instead of queueing on one.
func (l *core) rehearsalConfig() workspace.Config {
	cfg := l.Config()
	r, ok := l.llm.(*llm.Router)
	if !ok {
		return cfg
	}
	p, _, _ := r.Resolve(cfg.Models.Large)
	if pool, ok := p.(*llm.Pool); ok {
		cfg.Rehearsal.Concurrency = min(3, max(cfg.Rehearsal.Concurrency, len(pool.Snapshot())))
	}
	return cfg
}
