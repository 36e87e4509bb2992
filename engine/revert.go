package engine

import (
	"context"
	"errors"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/vault"
)

// revertOrigin follows the chain of reverts from id back to the change it
// started from, and says whether reverting id undoes that change (an even
// number of reverts lies between them) rather than bringing it back.
func (l *core) revertOrigin(ctx context.Context, id uint64) (changes.Changeset, bool, error) {
	depth := 0
	seen := map[uint64]bool{}
	for {
		cs, err := l.Changes().Get(ctx, id)
		if err != nil {
			return cs, false, err
		}
		if cs.RevertOf == 0 || seen[cs.RevertOf] {
			return cs, depth%2 == 0, nil
		}
		seen[id] = true
		id = cs.RevertOf
		depth++
	}
}

// learnRejection learns from the user undoing cs as from a rejected change:
// the agent's playbook records the rejection (with the reason, which the
// vault keeps as a Mistake), and what shaped the change — the playbook rules
// and vault nodes injected into its build task's prompt — loses confidence.
// It returns how many rules and nodes were demoted.
func (l *core) learnRejection(ctx context.Context, cs changes.Changeset, reason string) (rules, nodes int) {
	l.decisionSignal(ctx, cs, false, reason)
	task, ok := l.taskOf(ctx, cs)
	if !ok {
		return 0, 0
	}
	if len(task.RuleIDs) > 0 && task.Agent != "" && l.acs.sys != nil {
		if err := l.acs.sys.Playbooks().RecordHarm(ctx, task.Agent, task.RuleIDs); err != nil {
			l.aceLog("ace: demote the rules of reverted changeset %d: %v", cs.ID, err)
		} else {
			rules = len(task.RuleIDs)
		}
	}
	for _, id := range task.VaultNodeIDs {
		if _, err := l.Vault().Demote(ctx, id); err == nil {
			nodes++
		} else if !errors.Is(err, vault.ErrNotFound) {
			l.aceLog("vault: demote node %d of reverted changeset %d: %v", id, cs.ID, err)
		}
	}
	return rules, nodes
}

// taskOf finds the build task that staged cs.
func (l *core) taskOf(ctx context.Context, cs changes.Changeset) (build.Task, bool) {
	if cs.BuildID == "" || cs.TaskID == "" {
		return build.Task{}, false
	}
	bid, err := build.ParseID(cs.BuildID)
	if err != nil {
		return build.Task{}, false
	}
	tasks, err := l.Builds().Tasks(ctx, bid)
	if err != nil {
		return build.Task{}, false
	}
	for _, t := range tasks {
		if t.ID == cs.TaskID {
			return t, true
		}
	}
	return build.Task{}, false
}
