// Package workflow holds nova's workflows: named, parameterised,
// conditional sequences of agent steps (the seeds' "kb.playbook/1", named
// workflows here because nova's playbooks are the ACE rule sets).
//
// A workflow file in .nova/workflows/ (schema nova.workflow/1):
//
//	schema: nova.workflow/1
//	id: add-test
//	name: Add tests
//	triggers: ["add tests", "write tests for"]
//	params:
//	  - {name: target, required: true, prompt: Which file needs tests?}
//	steps:
//	  - id: study
//	    skill: generate-tests          # a skill step: no model, the agent's permissions
//	    agent: SATURN
//	    with: {targetFile: "{{ target }}"}
//	  - id: test
//	    agent: SATURN                  # an agent step: a one-task build
//	    task: Write tests for {{ target }}.
//	    input: {context: "{{ study.output }}"}
//	    continueOnFailure: true
//	  - id: debug
//	    agent: researcher
//	    condition: test.failed         # runs only when the test step failed
//	    task: Find why the tests fail.
//	    input: {failure: "{{ test.reason }}"}
//
// An agent step runs through the build engine as a one-task build, so it
// gets the usual prompt context, staging, gates, verification, retries and
// learning; a skill step runs a skill with the agent's permissions. Each
// step's result is available to later steps as {{ <id>.output }},
// {{ <id>.status }} ("done", "failed", "skipped"), {{ <id>.failed }},
// {{ <id>.done }}, {{ <id>.skipped }}, {{ <id>.reason }}. A step whose
// condition is false is skipped and its reason recorded. A failed step ends
// the run as failed unless it says continueOnFailure, in which case later
// steps (a debug step) can react to it; the run is done when no step
// failed without continueOnFailure.
package workflow

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/checks"
	"github.com/nova-dev/nova/engine/library/internal/yamldoc"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/skills"
	"github.com/nova-dev/nova/engine/library/tmpl"
	"github.com/nova-dev/nova/internal/lazyre"
)

// SchemaV1 is the schema value of a workflow file.
const SchemaV1 = "nova.workflow/1"

// FileError is one problem with one file: "file:line: field: message".
type FileError = yamldoc.Error

// MaxFileSize bounds one file.
const MaxFileSize = yamldoc.MaxSize

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no workflow (or run) has this id.
	ErrNotFound = errors.New("workflow not found")
	// ErrInvalid is wrapped by every problem with a workflow file.
	ErrInvalid = yamldoc.ErrInvalid
)

// Workflow is one workflow definition.
type Workflow struct {
	Schema      string         `yaml:"schema" json:"schema"`
	ID          string         `yaml:"id" json:"id"`
	Name        string         `yaml:"name" json:"name"`
	Description string         `yaml:"description,omitempty" json:"description,omitempty"`
	Triggers    []string       `yaml:"triggers,omitempty" json:"triggers"`
	Params      []params.Param `yaml:"params,omitempty" json:"params"`
	Steps       []Step         `yaml:"steps" json:"steps"`

	// Source is "builtin" or the file the workflow was read from.
	Source string `yaml:"-" json:"source"`
}

// Step is one step: an agent step (task) or a skill step (skill).
type Step struct {
	ID    string `yaml:"id" json:"id"`
	Title string `yaml:"title,omitempty" json:"title,omitempty"`
	Agent string `yaml:"agent" json:"agent"`
	// Task is the agent's task (a template).
	Task string `yaml:"task,omitempty" json:"task,omitempty"`
	// Input adds named context sections to the task (templates such as
	// "{{ research.output }}").
	Input map[string]string `yaml:"input,omitempty" json:"input,omitempty"`
	// Skill runs a skill instead of the agent loop, with With as inputs.
	Skill string         `yaml:"skill,omitempty" json:"skill,omitempty"`
	With  map[string]any `yaml:"with,omitempty" json:"with,omitempty"`
	// Condition is an expression (e.g. "test.failed"); the step runs only
	// when it is true.
	Condition string `yaml:"condition,omitempty" json:"condition,omitempty"`
	// ContinueOnFailure lets the run go on after this step fails.
	ContinueOnFailure bool `yaml:"continueOnFailure,omitempty" json:"continueOnFailure,omitempty"`
	// Checks are the step's check commands (see StepChecks): a list
	// replacing the workspace's, or true/false for the workspace's or none;
	// by default an agent step runs the workspace's when its agent can
	// change files.
	Checks *StepChecks `yaml:"checks,omitempty" json:"checks,omitempty"`
}

// Kind is "skill" or "agent".
func (s Step) Kind() string {
	if s.Skill != "" {
		return "skill"
	}
	return "agent"
}

// Label is the step's title, or its id.
func (s Step) Label() string {
	if t := strings.TrimSpace(s.Title); t != "" {
		return t
	}
	return s.ID
}

// Env is what validation checks a workflow against; nil funcs skip their
// check.
type Env struct {
	// KnownAgent reports whether an agent exists (roster.Has).
	KnownAgent func(id string) bool
	// AgentTools returns the tools an agent's spec lists (nil: every tool).
	AgentTools func(id string) []string
	// Skill finds a skill by name.
	Skill func(name string) (skills.Skill, bool)
	// Permit is the tool registry's permission check.
	Permit func(agent string, offered []string, tool string) error
}

// StepFields are what a step's result offers templates.
var StepFields = []string{"output", "status", "done", "failed", "skipped", "reason", "buildId", "changesetId", "applied"}

// reserved names cannot be step ids or parameters.
var reserved = []string{"workflow", "run", "params", "steps", "loop", "range", "dict", "namespace", "cycler", "joiner", "self", "true", "false", "none"}

var idPattern = lazyre.New(`^[a-z0-9][a-z0-9-]{0,63}$`)

// Parse decodes and validates one workflow file; every problem names the
// file, the line and the field. It never panics on input.
func Parse(name string, data []byte, env Env) (Workflow, []error) {
	var w Workflow
	doc, err := yamldoc.Parse(name, "workflow", data)
	if err != nil {
		return w, []error{err}
	}
	errs := doc.Decode(&w)
	w.Source = name
	if len(errs) > 0 {
		return w, errs
	}
	if w.Schema == "" {
		// A file that leaves the schema out is of the one schema there is
		// (as agent files are): written by hand, it is not refused for it.
		w.Schema = SchemaV1
	}
	for _, e := range Validate(w, env) {
		errs = append(errs, &yamldoc.Error{File: name, Line: doc.Line(e.Field), Field: e.Field, Msg: e.Msg})
	}
	return w, errs
}

// FieldError is a problem with one field.
type FieldError struct {
	Field string
	Msg   string
}

func (e FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks a workflow: schema, id, name, parameters, steps (ids,
// agents, a task or a skill, skills that exist and whose tools the agent
// may use), templates and conditions (they parse and read only parameters
// and earlier steps), and cycles between steps.
func Validate(w Workflow, env Env) []FieldError {
	var errs []FieldError
	bad := func(field, format string, args ...any) {
		errs = append(errs, FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	switch {
	case w.Schema == "":
		bad("schema", "is required (want %q)", SchemaV1)
	case w.Schema != SchemaV1:
		bad("schema", "unsupported schema %q (want %q)", w.Schema, SchemaV1)
	}
	if !idPattern.MatchString(w.ID) {
		bad("id", "%q must be lower-case letters, digits and dashes (e.g. add-test)", w.ID)
	}
	if strings.TrimSpace(w.Name) == "" {
		bad("name", "is required")
	}
	for i, tr := range w.Triggers {
		if strings.TrimSpace(tr) == "" {
			bad(fmt.Sprintf("triggers[%d]", i), "a trigger phrase must not be blank")
		}
	}
	for _, pe := range params.Check(w.Params) {
		bad(fmt.Sprintf("params[%d].%s", pe.Index, pe.Field), "%s", pe.Err.Error())
	}
	paramNames := map[string]bool{}
	for i, p := range w.Params {
		paramNames[p.Name] = true
		if slices.Contains(reserved, p.Name) {
			bad(fmt.Sprintf("params[%d].name", i), "%q is reserved", p.Name)
		}
	}
	if len(w.Steps) == 0 {
		bad("steps", "a workflow needs at least one step")
	}
	index := map[string]int{}
	for i, s := range w.Steps {
		f := fmt.Sprintf("steps[%d].id", i)
		switch {
		case s.ID == "":
			bad(f, "a step needs an id")
		case !params.ValidName(s.ID):
			bad(f, "%q must be letters, digits and underscores, not starting with a digit (templates read {{ %s.output }})", s.ID, strings.ReplaceAll(s.ID, "-", "_"))
		case slices.Contains(reserved, s.ID):
			bad(f, "%q is reserved", s.ID)
		case paramNames[s.ID]:
			bad(f, "%q is also a parameter; templates could not tell them apart", s.ID)
		case hasIndex(index, s.ID):
			bad(f, "step %q is defined twice", s.ID)
		default:
			index[s.ID] = i
		}
	}
	// deps[i] lists the steps step i reads, for the cycle check.
	deps := make([][]int, len(w.Steps))
	for i, s := range w.Steps {
		f := fmt.Sprintf("steps[%d]", i)
		switch {
		case strings.TrimSpace(s.Agent) == "":
			bad(f+".agent", "a step needs an agent")
		case env.KnownAgent != nil && !env.KnownAgent(s.Agent):
			bad(f+".agent", "unknown agent %q", s.Agent)
		}
		switch {
		case s.Skill != "" && strings.TrimSpace(s.Task) != "":
			bad(f+".skill", "a step has a task (an agent step) or a skill (a skill step), not both")
		case s.Skill == "" && strings.TrimSpace(s.Task) == "":
			bad(f+".task", "a step needs a task for its agent (or a skill to run)")
		case s.Skill == "" && len(s.With) > 0:
			bad(f+".with", "with gives a skill its inputs; this step runs no skill (use input for the task's context)")
		case s.Skill != "" && len(s.Input) > 0:
			bad(f+".input", "input adds context to an agent's task; a skill step takes its inputs in with")
		}
		for j, c := range s.Checks.Commands() {
			if msg := checks.LineProblem(c); msg != "" {
				bad(fmt.Sprintf("%s.checks[%d]", f, j), "%s", msg)
			}
		}
		if s.Skill != "" && env.Skill != nil {
			sk, ok := env.Skill(s.Skill)
			switch {
			case !ok:
				bad(f+".skill", "unknown skill %q", s.Skill)
			case !sk.For(s.Agent):
				bad(f+".skill", "skill %s is for %s, not %s", sk.Name, strings.Join(sk.Agents, ", "), s.Agent)
			case env.Permit != nil:
				var offered []string
				if env.AgentTools != nil {
					offered = env.AgentTools(s.Agent)
				}
				for _, tool := range sk.Tools() {
					if err := env.Permit(s.Agent, offered, tool); err != nil {
						bad(f+".skill", "skill %s uses %s, which %s may not use: %v", sk.Name, tool, s.Agent, err)
					}
				}
				inputs := map[string]bool{}
				for _, in := range sk.Inputs {
					inputs[in.Name] = true
				}
				for _, k := range sortedKeys(s.With) {
					if !inputs[k] {
						bad(f+".with."+k, "skill %s has no input %q", sk.Name, k)
					}
				}
			}
		}
		check := func(field string, refs []tmpl.Ref) {
			for _, r := range refs {
				j, isStep := index[r.Name]
				switch {
				case isStep && j == i:
					bad(field, "reads its own result (%s)", r.Name)
				case isStep:
					if !slices.Contains(deps[i], j) {
						deps[i] = append(deps[i], j)
					}
					if r.Attr != "" && !slices.Contains(StepFields, r.Attr) {
						bad(field, "%s.%s: a step's result has %s", r.Name, r.Attr, strings.Join(StepFields, ", "))
					}
				case paramNames[r.Name], r.Name == "workflow", r.Name == "run":
				default:
					bad(field, "reads %q, which is neither a step nor a parameter of this workflow", r.Name)
				}
			}
		}
		template := func(field, src string) {
			if !tmpl.Has(src) {
				return
			}
			tp, err := tmpl.Parse(src)
			if err != nil {
				bad(field, "template: %v", err)
				return
			}
			check(field, tp.Refs())
		}
		template(f+".task", s.Task)
		template(f+".title", s.Title)
		for _, k := range sortedKeys(s.Input) {
			template(f+".input."+k, s.Input[k])
		}
		for _, k := range sortedKeys(s.With) {
			walkStrings(s.With[k], func(v string) { template(f+".with."+k, v) })
		}
		if s.Condition != "" {
			x, err := tmpl.ParseExpr(s.Condition)
			if err != nil {
				bad(f+".condition", "%v", err)
			} else {
				check(f+".condition", x.Refs())
			}
		}
	}
	// Steps run in file order: a step may read only the steps before it.
	// A cycle is reported as such; a plain forward reference too.
	for _, cyc := range cycles(deps) {
		names := make([]string, 0, len(cyc))
		for _, j := range cyc {
			names = append(names, w.Steps[j].ID)
		}
		bad(fmt.Sprintf("steps[%d]", cyc[0]), "cycle between steps %s: they read each other's results, but a step can read only the steps before it", strings.Join(names, ", "))
	}
	inCycle := map[int]bool{}
	for _, cyc := range cycles(deps) {
		for _, j := range cyc {
			inCycle[j] = true
		}
	}
	for i, ds := range deps {
		for _, j := range ds {
			if j > i && !inCycle[i] {
				bad(fmt.Sprintf("steps[%d]", i), "reads step %s, which runs after it (steps run in file order)", w.Steps[j].ID)
			}
		}
	}
	return errs
}

func hasIndex(m map[string]int, k string) bool { _, ok := m[k]; return ok }

// cycles returns the cycles of the dependency graph (Tarjan's strongly
// connected components of two or more steps), each in step order.
func cycles(deps [][]int) [][]int {
	n := len(deps)
	index, low := make([]int, n), make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var strong func(v int)
	strong = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range deps[v] {
			if index[w] < 0 {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 {
				slices.Sort(comp)
				out = append(out, comp)
			}
		}
	}
	for v := range n {
		if index[v] < 0 {
			strong(v)
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			walkStrings(x[k], fn)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
