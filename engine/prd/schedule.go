package prd

import (
	"cmp"
	"slices"
)

// Ready returns the tasks that can start now: their own status is pending or
// ready and every dependency is done. They are ordered by phase, lowest
// first, then by their order in the file.
//
// statusOf gives the current status of a task by id (typically from the
// build's store); nil means the statuses written in the PRD (p.StatusOf).
// Its results are normalised, and "" counts as pending.
//
// Nothing starts until the plan is valid: for a PRD that fails
// Validate(p, nil) Ready returns nil. (Agent names are checked by the
// caller's Validate with its roster, before a build begins.)
func Ready(p *PRD, statusOf func(id string) Status) []Task {
	if p == nil || Validate(p, nil) != nil {
		return nil
	}
	if statusOf == nil {
		statusOf = p.StatusOf
	}
	var ready []Task
	for _, t := range p.Tasks {
		switch statusOf(t.ID).Normalize() {
		case StatusPending, StatusReady:
		default:
			continue
		}
		if !allDone(t.Dependencies, statusOf) {
			continue
		}
		t.Dependencies = slices.Clone(t.Dependencies)
		ready = append(ready, t)
	}
	slices.SortStableFunc(ready, func(a, b Task) int { return cmp.Compare(a.Phase, b.Phase) })
	return ready
}

func allDone(deps []string, statusOf func(string) Status) bool {
	for _, d := range deps {
		if statusOf(d).Normalize() != StatusDone {
			return false
		}
	}
	return true
}
