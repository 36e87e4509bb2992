package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/engine/checks"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/tools"
)

// DefaultStuckAfter tool calls in a row that find nothing new make a run
// stuck: the first time it moves up a tier (when it can) and is shown what
// it found; the second time it fails as stuck.
const DefaultStuckAfter = 10

// maxFindings is how many findings a run keeps in its memory.
const maxFindings = 24

// Progress is nova's estimate of how far a run is, made after every tool
// call from what the run did (no model call: on a slow machine a second
// model call per step would double the run's time).
type Progress struct {
	// Percent is 0–100: reading 5–30, a change staged 50, checks failing
	// 60, checks passing 90, done 100.
	Percent int `json:"progressPercent"`
	// Milestone is what the run has to do next.
	Milestone string `json:"nextMilestone"`
	// Stuck: Idle calls in a row found nothing new.
	Stuck bool `json:"isStuck"`
	Idle  int  `json:"idle"`
}

// Line is the estimate as people read it.
func (p Progress) Line() string {
	s := fmt.Sprintf("%d%% · next: %s", p.Percent, p.Milestone)
	if p.Stuck {
		s += fmt.Sprintf(" · stuck (%d calls found nothing new)", p.Idle)
	}
	return s
}

// Finding is one thing a run learned from a tool call (the seed's
// execution memory): kept in order, carried past history compression, so
// the run does not try again what it already tried.
type Finding struct {
	Step int    `json:"step"`
	Tool string `json:"tool"`
	What string `json:"what"`
	OK   bool   `json:"ok"`
}

// tracker follows a run's progress and findings.
type tracker struct {
	findings []Finding
	seen     map[string]bool // what calls found, by tool + output
	idle     int
	reads    int
	writes   int
	stuck    int // how often the run was found stuck
}

// observe records one trace; it reports whether the call found something
// new (a new read, a staged change, a command's new result).
func (t *tracker) observe(tr Trace) bool {
	if t.seen == nil {
		t.seen = map[string]bool{}
	}
	ok := tr.Status == tools.StatusOK || tr.Status == tools.StatusFailed
	// The same output by another road (a path spelled differently, another
	// query finding nothing) is nothing new.
	key := tr.Tool + "\x00" + tools.SHA256([]byte(tr.Output))
	novel := ok && !t.seen[key]
	t.seen[key] = true
	wrote := false
	for _, e := range tr.Evidence {
		if e.Kind == "file" && tr.Status == tools.StatusOK {
			wrote = true
		}
	}
	switch {
	case wrote:
		t.writes++
	case novel:
		t.reads++
	}
	if novel || wrote {
		t.idle = 0
	} else {
		t.idle++
	}
	t.findings = append(t.findings, Finding{Step: tr.Step, Tool: tr.Tool, What: findingText(tr), OK: tr.Status == tools.StatusOK})
	if len(t.findings) > maxFindings {
		t.findings = t.findings[len(t.findings)-maxFindings:]
	}
	return novel || wrote
}

// estimate is the run's progress now. writes says whether the agent can
// stage changes; checks whether checks run at its final answer; checked
// is the result of the last checks (nil: none ran).
func (t *tracker) estimate(writes, checked bool, last *CheckRun, stuckAfter int) Progress {
	p := Progress{Idle: t.idle, Stuck: stuckAfter > 0 && t.idle >= stuckAfter}
	switch {
	case last != nil && checks.Passed(last.Results):
		p.Percent, p.Milestone = 90, "give the final answer"
	case last != nil:
		p.Percent, p.Milestone = 60, "make the failing checks pass"
	case t.writes > 0 && checked:
		p.Percent, p.Milestone = 50, "finish the change; the checks run at the final answer"
	case t.writes > 0:
		p.Percent, p.Milestone = 50, "finish the change and give the final answer"
	case !writes && t.reads > 0:
		p.Percent, p.Milestone = min(80, 10+10*t.reads), "answer from what was read"
	case t.reads > 0:
		p.Percent, p.Milestone = min(30, 5+5*t.reads), "stage the change"
	default:
		p.Percent, p.Milestone = 5, "read the code the task names"
	}
	return p
}

// memory is the findings as the model reads them after its history was
// compressed.
func (t *tracker) memory() string {
	if len(t.findings) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("What this run found so far (do not repeat what failed or re-read what is here):\n")
	for _, f := range t.findings {
		mark := "ok"
		if !f.OK {
			mark = "FAILED"
		}
		fmt.Fprintf(&b, "- step %d %s [%s]: %s\n", f.Step, f.Tool, mark, f.What)
	}
	return b.String()
}

// findingText is one line on what a call did and found.
func findingText(tr Trace) string {
	var a map[string]any
	_ = json.Unmarshal(tr.Args, &a)
	arg := ""
	for _, k := range []string{"path", "command", "query", "pattern", "name", "symbol"} {
		if v, ok := a[k].(string); ok && v != "" {
			arg = k + " " + clip(strings.Join(strings.Fields(v), " "), 80)
			break
		}
	}
	out := clip(firstLine(strings.TrimSpace(tr.Output)), 120)
	switch {
	case arg == "":
		return out
	case out == "":
		return arg
	}
	return arg + " → " + out
}

// observeProgress records a trace in the run's progress and emits the
// estimate. A run stuck for the first time moves up a tier when it can and
// gets note (its findings, and what to do) appended to the observation; a
// run stuck again fails as stuck.
func (st *loopState) observeProgress(ctx context.Context, tr Trace) (note string, out SpecialistOutcome, stop bool) {
	st.track.observe(tr)
	p := st.progress()
	st.run.Progress = &p
	st.emit(Event{Type: EventProgress, Step: st.meta.Steps, Status: fmt.Sprintf("%d", p.Percent), Text: p.Line(), Progress: &p})
	if !p.Stuck {
		return "", SpecialistOutcome{}, false
	}
	st.track.stuck++
	st.track.idle = 0
	if st.track.stuck == 1 {
		escalated := st.escalate(ctx, "no_progress")
		note = fmt.Sprintf("Note from nova: your last %d tool calls found nothing new.", p.Idle)
		if escalated {
			note += fmt.Sprintf(" The run moved up to the %s tier.", st.tier)
		}
		return note + " " + strings.TrimSpace(st.track.memory()) + "\nNow " + p.Milestone + ", or give your final answer with what you know.", SpecialistOutcome{}, false
	}
	hints := []RecoveryHint{HintChangeStrategy, HintSwitchSpecialist}
	if _, ok := llm.Escalate(st.tier, st.maxTier); ok {
		hints = append(hints, HintEscalateModel)
	}
	return "", st.fail(FailStuck, "no_progress", fmt.Sprintf("stuck: %d tool calls in a row found nothing new, twice; progress %s.\n%s",
		p.Idle, p.Line(), st.track.memory()), hints...), true
}

// progress is the run's estimate now.
func (st *loopState) progress() Progress {
	writes := false
	for _, t := range st.allTools {
		if t.Mutating {
			writes = true
			break
		}
	}
	return st.track.estimate(writes, len(st.checkCommands()) > 0, st.checkRun, st.set.StuckAfter)
}
