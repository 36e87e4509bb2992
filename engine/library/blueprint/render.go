package blueprint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/engine/library/params"
	"github.com/nova-dev/nova/engine/library/tmpl"
	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/internal/lazyre"
)

// MetaKey is the meta field a rendered PRD carries its provenance in:
// {"name": …, "version": n, "parameters": {…}}. A build of that PRD,
// however it was started, counts as a use of the blueprint.
const MetaKey = "blueprint"

// Provenance is what MetaKey holds.
type Provenance struct {
	Name       string         `json:"name"`
	Version    int            `json:"version"`
	Parameters map[string]any `json:"parameters"`
}

// ProvenanceOf reads a PRD's blueprint provenance (ok false when it has
// none).
func ProvenanceOf(p *prd.PRD) (Provenance, bool) {
	if p == nil {
		return Provenance{}, false
	}
	raw, ok := p.Meta.Extra[MetaKey]
	if !ok {
		return Provenance{}, false
	}
	var pv Provenance
	if err := json.Unmarshal(raw, &pv); err != nil || pv.Name == "" {
		return Provenance{}, false
	}
	return pv, true
}

// Rendered is a PRD made from a blueprint.
type Rendered struct {
	PRD *prd.PRD
	// Values are the parameters as used (given, else defaults), typed.
	Values map[string]any
	// JSON is the PRD as written to a file (indented, newline-terminated).
	JSON []byte
}

// RenderOptions configures Render.
type RenderOptions struct {
	// Version is recorded in the provenance (0: not recorded as stored).
	Version int
	// KnownAgents checks the tasks' agents (nil: no check).
	KnownAgents func(string) bool
}

// Render validates values against the parameters, renders the PRD
// template and returns the PRD, parsed and validated. A bad parameter is
// an error wrapping params.ErrUsage and naming it; a template or PRD
// problem wraps ErrRender and names the field.
func Render(ctx context.Context, s Spec, given map[string]any, opts RenderOptions) (Rendered, error) {
	values, err := params.Resolve(s.Parameters, given)
	if err != nil {
		return Rendered{}, err
	}
	types := map[string]params.Type{}
	for _, p := range s.Parameters {
		types[p.Name] = p.Kind()
	}
	r := renderer{ctx: ctx, values: values, types: types}
	tree, err := r.node(s.PRD, "prd", kindAny)
	if err != nil {
		return Rendered{}, err
	}
	top, ok := tree.(map[string]any)
	if !ok {
		return Rendered{}, fmt.Errorf("%w: prd: must be a mapping with meta and tasks", ErrRender)
	}
	meta, _ := top["meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		top["meta"] = meta
	}
	if _, ok := meta["name"]; !ok {
		meta["name"] = s.Name
	}
	meta[MetaKey] = Provenance{Name: s.Name, Version: opts.Version, Parameters: values}
	raw, err := json.Marshal(top)
	if err != nil {
		return Rendered{}, fmt.Errorf("%w: encode the PRD: %w", ErrRender, err)
	}
	p, err := prd.Parse("blueprint "+s.Name+".json", raw)
	if err != nil {
		return Rendered{}, fmt.Errorf("%w: the rendered PRD does not parse: %w", ErrRender, err)
	}
	for i := range p.Tasks {
		if p.Tasks[i].Status == "" {
			p.Tasks[i].Status = prd.StatusPending
		}
	}
	if err := prd.Validate(p, opts.KnownAgents); err != nil {
		return Rendered{}, fmt.Errorf("%w: %w", ErrRender, err)
	}
	out, err := p.Marshal()
	if err != nil {
		return Rendered{}, fmt.Errorf("%w: %w", ErrRender, err)
	}
	return Rendered{PRD: p, Values: values, JSON: out}, nil
}

// Sample renders with every parameter's default, or a stand-in for a
// parameter without one (its minimum, the first allowed value, "sample"),
// so that `blueprint add` can check the template renders to a valid PRD.
func Sample(ctx context.Context, s Spec, known func(string) bool) error {
	given := map[string]any{}
	for _, p := range s.Parameters {
		if p.Default != nil {
			continue
		}
		switch p.Kind() {
		case params.Integer, params.Number:
			v := 1.0
			if p.Min != nil {
				v = *p.Min
			} else if p.Max != nil && *p.Max < 1 {
				v = *p.Max
			}
			given[p.Name] = v
		case params.Boolean:
			given[p.Name] = false
		case params.Enum:
			if len(p.Values) > 0 {
				given[p.Name] = p.Values[0]
			}
		default:
			given[p.Name] = "sample"
		}
	}
	_, err := Render(ctx, s, given, RenderOptions{KnownAgents: known})
	return err
}

// fieldKind is what the PRD schema expects at a path.
type fieldKind int

const (
	kindAny    fieldKind = iota // an extra field: text, or a whole typed parameter
	kindString                  // a string field of the PRD schema
	kindInt                     // phase, attempts
)

// kindOf returns the schema kind of a child field.
func kindOf(parent string, key string) fieldKind {
	switch {
	case parent == "prd.meta":
		switch key {
		case "name", "version", "createdAt":
			return kindString
		}
	case strings.HasPrefix(parent, "prd.tasks[") && !strings.Contains(strings.TrimPrefix(parent, "prd.tasks["), "."):
		switch key {
		case "id", "title", "description", "agent", "status", "createdAt", "output", "error":
			return kindString
		case "phase", "attempts":
			return kindInt
		}
	}
	return kindAny
}

var wholeRef = lazyre.New(`^\s*\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)\s*-?\}\}\s*$`)

type renderer struct {
	ctx    context.Context
	values map[string]any
	types  map[string]params.Type
}

func (r renderer) node(v any, field string, kind fieldKind) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) {
			c, err := r.node(x[k], field+"."+k, kindOf(field, k))
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		elem := kindAny
		if strings.HasSuffix(field, ".dependencies") && strings.HasPrefix(field, "prd.tasks[") {
			elem = kindString
		}
		for i, e := range x {
			c, err := r.node(e, fmt.Sprintf("%s[%d]", field, i), elem)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case string:
		return r.str(x, field, kind)
	}
	return v, nil
}

func (r renderer) str(s, field string, kind fieldKind) (any, error) {
	if !tmpl.Has(s) {
		if kind == kindInt {
			return toInt(s, s, field)
		}
		return s, nil
	}
	if m := wholeRef.FindStringSubmatch(s); m != nil && kind != kindString {
		if v, ok := r.values[m[1]]; ok {
			switch r.types[m[1]] {
			case params.Integer, params.Number, params.Boolean:
				if kind == kindInt {
					return toInt(v, s, field)
				}
				return v, nil
			}
		}
	}
	out, err := tmpl.Render(r.ctx, s, r.values)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrRender, field, err)
	}
	if kind == kindInt {
		return toInt(out, s, field)
	}
	return out, nil
}

// toInt turns a rendered phase or attempts into a whole number.
func toInt(v any, src, field string) (any, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), nil
		}
	case string:
		t := strings.TrimSpace(x)
		if n, err := strconv.Atoi(t); err == nil {
			return n, nil
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int(f), nil
		}
	}
	return nil, fmt.Errorf("%w: %s: %q rendered to %q, which is not a whole number", ErrRender, field, src, fmt.Sprint(v))
}
