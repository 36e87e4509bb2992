package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/library/blueprint"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/skills"
	"github.com/nova-dev/nova/engine/library/workflow"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/prd"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
}

var buggy = map[string]string{
	"build.log": "# example.com/app\n./config.go:4:9: undefined: parseConfg\n",
	"config.go": "package main\n\nfunc load() error {\n\treturn parseConfg()\n}\n",
}

// `nova skills run debug-root-cause` on a file with an error returns its
// three step results, recorded as an agent run with one trace per step.
func TestRunSkillDebugRootCause(t *testing.T) {
	t.Parallel()
	ws, _, root := openWithFake(t, "")
	writeFiles(t, root, buggy)
	ctx := context.Background()
	ch := ws.Subscribe(ctx)
	res, err := ws.RunSkill(ctx, "debug-root-cause", engine.SkillRunOptions{Inputs: map[string]string{"errorFile": "build.log", "errorPattern": "parseConfg"}})
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, 3, res.StepsCompleted)
	assert.Equal(t, "researcher", res.Agent, "a skill for every agent runs as the read-only researcher by default")
	assert.Contains(t, res.StepResults["identify-cause"], "return parseConfg()")
	assert.Contains(t, res.Prompt, "Skill: debug-root-cause (3/3 steps)")

	run, err := ws.Runs().Get(ctx, res.RunID)
	require.NoError(t, err)
	assert.Equal(t, "researcher", run.Agent)
	assert.True(t, run.Outcome.OK)
	traces, err := ws.Runs().Traces(ctx, res.RunID)
	require.NoError(t, err)
	require.Len(t, traces, 3)
	assert.Equal(t, []string{"readFile", "searchFiles", "readFile"}, []string{traces[0].Tool, traces[1].Tool, traces[2].Tool})
	assert.JSONEq(t, `{"path":"config.go"}`, string(traces[2].Args))

	evs := collect(t, ch, func(ev engine.Event) bool { return ev.Topic == engine.TopicSkill && ev.Type == engine.EventDone })
	steps := 0
	for _, ev := range evs {
		if ev.Topic == engine.TopicSkill && ev.Type == engine.EventLog {
			steps++
		}
	}
	assert.Equal(t, 3, steps)

	_, err = ws.RunSkill(ctx, "debug-root-cause", engine.SkillRunOptions{Inputs: map[string]string{"errorFile": "build.log"}})
	require.ErrorIs(t, err, params.ErrUsage, "a missing input is bad usage, before anything runs")
	assert.Contains(t, err.Error(), `"errorPattern"`)
	_, err = ws.RunSkill(ctx, "nope", engine.SkillRunOptions{})
	assert.ErrorIs(t, err, skills.ErrNotFound)
	_, err = ws.RunSkill(ctx, "generate-tests", engine.SkillRunOptions{Agent: "MARS", Inputs: map[string]string{"targetFile": "config.go"}})
	assert.ErrorIs(t, err, params.ErrUsage, "a skill for SATURN only")

	res, err = ws.RunSkill(ctx, "debug-root-cause", engine.SkillRunOptions{Agent: "MARS", Inputs: map[string]string{"errorFile": "build.log", "errorPattern": "not there"}})
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Equal(t, "search-for-source", res.FailedStep)
	run, err = ws.Runs().Get(ctx, res.RunID)
	require.NoError(t, err)
	assert.False(t, run.Outcome.OK)
	require.NotNil(t, run.Outcome.Failure)
	assert.Contains(t, run.Outcome.Failure.Message, "search-for-source")
}

// Bad user skill files are reported with file:line: field, beside the
// skills that loaded.
func TestSkillsReportBadFiles(t *testing.T) {
	t.Parallel()
	ws, _, root := openWithFake(t, "")
	writeFiles(t, root, map[string]string{
		".nova/skills/bad.yaml":  "schema: nova.skill/1\nname: bad\nversion: 1.0.0\ndescription: d\nsteps:\n  - name: a\n    tool: teleport\n",
		".nova/skills/todo.yaml": "schema: nova.skill/1\nname: todo\nversion: 1.0.0\ndescription: d\nagents: [MARS]\nsteps:\n  - name: a\n    tool: searchFiles\n    args: {pattern: TODO}\n",
	})
	list, err := ws.ListSkills(context.Background(), "")
	require.NoError(t, err)
	require.Len(t, list.Problems, 1)
	assert.Contains(t, list.Problems[0], filepath.Join(root, ".nova", "skills", "bad.yaml")+`:7: steps[0].tool: unknown tool "teleport"`)
	assert.Len(t, list.Skills, 4)
	mars, err := ws.ListSkills(context.Background(), "mars")
	require.NoError(t, err)
	assert.Len(t, mars.Skills, 3, "debug-root-cause, refactor-safely, todo")
	_, err = ws.ListSkills(context.Background(), "NOBODY")
	assert.ErrorIs(t, err, agents.ErrUnknownAgent)
	d, err := ws.GetSkill(context.Background(), "debug-root-cause")
	require.NoError(t, err)
	assert.True(t, d.Builtin)
	assert.Contains(t, d.YAML, "name: debug-root-cause")
	d, err = ws.GetSkill(context.Background(), "todo")
	require.NoError(t, err)
	assert.False(t, d.Builtin)
	assert.Contains(t, d.YAML, "name: todo")
	_, err = ws.GetSkill(context.Background(), "bad")
	assert.ErrorContains(t, err, "skill bad cannot run")
}

// lastToolMessage returns the content of the last tool message of the
// last chat request.
func lastToolMessage(srv *ollamatest.Server) string {
	reqs := srv.ChatRequests()
	if len(reqs) == 0 {
		return ""
	}
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	return ""
}

// Agents run skills through the loop with runSkill (offered to every agent
// without editing its file); the result is shown whole up to the tool's own
// 1,000-character cap even when budgets.toolOutput is smaller.
func TestAgentRunsASkillThroughTheLoop(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "budgets:\n  toolOutput: 200\n")
	big := map[string]string{"build.log": strings.Repeat("noise line\n", 30) + "undefined: parseConfg\n", "config.go": buggy["config.go"]}
	writeFiles(t, root, big)
	srv.Enqueue(
		ollamatest.ToolCalls(ollamatest.Call("runSkill", map[string]any{"skillName": "debug-root-cause",
			"inputs": map[string]any{"errorFile": "build.log", "errorPattern": "parseConfg"}})),
		ollamatest.Text("The cause is a typo in config.go."),
	)
	res, err := ws.RunAgent(context.Background(), "MARS", "why does the build fail?", engine.RunOptions{})
	require.NoError(t, err)
	require.True(t, res.Outcome.OK, "%+v", res.Outcome.Failure)
	obs := lastToolMessage(srv)
	assert.Contains(t, obs, "Skill: debug-root-cause (3/3 steps)")
	assert.Contains(t, obs, "identify-cause: package main")
	assert.Greater(t, len(obs), 200, "runSkill's own cap applies")
	assert.NotContains(t, obs, "[truncated: showing")
	traces, err := ws.Runs().Traces(context.Background(), res.ID)
	require.NoError(t, err)
	var toolsSeen []string
	for _, tr := range traces {
		toolsSeen = append(toolsSeen, tr.Tool)
	}
	assert.Equal(t, []string{"readFile", "searchFiles", "readFile", "runSkill"}, toolsSeen, "each step is a trace of the agent's run")
}

func TestGenerateUIComponentIsForVenusOnly(t *testing.T) {
	t.Parallel()
	ws, srv, _ := openWithFake(t, "")
	call := ollamatest.ToolCalls(ollamatest.Call("generateUIComponent", map[string]any{"componentName": "UserCard",
		"purpose": "Shows a user", "hasInteractivity": true, "shadcnComponents": []any{"Card", "Button"}}))
	srv.Enqueue(call, ollamatest.Text("Spec read."))
	res, err := ws.RunAgent(context.Background(), "VENUS", "build a user card", engine.RunOptions{})
	require.NoError(t, err)
	require.True(t, res.Outcome.OK)
	obs := lastToolMessage(srv)
	assert.Contains(t, obs, "Component spec: UserCard")
	assert.Contains(t, obs, "at most 200 lines", "the whole spec, past budgets.toolOutput")
	req := srv.ChatRequests()[0]
	var offered []string
	for _, tl := range req.Tools {
		offered = append(offered, tl.Function.Name)
	}
	assert.Contains(t, offered, "generateUIComponent")
	assert.Contains(t, offered, "runSkill")

	srv.Enqueue(call, ollamatest.Text("ok"))
	_, err = ws.RunAgent(context.Background(), "MARS", "build a user card", engine.RunOptions{})
	require.NoError(t, err)
	assert.Contains(t, lastToolMessage(srv), "generateUIComponent is reserved for VENUS")
	for _, tl := range srv.ChatRequests()[2].Tools {
		assert.NotEqual(t, "generateUIComponent", tl.Function.Name, "MARS is not offered the tool")
	}
}

// stepReplies answers the fake Ollama per build task id ("PRD task <id>:").
// The "test" step does real work first (it stages parse_test.go), so the
// verifier has evidence for its claim; other steps answer in text.
type stepReplies struct {
	mu   sync.Mutex
	seen []string
	text func(id string) string
}

var taskIDRE = regexp.MustCompile(`PRD task (\S+?): `)

// stagesTestFile is the reply of the "test" step's first turn.
func stagesTestFile(req api.ChatRequest, id string) (ollamatest.Reply, bool) {
	if id != "test" {
		return ollamatest.Reply{}, false
	}
	for _, m := range req.Messages {
		if m.Role == "tool" {
			return ollamatest.Reply{}, false
		}
	}
	return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "parse_test.go",
		"content": "package main\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n\tif parse(\"ab\") != 2 {\n\t\tt.Fatal(\"len\")\n\t}\n}\n"})), true
}

func (s *stepReplies) handle(_ int, req api.ChatRequest) ollamatest.Reply {
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		if id := taskIDRE.FindStringSubmatch(m.Content); id != nil {
			if r, ok := stagesTestFile(req, id[1]); ok {
				s.mu.Lock()
				s.seen = append(s.seen, id[1])
				s.mu.Unlock()
				return r
			}
			txt := "Done: " + id[1] + "."
			if s.text != nil {
				txt = s.text(id[1])
			}
			return ollamatest.Text(txt)
		}
		break
	}
	return ollamatest.Text("ok")
}

// `nova workflow run add-test --set target=…` runs its steps and skips the
// debug step when the test step passes.
func TestWorkflowAddTestSkipsDebugWhenTestsPass(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "")
	writeFiles(t, root, map[string]string{"parse.go": "package main\n\nfunc parse(s string) int { return len(s) }\n"})
	replies := &stepReplies{}
	srv.SetHandler(replies.handle)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := ws.Subscribe(ctx)

	_, err := ws.CreateWorkflowRun(ctx, "add-test", engine.WorkflowOptions{})
	require.ErrorIs(t, err, params.ErrUsage, "a missing required param")
	assert.Contains(t, err.Error(), `"target"`)
	_, err = ws.CreateWorkflowRun(ctx, "add-tset", engine.WorkflowOptions{})
	require.ErrorIs(t, err, workflow.ErrNotFound)
	assert.Contains(t, err.Error(), "add-test")

	r, err := ws.CreateWorkflowRun(ctx, "add-test", engine.WorkflowOptions{Params: map[string]string{"target": "parse.go"}})
	require.NoError(t, err)
	r, err = ws.RunWorkflow(ctx, r.ID, engine.RunWorkflowOptions{Op: "op-7"})
	require.NoError(t, err)
	require.Equal(t, workflow.RunDone, r.Status, r.Reason)
	assert.Equal(t, []string{"test"}, replies.seen, "one agent step ran; the skill step needs no model")
	assert.Equal(t, workflow.StepDone, r.Steps[0].Status)
	assert.NotZero(t, r.Steps[0].AgentRunID)
	assert.Contains(t, r.Steps[0].Output, "### read-implementation (readFile)\npackage main")
	assert.Equal(t, workflow.StepDone, r.Steps[1].Status, r.Steps[1].Reason)
	assert.Equal(t, "Done: test.", r.Steps[1].Output)
	assert.Equal(t, workflow.StepSkipped, r.Steps[2].Status)
	assert.Contains(t, r.Steps[2].Reason, `condition "test.failed" is false`)
	assert.Equal(t, workflow.StepSkipped, r.Steps[3].Status)

	b, err := ws.GetBuild(ctx, r.Steps[1].BuildID)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, b.Status)
	assert.Equal(t, "workflow add-test #1 · test", b.Name)
	ts, err := ws.BuildTasks(ctx, b.ID)
	require.NoError(t, err)
	assert.Contains(t, ts[0].Description, "## context\n### read-implementation", "the skill step's output reaches the test step")

	evs := collect(t, ch, func(ev engine.Event) bool { return ev.Topic == engine.TopicWorkflow && ev.Type == engine.EventDone })
	var seq []string
	announced := -1
	for i, ev := range evs {
		if ev.Topic == engine.TopicWorkflow && ev.Type == engine.EventStep {
			seq = append(seq, ev.TaskID+":"+ev.Status)
			assert.Equal(t, "1", ev.RunID)
		}
		if ev.Topic == engine.TopicWorkflow && ev.Type == engine.EventChanged && ev.TaskID == "test" && announced < 0 {
			assert.Equal(t, strconv.FormatUint(b.ID, 10), ev.BuildID, "the step's build is announced")
			announced = i
		}
	}
	require.GreaterOrEqual(t, announced, 0, "the test step's build was announced")
	for _, ev := range evs[:announced] {
		assert.False(t, ev.Topic == engine.TopicBuild && ev.Type == engine.EventTask && ev.BuildID == strconv.FormatUint(b.ID, 10),
			"the build is announced before its tasks run")
	}
	assert.Equal(t, []string{"study:running", "study:done", "test:running", "test:done", "debug:skipped", "fix:skipped"}, seq)

	ms, err := ws.MatchWorkflows(ctx, "add tests for parse.go")
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	assert.Equal(t, "add-test", ms[0].ID)
	assert.Equal(t, "parse.go", ms[0].Params["target"])
}

// A failing test step (its check gate fails) runs debug and fix.
func TestWorkflowFailedTestRunsDebugAndFix(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	ws, srv, root := openWithFake(t, "checks:\n  - sh -c \"! test -f broken\"\n")
	writeFiles(t, root, map[string]string{"parse.go": "package main\n"})
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		var user string
		tool := false
		for _, m := range req.Messages {
			if m.Role == "user" && user == "" {
				user = m.Content
			}
			tool = tool || m.Role == "tool"
		}
		id := taskIDRE.FindStringSubmatch(user)
		if id != nil && id[1] == "test" && !tool {
			return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "broken", "content": "x\n"}))
		}
		if id != nil {
			return ollamatest.Text("Done: " + id[1] + ".")
		}
		return ollamatest.Text("ok")
	})
	ctx := context.Background()
	r, err := ws.CreateWorkflowRun(ctx, "add-test", engine.WorkflowOptions{Params: map[string]string{"target": "parse.go"}})
	require.NoError(t, err)
	r, err = ws.RunWorkflow(ctx, r.ID, engine.RunWorkflowOptions{Op: "op-7"})
	require.NoError(t, err)
	assert.Equal(t, workflow.RunDone, r.Status, r.Reason)
	assert.Equal(t, workflow.StepFailed, r.Steps[1].Status)
	assert.Contains(t, r.Steps[1].Reason, "check")
	assert.Equal(t, workflow.StepDone, r.Steps[2].Status, "debug ran because the test step failed")
	assert.Equal(t, workflow.StepDone, r.Steps[3].Status)
	debug, err := ws.GetBuild(ctx, r.Steps[2].BuildID)
	require.NoError(t, err)
	assert.True(t, debug.SkipChecks, "researcher cannot write: its step skips the checks")
}

const savedPRD = `{"meta":{"name":"orders service","version":"1"},"tasks":[
 {"id":"api","title":"orders API","description":"Build the API of the orders service","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0},
 {"id":"name","title":"orders","description":"orders","agent":"VENUS","status":"pending","dependencies":["api"],"phase":1,"attempts":0}]}`

// A build saved as a blueprint renders back to a PRD with --set values
// applied, runs, and counts toward the blueprint's usage and evidence.
func TestBlueprintSaveUseRunAndEvidence(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "")
	srv.SetHandler((&stepReplies{}).handle)
	ctx := context.Background()
	path := filepath.Join(root, "orders.json")
	require.NoError(t, os.WriteFile(path, []byte(savedPRD), 0o644))
	b, err := ws.CreateBuild(ctx, path, engine.BuildOptions{})
	require.NoError(t, err)
	b, err = ws.RunBuild(ctx, b.ID, engine.RunBuildOptions{})
	require.NoError(t, err)
	require.Equal(t, build.StatusDone, b.Status)

	_, err = ws.SaveBlueprint(ctx, b.ID, engine.SaveBlueprintOptions{Name: "orders", Params: []string{"bad-name=string:x"}})
	require.ErrorIs(t, err, params.ErrUsage)
	saved, err := ws.SaveBlueprint(ctx, b.ID, engine.SaveBlueprintOptions{Name: "orders", Params: []string{"service=string:orders"}})
	require.NoError(t, err)
	assert.True(t, saved.Created)
	assert.Equal(t, 2, saved.Replaced["service"], "the whole values only")
	assert.Equal(t, "saved from build 1 (done)", saved.Blueprint.Versions[0].Changes)
	again, err := ws.SaveBlueprint(ctx, b.ID, engine.SaveBlueprintOptions{Name: "orders", Params: []string{"service=string:orders"}})
	require.NoError(t, err)
	assert.False(t, again.Changed, "the same spec adds no version")

	_, err = ws.UseBlueprint(ctx, "orders", engine.UseOptions{Values: map[string]string{"servce": "billing"}})
	require.ErrorIs(t, err, params.ErrUsage)
	_, err = ws.UseBlueprint(ctx, "orders", engine.UseOptions{Out: "relative.json"})
	require.ErrorIs(t, err, engine.ErrRelativePath)
	out := filepath.Join(root, "billing.json")
	used, err := ws.UseBlueprint(ctx, "orders", engine.UseOptions{Values: map[string]string{"service": "billing"}, Out: out, Build: true})
	require.NoError(t, err)
	p, err := prd.Load(out)
	require.NoError(t, err)
	assert.Equal(t, "billing", p.Tasks[1].Title)
	assert.Equal(t, "Build the API of the orders service", p.Tasks[0].Description, "substrings stay")
	require.NotNil(t, used.Build)
	d, err := ws.ShowBlueprint(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, 1, d.Status.UsageCount, "the use is recorded when the build is created")
	assert.Equal(t, 0, d.Evidence.Finished)
	_, err = ws.RunBuild(ctx, used.Build.ID, engine.RunBuildOptions{})
	require.NoError(t, err)
	_, err = ws.UseBlueprint(ctx, "orders", engine.UseOptions{Out: out})
	assert.ErrorIs(t, err, engine.ErrExists, "never overwrites without confirmation")

	d = waitEvidence(t, ws, "orders", 1)
	assert.Equal(t, 1, d.Status.UsageCount)
	require.NotNil(t, d.Evidence.SuccessRate)
	assert.InDelta(t, 1.0, *d.Evidence.SuccessRate, 1e-9)
	assert.Equal(t, "billing", d.Uses[0].Parameters["service"])

	// A build of the rendered file started any other way counts too.
	b2, err := ws.CreateBuild(ctx, out, engine.BuildOptions{})
	require.NoError(t, err)
	_, err = ws.RunBuild(ctx, b2.ID, engine.RunBuildOptions{})
	require.NoError(t, err)
	d = waitEvidence(t, ws, "orders", 2)
	assert.Equal(t, 2, d.Status.UsageCount)
	list, err := ws.ListBlueprints(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, 2, list[0].Evidence.Succeeded)
	hist, err := ws.BlueprintHistory(ctx, "orders")
	require.NoError(t, err)
	assert.Len(t, hist, 1)

	_, err = ws.SaveBlueprint(ctx, 99, engine.SaveBlueprintOptions{Name: "x"})
	assert.ErrorIs(t, err, build.ErrNotFound)
}

func waitEvidence(t *testing.T, ws *engine.Local, name string, finished int) blueprint.Details {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, err := ws.ShowBlueprint(context.Background(), name)
		require.NoError(t, err)
		if d.Evidence.Finished >= finished || time.Now().After(deadline) {
			return d
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAddBlueprintChecksTheFile(t *testing.T) {
	t.Parallel()
	ws, _, root := openWithFake(t, "")
	ctx := context.Background()
	good := "name: ping\nparameters:\n  - {name: route, default: /ping}\nprd:\n  tasks:\n    - {id: a, title: 'serve {{ route }}', description: x, agent: MARS}\n"
	writeFiles(t, root, map[string]string{
		"ping.yaml":    good,
		"nobody.yaml":  strings.Replace(good, "MARS", "NOBODY", 1),
		"typo.yaml":    strings.Replace(good, "{{ route }}", "{{ rotue }}", 1),
		"changed.yaml": strings.Replace(good, "serve", "answer", 1),
	})
	res, err := ws.AddBlueprint(ctx, filepath.Join(root, "ping.yaml"), "")
	require.NoError(t, err)
	assert.Equal(t, 1, res.Blueprint.Version)
	_, err = ws.AddBlueprint(ctx, filepath.Join(root, "nobody.yaml"), "")
	require.ErrorIs(t, err, blueprint.ErrRender)
	assert.Contains(t, err.Error(), "NOBODY")
	_, err = ws.AddBlueprint(ctx, filepath.Join(root, "typo.yaml"), "")
	require.ErrorIs(t, err, blueprint.ErrInvalid)
	assert.Contains(t, err.Error(), `typo.yaml:6: prd.tasks[0].title: reads "rotue"`)
	res, err = ws.AddBlueprint(ctx, filepath.Join(root, "changed.yaml"), "")
	require.NoError(t, err)
	assert.Equal(t, 2, res.Blueprint.Version)
	assert.Equal(t, "PRD template changed", res.Blueprint.Versions[1].Changes)
	_, err = ws.AddBlueprint(ctx, "ping.yaml", "")
	require.ErrorIs(t, err, engine.ErrRelativePath)
	_, err = ws.AddBlueprint(ctx, filepath.Join(root, "missing.yaml"), "")
	assert.Error(t, err)
	var pe *params.Error
	assert.NotErrorAs(t, err, &pe)
}

// An invalid workflow file is reported by name when someone runs it.
func TestWorkflowFileProblemsAreNamed(t *testing.T) {
	t.Parallel()
	ws, _, root := openWithFake(t, "")
	writeFiles(t, root, map[string]string{".nova/workflows/mine.yaml": "schema: nova.workflow/1\nid: mine\nname: Mine\nsteps:\n  - {id: a, agent: NOBODY, task: x}\n"})
	list, err := ws.ListWorkflows(context.Background())
	require.NoError(t, err)
	require.Len(t, list.Problems, 1)
	assert.Contains(t, list.Problems[0], `mine.yaml:5: steps[0].agent: unknown agent "NOBODY"`)
	assert.Len(t, list.Workflows, 5)
	d, err := ws.GetWorkflow(context.Background(), "add-test")
	require.NoError(t, err)
	assert.False(t, d.Builtin, "nova init copied the shipped workflows into the workspace")
	assert.Equal(t, filepath.Join(root, ".nova", "workflows", "add-test.yaml"), d.Workflow.Source)
	assert.Contains(t, d.YAML, "id: add-test")
	assert.Equal(t, "target", d.Workflow.Params[0].Name)
	_, err = ws.CreateWorkflowRun(context.Background(), "mine", engine.WorkflowOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "workflow mine cannot run")
}

// A canceled workflow run pauses; resuming continues the step in its build
// and finishes the run.
func TestWorkflowCancelAndResume(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "")
	writeFiles(t, root, map[string]string{"parse.go": "package main\n"})
	var mu sync.Mutex
	slow := true
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		r := ollamatest.Text("Done.")
		for _, m := range req.Messages {
			if id := taskIDRE.FindStringSubmatch(m.Content); m.Role == "user" && id != nil {
				if w, ok := stagesTestFile(req, id[1]); ok {
					r = w
				}
				break
			}
		}
		if slow {
			r = r.WithLatency(3 * time.Second)
		}
		return r
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := ws.Subscribe(ctx)
	r, err := ws.CreateWorkflowRun(ctx, "add-test", engine.WorkflowOptions{Params: map[string]string{"target": "parse.go"}})
	require.NoError(t, err)
	done := make(chan workflow.Run, 1)
	go func() {
		r, _ := ws.RunWorkflow(ctx, r.ID, engine.RunWorkflowOptions{})
		done <- r
	}()
	collect(t, ch, func(ev engine.Event) bool { // the step's build is running its task
		return ev.Topic == engine.TopicBuild && ev.Type == engine.EventTask && ev.TaskID == "test" && ev.Status == "running"
	})
	require.NoError(t, ws.CancelWorkflowRun(ctx, r.ID))
	r = <-done
	require.Equal(t, workflow.RunPaused, r.Status)
	assert.Contains(t, r.Reason, "canceled by the user")
	stored, err := ws.GetWorkflowRun(ctx, r.ID)
	require.NoError(t, err)
	assert.Equal(t, workflow.RunPaused, stored.Status)
	assert.False(t, stored.Active)
	build1 := r.Steps[1].BuildID
	require.NotZero(t, build1)
	b, err := ws.GetBuild(ctx, build1)
	require.NoError(t, err)
	assert.NotEqual(t, build.StatusDone, b.Status, "the step's build was interrupted, not finished")

	mu.Lock()
	slow = false
	mu.Unlock()
	r, err = ws.RunWorkflow(ctx, r.ID, engine.RunWorkflowOptions{})
	require.NoError(t, err)
	assert.Equal(t, workflow.RunDone, r.Status, r.Reason)
	assert.Equal(t, build1, r.Steps[1].BuildID, "the resumed step continued its build")
	b, err = ws.GetBuild(ctx, build1)
	require.NoError(t, err)
	assert.Equal(t, build.StatusDone, b.Status)
}

// The library's verbs are part of the facade (TestWorkspaceIsServable
// checks their shapes) and its topics are typed topics.
func TestLibraryVerbsAreInTheFacade(t *testing.T) {
	t.Parallel()
	wt := reflect.TypeFor[engine.Workspace]()
	for _, name := range []string{"ListSkills", "GetSkill", "RunSkill", "ListWorkflows", "GetWorkflow", "MatchWorkflows",
		"CreateWorkflowRun", "RunWorkflow", "CancelWorkflowRun", "ListWorkflowRuns", "GetWorkflowRun",
		"AddBlueprint", "SaveBlueprint", "ListBlueprints", "ShowBlueprint", "BlueprintHistory", "UseBlueprint"} {
		_, ok := wt.MethodByName(name)
		assert.True(t, ok, name)
	}
	for _, tp := range engine.LibraryTopics() {
		assert.Contains(t, engine.Topics(), tp)
	}
}

// A step whose task asks the user: unattended (the CLI) the run pauses
// and resumes after the answer; attended (the TUI) the step's build waits
// for the answer and the run goes on by itself.
func TestWorkflowStepThatAsksTheUser(t *testing.T) {
	t.Parallel()
	const answer = "use the Makefile target"
	handler := func(_ int, req api.ChatRequest) ollamatest.Reply {
		for _, m := range req.Messages {
			if m.Role == "user" && strings.Contains(m.Content, answer) {
				return ollamatest.Text("Done, as you said.")
			}
		}
		n := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				n++
			}
		}
		return ollamatest.ToolCalls(ollamatest.Call("runCommand", map[string]any{"command": fmt.Sprintf("rm -rf build%d", n)}))
	}
	const wf = "schema: nova.workflow/1\nid: clean\nname: Clean\nsteps:\n  - {id: clean, agent: MARS, task: remove old build output}\n"
	for _, attended := range []bool{false, true} {
		t.Run(fmt.Sprint("attended=", attended), func(t *testing.T) {
			t.Parallel()
			ws, srv, root := openWithFake(t, "")
			srv.SetHandler(handler)
			writeFiles(t, root, map[string]string{".nova/workflows/clean.yaml": wf})
			ctx := context.Background()
			events := ws.Subscribe(t.Context())
			r, err := ws.CreateWorkflowRun(ctx, "clean", engine.WorkflowOptions{})
			require.NoError(t, err)
			ran := make(chan workflow.Run, 1)
			go func() {
				got, err := ws.RunWorkflow(ctx, r.ID, engine.RunWorkflowOptions{Attended: attended})
				assert.NoError(t, err)
				ran <- got
			}()
			asking := collect(t, events, func(ev engine.Event) bool { return ev.Type == engine.EventTaskAsking })
			ask := asking[len(asking)-1]
			buildID, err := strconv.ParseUint(ask.BuildID, 10, 64)
			require.NoError(t, err)
			if !attended {
				got := <-ran
				require.Equal(t, workflow.RunPaused, got.Status, "nobody can answer: the run pauses")
				assert.Contains(t, got.Reason, "nova build answer")
				_, err := ws.AnswerTask(ctx, buildID, "clean", "Do not delete anything; "+answer+".")
				require.NoError(t, err)
				got, err = ws.RunWorkflow(ctx, r.ID, engine.RunWorkflowOptions{})
				require.NoError(t, err)
				assert.Equal(t, workflow.RunDone, got.Status, got.Reason)
				assert.Equal(t, buildID, got.Steps[0].BuildID, "the same build continued")
				return
			}
			require.Eventually(t, func() bool {
				_, err := ws.AnswerTask(ctx, buildID, "clean", "Do not delete anything; "+answer+".")
				return err == nil
			}, 10*time.Second, 20*time.Millisecond)
			select {
			case got := <-ran:
				assert.Equal(t, workflow.RunDone, got.Status, got.Reason)
			case <-time.After(20 * time.Second):
				t.Fatal("the attended run did not finish after the answer")
			}
		})
	}
}

// The Summary counts workflow runs, those waiting to be resumed, and
// blueprints (Home shows them).
func TestSummaryCountsWorkflowRunsAndBlueprints(t *testing.T) {
	t.Parallel()
	ws, srv, root := openWithFake(t, "")
	ctx := context.Background()
	sum, err := ws.Summary(ctx)
	require.NoError(t, err)
	assert.Zero(t, sum.WorkflowRuns)
	assert.Zero(t, sum.WorkflowRunsWaiting)
	assert.Zero(t, sum.Blueprints)

	writeFiles(t, root, map[string]string{
		"parse.go":  "package main\n\nfunc parse(s string) int { return len(s) }\n",
		"ping.yaml": "name: ping\nparameters:\n  - {name: route, default: /ping}\nprd:\n  tasks:\n    - {id: a, title: 'serve {{ route }}', description: x, agent: MARS}\n",
	})
	_, err = ws.AddBlueprint(ctx, filepath.Join(root, "ping.yaml"), "")
	require.NoError(t, err)
	r, err := ws.CreateWorkflowRun(ctx, "add-test", engine.WorkflowOptions{Params: map[string]string{"target": "parse.go"}})
	require.NoError(t, err)
	sum, err = ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, sum.WorkflowRuns)
	assert.Equal(t, 1, sum.WorkflowRunsWaiting, "created, not started: it waits to be run")
	assert.Equal(t, 1, sum.Blueprints)

	srv.SetHandler((&stepReplies{}).handle)
	r, err = ws.RunWorkflow(ctx, r.ID, engine.RunWorkflowOptions{})
	require.NoError(t, err)
	require.Equal(t, workflow.RunDone, r.Status, r.Reason)
	sum, err = ws.Summary(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, sum.WorkflowRuns)
	assert.Zero(t, sum.WorkflowRunsWaiting, "a finished run waits for nothing")
	assert.Equal(t, 1, sum.Blueprints)
}

// ListAgents names the tools an agent gets without listing them: runSkill
// (and the knowledge tools) for everyone, generateUIComponent for VENUS only.
func TestListAgentsNamesImplicitTools(t *testing.T) {
	t.Parallel()
	ws, _, _ := openWithFake(t, "")
	r, err := ws.ListAgents(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, r.Agents)
	assert.Contains(t, r.ImplicitTools["MARS"], "runSkill")
	assert.NotContains(t, r.ImplicitTools["MARS"], "generateUIComponent", "VENUS's only")
	assert.Contains(t, r.ImplicitTools["VENUS"], "generateUIComponent")
	for _, s := range r.Agents {
		for _, name := range r.ImplicitTools[s.ID] {
			assert.NotContains(t, s.Tools, name, "%s lists %s: not implicit", s.ID, name)
		}
	}
}

// A workflow step's and a skill's own checks replace the workspace's: the
// skill step fails on its skill's check, the agent step on its list (the
// workspace has no checks at all).
func TestWorkflowStepAndSkillChecks(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	ws, srv, root := openWithFake(t, "")
	writeFiles(t, root, map[string]string{
		".nova/skills/mark.yaml": `schema: nova.skill/1
name: mark
version: 1.0.0
description: Write a marker file.
agents: [MARS]
checks: ["test ! -f marked"]
steps:
  - name: write
    tool: writeFile
    args:
      path: marked
      content: "x\n"
`,
		".nova/workflows/checked.yaml": `schema: nova.workflow/1
id: checked
name: Checked steps
steps:
  - id: mark
    agent: MARS
    skill: mark
    continueOnFailure: true
  - id: build
    agent: MARS
    task: Write the broken file.
    checks: ["test ! -f broken && echo clean"]
    continueOnFailure: true
`,
	})
	srv.SetHandler(func(_ int, req api.ChatRequest) ollamatest.Reply {
		var user string
		tool := false
		for _, m := range req.Messages {
			if m.Role == "user" && user == "" {
				user = m.Content
			}
			tool = tool || m.Role == "tool"
		}
		if id := taskIDRE.FindStringSubmatch(user); id != nil {
			if !tool {
				return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "broken", "content": "x\n"}))
			}
			return ollamatest.Text("Wrote broken.")
		}
		return ollamatest.Text("ok")
	})
	ctx := context.Background()
	r, err := ws.CreateWorkflowRun(ctx, "checked", engine.WorkflowOptions{})
	require.NoError(t, err)
	r, err = ws.RunWorkflow(ctx, r.ID, engine.RunWorkflowOptions{Op: "op-9"})
	require.NoError(t, err)
	require.Len(t, r.Steps, 2)
	assert.Equal(t, workflow.StepFailed, r.Steps[0].Status)
	assert.Contains(t, r.Steps[0].Reason, "check: test ! -f marked failed")
	assert.Equal(t, workflow.StepFailed, r.Steps[1].Status)
	assert.Contains(t, r.Steps[1].Reason, "check: test ! -f broken && echo clean")
	b, err := ws.GetBuild(ctx, r.Steps[1].BuildID)
	require.NoError(t, err)
	tasks, err := ws.BuildTasks(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"test ! -f broken && echo clean"}, tasks[0].Checks)
}
