package ace

import (
	"context"
	"errors"
	"time"

	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/vault"
	"github.com/nova-dev/nova/storage"
)

// Options configures a System.
type Options struct {
	// LLM and SmallModel run the reflector (nil or "": no reflection).
	LLM        llm.Provider
	SmallModel string
	// Autonomy returns the current autonomy level (nil: 0). The reflector
	// and curator run after a task at autonomy ≥ 3.
	Autonomy func() int
	// Vault returns the taste vault (nil, or returning nil: no vault).
	Vault func() VaultAPI
	Now   func() time.Time
	// Logf receives logged errors (nil: discarded).
	Logf func(string, ...any)
	// OnChange is called after every committed playbook or pending write.
	OnChange func(op, agent string)
}

// ReflectAutonomy is the autonomy from which the reflector runs after
// every task.
const ReflectAutonomy = 3

// System is the ACE playbook system of one workspace: the playbook manager,
// generator, reflector, curator, self-improvement and user signals.
type System struct {
	db        *storage.DB
	m         *Manager
	reflector *Reflector
	curator   *Curator
	vault     func() VaultAPI
	autonomy  func() int
	now       func() time.Time
	logger    func(string, ...any)
}

// New builds a System over db.
func New(db *storage.DB, o Options) *System {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Autonomy == nil {
		o.Autonomy = func() int { return 0 }
	}
	m := NewManager(db, o.Now, o.Logf)
	m.OnChange = o.OnChange
	return &System{
		db: db, m: m,
		reflector: &Reflector{LLM: o.LLM, Model: o.SmallModel, Logf: o.Logf},
		curator:   &Curator{M: m, Vault: o.Vault, Logf: o.Logf},
		vault:     o.Vault, autonomy: o.Autonomy, now: o.Now, logger: o.Logf,
	}
}

func (s *System) logf(format string, a ...any) { s.logger(format, a...) }

// Playbooks is the playbook manager (CRUD, history, pending queue).
func (s *System) Playbooks() *Manager { return s.m }

// Curator is the curator.
func (s *System) Curator() *Curator { return s.curator }

// Reflector is the reflector.
func (s *System) Reflector() *Reflector { return s.reflector }

// Context renders the playbook block for a task within budgetTokens and
// counts its rules as applied (a failure to count is logged: the block is
// still returned).
func (s *System) Context(ctx context.Context, agent, task string, budgetTokens int) (Injected, error) {
	inj, err := s.m.Generate(ctx, agent, task, budgetTokens)
	if err != nil || len(inj.RuleIDs) == 0 {
		return inj, err
	}
	if err := s.m.IncrementApplied(ctx, agent, inj.RuleIDs); err != nil && !errors.Is(err, storage.ErrReadOnly) {
		s.logf("ace: record applied rules of %s: %v", inj.Agent, err)
	}
	return inj, nil
}

// AfterReport says what AfterTask did.
type AfterReport struct {
	TaskType  string        `json:"taskType"`
	Reflected bool          `json:"reflected"`
	Deltas    []Delta       `json:"deltas,omitempty"`
	Curate    *CurateReport `json:"curate,omitempty"`
	Review    *ReviewReport `json:"review,omitempty"`
}

// AfterTask records a finished task: the rules applied and the success,
// the self-improvement outcome; at autonomy ≥ 3 (or when reflect is
// forced) the reflector and curator; and a review when one is due. Only
// storage errors are returned; the learning steps log theirs.
func (s *System) AfterTask(ctx context.Context, o Outcome, forceReflect bool) (AfterReport, error) {
	rep := AfterReport{TaskType: TaskType(o.Title)}
	if err := s.recordTask(ctx, o, rep.TaskType); err != nil {
		return rep, err
	}
	level := o.Autonomy // the build's level wins over the configured one
	if level == 0 && !o.AutonomySet {
		level = s.autonomy()
	}
	if forceReflect || level >= ReflectAutonomy {
		cr, ds := s.Reflect(ctx, o)
		rep.Reflected, rep.Deltas, rep.Curate = true, ds, cr
	}
	if p, err := s.Profile(ctx, o.Agent); err == nil {
		if due, _ := s.ReviewDue(p); due {
			rr, err := s.RunReview(ctx, o.Agent, false)
			if err != nil {
				s.logf("ace: review of %s: %v", o.Agent, err)
			} else {
				rep.Review = &rr
			}
		}
	}
	return rep, nil
}

// Reflect runs the reflector on an outcome and curates its deltas (on
// demand, or from AfterTask). It never fails: problems are logged.
func (s *System) Reflect(ctx context.Context, o Outcome) (*CurateReport, []Delta) {
	p, err := s.m.GetPlaybook(ctx, o.Agent)
	if err != nil {
		s.logf("ace: reflect %s: %v", o.Agent, err)
		return nil, nil
	}
	rules := p.Rules
	if len(rules) > 30 {
		ranked := s.m.rank(p, o.Title+" "+o.Task, 30)
		rules = make([]Rule, len(ranked))
		for i, r := range ranked {
			rules[i] = r.Rule
		}
	}
	ds := s.reflector.Reflect(ctx, o, rules)
	if len(ds) == 0 {
		return nil, nil
	}
	cr, err := s.curator.Curate(ctx, o.Agent, ds, CurateOptions{Origin: "curator"})
	if err != nil {
		s.logf("ace: curate %s: %v", o.Agent, err)
		return nil, ds
	}
	return &cr, ds
}

// Approve applies a pending delta (see Manager.Approve).
func (s *System) Approve(ctx context.Context, id uint64) (Playbook, error) {
	return s.m.Approve(ctx, id)
}

// Reject drops a pending delta (see Manager.Reject).
func (s *System) Reject(ctx context.Context, id uint64) (Pending, error) { return s.m.Reject(ctx, id) }

// vaultNode learns a node in the vault when one is available; failures are
// logged.
func (s *System) vaultNode(ctx context.Context, n vault.Node) uint64 {
	if s.vault == nil {
		return 0
	}
	v := s.vault()
	if v == nil {
		return 0
	}
	rs, err := v.LearnAs(ctx, vault.ByLearning, n)
	if err != nil {
		s.logf("ace: vault: %v", err)
		return 0
	}
	if len(rs) == 0 || rs[0].NotStored {
		return 0
	}
	return rs[0].Node.ID
}
