package skills

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/tools"
)

// registry returns the core tools plus runSkill and generateUIComponent,
// with runSkill reading skills from reg.
func registry(t *testing.T, reg *Registry) *tools.Registry {
	t.Helper()
	r := tools.Core()
	require.NoError(t, r.Register(Tool(ToolDeps{Skills: func() *Registry { return reg }, Tools: func() *tools.Registry { return r }})))
	require.NoError(t, r.Register(UITool()))
	return r
}

func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	return root
}

func builtinRegistry() *Registry {
	r := NewRegistry()
	for _, s := range Builtins() {
		r.Register(s, SourceBuiltin)
	}
	return r
}

var errorWorkspace = map[string]string{
	"build.log":         "# example.com/app\n./config.go:7:9: undefined: parseConfg\n",
	"config.go":         "package app\n\nfunc Load() error {\n\treturn parseConfg()\n}\n",
	"parse.go":          "package app\n\nfunc parseConfig() error { return nil }\n",
	"pkg/user.go":       "package pkg\n\ntype User struct{}\n\nfunc NewUser() User { return User{} }\n",
	"pkg/user_test.go":  "package pkg\n\nfunc TestNewUser() { _ = NewUser() }\n",
	"pkg/other.go":      "package pkg\n\nvar u = NewUser()\n",
	"web/Button.tsx":    "export function Button() { return null }\n",
	"web/Button.test.t": "",
}

func TestBuiltinsAreValidAgainstTheRealRegistry(t *testing.T) {
	t.Parallel()
	files := BuiltinFiles()
	require.Len(t, files, 3)
	reg := registry(t, NewRegistry())
	for name, data := range files {
		s, errs := Parse(name, data, reg.Get, nil)
		assert.Empty(t, errs, name)
		assert.Equal(t, strings.TrimSuffix(name, ".yaml"), s.Name)
	}
	r := builtinRegistry()
	for _, name := range []string{"debug-root-cause", "refactor-safely", "generate-tests"} {
		assert.True(t, r.Has(name), name)
	}
	s, _ := r.Get("debug-root-cause")
	assert.Empty(t, s.Agents, "available to every agent")
	s, _ = r.Get("refactor-safely")
	assert.Equal(t, []string{"MARS", "EARTH", "SATURN"}, s.Agents)
	s, _ = r.Get("generate-tests")
	assert.Equal(t, []string{"SATURN"}, s.Agents)
	assert.Equal(t, []string{"readFile", "listFiles", "searchFiles"}, s.Tools())
}

func TestRegistrySemantics(t *testing.T) {
	t.Parallel()
	r := builtinRegistry()
	names := func(ss []Skill) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	assert.Equal(t, []string{"debug-root-cause", "generate-tests", "refactor-safely"}, names(r.ListAll()))
	assert.Equal(t, []string{"debug-root-cause", "refactor-safely"}, names(r.ListForAgent("MARS")))
	assert.Equal(t, []string{"debug-root-cause", "refactor-safely"}, names(r.ListForAgent("mars")), "agent ids are case-insensitive")
	assert.Equal(t, []string{"debug-root-cause", "generate-tests", "refactor-safely"}, names(r.ListForAgent("SATURN")))
	assert.Equal(t, []string{"debug-root-cause"}, names(r.ListForAgent("VENUS")))

	mine := Skill{Name: "debug-root-cause", Version: "2.0.0", Description: "mine"}
	r.Register(mine, SourceUser)
	got, ok := r.Get("debug-root-cause")
	require.True(t, ok)
	assert.Equal(t, "2.0.0", got.Version, "register overwrites")
	reg, _ := r.Lookup("debug-root-cause")
	assert.Equal(t, SourceUser, reg.Source)
	assert.False(t, reg.RegisteredAt.IsZero())
	_, ok = r.Get("nope")
	assert.False(t, ok)
	assert.True(t, r.Unregister("generate-tests"))
	assert.False(t, r.Unregister("generate-tests"))
	assert.False(t, r.Has("generate-tests"))
	r.Clear()
	assert.Empty(t, r.ListAll())
}

func TestDebugRootCauseReturnsItsThreeSteps(t *testing.T) {
	t.Parallel()
	root := workspace(t, errorWorkspace)
	skills := builtinRegistry()
	reg := registry(t, skills)
	var seen []StepResult
	var mu sync.Mutex
	run := &Runner{Skills: skills, Tools: reg, OnStep: func(sr StepResult) { mu.Lock(); seen = append(seen, sr); mu.Unlock() }}
	env := &tools.Env{Root: root, Agent: "MARS", Tools: []string{"readFile", "searchFiles", "runSkill"}}
	res := run.Execute(context.Background(), "debug-root-cause", env, Context{Agent: "MARS",
		Inputs: map[string]any{"errorFile": "build.log", "errorPattern": "parseConfg"}})
	require.True(t, res.Success, "%+v", res)
	assert.Equal(t, 3, res.StepsCompleted)
	assert.Equal(t, 3, res.TotalSteps)
	require.Len(t, res.Steps, 3)
	assert.Contains(t, res.StepResults["read-error-context"], "undefined: parseConfg")
	assert.Contains(t, res.StepResults["search-for-source"], "config.go:4:")
	assert.Contains(t, res.StepResults["identify-cause"], "return parseConfg()", "the first hit that is not the error file itself")
	assert.Positive(t, res.DurationMs)
	assert.Len(t, seen, 3, "every step is reported (traces)")
	assert.JSONEq(t, `{"path":"config.go"}`, seen[2].Args)

	p := FormatForPrompt(res)
	assert.True(t, strings.HasPrefix(p, "Skill: debug-root-cause (3/3 steps)\n"), p)
	assert.Contains(t, p, "identify-cause: package app")
	assert.LessOrEqual(t, len([]rune(p)), MaxPromptChars)
}

func TestRunnerStopsAtTheFirstFailingStepAndNamesIt(t *testing.T) {
	t.Parallel()
	root := workspace(t, errorWorkspace)
	skills := builtinRegistry()
	reg := registry(t, skills)
	run := &Runner{Skills: skills, Tools: reg}
	env := &tools.Env{Root: root, Agent: "MARS"}
	ctx := context.Background()

	res := run.Execute(ctx, "debug-root-cause", env, Context{Inputs: map[string]any{"errorFile": "build.log", "errorPattern": "no such text anywhere"}})
	assert.False(t, res.Success)
	assert.Equal(t, "search-for-source", res.FailedStep)
	assert.Equal(t, 1, res.StepsCompleted)
	assert.Contains(t, res.Error, "appears nowhere in the workspace")
	assert.NotContains(t, res.StepResults, "identify-cause", "later steps do not run")
	p := FormatForPrompt(res)
	assert.Contains(t, p, `Failed at step "search-for-source": the error's text appears nowhere`)
	assert.Contains(t, p, "(1/3 steps)")

	res = run.Execute(ctx, "debug-root-cause", env, Context{Inputs: map[string]any{"errorFile": "missing.log", "errorPattern": "x"}})
	assert.Equal(t, "read-error-context", res.FailedStep)
	assert.Contains(t, res.Error, "file not found")
	assert.Zero(t, res.StepsCompleted)

	res = run.Execute(ctx, "debug-root-cause", env, Context{Inputs: map[string]any{"errorFile": "../outside", "errorPattern": "x"}})
	assert.Equal(t, "read-error-context", res.FailedStep)
	assert.Contains(t, res.Error, "denied", "the same confinement as the agent's own calls")
}

func TestRunnerChecksEverythingBeforeTheFirstStep(t *testing.T) {
	t.Parallel()
	root := workspace(t, errorWorkspace)
	skills := builtinRegistry()
	ctx := context.Background()
	in := Context{Inputs: map[string]any{"errorFile": "build.log", "errorPattern": "parseConfg"}}
	var ran int
	onStep := func(StepResult) { ran++ }

	res := (&Runner{Skills: skills, Tools: registry(t, skills), OnStep: onStep}).Execute(ctx, "nope", &tools.Env{Root: root, Agent: "MARS"}, in)
	assert.False(t, res.Success)
	assert.Contains(t, res.Error, "skill not found")
	assert.Contains(t, res.Error, "debug-root-cause", "lists what exists")
	assert.Zero(t, res.DurationMs, "an immediate failure takes no time")

	bare := tools.NewRegistry()
	for _, tl := range tools.CoreTools() {
		if tl.Name != "searchFiles" {
			require.NoError(t, bare.Register(tl))
		}
	}
	res = (&Runner{Skills: skills, Tools: bare, OnStep: onStep}).Execute(ctx, "debug-root-cause", &tools.Env{Root: root, Agent: "MARS"}, in)
	assert.Equal(t, []string{"searchFiles"}, res.MissingTools)
	assert.Contains(t, res.Error, "tools not registered: searchFiles")

	res = (&Runner{Skills: skills, Tools: registry(t, skills), OnStep: onStep}).Execute(ctx, "debug-root-cause",
		&tools.Env{Root: root, Agent: "ATLAS", Tools: []string{"readFile"}}, in)
	assert.Equal(t, []string{"searchFiles"}, res.MissingTools)
	assert.Contains(t, res.Error, "tools ATLAS may not use: searchFiles", "a step whose tool is denied to the agent")

	res = (&Runner{Skills: skills, Tools: registry(t, skills), OnStep: onStep}).Execute(ctx, "refactor-safely", &tools.Env{Root: root, Agent: "VENUS"}, Context{})
	assert.Contains(t, res.Error, "skill refactor-safely is for MARS, EARTH, SATURN, not VENUS")

	res = (&Runner{Skills: skills, Tools: registry(t, skills), OnStep: onStep}).Execute(ctx, "debug-root-cause", &tools.Env{Root: root, Agent: "MARS"},
		Context{Inputs: map[string]any{"errorFile": "build.log"}})
	assert.Contains(t, res.Error, `input "errorPattern": is required`)
	res = (&Runner{Skills: skills, Tools: registry(t, skills), OnStep: onStep}).Execute(ctx, "debug-root-cause", &tools.Env{Root: root, Agent: "MARS"},
		Context{Inputs: map[string]any{"errorFile": "a", "errorPattern": "b", "colour": "red"}})
	assert.Contains(t, res.Error, `input "colour": unknown parameter`)
	assert.Zero(t, ran, "nothing ran")

	res = (&Runner{}).Execute(ctx, "debug-root-cause", nil, Context{})
	assert.False(t, res.Success, "an unwired runner fails without panicking")
}

func TestRunnerSurvivesAPanickingTool(t *testing.T) {
	t.Parallel()
	root := workspace(t, nil)
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(tools.Tool{Name: "boom", Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) {
		panic("kaboom")
	}}))
	skills := NewRegistry()
	skills.Register(Skill{Schema: SchemaV1, Name: "b", Version: "1.0.0", Description: "d", Steps: []Step{{Name: "s1", Tool: "boom"}}}, SourceUser)
	res := (&Runner{Skills: skills, Tools: reg}).Execute(context.Background(), "b", &tools.Env{Root: root}, Context{})
	assert.False(t, res.Success)
	assert.Equal(t, "s1", res.FailedStep)
	assert.Contains(t, res.Error, "kaboom")
}

func TestFormatForPromptIsBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("é", 5000)
	res := Result{Skill: "x", StepsCompleted: 6, TotalSteps: 7, Success: false, FailedStep: "s7", Error: big, StepResults: map[string]string{}}
	for i := range 6 {
		n := string(rune('a' + i))
		res.Steps = append(res.Steps, StepResult{Name: n})
		res.StepResults[n] = big
	}
	p := FormatForPrompt(res)
	assert.LessOrEqual(t, len([]rune(p)), MaxPromptChars)
	assert.True(t, strings.HasSuffix(p, "...[truncated]"))
	assert.Contains(t, p, "a: "+strings.Repeat("é", stepPreviewChars)+"…", "each step shows its first 200 characters")
}

func TestRunSkillToolGoesThroughTheRegistry(t *testing.T) {
	t.Parallel()
	root := workspace(t, errorWorkspace)
	skills := builtinRegistry()
	var traced []string
	r := tools.Core()
	require.NoError(t, r.Register(Tool(ToolDeps{
		Skills: func() *Registry { return skills }, Tools: func() *tools.Registry { return r },
		OnStep: func(env *tools.Env, sr StepResult) { traced = append(traced, env.Agent+":"+sr.Name) },
	})))
	tl, ok := r.Get(ToolName)
	require.True(t, ok)
	assert.Equal(t, MaxPromptChars, tl.OutputCap)
	env := &tools.Env{Root: root, Agent: "MARS", Tools: []string{"readFile", "searchFiles", "runSkill"}}
	args := `{"skillName":"debug-root-cause","inputs":{"errorFile":"build.log","errorPattern":"parseConfg"}}`
	res := r.Execute(context.Background(), env, tools.Call{Name: ToolName, Args: json.RawMessage(args)})
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "Skill: debug-root-cause (3/3 steps)")
	assert.Equal(t, []string{"MARS:read-error-context", "MARS:search-for-source", "MARS:identify-cause"}, traced)

	res = r.Execute(context.Background(), env, tools.Call{Name: ToolName, Args: json.RawMessage(`{"skillName":"generate-tests","inputs":{"targetFile":"pkg/user.go"}}`)})
	assert.Equal(t, tools.StatusFailed, res.Status, "a skill the agent may not use is a failed call")
	assert.Contains(t, res.Output, "skill generate-tests is for SATURN, not MARS")

	// runSkill is offered to every agent, but grants nothing: an agent
	// without searchFiles cannot run a skill that searches.
	res = r.Execute(context.Background(), &tools.Env{Root: root, Agent: "ATLAS", Tools: []string{"readFile"}}, tools.Call{Name: ToolName, Args: json.RawMessage(args)})
	assert.Equal(t, tools.StatusFailed, res.Status)
	assert.Contains(t, res.Output, "tools ATLAS may not use: searchFiles")
	offered := []string{}
	for _, tl := range r.For("ATLAS", []string{"readFile"}) {
		offered = append(offered, tl.Name)
	}
	assert.Equal(t, []string{"readFile", ToolName}, offered)
}

func TestGenerateTestsAndRefactorSafely(t *testing.T) {
	t.Parallel()
	root := workspace(t, errorWorkspace)
	skills := builtinRegistry()
	run := &Runner{Skills: skills, Tools: registry(t, skills)}
	res := run.Execute(context.Background(), "generate-tests", &tools.Env{Root: root, Agent: "SATURN"}, Context{Inputs: map[string]any{"targetFile": "pkg/user.go"}})
	require.True(t, res.Success, res.Error)
	assert.Contains(t, res.StepResults["find-existing-tests"], "pkg/user_test.go")
	assert.Contains(t, res.StepResults["read-related-types"], "pkg/user_test.go")

	res = run.Execute(context.Background(), "refactor-safely", &tools.Env{Root: root, Agent: "EARTH"}, Context{Inputs: map[string]any{"targetFile": "pkg/user.go", "symbolName": "NewUser"}})
	require.True(t, res.Success, res.Error)
	assert.Contains(t, res.StepResults["find-usages"], "pkg/other.go:3:")
	assert.Contains(t, res.StepResults["check-test-coverage"], "pkg/user_test.go:3:")
	assert.NotContains(t, res.StepResults["check-test-coverage"], "pkg/other.go")
}

func TestComponentSpec(t *testing.T) {
	t.Parallel()
	req := UIRequest{ComponentName: "UserCard", Purpose: "Shows a user's name, avatar and role.", Props: []string{"user", "onEdit", "user"},
		ShadcnComponents: []string{"Card", "CardHeader", "Badge", "DropdownMenu", "Fancy"}, HasInteractivity: true}
	spec, err := ComponentSpec(req)
	require.NoError(t, err)
	again, err := ComponentSpec(req)
	require.NoError(t, err)
	assert.Equal(t, spec, again, "deterministic")
	for _, want := range []string{"Component spec: UserCard", "Props: user, onEdit (", "loading:", "empty:", "error:", "success:", "disabled:",
		"aria-busy", `role="alert"`, "aria-label", "Keyboard:", "Enter and Space", "sm: 640px, md: 768px, lg: 1024px",
		"bg-background", "at most 200 lines", "@/components/ui/card", "@/components/ui/dropdown-menu", "Not shadcn/ui primitives nova knows: Fancy"} {
		assert.Contains(t, spec, want)
	}
	assert.LessOrEqual(t, len(spec), UIOutputCap)
	plain, err := ComponentSpec(UIRequest{ComponentName: "Stat", Purpose: "A number with a label"})
	require.NoError(t, err)
	assert.NotContains(t, plain, "Keyboard:")
	for _, bad := range []UIRequest{{ComponentName: "userCard", Purpose: "x"}, {ComponentName: "UserCard", Purpose: "  "}, {}} {
		_, err := ComponentSpec(bad)
		assert.ErrorIs(t, err, ErrBadComponent)
	}
}

func TestGenerateUIComponentIsVenusOnly(t *testing.T) {
	t.Parallel()
	root := workspace(t, nil)
	reg := registry(t, NewRegistry())
	args := json.RawMessage(`{"componentName":"UserCard","purpose":"Shows a user","hasInteractivity":true}`)
	res := reg.Execute(context.Background(), &tools.Env{Root: root, Agent: "VENUS"}, tools.Call{Name: UIToolName, Args: args})
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "Component spec: UserCard")
	for _, agent := range []string{"MARS", "SATURN", "venusx"} {
		res = reg.Execute(context.Background(), &tools.Env{Root: root, Agent: agent}, tools.Call{Name: UIToolName, Args: args})
		assert.Equal(t, tools.StatusDenied, res.Status, agent)
		assert.Contains(t, res.Output, "generateUIComponent is reserved for VENUS", agent)
	}
	res = reg.Execute(context.Background(), &tools.Env{Root: root, Agent: "venus"}, tools.Call{Name: UIToolName, Args: json.RawMessage(`{"componentName":"bad name","purpose":"x"}`)})
	assert.Equal(t, tools.StatusInvalid, res.Status)
	assert.Contains(t, res.Output, "PascalCase")
	for _, agent := range []string{"MARS", "VENUS"} {
		offered := []string{}
		for _, tl := range reg.For(agent, []string{"readFile"}) {
			offered = append(offered, tl.Name)
		}
		assert.Equal(t, agent == "VENUS", slices.Contains(offered, UIToolName), "%s: only VENUS is offered the tool, without listing it", agent)
	}
}

func TestParseReportsProblemsWithLines(t *testing.T) {
	t.Parallel()
	reg := registry(t, NewRegistry())
	known := func(id string) bool { return id == "MARS" }
	src := `schema: nova.skill/1
name: mine
version: 1.0.0
description: does things
agents: [MARS, NOBODY]
inputs:
  - name: file
steps:
  - name: first
    tool: readFile
    args:
      path: "{{ inputs.fiel }}"
  - name: second
    tool: redFile
  - name: third
    tool: searchFiles
    args:
      patern: x
      pattern: "{{ steps['fourth'] }}{{ steps['nope'] }}{{ secret }}"
  - name: fourth
    tool: runSkill
    validate:
      matches: "("
`
	_, errs := Parse("mine.yaml", []byte(src), reg.Get, known)
	var lines []string
	for _, e := range errs {
		assert.ErrorIs(t, e, ErrInvalid)
		lines = append(lines, e.Error())
	}
	want := []string{
		`mine.yaml:5: agents[1]: unknown agent "NOBODY"`,
		"mine.yaml:12: steps[0].args.path: reads inputs.fiel, which is not a declared input",
		`mine.yaml:14: steps[1].tool: unknown tool "redFile"`,
		`mine.yaml:18: steps[2].args.patern: searchFiles has no argument "patern"`,
		"mine.yaml:19: steps[2].args.pattern: reads steps['fourth'], which runs after this step",
		"mine.yaml:19: steps[2].args.pattern: reads steps['nope'], but the skill has no step \"nope\"",
		`mine.yaml:19: steps[2].args.pattern: reads "secret"`,
		"mine.yaml:21: steps[3].tool: a skill cannot run another skill",
		"mine.yaml:23: steps[3].validate.matches: not a valid RE2 pattern",
	}
	for _, w := range want {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, w)
		}
		assert.True(t, found, "missing %q in\n%s", w, strings.Join(lines, "\n"))
	}
	assert.Len(t, lines, len(want))

	for name, tc := range map[string]struct{ src, want string }{
		"unknown field": {"schema: nova.skill/1\nname: a\nversion: 1.0.0\ndescription: d\nstepz: []\n", `x.yaml:5: stepz: unknown field "stepz"`},
		"no steps":      {"schema: nova.skill/1\nname: a\nversion: 1.0.0\ndescription: d\n", "steps: a skill needs at least one step"},
		"bad name":      {"schema: nova.skill/1\nname: My Skill\nversion: v1\ndescription: d\nsteps: [{name: a, tool: readFile}]\n", "x.yaml:2: name:"},
		"bad version":   {"schema: nova.skill/1\nname: a\nversion: v1\ndescription: d\nsteps: [{name: a, tool: readFile}]\n", "x.yaml:3: version:"},
		"schema":        {"schema: kb.playbook/1\nname: a\nversion: 1.0.0\ndescription: d\nsteps: [{name: a, tool: readFile}]\n", "unsupported schema"},
		"bomb":          {"a: &a [x, x]\nb: [*a, *a]\n", "anchors and aliases"},
		"type":          {"schema: nova.skill/1\nname: a\nversion: 1.0.0\ndescription: d\nsteps: {name: a}\n", "x.yaml:5: steps:"},
		"template":      {"schema: nova.skill/1\nname: a\nversion: 1.0.0\ndescription: d\nsteps: [{name: a, tool: readFile, args: {path: '{% include \"x\" %}'}}]\n", "template:"},
		"huge":          {strings.Repeat("#", 1<<20+1), "larger than"},
	} {
		_, errs := Parse("x.yaml", []byte(tc.src), reg.Get, nil)
		require.NotEmpty(t, errs, name)
		joined := errors.Join(errs...).Error()
		assert.Contains(t, joined, tc.want, name)
	}
}

func TestLoadMergesUserSkillsOverBuiltins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reg := registry(t, NewRegistry())
	good := "schema: nova.skill/1\nname: debug-root-cause\nversion: 9.0.0\ndescription: my own\nsteps:\n  - name: look\n    tool: listFiles\n"
	other := "schema: nova.skill/1\nname: todo\nversion: 1.0.0\ndescription: todos\nsteps:\n  - name: find\n    tool: searchFiles\n    args: {pattern: TODO}\n"
	dup := strings.Replace(other, "todos", "again", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "debug.yaml"), []byte(good), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "todo.yaml"), []byte(other), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "todo2.yml"), []byte(dup), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("name: [\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# not a skill"), 0o644))
	r, errs := Load(dir, reg.Get, nil)
	require.Len(t, errs, 2)
	assert.Contains(t, errs[0].Error(), "broken.yaml")
	assert.Contains(t, errs[1].Error(), "todo2.yml: name: skill \"todo\" is already defined in")
	s, ok := r.Get("debug-root-cause")
	require.True(t, ok)
	assert.Equal(t, "9.0.0", s.Version)
	regn, _ := r.Lookup("debug-root-cause")
	assert.Equal(t, SourceUser, regn.Source)
	assert.True(t, r.Has("todo"))
	assert.True(t, r.Has("generate-tests"))

	r, errs = Load(filepath.Join(dir, "missing"), reg.Get, nil)
	assert.Empty(t, errs)
	assert.Len(t, r.ListAll(), 3)
}
