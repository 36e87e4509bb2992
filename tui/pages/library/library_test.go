package library

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/skills"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
)

// --- canned data (goldens) --------------------------------------------------

func ptr[T any](v T) *T { return &v }

// sampleRuns: run 2 is running its test step (the live view), run 1 is done
// with its debug and fix steps skipped.
func sampleRuns() []workflow.Run {
	at := func(m int) time.Time { return epoch.Add(time.Duration(m) * time.Minute) }
	steps := func(test workflow.StepStatus) []workflow.StepState {
		out := []workflow.StepState{
			{ID: "study", Title: "Add tests: study", Kind: "skill", Agent: "SATURN", Skill: "generate-tests", Status: workflow.StepDone,
				AgentRunID: 4, Output: "### read-implementation (readFile)\npackage main\n\nfunc parse(s string) int { return len(s) }"},
			{ID: "test", Title: "Add tests: test", Kind: "agent", Agent: "SATURN", Status: test, BuildID: 7,
				Task: "Write tests for parse.go covering the public behaviour, its edge cases and its errors. Follow the style of the tests next to it. Run them before you answer."},
			{ID: "debug", Title: "Add tests: debug", Kind: "agent", Agent: "researcher", Status: workflow.StepPending},
			{ID: "fix", Title: "Add tests: fix", Kind: "agent", Agent: "SATURN", Status: workflow.StepPending},
		}
		if test == workflow.StepDone {
			out[1].Output, out[1].ChangesetID = "Done: wrote parse_test.go with 4 cases; go test ./... passes.", 3
			out[1].BuildID = 5
			out[2].Status, out[2].Reason = workflow.StepSkipped, `skipped: condition "test.failed" is false`
			out[3].Status, out[3].Reason = workflow.StepSkipped, `skipped: condition "debug.done" is false`
		}
		return out
	}
	return []workflow.Run{
		{ID: 2, Workflow: "add-test", Name: "Add tests", Status: workflow.RunRunning, Active: true,
			Params: map[string]any{"target": "parse.go", "focus": "errors"}, Steps: steps(workflow.StepRunning), CreatedAt: at(5)},
		{ID: 1, Workflow: "add-test", Name: "Add tests", Status: workflow.RunDone,
			Params: map[string]any{"target": "lex.go", "focus": "errors"}, Steps: steps(workflow.StepDone), CreatedAt: at(1), FinishedAt: at(2)},
	}
}

func sampleBlueprint() (blueprint.Summary, blueprint.Details, []blueprint.VersionRecord) {
	rate := 0.5
	ev := blueprint.Evidence{Builds: 3, Finished: 2, Succeeded: 1, SuccessRate: &rate, AvgDuration: 94 * time.Second, AvgTokens: 6390}
	st := blueprint.Status{UsageCount: 3, LastUsed: epoch.Add(3 * time.Minute), Versions: 2}
	spec := blueprint.Spec{Name: "http-endpoint", Description: "A JSON endpoint with its handler, route and tests.",
		Parameters: []params.Param{
			{Name: "route", Prompt: "Which route?", Default: "/health"},
			{Name: "method", Type: params.Enum, Values: []any{"GET", "POST"}, Default: "GET"},
			{Name: "port", Type: params.Integer, Default: float64(8080), Min: ptr(1.0), Max: ptr(65535.0)},
		}}
	sum := blueprint.Summary{Name: spec.Name, Description: spec.Description, Version: 2, Parameters: 3, Status: st, Evidence: ev}
	d := blueprint.Details{Blueprint: blueprint.Blueprint{Name: spec.Name, Description: spec.Description, Spec: spec, Version: 2},
		Status: st, Evidence: ev, Uses: []blueprint.Use{
			{Blueprint: spec.Name, Version: 2, BuildID: 9, Parameters: map[string]any{"route": "/orders", "method": "POST", "port": 8080}, Status: "done"},
			{Blueprint: spec.Name, Version: 1, BuildID: 6, Parameters: map[string]any{"route": "/health"}, Status: "failed"},
		}}
	hist := []blueprint.VersionRecord{
		{Version: blueprint.Version{Version: 1, CreatedAt: epoch, Changes: "initial version"}},
		{Version: blueprint.Version{Version: 2, CreatedAt: epoch.Add(2 * time.Minute), Changes: "parameters added: port"}},
	}
	return sum, d, hist
}

func cannedSource(t *testing.T) *fakeSource {
	t.Helper()
	f := newFake(t)
	f.runs = sampleRuns()
	sum, d, h := sampleBlueprint()
	f.blueprints = []blueprint.Summary{sum}
	f.details = map[string]blueprint.Details{sum.Name: d}
	f.history = map[string][]blueprint.VersionRecord{sum.Name: h}
	f.skillRes = &engine.SkillRunResult{Result: skills.Result{Skill: "debug-root-cause", Version: "1.0.0", Agent: "researcher",
		Success: false, StepsCompleted: 2, TotalSteps: 3, FailedStep: "identify-cause", Error: "the search found no file to read",
		Steps: []skills.StepResult{
			{Name: "read-error-context", Tool: "readFile", Status: tools.StatusOK, Output: "# example.com/app\n./config.go:4:9: undefined: parseConfg"},
			{Name: "search-for-source", Tool: "searchFiles", Status: tools.StatusOK, Output: "build.log:2: ./config.go:4:9: undefined: parseConfg", Duration: 3 * time.Millisecond},
			{Name: "identify-cause", Tool: "readFile", Status: tools.StatusError, Error: "the search found no file to read"},
		}}, RunID: 12}
	f.use = &engine.UseResult{Blueprint: "http-endpoint", Version: 2, Values: map[string]any{"route": "/orders", "method": "POST", "port": 8080},
		PRD: json.RawMessage(`{"meta":{"name":"orders endpoint"},"tasks":[` +
			`{"id":"handler","title":"POST /orders handler","agent":"MARS","phase":0,"dependencies":[]},` +
			`{"id":"route","title":"Route POST /orders on :8080","agent":"MARS","phase":0,"dependencies":["handler"]},` +
			`{"id":"tests","title":"Tests for POST /orders","agent":"SATURN","phase":1,"dependencies":["handler","route"]}]}`)}
	return f
}

// --- goldens ----------------------------------------------------------------

func TestGoldenLibrary(t *testing.T) {
	t.Parallel()
	for _, size := range sizes {
		name := fmt.Sprintf("%dx%d", size[0], size[1]+3)
		steps := map[string]func(l *loop){
			"skills":     func(*loop) {},
			"workflows":  func(l *loop) { l.PressAsync("tab") },
			"runs":       func(l *loop) { l.PressAsync("tab", "tab", "j") },
			"blueprints": func(l *loop) { l.PressAsync("shift+tab"); l.Until(func() bool { return l.m.bp != nil }) },
			"form": func(l *loop) {
				l.PressAsync("tab", "j", "r")
				l.TypeAsync("parse")
			},
			"blueprint_form": func(l *loop) {
				l.PressAsync("shift+tab")
				l.Until(func() bool { return l.m.bp != nil })
				l.PressAsync("u", "tab", "tab")
				l.TypeAsync("x")
			},
			"request": func(l *loop) {
				l.PressAsync("tab", "/")
				l.TypeAsync("add tests for parse.go")
				l.Until(func() bool { return l.m.request != nil && len(l.m.request.matches) > 0 })
			},
			"run": func(l *loop) {
				l.PressAsync("tab", "tab", "enter")
				l.Until(func() bool { return l.m.run != nil && l.m.run.Workflow != "" })
				l.m.builds["test"] = "7"
				l.m.appendStream("7", "Reading parse.go first.\n→ readFile path=parse.go\n← readFile ok\nWriting the table of cases")
			},
			"skill_result": func(l *loop) {
				l.PressAsync("enter")
				l.TypeAsync("build.log")
				l.PressAsync("tab")
				l.TypeAsync("parseConfg")
				l.PressAsync("enter")
				l.Until(func() bool { return l.m.skillRes != nil })
			},
			"preview": func(l *loop) {
				l.PressAsync("shift+tab")
				l.Until(func() bool { return l.m.bp != nil })
				l.PressAsync("u", "enter")
				l.Until(func() bool { return l.m.preview != nil })
			},
		}
		for what, do := range steps {
			t.Run(what+"_"+name, func(t *testing.T) {
				t.Parallel()
				l := newLoop(t, cannedSource(t), size[0], size[1])
				do(l)
				golden.RequireEqual(t, l.Pinned())
			})
		}
		t.Run("empty_blueprints_"+name, func(t *testing.T) {
			t.Parallel()
			l := newLoop(t, newFake(t), size[0], size[1])
			l.PressAsync("shift+tab")
			golden.RequireEqual(t, l.Pinned())
		})
	}
}

// Every view fits the page at the sizes nova lays out for.
func TestLibraryViewsFit(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 21}, {120, 37}, {180, 47}, {250, 67}} {
		l := newLoop(t, cannedSource(t), size[0], size[1])
		check := func(what string) {
			t.Helper()
			out := l.Plain()
			lines := strings.Split(out, "\n")
			assert.Len(t, lines, size[1], "%s at %v: height", what, size)
			for i, line := range lines {
				assert.LessOrEqual(t, len([]rune(line)), size[0], "%s at %v: line %d is too wide: %q", what, size, i, line)
			}
		}
		check("skills")
		l.PressAsync("tab")
		check("workflows")
		l.PressAsync("r")
		check("workflow form")
		l.PressAsync("esc", "tab", "enter")
		l.Until(func() bool { return l.m.run != nil && l.m.run.Workflow != "" })
		check("run view")
		l.PressAsync("esc", "tab")
		l.Until(func() bool { return l.m.bp != nil })
		check("blueprints")
		l.PressAsync("u", "enter")
		l.Until(func() bool { return l.m.preview != nil })
		check("preview")
		l.PressAsync("t")
		check("preview json")
	}
}

// --- behaviour --------------------------------------------------------------

// Validation as you type: each field is checked with the engine's own
// conversion; the form refuses to submit while one is wrong.
func TestFormValidatesAsYouType(t *testing.T) {
	t.Parallel()
	l := newLoop(t, cannedSource(t), 120, 37)
	l.PressAsync("shift+tab")
	l.Until(func() bool { return l.m.bp != nil })
	l.PressAsync("u")
	require.NotNil(t, l.m.form)
	f := l.m.form
	assert.True(t, f.Valid(), "defaults are valid")
	assert.Contains(t, l.Plain(), "/health", "the default is the placeholder")
	l.PressAsync("tab", "tab") // port
	l.TypeAsync("9x")
	assert.False(t, f.Valid())
	assert.Contains(t, l.Plain(), "✗", "the error shows while typing")
	assert.Contains(t, f.fields[2].err, "whole number")
	l.PressAsync("enter")
	require.NotNil(t, l.m.form, "an invalid form does not submit")
	assert.Contains(t, l.Plain(), "fix the marked fields first")
	l.PressAsync("backspace", "backspace")
	l.TypeAsync("70000")
	assert.Contains(t, f.fields[2].err, "65535", "out of range")
	l.PressAsync("backspace", "backspace", "backspace", "backspace", "backspace")
	l.TypeAsync("8443")
	assert.True(t, f.Valid())
	l.PressAsync("shift+tab") // method: an enum cycles
	l.PressAsync("right")
	vals, _ := f.Values()
	assert.Equal(t, map[string]string{"method": "POST", "port": "8443"}, vals)
	l.PressAsync("enter")
	l.Until(func() bool { return l.m.preview != nil })
	assert.Nil(t, l.m.form)
	assert.Equal(t, viewPreview, l.m.view)
}

// A required field is marked and empty until filled; it says "✗ required"
// only once a run was tried (issue 32: not before anything is typed); esc
// closes the form.
func TestRequiredFieldsAreMarked(t *testing.T) {
	t.Parallel()
	l := newLoop(t, cannedSource(t), 120, 37)
	l.PressAsync("tab", "j", "r")
	require.NotNil(t, l.m.form)
	out := l.Plain()
	assert.Contains(t, out, "* Which file needs tests? target")
	assert.NotContains(t, out, "✗", "nothing typed yet: no error")
	assert.Contains(t, out, "fill in the fields marked *")
	assert.False(t, l.m.form.Valid())
	l.PressAsync("enter")
	require.NotNil(t, l.m.form)
	assert.Contains(t, l.Plain(), "✗ required", "a run was tried: the empty required field says why")
	assert.True(t, l.m.Capturing(), "the form takes the keyboard")
	l.PressAsync("esc")
	assert.Nil(t, l.m.form)
	assert.False(t, l.m.Capturing())
}

func TestInvalidFilesAreListed(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	root := f.Info().Root
	writeTestFile(t, root, ".nova/skills/broken.yaml", "schema: nova.skill/1\nname: broken\nversion: 1.0.0\ndescription: x\nsteps:\n  - {name: a, tool: noSuchTool}\n")
	l := newLoop(t, f, 120, 37)
	out := l.Plain()
	assert.Contains(t, out, "1 invalid")
	assert.Contains(t, out, "Invalid skill files")
	assert.Contains(t, out, "broken.yaml:6")
}

// `r` on a skill, the form, then the result: each step with ✓/✗, the failed
// one named.
func TestSkillRunShowsItsSteps(t *testing.T) {
	t.Parallel()
	l := newLoop(t, cannedSource(t), 120, 37)
	l.PressAsync("r")
	require.NotNil(t, l.m.form)
	l.TypeAsync("build.log")
	l.PressAsync("tab")
	l.TypeAsync("parseConfg")
	l.PressAsync("enter")
	l.Until(func() bool { return l.m.skillRes != nil })
	out := l.Plain()
	assert.Contains(t, out, "✓ read-error-context (readFile) <1ms")
	assert.Contains(t, out, "✗ identify-cause")
	assert.Contains(t, out, `Failed at step "identify-cause": the search found no file to read`)
	assert.Equal(t, map[string]string{"errorFile": "build.log", "errorPattern": "parseConfg"}, l.m.skillVals)
	l.PressAsync("r")
	require.NotNil(t, l.m.form, "r runs it again, with the same values")
	assert.Equal(t, "build.log", l.m.form.fields[0].value())
}

// The request box finds add-test and opens its form with the target read
// from the request.
func TestRequestOpensTheMatchingForm(t *testing.T) {
	t.Parallel()
	l := newLoop(t, cannedSource(t), 120, 37)
	l.PressAsync("tab", "/")
	require.True(t, l.m.Capturing())
	l.TypeAsync("please add tests for lexer.go")
	l.Until(func() bool { return l.m.request != nil && len(l.m.request.matches) > 0 })
	assert.Equal(t, "add-test", l.m.request.matches[0].ID)
	l.PressAsync("enter")
	require.NotNil(t, l.m.form)
	assert.Equal(t, "add-test", l.m.form.target)
	assert.Equal(t, "lexer.go", l.m.form.fields[0].value())
	assert.True(t, l.m.form.Valid())
}

var taskRE = regexp.MustCompile(`PRD task (\S+?): `)

// working plays a model that does the work: a build task writes a file on
// its first turn, then answers.
func working(_ int, req api.ChatRequest) ollamatest.Reply {
	user, tools := "", 0
	for _, m := range req.Messages {
		if m.Role == "user" && user == "" {
			user = m.Content
		}
		if m.Role == "tool" {
			tools++
		}
	}
	if id := taskRE.FindStringSubmatch(user); id != nil {
		if tools == 0 && id[1] != "debug" {
			return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "out/" + id[1] + ".txt", "content": "work\n"}))
		}
		return ollamatest.Text("Done: " + id[1] + ".")
	}
	return ollamatest.Text("ok")
}

// The whole path on the real engine: the add-test form, then the live run
// to its end: the test step passes, debug and fix are skipped with why.
func TestWorkflowRunsLiveToItsEnd(t *testing.T) {
	t.Parallel()
	l, _ := liveWorkspace(t, working, map[string]string{"parse.go": "package main\n\nfunc parse(s string) int { return len(s) }\n"})
	lp := newLoop(t, l, 120, 37)
	lp.PressAsync("tab", "j", "r")
	lp.TypeAsync("parse.go")
	lp.PressAsync("enter")
	lp.Until(func() bool { return lp.m.view == viewRun && lp.m.run != nil && lp.m.run.Status == workflow.RunDone })
	lp.Settle(200 * time.Millisecond)
	out := lp.Plain()
	assert.Contains(t, out, "Workflow add-test · run 1")
	assert.Contains(t, out, "4/4 steps")
	assert.Contains(t, out, `condition "test.failed" is false`)
	assert.NotEmpty(t, lp.m.builds["test"], "the step's build is known")
	lp.PressAsync("g", "j") // the test step
	lp.PressAsync("enter")
	lp.Until(func() bool { return len(lp.Navs) > 0 })
	assert.Equal(t, BuildPage, lp.Navs[len(lp.Navs)-1].Page)
	assert.Equal(t, lp.m.builds["test"], lp.Navs[len(lp.Navs)-1].Arg)
	lp.PressAsync("esc")
	lp.Until(func() bool { return len(lp.m.runs) == 1 })
	assert.Equal(t, paneWorkflows, lp.m.pane)
}

// A blueprint renders to a preview before anything runs; enter asks, y
// builds it and opens the Build screen, and the build counts as a use.
func TestBlueprintPreviewThenRun(t *testing.T) {
	t.Parallel()
	l, root := liveWorkspace(t, working, map[string]string{"bp.yaml": "name: ping\ndescription: a ping endpoint\nparameters:\n" +
		"  - {name: route, type: string, default: /ping}\nprd:\n  meta: {name: ping}\n  tasks:\n" +
		"    - {id: t1, title: \"add {{ route }}\", description: \"serve {{ route }}\", agent: MARS}\n"})
	_, err := l.AddBlueprint(t.Context(), root+"/bp.yaml", "")
	require.NoError(t, err)
	lp := newLoop(t, l, 120, 37)
	lp.PressAsync("shift+tab")
	lp.Until(func() bool { return lp.m.bp != nil })
	lp.PressAsync("u")
	require.NotNil(t, lp.m.form)
	lp.TypeAsync("/health")
	lp.PressAsync("enter")
	lp.Until(func() bool { return lp.m.preview != nil })
	out := lp.Plain()
	assert.Contains(t, out, "add /health")
	assert.Contains(t, out, "nothing runs until you press enter")
	builds, err := l.ListBuilds(t.Context())
	require.NoError(t, err)
	assert.Empty(t, builds, "a preview builds nothing")
	lp.PressAsync("t")
	assert.Contains(t, lp.Plain(), `"title": "add /health"`)
	lp.PressAsync("enter")
	require.True(t, lp.m.confirm.Active())
	lp.PressAsync("y")
	lp.Until(func() bool { return len(lp.Navs) > 0 })
	assert.Equal(t, BuildPage, lp.Navs[0].Page)
	assert.Equal(t, "1", lp.Navs[0].Arg)
	lp.Until(func() bool {
		bs, _ := l.ListBlueprints(t.Context())
		return len(bs) == 1 && bs[0].Evidence.Finished == 1
	})
	bs, err := l.ListBlueprints(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, bs[0].Status.UsageCount)
	assert.Equal(t, 1, bs[0].Evidence.Succeeded)
}

// TestLiveOutputWrapsByWords: a workflow step's live output, streamed in
// chunks that end inside words, wraps at spaces: every word on screen is a
// whole word of the stream.
func TestLiveOutputWrapsByWords(t *testing.T) {
	t.Parallel()
	text := "I will read parse.go first, then write the table of cases for the parser and run go test on the package before I hand it back."
	words := map[string]bool{}
	for _, w := range strings.Fields(text) {
		words[w] = true
	}
	l := newLoop(t, cannedSource(t), 80, 21)
	l.PressAsync("tab", "tab", "enter")
	l.Until(func() bool { return l.m.run != nil && l.m.run.Workflow != "" })
	l.m.builds["test"] = "7"
	for i := 0; i < len(text); i += 7 {
		l.m.appendStream("7", text[i:min(len(text), i+7)])
	}
	out := l.m.outputView(40, 12)
	seen := 0
	for _, line := range strings.Split(ansi.Strip(out), "\n")[2:] {
		for _, w := range strings.Fields(strings.Trim(line, "│╰─╯ ")) {
			seen++
			assert.True(t, words[w], "%q is not a word of the stream", w)
		}
	}
	assert.Greater(t, seen, 10)
}

// Issue 32: a pane's list is nova's list: at 80×24 forty runs do not fit,
// the pane says where it is, pgdn and G move the › (newest first, as the
// engine lists the runs), and ? shows the page's own keys.
func TestRunsListScrolls(t *testing.T) {
	t.Parallel()
	l := newLoop(t, cannedSource(t), 80, 21)
	var runs []workflow.Run
	for i := 40; i >= 1; i-- {
		runs = append(runs, workflow.Run{ID: uint64(i), Workflow: "add-test", Status: workflow.RunDone})
	}
	l.Send(runsMsg{runs: runs})
	l.PressAsync("tab", "tab")
	require.Equal(t, paneRuns, l.m.pane)
	out := l.Plain()
	assert.Contains(t, out, "› #40 add-test", "the newest first")
	assert.Regexp(t, `1/40 · ↓ \d+ more`, out)
	l.PressAsync("pgdown")
	assert.Greater(t, l.m.sel(paneRuns), 1, "pgdn moved the cursor")
	l.PressAsync("G")
	assert.Equal(t, 39, l.m.sel(paneRuns))
	out = l.Plain()
	assert.Contains(t, out, "› #1 add-test")
	assert.Contains(t, out, "40/40 · ↑")
	var descs []string
	for _, g := range l.m.FullHelp() {
		for _, k := range g {
			descs = append(descs, k.Help().Key+" "+k.Help().Desc)
		}
	}
	all := strings.Join(descs, ", ")
	for _, want := range []string{"r run skill", "r run workflow", "/ find workflow by request", "R resume a run", "u use blueprint: preview", "G/end bottom"} {
		assert.Contains(t, all, want)
	}
}
