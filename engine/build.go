package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/promptctx"
	"github.com/nova-dev/nova/engine/run"
)

// buildState is the build engine of a Local. Playbook, Rehearsal,
// Knowledge and Board are set by initACE, initRehearsal, initKnowledge and
// initBoard from Open (before the engine is built); nil means the feature
// is off. The engine itself is built on first use.
type buildState struct {
	Playbook  ace.BuildHook // zero: playbooks off
	Rehearsal build.RehearsalHook
	Knowledge knowledgeSource
	Board     build.BoardHook

	once  sync.Once
	eng   *build.Engine
	ready atomic.Pointer[build.Engine] // eng, once built (read by Close)

	policy sync.Map // build id (string) → ApprovalPolicy of its RunBuild

	// ctxOnce makes ctxCache: each specialist's vault and playbook blocks,
	// kept between delegations while their sources are unchanged.
	ctxOnce  sync.Once
	ctxCache *promptctx.Cache
}

// Builds is the build engine: create, run, resume, pause, cancel, list and
// inspect builds of PRDs (engine/build).
func (l *core) Builds() *build.Engine {
	l.build.once.Do(func() {
		cfg := l.Config()
		l.build.eng = build.New(build.Config{
			Root:           l.ws.Root,
			OutputDir:      filepath.Join(l.Dir(), "output"),
			Tier:           cfg.Tier,
			Autonomy:       cfg.Autonomy,
			Parallelism:    cfg.Build.Parallelism,
			Checks:         cfg.Checks,
			CheckTimeout:   cfg.Commands.Timeout.D(),
			Judge:          cfg.Build.Judge,
			JudgeModel:     cfg.Models.Medium,
			PromptTokens:   cfg.Budgets.PromptTokens,
			BuildTokens:    cfg.Budgets.BuildTokens,
			Inconclusive:   cfg.Verify.Inconclusive,
			WaitLimit:      cfg.Ollama.WaitLimit.D(),
			MaxEscalations: noneIfZero(cfg.Build.MaxEscalations),
			MaxLargeCalls:  noneIfZero(cfg.Build.MaxLargeCalls),
		}, build.Deps{
			DB:      l.db,
			Runner:  taskRunner{l},
			Changes: l.Changes(),
			Context: l.PromptContext(),
			Vault:   l.Vault(),
			LLM:     l.llm,
			KnownAgents: func() func(string) bool {
				roster, _ := l.Agents()
				return roster.Has
			},
			Hooks: build.Hooks{CodeMap: codeMapHook{l: l}, Playbook: l.playbookHook(), Rehearsal: l.build.Rehearsal, Knowledge: l.knowledgeLearner(), Board: l.build.Board,
				Finished: blueprintHook{l: l}}, // blueprint evidence (library.go)
			Publish: l.publishBuild,
			Runs:    l.runs,
		})
		l.build.ready.Store(l.build.eng)
	})
	return l.build.eng
}

// noneIfZero maps a config cap of 0 (none) to build.Config's "none" (-1).
func noneIfZero(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// knowledgeSource is the knowledge layer as builds use it: the knowledge
// block of a prompt and the learning after each task and build.
type knowledgeSource interface {
	promptctx.KnowledgeSource
	build.KnowledgeLearner
}

// PromptContext is the prompt-context provider of every run (builds; chat
// turns): the taste vault with global wisdom, the agent's playbook and the
// knowledge layer, each within its budgets.* share of the prompt.
func (l *core) PromptContext() promptctx.Provider {
	cfg := l.Config()
	src := promptctx.Sources{Vault: l.Vault(), Cache: l.contextCache(), Shares: promptctx.Shares{
		Vault: cfg.Budgets.VaultShare, Playbook: cfg.Budgets.PlaybookShare, Knowledge: cfg.Budgets.KnowledgeShare}}
	if l.build.Playbook.S != nil {
		src.Playbook = l.build.Playbook
	}
	if l.build.Knowledge != nil {
		src.Knowledge = l.build.Knowledge
	}
	return src
}

// contextCache is the workspace's cache of specialist contexts
// (promptctx.Cache): an entry holds while contextRevision is unchanged.
func (l *core) contextCache() *promptctx.Cache {
	l.build.ctxOnce.Do(func() {
		l.build.ctxCache = promptctx.NewCache(0, l.contextRevision)
	})
	return l.build.ctxCache
}

// contextRevision names the state of what a request's vault and playbook
// blocks are drawn from: the vault's change counter, the tier's global
// wisdom (ids and status), and the agent's playbook rules with their
// confidence (counters change it without a version bump).
func (l *core) contextRevision(ctx context.Context, req promptctx.Request) (string, error) {
	v := l.Vault()
	rev, err := v.Revision(ctx)
	if err != nil {
		return "", err
	}
	h := fnv.New64a()
	if w := v.Wisdom(); w != nil {
		ps, err := w.ForTier(ctx, req.Tier)
		if err != nil {
			return "", err
		}
		for _, p := range ps {
			_, _ = fmt.Fprintf(h, "w%d:%s;", p.ID, p.Status)
		}
	}
	if sys := l.acs.sys; sys != nil && req.Agent != "" {
		pb, err := sys.Playbooks().GetPlaybook(ctx, req.Agent)
		if err != nil {
			return "", err
		}
		_, _ = fmt.Fprintf(h, "v%d;", pb.Version)
		for _, r := range pb.Rules {
			_, _ = fmt.Fprintf(h, "%s:%.4f:%d:%d;", r.ID, r.Confidence, r.SuccessCount, r.HarmfulCount)
		}
	}
	return fmt.Sprintf("%d/%x", rev, h.Sum64()), nil
}

// playbookHook is the playbook learner of builds (nil: playbooks off).
func (l *core) playbookHook() build.PlaybookHook {
	if l.build.Playbook.S == nil {
		return nil
	}
	return l.build.Playbook
}

// knowledgeLearner is the knowledge learner of builds (nil: off).
func (l *core) knowledgeLearner() build.KnowledgeLearner {
	if l.build.Knowledge == nil {
		return nil
	}
	return l.build.Knowledge
}

// taskRunner runs a build task's agent on the workspace's agent runtime
// (runtime.go), under the approval policy its RunBuild was given.
type taskRunner struct{ l *core }

// RunTask implements build.Runner.
func (r taskRunner) RunTask(ctx context.Context, req build.ExecRequest) (agents.Run, error) {
	autonomy := req.Autonomy
	rr := runRequest{RunOptions: RunOptions{Tier: req.Tier}, extra: r.l.withProjectRules(req.Extra), taskID: req.TaskID, buildID: req.BuildID,
		approve: req.Approve, autonomy: &autonomy, board: req.Board, checks: req.Checks, critical: req.Critical}
	if p, ok := r.l.build.policy.Load(req.BuildID); ok {
		rr.Approvals = p.(ApprovalPolicy)
	}
	return r.l.runAgent(ctx, req.Agent, req.Task, rr)
}

func (l *core) publishBuild(ev build.Event) {
	e := Event{Topic: TopicBuild, BuildID: strconv.FormatUint(ev.BuildID, 10), TaskID: ev.TaskID,
		Status: ev.Status, Text: ev.Text, Done: ev.Done, Total: ev.Total}
	switch ev.Kind {
	case build.KindTask:
		e.Type = EventTask
	case build.KindWaiting:
		e.Type = EventTaskWaiting
	case build.KindAsking:
		e.Type = EventTaskAsking
	case build.KindEscalated:
		e.Type = EventTaskEscalated
	case build.KindBudget:
		e.Type = EventBudgetWarning
	case build.KindDone:
		e.Type = EventDone
	case build.KindFailed:
		e.Type = EventFailed
	case build.KindChanged:
		e.Type = EventChanged
	default:
		e.Type = EventLog
	}
	l.Publish(e)
}

// stopBuilds interrupts the builds running in this process before the
// database closes (Close), waiting at most a few seconds.
func (l *core) stopBuilds() {
	eng := l.build.ready.Load()
	if eng == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = eng.Shutdown(ctx)
}

// runningBuilds counts builds running in this process (Summary), from the
// run registry. A build stored as running but not active here was
// interrupted (its process was killed): only one process can hold the
// workspace, so it is resumable, not running.
func (l *core) runningBuilds(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return len(l.runs.Running(run.KindBuild)), nil
}
