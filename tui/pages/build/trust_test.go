package build

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	eb "github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/failure"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/tuitest"
)

// Issue 10 on the Build screen: waiting (with its reason, spinning) and
// interrupted builds, verdicts with their evidence, the warning of a task
// done unverified, the ask dialog, and p on a finished build.

// waitingSource is sample() with the model server gone: the build waits,
// its running task waits for ollama; ua-04 asks the user; ua-02 carries a
// failed-then-passed verdict and ua-01 a warning.
func waitingSource(t *testing.T) *fakeSource {
	t.Helper()
	src := sampleSource(t)
	d := &src.builds[0]
	d.Status, d.Reason = StatusWaiting, "waiting for ollama at http://127.0.0.1:11434"
	d.Tasks[0].Warning = "unverified: the verifier could not confirm the work (inconclusive); done because verify.inconclusive is warn"
	d.Tasks[0].Verdict = &Verdict{Status: "inconclusive", Checks: 2, Problems: []string{
		"[claim, inconclusive] answer: the final answer claims work that no tool call backs"}}
	d.Tasks[1].Verdict = &Verdict{Status: "passed", Checks: 3}
	d.Tasks[2].Status, d.Tasks[2].WaitFor, d.Tasks[2].Reason = StatusWaiting, WaitOllama, "waiting for ollama at http://127.0.0.1:11434"
	d.Tasks[3].Status, d.Tasks[3].WaitFor = StatusWaiting, WaitUser
	d.Tasks[3].Question = "The dashboard needs a chart library. May I add one, or should the charts be plain SVG?"
	d.Tasks[5].Verdict = &Verdict{Status: "failed", Checks: 3, Problems: []string{
		"[claim, inconclusive] internal/ingest/load_test.go: the answer says this file changed, but no change to it was staged",
		"[command, failed] go test ./...: exit status 1 (TestIngestBurst timed out)"}}
	return src
}

func TestGoldenTrustStates(t *testing.T) {
	t.Parallel()
	for _, size := range sizes {
		name := fmt.Sprintf("%dx%d", size[0], size[1]+3)
		t.Run("waiting_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, waitingSource(t), size[0], size[1])
			golden.RequireEqual(t, l.pinned())
		})
		t.Run("verdict_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, waitingSource(t), size[0], size[1])
			l.press("G") // ua-06: blocked, failed verdict with evidence
			golden.RequireEqual(t, l.pinned())
		})
		t.Run("warning_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, waitingSource(t), size[0], size[1])
			l.press("g") // ua-01: done unverified
			golden.RequireEqual(t, l.pinned())
		})
		t.Run("ask_"+name, func(t *testing.T) {
			t.Parallel()
			src := waitingSource(t)
			l := newLoop(t, src, size[0], size[1])
			src.events <- engine.Event{Type: engine.EventTaskAsking, Topic: engine.TopicBuild, BuildID: "3", TaskID: "ua-04",
				Text: src.builds[0].Tasks[3].Question}
			l.until(func() bool { return l.m.ask.open })
			golden.RequireEqual(t, l.pinned())
		})
		t.Run("interrupted_"+name, func(t *testing.T) {
			t.Parallel()
			src := sampleSource(t)
			src.builds[0].Status, src.builds[0].Active = StatusInterrupted, false
			src.builds[0].Reason = "interrupted: nova quit while the build ran; `nova build resume 3` continues it"
			src.builds[0].Tasks[2].Status = StatusPending
			l := newLoop(t, src, size[0], size[1])
			golden.RequireEqual(t, l.pinned())
		})
	}
}

func TestWaitingBuildShowsItsReasonAndSpins(t *testing.T) {
	t.Parallel()
	l := newLoop(t, waitingSource(t), 160, 45)
	out := l.plain()
	assert.Contains(t, out, "waiting for ollama at http://127.0.0.1:11434", "the header says why")
	assert.Contains(t, out, "? ua-04", "a task asking the user shows a ?")
	require.Equal(t, "ua-03", l.m.selectedTaskID(), "no task runs; the waiting one is shown")
	before := l.m.spin
	l.until(func() bool { return l.m.spin != before })
	assert.True(t, l.m.spinOn, "the spinner turns while the build waits")
}

func TestVerdictAndWarningInTheDetail(t *testing.T) {
	t.Parallel()
	l := newLoop(t, waitingSource(t), 160, 45)
	l.press("G")
	out := l.plain()
	assert.Contains(t, out, "Verdict  failed  2 of 3 not passed")
	assert.Contains(t, out, "load_test.go: the answer says this file changed")
	assert.Contains(t, out, "go test ./...: exit status 1")
	l.press("g")
	out = l.plain()
	assert.Contains(t, out, "Verdict  inconclusive  1 of 2 not passed")
	assert.Contains(t, out, "⚠ unverified: the verifier could not confirm the work")
	assert.Contains(t, out, "⚠ ", "the list marks the task too")
	l.press("j")
	assert.Contains(t, l.plain(), "Verdict  passed  3 checks passed")
}

func TestAskDialogAnswersAndEscKeepsWaiting(t *testing.T) {
	t.Parallel()
	src := waitingSource(t)
	l := newLoop(t, src, 120, 37)
	q := src.builds[0].Tasks[3].Question
	src.events <- engine.Event{Type: engine.EventTaskAsking, Topic: engine.TopicBuild, BuildID: "3", TaskID: "ua-04", Text: q}
	l.until(func() bool { return l.m.ask.open })
	assert.True(t, l.m.Capturing(), "the dialog owns the keyboard")
	assert.Contains(t, l.plain(), "ua-04 asks you (build 3)")
	assert.Contains(t, l.plain(), "May I add one")

	// esc keeps the task waiting; a on the task opens the dialog again.
	l.press("esc")
	assert.False(t, l.m.ask.open)
	src.mu.Lock()
	assert.Empty(t, src.asked)
	src.mu.Unlock()
	l.press("a")
	l.until(func() bool {
		return slices.ContainsFunc(l.toasts, func(s string) bool { return strings.Contains(s, "asks nothing") })
	}) // ua-03 waits for the server, it asks nothing
	assert.False(t, l.m.ask.open)
	l.press("j", "a")
	require.True(t, l.m.ask.open, "a on the asking task opens the dialog")

	l.press("enter")
	assert.Contains(t, l.plain(), "write an answer first", "an empty answer is not sent")
	for _, r := range "plain SVG" {
		l.press(string(r))
	}
	l.press("enter")
	l.until(func() bool { return !l.m.ask.open })
	src.mu.Lock()
	assert.Equal(t, []string{"3 ua-04 plain SVG"}, src.asked)
	src.mu.Unlock()
	l.until(func() bool {
		return len(l.toasts) > 0 && strings.HasPrefix(l.toasts[len(l.toasts)-1], "answered ua-04")
	})
	assert.Equal(t, "answered ua-04; build 3 continues", l.toasts[len(l.toasts)-1])
}

func TestAskDialogShowsARefusal(t *testing.T) {
	t.Parallel()
	src := waitingSource(t)
	l := newLoop(t, src, 120, 37)
	l.press("j", "a")
	require.True(t, l.m.ask.open)
	src.mu.Lock()
	src.builds[0].Tasks[3].Status = StatusPending // answered elsewhere meanwhile
	src.mu.Unlock()
	for _, r := range "svg" {
		l.press(string(r))
	}
	l.press("enter")
	l.until(func() bool { return !l.m.ask.sending })
	assert.True(t, l.m.ask.open, "the dialog stays with the engine's answer")
	assert.Contains(t, l.plain(), "not waiting")
}

func TestPauseOnAFinishedBuildSaysSo(t *testing.T) {
	t.Parallel()
	src := sampleSource(t)
	src.builds[0].Status, src.builds[0].Active, src.builds[0].Done = StatusDone, false, 6
	l := newLoop(t, src, 120, 37)
	l.press("p")
	l.until(func() bool { return len(l.toasts) > 0 })
	assert.Equal(t, "build 3: build is already finished (done); nothing to pause", l.toasts[0], "the engine's message, not an error")
	src.mu.Lock()
	assert.Equal(t, []string{"pause 3"}, src.calls)
	src.mu.Unlock()
}

func TestInterruptedBuildResumesWithP(t *testing.T) {
	t.Parallel()
	src := sampleSource(t)
	src.builds[0].Status, src.builds[0].Active = StatusInterrupted, false
	l := newLoop(t, src, 160, 45)
	assert.Contains(t, l.plain(), "resumable — p resumes")
	l.press("p")
	l.until(func() bool { src.mu.Lock(); defer src.mu.Unlock(); return len(src.calls) == 1 })
	src.mu.Lock()
	assert.Equal(t, "resume 3", src.calls[0])
	src.mu.Unlock()
}

func TestTrustStatesFit(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 21}, {120, 37}, {180, 47}} {
		src := waitingSource(t)
		l := newLoop(t, src, size[0], size[1])
		for _, keys := range [][]string{nil, {"G"}, {"g"}, {"g", "j", "j", "j", "a"}} {
			l.press(keys...)
			l.settle(20 * time.Millisecond)
			lines := strings.Split(l.plain(), "\n")
			assert.Len(t, lines, size[1], "%v %v", size, keys)
			for i, ln := range lines {
				assert.LessOrEqual(t, lipgloss.Width(ln), size[0], "%v %v line %d: %q", size, keys, i, ln)
			}
			if l.m.ask.open {
				l.press("esc")
			}
		}
	}
}

// waitSource is a fakeSource whose first task's history starts with the
// attempt the model server's absence cut short.
type waitSource struct{ *fakeSource }

func (w waitSource) BuildTasks(ctx context.Context, id uint64) ([]eb.Task, error) {
	ts, err := w.fakeSource.BuildTasks(ctx, id)
	if len(ts) > 0 {
		ts[0].History = append([]eb.Attempt{{N: 1, Kind: failure.Unreachable, Reason: "agent run failed: ollama is not reachable"}}, ts[0].History...)
	}
	return ts, err
}

// A wait for the model server is not an attempt at the work: the Attempts
// line leaves it out.
func TestAWaitIsNotAnAttempt(t *testing.T) {
	t.Parallel()
	src := sampleSource(t)
	d, err := getBuild(context.Background(), waitSource{src}, "3")
	require.NoError(t, err)
	require.NotEmpty(t, d.Tasks)
	assert.Empty(t, d.Tasks[0].History, "ua-01 ran once; the wait before it is not listed")
	assert.Len(t, d.Tasks[1].History, 2)
}

// A question that arrives while the answer to the previous one is being
// sent opens once that answer is in.
func TestAQuestionDuringAnAnswerComesNext(t *testing.T) {
	t.Parallel()
	src := waitingSource(t)
	l := newLoop(t, src, 120, 37)
	l.press("j", "a")
	require.True(t, l.m.ask.open)
	for _, r := range "svg" {
		l.press(string(r))
	}
	_, cmd := l.m.Update(tuitest.Key("enter")) // the answer is on its way (not yet run)
	require.True(t, l.m.ask.sending)
	_, _ = l.m.Update(common.EventMsg{Event: engine.Event{Type: engine.EventTaskAsking, Topic: engine.TopicBuild, BuildID: "3", TaskID: "ua-06", Text: "Which timeout?"}})
	l.exec(cmd)
	l.until(func() bool { return l.m.ask.open && l.m.ask.task == "ua-06" })
	assert.Contains(t, l.plain(), "Which timeout?")
}

// Issue 25: a done task that staged changes nothing executed shows as
// "done (unverified)" in the detail and is marked in the task list; one a
// check verified shows as done.
func TestDoneUnverifiedInTheListAndDetail(t *testing.T) {
	t.Parallel()
	src := sampleSource(t)
	d := &src.builds[0]
	d.Tasks[0].ChangesetID = 7                            // ua-01: staged, nothing ran it
	d.Tasks[1].ChangesetID, d.Tasks[1].Verified = 8, true // ua-02: go build ran on it
	l := newLoop(t, src, 160, 45)
	l.press("g")
	out := l.plain()
	assert.Contains(t, out, "done (unverified)", "the detail names the status")
	var row string
	for line := range strings.Lines(out) {
		if strings.Contains(line, "ua-01 Define the event schema") {
			row = line
		}
	}
	require.NotEmpty(t, row)
	assert.Contains(t, row, "unverified", "the task list marks it")
	golden.RequireEqual(t, l.pinned())

	l.press("j")
	out = l.plain()
	assert.NotContains(t, out, "done (unverified)", "a verified task is plainly done")
	for line := range strings.Lines(out) {
		if strings.Contains(line, "ua-02 Ingest API") {
			assert.NotContains(t, line, "unverified")
		}
	}
}
