package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/knowledge"
	"github.com/nova-dev/nova/engine/knowledge/docs"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/tools"
)

// knowledgeState is the knowledge layer of a Local, built on first use.
type knowledgeState struct {
	once sync.Once
	svc  *knowledge.Service
}

// initKnowledge hands the build engine its knowledge hook (no I/O; the
// service is built when a build first asks). budgets.knowledgeShare 0
// turns build knowledge off. Called from Open.
func (l *core) initKnowledge() {
	if l.Config().Budgets.KnowledgeShare > 0 {
		l.build.Knowledge = knowledgeHook{l}
	}
}

// Knowledge is the knowledge layer: one search over the vault, facts and
// docs (Search), the facts service (Facts()), the docs fetcher (Docs()),
// the agent tools and the build hook (engine/knowledge).
func (l *core) Knowledge() *knowledge.Service {
	l.kn.once.Do(func() {
		cfg := l.Config()
		fs := facts.New(facts.Options{
			DB: l.db, UserPath: facts.UserPath(l.getenv), Root: l.ws.Root, Author: cfg.UserID, Now: l.now,
		})
		l.attachTeamFacts(fs)
		fetcher := docs.New(l.db, docs.Options{
			Root: l.ws.Root, Getenv: l.getenv,
			BaseURL: cfg.Docs.Context7.URL, APIKey: cfg.Docs.Context7.APIKey,
			TTL: cfg.Docs.TTL.D(), MaxTokens: cfg.Docs.MaxTokens, UserAgent: "nova", Now: l.now,
		})
		l.kn.svc = knowledge.New(knowledge.Options{
			Vault:      func() knowledge.VaultSearcher { return l.Vault() },
			Facts:      fs,
			Docs:       fetcher,
			LLM:        l.llm,
			SmallModel: cfg.Models.Small,
			Logf: func(format string, a ...any) {
				l.Publish(Event{Type: EventLog, Topic: TopicKnowledge, Text: fmt.Sprintf(format, a...)})
			},
			OnChange:     l.knowledgeChanged,
			Dependencies: l.projectStack().Dependencies,
			Foreign:      l.projectStack().Foreign,
		})
	})
	return l.kn.svc
}

// knowledgeChanged publishes a committed knowledge write ("facts", "docs").
func (l *core) knowledgeChanged(what string) {
	l.Publish(Event{Type: EventChanged, Topic: TopicKnowledge, Text: what})
}

// registerKnowledgeTools adds fetchDocs, queryKnowledge, recall, remember
// and correct to the agents' tool registry (runtime.go).
func (l *core) registerKnowledgeTools(reg *tools.Registry) {
	if err := l.Knowledge().Register(reg); err != nil {
		l.Publish(Event{Type: EventLog, Topic: TopicKnowledge, Text: "knowledge tools: " + err.Error()})
	}
}

// knowledgeHook builds the knowledge service only when a build first uses it.
type knowledgeHook struct{ l *core }

func (h knowledgeHook) Hits(ctx context.Context, q build.KnowledgeQuery, budget int) (string, []string, error) {
	return h.l.Knowledge().Hits(ctx, q, budget)
}

func (h knowledgeHook) KnowledgeAfterTask(ctx context.Context, o build.KnowledgeOutcome) error {
	return h.l.Knowledge().KnowledgeAfterTask(ctx, o)
}

func (h knowledgeHook) KnowledgeAfterBuild(ctx context.Context, b build.Build, tasks []build.Task) error {
	return h.l.Knowledge().KnowledgeAfterBuild(ctx, b, tasks)
}
