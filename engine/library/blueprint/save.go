package blueprint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/tmpl"
	"github.com/nova-dev/nova/engine/prd"
)

// ParamDecl is a --param k=type:default flag of `blueprint save`.
type ParamDecl struct {
	Name    string
	Type    params.Type
	Values  []any // enum
	Default string
	// HasDefault is false for "k=type" (a required parameter).
	HasDefault bool
}

// ParseParamDecl parses "k=type:default", "k=type", "k=default" (a string)
// and "k=enum[a|b|c]:b". A value whose part before ":" is not a type is a
// string default as a whole ("url=http://x").
func ParseParamDecl(s string) (ParamDecl, error) {
	name, rest, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return ParamDecl{}, &params.Error{Param: name, Msg: fmt.Sprintf("%q: want name=type:default, e.g. route=string:/health", s)}
	}
	if !params.ValidName(name) {
		return ParamDecl{}, &params.Error{Param: name, Msg: "a parameter name is letters, digits and underscores, not starting with a digit"}
	}
	d := ParamDecl{Name: name, Type: params.String}
	head, def, hasColon := strings.Cut(rest, ":")
	typ, values, isType := parseTypeName(head)
	switch {
	case isType && hasColon:
		d.Type, d.Values, d.Default, d.HasDefault = typ, values, def, true
	case isType:
		d.Type, d.Values = typ, values
	default:
		d.Default, d.HasDefault = rest, true
	}
	if d.HasDefault && d.Default == "" {
		return ParamDecl{}, &params.Error{Param: name, Msg: "an empty default cannot be found in the PRD; give the value the build used"}
	}
	return d, nil
}

func parseTypeName(s string) (params.Type, []any, bool) {
	s = strings.TrimSpace(s)
	if inner, ok := strings.CutPrefix(s, "enum["); ok && strings.HasSuffix(inner, "]") {
		var vals []any
		for _, v := range strings.Split(strings.TrimSuffix(inner, "]"), "|") {
			if v = strings.TrimSpace(v); v != "" {
				vals = append(vals, v)
			}
		}
		return params.Enum, vals, true
	}
	t := params.Type(s)
	if slices.Contains(params.Types, t) && t != params.Enum {
		return t, nil, true
	}
	return "", nil, false
}

// SaveResult is a spec made from a PRD.
type SaveResult struct {
	Spec Spec `json:"spec"`
	// Replaced counts, per parameter, the values replaced by its
	// placeholder.
	Replaced map[string]int `json:"replaced"`
	// Warnings say what will not work as the user may expect (a default
	// found nowhere in the PRD).
	Warnings []string `json:"warnings,omitempty"`
}

// FromPRD turns a PRD (a finished build's plan) into a blueprint spec:
// every task starts again (status pending, attempts 0, no output or error),
// provenance from an earlier blueprint is dropped, and each string value
// of the PRD that equals a parameter's default as a whole is replaced by
// the parameter's placeholder ({{ name }}); substrings are never replaced.
// Text that happens to look like a template is escaped, so it renders back
// to itself.
func FromPRD(name, description string, p *prd.PRD, decls []ParamDecl) (SaveResult, error) {
	if !ValidName(name) {
		return SaveResult{}, fmt.Errorf("blueprint name %q: use lower-case letters, digits and dashes (e.g. http-endpoint)", name)
	}
	if p == nil || len(p.Tasks) == 0 {
		return SaveResult{}, fmt.Errorf("blueprint %s: the build's PRD has no tasks", name)
	}
	cp := *p
	cp.Tasks = slices.Clone(p.Tasks)
	for i := range cp.Tasks {
		t := &cp.Tasks[i]
		t.Status, t.Attempts, t.Output, t.Error = prd.StatusPending, 0, "", ""
	}
	if cp.Meta.Extra != nil {
		extra := map[string]json.RawMessage{}
		for k, v := range cp.Meta.Extra {
			if k != MetaKey {
				extra[k] = v
			}
		}
		cp.Meta.Extra = extra
	}
	raw, err := cp.Marshal()
	if err != nil {
		return SaveResult{}, err
	}
	tree, err := decodeJSON(raw)
	if err != nil {
		return SaveResult{}, fmt.Errorf("blueprint %s: %w", name, err)
	}
	res := SaveResult{Replaced: map[string]int{}}
	var ps []params.Param
	byDefault := map[string]string{}
	for _, d := range decls {
		if slices.ContainsFunc(ps, func(p params.Param) bool { return p.Name == d.Name }) {
			return SaveResult{}, &params.Error{Param: d.Name, Msg: "given twice"}
		}
		p := params.Param{Name: d.Name, Type: d.Type, Values: d.Values}
		if d.HasDefault {
			p.Default = d.Default
			v, err := p.Convert(d.Default)
			if err != nil {
				return SaveResult{}, err
			}
			p.Default = v
			if other, dup := byDefault[d.Default]; dup {
				return SaveResult{}, &params.Error{Param: d.Name, Msg: fmt.Sprintf("has the same default as %s; the PRD's values could not tell them apart", other)}
			}
			byDefault[d.Default] = d.Name
		}
		ps = append(ps, p)
		res.Replaced[d.Name] = 0
	}
	tree = replace(tree, "prd", byDefault, res.Replaced)
	for _, d := range decls {
		if d.HasDefault && res.Replaced[d.Name] == 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("parameter %s: no value of the PRD is exactly %q, so changing it changes nothing", d.Name, d.Default))
		}
	}
	res.Spec = Spec{Name: name, Description: description, Parameters: ps, PRD: normalizeNumbers(tree)}
	if errs := Validate(res.Spec); len(errs) > 0 {
		return SaveResult{}, fmt.Errorf("blueprint %s: %w: %s", name, ErrInvalid, errs[0].Error())
	}
	return res, nil
}

func replace(v any, field string, byDefault map[string]string, counts map[string]int) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = replace(e, field+"."+k, byDefault, counts)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = replace(e, field, byDefault, counts)
		}
		return x
	case string:
		if name, ok := byDefault[x]; ok {
			counts[name]++
			return "{{ " + name + " }}"
		}
		if tmpl.Has(x) {
			return Escape(x)
		}
		return x
	}
	return v
}

// normalizeNumbers turns json.Number into int64 or float64.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	}
	return v
}

// Escape returns a template that renders to s exactly: every "{" is
// written as {{ '{' }}, so nothing in s starts a tag.
func Escape(s string) string {
	return strings.ReplaceAll(s, "{", "{{ '{' }}")
}
