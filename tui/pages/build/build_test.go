package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/tui/common"
)

// Page sizes are the body under the header and the status bar (3 lines).
var sizes = [][2]int{{80, 21}, {160, 45}}

func TestGoldenPages(t *testing.T) {
	t.Parallel()
	for _, size := range sizes {
		name := fmt.Sprintf("%dx%d", size[0], size[1]+3)
		t.Run("graph_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, sampleSource(t), size[0], size[1])
			l.m.streams[streamKey("3", "ua-03")] = builder("func DailyActive(ctx context.Context, db *sql.DB, day time.Time) (int, error) {\n\t// count distinct users per UTC day\n")
			golden.RequireEqual(t, l.pinned())
		})
		t.Run("provenance_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, sampleSource(t), size[0], size[1])
			l.press("enter", "down")
			golden.RequireEqual(t, l.pinned())
		})
		t.Run("empty_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, newSource(t), size[0], size[1])
			golden.RequireEqual(t, l.pinned())
		})
	}
	t.Run("picker_invalid_100x30", func(t *testing.T) {
		t.Parallel()
		ws := newSource(t)
		writePRDs(t, ws.root)
		l := newLoop(t, ws, 100, 27)
		l.press("n")
		l.until(func() bool { return l.m.prdLoaded })
		golden.RequireEqual(t, l.pinned())
	})
}

func builder(s string) *strings.Builder {
	b := &strings.Builder{}
	b.WriteString(s)
	return b
}

const goodPRD = `{"meta":{"name":"Tiny API","version":"1"},"tasks":[
 {"id":"t1","title":"Schema","description":"Write the schema","agent":"PLUTO","status":"pending","dependencies":[],"phase":1,"attempts":0},
 {"id":"t2","title":"Handlers","description":"Write the handlers","agent":"MARS","status":"pending","dependencies":["t1"],"phase":2,"attempts":0},
 {"id":"t3","title":"Docs","description":"Document the API","agent":"CALLISTO","status":"pending","dependencies":["t2"],"phase":3,"attempts":0}]}`

const badPRD = `{"meta":{"name":"Broken"},"tasks":[
 {"id":"a","title":"A","agent":"MARS","dependencies":["b"],"phase":1},
 {"id":"b","title":"B","agent":"MARS","dependencies":["a"],"phase":1},
 {"id":"a","title":"A again","agent":"MARS","dependencies":["zzz"],"phase":1}]}`

func writePRDs(t *testing.T, root string) {
	t.Helper()
	dir := filepath.Join(root, ".nova", "prds")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a-broken.json"), []byte(badPRD), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b-tiny.json"), []byte(goodPRD), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a prd"), 0o644))
}

func TestLayoutFits(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 21}, {100, 27}, {120, 37}, {160, 45}, {200, 57}, {250, 67}} {
		ws := sampleSource(t)
		writePRDs(t, ws.root)
		l := newLoop(t, ws, size[0], size[1])
		for _, keys := range [][]string{nil, {"enter"}, {"tab"}, {"b"}, {"esc", "n"}, {"esc", "X"}} {
			l.press(keys...)
			l.settle(20 * time.Millisecond)
			lines := strings.Split(l.plain(), "\n")
			assert.Len(t, lines, size[1], "%v %v", size, keys)
			for i, ln := range lines {
				assert.LessOrEqual(t, lipgloss.Width(ln), size[0], "%v %v line %d: %q", size, keys, i, ln)
			}
		}
	}
}

func TestGraphShowsPhasesStatusesAndDetail(t *testing.T) {
	t.Parallel()
	l := newLoop(t, sampleSource(t), 160, 45)
	out := l.plain()
	for _, want := range []string{
		"Build 3", "UA Dashboard v1", "2/6 done", "Phase 1", "Phase 2", "Phase 3",
		"✓ ua-01", "◐ ua-03", "◆ ua-04", "○ ua-05", "⊘ ua-06", "← ua-03,ua-04", "3m12s", "×2",
		"ua-03 — Aggregate daily active users", "agent MARS", "needs ✓ ua-02",
		"Provenance 2 vault nodes · 1 rule · 3 knowledge items", "#12 strategy Aggregate in SQL", "r2 Wrap errors",
		"fact:f3 Daily buckets use the user's time zone", "fact:f9 (no longer available)",
		"Waiting for the model's first tokens…", "builds (2)",
	} {
		assert.Contains(t, out, want)
	}
	// The running task is selected first; j moves to the next.
	assert.Equal(t, "ua-03", l.m.selectedTaskID())
	l.press("k")
	out = l.plain()
	assert.Contains(t, out, "Attempts #1 ✗ 0.30 4300 tok · #2 ✓ 0.85 4800 tok")
	assert.Contains(t, out, "#1: gate check:go build ./... failed: undefined: Event")
	l.press("j", "j", "j", "j")
	assert.Equal(t, "ua-06", l.m.selectedTaskID())
	out = l.plain()
	assert.Contains(t, out, "TestIngestBurst timed out")
	assert.Contains(t, out, "✗ check:go test ./... 0.00")
	assert.Contains(t, out, "score 0.40")
}

func TestProvenanceJumps(t *testing.T) {
	t.Parallel()
	l := newLoop(t, sampleSource(t), 160, 45)
	l.press("enter")
	require.Equal(t, focusProvenance, l.m.focus)
	l.press("enter")
	l.until(func() bool { return len(l.navs()) == 1 })
	assert.Equal(t, common.NavigateMsg{Page: "vault", Arg: uint64(12)}, l.navs()[0])
	l.press("down", "down", "enter")
	l.until(func() bool { return len(l.navs()) == 2 })
	assert.Equal(t, common.NavigateMsg{Page: "playbooks", Arg: "MARS/r2"}, l.navs()[1])
	l.press("down", "enter")
	l.until(func() bool { return len(l.navs()) == 3 })
	assert.Equal(t, common.NavigateMsg{Page: "knowledge", Arg: "fact:f3"}, l.navs()[2], "an injected fact opens on the Knowledge screen")
	l.press("K")
	l.until(func() bool { return len(l.navs()) == 4 })
	assert.Equal(t, common.NavigateMsg{Page: "knowledge", Arg: common.KnowledgeRefs{Title: "Injected into build 3, task ua-03",
		Refs: []string{"fact:f3", "docs:local:github.com/jackc/pgx/v5#pgxpool", "fact:f9"}}}, l.navs()[3])
	l.press("esc")
	assert.Equal(t, focusTasks, l.m.focus)
}

func TestCancelAsksAndPauseToggles(t *testing.T) {
	t.Parallel()
	src := sampleSource(t)
	l := newLoop(t, src, 120, 37)
	l.press("X")
	require.True(t, l.m.confirm.Active())
	assert.True(t, l.m.Capturing())
	assert.Contains(t, l.plain(), "Cancel build 3?")
	l.press("enter") // No is focused first: a stray enter keeps the build
	l.settle(50 * time.Millisecond)
	assert.Empty(t, src.calls)
	l.press("X", "y")
	l.until(func() bool { src.mu.Lock(); defer src.mu.Unlock(); return len(src.calls) == 1 })
	l.press("p")
	l.until(func() bool { src.mu.Lock(); defer src.mu.Unlock(); return len(src.calls) == 2 })
	src.mu.Lock()
	assert.Equal(t, []string{"cancel 3", "pause 3"}, src.calls)
	src.builds[0].Status = StatusPaused
	src.mu.Unlock()
	l.m.seq++
	l.dispatch(refreshMsg{seq: l.m.seq})
	l.until(func() bool { return l.m.detail.Status == StatusPaused })
	l.press("p")
	l.until(func() bool { src.mu.Lock(); defer src.mu.Unlock(); return len(src.calls) == 3 })
	assert.Equal(t, "resume 3", src.calls[2])
}

func TestDeltasCoalesceAndReset(t *testing.T) {
	t.Parallel()
	ws := sampleSource(t)
	l := newLoop(t, ws, 120, 37)
	delta := func(text string, reset bool) {
		ws.events <- engine.Event{Type: engine.EventDelta, Topic: engine.TopicAgent, BuildID: "3", TaskID: "ua-03", Text: text,
			Agent: &agents.Event{Type: agents.EventDelta, Text: text, Reset: reset}}
	}
	delta("SELECT count(", false)
	delta("*) FROM ev", false)
	l.until(func() bool { return len(l.m.pending) > 0 })
	assert.Nil(t, l.m.streams[streamKey("3", "ua-03")], "deltas wait for the flush tick")
	l.until(func() bool { return strings.Contains(l.plain(), "SELECT count(*) FROM ev") })
	delta("garbage from a cut stream", false)
	delta("", true)
	delta("SELECT 1", false)
	l.until(func() bool { return strings.Contains(l.plain(), "SELECT 1") })
	assert.NotContains(t, l.plain(), "garbage", "a reset drops the retried attempt's text")
	assert.NotContains(t, l.plain(), "SELECT count", "a reset drops the retried attempt's text")
	// Deltas of other builds are not shown here.
	ws.events <- engine.Event{Type: engine.EventDelta, BuildID: "99", TaskID: "ua-03", Text: "OTHER"}
	l.settle(120 * time.Millisecond)
	assert.NotContains(t, l.plain(), "OTHER")
}

func TestPickerValidatesBeforeStarting(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	ws := src
	writePRDs(t, ws.root)
	l := newLoop(t, src, 120, 37)
	assert.Contains(t, l.plain(), "No builds yet.")
	assert.Contains(t, l.plain(), "nova build run PRD")
	l.press("n")
	assert.True(t, l.m.Capturing(), "the picker owns the keyboard")
	l.until(func() bool { return l.m.prdLoaded })
	require.Len(t, l.m.prds, 2, "only .json/.yaml files are listed")
	out := l.plain()
	assert.Contains(t, out, "a-broken.json")
	assert.Contains(t, out, "duplicate")
	assert.Contains(t, out, "cycle")
	l.press("enter")
	l.settle(50 * time.Millisecond)
	assert.Empty(t, src.started, "an invalid PRD never starts")
	assert.Contains(t, l.plain(), "cannot start until it is fixed")
	src.err = errors.New("workspace in use")
	l.press("j", "enter")
	l.until(func() bool { return !l.m.starting && l.m.startErr != nil })
	assert.Contains(t, l.plain(), "workspace in use")
	assert.Equal(t, modePicker, l.m.mode, "the picker stays open on a failure")
	src.err = nil
	l.press("enter")
	l.until(func() bool { return l.m.mode == modeGraph })
	assert.Equal(t, []string{filepath.Join(ws.root, ".nova", "prds", "b-tiny.json")}, src.started)
}

func TestBuildsListSwitches(t *testing.T) {
	t.Parallel()
	l := newLoop(t, sampleSource(t), 120, 37)
	l.press("b")
	assert.Contains(t, l.plain(), "Builds (2)")
	assert.Contains(t, l.plain(), "Settings page")
	l.press("j", "enter")
	l.until(func() bool { return l.m.detail != nil && l.m.detail.ID == "2" })
	assert.Contains(t, l.plain(), "This build has no tasks.")
}

var _ = context.Background

// TestStartBuildRunsThroughPhases starts a PRD from the picker against the
// real engine and a fake Ollama at zero latency, and watches the tasks move
// through their phases to done.
func TestStartBuildRunsThroughPhases(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("qwen2.5-coder:1.5b", "qwen2.5-coder:7b", "qwen2.5-coder:14b"),
		ollamatest.WithDefaultReply(ollamatest.Text("Done: the work is written up.").WithTokens(120, 30)))
	root := t.TempDir()
	_, err := workspace.Init(root, nova.Defaults)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "prds", "tiny.json"), []byte(goodPRD), 0o644))
	ws, err := engine.Open(context.Background(), engine.Options{Root: root, NoSync: true, Getenv: func(k string) string {
		switch k {
		case "OLLAMA_HOST":
			return srv.URL()
		case "NOVA_AUTONOMY":
			return "3"
		}
		return ""
	}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })

	l := newLoop(t, ws, 160, 45)
	assert.Contains(t, l.plain(), "No builds yet.")
	l.press("n")
	l.until(func() bool { return l.m.prdLoaded })
	var idx = -1
	for i, f := range l.m.prds {
		if f.Name == "tiny.json" {
			idx = i
			require.Empty(t, f.Problem)
		}
	}
	require.GreaterOrEqual(t, idx, 0, "tiny.json is listed")
	l.m.prdList.SetCursor(idx)
	l.press("enter")
	l.until(func() bool { return l.m.mode == modeGraph && l.m.cur != "" })
	seen := map[string]bool{}
	l.until(func() bool {
		if l.m.detail != nil {
			for _, tk := range l.m.detail.Tasks {
				seen[tk.ID+" "+tk.Status] = true
			}
		}
		return l.m.detail != nil && l.m.detail.Status == StatusDone
	})
	out := l.plain()
	assert.Contains(t, out, "3/3 done")
	for _, want := range []string{"✓ t1", "✓ t2", "✓ t3", "Phase 1", "Phase 2", "Phase 3"} {
		assert.Contains(t, out, want)
	}
	assert.True(t, seen["t1 done"] && seen["t3 done"])
	// Phases ran in order: each task started after its dependency finished.
	byID := map[string]Task{}
	for _, tk := range l.m.detail.Tasks {
		byID[tk.ID] = tk
	}
	for _, pair := range [][2]string{{"t1", "t2"}, {"t2", "t3"}} {
		dep, next := byID[pair[0]], byID[pair[1]]
		require.False(t, dep.Finished.IsZero() || next.Started.IsZero(), "%v", pair)
		assert.False(t, next.Started.Before(dep.Finished), "%s starts after %s finished", pair[1], pair[0])
	}
	// The finished task shows its output and gates.
	l.m.selectOrder(0)
	out = l.plain()
	assert.Contains(t, out, "Done: the work is written up.")
	assert.Contains(t, out, "Gates")
}

func TestSelectionFollowsRunningTaskUntilMoved(t *testing.T) {
	t.Parallel()
	src := sampleSource(t)
	l := newLoop(t, src, 120, 37)
	require.Equal(t, "ua-03", l.m.selectedTaskID())
	next := func(running int, mut func(d *Detail)) {
		src.mu.Lock()
		mut(&src.builds[0])
		src.mu.Unlock()
		l.m.seq++
		gen := l.m.gen
		l.dispatch(refreshMsg{seq: l.m.seq})
		// Wait for the load that carries the change (an earlier one may
		// still be on its way on a loaded machine).
		l.until(func() bool {
			return l.m.gen > gen && l.m.detail != nil && len(l.m.detail.Tasks) > running && l.m.detail.Tasks[running].Status == StatusRunning
		})
		l.settle(20 * time.Millisecond)
	}
	next(3, func(d *Detail) { d.Tasks[2].Status, d.Tasks[3].Status = StatusDone, StatusRunning })
	assert.Equal(t, "ua-04", l.m.selectedTaskID(), "the selection follows the work")
	l.press("k")
	assert.Equal(t, "ua-03", l.m.selectedTaskID())
	next(4, func(d *Detail) { d.Tasks[3].Status, d.Tasks[4].Status = StatusDone, StatusRunning })
	assert.Equal(t, "ua-03", l.m.selectedTaskID(), "a task the user chose stays selected")
}

func TestResumeCanceledAndStalledBuilds(t *testing.T) {
	t.Parallel()
	src := sampleSource(t)
	src.builds[0].Status, src.builds[0].Active, src.builds[0].Reason = StatusRunning, false, ""
	l := newLoop(t, src, 160, 45)
	assert.Contains(t, l.plain(), "not running in this process — p resumes")
	l.press("p")
	l.until(func() bool { src.mu.Lock(); defer src.mu.Unlock(); return len(src.calls) == 1 })
	src.mu.Lock()
	assert.Equal(t, "resume 3", src.calls[0])
	src.builds[0].Status, src.builds[0].Reason = StatusCanceled, "canceled by the user"
	src.mu.Unlock()
	l.m.seq++
	l.dispatch(refreshMsg{seq: l.m.seq})
	l.until(func() bool { return l.m.detail.Status == StatusCanceled })
	assert.Contains(t, l.plain(), "canceled by the user")
	l.press("p")
	l.until(func() bool { src.mu.Lock(); defer src.mu.Unlock(); return len(src.calls) == 2 })
	assert.Equal(t, "resume 3", src.calls[1])
}

func TestBuildTaskCommandApproval(t *testing.T) {
	t.Parallel()
	ws := sampleSource(t)
	l := newLoop(t, ws, 160, 45)
	ws.events <- engine.Event{Type: engine.EventLog, Topic: engine.TopicAgent, RunID: "7", BuildID: "3", TaskID: "ua-03", Status: "start"}
	req := tools.ApprovalRequest{ID: "ap-1", RunID: 7, Agent: "MARS", Tool: "runCommand", Command: "go test ./...", Dir: ".", Reason: "autonomy 3 asks before running commands"}
	ws.events <- engine.Event{Type: engine.EventNeedsApproval, Topic: engine.TopicAgent, RunID: "7", Status: "ap-1", Approval: &req}
	l.until(func() bool { return l.m.confirm.Active() })
	out := l.plain()
	assert.Contains(t, out, "Allow this command?")
	assert.Contains(t, out, "go test ./...")
	assert.Contains(t, out, "◆ waits for your approval to run `go test ./...`")
	assert.True(t, l.m.Capturing())
	// An approval of a run that is not a build task's is not ours.
	ws.events <- engine.Event{Type: engine.EventNeedsApproval, Topic: engine.TopicAgent, RunID: "99", Status: "ap-2",
		Approval: &tools.ApprovalRequest{ID: "ap-2", RunID: 99, Command: "rm -rf /"}}
	l.press("y")
	l.until(func() bool { ws.mu.Lock(); defer ws.mu.Unlock(); return len(ws.answers) == 1 })
	l.settle(50 * time.Millisecond)
	ws.mu.Lock()
	assert.Equal(t, []string{"ap-1 true"}, ws.answers)
	ws.mu.Unlock()
	assert.False(t, l.m.confirm.Active())
	assert.NotContains(t, l.plain(), "waits for your approval")
}

func TestToolCallsShowInTheStream(t *testing.T) {
	t.Parallel()
	ws := sampleSource(t)
	l := newLoop(t, ws, 160, 45)
	ws.events <- engine.Event{Type: engine.EventLog, Topic: engine.TopicAgent, RunID: "4", BuildID: "3", TaskID: "ua-03",
		Agent: &agents.Event{Type: agents.EventToolCall, Tool: "writeFile", Args: `{"path":"dau.go"}`}}
	ws.events <- engine.Event{Type: engine.EventLog, Topic: engine.TopicAgent, RunID: "4", BuildID: "3", TaskID: "ua-03",
		Agent: &agents.Event{Type: agents.EventToolResult, Tool: "writeFile", Status: "ok"}}
	l.until(func() bool { return strings.Contains(l.plain(), "← writeFile ok") })
	assert.Contains(t, l.plain(), `→ writeFile {"path":"dau.go"}`)
	// The task's progress estimate shows when it changes, once.
	for range 2 {
		ws.events <- engine.Event{Type: engine.EventLog, Topic: engine.TopicAgent, RunID: "4", BuildID: "3", TaskID: "ua-03",
			Agent: &agents.Event{Type: agents.EventProgress, Progress: &agents.Progress{Percent: 50, Milestone: "finish the change"}}}
	}
	ws.events <- engine.Event{Type: engine.EventLog, Topic: engine.TopicAgent, RunID: "4", BuildID: "3", TaskID: "ua-03",
		Agent: &agents.Event{Type: agents.EventProgress, Progress: &agents.Progress{Percent: 90, Milestone: "give the final answer"}}}
	l.until(func() bool { return strings.Contains(l.plain(), "· 90% · next: give the final answer") })
	assert.Equal(t, 1, strings.Count(l.plain(), "50% · next: finish the change"), "events are handled in order: the repeat was dropped")
}

func TestPickerOpensAnyPRDByItsPath(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	writePRDs(t, src.root)
	other := filepath.Join(src.root, "plans", "next", "prd-billing.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	require.NoError(t, os.WriteFile(other, []byte("meta: {name: billing}\ntasks: []\n"), 0o644))
	l := newLoop(t, src, 120, 37)
	// The palette's "New build" opens the picker like n.
	l.dispatch(common.NavigateMsg{Page: ID, Arg: common.ArgNew})
	l.until(func() bool { return l.m.prdLoaded })
	assert.Contains(t, l.plain(), "opens any PRD file")
	l.press(".", "/", "p", "l", "tab")
	l.until(func() bool { return l.m.prdPath.Value() == "./plans/" })
	l.press("tab")
	l.until(func() bool { return strings.Contains(l.plain(), "a folder: type a file in it") })
	assert.Equal(t, "./plans/next/", l.m.prdPath.Value())
	l.press("enter")
	l.settle(50 * time.Millisecond)
	assert.Empty(t, src.started, "a folder does not start")
	l.press("tab")
	l.until(func() bool { return l.m.prdPath.Valid() })
	assert.Contains(t, l.plain(), "✓ file")
	l.press("enter")
	l.until(func() bool { return l.m.mode == modeGraph })
	assert.Equal(t, []string{other}, src.started)
}

// TestFinishedOutputIsNotShownTwice: a task finishes while its last deltas
// still wait for the flush tick; the detail that arrives then carries the
// task's output, which must not be added to the stream a second time.
func TestFinishedOutputIsNotShownTwice(t *testing.T) {
	t.Parallel()
	ws := sampleSource(t)
	l := newLoop(t, ws, 120, 37)
	const out = "SELECT day, count(DISTINCT user) FROM events GROUP BY day"
	l.Dispatch(common.EventMsg{Event: engine.Event{Type: engine.EventDelta, Topic: engine.TopicAgent, BuildID: "3", TaskID: "ua-03", Text: out,
		Agent: &agents.Event{Type: agents.EventDelta, Text: out}}})
	require.NotNil(t, l.m.pending[streamKey("3", "ua-03")], "the delta waits for the flush tick")
	ws.mu.Lock()
	ws.builds[0].Tasks[2].Status, ws.builds[0].Tasks[2].Output = StatusDone, out
	ws.mu.Unlock()
	l.m.gen++
	d, err := getBuild(context.Background(), ws, "3")
	require.NoError(t, err)
	l.Dispatch(detailMsg{gen: l.m.gen, detail: d})
	if sel, _ := l.m.selectedTask(); sel.ID != "ua-03" {
		l.press("up") // the selection followed the next task
	}
	l.until(func() bool { return strings.Contains(l.plain(), "GROUP BY") })
	l.settle(120 * time.Millisecond)
	assert.Equal(t, out, l.m.streams[streamKey("3", "ua-03")].String())
	assert.Equal(t, 1, strings.Count(l.plain(), "GROUP BY"), "the output once")
}

// At 80×24 the focused provenance list shows its cursor, however long the
// task's detail is above it.
func TestProvenanceStaysVisibleWhenFocusedOnASmallScreen(t *testing.T) {
	t.Parallel()
	src := sampleSource(t)
	for i := range src.builds[0].Tasks {
		tk := &src.builds[0].Tasks[i]
		if tk.ID == "ua-03" {
			for g := range 8 {
				tk.Gates = append(tk.Gates, Gate{Name: fmt.Sprintf("check:%d", g), Passed: true, Score: 1})
			}
		}
	}
	l := newLoop(t, src, 80, 21)
	require.Equal(t, "ua-03", l.m.selectedTaskID())
	l.press("tab")
	require.Equal(t, focusProvenance, l.m.focus)
	for range 5 {
		l.press("j")
	}
	assert.Contains(t, l.plain(), "fact:f9 (no longer available)")
}

// The files of a task's code-map block are part of its provenance: counted
// in the panel's title, listed with a "map" tag, and enter says how to see
// their signatures.
func TestProvenanceShowsTheCodeMapFiles(t *testing.T) {
	t.Parallel()
	data := sample()
	for i := range data.builds[0].Tasks {
		if tk := &data.builds[0].Tasks[i]; tk.ID == "ua-03" {
			tk.CodeMap = []string{"internal/usage/aggregate.go", "internal/usage/store.go"}
		}
	}
	l := newLoop(t, newSource(t, data.builds...), 160, 45)
	require.Equal(t, "ua-03", l.m.selectedTaskID())
	view := l.plain()
	assert.Contains(t, view, "3 knowledge items · 2 map files")
	assert.Regexp(t, `map +internal/usage/aggregate.go`, view)
	l.press("tab")
	require.Equal(t, focusProvenance, l.m.focus)
	for range 6 {
		l.press("j")
	}
	l.press("enter")
	l.until(func() bool { return len(l.toasts) == 1 })
	assert.Contains(t, l.toasts[0], "nova map show internal/usage/aggregate.go")
}
