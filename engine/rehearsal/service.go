package rehearsal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/storage"
)

// PlaybookFunc returns the playbook block for an agent and task and the ids
// of its rules (nil: no playbooks).
type PlaybookFunc func(ctx context.Context, agent, task string, budgetTokens int) (string, []string, error)

// Service runs rehearsals for one workspace.
type Service struct {
	DB      *storage.DB
	Root    string
	LLM     llm.Provider
	Changes *changes.Store
	// Vault is optional: without it there is no vault context, taste
	// alignment is neutral and nothing is learned.
	Vault *vault.Vault
	// Config returns the current workspace config.
	Config func() workspace.Config
	// Playbook is optional.
	Playbook PlaybookFunc
	// CallTimeout bounds one branch's model call (0: the client's default).
	CallTimeout time.Duration
	// Notify hears of every committed session change.
	Notify func(Session)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Request asks for a rehearsal of one task.
type Request struct {
	Task    prd.Task
	Agent   string
	BuildID string
	// Context holds extra prompt blocks (dependency outputs, knowledge…).
	Context []string
	// KnowledgeIDs are the facts, docs and patterns Context carries
	// ("fact:f3", "docs:…"); kept on the session as provenance.
	KnowledgeIDs []string
	// Branches is the number of branches (0: config rehearsal.branches).
	Branches int
	// Force rehearses even when ShouldRehearse says no.
	Force bool
	// Autonomy overrides the config's autonomy when > 0, or always when
	// AutonomySet (a build's own level, 0 included).
	Autonomy    int
	AutonomySet bool
	// ApplyAuto applies an automatically selected branch (the CLI); the
	// build engine applies the changeset itself and leaves it false.
	ApplyAuto bool
}

// ShouldRehearse is the package function, as a method for hooks.
func (s *Service) ShouldRehearse(t prd.Task) bool { return ShouldRehearse(t) }

// TierError says the tier does not allow rehearsal.
func tierError(tier string) error {
	return fmt.Errorf("%w: the workspace tier is %q (set tier: premium in .nova/config.yaml or NOVA_TIER=premium)", ErrTier, tier)
}

// Rehearse generates, scores and stores a session. Below autonomy 3 it
// returns a pending session; at 3 and above the best branch is selected
// automatically (staged, and applied when req.ApplyAuto). A rehearsal with
// no valid branch returns the failed session and an error wrapping
// ErrNoValid that lists the reasons.
func (s *Service) Rehearse(ctx context.Context, req Request) (Session, error) {
	cfg := s.Config()
	if cfg.Tier != workspace.TierPremium {
		return Session{}, tierError(cfg.Tier)
	}
	if !req.Force && !ShouldRehearse(req.Task) {
		return Session{}, fmt.Errorf("task %s does not need a rehearsal (force it to rehearse anyway)", req.Task.ID)
	}
	autonomy := cfg.Autonomy
	if req.Autonomy > 0 || req.AutonomySet {
		autonomy = req.Autonomy
	}
	agent := cmpOr(req.Agent, req.Task.Agent)
	now := s.now()
	// What earlier rehearsals of this task tried, and what the user chose
	// or rejected, goes into the branches' prompts.
	blocks := append(slices.Clone(req.Context), s.priorContext(ctx, req)...)
	ss := Session{
		TaskID: req.Task.ID, TaskTitle: req.Task.Title, TaskType: TaskType(req.Task),
		Description: req.Task.Description, AgentName: agent, BuildID: req.BuildID,
		Status: StatusPending, Context: blocks, KnowledgeIDs: req.KnowledgeIDs, Autonomy: autonomy,
		Branches: []Branch{}, Results: []Result{}, Rounds: []Round{},
		CreatedAt: now,
	}
	n := req.Branches
	if n == 0 {
		n = cfg.Rehearsal.Branches
	}
	if err := s.addRound(ctx, &ss, n); err != nil {
		if errors.Is(err, ErrNoValid) {
			ss.Status, ss.Failure = StatusFailed, err.Error()
			if serr := s.save(&ss); serr != nil {
				return ss, errors.Join(err, serr)
			}
		}
		return ss, err
	}
	if err := s.save(&ss); err != nil {
		return ss, err
	}
	if autonomy >= AutoAutonomy {
		return s.autoSelect(ctx, ss, req.ApplyAuto)
	}
	return ss, nil
}

// Regenerate adds a new round of branches to a pending session.
func (s *Service) Regenerate(ctx context.Context, id uint64) (Session, error) {
	ss, err := s.Get(ctx, id)
	if err != nil {
		return ss, err
	}
	if !ss.Pending() {
		return ss, fmt.Errorf("regenerate rehearsal %d: %w (it is %s)", id, ErrNotPending, ss.Status)
	}
	n := len(ss.Branches)
	if n == 0 {
		n = s.Config().Rehearsal.Branches
	}
	if err := s.addRound(ctx, &ss, n); err != nil {
		return ss, err
	}
	if err := s.save(&ss); err != nil {
		return ss, err
	}
	return ss, nil
}

// addRound generates and scores one round and makes it the current one.
func (s *Service) addRound(ctx context.Context, ss *Session, n int) error {
	cfg := s.Config()
	if n <= 0 {
		n = DefaultBranches
	}
	n = min(n, MaxBranches)
	model := firstNonEmpty(cfg.Models.Large, cfg.Models.Medium, cfg.Models.Small)
	if model == "" {
		return ErrNoModel
	}
	round := len(ss.Rounds) + 1
	taskText := strings.TrimSpace(ss.TaskTitle + "\n" + ss.Description)
	budget := cfg.Budgets.PromptTokens
	blocks := append([]string{}, ss.Context...)
	var injected vault.Injected
	var patterns []vault.Scored
	// A build hands over the context blocks it already assembled (vault,
	// playbook); they are not injected twice.
	hasVault := slices.ContainsFunc(blocks, func(b string) bool { return strings.Contains(b, "<taste_vault_context>") })
	hasPlaybook := slices.ContainsFunc(blocks, func(b string) bool { return strings.Contains(b, "<playbook_context") })
	if s.Vault != nil {
		vc, err := s.Vault.BuildVaultContext(ctx, taskText, ss.AgentName, cfg.Tier, budget)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			injected = vc.Injected
			if vc.Text != "" && !hasVault {
				blocks = append(blocks, vc.Text)
			}
		}
		patterns, _ = s.Vault.GetRelevantPatterns(ctx, taskText, 8)
	}
	var ruleIDs []string
	if s.Playbook != nil && !hasPlaybook {
		pb, ids, err := s.Playbook(ctx, ss.AgentName, taskText, budget/10)
		if err == nil && pb != "" {
			blocks = append(blocks, pb)
			ruleIDs = ids
		}
	}
	if prev := previousRoundContext(*ss); prev != "" {
		blocks = append(blocks, prev)
	}
	user := userPrompt(ss.TaskTitle, ss.Description)
	blocks, user, trimmed, err := s.fit(ctx, model, ss.AgentName, blocks, user)
	if err != nil {
		return err
	}
	ins := make([]genInput, n)
	for i := range n {
		a := Approaches()[i]
		ins[i] = genInput{approach: a, round: round, index: i,
			system:   systemPrompt(ss.AgentName, a, blocks),
			user:     user,
			injected: injected, ruleIDs: ruleIDs}
	}
	outs := s.generate(ctx, model, cfg.Rehearsal.Concurrency, ins)
	if err := ctx.Err(); err != nil {
		return err
	}
	r := Round{N: round, Branches: []Branch{}, Results: []Result{}, Skipped: []Skipped{}, Trimmed: trimmed, CreatedAt: s.now()}
	for _, o := range outs {
		if o.skipped != nil {
			r.Skipped = append(r.Skipped, *o.skipped)
			continue
		}
		r.Branches = append(r.Branches, o.branch)
	}
	if len(r.Branches) == 0 {
		var reasons []string
		for _, sk := range r.Skipped {
			reasons = append(reasons, fmt.Sprintf("%s: %s", sk.Approach, sk.Reason))
		}
		ss.Rounds = append(ss.Rounds, r)
		// Classify the whole round by its branches' failures (engine/failure):
		// all of one kind (say, the model server is unreachable) is that kind;
		// a mix is invalid output.
		kind := failure.InvalidOutput
		if k := r.Skipped[0].Kind; k != "" && !slices.ContainsFunc(r.Skipped, func(x Skipped) bool { return x.Kind != k }) {
			kind = k
		}
		return failure.New(kind, fmt.Errorf("%w for task %s: %s", ErrNoValid, ss.TaskID, strings.Join(reasons, "; ")))
	}
	var checks *CheckRunner
	if len(cfg.Checks) > 0 {
		checks = &CheckRunner{Root: s.Root, Checks: cfg.Checks, Timeout: cfg.Commands.Timeout.D()}
	}
	// Branches are scored concurrently too (checks on temporary copies can
	// be slow), within the same concurrency limit.
	r.Results = make([]Result, len(r.Branches))
	errs := make([]error, len(r.Branches))
	sem := make(chan struct{}, max(1, cfg.Rehearsal.Concurrency))
	var wg sync.WaitGroup
	for i, b := range r.Branches {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			res, hit, err := scoreBranch(ctx, b, checks, patterns)
			res.Reflected = hit
			r.Results[i], errs[i] = res, err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("score branch %s: %w", r.Branches[i].ID, err)
		}
	}
	ss.Rounds = append(ss.Rounds, r)
	ss.Branches, ss.Results = r.Branches, r.Results
	return nil
}

// previousRoundContext tells a regenerated round what the last one tried.
// maxPriorSessions is how many earlier sessions of a task a new rehearsal
// is told about; priorScan how many recent sessions are looked through.
const (
	maxPriorSessions = 2
	priorScan        = 64
)

// priorContext is the <rehearsal_context> of the newest decided sessions
// of the same task (same build and task id, or the same task title outside
// a build): a new rehearsal does not offer again what the user rejected.
func (s *Service) priorContext(ctx context.Context, req Request) []string {
	prior, err := s.List(ctx, Filter{Limit: priorScan})
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range prior {
		same := p.TaskID == req.Task.ID && p.BuildID == req.BuildID &&
			(req.BuildID != "" || p.TaskTitle == req.Task.Title)
		if !same || p.Pending() || len(p.Branches) == 0 {
			continue
		}
		out = append(out, BuildRehearsalContext(p))
		if len(out) == maxPriorSessions {
			break
		}
	}
	return out
}

func previousRoundContext(ss Session) string {
	if len(ss.Rounds) == 0 {
		return ""
	}
	last := ss.Rounds[len(ss.Rounds)-1]
	var b strings.Builder
	b.WriteString("<previous_rehearsal_round>\nThe user asked for new candidates; do not repeat these:\n")
	for _, br := range last.Branches {
		fmt.Fprintf(&b, "- %s: %s\n", br.Approach, oneLine(br.Description, 200))
	}
	b.WriteString("</previous_rehearsal_round>")
	return b.String()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// CheckTier returns an error wrapping ErrTier unless tier is premium (a
// command checks it before it announces a rehearsal).
func CheckTier(tier string) error {
	if tier != workspace.TierPremium {
		return tierError(tier)
	}
	return nil
}

// TierAllows returns an error wrapping ErrTier unless the tier is premium.
func (s *Service) TierAllows() error {
	cfg := s.Config()
	if cfg.Tier != workspace.TierPremium {
		return tierError(cfg.Tier)
	}
	return nil
}
