package build

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/vault"
)

// MaxAttempts is how often a task runs before it is blocked (one retry).
const MaxAttempts = 2

// attemptResult is what one execution produced, before gating.
type attemptResult struct {
	output      string
	changesetID uint64
	runID       uint64
	sessionID   uint64
	tokens      int
	failure     string // the execution itself failed
	waiting     bool   // rehearsal waits for the user
	rehearsed   bool
	interrupted bool
}

// runTask runs one task to done, blocked, waiting, or back to pending when
// interrupted. Every transition is committed, then published.
func (e *Engine) runTask(ctx context.Context, b Build, t Task, deps []Task, approve tools.ApproveFunc) (Task, Build, error) {
	hooks := e.d.Hooks()
	feedback := ""
	if n := len(t.History); n > 0 && !t.History[n-1].Passed && t.History[n-1].Reason != "" {
		feedback = t.History[n-1].Reason
	}
	var last Build
	if t.Interruptions > 0 {
		e.discardOrphans(ctx, t)
	}
	for t.Attempts < MaxAttempts {
		if ctx.Err() != nil {
			return t, last, nil
		}
		start := time.Now()
		t.Status, t.Reason, t.StartedAt = TaskRunning, "", start
		att := Attempt{N: t.Attempts + 1, StartedAt: start}
		pr := e.assemble(ctx, b, t, deps, feedback, hooks)
		t.VaultNodeIDs, t.WisdomIDs, t.RuleIDs = pr.vaultIDs, pr.wisdomIDs, pr.ruleIDs
		t.History = append(t.History, att)
		nb, err := e.commit(t, nil)
		if err != nil {
			return t, last, fmt.Errorf("task %s: %w", t.ID, err)
		}
		last = nb
		e.publishTask(t, "running", nb)

		res := e.execute(ctx, b, t, pr, approve, hooks)
		att.RunID, att.SessionID, att.ChangesetID, att.Tokens = res.runID, res.sessionID, res.changesetID, res.tokens
		t.Tokens += res.tokens
		t.Rehearsed = t.Rehearsed || res.rehearsed
		if res.interrupted || ctx.Err() != nil {
			att.Interrupted, att.Duration = true, time.Since(start)
			t.History[len(t.History)-1] = att
			t.Status, t.Reason = TaskPending, "interrupted"
			t.Interruptions++
			if res.changesetID != 0 {
				_, _ = e.d.Changes.Discard(context.WithoutCancel(ctx), res.changesetID)
			}
			nb, err := e.commit(t, func(b *Build) { b.Tokens += res.tokens })
			if err != nil {
				return t, last, fmt.Errorf("task %s: %w", t.ID, err)
			}
			e.publishTask(t, "interrupted", nb)
			return t, nb, nil
		}
		if res.waiting {
			att.Duration = time.Since(start)
			t.History[len(t.History)-1] = att
			t.Status, t.Reason = TaskWaiting, cmpOr(res.failure, "waiting for a rehearsal choice")
			nb, err := e.commit(t, func(b *Build) { b.Tokens += res.tokens })
			if err != nil {
				return t, last, fmt.Errorf("task %s: %w", t.ID, err)
			}
			e.publishTask(t, string(t.Status), nb)
			return t, nb, nil
		}

		gates := e.gate(ctx, b, t, res)
		score, passed, reason := combine(gates)
		if res.failure != "" {
			passed, reason = false, res.failure
		}
		t.Attempts++
		att.Gates, att.Score, att.Passed, att.Reason = gates, score, passed, reason
		att.Duration = time.Since(start)
		att.Tokens = res.tokens
		t.History[len(t.History)-1] = att
		t.Gates, t.Score, t.Duration = gates, score, t.Duration+att.Duration
		t.Output = res.output
		t.ChangesetID = res.changesetID

		// Learn (vault, playbook) before the outcome is committed, so the
		// build's wisdom counts are committed with it.
		impact := e.learn(ctx, t, res, passed, reason)

		final := passed || t.Attempts >= MaxAttempts
		if passed {
			t.Status, t.Reason, t.FinishedAt = TaskDone, "", time.Now()
			if res.changesetID != 0 && b.Autonomy >= 3 {
				_, err := e.d.Changes.Apply(ctx, res.changesetID, changes.ApplyOptions{})
				if errors.Is(err, changes.ErrNotPending) {
					// e.g. a rehearsal branch its service already applied
					if cs, gerr := e.d.Changes.Get(ctx, res.changesetID); gerr == nil && cs.Status == changes.StatusApplied {
						err = nil
					}
				}
				if err != nil {
					t.ApplyError = err.Error()
				} else {
					t.Applied = true
				}
			}
		} else {
			if res.changesetID != 0 {
				// A failed attempt's staged writes are not offered for approval.
				_, _ = e.d.Changes.Discard(ctx, res.changesetID)
				t.ChangesetID = 0
			}
			feedback = reason
			if final {
				t.Status, t.Reason, t.FinishedAt = TaskBlocked, reason, time.Now()
			} else {
				t.Status, t.Reason = TaskPending, "retrying: "+firstLine(reason)
			}
		}
		if final {
			t.OutputPath = e.outputPath(t.BuildID, t.ID)
			body := t.Output
			if !passed {
				body = fmt.Sprintf("**Blocked:** %s\n\n%s", reason, t.Output)
			}
			if err := writeOutput(t.OutputPath, t, body); err != nil {
				e.logf(t.BuildID, t.ID, "write output: %v", err)
				t.OutputPath = ""
			}
		}
		nb, err = e.commit(t, func(b *Build) {
			b.Tokens += res.tokens
			b.Wisdom.Learned += impact.Learned
			b.Wisdom.Strengthened += impact.Strengthened
			b.Wisdom.Reinforced += impact.Reinforced
			b.Wisdom.Mistakes += impact.Mistakes
		})
		if err != nil {
			return t, last, fmt.Errorf("task %s: %w", t.ID, err)
		}
		last = nb
		e.publishTask(t, string(t.Status), nb)
		if hooks.Playbook != nil {
			if err := hooks.Playbook.AfterTask(ctx, TaskResult{BuildID: idString(t.BuildID), Task: t.PRDTask(), Agent: t.Agent,
				Output: res.output, Success: passed, Reason: reason, GateScore: score, ChangesetID: res.changesetID,
				VaultNodeIDs: t.VaultNodeIDs, RuleIDs: t.RuleIDs, Autonomy: b.Autonomy, Attempt: att.N,
				Duration: att.Duration, Tokens: res.tokens, Rehearsed: res.rehearsed}); err != nil && !errors.Is(err, context.Canceled) {
				e.logf(t.BuildID, t.ID, "playbook: %v", err)
			}
		}
		if final {
			return t, last, nil
		}
		if b.TokenBudget > 0 && last.Tokens >= b.TokenBudget {
			return t, last, nil // the scheduler stops the build with the budget reason
		}
	}
	return t, last, nil
}

// discardOrphans discards the pending changesets that an earlier attempt
// of t staged but never recorded: nova was killed (kill -9, power loss)
// while the attempt ran, so no code path discarded them, and the attempt
// about to run stages its own. Without this, a kill 0.35–0.45 s into a
// build left changeset 1 pending forever after the resume.
func (e *Engine) discardOrphans(ctx context.Context, t Task) {
	if e.d.Changes == nil {
		return
	}
	pending, err := e.d.Changes.List(ctx, changes.Filter{Status: changes.StatusPending})
	if err != nil {
		e.logf(t.BuildID, t.ID, "look for changesets of interrupted attempts: %v", err)
		return
	}
	for _, cs := range pending {
		if cs.BuildID != idString(t.BuildID) || cs.TaskID != t.ID || cs.ID == t.ChangesetID {
			continue
		}
		if _, err := e.d.Changes.Discard(context.WithoutCancel(ctx), cs.ID); err != nil {
			e.logf(t.BuildID, t.ID, "discard changeset %d of an interrupted attempt: %v", cs.ID, err)
			continue
		}
		e.logf(t.BuildID, t.ID, "discarded changeset %d, staged by an attempt that was interrupted", cs.ID)
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (e *Engine) commit(t Task, mut func(b *Build)) (Build, error) {
	return e.store.saveTask(t, mut)
}

func (e *Engine) publishTask(t Task, status string, b Build) {
	text := fmt.Sprintf("%s %s (%s)", t.ID, status, t.Agent)
	if t.Reason != "" && status != "running" {
		text += ": " + firstLine(t.Reason)
	}
	e.publish(Event{Kind: KindTask, BuildID: t.BuildID, TaskID: t.ID, Status: status, Text: text,
		Done: b.Counts[TaskDone], Total: b.Total, Payload: t})
}

// execute runs the agent loop, or a rehearsal when the hook asks for one
// (or the build forces it) on the premium tier.
func (e *Engine) execute(ctx context.Context, b Build, t Task, pr prompt, approve tools.ApproveFunc, hooks Hooks) attemptResult {
	rh := hooks.Rehearsal
	if rh != nil && (b.Rehearse || rh.ShouldRehearse(t.PRDTask())) {
		if strings.EqualFold(b.Tier, "premium") {
			out, err := rh.Rehearse(ctx, RehearsalRequest{BuildID: idString(t.BuildID), Task: t.PRDTask(), Agent: t.Agent,
				Context: append([]string{pr.task}, pr.extra...), Autonomy: b.Autonomy})
			r := attemptResult{output: out.Output, changesetID: out.ChangesetID, sessionID: out.SessionID, tokens: out.Tokens, rehearsed: true}
			switch {
			case ctx.Err() != nil:
				r.interrupted = true
			case err != nil:
				r.failure = "rehearsal: " + err.Error()
			case out.Waiting:
				r.waiting, r.failure = true, out.Reason
			case out.ChangesetID == 0 && strings.TrimSpace(out.Output) == "":
				r.failure = cmpOr(out.Reason, "rehearsal produced no valid branch")
			}
			return r
		}
		e.logf(t.BuildID, t.ID, "rehearsal would have run for %s (tier %s; rehearsal needs premium)", t.ID, cmpOr(b.Tier, "free"))
	}
	run, err := e.d.Exec(ctx, ExecRequest{Agent: t.Agent, Task: pr.task, Extra: pr.extra,
		BuildID: idString(t.BuildID), TaskID: t.ID, Approve: approve})
	r := attemptResult{runID: run.ID, changesetID: run.ChangesetID,
		tokens: run.Outcome.Meta.PromptTokens + run.Outcome.Meta.EvalTokens}
	switch {
	case ctx.Err() != nil:
		r.interrupted = true
	case err != nil:
		r.failure = "agent: " + err.Error()
	case !run.Outcome.OK:
		msg := "agent run failed"
		if f := run.Outcome.Failure; f != nil {
			msg = fmt.Sprintf("agent run failed (%s): %s", f.Kind, f.Message)
			r.output = f.PartialResult
		}
		r.failure = msg
	default:
		r.output = run.Outcome.Result
	}
	return r
}

// learn feeds the outcome to the vault: lessons (a failure becomes a
// Mistake), and a success reinforces the injected nodes.
func (e *Engine) learn(ctx context.Context, t Task, res attemptResult, passed bool, reason string) WisdomImpact {
	var w WisdomImpact
	v := e.d.Vault
	if v == nil || ctx.Err() != nil {
		return w
	}
	out := res.output
	if !passed {
		out = reason + "\n" + res.output
	}
	lr, err := v.LearnFromBuildResult(ctx, vault.Task{BuildID: idString(t.BuildID), ID: t.ID, Title: t.Title, Description: t.Description}, t.Agent, out, passed)
	if err != nil {
		e.logf(t.BuildID, t.ID, "vault learn: %v", err)
	}
	for _, r := range lr {
		if r.Created {
			w.Learned++
		} else {
			w.Strengthened++
		}
		if r.Node.Type == vault.Mistake && !passed {
			w.Mistakes++
		}
	}
	if passed && (len(t.VaultNodeIDs) > 0 || len(t.WisdomIDs) > 0) {
		if err := v.ReinforceInjected(ctx, vault.Injected{NodeIDs: t.VaultNodeIDs, WisdomIDs: t.WisdomIDs}); err != nil {
			e.logf(t.BuildID, t.ID, "vault reinforce: %v", err)
		} else {
			w.Reinforced += len(t.VaultNodeIDs)
		}
	}
	return w
}
