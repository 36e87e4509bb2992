// Package skills holds nova's skills: named, versioned sequences of tool
// calls. Each step names a tool of the engine's registry (engine/tools),
// builds its arguments from the skill's inputs and the earlier steps'
// results with templates (engine/library/tmpl), and may check its result.
// A skill never calls a model: it is a deterministic macro run through the
// same permissioned registry as the agent that runs it (same confinement,
// same permissions, same traces).
//
// Skills come from two places: the built-ins shipped in the binary
// (debug-root-cause, refactor-safely, generate-tests) and YAML files in
// .nova/skills/, validated like agent files (every problem as
// "file:line: field: message"). A workspace file with a built-in's name
// replaces it.
//
// The format (schema nova.skill/1):
//
//	schema: nova.skill/1
//	name: find-todo
//	version: 1.0.0
//	description: List the TODO comments of a directory.
//	agents: []                 # empty: every agent
//	inputs:                    # typed parameters (engine/library/params)
//	  - name: dir
//	    default: "."
//	steps:
//	  - name: search
//	    tool: searchFiles
//	    args:
//	      pattern: "TODO"
//	      path: "{{ inputs.dir }}"
//	    validate:
//	      notMatches: "^no matches for "
//	      message: there are no TODOs
//
// Argument templates see inputs (the resolved inputs), steps (step name →
// output of the steps that ran before), agent, task and workingDir.
package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/checks"
	"github.com/nova-dev/nova/engine/library/internal/yamldoc"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/tmpl"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/internal/lazyre"
)

// SchemaV1 is the schema value of a skill file.
const SchemaV1 = "nova.skill/1"

// Sources of a registration.
const (
	SourceBuiltin = "builtin"
	SourceUser    = "user"
)

// FileError is one problem with one file: "file:line: field: message".
type FileError = yamldoc.Error

// MaxFileSize bounds one file.
const MaxFileSize = yamldoc.MaxSize

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no skill has this name.
	ErrNotFound = errors.New("skill not found")
	// ErrInvalid is wrapped by every problem with a skill file.
	ErrInvalid = yamldoc.ErrInvalid
)

// Skill is one skill definition.
type Skill struct {
	Schema      string   `yaml:"schema" json:"schema"`
	Name        string   `yaml:"name" json:"name"`
	Version     string   `yaml:"version" json:"version"`
	Description string   `yaml:"description" json:"description"`
	Agents      []string `yaml:"agents" json:"agents"`
	// Inputs are the values a caller gives (typed parameters).
	Inputs []params.Param `yaml:"inputs,omitempty" json:"inputs"`
	// RequiredTools lists tools the skill needs beyond those its steps
	// name; the runner checks both before the first step.
	RequiredTools []string `yaml:"requiredTools,omitempty" json:"requiredTools"`
	Steps         []Step   `yaml:"steps" json:"steps"`
	// Checks are check commands (shell lines, as config checks) run on a
	// copy with the skill's staged changes when it runs as a workflow
	// step, replacing the workspace's; a step's own checks replace them in
	// turn. Inside an agent run the skill's writes join the run's
	// changeset, which the run's checks cover.
	Checks []string `yaml:"checks,omitempty" json:"checks,omitzero"`

	// Source is "builtin" or the file the skill was read from.
	Source string `yaml:"-" json:"source"`
}

// Step is one tool call.
type Step struct {
	Name string `yaml:"name" json:"name"`
	Tool string `yaml:"tool" json:"tool"`
	// Args maps argument names to values; strings may be templates.
	Args map[string]any `yaml:"args,omitempty" json:"args,omitempty"`
	// Validate checks the result; without it a non-empty result passes.
	Validate *Check `yaml:"validate,omitempty" json:"validate,omitempty"`
}

// Check is what a step's result must satisfy.
type Check struct {
	// NonEmpty (default true) requires a non-blank result.
	NonEmpty *bool `yaml:"nonEmpty,omitempty" json:"nonEmpty,omitempty"`
	// Contains / NotContains: plain text the result must (not) contain.
	Contains    string `yaml:"contains,omitempty" json:"contains,omitempty"`
	NotContains string `yaml:"notContains,omitempty" json:"notContains,omitempty"`
	// Matches / NotMatches: RE2 patterns the result must (not) match.
	Matches    string `yaml:"matches,omitempty" json:"matches,omitempty"`
	NotMatches string `yaml:"notMatches,omitempty" json:"notMatches,omitempty"`
	// Message says what a failed check means.
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
}

// Tools lists every tool the skill needs: RequiredTools and the steps'
// tools, without repeats, in order.
func (s Skill) Tools() []string {
	var out []string
	for _, t := range s.RequiredTools {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, st := range s.Steps {
		if !slices.Contains(out, st.Tool) {
			out = append(out, st.Tool)
		}
	}
	return out
}

// For reports whether agent may use the skill (no agents listed: all).
func (s Skill) For(agent string) bool {
	if len(s.Agents) == 0 {
		return true
	}
	for _, a := range s.Agents {
		if strings.EqualFold(a, agent) {
			return true
		}
	}
	return false
}

// ToolInfo looks a tool up (tools.Registry.Get fits).
type ToolInfo func(name string) (tools.Tool, bool)

// KnownAgent reports whether an agent id exists (agents.Roster.Has fits);
// nil skips the check.
type KnownAgent func(id string) bool

var (
	namePattern    = lazyre.New(`^[a-z0-9][a-z0-9-]{0,63}$`)
	versionPattern = lazyre.New(`^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$`)
)

// Parse decodes and validates one skill file. Every problem is returned
// as a *yamldoc.Error naming the file, the line and the field. Parse never
// panics on input.
func Parse(name string, data []byte, toolInfo ToolInfo, known KnownAgent) (Skill, []error) {
	var s Skill
	doc, err := yamldoc.Parse(name, "skill", data)
	if err != nil {
		return s, []error{err}
	}
	errs := doc.Decode(&s)
	s.Source = name
	if len(errs) > 0 {
		return s, errs
	}
	for _, e := range Validate(s, toolInfo, known) {
		errs = append(errs, &yamldoc.Error{File: name, Line: doc.Line(e.Field), Field: e.Field, Msg: e.Msg})
	}
	return s, errs
}

// FieldError is a validation problem with one field.
type FieldError struct {
	Field string
	Msg   string
}

func (e FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks a skill: schema, name, version, agents, inputs, steps
// (unique names, known tools, no nested runSkill, known argument names,
// templates that parse and read only inputs that exist and steps that ran
// before), and validation patterns.
func Validate(s Skill, toolInfo ToolInfo, known KnownAgent) []FieldError {
	var errs []FieldError
	bad := func(field, format string, args ...any) {
		errs = append(errs, FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	switch {
	case s.Schema == "":
		bad("schema", "is required (want %q)", SchemaV1)
	case s.Schema != SchemaV1:
		bad("schema", "unsupported schema %q (want %q)", s.Schema, SchemaV1)
	}
	if !namePattern.MatchString(s.Name) {
		bad("name", "%q must be lower-case letters, digits and dashes (e.g. debug-root-cause)", s.Name)
	}
	if !versionPattern.MatchString(s.Version) {
		bad("version", "%q is not a version such as 1.0.0", s.Version)
	}
	if strings.TrimSpace(s.Description) == "" {
		bad("description", "is required: one sentence saying what the skill does")
	}
	for i, a := range s.Agents {
		if known != nil && !known(a) {
			bad(fmt.Sprintf("agents[%d]", i), "unknown agent %q", a)
		}
	}
	for _, pe := range params.Check(s.Inputs) {
		bad(fmt.Sprintf("inputs[%d].%s", pe.Index, pe.Field), "%s", pe.Err.Error())
	}
	inputNames := map[string]bool{}
	for _, in := range s.Inputs {
		inputNames[in.Name] = true
	}
	for i, t := range s.RequiredTools {
		if toolInfo != nil {
			if _, ok := toolInfo(t); !ok {
				bad(fmt.Sprintf("requiredTools[%d]", i), "unknown tool %q", t)
			}
		}
	}
	for i, c := range s.Checks {
		if msg := checks.LineProblem(c); msg != "" {
			bad(fmt.Sprintf("checks[%d]", i), "%s", msg)
		}
	}
	if len(s.Steps) == 0 {
		bad("steps", "a skill needs at least one step")
	}
	before := map[string]bool{}
	all := map[string]bool{}
	for _, st := range s.Steps {
		all[st.Name] = true
	}
	for i, st := range s.Steps {
		f := fmt.Sprintf("steps[%d]", i)
		switch {
		case strings.TrimSpace(st.Name) == "":
			bad(f+".name", "a step needs a name")
		case before[st.Name]:
			bad(f+".name", "step %q is defined twice", st.Name)
		}
		var schema toolSchema
		switch {
		case st.Tool == "":
			bad(f+".tool", "a step needs a tool")
		case st.Tool == ToolName:
			bad(f+".tool", "a skill cannot run another skill")
		case toolInfo != nil:
			t, ok := toolInfo(st.Tool)
			if !ok {
				bad(f+".tool", "unknown tool %q", st.Tool)
				break
			}
			schema = parseSchema(t.Schema)
		}
		for _, arg := range sortedKeys(st.Args) {
			af := f + ".args." + arg
			if schema.props != nil {
				if _, ok := schema.props[arg]; !ok {
					bad(af, "%s has no argument %q (arguments: %s)", st.Tool, arg, strings.Join(schema.names(), ", "))
				}
			}
			walkStrings(st.Args[arg], func(v string) {
				if !tmpl.Has(v) {
					return
				}
				tp, err := tmpl.Parse(v)
				if err != nil {
					bad(af, "template: %v", err)
					return
				}
				for _, r := range tp.Refs() {
					switch r.Name {
					case "inputs":
						if r.Attr != "" && !inputNames[r.Attr] {
							bad(af, "reads inputs.%s, which is not a declared input", r.Attr)
						}
					case "steps":
						switch {
						case r.Attr == "":
						case r.Attr == st.Name:
							bad(af, "reads its own result steps['%s']", r.Attr)
						case !all[r.Attr]:
							bad(af, "reads steps['%s'], but the skill has no step %q", r.Attr, r.Attr)
						case !before[r.Attr]:
							bad(af, "reads steps['%s'], which runs after this step", r.Attr)
						}
					case "agent", "task", "workingDir":
					default:
						bad(af, "reads %q; a step's templates can read inputs, steps, agent, task and workingDir", r.Name)
					}
				}
			})
		}
		if c := st.Validate; c != nil {
			for _, p := range []struct{ field, re string }{{"matches", c.Matches}, {"notMatches", c.NotMatches}} {
				if p.re == "" {
					continue
				}
				if _, err := regexp.Compile(p.re); err != nil {
					bad(f+".validate."+p.field, "not a valid RE2 pattern: %v", err)
				}
			}
		}
		before[st.Name] = true
	}
	return errs
}

// toolSchema is the part of a tool's JSON Schema the runner needs.
type toolSchema struct {
	props    map[string]string // argument → JSON type ("string", "integer", …)
	required []string
}

func (s toolSchema) names() []string {
	out := make([]string, 0, len(s.props))
	for k := range s.props {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func parseSchema(raw json.RawMessage) toolSchema {
	var doc struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &doc) != nil {
		return toolSchema{}
	}
	s := toolSchema{props: map[string]string{}, required: doc.Required}
	for k, v := range doc.Properties {
		t, _ := v.Type.(string)
		s.props[k] = t
	}
	return s
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
