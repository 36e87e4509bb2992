package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/ace"
	"github.com/nova-dev/nova/engine/changes"
)

// TopicPlaybooks is the Topic of playbook events: EventChanged after every
// committed playbook or pending-queue write (Text is "playbook" or
// "pending", Status the agent), EventLog for the ACE system's diagnostics
// (a bad record replaced by a default, a reflector that failed, ...).
const TopicPlaybooks = "playbooks"

// aceState holds the ACE playbook system of a Local.
type aceState struct {
	sys *ace.System

	mu   sync.Mutex
	logf func(string, ...any) // extra diagnostics sink (the CLI's stderr)
}

// initACE builds the playbook system (no I/O) and hands its hook to the
// build engine. Called from Open.
func (l *Local) initACE() {
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

func (l *Local) aceLog(format string, a ...any) {
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
func (l *Local) SetACELog(fn func(format string, a ...any)) {
	l.acs.mu.Lock()
	l.acs.logf = fn
	l.acs.mu.Unlock()
}

// ACE is the playbook system: playbooks (rules, history, pending queue)
// through ACE().Playbooks(), the generator (Context), reflector and
// curator (AfterTask, Reflect), self-improvement (Profile, RunReview) and
// user signals.
func (l *Local) ACE() *ace.System { return l.acs.sys }

// RecordUserSignal learns from a user approving or rejecting an agent's
// change (optionally with a reason), at every autonomy level.
func (l *Local) RecordUserSignal(ctx context.Context, agent, taskType string, approved bool, reason string) (ace.SignalReport, error) {
	return l.acs.sys.RecordUserSignal(ctx, agent, taskType, approved, reason)
}

// pendingPlaybookDeltas counts the deltas waiting for review
// (Summary.PendingApprovals).
func (l *Local) pendingPlaybookDeltas(ctx context.Context) int {
	n, err := l.acs.sys.Playbooks().CountPending(ctx)
	if err != nil {
		return 0
	}
	return n
}

// changeSignal turns a changeset applied or discarded by hand into a user
// signal for the agent that staged it. Applies at autonomy ≥ 3 are made by
// the build engine, not by a user, and are not learned from here.
func (l *Local) changeSignal(n changes.Notice) {
	if l.acs.sys == nil || (n.Action != "applied" && n.Action != "discarded") {
		return
	}
	approved := n.Action == "applied"
	if approved && n.Status != changes.StatusApplied {
		return // partly applied: the rest may still be discarded
	}
	if approved && l.Config().Autonomy >= ace.ReflectAutonomy {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, err := l.Changes().Get(ctx, n.ID)
	if err != nil || cs.Agent == "" {
		return
	}
	if _, err := l.acs.sys.RecordUserSignal(ctx, cs.Agent, cs.Task, approved, ""); err != nil {
		l.aceLog("ace: user signal for changeset %d: %v", n.ID, err)
	}
}
