package build

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/vault"
)

// MaxAttempts is how often a task runs for failures of the work itself
// before it is blocked (one retry, failure.WorkFailed's policy).
const MaxAttempts = 2

// maxRuns bounds the attempts of one task whatever their causes
// (escalations, a specialist switch and retries included).
const maxRuns = 6

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
	// kind classifies a failed execution (engine/failure); hints, suggested
	// and message come from the agent run's failure.
	kind      failure.Kind
	hints     []agents.RecoveryHint
	suggested string
	message   string
	// hypothesis and hintNotes come from the agent run's failure report.
	hypothesis string
	hintNotes  []agents.HintNote
	// verdict is the verifier's verdict on a successful run; tier the tier
	// the run ended on.
	verdict *agents.Verdict
	tier    string
	// answerOnly: the agent could not stage changes (agents.Run.AnswerOnly).
	answerOnly bool
	// checked is the agent run's own run of the checks (reused by the
	// check gates when the changeset is the same).
	checked *agents.CheckRun
}

// runTask runs one task to done, blocked, waiting, or back to pending when
// interrupted. Every transition is committed, then published. A failure is
// handled by its kind (engine/failure): an unreachable model server makes
// the task wait and run again when the server is back (not an attempt);
// misconfiguration blocks at once; failures of the work are retried with
// their evidence, escalated to the next tier, handed to another specialist
// or put to the user as the run's recovery hints say, within the caps; only
// failures of the work itself are learned.
func (e *Engine) runTask(ctx context.Context, b Build, t Task, deps []Task, upstream []string, approve tools.ApproveFunc, c *session) (Task, Build, error) {
	hooks := e.d.Hooks
	feedback := ""
	if n := len(t.History); n > 0 && !t.History[n-1].Passed && t.History[n-1].Reason != "" && t.History[n-1].Kind != failure.Unreachable {
		feedback = t.History[n-1].Reason
	}
	var last Build
	if t.Interruptions > 0 {
		e.discardOrphans(ctx, t)
	}
	for {
		if ctx.Err() != nil {
			return t, last, nil
		}
		if t.Attempts >= maxRuns {
			t.Status, t.Reason, t.FinishedAt = TaskBlocked, fmt.Sprintf("gave up after %d attempts: %s", t.Attempts, firstLine(feedback)), time.Now()
			nb, err := e.commit(t, nil)
			if err != nil {
				return t, last, fmt.Errorf("task %s: %w", t.ID, err)
			}
			e.publishTask(t, string(t.Status), nb)
			return t, nb, nil
		}
		start := time.Now()
		t.Status, t.Reason, t.WaitFor, t.StartedAt = TaskRunning, "", "", start
		att := Attempt{N: t.Attempts + 1, StartedAt: start, Agent: t.Agent, Tier: t.Tier}
		pr := e.assemble(ctx, b, t, deps, upstream, feedback, hooks)
		t.VaultNodeIDs, t.WisdomIDs, t.RuleIDs, t.KnowledgeIDs = pr.vaultIDs, pr.wisdomIDs, pr.ruleIDs, pr.knowIDs
		t.CodeMapPaths = pr.mapIDs
		t.History = append(t.History, att)
		nb, err := e.commit(t, nil)
		if err != nil {
			return t, last, fmt.Errorf("task %s: %w", t.ID, err)
		}
		last = nb
		e.publishTask(t, "running", nb)

		res := e.execute(ctx, b, t, pr, approve, hooks)
		att.RunID, att.SessionID, att.ChangesetID, att.Tokens = res.runID, res.sessionID, res.changesetID, res.tokens
		if res.tier != "" {
			att.Tier = res.tier
		}
		t.Tokens += res.tokens
		t.Rehearsed = t.Rehearsed || res.rehearsed
		if res.interrupted || ctx.Err() != nil {
			att.Interrupted, att.Duration = true, time.Since(start)
			t.History[len(t.History)-1] = att
			t.Status, t.Reason = TaskPending, "interrupted"
			t.Interruptions++
			if res.changesetID != 0 && !b.Led {
				_, _ = e.d.Changes.Discard(context.WithoutCancel(ctx), res.changesetID)
			}
			if res.changesetID != 0 && b.Led {
				// A goal run stopped mid-delegation: what the agent staged
				// stays staged for the user to look at (the attempt names it);
				// a resume runs the task afresh.
				t.Reason = fmt.Sprintf("interrupted; what it staged stays in changeset %d", res.changesetID)
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
			t.Status, t.WaitFor, t.Reason = TaskWaiting, WaitRehearsal, cmpOr(res.failure, "waiting for a rehearsal choice")
			nb, err := e.commit(t, func(b *Build) { b.Tokens += res.tokens })
			if err != nil {
				return t, last, fmt.Errorf("task %s: %w", t.ID, err)
			}
			e.publishTask(t, string(t.Status), nb)
			return t, nb, nil
		}
		if res.kind == failure.Unreachable {
			// The model server is down: not a failure of the work, not an
			// attempt. Wait for it and run the task again.
			att.Kind, att.Reason, att.Duration = res.kind, res.failure, time.Since(start)
			t.History[len(t.History)-1] = att
			if res.changesetID != 0 {
				_, _ = e.d.Changes.Discard(context.WithoutCancel(ctx), res.changesetID)
			}
			if err := e.waitForServer(ctx, &t, res.tokens, c); err != nil {
				if errors.Is(err, errStore) {
					return t, last, fmt.Errorf("task %s: %w", t.ID, err)
				}
				nb, _ := e.store.Get(context.Background(), t.BuildID)
				return t, nb, nil
			}
			continue
		}

		gates := e.gate(ctx, b, t, res)
		score, passed, reason := combine(gates)
		kind := failure.Kind("")
		switch {
		case res.failure != "":
			passed, reason, kind = false, res.failure, cmpKind(res.kind, failure.Unknown)
		case !passed && checkToolMissing(gates):
			// A check's command is not installed: the configuration, not the
			// work, is at fault (never learned as a mistake).
			kind = failure.Misconfigured
		case !passed:
			kind = failure.WorkFailed
		}
		noRetry := false
		t.Warning = ""
		if g, ok := gateNamed(gates, GateVerdict); ok && res.verdict != nil {
			switch {
			case !g.Passed && (res.verdict.Status == agents.VerdictInconclusive || res.verdict.Status == agents.VerdictUnverified) &&
				e.cfg.Inconclusive == InconclusiveFail:
				noRetry = true
			case g.Passed && g.Score < 1:
				t.Warning = g.Detail
			}
		}
		t.Attempts++
		att.Gates, att.Score, att.Passed, att.Reason = gates, score, passed, reason
		att.Kind, att.Verdict = kind, res.verdict
		att.Hints, att.SuggestedAgent = res.hints, res.suggested
		att.Hypothesis, att.HintNotes = res.hypothesis, res.hintNotes
		att.Duration = time.Since(start)
		att.Tokens = res.tokens
		t.History[len(t.History)-1] = att
		t.Gates, t.Score, t.Duration = gates, score, t.Duration+att.Duration
		t.Output = res.output
		t.ChangesetID = res.changesetID
		t.Verdict = res.verdict
		t.Verified = passed && executed(res.verdict, gates)

		// Learn (vault, playbook) before the outcome is committed, so the
		// build's wisdom counts are committed with it. Only successes and
		// failures of the work itself are learned: never an infrastructure
		// failure (engine/failure).
		learnable := passed || kind.Learnable()
		var impact WisdomImpact
		if learnable {
			impact = e.learn(ctx, t, res, passed, reason)
		}

		step := stepDone
		if !passed {
			step = e.nextStep(&t, b, last, res, kind, noRetry)
		}
		largeCall := false
		switch step {
		case stepDone:
			t.Status, t.Reason, t.FinishedAt = TaskDone, "", time.Now()
			t.ApplyError = ""
			switch {
			case res.changesetID != 0 && b.Autonomy >= 3 && !t.Verified:
				// Autonomy applies only what something executed: an
				// unverified change waits for the user.
				t.ApplyError = "not applied automatically: nothing executed this change (done, unverified); review and apply it yourself"
			case res.changesetID != 0 && b.Autonomy >= 3:
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
		default:
			if res.changesetID != 0 {
				// A failed attempt's staged writes are not offered for approval.
				_, _ = e.d.Changes.Discard(ctx, res.changesetID)
				t.ChangesetID = 0
			}
			feedback = reason
			switch step {
			case stepBlock:
				t.Status, t.Reason, t.FinishedAt = TaskBlocked, reason, time.Now()
			case stepAsk:
				t.Status, t.WaitFor = TaskWaiting, WaitUser
				t.Question = fmt.Sprintf("%s could not finish %s and asks for your help: %s", t.Agent, t.ID, firstLine(cmpOr(res.message, reason)))
				t.Reason = t.Question
			case stepEscalate:
				largeCall = t.Tier == string(llm.TierLarge)
				t.Status, t.Reason = TaskPending, fmt.Sprintf("escalating to the %s tier: %s", t.Tier, firstLine(reason))
			case stepSwitch:
				t.Status, t.Reason = TaskPending, fmt.Sprintf("handing over from %s to %s: %s", t.SwitchedFrom, t.Agent, firstLine(reason))
			default:
				t.Status, t.Reason = TaskPending, "retrying: "+firstLine(reason)
			}
		}
		final := step == stepDone || step == stepBlock || step == stepAsk
		if (step == stepDone || step == stepBlock) && hooks.Board != nil {
			// Every task ends with a handoff; what it produced goes on the
			// board.
			br := BoardResult{Board: b.BoardKey(), Task: t, Passed: passed, Reason: reason, Output: res.output, Suggested: res.suggested}
			if passed {
				br.Files = e.stagedFiles(ctx, res.changesetID) // a failed attempt's writes were discarded
			}
			h, err := hooks.Board.AfterTask(context.WithoutCancel(ctx), br)
			if err != nil {
				e.logf(t.BuildID, t.ID, "board: %v", err)
			} else {
				t.Handoff = &h
			}
		}
		if step == stepDone || step == stepBlock {
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
			if largeCall {
				b.LargeCalls++
			}
		})
		if err != nil {
			return t, last, fmt.Errorf("task %s: %w", t.ID, err)
		}
		last = nb
		e.publishTask(t, string(t.Status), nb)
		switch step {
		case stepAsk:
			e.publish(Event{Kind: KindAsking, BuildID: t.BuildID, TaskID: t.ID, Status: string(t.Status), Text: t.Question, Payload: t})
		case stepEscalate, stepSwitch:
			e.publish(Event{Kind: KindEscalated, BuildID: t.BuildID, TaskID: t.ID, Status: string(t.Status), Text: t.ID + ": " + t.Reason, Payload: t})
		}
		e.warnBudget(nb)
		if hooks.Playbook != nil && learnable {
			if err := hooks.Playbook.AfterTask(ctx, TaskResult{BuildID: idString(t.BuildID), Task: t.PRDTask(), Agent: t.Agent,
				Output: res.output, Success: passed, Reason: reason, GateScore: score, ChangesetID: res.changesetID,
				VaultNodeIDs: t.VaultNodeIDs, RuleIDs: t.RuleIDs, Autonomy: b.Autonomy, Attempt: att.N,
				Duration: att.Duration, Tokens: res.tokens, Rehearsed: res.rehearsed}); err != nil && !errors.Is(err, context.Canceled) {
				e.logf(t.BuildID, t.ID, "playbook: %v", err)
			}
		}
		e.knowledgeAfterTask(ctx, hooks, t, passed, kind)
		if final {
			return t, last, nil
		}
		if b.TokenBudget > 0 && last.Tokens >= b.TokenBudget {
			return t, last, nil // the scheduler stops the build with the budget reason
		}
	}
}

// What happens after a failed attempt.
type step int

const (
	stepDone     step = iota // passed
	stepRetry                // the same agent and tier again, with the failure as feedback
	stepEscalate             // again on the next model tier (t.Tier is set)
	stepSwitch               // again with another specialist (t.Agent is set)
	stepAsk                  // wait for the user's answer
	stepBlock                // blocked with the reason
)

// nextStep decides what follows a failed attempt of kind, acting on the
// run's recovery hints within the caps, and sets what the next attempt
// needs on t (its tier or agent). Misconfiguration blocks at once; length
// and repetition stops escalate within the caps, else block (never a plain
// retry); the other kinds retry as their policy allows. In a led build
// (owner.Led) the hints that ask the user or switch the specialist are the
// lead's to act on: the task ends blocked with them recorded on its attempt.
func (e *Engine) nextStep(t *Task, owner, b Build, res attemptResult, kind failure.Kind, noRetry bool) step {
	pol := kind.Policy()
	if kind == failure.Misconfigured || kind == failure.Cancelled {
		return stepBlock // fail fast with what to do; a retry would fail the same way
	}
	if !pol.Infrastructure && slices.Contains(res.hints, agents.HintAskUser) {
		if owner.Led {
			return stepBlock // the lead reads the hint and escalates to the user if it wants
		}
		return stepAsk
	}
	if slices.Contains(res.hints, agents.HintEscalateModel) || pol.Escalate {
		if next, ok := e.escalation(t, b, res); ok {
			t.Tier = string(next)
			t.Escalations++
			return stepEscalate
		}
	}
	if slices.Contains(res.hints, agents.HintSwitchSpecialist) && !owner.Led { // a lead picks the next specialist itself
		if other := e.suggest(t, res); other != "" {
			t.SwitchedFrom, t.Agent, t.Tier = t.Agent, other, ""
			return stepSwitch
		}
	}
	if noRetry || pol.ChangeRequest {
		// A length or repetition stop: the run already retried with a
		// changed request (a larger num_predict, another seed) and tried a
		// larger tier within the agent's range; the same request again
		// would stop the same way. Escalation (above) was the last resort.
		return stepBlock
	}
	if attemptsOf(t.History, kind) <= pol.Retries {
		return stepRetry
	}
	return stepBlock
}

// escalation returns the tier above the one the attempt ended on, when the
// caps allow: Config.MaxEscalations per task, Config.MaxLargeCalls
// escalations to the large tier per build.
func (e *Engine) escalation(t *Task, b Build, res attemptResult) (llm.Tier, bool) {
	if t.Escalations >= e.cfg.MaxEscalations || res.tier == "" {
		return "", false
	}
	next, ok := llm.Escalate(llm.Tier(res.tier), llm.TierLarge)
	if !ok {
		return "", false
	}
	if next == llm.TierLarge && b.LargeCalls >= e.cfg.MaxLargeCalls {
		return "", false
	}
	return next, true
}

// FallbackAgent is the roster's generalist: the specialist a
// switch_specialist hint hands a task to when the run names none.
const FallbackAgent = "implementer"

// suggest names the agent a switch_specialist hint hands the task to: the
// run's suggestion, else FallbackAgent, when the roster has it and it is not
// the task's agent; a task is handed over once.
func (e *Engine) suggest(t *Task, res attemptResult) string {
	if t.SwitchedFrom != "" || e.d.KnownAgents == nil {
		return ""
	}
	known := e.d.KnownAgents()
	for _, cand := range []string{res.suggested, FallbackAgent} {
		if cand != "" && !strings.EqualFold(cand, t.Agent) && known != nil && known(cand) {
			return cand
		}
	}
	return ""
}

// attemptsOf counts the finished attempts of a kind.
func attemptsOf(h []Attempt, kind failure.Kind) int {
	n := 0
	for _, a := range h {
		if !a.Passed && !a.Interrupted && a.Kind == kind {
			n++
		}
	}
	return n
}

func cmpKind(k, def failure.Kind) failure.Kind {
	if k == "" {
		return def
	}
	return k
}

// errStore marks a store failure while waiting (the build stops).
var errStore = errors.New("build store")

// waitForServer makes a task wait for an unreachable model server: the task
// and the build show "waiting for ollama at HOST"; the server is asked again
// with a doubling pause (Config.WaitBackoff up to 30 s). It returns nil when
// the server answers (the task then runs again), ctx's error when the build
// is stopped, and an error when the build is paused or the wait limit of a
// headless run is reached (the control records why; the build stops,
// resumable). The task stays "waiting"; a resume runs it again.
func (e *Engine) waitForServer(ctx context.Context, t *Task, tokens int, c *session) error {
	host := e.d.Host()
	t.Status, t.WaitFor, t.Reason = TaskWaiting, WaitOllama, "waiting for ollama at "+host
	nb, err := e.commit(*t, func(b *Build) { b.Tokens += tokens })
	if err != nil {
		return fmt.Errorf("%w: %w", errStore, err)
	}
	e.publishTask(*t, string(t.Status), nb)
	e.publish(Event{Kind: KindWaiting, BuildID: t.BuildID, TaskID: t.ID, Status: string(t.Status), Text: t.Reason, Payload: *t})
	e.setStatus(t.BuildID, StatusWaiting, t.Reason)
	start := time.Now()
	pause := e.cfg.WaitBackoff
	next := start.Add(pause)
	const tick = 100 * time.Millisecond
	for {
		wait := min(tick, max(time.Until(next), 0))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		if c.Paused() || c.Canceled() {
			return errors.New("stopped while waiting")
		}
		if time.Now().Before(next) {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := e.d.Ping(pctx)
		cancel()
		if err == nil {
			e.logf(t.BuildID, t.ID, "ollama at %s answers again; %s continues", host, t.ID)
			e.setStatus(t.BuildID, StatusRunning, "")
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c.waitLimit > 0 && time.Since(start) >= c.waitLimit {
			why := fmt.Sprintf("gave up waiting for ollama at %s after %s", host, c.waitLimit.Round(time.Second))
			c.gaveUp.Store(why)
			t.Reason = why
			if nb, err := e.commit(*t, nil); err == nil {
				e.publishTask(*t, string(t.Status), nb)
			}
			return errors.New(why)
		}
		pause = min(pause*2, 30*time.Second)
		next = time.Now().Add(pause)
	}
}

// warnBudget publishes one budgetWarning per build once half of its token
// budget is used.
func (e *Engine) warnBudget(nb Build) {
	if nb.TokenBudget <= 0 || nb.BudgetWarned || nb.Tokens*2 < nb.TokenBudget {
		return
	}
	warned := false
	b, err := e.store.updateBuild(nb.ID, func(b *Build, _ []Task) ([]Task, error) {
		if !b.BudgetWarned {
			b.BudgetWarned, warned = true, true
		}
		return nil, nil
	})
	if err != nil || !warned {
		return
	}
	e.publish(Event{Kind: KindBudget, BuildID: b.ID, Done: b.Tokens, Total: b.TokenBudget, Payload: b.Summary(),
		Text: fmt.Sprintf("build %d used %d of its %d tokens (half of budgets.buildTokens)", b.ID, b.Tokens, b.TokenBudget)})
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
				Context: append([]string{pr.task}, pr.extra...), KnowledgeIDs: pr.knowIDs, Autonomy: b.Autonomy})
			r := attemptResult{output: out.Output, changesetID: out.ChangesetID, sessionID: out.SessionID, tokens: out.Tokens, rehearsed: true}
			switch {
			case ctx.Err() != nil:
				r.interrupted = true
			case err != nil:
				r.failure, r.kind = "rehearsal: "+err.Error(), failure.Of(err)
				r.interrupted = r.kind == failure.Cancelled
			case out.Waiting:
				r.waiting, r.failure = true, out.Reason
			case out.ChangesetID == 0 && strings.TrimSpace(out.Output) == "":
				r.failure, r.kind = cmpOr(out.Reason, "rehearsal produced no valid branch"), failure.InvalidOutput
			}
			return r
		}
		e.logf(t.BuildID, t.ID, "rehearsal would have run for %s (tier %s; rehearsal needs premium)", t.ID, cmpOr(b.Tier, "free"))
	}
	var bt tools.Board
	if hooks.Board != nil {
		bt = hooks.Board.Tools(b.BoardKey(), t.Agent, t.ID)
	}
	cmds := e.checksFor(b, t)
	run, err := e.d.Runner.RunTask(ctx, ExecRequest{Agent: t.Agent, Task: pr.task, Extra: pr.extra,
		BuildID: idString(t.BuildID), TaskID: t.ID, Approve: approve, Tier: t.Tier, Autonomy: b.Autonomy, Board: bt,
		Checks: &cmds, Critical: t.Critical})
	r := attemptResult{runID: run.ID, changesetID: run.ChangesetID,
		tokens: run.Outcome.Meta.PromptTokens + run.Outcome.Meta.EvalTokens, tier: run.Outcome.Meta.Tier,
		answerOnly: run.AnswerOnly}
	if r.tier == "" {
		r.tier = run.Tier
	}
	switch {
	case ctx.Err() != nil:
		r.interrupted = true
	case err != nil:
		r.failure, r.kind = "agent: "+err.Error(), failure.Of(err)
		r.interrupted = r.kind == failure.Cancelled
	case !run.Outcome.OK:
		r.failure, r.kind = "agent run failed", failure.Unknown
		if f := run.Outcome.Failure; f != nil {
			r.failure = fmt.Sprintf("agent run failed (%s): %s", f.Kind, f.Message)
			r.output = f.PartialResult
			r.kind, r.hints, r.suggested, r.message = f.FailureKind(), f.RecoveryHints, f.SuggestedAgent, f.Message
			r.hypothesis, r.hintNotes = f.Hypothesis, f.HintNotes
		}
		if run.Checked != nil {
			// The project's checks ran and failed: the verdict is the evidence.
			v := run.Verdict
			r.verdict, r.checked = &v, run.Checked
		}
		r.interrupted = r.kind == failure.Cancelled
	default:
		r.output = run.Outcome.Result
		v := run.Verdict
		r.verdict, r.checked = &v, run.Checked
	}
	return r
}

// stagedFiles reads a changeset's proposed files (path → content; deleted
// files are left out) for the board's artifacts.
func (e *Engine) stagedFiles(ctx context.Context, id uint64) map[string]string {
	if id == 0 || e.d.Changes == nil {
		return nil
	}
	cs, err := e.d.Changes.Get(context.WithoutCancel(ctx), id)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, f := range cs.Files {
		if f.Op != changes.OpDelete {
			out[f.Path] = f.Proposed
		}
	}
	return out
}

// lessonFacts are what a passed attempt's lesson is made of: the files its
// changeset touched and the commands that executed them and passed (never
// the model's output: vault.BuildLessons).
func (e *Engine) lessonFacts(ctx context.Context, res attemptResult) (files, checks []string) {
	if res.changesetID != 0 && e.d.Changes != nil {
		if cs, err := e.d.Changes.Get(ctx, res.changesetID); err == nil {
			files = cs.Paths()
		}
	}
	if res.verdict != nil {
		for _, c := range res.verdict.Checks {
			if c.Tier == agents.TierExecution && c.Status == agents.VerdictPassed && c.Subject != "" {
				checks = append(checks, c.Subject)
			}
		}
	}
	return files, checks
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
	// One vault write per task: the lessons and, on a success, the credit for
	// the injected nodes (a second commit per task cost ~14 % of a build
	// task's CPU at 100k nodes).
	var inj vault.Injected
	if passed {
		inj = vault.Injected{NodeIDs: t.VaultNodeIDs, WisdomIDs: t.WisdomIDs}
	}
	vt := vault.Task{BuildID: idString(t.BuildID), ID: t.ID, Title: t.Title, Description: t.Description}
	if passed {
		vt.Files, vt.Checks = e.lessonFacts(ctx, res)
	}
	lr, err := v.LearnFromTask(ctx, vt, t.Agent, out, passed, inj)
	if err != nil {
		e.logf(t.BuildID, t.ID, "vault learn: %v", err)
	} else {
		w.Reinforced += len(inj.NodeIDs)
	}
	for _, r := range lr {
		switch {
		case r.NotStored:
			continue // the tier cap left it out (reported by the vault's event)
		case r.Created:
			w.Learned++
		default:
			w.Strengthened++
		}
		if r.Node.Type == vault.Mistake && !passed {
			w.Mistakes++
		}
	}
	return w
}
