package build

import (
	"context"
	"errors"

	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/promptctx"
)

// KnowledgeQuery is what the knowledge source of a task's prompt is asked
// (promptctx.KnowledgeSource; the prompt-context provider builds it).
type KnowledgeQuery = promptctx.KnowledgeQuery

// KnowledgeLearner is implemented by engine/knowledge: it hears how each
// attempt that used knowledge (Task.KnowledgeIDs, from the prompt-context
// provider) went, and when a build finishes. A nil KnowledgeLearner learns
// nothing.
type KnowledgeLearner interface {
	// KnowledgeAfterTask credits the knowledge an attempt used.
	KnowledgeAfterTask(ctx context.Context, o KnowledgeOutcome) error
	// KnowledgeAfterBuild runs when a build ends done or failed (it
	// extracts facts from the results).
	KnowledgeAfterBuild(ctx context.Context, b Build, tasks []Task) error
}

// KnowledgeOutcome is one attempt's outcome for the knowledge it used.
type KnowledgeOutcome struct {
	BuildID string   `json:"buildId"`
	TaskID  string   `json:"taskId"`
	Agent   string   `json:"agent"`
	IDs     []string `json:"ids"`
	Passed  bool     `json:"passed"`
	// Kind is the failure's kind when the attempt failed; only a
	// learnable kind (failure.WorkFailed) counts against the knowledge.
	Kind failure.Kind `json:"kind,omitempty"`
}

// knowledgeAfterTask tells the hook how an attempt went (it used the
// injected knowledge, and maybe facts its agent looked up itself). kind is
// the attempt's failure kind as the build classified it (engine/failure):
// only a learnable kind (a gate or verdict failed) counts against the
// knowledge; infrastructure failures never do. Attempts that waited for the
// model server or were interrupted never reach here.
func (e *Engine) knowledgeAfterTask(ctx context.Context, hooks Hooks, t Task, passed bool, kind failure.Kind) {
	kl := hooks.Knowledge
	if kl == nil {
		return
	}
	o := KnowledgeOutcome{BuildID: idString(t.BuildID), TaskID: t.ID, Agent: t.Agent, IDs: t.KnowledgeIDs, Passed: passed}
	if !passed {
		o.Kind = cmpKind(kind, failure.Unknown)
	}
	if err := kl.KnowledgeAfterTask(ctx, o); err != nil && !errors.Is(err, context.Canceled) {
		e.logf(t.BuildID, t.ID, "knowledge: %v", err)
	}
}

// learnAfter runs knowledgeAfterBuild for a build that has ended, as a
// learner Shutdown can stop.
func (e *Engine) learnAfter(ctx context.Context, b Build) {
	if e.d.Hooks.Knowledge == nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	l := &learner{cancel: cancel, done: make(chan struct{})}
	e.mu.Lock()
	e.learning[b.ID] = l
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		if e.learning[b.ID] == l {
			delete(e.learning, b.ID)
		}
		e.mu.Unlock()
		cancel()
		close(l.done)
	}()
	e.knowledgeAfterBuild(ctx, b)
}

// LearnLed lets the knowledge hook learn from a goal run's led build once
// the run has ended (a led build ends after every delegation, so Run leaves
// its learning to the goal run). It returns when the learning is done; a
// build that is not led, or still runs, is left alone.
func (e *Engine) LearnLed(ctx context.Context, id uint64) {
	if e.isActive(id) {
		return
	}
	b, err := e.store.Get(ctx, id)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			e.logf(id, "", "knowledge: %v", err)
		}
		return
	}
	if b.Led {
		e.learnAfter(ctx, b)
	}
}

// knowledgeAfterBuild lets the hook learn from a finished build.
func (e *Engine) knowledgeAfterBuild(ctx context.Context, b Build) {
	kl := e.d.Hooks.Knowledge
	if kl == nil || (b.Status != StatusDone && b.Status != StatusFailed) || ctx.Err() != nil {
		return
	}
	tasks, err := e.store.Tasks(ctx, b.ID)
	if err != nil {
		e.logf(b.ID, "", "knowledge: %v", err)
		return
	}
	if err := kl.KnowledgeAfterBuild(ctx, b, tasks); err != nil && !errors.Is(err, context.Canceled) {
		e.logf(b.ID, "", "knowledge: %v", err)
	}
}
