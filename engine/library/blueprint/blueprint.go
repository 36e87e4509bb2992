// Package blueprint holds blueprints: parameterised build plans. A
// blueprint is a PRD template (the same fields as a PRD, with Jinja-style
// templates in any string value) plus typed parameters, stored in bbolt
// with its versions and with evidence from the builds made from it
// (success rate, average duration and tokens) and its status (usage count,
// last used, versions).
//
// A blueprint file is YAML:
//
//	name: http-endpoint
//	description: Add an HTTP endpoint with its handler, tests and docs.
//	parameters:
//	  - {name: route, type: string, default: /health, description: URL path}
//	  - {name: tier, type: enum, values: [budget, premium], default: budget}
//	  - {name: phases, type: integer, default: 2, min: 1, max: 5}
//	prd:
//	  meta: {name: "{{ route }} endpoint", version: "1.0"}
//	  tasks:
//	    - id: handler
//	      title: Write the {{ route }} handler
//	      description: "{% if tier == 'premium' %}With caching.{% else %}Keep it simple.{% endif %}"
//	      agent: MARS
//	      phase: "{{ phases - 1 }}"
//
// Rendering (Render) validates the parameters first (unknown, missing
// without default, wrong type, out of range, not allowed: an error naming
// the parameter that wraps params.ErrUsage), then renders every string of
// the template, nested values included. Parameter values are data: they
// are never rendered as templates. A rendered value becomes a number only
// where the PRD schema expects one (phase, attempts) or where the whole
// value is one parameter typed integer or number (a boolean parameter
// likewise keeps its type); every other value stays text.
package blueprint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/library/internal/yamldoc"
	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/tmpl"
	"github.com/nova-dev/nova/internal/lazyre"
)

// FileError is one problem with one file: "file:line: field: message".
type FileError = yamldoc.Error

// MaxFileSize bounds one file.
const MaxFileSize = yamldoc.MaxSize

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no blueprint has this name.
	ErrNotFound = errors.New("blueprint not found")
	// ErrInvalid is wrapped by every problem with a blueprint file.
	ErrInvalid = yamldoc.ErrInvalid
	// ErrRender: the template could not render (a template error, or a
	// rendered PRD that does not parse or validate).
	ErrRender = errors.New("blueprint render failed")
)

// Spec is a blueprint's definition (what a file holds).
type Spec struct {
	Name        string         `yaml:"name" json:"name"`
	Description string         `yaml:"description,omitempty" json:"description"`
	Parameters  []params.Param `yaml:"parameters,omitempty" json:"parameters"`
	// PRD is the PRD template: a mapping with meta and tasks, any string
	// of which may be a template.
	PRD any `yaml:"prd" json:"prd"`
}

// MarshalJSON writes the spec as JSON. PRD holds a decoded YAML/JSON
// document (maps, lists, scalars), so the form is lossless; declaring it
// marks Spec as plain data for the facade's transport rules.
func (s Spec) MarshalJSON() ([]byte, error) {
	type plain Spec
	return json.Marshal(plain(s))
}

// UnmarshalJSON reads what MarshalJSON wrote (a spec sent to another nova
// process).
func (s *Spec) UnmarshalJSON(data []byte) error {
	type plain Spec
	return json.Unmarshal(data, (*plain)(s))
}

var namePattern = lazyre.New(`^[a-z0-9][a-z0-9-]{0,63}$`)

// ValidName reports whether s may name a blueprint.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// ReadFile reads a blueprint file through nova's guarded loader: a regular
// file only (a FIFO or device is refused before a byte is read) and at most
// MaxFileSize bytes. A file that breaks those rules is ErrInvalid; one that
// cannot be read (missing, no permission) is returned wrapped as it is.
func ReadFile(path string) ([]byte, error) {
	data, err := yamldoc.ReadFile(path, "blueprint")
	var fe *yamldoc.Error
	if errors.As(err, &fe) && fe.Msg == yamldoc.MsgCannotRead {
		return nil, fmt.Errorf("read blueprint: %w", fe.Err)
	}
	return data, err
}

// Parse decodes and validates a blueprint file; every problem names the
// file, the line and the field. It never panics on input.
func Parse(name string, data []byte) (Spec, []error) {
	var s Spec
	doc, err := yamldoc.Parse(name, "blueprint", data)
	if err != nil {
		return s, []error{err}
	}
	if errs := doc.Decode(&s); len(errs) > 0 {
		return s, errs
	}
	s.PRD = normalize(s.PRD)
	var errs []error
	for _, e := range Validate(s) {
		errs = append(errs, &yamldoc.Error{File: name, Line: doc.Line(e.Field), Field: e.Field, Msg: e.Msg})
	}
	return s, errs
}

// FieldError is a problem with one field of a spec.
type FieldError struct {
	Field string
	Msg   string
}

func (e FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks a spec: its name, its parameters, and a PRD template
// whose templates parse and read only declared parameters.
func Validate(s Spec) []FieldError {
	var errs []FieldError
	bad := func(field, format string, args ...any) {
		errs = append(errs, FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if !ValidName(s.Name) {
		bad("name", "%q must be lower-case letters, digits and dashes (e.g. http-endpoint)", s.Name)
	}
	for _, pe := range params.Check(s.Parameters) {
		bad(fmt.Sprintf("parameters[%d].%s", pe.Index, pe.Field), "%s", pe.Err.Error())
	}
	declared := map[string]bool{}
	var names []string
	for _, p := range s.Parameters {
		declared[p.Name] = true
		names = append(names, p.Name)
	}
	top, ok := s.PRD.(map[string]any)
	switch {
	case s.PRD == nil:
		bad("prd", "is required: the PRD template (meta and tasks)")
		return errs
	case !ok:
		bad("prd", "must be a mapping with meta and tasks")
		return errs
	}
	tasks, ok := top["tasks"].([]any)
	if !ok || len(tasks) == 0 {
		bad("prd.tasks", "the PRD template needs a list of tasks")
	}
	walk(s.PRD, "prd", func(field, v string) {
		if !tmpl.Has(v) {
			return
		}
		tp, err := tmpl.Parse(v)
		if err != nil {
			bad(field, "template: %v", err)
			return
		}
		for _, r := range tp.Refs() {
			if !declared[r.Name] {
				known := "it declares none"
				if len(names) > 0 {
					known = "parameters: " + strings.Join(names, ", ")
				}
				bad(field, "reads %q, which is not a parameter of this blueprint (%s)", r.Name, known)
			}
		}
	})
	return errs
}

// Hash is the canonical digest of a spec: two specs with the same hash
// are the same blueprint version.
func (s Spec) Hash() string {
	b, err := json.Marshal(s)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Diff says in words what changed between two specs ("" when nothing).
func Diff(old, cur Spec) string {
	var parts []string
	if old.Description != cur.Description {
		parts = append(parts, "description")
	}
	on, cn := paramNames(old.Parameters), paramNames(cur.Parameters)
	var added, removed []string
	for _, n := range cn {
		if !slices.Contains(on, n) {
			added = append(added, n)
		}
	}
	for _, n := range on {
		if !slices.Contains(cn, n) {
			removed = append(removed, n)
		}
	}
	if len(added) > 0 {
		parts = append(parts, "parameters added: "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "parameters removed: "+strings.Join(removed, ", "))
	}
	if len(added)+len(removed) == 0 && jsonOf(old.Parameters) != jsonOf(cur.Parameters) {
		parts = append(parts, "parameters changed")
	}
	if jsonOf(old.PRD) != jsonOf(cur.PRD) {
		parts = append(parts, "PRD template changed")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ")
}

func paramNames(ps []params.Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// walk calls fn for every string value in v with its field path.
func walk(v any, field string, fn func(field, s string)) {
	switch x := v.(type) {
	case string:
		fn(field, x)
	case []any:
		for i, e := range x {
			walk(e, fmt.Sprintf("%s[%d]", field, i), fn)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			walk(x[k], field+"."+k, fn)
		}
	}
}

// normalize turns a decoded YAML or JSON tree into plain JSON-able values
// (map[string]any, []any, string, float64/int64/uint64, bool, nil), with
// map keys as strings.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// decodeJSON decodes a JSON document keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
