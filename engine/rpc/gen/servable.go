package gen

import (
	"fmt"
	"go/types"
	"reflect"
	"strings"
)

// The servability rules of engine/rpc (servable.go there), applied to
// go/types. Keep both in step: TestGeneratorAgreesWithServer checks that
// the generator and the server serve the same methods of the same
// interfaces.

func hasMethods(t types.Type, names ...string) bool {
	ms := types.NewMethodSet(types.NewPointer(t))
	for _, n := range names {
		if ms.Lookup(nil, n) == nil {
			// Lookup with a nil package finds exported names only.
			return false
		}
	}
	return true
}

// marshalling mirrors rpc's: ok when t encodes and decodes itself, an
// error when it has only half a pair.
func marshalling(t types.Type) (bool, error) {
	if _, ok := t.Underlying().(*types.Interface); ok {
		return false, nil
	}
	for _, pair := range [][2]string{{"MarshalJSON", "UnmarshalJSON"}, {"MarshalText", "UnmarshalText"}} {
		m, u := hasMethods(t, pair[0]), hasMethods(t, pair[1])
		if m && u {
			return true, nil
		}
		if m != u {
			return false, fmt.Errorf("%s: has only one of %s and %s", tstr(t), pair[0], pair[1])
		}
	}
	return false, nil
}

func servable(t types.Type) error { return servableIn(t, map[types.Type]bool{}) }

// tstr names a type with package names only, for messages.
func tstr(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

func servableIn(t types.Type, visiting map[types.Type]bool) error {
	t = types.Unalias(t)
	if visiting[t] {
		return nil
	}
	if _, isParam := t.(*types.TypeParam); isParam {
		return fmt.Errorf("%s: type parameters cannot cross the wire", tstr(t))
	}
	if ok, err := marshalling(t); ok || err != nil {
		return err
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch u.Kind() {
		case types.Bool, types.String,
			types.Int, types.Int8, types.Int16, types.Int32, types.Int64,
			types.Uint, types.Uint8, types.Uint16, types.Uint32, types.Uint64,
			types.Float32, types.Float64:
			return nil
		}
		return fmt.Errorf("%s: %s cannot cross the wire", tstr(t), u.Name())
	case *types.Pointer:
		visiting[t] = true
		defer delete(visiting, t)
		return servableIn(u.Elem(), visiting)
	case *types.Slice:
		visiting[t] = true
		defer delete(visiting, t)
		return servableIn(u.Elem(), visiting)
	case *types.Array:
		visiting[t] = true
		defer delete(visiting, t)
		return servableIn(u.Elem(), visiting)
	case *types.Map:
		k := types.Unalias(u.Key())
		okKey := false
		if b, isBasic := k.Underlying().(*types.Basic); isBasic {
			switch b.Kind() {
			case types.String,
				types.Int, types.Int8, types.Int16, types.Int32, types.Int64,
				types.Uint, types.Uint8, types.Uint16, types.Uint32, types.Uint64:
				okKey = true
			}
		}
		if !okKey && !hasMethods(k, "MarshalText", "UnmarshalText") {
			return fmt.Errorf("%s: map key is not a string, an integer or a TextMarshaler", tstr(t))
		}
		if it, ok := types.Unalias(u.Elem()).Underlying().(*types.Interface); ok && it.Empty() {
			return nil // a decoded JSON/YAML document (see rpc.Servable)
		}
		visiting[t] = true
		defer delete(visiting, t)
		return servableIn(u.Elem(), visiting)
	case *types.Struct:
		visiting[t] = true
		defer delete(visiting, t)
		for i := range u.NumFields() {
			f := u.Field(i)
			if reflect.StructTag(u.Tag(i)).Get("json") == "-" {
				continue
			}
			if !f.Exported() {
				if f.Name() == "_" {
					continue
				}
				return fmt.Errorf("%s: unexported field %s", tstr(t), f.Name())
			}
			if err := servableIn(f.Type(), visiting); err != nil {
				return fmt.Errorf("%s.%s: %w", tstr(t), f.Name(), err)
			}
		}
		return nil
	case *types.Interface:
		return fmt.Errorf("%s: interface cannot cross the wire", tstr(t))
	case *types.Signature:
		return fmt.Errorf("%s: func cannot cross the wire", tstr(t))
	case *types.Chan:
		return fmt.Errorf("%s: chan cannot cross the wire", tstr(t))
	}
	return fmt.Errorf("%s: cannot cross the wire", tstr(t))
}

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

var errorType = types.Universe.Lookup("error").Type()

func isError(t types.Type) bool { return types.Identical(t, errorType) }

// method is one method of the interface, classified.
type method struct {
	name     string
	sig      *types.Signature
	hasCtx   bool
	args     []*types.Var // after ctx
	variadic bool
	results  []types.Type // before the error
	hasErr   bool
	stream   bool
	elem     types.Type
	skip     string // why it is not served; empty when it is
}

func classify(fn *types.Func) method {
	sig := fn.Type().(*types.Signature)
	m := method{name: fn.Name(), sig: sig, variadic: sig.Variadic()}
	fail := func(format string, args ...any) method {
		m.skip = fmt.Sprintf(format, args...)
		return m
	}
	params := sig.Params()
	for i := range params.Len() {
		p := params.At(i)
		if i == 0 && isContext(p.Type()) {
			m.hasCtx = true
			continue
		}
		if err := servable(p.Type()); err != nil {
			return fail("argument %d: %v", i+1, err)
		}
		m.args = append(m.args, p)
	}
	res := sig.Results()
	n := res.Len()
	if n > 0 && isError(res.At(n-1).Type()) {
		m.hasErr = true
		n--
	}
	for i := range n {
		t := res.At(i).Type()
		if ch, ok := types.Unalias(t).Underlying().(*types.Chan); ok {
			if i != 0 || n != 1 || ch.Dir() != types.RecvOnly {
				return fail("result %d: a stream must be the only result besides the error, and receive-only", i+1)
			}
			if !m.hasCtx {
				return fail("result %d: a stream needs a ctx to end it", i+1)
			}
			if err := servable(ch.Elem()); err != nil {
				return fail("stream element: %v", err)
			}
			m.stream, m.elem = true, ch.Elem()
			m.results = append(m.results, t)
			continue
		}
		if err := servable(t); err != nil {
			return fail("result %d: %v", i+1, err)
		}
		m.results = append(m.results, t)
	}
	return m
}

// shortReason trims a reason to one line for the generated comment.
func shortReason(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
