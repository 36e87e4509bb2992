// Package params holds the typed parameters of workflows, blueprints and
// skill inputs: string, integer, number, boolean and enum, with a default,
// a description, a prompt (the question nova asks on a terminal), allowed
// values and min/max. Values are validated before anything renders; every
// problem is a *Error naming the parameter and wraps ErrUsage, which the
// CLI maps to exit 2.
package params

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/internal/lazyre"
)

// ErrUsage is wrapped by every *Error: the caller gave a bad value (exit 2).
var ErrUsage = errors.New("bad parameter")

// Type is a parameter's type.
type Type string

// Types.
const (
	String  Type = "string"
	Integer Type = "integer"
	Number  Type = "number"
	Boolean Type = "boolean"
	Enum    Type = "enum"
)

// Types lists the valid types.
var Types = []Type{String, Integer, Number, Boolean, Enum}

// MaxValue bounds one string value.
const MaxValue = 64 << 10

// Param is one declared parameter.
type Param struct {
	Name string `yaml:"name" json:"name"`
	// Type is string when empty.
	Type Type `yaml:"type,omitempty" json:"type"`
	// Required: nil means "required when there is no default".
	Required    *bool  `yaml:"required,omitempty" json:"required,omitempty"`
	Default     any    `yaml:"default,omitempty" json:"default,omitempty"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Prompt is the question asked for a missing value on a terminal.
	Prompt string `yaml:"prompt,omitempty" json:"prompt,omitempty"`
	// Values are the allowed values of an enum.
	Values []any    `yaml:"values,omitempty" json:"values,omitempty"`
	Min    *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max    *float64 `yaml:"max,omitempty" json:"max,omitempty"`
}

// MarshalJSON writes the declaration as JSON. Default and Values hold JSON
// scalars (text, numbers, booleans), so the form is lossless; declaring it
// marks Param as plain data for the facade's transport rules.
func (p Param) MarshalJSON() ([]byte, error) {
	type plain Param
	return json.Marshal(plain(p))
}

// UnmarshalJSON reads what MarshalJSON wrote (a declaration sent to
// another nova process: numbers in Default and Values read back as
// float64, which every use of them accepts).
func (p *Param) UnmarshalJSON(data []byte) error {
	type plain Param
	return json.Unmarshal(data, (*plain)(p))
}

// Kind returns the type, string when unset.
func (p Param) Kind() Type { return cmp.Or(p.Type, String) }

// IsRequired reports whether a value must be given: required: true, or no
// required key and no default.
func (p Param) IsRequired() bool {
	if p.Required != nil {
		return *p.Required && p.Default == nil
	}
	return p.Default == nil
}

// Question is what a terminal asks for the parameter.
func (p Param) Question() string {
	q := cmp.Or(strings.TrimSpace(p.Prompt), strings.TrimSpace(p.Description), p.Name)
	if p.Kind() == Enum && len(p.Values) > 0 {
		q += " (" + strings.Join(p.ValueStrings(), ", ") + ")"
	}
	return q
}

// ValueStrings returns the enum values as text.
func (p Param) ValueStrings() []string {
	out := make([]string, len(p.Values))
	for i, v := range p.Values {
		out[i] = text(v)
	}
	return out
}

// Error is a bad parameter (or a bad parameter declaration).
type Error struct {
	Param string
	Msg   string
}

func (e *Error) Error() string { return fmt.Sprintf("parameter %q: %s", e.Param, e.Msg) }

// Unwrap makes errors.Is(err, ErrUsage) hold.
func (e *Error) Unwrap() error { return ErrUsage }

func bad(name, format string, args ...any) *Error {
	return &Error{Param: name, Msg: fmt.Sprintf(format, args...)}
}

var namePattern = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// ValidName reports whether s may name a parameter (or a workflow step):
// letters, digits and underscores, not starting with a digit, so that a
// template can write {{ s }} and {{ s.output }}.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// Check validates declarations: names, types, enum values, bounds and
// defaults. It returns one problem per entry with its index.
func Check(ps []Param) []IndexedError {
	var out []IndexedError
	add := func(i int, field, format string, args ...any) {
		out = append(out, IndexedError{Index: i, Field: field, Err: bad(ps[i].Name, format, args...)})
	}
	seen := map[string]bool{}
	for i, p := range ps {
		switch {
		case p.Name == "":
			add(i, "name", "a parameter needs a name")
		case !ValidName(p.Name):
			add(i, "name", "%q must be letters, digits and underscores, not starting with a digit (templates read it as {{ %s }})", p.Name, strings.ReplaceAll(p.Name, "-", "_"))
		case seen[p.Name]:
			add(i, "name", "declared twice")
		}
		seen[p.Name] = true
		if !slices.Contains(Types, p.Kind()) {
			add(i, "type", "unknown type %q (want string, integer, number, boolean or enum)", p.Type)
			continue
		}
		switch {
		case p.Kind() == Enum && len(p.Values) == 0:
			add(i, "values", "an enum needs its allowed values")
		case p.Kind() != Enum && len(p.Values) > 0:
			add(i, "values", "only an enum has allowed values (type is %s)", p.Kind())
		}
		vs := map[string]bool{}
		for _, v := range p.Values {
			switch v.(type) {
			case string, int, int64, uint64, float64, bool:
			default:
				add(i, "values", "allowed values must be text, numbers or booleans")
			}
			if vs[text(v)] {
				add(i, "values", "%q is listed twice", text(v))
			}
			vs[text(v)] = true
		}
		numeric := p.Kind() == Integer || p.Kind() == Number
		if (p.Min != nil || p.Max != nil) && !numeric {
			add(i, "min", "min and max apply to integer and number parameters only")
		}
		if p.Min != nil && p.Max != nil && *p.Min > *p.Max {
			add(i, "min", "min %v is above max %v", *p.Min, *p.Max)
		}
		if p.Kind() == Integer {
			for _, b := range []*float64{p.Min, p.Max} {
				if b != nil && *b != math.Trunc(*b) {
					add(i, "min", "the bounds of an integer must be whole numbers, got %v", *b)
				}
			}
		}
		if p.Default != nil {
			if _, err := p.Convert(p.Default); err != nil {
				var pe *Error
				if errors.As(err, &pe) {
					add(i, "default", "default %s", pe.Msg)
				}
			}
		}
		if p.Required != nil && *p.Required && p.Default != nil {
			add(i, "required", "a required parameter cannot have a default")
		}
	}
	return out
}

// IndexedError is a problem with the declaration at Index.
type IndexedError struct {
	Index int
	Field string // "name", "type", "values", "min", "default", "required"
	Err   error
}

// Convert turns a value (typed, or text from the command line) into the
// parameter's type, checking the bounds and the allowed values. Integers
// come back as int, numbers as float64, booleans as bool, strings and
// enum values as given in the declaration.
func (p Param) Convert(v any) (any, error) {
	switch p.Kind() {
	case String:
		s, ok := v.(string)
		if !ok {
			if v == nil {
				return nil, bad(p.Name, "needs a text value")
			}
			s = text(v)
		}
		if len(s) > MaxValue {
			return nil, bad(p.Name, "value is %d bytes, longer than %d", len(s), MaxValue)
		}
		return s, nil
	case Integer:
		var n int64
		switch x := v.(type) {
		case int:
			n = int64(x)
		case int64:
			n = x
		case uint64:
			if x > math.MaxInt64 {
				return nil, bad(p.Name, "%d is too large", x)
			}
			n = int64(x)
		case float64:
			if x != math.Trunc(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<53 {
				return nil, bad(p.Name, "%v is not a whole number", x)
			}
			n = int64(x)
		case string:
			i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
			if err != nil {
				return nil, bad(p.Name, "%q is not a whole number", x)
			}
			n = i
		default:
			return nil, bad(p.Name, "%s is not a whole number", describe(v))
		}
		if err := p.inRange(float64(n), strconv.FormatInt(n, 10)); err != nil {
			return nil, err
		}
		if n > math.MaxInt || n < math.MinInt {
			return nil, bad(p.Name, "%d does not fit", n)
		}
		return int(n), nil
	case Number:
		var f float64
		switch x := v.(type) {
		case int:
			f = float64(x)
		case int64:
			f = float64(x)
		case uint64:
			f = float64(x)
		case float64:
			f = x
		case string:
			g, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return nil, bad(p.Name, "%q is not a number", x)
			}
			f = g
		default:
			return nil, bad(p.Name, "%s is not a number", describe(v))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, bad(p.Name, "%v is not a finite number", f)
		}
		if err := p.inRange(f, strconv.FormatFloat(f, 'g', -1, 64)); err != nil {
			return nil, err
		}
		return f, nil
	case Boolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "true", "yes", "y", "on", "1":
				return true, nil
			case "false", "no", "n", "off", "0":
				return false, nil
			}
			return nil, bad(p.Name, "%q is not true or false", x)
		}
		return nil, bad(p.Name, "%s is not true or false", describe(v))
	case Enum:
		got := text(v)
		for _, allowed := range p.Values {
			if text(allowed) == got {
				return allowed, nil
			}
		}
		return nil, bad(p.Name, "%q is not one of %s", got, strings.Join(p.ValueStrings(), ", "))
	}
	return nil, bad(p.Name, "unknown type %q", p.Type)
}

func (p Param) inRange(f float64, shown string) error {
	if p.Min != nil && f < *p.Min {
		return bad(p.Name, "%s is below the minimum %v", shown, *p.Min)
	}
	if p.Max != nil && f > *p.Max {
		return bad(p.Name, "%s is above the maximum %v", shown, *p.Max)
	}
	return nil
}

// Resolve checks given values against the declarations and returns every
// parameter's value: the given one converted, else the default, else (for
// an optional parameter) the type's zero value. Unknown names and missing
// required values are errors naming the parameter; the first problem in
// declaration order is returned.
func Resolve(ps []Param, given map[string]any) (map[string]any, error) {
	byName := map[string]Param{}
	for _, p := range ps {
		byName[p.Name] = p
	}
	var unknown []string
	for k := range given {
		if _, ok := byName[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		known := make([]string, 0, len(ps))
		for _, p := range ps {
			known = append(known, p.Name)
		}
		msg := "unknown parameter"
		if len(known) > 0 {
			msg += " (known: " + strings.Join(known, ", ") + ")"
		} else {
			msg += " (this takes no parameters)"
		}
		return nil, bad(unknown[0], "%s", msg)
	}
	out := make(map[string]any, len(ps))
	for _, p := range ps {
		v, ok := given[p.Name]
		switch {
		case ok:
			c, err := p.Convert(v)
			if err != nil {
				return nil, err
			}
			out[p.Name] = c
		case p.Default != nil:
			c, err := p.Convert(p.Default)
			if err != nil {
				return nil, bad(p.Name, "default %v", err)
			}
			out[p.Name] = c
		case p.IsRequired():
			return nil, bad(p.Name, "is required and has no default (%s)", p.Question())
		default:
			out[p.Name] = zero(p.Kind())
		}
	}
	return out, nil
}

// Missing lists the required parameters given lacks, in declaration order
// (what a terminal asks for before running).
func Missing(ps []Param, given map[string]any) []Param {
	var out []Param
	for _, p := range ps {
		if _, ok := given[p.Name]; !ok && p.IsRequired() {
			out = append(out, p)
		}
	}
	return out
}

// ParseAssignments parses "k=v" pairs (--set/--input/--param flags). A key
// given twice is an error.
func ParseAssignments(pairs []string) (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, &Error{Param: k, Msg: fmt.Sprintf("%q: want name=value", kv)}
		}
		if _, dup := out[k]; dup {
			return nil, bad(k, "given twice")
		}
		out[k] = v
	}
	return out, nil
}

func zero(t Type) any {
	switch t {
	case Integer:
		return 0
	case Number:
		return 0.0
	case Boolean:
		return false
	}
	return ""
}

// text renders a scalar the way a user types it.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func describe(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case nil:
		return "an empty value"
	}
	return fmt.Sprintf("%q", text(v))
}
