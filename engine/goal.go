package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/goal"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/run"
	"github.com/nova-dev/nova/engine/vault"
)

// goalState is the goal-run engine of a Local, built on first use.
type goalState struct {
	once  sync.Once
	eng   *goal.Engine
	ready atomic.Pointer[goal.Engine]
	// builds maps a goal run's build id (string) to the run's id (string):
	// the build's and its agents' events carry the run's id too.
	builds sync.Map
}

// Goals is the goal-run engine (`nova run`): create, run, resume, answer,
// cancel, list and inspect runs.
func (l *core) Goals() *goal.Engine {
	l.gl.once.Do(func() {
		cfg := l.Config()
		l.gl.eng = goal.New(goal.Config{
			Limits: goal.Limits{MaxTurns: cfg.Orchestrator.MaxTurns, MaxTokens: cfg.Orchestrator.MaxTokens,
				MaxDuration: cfg.Orchestrator.MaxDuration.D(),
				Shares: goal.Shares{Lead: cfg.Orchestrator.BudgetShares.Lead, Research: cfg.Orchestrator.BudgetShares.Research,
					Implement: cfg.Orchestrator.BudgetShares.Implement}},
			WaitLimit:     cfg.Ollama.WaitLimit.D(),
			MinConfidence: cfg.Orchestrator.MinConfidence,
		}, goal.Deps{
			Store:        goal.NewStore(l.db, l.now),
			Boards:       l.Boards(),
			Team:         l.goalTeam,
			LeadRole:     l.leadRole,
			Ask:          l.askLead,
			NewBuild:     l.goalBuild,
			Delegate:     l.delegate,
			VaultContext: l.goalVault,
			Ping:         func(ctx context.Context) error { _, err := l.llm.Version(ctx); return err },
			Host:         l.llm.Host,
			Publish:      l.publishGoal,
			Runs:         l.runs,
			Ended: func(ctx context.Context, r goal.Run) {
				if r.BuildID != 0 {
					l.Builds().LearnLed(ctx, r.BuildID)
				}
			},
		})
		l.gl.ready.Store(l.gl.eng)
	})
	return l.gl.eng
}

func (l *core) goalTeam(ctx context.Context) ([]goal.Agent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	roster, _ := l.Agents()
	out := []goal.Agent{}
	for _, s := range roster.List() {
		out = append(out, goal.Agent{ID: s.ID, Description: s.Display.Description, Writes: s.CanWrite()})
	}
	if len(out) == 0 {
		return nil, errors.New("no agents in .nova/agents: a goal run needs a team (`nova agents validate`)")
	}
	return out, nil
}

func (l *core) leadRole(lead string) string {
	roster, _ := l.Agents()
	if s, err := roster.Get(lead); err == nil {
		return s.Display.Description
	}
	return ""
}

// askLead asks the lead's model (its spec's tier) for one decision.
func (l *core) askLead(ctx context.Context, req goal.LeadRequest) (goal.LeadReply, error) {
	roster, _ := l.Agents()
	tier := llm.TierLarge
	if s, err := roster.Get(req.Lead); err == nil && s.Tier != "" {
		if t, err := llm.ParseTier(string(s.Tier)); err == nil && t != llm.TierEmbed {
			tier = t
		}
	}
	model, err := modelsOf(l.Config()).For(tier)
	if err != nil {
		return goal.LeadReply{}, err
	}
	var d goal.Decision
	res, err := llm.Structured(ctx, l.llm, llm.ChatRequest{Model: model, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: req.System},
		{Role: llm.RoleUser, Content: req.Prompt},
	}}, goal.DecisionSchema, &d)
	return goal.LeadReply{Decision: d, Tokens: res.PromptTokens + res.EvalTokens}, err
}

// goalVault is the taste-vault block of the lead's prompt.
func (l *core) goalVault(ctx context.Context, g string) (string, error) {
	cfg := l.Config()
	if cfg.Budgets.VaultShare <= 0 {
		return "", nil
	}
	vb := int(float64(cfg.Budgets.PromptTokens) * cfg.Budgets.VaultShare / vault.VaultShare)
	vc, err := l.Vault().BuildVaultContext(ctx, g, cfg.Orchestrator.Lead, cfg.Tier, vb)
	if err != nil {
		return "", err
	}
	return vc.Text, nil
}

// goalBuild creates the led build of a goal run, on the run's board.
func (l *core) goalBuild(ctx context.Context, r goal.Run) (uint64, error) {
	b, err := l.Builds().CreateLed(ctx, build.LedOptions{Name: "run " + strconv.FormatUint(r.ID, 10) + ": " + r.Goal,
		GoalRunID: r.ID, Board: r.Board, Autonomy: r.Autonomy})
	if err != nil {
		return 0, err
	}
	l.gl.builds.Store(strconv.FormatUint(b.ID, 10), strconv.FormatUint(r.ID, 10))
	return b.ID, nil
}

// goalRunOf is the goal run a build carries ("" for other builds).
func (l *core) goalRunOf(buildID string) string {
	if v, ok := l.gl.builds.Load(buildID); ok {
		return v.(string)
	}
	return ""
}

// delegate runs one delegated task of a goal run's build to its end.
func (l *core) delegate(ctx context.Context, d goal.Delegation) (goal.Outcome, error) {
	eng := l.Builds()
	bid := d.Run.BuildID
	l.gl.builds.Store(strconv.FormatUint(bid, 10), strconv.FormatUint(d.Run.ID, 10))
	tasks, err := eng.Tasks(ctx, bid)
	if err != nil {
		return goal.Outcome{}, err
	}
	i := slices.IndexFunc(tasks, func(t build.Task) bool { return t.ID == d.TaskID })
	if i < 0 {
		if _, err := eng.AddTask(ctx, bid, build.TaskSpec{ID: d.TaskID, Title: d.Title, Description: d.Task, Agent: d.Agent,
			Include: d.Include}); err != nil {
			return goal.Outcome{}, err
		}
	} else if st := tasks[i].Status; st == build.TaskDone || st == build.TaskBlocked {
		return outcomeOf(tasks[i]), nil // finished before the process stopped
	}
	key := strconv.FormatUint(bid, 10)
	l.build.policy.Store(key, ApprovalPolicy(d.Options.Approvals))
	defer l.build.policy.Delete(key)
	run := eng.Run
	if d.Options.Attended {
		run = eng.RunAttended
	}
	b, err := run(ctx, bid, nil)
	if err != nil {
		return goal.Outcome{}, err
	}
	tasks, err = eng.Tasks(context.WithoutCancel(ctx), bid)
	if err != nil {
		return goal.Outcome{}, err
	}
	i = slices.IndexFunc(tasks, func(t build.Task) bool { return t.ID == d.TaskID })
	if i < 0 {
		return goal.Outcome{}, fmt.Errorf("build %d lost task %s", bid, d.TaskID)
	}
	t := tasks[i]
	if t.Status != build.TaskDone && t.Status != build.TaskBlocked {
		if ctx.Err() != nil {
			return goal.Outcome{}, ctx.Err()
		}
		return goal.Outcome{}, fmt.Errorf("the build stopped (%s): %s", b.Status, b.Reason)
	}
	return outcomeOf(t), nil
}

// outcomeOf is a finished task as the lead reads it.
func outcomeOf(t build.Task) goal.Outcome {
	o := goal.Outcome{Status: string(t.Status), Attempts: t.Attempts, Tokens: t.Tokens, ChangesetID: t.ChangesetID,
		Applied: t.Applied, Handoff: t.Handoff}
	if t.Status != build.TaskDone {
		o.Reason = t.Reason
	}
	if t.Verdict != nil {
		o.Verdict = string(t.Verdict.Status)
		if t.Verdict.Status != agents.VerdictPassed {
			o.Problems = t.Verdict.ProblemLines()
		}
	}
	if n := len(t.History); n > 0 && !t.History[n-1].Passed {
		a := t.History[n-1]
		o.Kind, o.Suggested, o.Hypothesis = a.Kind, a.SuggestedAgent, a.Hypothesis
		for _, h := range a.Hints {
			o.Hints = append(o.Hints, string(h))
		}
	}
	return o
}

// publishGoal turns a goal-run event into an engine event (TopicGoal).
func (l *core) publishGoal(ev goal.Event) {
	e := Event{Topic: TopicGoal, GoalRunID: strconv.FormatUint(ev.RunID, 10), TaskID: ev.TaskID, Status: ev.Status,
		Text: ev.Text, Done: ev.Turn}
	switch ev.Kind {
	case goal.KindDecision:
		e.Type = EventLeadDecision
	case goal.KindRejected:
		e.Type = EventDecisionRejected
	case goal.KindDelegating:
		e.Type = EventDelegation
	case goal.KindOutcome:
		e.Type = EventDelegationOutcome
	case goal.KindWaiting:
		e.Type = EventGoalWaiting
	case goal.KindAsking:
		e.Type = EventGoalAsking
	case goal.KindDone:
		e.Type = EventDone
	case goal.KindFailed:
		e.Type = EventFailed
	default:
		e.Type = EventChanged
	}
	if r, err := l.Goals().Store().Get(context.Background(), ev.RunID); err == nil && r.BuildID != 0 {
		e.BuildID = strconv.FormatUint(r.BuildID, 10)
	}
	l.Publish(e)
}

// stopGoalRuns interrupts the goal runs of this process before the
// database closes (Close), waiting at most a few seconds.
func (l *core) stopGoalRuns() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.runs.Shutdown(ctx, run.KindGoal)
}
