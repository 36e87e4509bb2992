package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/changes"
)

// aceState holds the ACE playbook system of a Local.
type aceState struct {
	sys *ace.System

	mu   sync.Mutex
	logf func(string, ...any) // extra diagnostics sink (the CLI's stderr)

	deciding sync.Map // changeset id → true while ApplyChange/DiscardChange runs
}

// initACE builds the playbook system (no I/O) and hands its hook to the
// build engine. Called from Open.
func (l *core) initACE() {
	cfg := l.Config()
	l.acs.sys = ace.New(l.db, ace.Options{
		LLM:        l.llm,
		SmallModel: cfg.Models.Small,
		Autonomy:   func() int { return l.Config().Autonomy },
		Vault: func() ace.VaultAPI {
			if l.db.ReadOnly() {
				return nil
			}
			return l.Vault()
		},
		Logf: l.aceLog,
		OnChange: func(op, agent string) {
			l.Publish(Event{Type: EventChanged, Topic: TopicPlaybooks, Text: op, Status: agent})
		},
	})
	l.build.Playbook = ace.NewBuildHook(l.acs.sys)
}

func (l *core) aceLog(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	l.Publish(Event{Type: EventLog, Topic: TopicPlaybooks, Text: msg})
	l.acs.mu.Lock()
	fn := l.acs.logf
	l.acs.mu.Unlock()
	if fn != nil {
		fn("%s\n", msg)
	}
}

// SetACELog adds a sink for the playbook system's diagnostics (the CLI
// passes its stderr; the TUI reads EventLog events instead).
func (l *core) SetACELog(fn func(format string, a ...any)) {
	l.acs.mu.Lock()
	l.acs.logf = fn
	l.acs.mu.Unlock()
}

// ACE is the playbook system: playbooks (rules, history, pending queue)
// through ACE().Playbooks(), the generator (Context), reflector and
// curator (AfterTask, Reflect), self-improvement (Profile, RunReview) and
// user signals.
func (l *core) ACE() *ace.System { return l.acs.sys }

// pendingPlaybookDeltas counts the deltas waiting for review
// (Summary.PendingApprovals).
func (l *core) pendingPlaybookDeltas(ctx context.Context) int {
	n, err := l.acs.sys.Playbooks().CountPending(ctx)
	if err != nil {
		return 0
	}
	return n
}

// changeSignal learns from a changeset applied or discarded outside the
// build engine and rehearsal: one staged by a single agent run (`nova agent
// run`, the TUI's agent view), which nothing but a user applies or discards.
// Changesets of build tasks and rehearsal branches are applied and discarded
// automatically too (failed attempts, autonomy ≥ 3, losing branches), so a
// store notice cannot tell a user's decision from the engine's: for those
// the user paths call ApplyChange / DiscardChange, which record the signal
// explicitly (with the user's reason).
func (l *core) changeSignal(n changes.Notice) {
	if l.acs.sys == nil || (n.Action != "applied" && n.Action != "discarded") {
		return
	}
	if _, explicit := l.acs.deciding.Load(n.ID); explicit {
		return // ApplyChange / DiscardChange records it
	}
	approved := n.Action == "applied"
	if approved && n.Status != changes.StatusApplied {
		return // partly applied: the rest may still be discarded
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, err := l.Changes().Get(ctx, n.ID)
	if err != nil || cs.Agent == "" || cs.RunID == 0 {
		return
	}
	run, err := l.Runs().Get(ctx, cs.RunID)
	if err != nil || run.BuildID != "" || run.TaskID != "" {
		return
	}
	if _, err := l.acs.sys.RecordUserSignal(ctx, cs.Agent, cs.Task, approved, ""); err != nil {
		l.aceLog("ace: user signal for changeset %d: %v", n.ID, err)
	}
}

func (l *core) decisionSignal(ctx context.Context, cs changes.Changeset, approved bool, reason string) {
	if cs.Agent == "" || l.acs.sys == nil {
		return
	}
	if _, err := l.acs.sys.RecordUserSignal(context.WithoutCancel(ctx), cs.Agent, cs.Task, approved, reason); err != nil {
		l.aceLog("ace: user signal for changeset %d: %v", cs.ID, err)
	}
}
