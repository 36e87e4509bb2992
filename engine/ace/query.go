package ace

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// RuleFilter selects rules (zero fields match everything).
type RuleFilter struct {
	Source Source
	Kind   Kind
	Tag    string
	// Query matches a substring of the content or id, case-insensitively.
	Query string
}

// Match reports whether r passes the filter.
func (f RuleFilter) Match(r Rule) bool {
	if f.Source != "" && r.Source != f.Source {
		return false
	}
	if f.Kind != "" && r.Kind != f.Kind {
		return false
	}
	if f.Tag != "" && !slices.Contains(r.Tags, strings.ToLower(strings.TrimSpace(f.Tag))) {
		return false
	}
	if q := strings.ToLower(strings.TrimSpace(f.Query)); q != "" &&
		!strings.Contains(strings.ToLower(r.Content), q) && !strings.EqualFold(r.ID, q) {
		return false
	}
	return true
}

// SortKey orders rules.
type SortKey string

// Sort keys. All but SortID put the highest first.
const (
	SortID         SortKey = "id"
	SortConfidence SortKey = "confidence"
	SortApplied    SortKey = "applied"
	SortSuccess    SortKey = "success"
	SortUpdated    SortKey = "updated"
)

// ParseSortKey accepts a sort key; "" is SortID.
func ParseSortKey(s string) (SortKey, error) {
	k := SortKey(strings.ToLower(strings.TrimSpace(s)))
	switch k {
	case "":
		return SortID, nil
	case SortID, SortConfidence, SortApplied, SortSuccess, SortUpdated:
		return k, nil
	}
	return "", invalidf("unknown sort %q (want id, confidence, applied, success or updated)", s)
}

// FilterRules returns the rules passing f, ordered by key (stable).
func FilterRules(rules []Rule, f RuleFilter, key SortKey) []Rule {
	out := []Rule{}
	for _, r := range rules {
		if f.Match(r) {
			out = append(out, r.clone())
		}
	}
	val := func(r Rule) float64 {
		switch key {
		case SortConfidence:
			return r.Confidence
		case SortApplied:
			return float64(r.AppliedCount)
		case SortSuccess:
			return r.SuccessRate()
		case SortUpdated:
			return float64(r.UpdatedAt.UnixNano())
		}
		return 0
	}
	if key == SortID || key == "" {
		slices.SortStableFunc(out, func(a, b Rule) int { return ruleNum(a.ID) - ruleNum(b.ID) })
		return out
	}
	slices.SortStableFunc(out, func(a, b Rule) int {
		va, vb := val(a), val(b)
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	return out
}

func ruleNum(id string) int {
	n := 0
	for _, c := range strings.TrimPrefix(id, "r") {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// Diff summarises what changed between two versions of a playbook: for each
// rule touched by versions from+1 … to, one Change with the rule as it was
// at version from (Before, nil if it did not exist) and at version to
// (After, nil if it no longer exists). Rules added and removed in between
// are left out. Changes are ordered by rule id.
func (m *Manager) Diff(ctx context.Context, agent string, from, to int) ([]Change, error) {
	if from < 0 || to < from {
		return nil, invalidf("diff: want 0 ≤ from ≤ to, got %d..%d", from, to)
	}
	hist, err := m.History(ctx, agent)
	if err != nil {
		return nil, err
	}
	slices.Reverse(hist) // oldest first
	type span struct {
		before, after *Rule
		seen          bool
	}
	byRule := map[string]*span{}
	var order []string
	for _, v := range hist {
		if v.Version <= from || v.Version > to {
			continue
		}
		for _, c := range v.Changes {
			s, ok := byRule[c.RuleID]
			if !ok {
				s = &span{before: c.Before}
				byRule[c.RuleID] = s
				order = append(order, c.RuleID)
			}
			s.after, s.seen = c.After, true
		}
	}
	slices.SortFunc(order, func(a, b string) int { return ruleNum(a) - ruleNum(b) })
	out := []Change{}
	for _, id := range order {
		s := byRule[id]
		var op Op
		switch {
		case s.before == nil && s.after == nil:
			continue
		case s.before == nil:
			op = OpAdd
		case s.after == nil:
			op = OpRemove
		default:
			op = OpUpdate
		}
		out = append(out, Change{Op: op, RuleID: id, Before: s.before, After: s.after,
			Reason: fmt.Sprintf("v%d → v%d", from, to)})
	}
	return out, nil
}
