package ace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/storage"
)

// Confidence steps of the counters.
const (
	// SuccessStep is added to a rule's confidence for each success it took
	// part in; HarmStep removed for each harm reported.
	SuccessStep = 0.02
	HarmStep    = 0.1
	// DefaultConfidence is given to a manual rule added without one.
	DefaultConfidence = 0.8
	// MaxRules bounds a playbook; beyond it the weakest learned rule goes.
	MaxRules = 1000
)

var (
	playbookCodec = storage.Codec[Playbook]{Version: 1}
	versionCodec  = storage.Codec[Version]{Version: 1}
	pendingCodec  = storage.Codec[Pending]{Version: 1}
)

// Manager stores playbooks, their history and the pending queue.
type Manager struct {
	db   *storage.DB
	now  func() time.Time
	logf func(string, ...any)

	mu    sync.Mutex
	terms map[string][]string // rule content+tags → analysed terms (sorted, unique)

	// decoded caches the last decoded record per agent: a read whose bytes
	// are unchanged skips JSON decoding and validation (big playbooks are
	// read for every prompt).
	decMu   sync.Mutex
	decoded map[string]decodedPlaybook

	// OnChange, when set, is called after every committed write with the
	// operation ("playbook", "pending") and the agent.
	OnChange func(op, agent string)

	// ruleHook sees every change of rules' content in the write's
	// transaction (SetRuleHook).
	ruleHook atomic.Pointer[RuleHook]
}

func (m *Manager) changed(op, agent string) {
	if m.OnChange != nil {
		m.OnChange(op, agent)
	}
}

// NewManager returns a Manager over db.
func NewManager(db *storage.DB, now func() time.Time, logf func(string, ...any)) *Manager {
	if now == nil {
		now = time.Now
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Manager{db: db, now: now, logf: logf, terms: map[string][]string{}, decoded: map[string]decodedPlaybook{}}
}

type decodedPlaybook struct {
	raw []byte
	p   Playbook
}

func historyKey(agent string, version int) []byte {
	return append(append([]byte(agent), 0), storage.Key(uint64(version))...)
}

// load decodes and validates a playbook record; a bad record is logged and
// an empty playbook is returned.
func (m *Manager) load(b *bolt.Bucket, agent string) Playbook {
	return m.loadShared(b, agent).clone()
}

// loadShared is load without the final copy: the result may be shared with
// the cache and must not be modified.
func (m *Manager) loadShared(b *bolt.Bucket, agent string) Playbook {
	def := Playbook{Agent: agent}
	if b == nil {
		return def
	}
	raw := b.Get([]byte(agent))
	if raw == nil {
		return def
	}
	m.decMu.Lock()
	c, ok := m.decoded[agent]
	m.decMu.Unlock()
	if ok && bytes.Equal(c.raw, raw) {
		return c.p
	}
	p, err := playbookCodec.Unmarshal(raw)
	if err != nil {
		m.logf("ace: playbook %s: %v; using an empty playbook", agent, err)
		return def
	}
	p = m.validate(agent, p)
	m.decMu.Lock()
	if len(m.decoded) > 256 {
		clear(m.decoded)
	}
	m.decoded[agent] = decodedPlaybook{raw: bytes.Clone(raw), p: p}
	m.decMu.Unlock()
	return p
}

// readShared reads a playbook for ranking (not to be modified).
func (m *Manager) readShared(ctx context.Context, agent string) (Playbook, error) {
	agent = canonAgent(agent)
	if err := validAgent(agent); err != nil {
		return Playbook{}, err
	}
	if err := ctx.Err(); err != nil {
		return Playbook{}, err
	}
	var p Playbook
	err := m.db.View(func(tx *bolt.Tx) error {
		p = m.loadShared(tx.Bucket(storage.BucketPlaybooks), agent)
		return nil
	})
	return p, err
}

// validate repairs what it can: bad rules are dropped (and logged), the
// version and counters are made non-negative.
func (m *Manager) validate(agent string, p Playbook) Playbook {
	if p.Agent != agent {
		m.logf("ace: playbook %s: record names agent %q; fixed", agent, p.Agent)
		p.Agent = agent
	}
	p.Version = max(p.Version, 0)
	p.Tasks = max(p.Tasks, 0)
	p.Successes = min(max(p.Successes, 0), p.Tasks)
	seen := map[string]bool{}
	rules := p.Rules[:0]
	for _, r := range p.Rules {
		r.Content = cleanText(r.Content)
		bad := ""
		switch {
		case r.ID == "" || seen[r.ID]:
			bad = "missing or duplicate id"
		case r.Content == "":
			bad = "empty content"
		case math.IsNaN(r.Confidence) || r.Confidence < 0 || r.Confidence > 1:
			bad = "confidence outside 0–1"
		case !r.Source.Valid():
			bad = "unknown source " + strconv.Quote(string(r.Source))
		}
		if bad != "" {
			m.logf("ace: playbook %s: rule %q dropped: %s", agent, r.ID, bad)
			continue
		}
		seen[r.ID] = true
		r.Kind = ParseKind(string(r.Kind))
		r.AppliedCount, r.SuccessCount = max(r.AppliedCount, 0), max(r.SuccessCount, 0)
		r.HarmfulCount, r.HelpfulCount = max(r.HarmfulCount, 0), max(r.HelpfulCount, 0)
		if n, err := strconv.Atoi(strings.TrimPrefix(r.ID, "r")); err == nil && n >= p.NextRule {
			p.NextRule = n
		}
		rules = append(rules, r)
	}
	p.Rules = rules
	return p
}

// GetPlaybook returns an agent's playbook (an empty one, version 0, when it
// has none).
func (m *Manager) GetPlaybook(ctx context.Context, agent string) (Playbook, error) {
	agent = canonAgent(agent)
	if err := validAgent(agent); err != nil {
		return Playbook{}, err
	}
	if err := ctx.Err(); err != nil {
		return Playbook{}, err
	}
	var p Playbook
	err := m.db.View(func(tx *bolt.Tx) error {
		p = m.load(tx.Bucket(storage.BucketPlaybooks), agent)
		return nil
	})
	return p, err
}

// List summarises every stored playbook, by agent.
func (m *Manager) List(ctx context.Context) ([]Summary, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Summary{}
	err := m.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketPlaybooks)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			p := m.load(b, string(k))
			out = append(out, Summary{Agent: p.Agent, Version: p.Version, Rules: len(p.Rules),
				SuccessRate: p.SuccessRate(), Tasks: p.Tasks, UpdatedAt: p.UpdatedAt})
			return nil
		})
	})
	return out, err
}

// modify runs fn on the agent's playbook in one write transaction and stores
// it; fn returns whether anything changed.
func (m *Manager) modify(ctx context.Context, agent string, fn func(tx *bolt.Tx, p *Playbook) (bool, error)) (Playbook, error) {
	agent = canonAgent(agent)
	if err := validAgent(agent); err != nil {
		return Playbook{}, err
	}
	if err := ctx.Err(); err != nil {
		return Playbook{}, err
	}
	if m.db.ReadOnly() {
		return Playbook{}, storage.ErrReadOnly
	}
	var out Playbook
	err := m.db.Update(func(tx *bolt.Tx) error {
		var err error
		out, err = m.modifyTx(tx, agent, fn)
		return err
	})
	if err == nil {
		m.changed("playbook", agent)
	}
	return out, err
}

// modifyTx is modify's work inside tx, for a canonical, valid agent name; the caller
// publishes the change after the commit.
func (m *Manager) modifyTx(tx *bolt.Tx, agent string, fn func(tx *bolt.Tx, p *Playbook) (bool, error)) (Playbook, error) {
	b := tx.Bucket(storage.BucketPlaybooks)
	if b == nil {
		return Playbook{}, fmt.Errorf("bucket %s missing", storage.BucketPlaybooks)
	}
	p := m.load(b, agent)
	changed, err := fn(tx, &p)
	if err != nil {
		return Playbook{}, err
	}
	if changed {
		if p.CreatedAt.IsZero() {
			p.CreatedAt = m.now()
		}
		p.UpdatedAt = m.now()
		if err := playbookCodec.Put(b, []byte(agent), p); err != nil {
			return Playbook{}, err
		}
	}
	return p.clone(), nil
}

// UpdatePlaybook applies deltas in order, bumps the version once and
// records the version with its changes in the history. Deltas that do not
// apply (unknown rule, empty content) fail the whole update. Origin names
// the caller (curator, manual, review, signal, pending).
func (m *Manager) UpdatePlaybook(ctx context.Context, agent string, deltas []Delta, origin string) (Playbook, Version, error) {
	var ver Version
	for i := range deltas {
		if err := deltas[i].normalize(); err != nil {
			return Playbook{}, ver, fmt.Errorf("delta %d: %w", i+1, err)
		}
	}
	if len(deltas) == 0 {
		return Playbook{}, ver, invalidf("no deltas")
	}
	p, err := m.modify(ctx, agent, func(tx *bolt.Tx, p *Playbook) (bool, error) {
		now := m.now()
		var changes []Change
		for i, d := range deltas {
			c, err := applyDelta(p, d, now)
			if err != nil {
				return false, fmt.Errorf("delta %d: %w", i+1, err)
			}
			changes = append(changes, c)
		}
		changes = append(changes, trim(p)...)
		p.Version++
		ver = Version{Agent: p.Agent, Version: p.Version, Origin: origin,
			Deltas: slices.Clone(deltas), Changes: changes, At: now}
		if err := m.ruleHookTx(tx, p.Agent, changes); err != nil {
			return false, err
		}
		return true, versionCodec.Put(tx.Bucket(storage.BucketPlaybookHistory), historyKey(p.Agent, p.Version), ver)
	})
	if err != nil {
		return Playbook{}, Version{}, err
	}
	return p, ver, nil
}

func applyDelta(p *Playbook, d Delta, now time.Time) (Change, error) {
	switch d.Op {
	case OpAdd:
		p.NextRule++
		conf := d.Confidence
		if conf == 0 {
			conf = DefaultConfidence
		}
		r := Rule{ID: "r" + strconv.Itoa(p.NextRule), Content: d.Content, Kind: d.Kind, Source: d.Source,
			Confidence: conf, Tags: slices.Clone(d.Tags), CreatedAt: now, UpdatedAt: now}
		p.Rules = append(p.Rules, r)
		after := r.clone()
		return Change{Op: OpAdd, RuleID: r.ID, After: &after, Reason: d.Reason}, nil
	case OpUpdate:
		i := p.index(d.RuleID)
		if i < 0 {
			return Change{}, fmt.Errorf("%w: rule %s", ErrNotFound, d.RuleID)
		}
		before := p.Rules[i].clone()
		r := &p.Rules[i]
		if d.Content != "" {
			r.Content = d.Content
		}
		if d.Confidence > 0 {
			r.Confidence = d.Confidence
		}
		if d.Tags != nil {
			r.Tags = slices.Clone(d.Tags)
		}
		if d.Kind != "" && d.Content != "" {
			r.Kind = d.Kind
		}
		r.UpdatedAt = now
		after := r.clone()
		return Change{Op: OpUpdate, RuleID: r.ID, Before: &before, After: &after, Reason: d.Reason}, nil
	default: // OpRemove
		i := p.index(d.RuleID)
		if i < 0 {
			return Change{}, fmt.Errorf("%w: rule %s", ErrNotFound, d.RuleID)
		}
		before := p.Rules[i].clone()
		p.Rules = slices.Delete(p.Rules, i, i+1)
		if before.Team != nil && !slices.Contains(p.TeamDropped, before.Team.Subject) {
			p.TeamDropped = append(p.TeamDropped, before.Team.Subject)
		}
		return Change{Op: OpRemove, RuleID: before.ID, Before: &before, Reason: d.Reason}, nil
	}
}

// trim removes the weakest learned rules beyond MaxRules.
func trim(p *Playbook) []Change {
	var out []Change
	for len(p.Rules) > MaxRules {
		worst := -1
		for i, r := range p.Rules {
			if r.Source == SourceManual {
				continue
			}
			if worst < 0 || r.Confidence < p.Rules[worst].Confidence {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		before := p.Rules[worst].clone()
		p.Rules = slices.Delete(p.Rules, worst, worst+1)
		out = append(out, Change{Op: OpRemove, RuleID: before.ID, Before: &before, Reason: "playbook full"})
	}
	return out
}

// AddRule adds a manual rule (a version bump).
func (m *Manager) AddRule(ctx context.Context, agent, content string, tags []string, confidence float64) (Rule, Playbook, error) {
	p, v, err := m.UpdatePlaybook(ctx, agent, []Delta{{Op: OpAdd, Content: content, Source: SourceManual,
		Confidence: confidence, Tags: tags, Reason: "added by the user"}}, "manual")
	if err != nil {
		return Rule{}, Playbook{}, err
	}
	r, _ := p.Rule(v.Changes[0].RuleID)
	return r, p, nil
}

// EditRule changes a rule's content, tags (nil keeps them) or confidence
// (0 keeps it).
func (m *Manager) EditRule(ctx context.Context, agent, ruleID, content string, tags []string, confidence float64) (Rule, error) {
	p, _, err := m.UpdatePlaybook(ctx, agent, []Delta{{Op: OpUpdate, RuleID: ruleID, Content: content,
		Source: SourceManual, Confidence: confidence, Tags: tags, Reason: "edited by the user"}}, "manual")
	if err != nil {
		return Rule{}, err
	}
	r, _ := p.Rule(ruleID)
	return r, nil
}

// DeleteRule removes a rule.
func (m *Manager) DeleteRule(ctx context.Context, agent, ruleID string) error {
	_, _, err := m.UpdatePlaybook(ctx, agent, []Delta{{Op: OpRemove, RuleID: ruleID, Source: SourceManual,
		Reason: "deleted by the user"}}, "manual")
	return err
}

// History returns an agent's versions, newest first.
func (m *Manager) History(ctx context.Context, agent string) ([]Version, error) {
	agent = canonAgent(agent)
	if err := validAgent(agent); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Version{}
	prefix := append([]byte(agent), 0)
	err := m.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketPlaybookHistory)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			ver, err := versionCodec.Unmarshal(v)
			if err != nil {
				m.logf("ace: history %s: %v; skipped", agent, err)
				continue
			}
			out = append(out, ver)
		}
		return nil
	})
	slices.Reverse(out)
	return out, err
}

// counters updates rule counters without a version bump.
func (m *Manager) counters(ctx context.Context, agent string, ids []string, fn func(r *Rule)) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := m.modify(ctx, agent, func(_ *bolt.Tx, p *Playbook) (bool, error) {
		changed := false
		for _, id := range ids {
			if i := p.index(id); i >= 0 {
				fn(&p.Rules[i])
				changed = true
			}
		}
		return changed, nil
	})
	return err
}

// IncrementApplied counts the rules as injected into a prompt.
func (m *Manager) IncrementApplied(ctx context.Context, agent string, ids []string) error {
	return m.counters(ctx, agent, ids, func(r *Rule) { r.AppliedCount++ })
}

// RecordSuccess credits the rules with a success: successCount and
// helpfulCount grow, confidence rises by SuccessStep.
func (m *Manager) RecordSuccess(ctx context.Context, agent string, ids []string) error {
	return m.counters(ctx, agent, ids, func(r *Rule) {
		r.SuccessCount++
		r.HelpfulCount++
		r.AppliedCount = max(r.AppliedCount, r.SuccessCount)
		r.Confidence = min(1, r.Confidence+SuccessStep)
	})
}

// RecordHarm reports the rules as harmful (a user rejected the change they
// shaped): harmfulCount grows, confidence drops by HarmStep.
func (m *Manager) RecordHarm(ctx context.Context, agent string, ids []string) error {
	return m.counters(ctx, agent, ids, func(r *Rule) {
		r.HarmfulCount++
		r.Confidence = max(0, r.Confidence-HarmStep)
	})
}

// RecordTaskApplied records a finished task: the playbook's task counters,
// and a success for the rules that were applied to it.
func (m *Manager) RecordTaskApplied(ctx context.Context, agent string, ids []string, success bool) error {
	_, err := m.modify(ctx, agent, taskApplied(ids, success))
	return err
}

// taskApplied is RecordTaskApplied's change to a playbook.
func taskApplied(ids []string, success bool) func(*bolt.Tx, *Playbook) (bool, error) {
	return func(_ *bolt.Tx, p *Playbook) (bool, error) {
		p.Tasks++
		if success {
			p.Successes++
			for _, id := range ids {
				if i := p.index(id); i >= 0 {
					r := &p.Rules[i]
					r.SuccessCount++
					r.HelpfulCount++
					r.AppliedCount = max(r.AppliedCount, r.SuccessCount)
					r.Confidence = min(1, r.Confidence+SuccessStep)
				}
			}
		}
		return true, nil
	}
}

// Thresholds of global candidates.
const (
	GlobalMinConfidence = 0.85
	GlobalMinSuccesses  = 3
)

// GetGlobalCandidates lists an agent's rules that may become global wisdom:
// confidence ≥ 0.85, successCount ≥ 3 and not themselves from global wisdom.
func (m *Manager) GetGlobalCandidates(ctx context.Context, agent string) ([]Rule, error) {
	p, err := m.GetPlaybook(ctx, agent)
	if err != nil {
		return nil, err
	}
	var out []Rule
	for _, r := range p.Rules {
		if r.Confidence >= GlobalMinConfidence && r.SuccessCount >= GlobalMinSuccesses && r.Source != SourceGlobal {
			out = append(out, r)
		}
	}
	return out, nil
}

// ScoredRule is a rule with its relevance to a task.
type ScoredRule struct {
	Rule
	Relevance float64 `json:"relevance"`
	Overlap   float64 `json:"overlap"`
}

// GetActiveRules returns the rules most relevant to a task, best first (see
// the package comment for the formula); limit ≤ 0 means all.
func (m *Manager) GetActiveRules(ctx context.Context, agent, task string, limit int) ([]ScoredRule, error) {
	p, err := m.readShared(ctx, agent)
	if err != nil {
		return nil, err
	}
	return m.rank(p, task, limit), nil
}

func (m *Manager) rank(p Playbook, task string, limit int) []ScoredRule {
	q := uniqueSorted(textindex.Analyze(task))
	type scored struct {
		i            int
		rel, overlap float64
	}
	sc := make([]scored, len(p.Rules))
	m.mu.Lock()
	for i, r := range p.Rules {
		terms := m.ruleTerms(r)
		overlap := 0.0
		if len(q) > 0 {
			overlap = float64(countCommon(q, terms)) / float64(len(q))
		}
		rel := r.Confidence * r.smoothedSuccess() * (0.1 + 0.9*overlap) * (1 - 0.5*r.harmRate())
		sc[i] = scored{i, rel, overlap}
	}
	m.mu.Unlock()
	// Sort small records, not rules: ties by confidence, then playbook order.
	slices.SortFunc(sc, func(a, b scored) int {
		switch {
		case a.rel != b.rel:
			return cmpDesc(a.rel, b.rel)
		case p.Rules[a.i].Confidence != p.Rules[b.i].Confidence:
			return cmpDesc(p.Rules[a.i].Confidence, p.Rules[b.i].Confidence)
		}
		return a.i - b.i
	})
	if limit > 0 && len(sc) > limit {
		sc = sc[:limit]
	}
	out := make([]ScoredRule, len(sc))
	for k, s := range sc {
		out[k] = ScoredRule{Rule: p.Rules[s.i].clone(), Relevance: s.rel, Overlap: s.overlap}
	}
	return out
}

func cmpDesc(a, b float64) int {
	if a > b {
		return -1
	}
	return 1
}

// ruleTerms caches the analysed terms of a rule's content and tags (m.mu
// held). The cache is bounded by dropping it whole when it grows large.
func (m *Manager) ruleTerms(r Rule) []string {
	key := r.Content + "\x00" + strings.Join(r.Tags, " ")
	if t, ok := m.terms[key]; ok {
		return t
	}
	if len(m.terms) > 20000 {
		m.terms = map[string][]string{}
	}
	t := uniqueSorted(textindex.Analyze(r.Content + " " + strings.Join(r.Tags, " ")))
	m.terms[key] = t
	return t
}

func uniqueSorted(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

func countCommon(a, b []string) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			n++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return n
}

// AddPending queues a delta for human review.
func (m *Manager) AddPending(ctx context.Context, agent string, d Delta, origin string) (Pending, error) {
	agent = canonAgent(agent)
	if err := validAgent(agent); err != nil {
		return Pending{}, err
	}
	if err := d.normalize(); err != nil {
		return Pending{}, err
	}
	if err := ctx.Err(); err != nil {
		return Pending{}, err
	}
	if m.db.ReadOnly() {
		return Pending{}, storage.ErrReadOnly
	}
	pd := Pending{Agent: agent, Delta: d, Origin: origin, CreatedAt: m.now()}
	err := m.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketPlaybookPending)
		id, err := storage.NextID(b)
		if err != nil {
			return err
		}
		pd.ID = id
		return pendingCodec.Put(b, storage.Key(id), pd)
	})
	if err == nil {
		m.changed("pending", agent)
	}
	return pd, err
}

// ListPending returns the pending deltas, oldest first. Unreadable records
// are logged and skipped.
func (m *Manager) ListPending(ctx context.Context) ([]Pending, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Pending{}
	err := m.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketPlaybookPending)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			p, err := pendingCodec.Unmarshal(v)
			if err != nil {
				m.logf("ace: pending %d: %v; skipped", storage.ParseKey(k), err)
				return nil
			}
			out = append(out, p)
			return nil
		})
	})
	return out, err
}

// CountPending counts the pending deltas.
func (m *Manager) CountPending(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return m.db.Count(storage.BucketPlaybookPending)
}

func (m *Manager) takePending(ctx context.Context, id uint64) (Pending, error) {
	if err := ctx.Err(); err != nil {
		return Pending{}, err
	}
	if m.db.ReadOnly() {
		return Pending{}, storage.ErrReadOnly
	}
	var p Pending
	err := m.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(storage.BucketPlaybookPending)
		raw := b.Get(storage.Key(id))
		if raw == nil {
			return fmt.Errorf("%w: pending delta %d", ErrNotFound, id)
		}
		var err error
		if p, err = pendingCodec.Unmarshal(raw); err != nil {
			m.logf("ace: pending %d: %v; removed", id, err)
		}
		return b.Delete(storage.Key(id))
	})
	if err == nil {
		m.changed("pending", p.Agent)
	}
	return p, err
}

// Approve applies a pending delta to its playbook (a version bump) and
// removes it from the queue. A delta that no longer applies (its rule is
// gone) is removed and the error says why.
func (m *Manager) Approve(ctx context.Context, id uint64) (Playbook, error) {
	p, err := m.takePending(ctx, id)
	if err != nil {
		return Playbook{}, err
	}
	if p.Agent == "" {
		return Playbook{}, fmt.Errorf("%w: pending delta %d was unreadable and is removed", ErrInvalid, id)
	}
	pb, _, err := m.UpdatePlaybook(ctx, p.Agent, []Delta{p.Delta}, "approved:"+p.Origin)
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalid) {
			return Playbook{}, fmt.Errorf("pending delta %d no longer applies and is removed: %w", id, err)
		}
		// Put it back: the failure is not the delta's fault.
		if _, qerr := m.requeue(p); qerr != nil {
			m.logf("ace: requeue pending %d: %v", id, qerr)
		}
		return Playbook{}, err
	}
	return pb, nil
}

func (m *Manager) requeue(p Pending) (Pending, error) {
	return p, m.db.Update(func(tx *bolt.Tx) error {
		return pendingCodec.Put(tx.Bucket(storage.BucketPlaybookPending), storage.Key(p.ID), p)
	})
}

// Reject removes a pending delta without applying it.
func (m *Manager) Reject(ctx context.Context, id uint64) (Pending, error) {
	return m.takePending(ctx, id)
}
