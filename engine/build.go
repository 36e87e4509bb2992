package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/tools"
)

// TopicBuild is the Topic of build events: EventTask for each task
// transition (BuildID, TaskID, Status; Payload a build.Task), EventDone /
// EventFailed when a build ends, EventChanged when it is created, paused,
// canceled or resumed, EventLog for notes (Payload a build.Build otherwise).
// A task's live stream is the Topic "agent" events carrying the same BuildID
// and TaskID. Every event is published after its state is committed.
const TopicBuild = "build"

// buildState is the build engine of a Local. Playbook, Rehearsal and
// Knowledge are set by initACE / initRehearsal (etc.) from Open; nil means
// the feature is off. The engine itself is built on first use.
type buildState struct {
	Playbook  build.PlaybookHook
	Rehearsal build.RehearsalHook
	Knowledge build.KnowledgeHook

	once sync.Once
	eng  *build.Engine
}

// Builds is the build engine: create, run, resume, pause, cancel, list and
// inspect builds of PRDs (engine/build).
func (l *Local) Builds() *build.Engine {
	l.build.once.Do(func() {
		cfg := l.Config()
		l.build.eng = build.New(build.Config{
			Root:          l.ws.Root,
			OutputDir:     filepath.Join(l.Dir(), "output"),
			Tier:          cfg.Tier,
			Autonomy:      cfg.Autonomy,
			Parallelism:   cfg.Build.Parallelism,
			Checks:        cfg.Checks,
			CheckTimeout:  cfg.Commands.Timeout.D(),
			Judge:         cfg.Build.Judge,
			JudgeModel:    cfg.Models.Medium,
			PromptTokens:  cfg.Budgets.PromptTokens,
			VaultShare:    cfg.Budgets.VaultShare,
			PlaybookShare: cfg.Budgets.PlaybookShare,
			BuildTokens:   cfg.Budgets.BuildTokens,
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
				return build.Hooks{Playbook: l.build.Playbook, Rehearsal: l.build.Rehearsal, Knowledge: l.build.Knowledge,
					Finished: blueprintHook{l: l}} // blueprint evidence (library.go)
			},
			Publish: l.publishBuild,
		})
	})
	return l.build.eng
}

func (l *Local) execBuildTask(ctx context.Context, req build.ExecRequest) (RunResult, error) {
	return l.RunAgent(ctx, req.Agent, req.Task, RunOptions{ExtraContext: req.Extra,
		TaskID: req.TaskID, BuildID: req.BuildID, Approve: req.Approve})
}

func (l *Local) publishBuild(ev build.Event) {
	e := Event{Topic: TopicBuild, BuildID: strconv.FormatUint(ev.BuildID, 10), TaskID: ev.TaskID,
		Status: ev.Status, Text: ev.Text, Done: ev.Done, Total: ev.Total, Payload: ev.Payload}
	switch ev.Kind {
	case build.KindTask:
		e.Type = EventTask
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

// StartBuild loads, validates and starts a PRD in the background (the TUI's
// path); follow it with Subscribe (Topic "build"), stop it with
// Builds().Pause / Cancel, continue it with ResumeBuild.
func (l *Local) StartBuild(ctx context.Context, prdPath string, opts build.Options) (build.Build, error) {
	p, err := prd.Load(prdPath)
	if err != nil {
		return build.Build{}, err
	}
	eng := l.Builds()
	b, err := eng.Create(ctx, p, prdPath, opts)
	if err != nil {
		return b, err
	}
	return b, eng.Go(b.ID, opts.Approve)
}

// Plans implements Workspace: the plans in .nova/prds/, each parsed and
// validated against the roster (any agent is accepted when it is unreadable).
func (l *Local) Plans(ctx context.Context) ([]build.PlanFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var known func(string) bool
	if roster, _ := l.Agents(); roster != nil {
		known = roster.Has
	}
	return build.ListPlans(l.ws.Path("prds"), known)
}

// ResumeBuild continues a build in the background.
func (l *Local) ResumeBuild(_ context.Context, id uint64, approve tools.ApproveFunc) error {
	return l.Builds().Go(id, approve)
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
		if b.Status == build.StatusRunning && b.Active {
			n++
		}
	}
	return n, nil
}
