package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nova-dev/nova/engine/build"
)

// buildState is the build engine of a Local. Playbook, Rehearsal and
// Knowledge are set by initACE / initRehearsal (etc.) from Open; nil means
// the feature is off. The engine itself is built on first use.
type buildState struct {
	Playbook  build.PlaybookHook
	Rehearsal build.RehearsalHook
	Knowledge build.KnowledgeHook
	Board     build.BoardHook

	once  sync.Once
	eng   *build.Engine
	ready atomic.Pointer[build.Engine] // eng, once built (read by Close)

	policy sync.Map // build id (string) → ApprovalPolicy of its RunBuild
}

// Builds is the build engine: create, run, resume, pause, cancel, list and
// inspect builds of PRDs (engine/build).
func (l *Local) Builds() *build.Engine {
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
			VaultShare:     cfg.Budgets.VaultShare,
			PlaybookShare:  cfg.Budgets.PlaybookShare,
			KnowledgeShare: cfg.Budgets.KnowledgeShare,
			BuildTokens:    cfg.Budgets.BuildTokens,
			Inconclusive:   cfg.Verify.Inconclusive,
			WaitLimit:      cfg.Ollama.WaitLimit.D(),
			MaxEscalations: noneIfZero(cfg.Build.MaxEscalations),
			MaxLargeCalls:  noneIfZero(cfg.Build.MaxLargeCalls),
		}, build.Deps{
			DB:      l.db,
			Exec:    l.execBuildTask,
			Changes: l.Changes(),
			Vault:   l.Vault(),
			LLM:     l.llm,
			KnownAgents: func() func(string) bool {
				roster, _ := l.Agents()
				return roster.Has
			},
			Hooks: func() build.Hooks {
				return build.Hooks{CodeMap: codeMapHook{l: l}, Playbook: l.build.Playbook, Rehearsal: l.build.Rehearsal, Knowledge: l.build.Knowledge, Board: l.build.Board,
					Finished: blueprintHook{l: l}} // blueprint evidence (facade_library.go)
			},
			Publish: l.publishBuild,
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

func (l *Local) execBuildTask(ctx context.Context, req build.ExecRequest) (RunResult, error) {
	autonomy := req.Autonomy
	r := runRequest{RunOptions: RunOptions{Tier: req.Tier}, extra: req.Extra, taskID: req.TaskID, buildID: req.BuildID,
		approve: req.Approve, autonomy: &autonomy, board: req.Board, checks: req.Checks}
	if p, ok := l.build.policy.Load(req.BuildID); ok {
		r.Approvals = p.(ApprovalPolicy)
	}
	return l.runAgent(ctx, req.Agent, req.Task, r)
}

func (l *Local) publishBuild(ev build.Event) {
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
func (l *Local) stopBuilds() {
	eng := l.build.ready.Load()
	if eng == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = eng.Shutdown(ctx)
}

// runningBuilds counts builds running in this process (Summary). A build
// stored as running but not active here was interrupted (its process was
// killed): only one process can hold the workspace, so it is resumable, not
// running.
func (l *Local) runningBuilds(ctx context.Context) (int, error) {
	bs, err := l.Builds().List(ctx)
	if err != nil {
		return 0, fmt.Errorf("list builds: %w", err)
	}
	n := 0
	for _, b := range bs {
		if b.Active {
			n++
		}
	}
	return n, nil
}
