package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/llm/ollamatest"
)

// libraryTaskRE finds a build task's id in its prompt.
var libraryTaskRE = regexp.MustCompile(`PRD task (\S+?): `)

// taskTurn reads a build task's chat: the task id from its first user
// message, and how many tool results came back so far.
func taskTurn(req api.ChatRequest) (id string, tools int) {
	user := ""
	for _, m := range req.Messages {
		if m.Role == "user" && user == "" {
			user = m.Content
		}
		if m.Role == "tool" {
			tools++
		}
	}
	if m := libraryTaskRE.FindStringSubmatch(user); m != nil {
		id = m[1]
	}
	return id, tools
}

// workingHandler plays a model that does the work: every build task writes
// out/<task id>.txt on its first turn (so the verifier has evidence), then
// answers in text. Read-only researcher tasks answer in text at once.
func workingHandler(_ int, req api.ChatRequest) ollamatest.Reply {
	id, tools := taskTurn(req)
	switch {
	case id != "" && tools == 0 && id != "debug":
		return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "out/" + id + ".txt", "content": "work of " + id + "\n"}))
	case id != "":
		return ollamatest.Text("Done: " + id + ". Wrote out/" + id + ".txt.")
	}
	return ollamatest.Text("ok")
}

const buildLog = "# example.com/app\n./config.go:4:9: undefined: parseConfg\n"
const configGo = "package main\n\nfunc load() error {\n\treturn parseConfg()\n}\n"

// `nova skills run debug-root-cause` on a file with an error returns its
// three step results.
func TestSkillsListShowRun(t *testing.T) {
	t.Parallel()
	dir, _, env := agentWorkspace(t)
	writeFile(t, dir, "build.log", buildLog)
	writeFile(t, dir, "config.go", configGo)

	r := runNova(t, dir, env, "skills", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^debug-root-cause\s+1\.0\.0\s+all\s+builtin\s+`, r.stdout)
	assert.Regexp(t, `(?m)^refactor-safely\s+1\.0\.0\s+MARS,EARTH,SATURN\s+`, r.stdout)
	var list struct {
		Skills []struct {
			Name   string   `json:"name"`
			Agents []string `json:"agents"`
		} `json:"skills"`
		Problems []string `json:"problems"`
	}
	novaJSON(t, dir, &list, "skills", "list", "--agent", "VENUS")
	require.Len(t, list.Skills, 1, "only the skill for every agent")
	assert.Equal(t, "debug-root-cause", list.Skills[0].Name)
	assert.Equal(t, []string{}, list.Problems)
	r = runNova(t, dir, env, "skills", "list", "--agent", "NOBODY")
	assert.Equal(t, 2, r.code, "an unknown agent is bad usage")
	assert.Contains(t, r.stderr, "SATURN")

	r = runNova(t, dir, env, "skills", "show", "generate-tests")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "agents:  SATURN")
	assert.Contains(t, r.stdout, "targetFile *")
	assert.Contains(t, r.stdout, "1. read-implementation (readFile)")
	assert.Contains(t, r.stdout, "schema: nova.skill/1", "the YAML")
	r = runNova(t, dir, env, "skills", "show", "debug-root-caus")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "debug-root-cause", "the message lists the skills")

	r = runNova(t, dir, env, "skills", "run", "debug-root-cause", "--input", "errorFile=build.log", "--input", "errorPattern=parseConfg")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "3/3 steps")
	for _, step := range []string{"✓ read-error-context (readFile)", "✓ search-for-source (searchFiles)", "✓ identify-cause (readFile)"} {
		assert.Contains(t, r.stdout, step)
	}
	assert.Contains(t, r.stdout, "│ config.go:4: \treturn parseConfg()")
	assert.Contains(t, r.stdout, "run #1: 3 traces")

	var res struct {
		Success     bool              `json:"success"`
		TotalSteps  int               `json:"totalSteps"`
		StepResults map[string]string `json:"stepResults"`
		RunID       uint64            `json:"runId"`
	}
	novaJSON(t, dir, &res, "skills", "run", "debug-root-cause", "--input", "errorFile=build.log", "--input", "errorPattern=parseConfg")
	assert.True(t, res.Success)
	assert.Equal(t, 3, res.TotalSteps)
	assert.Len(t, res.StepResults, 3)
	assert.Contains(t, res.StepResults["identify-cause"], "func load() error")

	r = runNova(t, dir, env, "skills", "run", "debug-root-cause", "--input", "errorFile=build.log")
	assert.Equal(t, 2, r.code, "a missing input off a terminal")
	assert.Contains(t, r.stderr, "missing required input errorPattern")
	assert.Contains(t, r.stderr, "--input errorPattern=")
	r = runNova(t, dir, env, "skills", "run", "debug-root-cause", "--input", "errorFile")
	assert.Equal(t, 2, r.code, "a malformed pair")
	assert.Contains(t, r.stderr, "--input")

	r = runNova(t, dir, env, "skills", "run", "debug-root-cause", "--input", "errorFile=missing.log", "--input", "errorPattern=x")
	assert.Equal(t, 1, r.code, "a failed step is a failure")
	assert.Contains(t, r.stdout, `✗ Failed at step "read-error-context"`)
}

// On a terminal the missing inputs are asked for, again until they fit.
func TestSkillsRunAsksForMissingInputsOnATerminal(t *testing.T) {
	t.Parallel()
	e, _, so, se := testWorkspace(t, nil)
	writeFile(t, e.Cwd, "build.log", buildLog)
	writeFile(t, e.Cwd, "config.go", configGo)
	terminal(e, "\nbuild.log\nparseConfg\n")
	opts := &skillsRunOptions{Env: e, Name: "debug-root-cause"}
	require.NoError(t, runSkillsRun(t.Context(), opts))
	assert.Contains(t, se.String(), "Which file shows the error? (errorFile): ")
	assert.Contains(t, se.String(), "errorFile is required", "an empty answer is asked again")
	assert.Contains(t, so.String(), "3/3 steps")

	terminal(e, "build.log\n") // the input ends before the second answer
	err := runSkillsRun(t.Context(), &skillsRunOptions{Env: e, Name: "debug-root-cause"})
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err))
	assert.Contains(t, err.Error(), "errorPattern: no answer")
}

func TestWorkflowRunSkipsDebugWhenTheTestsPass(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	srv.SetHandler(workingHandler)
	writeFile(t, dir, "parse.go", "package main\n\nfunc parse(s string) int { return len(s) }\n")

	r := runNova(t, dir, env, "workflow", "list")
	require.Equal(t, 0, r.code, r.stderr)
	for _, id := range []string{"add-feature", "add-test", "fix-bug", "refactor", "review"} {
		assert.Regexp(t, `(?m)^`+id+`\s`, r.stdout)
	}
	r = runNova(t, dir, env, "workflow", "show", "add-test")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "target *  (string)  Which file needs tests?")
	assert.Contains(t, r.stdout, "3. debug  (researcher)  only if test.failed")
	r = runNova(t, dir, env, "workflow", "match", "please add tests for parse.go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "nova workflow run add-test --set target=parse.go")
	var none []any
	novaJSON(t, dir, &none, "workflow", "match", "xyzzy plugh")
	assert.Empty(t, none)
	assert.NotNil(t, none, "an empty array, not null")

	r = runNova(t, dir, env, "workflow", "run", "add-test")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "missing required parameter target: Which file needs tests? — pass --set target=…")
	r = runNova(t, dir, env, "workflow", "run", "add-test", "--set", "target=parse.go", "--set", "nope=1")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `"nope"`)
	r = runNova(t, dir, env, "workflow", "run", "add-tset", "--set", "target=parse.go")
	assert.Equal(t, 1, r.code, "an unknown workflow")
	assert.Contains(t, r.stderr, "add-test")

	r = runNova(t, dir, env, "workflow", "run", "add-test", "--set", "target=parse.go")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	assert.Contains(t, r.stdout, "● study running (SATURN)")
	assert.Contains(t, r.stdout, "✓ test done")
	assert.Contains(t, r.stdout, `– debug skipped: condition "test.failed" is false`)
	assert.Contains(t, r.stdout, "workflow add-test run 1 done: 4/4 steps finished")
	assert.Contains(t, r.stdout, "changeset 1 waits for your approval")

	r = runNova(t, dir, env, "workflow", "run", "add-test", "--set", "target=parse.go", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var steps []string
	sawBuild := false
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		if ev["topic"] == "workflow" && ev["type"] == "step" {
			steps = append(steps, ev["taskId"].(string)+":"+ev["status"].(string))
			assert.Equal(t, "2", ev["runId"])
		}
		sawBuild = sawBuild || (ev["topic"] == "build" && ev["type"] == "task")
	}
	assert.Equal(t, []string{"study:running", "study:done", "test:running", "test:done", "debug:skipped", "fix:skipped"}, steps)
	assert.True(t, sawBuild, "the step's build events are in the stream")

	var runs []struct {
		ID     uint64 `json:"id"`
		Status string `json:"status"`
	}
	novaJSON(t, dir, &runs, "workflow", "runs")
	require.Len(t, runs, 2)
	assert.Equal(t, uint64(2), runs[0].ID, "newest first")
	r = runNova(t, dir, env, "workflow", "status", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "│ ### read-implementation (readFile)")
	r = runNova(t, dir, env, "workflow", "resume", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "already done")
	r = runNova(t, dir, env, "workflow", "status", "x")
	assert.Equal(t, 2, r.code)
	r = runNova(t, dir, env, "workflow", "status", "99")
	assert.Equal(t, 1, r.code)
}

// A terminal is asked for the missing parameters of a workflow; --headless
// never asks.
func TestWorkflowRunAsksOnATerminal(t *testing.T) {
	t.Parallel()
	e, _, _, se := testWorkspace(t, nil)
	terminal(e, "")
	err := runWorkflowRun(t.Context(), &workflowRunOptions{Env: e, ID: "add-test", Headless: true})
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err))
	assert.Empty(t, se.String(), "--headless asks nothing")

	var asked []string
	e.Ask = func(_ context.Context, q string) (string, error) {
		asked = append(asked, q)
		return "", io.EOF
	}
	err = runWorkflowRun(t.Context(), &workflowRunOptions{Env: e, ID: "add-test"})
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err))
	assert.Equal(t, []string{"Which file needs tests? (target): "}, asked)
}

func TestBlueprintSaveUseRun(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	srv.SetHandler(workingHandler)
	writeFile(t, dir, "orders.json", `{"meta":{"name":"orders service","version":"1"},"tasks":[
 {"id":"api","title":"orders API","description":"Build the API of the orders service","agent":"MARS","status":"pending","dependencies":[],"phase":0,"attempts":0},
 {"id":"name","title":"orders","description":"orders","agent":"VENUS","status":"pending","dependencies":["api"],"phase":1,"attempts":0}]}`)

	r := runNova(t, dir, env, "blueprint", "list")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "no blueprints yet")
	r = runNova(t, dir, env, "build", "run", "orders.json")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)

	r = runNova(t, dir, env, "blueprint", "save", "1", "--param", "service=string:orders")
	assert.Equal(t, 2, r.code, "--name is required")
	r = runNova(t, dir, env, "blueprint", "save", "1", "--name", "orders", "--param", "service=integer:")
	assert.Equal(t, 2, r.code, "a bad declaration")
	r = runNova(t, dir, env, "blueprint", "save", "1", "--name", "orders", "--param", "service=string:orders", "--param", "owner=string")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "saved orders (version 1) from build 1: owner replaced 0 values, service replaced 2 values")
	r = runNova(t, dir, env, "blueprint", "save", "1", "--name", "orders", "--param", "service=string:orders", "--param", "owner=string")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "unchanged: orders (version 1)", "the same spec adds no version")

	// The required parameter is named off a terminal.
	r = runNova(t, dir, env, "blueprint", "use", "orders", "--set", "service=billing")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "missing required parameter owner")
	r = runNova(t, dir, env, "blueprint", "use", "orders", "--set", "service=billing", "--set", "owner=ops")
	require.Equal(t, 0, r.code, r.stderr)
	var rendered struct {
		Tasks []struct {
			Title       string `json:"title"`
			Description string `json:"description"`
		} `json:"tasks"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rendered), r.stdout)
	assert.Equal(t, "billing", rendered.Tasks[1].Title)
	assert.Equal(t, "Build the API of the orders service", rendered.Tasks[0].Description, "never a substring")

	out := filepath.Join(dir, "billing.json")
	require.NoError(t, os.WriteFile(out, []byte("keep me"), 0o644))
	r = runNova(t, dir, env, "blueprint", "use", "orders", "--set", "service=billing", "--set", "owner=ops", "--out", "billing.json")
	assert.Equal(t, 2, r.code, "off a terminal an existing file is refused")
	assert.Contains(t, r.stderr, "pass --yes")
	assert.Equal(t, "keep me", readFile(t, dir, "billing.json"))
	r = runNova(t, dir, env, "blueprint", "use", "orders", "--set", "service=billing", "--set", "owner=ops", "--out", "billing.json", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, readFile(t, dir, "billing.json"), `"title": "billing"`)

	r = runNova(t, dir, env, "blueprint", "use", "orders", "--set", "service=billing", "--set", "owner=ops", "--run")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	assert.Contains(t, r.stdout, "build 2 created from orders v1 (2 tasks)")
	assert.Contains(t, r.stdout, "build done: 2/2 tasks done")

	var list []struct {
		Name   string `json:"name"`
		Status struct {
			UsageCount int `json:"usageCount"`
		} `json:"status"`
		Evidence struct {
			SuccessRate *float64 `json:"successRate"`
		} `json:"evidence"`
	}
	novaJSON(t, dir, &list, "blueprint", "list")
	require.Len(t, list, 1)
	assert.Equal(t, 1, list[0].Status.UsageCount)
	require.NotNil(t, list[0].Evidence.SuccessRate)
	assert.InDelta(t, 1.0, *list[0].Evidence.SuccessRate, 1e-9)
	r = runNova(t, dir, env, "blueprint", "show", "orders")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "owner *  (string)")
	assert.Contains(t, r.stdout, "build 2     v1   done")
	assert.Contains(t, r.stdout, `title: "{{ service }}"`)
	assert.Contains(t, r.stdout, "attempts: 0\n", "numbers as in the PRD")
	r = runNova(t, dir, env, "blueprint", "history", "orders")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "saved from build 1 (done)")
	r = runNova(t, dir, env, "blueprint", "use", "nope")
	assert.Equal(t, 1, r.code)
	r = runNova(t, dir, env, "blueprint", "use", "orders", "--version", "7", "--set", "owner=x")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no version 7")
}

// --out over an existing file asks on a terminal; no keeps the file.
func TestBlueprintUseOutAsksOnATerminal(t *testing.T) {
	t.Parallel()
	e, _, so, se := testWorkspace(t, nil)
	writeFile(t, e.Cwd, "bp.yaml", "name: ping\ndescription: a ping endpoint\nparameters:\n  - {name: route, type: string, default: /ping}\n"+
		"prd:\n  meta: {name: ping}\n  tasks:\n    - {id: t1, title: \"add {{ route }}\", description: \"serve {{ route }}\", agent: MARS}\n")
	require.NoError(t, runBlueprintAdd(t.Context(), &blueprintAddOptions{Env: e, File: "bp.yaml"}))
	assert.Contains(t, so.String(), "added ping (version 1)")
	writeFile(t, e.Cwd, "out.json", "keep me")
	opts := &blueprintUseOptions{Env: e, Name: "ping", Out: "out.json", Sets: []string{"route=/health"}}

	terminal(e, "n\n")
	err := runBlueprintUse(t.Context(), opts)
	require.Error(t, err)
	assert.Equal(t, 1, exitCode(err))
	assert.Contains(t, se.String(), "Overwrite it with the rendered PRD? [y/N]")
	assert.Equal(t, "keep me", readFile(t, e.Cwd, "out.json"))

	terminal(e, "y\n")
	require.NoError(t, runBlueprintUse(t.Context(), opts))
	assert.Contains(t, readFile(t, e.Cwd, "out.json"), `"title": "add /health"`)
}

func TestLibraryFlagsParseIntoOptions(t *testing.T) {
	t.Parallel()
	e, _, _ := newTestEnv(t, t.TempDir(), nil, "")
	var got *workflowRunOptions
	cmd := newWorkflowRunCmd(e, func(_ context.Context, o *workflowRunOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"add-test", "--set", "target=a.go", "--set", "focus=errors", "--autonomy", "3", "--headless"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, []string{"target=a.go", "focus=errors"}, got.Sets)
	require.NotNil(t, got.Autonomy)
	assert.Equal(t, 3, *got.Autonomy)
	assert.True(t, got.Headless)

	cmd = newWorkflowRunCmd(e, func(context.Context, *workflowRunOptions) error { return nil })
	cmd.SetArgs([]string{"add-test", "--autonomy", "9"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err))

	var use *blueprintUseOptions
	cmd = newBlueprintUseCmd(e, func(_ context.Context, o *blueprintUseOptions) error { use = o; return nil })
	cmd.SetArgs([]string{"orders", "--set", "service=billing", "--out", "x.json", "--run", "--yes", "--version", "2"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, "orders", use.Name)
	assert.Equal(t, "x.json", use.Out)
	assert.True(t, use.Run)
	assert.True(t, use.Yes)
	assert.Equal(t, 2, use.Version)
}

// fixBugHandler plays the shipped fix-bug workflow: the researcher reads
// and answers (naming the file the fix belongs in), the implementer and
// SATURN write.
func fixBugHandler(_ int, req api.ChatRequest) ollamatest.Reply {
	id, tools := taskTurn(req)
	switch {
	case id == "investigate" && tools == 0:
		return ollamatest.ToolCalls(ollamatest.Call("readFile", map[string]any{"path": "config.go"}))
	case id == "investigate":
		return ollamatest.Text("The fault is in config.go line 4: load calls parseConfg, which does not exist. " +
			"It should be changed to call parseConfig.")
	case id == "fix" && tools == 0:
		return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "config.go",
			"content": strings.Replace(configGo, "parseConfg", "parseConfig", 1) + "\nfunc parseConfig() error { return nil }\n"}))
	case id == "regression_test" && tools == 0:
		return ollamatest.ToolCalls(ollamatest.Call("writeFile", map[string]any{"path": "config_test.go",
			"content": "package main\n\nimport \"testing\"\n\nfunc TestLoad(t *testing.T) {\n\tif err := load(); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n"}))
	}
	return ollamatest.Text("Done: " + id + ".")
}

// The investigate step of the shipped fix-bug workflow only reads: its
// answer is judged as an answer (the researcher cannot change files), not
// held against it for staging no change, so the workflow goes on to fix.
func TestWorkflowRunFixBugReadOnlyFirstStep(t *testing.T) {
	t.Parallel()
	dir, srv, env := agentWorkspace(t)
	srv.SetHandler(fixBugHandler)
	writeFile(t, dir, "config.go", configGo)
	r := runNova(t, dir, env, "workflow", "run", "fix-bug", "--set", "bug=undefined: parseConfg", "--set", "where=config.go")
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	assert.Contains(t, r.stdout, "✓ investigate done")
	assert.Contains(t, r.stdout, "✓ fix done")
	assert.NotContains(t, r.stdout, "inconclusive")

	r = runNova(t, dir, env, "build", "show", "1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "a read-only step's answer (its agent cannot change files): checked by the output gate")
}
