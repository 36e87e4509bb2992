package knowledge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/knowledge/facts"
	"github.com/nova-dev/nova/engine/textindex"
)

// TroubleshootingConfidence is the confidence of an entry learned from a
// retry that fixed a failure: the retry passing is evidence, not proof
// that the change of approach was the cause.
const TroubleshootingConfidence = 0.6

// LearnTroubleshooting records, at the build's scope, a troubleshooting
// entry for each task a retry fixed: the failure of the attempt before
// the one that passed is the problem, what the passing attempt did
// differently its solution. Infrastructure failures (the model server went
// away, a stall) are never learned: they say nothing about the work.
func (s *Service) LearnTroubleshooting(ctx context.Context, b build.Build, tasks []build.Task) ([]facts.Fact, error) {
	if s.facts == nil {
		return nil, nil
	}
	buildID := strconv.FormatUint(b.ID, 10)
	scope := facts.Build(buildID)
	var added []facts.Fact
	for _, t := range tasks {
		problem, solution, ok := troubleshooting(t)
		if !ok || s.knownProblem(ctx, problem, scope, buildID) {
			continue
		}
		c := TroubleshootingConfidence
		f, err := s.facts.Add(ctx, facts.NewFact{Problem: problem, Content: solution, Category: facts.CategoryTroubleshooting,
			Scope: scope, Confidence: &c, Tags: []string{"troubleshooting"},
			Source: facts.Source{Type: facts.SourceBuild, BuildID: buildID, TaskID: t.ID}})
		if err != nil {
			if errors.Is(err, facts.ErrInvalid) {
				continue
			}
			return added, err
		}
		added = append(added, f)
	}
	return added, nil
}

// knownProblem reports whether an entry for nearly the same problem is
// already visible at the build's scope.
func (s *Service) knownProblem(ctx context.Context, problem string, scope facts.Scope, buildID string) bool {
	res, err := s.facts.Search(ctx, problem, facts.SearchOptions{Scope: scope, Build: buildID, Limit: 3})
	if err != nil {
		return false
	}
	for _, f := range res.Facts {
		if f.Problem != "" && textindex.Jaccard(f.Problem, problem) >= dupThreshold {
			return true
		}
	}
	return false
}

// troubleshooting reads a done task's history: the last learnable failure
// followed by a passing attempt.
func troubleshooting(t build.Task) (problem, solution string, ok bool) {
	if t.Status != build.TaskDone {
		return "", "", false
	}
	pass := -1
	for i := len(t.History) - 1; i >= 0; i-- {
		if t.History[i].Passed {
			pass = i
			break
		}
	}
	fail := -1
	for i := pass - 1; i >= 0; i-- {
		a := t.History[i]
		if !a.Passed && !a.Interrupted && (a.Kind == "" || a.Kind.Learnable()) && strings.TrimSpace(a.Reason) != "" {
			fail = i
			break
		}
	}
	if pass < 0 || fail < 0 {
		return "", "", false
	}
	failed, passed := t.History[fail], t.History[pass]
	problem = fmt.Sprintf("%s: %s", oneLine(t.Title, 120), oneLine(failed.Reason, 400))
	if failed.Kind != "" {
		problem += " (" + string(failed.Kind) + ")"
	}
	var how []string
	if passed.Agent != "" && passed.Agent != failed.Agent {
		how = append(how, fmt.Sprintf("the task went to %s instead of %s", passed.Agent, failed.Agent))
	}
	if passed.Tier != "" && passed.Tier != failed.Tier {
		how = append(how, fmt.Sprintf("it ran on the %s tier instead of %s", passed.Tier, failed.Tier))
	}
	if h := strings.TrimSpace(failed.Hypothesis); h != "" {
		how = append(how, "the likely cause was "+oneLine(h, 240))
	}
	for _, n := range failed.HintNotes {
		if n.Note != "" {
			how = append(how, oneLine(n.Note, 160))
		}
	}
	if len(how) == 0 {
		how = append(how, "the retry, told why the first attempt failed, passed")
	}
	solution = "Fixed on attempt " + strconv.Itoa(passed.N) + ": " + strings.Join(how, "; ") + "."
	return problem, solution, true
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
