package workflow

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nova "github.com/nova-dev/nova"
	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/skills"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

// realEnv validates against the shipped roster, the built-in skills and
// the real tool registry.
func realEnv(t *testing.T) Env {
	t.Helper()
	roster, errs := agents.LoadFS(nova.Defaults, ".nova/agents")
	require.Empty(t, errs)
	reg := tools.Core()
	sk := skills.NewRegistry()
	for _, s := range skills.Builtins() {
		sk.Register(s, skills.SourceBuiltin)
	}
	require.NoError(t, reg.Register(skills.Tool(skills.ToolDeps{Skills: func() *skills.Registry { return sk }, Tools: func() *tools.Registry { return reg }})))
	return Env{
		KnownAgent: roster.Has,
		AgentTools: func(id string) []string {
			s, err := roster.Get(id)
			if err != nil {
				return nil
			}
			return s.Tools
		},
		Skill:  sk.Get,
		Permit: reg.Permit,
	}
}

func defaultsFS(t *testing.T) fs.FS {
	t.Helper()
	sub, err := fs.Sub(nova.Defaults, ".nova/workflows")
	require.NoError(t, err)
	return sub
}

func TestShippedWorkflowsAreValid(t *testing.T) {
	t.Parallel()
	lib, errs := Load(defaultsFS(t), filepath.Join(t.TempDir(), "none"), realEnv(t))
	require.Empty(t, errs)
	assert.Equal(t, []string{"add-feature", "add-test", "fix-bug", "refactor", "review"}, lib.IDs())
	for _, w := range lib.List() {
		assert.Equal(t, SourceBuiltin, w.Source)
		assert.NotEmpty(t, w.Triggers, w.ID)
		assert.NotEmpty(t, w.Description, w.ID)
	}
	at, _ := lib.Get("add-test")
	assert.Equal(t, "test.failed", at.Steps[2].Condition)
	assert.Equal(t, "generate-tests", at.Steps[0].Skill)
}

const base = `schema: nova.workflow/1
id: demo
name: Demo
params:
  - {name: target, required: true}
steps:
`

func TestValidateReportsBadFiles(t *testing.T) {
	t.Parallel()
	env := realEnv(t)
	for name, tc := range map[string]struct{ steps, want string }{
		"unknown agent":  {"  - {id: a, agent: NOBODY, task: x}\n", `x.yaml:7: steps[0].agent: unknown agent "NOBODY"`},
		"unknown skill":  {"  - {id: a, agent: MARS, skill: nope}\n", `steps[0].skill: unknown skill "nope"`},
		"skill for":      {"  - {id: a, agent: VENUS, skill: generate-tests, with: {targetFile: x}}\n", "skill generate-tests is for SATURN, not VENUS"},
		"skill input":    {"  - {id: a, agent: SATURN, skill: generate-tests, with: {file: x}}\n", `steps[0].with.file: skill generate-tests has no input "file"`},
		"no task":        {"  - {id: a, agent: MARS}\n", "steps[0].task: a step needs a task"},
		"both":           {"  - {id: a, agent: MARS, task: x, skill: debug-root-cause}\n", "not both"},
		"dash id":        {"  - {id: run-tests, agent: MARS, task: x}\n", `"run-tests" must be letters, digits and underscores`},
		"reserved":       {"  - {id: workflow, agent: MARS, task: x}\n", `"workflow" is reserved`},
		"param clash":    {"  - {id: target, agent: MARS, task: x}\n", "also a parameter"},
		"duplicate":      {"  - {id: a, agent: MARS, task: x}\n  - {id: a, agent: MARS, task: y}\n", `step "a" is defined twice`},
		"unknown ref":    {"  - {id: a, agent: MARS, task: \"{{ reserch.output }}\"}\n", `reads "reserch", which is neither a step nor a parameter`},
		"forward ref":    {"  - {id: a, agent: MARS, task: \"{{ b.output }}\"}\n  - {id: b, agent: MARS, task: x}\n", "reads step b, which runs after it"},
		"self ref":       {"  - {id: a, agent: MARS, task: \"{{ a.output }}\"}\n", "reads its own result"},
		"cycle":          {"  - {id: a, agent: MARS, task: \"{{ b.output }}\"}\n  - {id: b, agent: MARS, task: \"{{ a.output }}\"}\n", "cycle between steps a, b"},
		"bad attr":       {"  - {id: a, agent: MARS, task: x}\n  - {id: b, agent: MARS, task: \"{{ a.outptu }}\"}\n", "a.outptu: a step's result has output, status"},
		"bad template":   {"  - {id: a, agent: MARS, task: \"{% include 'x' %}\"}\n", "steps[0].task: template:"},
		"mixed cond":     {"  - {id: a, agent: MARS, task: x}\n  - {id: b, agent: MARS, task: y, condition: \"{{ a.status }} == 'failed'\"}\n", "steps[1].condition: a condition is one expression"},
		"cond later":     {"  - {id: a, agent: MARS, task: x, condition: b.failed}\n  - {id: b, agent: MARS, task: y}\n", "reads step b, which runs after it"},
		"with on agent":  {"  - {id: a, agent: MARS, task: x, with: {a: 1}}\n", "with gives a skill its inputs"},
		"input on skill": {"  - {id: a, agent: MARS, skill: debug-root-cause, input: {a: x}}\n", "input adds context"},
		"unknown field":  {"  - {id: a, agent: MARS, task: x, when: a.done}\n", `steps[0].when: unknown field "when"`},
	} {
		_, errs := Parse("x.yaml", []byte(base+tc.steps), env)
		require.NotEmpty(t, errs, name)
		assert.ErrorIs(t, errs[0], ErrInvalid, name)
		assert.Contains(t, errors.Join(errs...).Error(), tc.want, name)
	}
}

// A skill step whose tools the agent may not use is refused: researcher
// cannot write, so a skill that writes is not for it.
func TestSkillStepWhoseToolIsDeniedToTheAgent(t *testing.T) {
	t.Parallel()
	env := realEnv(t)
	writer := skills.Skill{Schema: skills.SchemaV1, Name: "stamp", Version: "1.0.0", Description: "d",
		Steps: []skills.Step{{Name: "w", Tool: "writeFile", Args: map[string]any{"path": "x", "content": "y"}}}}
	inner := env.Skill
	env.Skill = func(name string) (skills.Skill, bool) {
		if name == "stamp" {
			return writer, true
		}
		return inner(name)
	}
	_, errs := Parse("x.yaml", []byte(base+"  - {id: a, agent: researcher, skill: stamp}\n"), env)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "x.yaml:7: steps[0].skill: skill stamp uses writeFile, which researcher may not use")
	_, errs = Parse("x.yaml", []byte(base+"  - {id: a, agent: MARS, skill: stamp}\n"), env)
	assert.Empty(t, errs)
}

func TestParseRefusesHostileFiles(t *testing.T) {
	t.Parallel()
	env := realEnv(t)
	for name, tc := range map[string]struct{ src, want string }{
		"bomb":  {"a: &a [x, x, x]\nb: &b [*a, *a, *a]\nsteps: [*b, *b]\n", "anchors and aliases"},
		"huge":  {base + "  - {id: a, agent: MARS, task: '" + strings.Repeat("x", 1<<20) + "'}\n", "larger than"},
		"deep":  {"steps: " + strings.Repeat("[", 500) + "\n", "nesting is deeper"},
		"empty": {"", "file is empty"},
		"two":   {base + "  - {id: a, agent: MARS, task: x}\n---\nid: b\n", "2 YAML documents"},
	} {
		_, errs := Parse("x.yaml", []byte(tc.src), env)
		require.NotEmpty(t, errs, name)
		assert.Contains(t, errors.Join(errs...).Error(), tc.want, name)
	}
}

func TestLoadUserFilesOverrideDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mine := strings.Replace(base, "id: demo", "id: review", 1) + "  - {id: a, agent: MARS, task: \"look at {{ target }}\"}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "review.yaml"), []byte(mine), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.yml"), []byte("id: [\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644))
	lib, errs := Load(defaultsFS(t), dir, realEnv(t))
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "broken.yml")
	w, ok := lib.Get("review")
	require.True(t, ok)
	assert.Equal(t, filepath.Join(dir, "review.yaml"), w.Source)
	assert.Len(t, lib.List(), 5)
}

func TestMatches(t *testing.T) {
	t.Parallel()
	lib, errs := Load(defaultsFS(t), "", realEnv(t))
	require.Empty(t, errs)
	for text, want := range map[string]string{
		"please add tests for internal/parser.go":     "add-test",
		"Fix the bug: login fails on empty passwords": "fix-bug",
		"could you review the code in pkg/auth":       "review",
		"implement feature: dark mode toggle":         "add-feature",
		"refactor config.go to drop globals":          "refactor",
	} {
		ms := Matches(text, lib.List())
		require.NotEmpty(t, ms, text)
		assert.Equal(t, want, ms[0].ID, text)
		assert.GreaterOrEqual(t, ms[0].Score, 1.0, text)
	}
	ms := Matches("please add tests for internal/parser.go", lib.List())
	assert.Equal(t, "add tests", ms[0].Trigger)
	assert.Equal(t, map[string]string{"target": "internal/parser.go"}, ms[0].Params)
	ms = Matches("Fix the bug: login fails on empty passwords", lib.List())
	assert.Equal(t, "login fails on empty passwords", ms[0].Params["bug"])
	assert.Empty(t, Matches("what's the weather like", lib.List()))
	assert.Empty(t, Matches("", lib.List()))
}

// --- running -------------------------------------------------------------------

type fakeExec struct {
	mu     sync.Mutex
	calls  []TaskRequest
	skills []SkillRequest
	// result decides a step's outcome (default: done with "did <step>").
	result func(req TaskRequest) Outcome
	next   uint64
}

func (f *fakeExec) RunTask(ctx context.Context, req TaskRequest) (Outcome, error) {
	f.mu.Lock()
	f.calls = append(f.calls, req)
	id := req.BuildID
	if id == 0 {
		f.next++
		id = f.next
	}
	f.mu.Unlock()
	if req.BuildID == 0 && req.Created != nil {
		if err := req.Created(id); err != nil {
			return Outcome{}, err
		}
	}
	out := Outcome{Status: OutcomeDone, Output: "did " + req.StepID}
	if f.result != nil {
		out = f.result(req)
	}
	out.BuildID = id
	return out, ctx.Err()
}

func (f *fakeExec) RunSkill(_ context.Context, req SkillRequest) (Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.skills = append(f.skills, req)
	return Outcome{Status: OutcomeDone, Output: "skill " + req.Skill + " gathered " + req.Inputs["targetFile"].(string), AgentRunID: 9}, nil
}

func (f *fakeExec) stepIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, c.StepID)
	}
	return out
}

type harness struct {
	eng    *Engine
	exec   *fakeExec
	mu     sync.Mutex
	events []Event
	store  *Store
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	h := &harness{exec: &fakeExec{}, store: NewStore(db)}
	h.eng = New(Deps{Store: h.store, Exec: h.exec, Publish: func(ev Event) {
		// Committed before published.
		r, err := h.store.Get(context.Background(), ev.RunID)
		if err == nil && ev.StepID != "" {
			for _, s := range r.Steps {
				if s.ID == ev.StepID && string(s.Status) != ev.Status {
					panic("event published before its state was committed: " + ev.StepID)
				}
			}
		}
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
	}})
	return h
}

func (h *harness) stepEvents() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, ev := range h.events {
		if ev.Kind == KindStep {
			out = append(out, ev.StepID+":"+ev.Status)
		}
	}
	return out
}

func addTest(t *testing.T) Workflow {
	t.Helper()
	lib, errs := Load(defaultsFS(t), "", realEnv(t))
	require.Empty(t, errs)
	w, ok := lib.Get("add-test")
	require.True(t, ok)
	return w
}

func TestAddTestSkipsDebugWhenTheTestStepPasses(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	r, err := h.eng.Create(ctx, addTest(t), map[string]any{"target": "parse.go"}, CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "the public behaviour, its edge cases and its errors", r.Params["focus"], "defaults apply")
	r, err = h.eng.Run(ctx, r.ID, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, RunDone, r.Status, r.Reason)
	assert.Equal(t, []string{"test"}, h.exec.stepIDs(), "only the agent step ran; the skill ran as a skill")
	require.Len(t, h.exec.skills, 1)
	assert.Equal(t, map[string]any{"targetFile": "parse.go"}, h.exec.skills[0].Inputs)
	assert.Equal(t, StepDone, r.Steps[0].Status)
	assert.Equal(t, uint64(9), r.Steps[0].AgentRunID)
	assert.Equal(t, StepSkipped, r.Steps[2].Status)
	assert.Equal(t, `skipped: condition "test.failed" is false`, r.Steps[2].Reason)
	assert.Equal(t, StepSkipped, r.Steps[3].Status, "fix depends on debug")
	task := h.exec.calls[0].Task
	assert.Contains(t, task, "Write tests for parse.go covering the public behaviour")
	assert.Contains(t, task, "## context\nskill generate-tests gathered parse.go", "an earlier step's output reaches later steps")
	assert.Nil(t, h.exec.calls[0].Checks, "checks default to the agent's ability to write")
	assert.Equal(t, []string{"study:running", "study:done", "test:running", "test:done", "debug:skipped", "fix:skipped"}, h.stepEvents())
	finished, total := r.Counts()
	assert.Equal(t, 4, finished)
	assert.Equal(t, 4, total)
}

func TestFailedTestStepRunsDebugAndFix(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.exec.result = func(req TaskRequest) Outcome {
		if req.StepID == "test" {
			return Outcome{Status: OutcomeFailed, Reason: "check: go test ./... failed: TestParse expected 2", Output: "wrote parse_test.go"}
		}
		return Outcome{Status: OutcomeDone, Output: "did " + req.StepID}
	}
	ctx := context.Background()
	r, err := h.eng.Create(ctx, addTest(t), map[string]any{"target": "parse.go"}, CreateOptions{})
	require.NoError(t, err)
	r, err = h.eng.Run(ctx, r.ID, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, RunDone, r.Status, "the failure was handled by continueOnFailure steps")
	assert.Equal(t, []string{"test", "debug", "fix"}, h.exec.stepIDs())
	assert.Equal(t, StepFailed, r.Steps[1].Status)
	assert.Contains(t, h.exec.calls[1].Task, "## failure\ncheck: go test ./... failed: TestParse expected 2")
	assert.Contains(t, h.exec.calls[2].Task, "## analysis\ndid debug")
}

func TestFailedStepEndsTheRunAndResumeRetriesIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	w := addTest(t)
	w.Steps[1].ContinueOnFailure = false
	fail := true
	h.exec.result = func(req TaskRequest) Outcome {
		if req.StepID == "test" && fail {
			return Outcome{Status: OutcomeFailed, Reason: "blocked: output gate failed"}
		}
		return Outcome{Status: OutcomeDone, Output: "ok"}
	}
	ctx := context.Background()
	r, err := h.eng.Create(ctx, w, map[string]any{"target": "a.go"}, CreateOptions{})
	require.NoError(t, err)
	r, err = h.eng.Run(ctx, r.ID, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, RunFailed, r.Status)
	assert.Equal(t, "step test failed: blocked: output gate failed", r.Reason)
	assert.Equal(t, StepPending, r.Steps[2].Status, "nothing after the failure ran")
	firstBuild := r.Steps[1].BuildID
	require.NotZero(t, firstBuild)

	fail = false
	r, err = h.eng.Run(ctx, r.ID, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, RunDone, r.Status)
	assert.Equal(t, 1, r.Resumes)
	assert.Equal(t, 2, r.Steps[1].Attempts)
	assert.NotEqual(t, firstBuild, r.Steps[1].BuildID, "the retried step gets a fresh build")
	assert.Len(t, h.exec.skills, 1, "the done skill step is not re-run")
	_, err = h.eng.Run(ctx, r.ID, RunOptions{})
	assert.ErrorIs(t, err, ErrFinished)
}

func TestPausedStepIsResumedInItsBuild(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	paused := true
	h.exec.result = func(req TaskRequest) Outcome {
		if req.StepID == "test" && paused {
			return Outcome{Status: OutcomePaused, Reason: "waiting: the model server is unreachable"}
		}
		return Outcome{Status: OutcomeDone, Output: "ok"}
	}
	ctx := context.Background()
	r, err := h.eng.Create(ctx, addTest(t), map[string]any{"target": "a.go"}, CreateOptions{})
	require.NoError(t, err)
	r, err = h.eng.Run(ctx, r.ID, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, RunPaused, r.Status)
	assert.Contains(t, r.Reason, "step test waiting: the model server is unreachable")
	assert.Contains(t, r.Reason, "nova workflow resume 1")
	assert.Equal(t, StepRunning, r.Steps[1].Status)
	build := r.Steps[1].BuildID
	require.NotZero(t, build)

	paused = false
	r, err = h.eng.Run(ctx, r.ID, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, RunDone, r.Status)
	calls := h.exec.calls
	require.Len(t, calls, 2)
	assert.Equal(t, build, calls[1].BuildID, "the resumed step continues its build")
}

func TestCancelPausesTheRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	started := make(chan struct{})
	h.exec.result = func(req TaskRequest) Outcome {
		close(started)
		time.Sleep(50 * time.Millisecond)
		return Outcome{Status: OutcomeDone}
	}
	// The fake executor returns ctx.Err() after its result: a cancel
	// arriving while the step runs interrupts it.
	ctx := context.Background()
	r, err := h.eng.Create(ctx, addTest(t), map[string]any{"target": "a.go"}, CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, h.eng.Go(r.ID, RunOptions{}))
	<-started
	require.NoError(t, h.eng.Cancel(r.ID))
	require.NoError(t, h.eng.Wait(ctx, r.ID))
	r, err = h.eng.Get(ctx, r.ID)
	require.NoError(t, err)
	assert.Equal(t, RunPaused, r.Status)
	assert.Contains(t, r.Reason, "canceled by the user")
	assert.ErrorIs(t, h.eng.Cancel(r.ID), ErrNotActive)
}

func TestCreateValidatesParameters(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	_, err := h.eng.Create(ctx, addTest(t), nil, CreateOptions{})
	require.ErrorIs(t, err, params.ErrUsage)
	var pe *params.Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "target", pe.Param)
	assert.Contains(t, err.Error(), "Which file needs tests?")
	_, err = h.eng.Create(ctx, addTest(t), map[string]any{"target": "x", "tagret": "y"}, CreateOptions{})
	assert.ErrorIs(t, err, params.ErrUsage)
	runs, err := h.eng.List(ctx, 0)
	require.NoError(t, err)
	assert.Empty(t, runs, "nothing is stored for bad parameters")
}

// Parameter values are data in workflow templates too.
func TestParameterValuesAreNotTemplates(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	r, err := h.eng.Create(ctx, addTest(t), map[string]any{"target": "{{ focus }}{% if true %}!{% endif %}"}, CreateOptions{})
	require.NoError(t, err)
	_, err = h.eng.Run(ctx, r.ID, RunOptions{})
	require.NoError(t, err)
	assert.Contains(t, h.exec.calls[0].Task, "Write tests for {{ focus }}{% if true %}!{% endif %} covering")
}

func TestRunsHaveTheirOwnIDsAndList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	for range 3 {
		_, err := h.eng.Create(ctx, addTest(t), map[string]any{"target": "x"}, CreateOptions{Request: "add tests for x"})
		require.NoError(t, err)
	}
	runs, err := h.eng.List(ctx, 2)
	require.NoError(t, err)
	require.Len(t, runs, 2)
	assert.Equal(t, uint64(3), runs[0].ID, "newest first")
	assert.Equal(t, "add tests for x", runs[0].Request)
	_, err = h.eng.Get(ctx, 42)
	assert.ErrorIs(t, err, ErrRunNotFound)
}

// Issue 32: a workflow file written without `schema:` is of the one schema
// there is, not refused; a wrong schema still is.
func TestWorkflowSchemaDefaults(t *testing.T) {
	t.Parallel()
	env := realEnv(t)
	body := strings.TrimPrefix(base, "schema: nova.workflow/1\n") + "  - {id: a, agent: MARS, task: x}\n"
	w, errs := Parse("x.yaml", []byte(body), env)
	require.Empty(t, errs)
	assert.Equal(t, SchemaV1, w.Schema)
	_, errs = Parse("x.yaml", []byte("schema: nova.workflow/9\n"+body), env)
	require.NotEmpty(t, errs)
	assert.Contains(t, errors.Join(errs...).Error(), `unsupported schema "nova.workflow/9"`)
}
