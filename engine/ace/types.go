package ace

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no such playbook, rule or pending delta.
	ErrNotFound = errors.New("not found")
	// ErrInvalid marks bad input (empty content, unknown op, confidence
	// outside 0–1, ...).
	ErrInvalid = errors.New("invalid input")
	// ErrNotDue: a review was asked before it is due (and not forced).
	ErrNotDue = errors.New("review not due")
)

func invalidf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// Source says where a rule came from.
type Source string

// Rule sources.
const (
	// SourceLearned: the reflector, the curator, self-review or a user signal.
	SourceLearned Source = "learned"
	// SourceManual: written by the user.
	SourceManual Source = "manual"
	SourceGlobal Source = "global"
	// SourceVault: the self-improvement review adapted it from a confident
	// Preference node of the taste vault.
	SourceVault Source = "vault"
	// SourceTeam: a teammate's shared rule, merged from the team's records
	// (engine/team); Rule.Team names its author and version.
	SourceTeam Source = "team"
)

// Valid reports whether s is a known source.
func (s Source) Valid() bool {
	return s == SourceLearned || s == SourceManual || s == SourceGlobal || s == SourceVault || s == SourceTeam
}

// Kind is what a rule teaches (the vault's node types, lower case).
type Kind string

// Rule kinds.
const (
	KindStrategy   Kind = "strategy"
	KindMistake    Kind = "mistake"
	KindPreference Kind = "preference"
	KindPattern    Kind = "pattern"
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	return k == KindStrategy || k == KindMistake || k == KindPreference || k == KindPattern
}

// ParseKind accepts a kind in any case; unknown or empty is strategy.
func ParseKind(s string) Kind {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if k.Valid() {
		return k
	}
	return KindStrategy
}

// Rule is one playbook rule.
type Rule struct {
	ID           string    `json:"id"`
	Content      string    `json:"content"`
	Kind         Kind      `json:"kind"`
	Source       Source    `json:"source"`
	Confidence   float64   `json:"confidence"`
	AppliedCount int       `json:"appliedCount"`
	SuccessCount int       `json:"successCount"`
	HarmfulCount int       `json:"harmfulCount"`
	HelpfulCount int       `json:"helpfulCount"`
	Tags         []string  `json:"tags"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	// VaultNodeID is set once the rule was promoted to the vault as a
	// global node.
	VaultNodeID uint64 `json:"vaultNodeId,omitempty"`
	// Team is set on a teammate's shared rule (SourceTeam).
	Team *TeamRef `json:"team,omitempty"`
}

// SuccessRate is successCount / appliedCount (0 when never applied).
func (r Rule) SuccessRate() float64 {
	if r.AppliedCount <= 0 {
		return 0
	}
	return min(1, float64(r.SuccessCount)/float64(r.AppliedCount))
}

// smoothedSuccess is the Laplace-smoothed success rate used for ranking.
func (r Rule) smoothedSuccess() float64 {
	return min(1, float64(r.SuccessCount+1)/float64(max(r.AppliedCount, r.SuccessCount)+2))
}

// harmRate is harmfulCount / appliedCount, capped to 1.
func (r Rule) harmRate() float64 {
	if r.HarmfulCount <= 0 {
		return 0
	}
	return min(1, float64(r.HarmfulCount)/float64(max(r.AppliedCount, r.HarmfulCount)))
}

func (r Rule) clone() Rule {
	r.Tags = slices.Clone(r.Tags)
	if r.Team != nil {
		t := *r.Team
		r.Team = &t
	}
	return r
}

// Playbook is an agent's rules.
type Playbook struct {
	Agent   string `json:"agent"`
	Version int    `json:"version"`
	Rules   []Rule `json:"rules"`
	// NextRule numbers new rules (r1, r2, ...).
	NextRule int `json:"nextRule"`
	// Tasks and Successes count the tasks recorded with RecordTaskApplied.
	Tasks     int       `json:"tasks"`
	Successes int       `json:"successes"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
	// TeamDropped lists the teammates' shared rules (subjects) the user
	// removed from this playbook: newer versions of them do not bring them
	// back.
	TeamDropped []string `json:"teamDropped,omitempty"`
}

// SuccessRate is the share of recorded tasks that succeeded (0 when none).
func (p Playbook) SuccessRate() float64 {
	if p.Tasks <= 0 {
		return 0
	}
	return float64(p.Successes) / float64(p.Tasks)
}

// Rule returns the rule with this id.
func (p Playbook) Rule(id string) (Rule, bool) {
	for _, r := range p.Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

func (p Playbook) index(id string) int {
	for i, r := range p.Rules {
		if r.ID == id {
			return i
		}
	}
	return -1
}

func (p Playbook) clone() Playbook {
	p.TeamDropped = slices.Clone(p.TeamDropped)
	p.Rules = slices.Clone(p.Rules)
	for i := range p.Rules {
		p.Rules[i] = p.Rules[i].clone()
	}
	return p
}

// Summary is a playbook's line in a listing.
type Summary struct {
	Agent       string    `json:"agent"`
	Version     int       `json:"version"`
	Rules       int       `json:"rules"`
	SuccessRate float64   `json:"successRate"`
	Tasks       int       `json:"tasks"`
	UpdatedAt   time.Time `json:"updatedAt,omitzero"`
}

// Op is what a delta does.
type Op string

// Delta operations.
const (
	OpAdd    Op = "add"
	OpUpdate Op = "update"
	OpRemove Op = "remove"
)

// Delta is a proposed change of a playbook.
type Delta struct {
	Op Op `json:"op"`
	// RuleID names the rule of an update or remove.
	RuleID     string  `json:"ruleId,omitempty"`
	Content    string  `json:"content,omitempty"`
	Kind       Kind    `json:"kind,omitempty"`
	Source     Source  `json:"source,omitempty"`
	Confidence float64 `json:"confidence"`
	// Helpful and Harmful are evidence for the curator's score, 0–1 (how
	// much the rule would have helped; how likely it is to hurt).
	Helpful float64  `json:"helpful,omitempty"`
	Harmful float64  `json:"harmful,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	// Reason says why the delta was proposed.
	Reason string `json:"reason,omitempty"`
}

// Score is the curator's score: helpful·0.6 + confidence·0.4 − harmful·0.3.
func (d Delta) Score() float64 {
	return d.Helpful*0.6 + d.Confidence*0.4 - d.Harmful*0.3
}

// maxContentLen bounds a rule's text (bytes).
const maxContentLen = 2000

// normalize cleans a delta and checks it.
func (d *Delta) normalize() error {
	d.Op = Op(strings.ToLower(strings.TrimSpace(string(d.Op))))
	if d.Op == "" {
		d.Op = OpAdd
	}
	d.RuleID = strings.TrimSpace(d.RuleID)
	d.Content = cleanText(d.Content)
	if len(d.Content) > maxContentLen {
		d.Content = strings.ToValidUTF8(d.Content[:maxContentLen], "")
	}
	d.Kind = ParseKind(string(d.Kind))
	if d.Source == "" {
		d.Source = SourceLearned
	}
	d.Tags = cleanTags(d.Tags)
	d.Reason = cleanText(d.Reason)
	switch d.Op {
	case OpAdd:
		if d.Content == "" {
			return invalidf("add: empty content")
		}
	case OpUpdate:
		if d.RuleID == "" {
			return invalidf("update: no ruleId")
		}
	case OpRemove:
		if d.RuleID == "" {
			return invalidf("remove: no ruleId")
		}
	default:
		return invalidf("unknown op %q (want add, update or remove)", d.Op)
	}
	if !d.Source.Valid() {
		return invalidf("unknown source %q", d.Source)
	}
	for _, f := range []float64{d.Confidence, d.Helpful, d.Harmful} {
		if f != f || f < 0 || f > 1 {
			return invalidf("confidence, helpful and harmful must be within 0–1")
		}
	}
	return nil
}

// Change is one applied delta: the rule before and after (nil for an add or
// a remove respectively). A version's changes are its diff.
type Change struct {
	Op     Op     `json:"op"`
	RuleID string `json:"ruleId"`
	Before *Rule  `json:"before,omitempty"`
	After  *Rule  `json:"after,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Version is one entry of a playbook's history.
type Version struct {
	Agent   string    `json:"agent"`
	Version int       `json:"version"`
	Origin  string    `json:"origin"` // curator, manual, review, signal, pending, ...
	Deltas  []Delta   `json:"deltas"`
	Changes []Change  `json:"changes"`
	At      time.Time `json:"at"`
}

// Pending is a delta waiting for a human's approval.
type Pending struct {
	ID        uint64    `json:"id"`
	Agent     string    `json:"agent"`
	Delta     Delta     `json:"delta"`
	Origin    string    `json:"origin"`
	CreatedAt time.Time `json:"createdAt"`
}

// canonAgent is the key of an agent's playbook (upper case, trimmed).
func canonAgent(agent string) string {
	return strings.ToUpper(strings.TrimSpace(agent))
}

func validAgent(agent string) error {
	if agent == "" || len(agent) > 64 || strings.ContainsRune(agent, 0) {
		return invalidf("agent %q: want a non-empty name of at most 64 bytes", agent)
	}
	return nil
}

func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

func cleanTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.ToLower(cleanText(t))
		if t == "" || len(t) > 64 || slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
		if len(out) == 16 {
			break
		}
	}
	return out
}

func clamp01(f float64) float64 {
	if f != f || f < 0 {
		return 0
	}
	return min(f, 1)
}
