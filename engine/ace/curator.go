package ace

import (
	"context"
	"fmt"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/nova-dev/nova/engine/textindex"
	"github.com/nova-dev/nova/engine/vault"
)

// Curator thresholds.
const (
	// DedupThreshold is the Jaccard similarity of words from which a delta
	// duplicates a rule.
	DedupThreshold = 0.65
	// MinScore rejects deltas scoring below it.
	MinScore = 0.4
	// MaxPerRound is the most deltas applied by one curation.
	MaxPerRound = 3
	// GlobalMinScore sends a global candidate to the vault.
	GlobalMinScore = 0.75
)

// VaultAPI is what ace needs of the taste vault (*vault.Vault has it).
type VaultAPI interface {
	// LearnAs learns nodes; ace always learns with vault.ByLearning (the
	// tier cap archives a less confident node or leaves the new one out).
	LearnAs(ctx context.Context, origin vault.Origin, nodes ...vault.Node) ([]vault.LearnResult, error)
	ByType(ctx context.Context, t vault.NodeType, limit int) ([]vault.Node, error)
}

// Decision is what the curator did with one delta.
type Decision struct {
	Delta  Delta   `json:"delta"`
	Action string  `json:"action"` // applied | replaced | rejected | pending
	Reason string  `json:"reason,omitempty"`
	Score  float64 `json:"score"`
	// PendingID is set when the delta was queued for review.
	PendingID uint64 `json:"pendingId,omitempty"`
}

// CurateReport is the result of one curation round.
type CurateReport struct {
	Agent     string     `json:"agent"`
	Version   int        `json:"version"`
	Decisions []Decision `json:"decisions"`
	// Promoted lists the vault nodes learned from global candidates.
	Promoted []uint64 `json:"promoted,omitempty"`
}

// Applied counts the applied (or replacing) decisions.
func (r CurateReport) Applied() int {
	n := 0
	for _, d := range r.Decisions {
		if d.Action == "applied" || d.Action == "replaced" {
			n++
		}
	}
	return n
}

// Curator decides which deltas change a playbook.
type Curator struct {
	// mu serialises rounds, so concurrent tasks do not curate against a
	// stale playbook.
	mu    sync.Mutex
	M     *Manager
	Vault func() VaultAPI // nil, or returning nil: no promotion
	Logf  func(string, ...any)
}

// CurateOptions tunes one round.
type CurateOptions struct {
	// Origin is recorded with the version ("curator", "review", ...).
	Origin string
	// PendingBelow queues deltas with a lower confidence for human review
	// instead of applying them (0: none).
	PendingBelow float64
	// Max overrides MaxPerRound when > 0.
	Max int
}

// Curate deduplicates, scores and applies deltas (MaxPerRound at most, the
// best scores first) in one version, then promotes global candidates.
func (c *Curator) Curate(ctx context.Context, agent string, deltas []Delta, o CurateOptions) (CurateReport, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o.Origin == "" {
		o.Origin = "curator"
	}
	limit := MaxPerRound
	if o.Max > 0 {
		limit = o.Max
	}
	p, err := c.M.GetPlaybook(ctx, agent)
	if err != nil {
		return CurateReport{}, err
	}
	rep := CurateReport{Agent: p.Agent, Version: p.Version}
	type cand struct {
		d     Delta
		score float64
	}
	var cands []cand
	for _, d := range deltas {
		if err := d.normalize(); err != nil {
			rep.Decisions = append(rep.Decisions, Decision{Delta: d, Action: "rejected", Reason: err.Error()})
			continue
		}
		cands = append(cands, cand{d, d.Score()})
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	var accepted []Delta
	var acceptedText []string
	for _, cd := range cands {
		d, dec := cd.d, Decision{Delta: cd.d, Score: cd.score}
		reject := func(why string) {
			dec.Action, dec.Reason = "rejected", why
			rep.Decisions = append(rep.Decisions, dec)
		}
		if cd.score < MinScore {
			reject(fmt.Sprintf("score %.2f below %.2f", cd.score, MinScore))
			continue
		}
		switch d.Op {
		case OpAdd:
			if r, sim, ok := mostSimilar(p.Rules, d.Content); ok {
				if r.Confidence >= d.Confidence {
					reject(fmt.Sprintf("duplicates %s (similarity %.2f) which is at least as confident", r.ID, sim))
					continue
				}
				d = Delta{Op: OpUpdate, RuleID: r.ID, Content: d.Content, Kind: d.Kind, Source: d.Source,
					Confidence: d.Confidence, Helpful: d.Helpful, Harmful: d.Harmful, Tags: d.Tags,
					Reason: fmt.Sprintf("replaces %s (similarity %.2f): %s", r.ID, sim, d.Reason)}
				dec.Action = "replaced"
			}
			dup := false
			for _, t := range acceptedText {
				if textindex.Jaccard(t, d.Content) >= DedupThreshold {
					dup = true
					break
				}
			}
			if dup {
				reject("duplicates another delta of this round")
				continue
			}
		case OpUpdate, OpRemove:
			if _, ok := p.Rule(d.RuleID); !ok {
				reject("no rule " + d.RuleID)
				continue
			}
			if slices.ContainsFunc(accepted, func(a Delta) bool { return a.RuleID == d.RuleID }) {
				reject("rule " + d.RuleID + " already changed this round")
				continue
			}
		}
		if o.PendingBelow > 0 && d.Confidence < o.PendingBelow {
			pd, err := c.M.AddPending(ctx, p.Agent, d, o.Origin)
			if err != nil {
				return rep, fmt.Errorf("queue delta for review: %w", err)
			}
			dec.Delta, dec.Action, dec.PendingID = d, "pending", pd.ID
			dec.Reason = fmt.Sprintf("confidence %.2f below %.2f: waits for review", d.Confidence, o.PendingBelow)
			rep.Decisions = append(rep.Decisions, dec)
			continue
		}
		if len(accepted) >= limit {
			reject(fmt.Sprintf("round limit of %d changes reached", limit))
			continue
		}
		if dec.Action == "" {
			dec.Action = "applied"
		}
		dec.Delta = d
		accepted = append(accepted, d)
		if d.Content != "" {
			acceptedText = append(acceptedText, d.Content)
		}
		rep.Decisions = append(rep.Decisions, dec)
	}
	if len(accepted) > 0 {
		pb, _, err := c.M.UpdatePlaybook(ctx, p.Agent, accepted, o.Origin)
		if err != nil {
			return rep, err
		}
		rep.Version = pb.Version
	}
	promoted, err := c.PromoteGlobal(ctx, p.Agent)
	if err != nil {
		c.logf("ace: promote global candidates of %s: %v", p.Agent, err)
	}
	rep.Promoted = promoted
	return rep, nil
}

func (c *Curator) logf(format string, a ...any) {
	if c.Logf != nil {
		c.Logf(format, a...)
	}
}

// mostSimilar returns the rule most similar to text when it reaches
// DedupThreshold.
func mostSimilar(rules []Rule, text string) (Rule, float64, bool) {
	words := textindex.WordTokens(text)
	best, bestSim := -1, 0.0
	for i, r := range rules {
		if s := textindex.JaccardSets(words, textindex.WordTokens(r.Content)); s > bestSim {
			best, bestSim = i, s
		}
	}
	if best < 0 || bestSim < DedupThreshold {
		return Rule{}, 0, false
	}
	return rules[best], bestSim, true
}

// RuleScore is the curator's score of a stored rule: the success rate as
// helpful, the harm rate as harmful.
func RuleScore(r Rule) float64 {
	return r.SuccessRate()*0.6 + r.Confidence*0.4 - r.harmRate()*0.3
}

// PromoteGlobal learns an agent's global candidates that score at least
// GlobalMinScore into the vault as global nodes (once per rule) and returns
// the node ids.
func (c *Curator) PromoteGlobal(ctx context.Context, agent string) ([]uint64, error) {
	if c.Vault == nil {
		return nil, nil
	}
	cands, err := c.M.GetGlobalCandidates(ctx, agent)
	if err != nil {
		return nil, err
	}
	var v VaultAPI
	var out []uint64
	for _, r := range cands {
		if r.VaultNodeID != 0 || RuleScore(r) < GlobalMinScore {
			continue
		}
		if v == nil {
			if v = c.Vault(); v == nil {
				return nil, nil
			}
		}
		rs, err := v.LearnAs(ctx, vault.ByLearning, vault.Node{
			Type: vaultType(r.Kind), Content: r.Content, Confidence: r.Confidence,
			HelpfulCount: r.HelpfulCount, IsGlobal: true,
			Tags:   append(slices.Clone(r.Tags), "playbook", canonTag(agent)),
			Source: "playbook:" + canonAgent(agent) + "/" + r.ID,
		})
		if err != nil {
			return out, fmt.Errorf("learn %s: %w", r.ID, err)
		}
		if len(rs) == 0 || rs[0].NotStored {
			continue // the vault is full of more confident nodes; try again later
		}
		id := rs[0].Node.ID
		out = append(out, id)
		if _, err := c.M.modify(ctx, agent, func(_ *bolt.Tx, p *Playbook) (bool, error) {
			if i := p.index(r.ID); i >= 0 {
				p.Rules[i].VaultNodeID = id
				return true, nil
			}
			return false, nil
		}); err != nil {
			return out, err
		}
	}
	return out, nil
}

func vaultType(k Kind) vault.NodeType {
	switch k {
	case KindMistake:
		return vault.Mistake
	case KindPreference:
		return vault.Preference
	case KindPattern:
		return vault.Pattern
	}
	return vault.Strategy
}

func canonTag(agent string) string {
	t := cleanTags([]string{agent})
	if len(t) == 0 {
		return "agent"
	}
	return t[0]
}
