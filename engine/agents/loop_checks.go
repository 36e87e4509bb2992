package agents

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/checks"
	"github.com/nova-dev/nova/engine/llm"
)

// Checks of a final answer ("verified means executed").
const (
	// MaxCheckRounds is how often a failing configured check is fed back
	// to the model before the run finishes with the failed verdict.
	MaxCheckRounds = 2
	// checkFeedbackChars bounds the failing output fed back (its tail).
	checkFeedbackChars = 1500
	// checkDetailChars bounds the output kept on a verdict's check.
	checkDetailChars = 4000
)

// checkState is what a run knows about its configured checks.
type checkState struct {
	checkRun *CheckRun // the last run of the checks (nil: none ran)
	checkErr string    // why the checks could not run (the copy, …)
}

// checkCommands are the checks of this run: the run's own (a task's
// checks) when set, else the runner's (config checks).
func (st *loopState) checkCommands() []string {
	if st.opts.Checks != nil {
		return *st.opts.Checks
	}
	return st.r.Checks
}

// stagedCheckFiles are the run's staged files as the checks' files.
func (st *loopState) stagedCheckFiles(ctx context.Context) ([]checks.File, error) {
	staged, err := st.draft.Staged(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the staged files: %w", err)
	}
	out := make([]checks.File, 0, len(staged))
	for _, f := range staged {
		out = append(out, checks.File{Path: f.Path, Content: string(f.Content), Delete: f.Deleted})
	}
	return out, nil
}

// checkAnswer runs the configured checks when a run that staged files gives
// its final answer: on a temporary copy of the workspace with the changeset
// applied (engine/checks). When one fails, its output is fed back to the
// model and the loop goes on (again), at most MaxCheckRounds times; then
// the run finishes and the failure is in its verdict. A run that staged
// nothing, or has no checks, finishes as it is. A cancelled parent ends the
// run as cancelled.
func (st *loopState) checkAnswer(runCtx, parent context.Context, out SpecialistOutcome) (SpecialistOutcome, bool) {
	cmds := st.checkCommands()
	if !out.OK || len(cmds) == 0 {
		return out, false
	}
	files, err := st.stagedCheckFiles(parent)
	if err != nil {
		st.checkErr = err.Error()
		return out, false
	}
	if len(files) == 0 {
		return out, false
	}
	hash := checks.Hash(files)
	if st.checkRun == nil || st.checkRun.Hash != hash || !slices.Equal(st.checkRun.Commands, cmds) {
		rounds := 0
		if st.checkRun != nil {
			rounds = st.checkRun.Rounds
		}
		step := st.meta.Steps
		r := checks.Runner{Root: st.r.Root, Commands: cmds, Timeout: st.r.CheckTimeout, Limit: st.r.CheckLimit,
			OnCommand: func(c string) {
				st.emit(Event{Type: EventCheck, Step: step, Args: c, Status: "running", Text: "running check: " + c})
			}}
		// The checks run under the caller's context: the spec's time limit
		// is for the model loop; each command has its own timeout.
		rs, err := r.Run(parent, files)
		if parent.Err() != nil {
			return st.llmFailure(runCtx, parent, 0, parent.Err()), false
		}
		if err != nil {
			st.checkRun, st.checkErr = nil, err.Error()
			st.emit(Event{Type: EventCheck, Step: step, Status: "error", Text: "the checks could not run: " + err.Error()})
			return out, false
		}
		if miss, ok := checks.Missing(rs); ok {
			// The machine lacks the check's tool: nothing the model can fix,
			// and no mistake of its work. The change stays unverified.
			st.checkRun, st.checkErr = nil, miss.Command+": "+miss.Detail
			st.emit(Event{Type: EventCheck, Step: step, Args: miss.Command, Status: "error", Text: "the checks could not run: " + st.checkErr})
			return out, false
		}
		st.checkRun, st.checkErr = &CheckRun{Hash: hash, Commands: slices.Clone(cmds), Results: rs, Rounds: rounds}, ""
		for _, x := range rs {
			status := "passed"
			if !x.Passed {
				status = "failed"
			}
			st.emit(Event{Type: EventCheck, Step: step, Args: x.Command, Status: status, Text: "check: " + x.Command + ": " + x.Detail})
		}
	}
	if checks.Passed(st.checkRun.Results) || runCtx.Err() != nil {
		return out, false
	}
	if st.checkRun.Rounds >= MaxCheckRounds {
		// The model had its rounds: an answer whose change fails the
		// project's checks is a failed run, never done (issue 25).
		var first checks.Result
		for _, x := range st.checkRun.Results {
			if !x.Passed {
				first = x
				break
			}
		}
		return st.fail(FailValidationFailed, "checks_failed", fmt.Sprintf(
			"check: %s failed (%s) on the staged change after %d rounds of feedback:\n%s",
			first.Command, first.Detail, st.checkRun.Rounds, tailOf(strings.TrimSpace(first.Output), checkFeedbackChars)),
			HintChangeStrategy, HintEscalateModel, HintRetry), false
	}
	st.checkRun.Rounds++
	feedback := checkFeedback(st.checkRun.Results, st.checkRun.Rounds)
	if st.lastText != "" {
		st.msgs = append(st.msgs, llm.Message{Role: llm.RoleAssistant, Content: st.lastText})
	}
	st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: feedback})
	clear(st.seen) // new information: reading a file again is not a loop
	st.emit(Event{Type: EventFeedback, Step: st.meta.Steps, Status: "check_failed", Text: firstLine(feedback)})
	return SpecialistOutcome{}, true
}

// checkFeedback is the message that sends failing checks back to the model.
func checkFeedback(rs []checks.Result, round int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Before your answer was accepted, nova ran the project's checks on your staged changes, and %s failed.\n",
		plural(countFailed(rs), "check"))
	budget := checkFeedbackChars
	for _, x := range rs {
		if x.Passed {
			continue
		}
		out := tailOf(strings.TrimSpace(x.Output), max(budget, 200))
		budget -= len(out)
		fmt.Fprintf(&b, "\n$ %s   (%s)\n%s\n", x.Command, x.Detail, out)
	}
	fmt.Fprintf(&b, "\nFind the cause in your changes and fix it with the tools, then give your final answer again. "+
		"This is check round %d of %d.", round, MaxCheckRounds)
	return b.String()
}

func countFailed(rs []checks.Result) int {
	n := 0
	for _, x := range rs {
		if !x.Passed {
			n++
		}
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// tailOf is the last n bytes of s (on a rune boundary), marked as cut.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8RuneStart(s[i]) {
		i++
	}
	return "…" + s[i:]
}

// executionChecks are the verdict's checks for the configured checks that
// ran on the run's final changeset (none when the changeset changed after
// they ran), and the CheckRun to store with the run.
func (st *loopState) executionChecks(ctx context.Context) ([]Check, *CheckRun) {
	if st.checkErr != "" && st.checkRun == nil {
		return []Check{{Tier: TierExecution, Subject: "checks", Status: VerdictUnverified,
			Detail: "the configured checks could not run: " + st.checkErr}}, nil
	}
	if st.checkRun == nil {
		return nil, nil
	}
	files, err := st.stagedCheckFiles(ctx)
	if err != nil || checks.Hash(files) != st.checkRun.Hash {
		return nil, nil
	}
	out := make([]Check, 0, len(st.checkRun.Results))
	for _, x := range st.checkRun.Results {
		c := Check{Tier: TierExecution, Subject: "check: " + x.Command, Status: VerdictPassed, Detail: x.Detail,
			Output: tailOf(x.Output, checkDetailChars)}
		switch {
		case !x.Passed:
			c.Status = VerdictFailed
		case x.NothingRan:
			c.Status = VerdictUnverified
		}
		out = append(out, c)
	}
	return out, st.checkRun
}
