package rpc

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// The servability rules. A value crosses the wire when JSON carries all of
// its state both ways. rpcgen applies the same rules to go/types (see
// engine/rpc/gen/servable.go); a test checks both agree on every method of
// engine.Workspace and of the demo interface.
//
//   - bool, integers (not uintptr), floats, string;
//   - a type implementing json.Marshaler and json.Unmarshaler (on T or *T),
//     or encoding.TextMarshaler and encoding.TextUnmarshaler (time.Time…);
//     a type with only one half of a pair is not servable (it would be
//     written one way and read another);
//   - pointers, slices, arrays of servable types;
//   - maps whose key is a string, an integer or a TextMarshaler, with a
//     servable element, or with an any element: a decoded JSON or YAML
//     document (front matter, template parameters) whose values are plain
//     JSON values; they arrive as JSON decodes them (numbers as float64,
//     objects as map[string]any), so put nothing else in one;
//   - structs whose fields are all exported and servable, except fields
//     tagged json:"-" (left out on the wire). A struct with an unexported
//     field is not servable: its state would be lost silently.
//
// Interfaces (any, error), funcs, chans, complex numbers and unsafe
// pointers are not servable.
//
// A method is servable when its parameters are an optional leading
// context.Context followed by servable values, and its results are either
// servable values optionally followed by an error, or a receive channel of
// a servable element optionally followed by an error (a stream, which
// needs the ctx to end).

var (
	ctxType              = reflect.TypeFor[context.Context]()
	jsonMarshalerType    = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType  = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType    = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType  = reflect.TypeFor[encoding.TextUnmarshaler]()
	errNotServableFormat = "%s: %s"
)

// Servable reports why t cannot cross the wire, or nil when it can.
func Servable(t reflect.Type) error {
	return servable(t, map[reflect.Type]bool{})
}

// implementsBoth: *T's method set holds T's, so checking *T covers both
// receivers.
func implementsBoth(t, a, b reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(a) && pt.Implements(b)
}

func implementsOne(t, a, b reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(a) != pt.Implements(b)
}

// marshalling judges a type by its marshalling methods: ok when it
// encodes and decodes itself, an error when it has only half a pair,
// neither when it has none.
func marshalling(t reflect.Type) (ok bool, err error) {
	if t.Kind() == reflect.Interface {
		return false, nil
	}
	switch {
	case implementsBoth(t, jsonMarshalerType, jsonUnmarshalerType):
		return true, nil
	case implementsOne(t, jsonMarshalerType, jsonUnmarshalerType):
		return false, fmt.Errorf(errNotServableFormat, t, "has only one of MarshalJSON and UnmarshalJSON")
	case implementsBoth(t, textMarshalerType, textUnmarshalerType):
		return true, nil
	case implementsOne(t, textMarshalerType, textUnmarshalerType):
		return false, fmt.Errorf(errNotServableFormat, t, "has only one of MarshalText and UnmarshalText")
	}
	return false, nil
}

func servable(t reflect.Type, visiting map[reflect.Type]bool) error {
	if visiting[t] {
		return nil // recursive type: judged by its other parts
	}
	if ok, err := marshalling(t); ok || err != nil {
		return err
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return nil
	case reflect.Pointer, reflect.Slice, reflect.Array:
		visiting[t] = true
		defer delete(visiting, t)
		return servable(t.Elem(), visiting)
	case reflect.Map:
		k := t.Key()
		switch k.Kind() {
		case reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			if !implementsBoth(k, textMarshalerType, textUnmarshalerType) {
				return fmt.Errorf(errNotServableFormat, t, "map key is not a string, an integer or a TextMarshaler")
			}
		}
		if e := t.Elem(); e.Kind() == reflect.Interface && e.NumMethod() == 0 {
			return nil // a decoded JSON/YAML document: see the rules above
		}
		visiting[t] = true
		defer delete(visiting, t)
		return servable(t.Elem(), visiting)
	case reflect.Struct:
		visiting[t] = true
		defer delete(visiting, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Tag.Get("json") == "-" {
				continue
			}
			if !f.IsExported() {
				if f.Name == "_" {
					continue
				}
				return fmt.Errorf(errNotServableFormat, t, "unexported field "+f.Name)
			}
			if err := servable(f.Type, visiting); err != nil {
				return fmt.Errorf("%s.%s: %w", t, f.Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf(errNotServableFormat, t, strings.ToLower(t.Kind().String())+" cannot cross the wire")
}

// methodSpec is one servable method.
type methodSpec struct {
	name     string
	fn       reflect.Value // bound method value
	hasCtx   bool
	args     []reflect.Type // after ctx; the last is a slice when variadic
	variadic bool
	results  []reflect.Type // before the error
	hasErr   bool
	stream   bool         // results[0] is a receive channel
	elem     reflect.Type // the stream's element
}

// inspect classifies a method of an interface type (m.Type has no receiver).
func inspect(m reflect.Method) (*methodSpec, error) {
	ft := m.Type
	spec := &methodSpec{name: m.Name, variadic: ft.IsVariadic()}
	for i := range ft.NumIn() {
		in := ft.In(i)
		if i == 0 && in == ctxType {
			spec.hasCtx = true
			continue
		}
		if err := Servable(in); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
		spec.args = append(spec.args, in)
	}
	n := ft.NumOut()
	if n > 0 && ft.Out(n-1) == errorType {
		spec.hasErr = true
		n--
	}
	for i := range n {
		out := ft.Out(i)
		if out.Kind() == reflect.Chan {
			if i != 0 || n != 1 || out.ChanDir() != reflect.RecvDir {
				return nil, fmt.Errorf("result %d: a stream must be the only result besides the error, and receive-only", i+1)
			}
			if !spec.hasCtx {
				return nil, fmt.Errorf("result %d: a stream needs a ctx to end it", i+1)
			}
			if err := Servable(out.Elem()); err != nil {
				return nil, fmt.Errorf("stream element: %w", err)
			}
			spec.stream, spec.elem = true, out.Elem()
			spec.results = append(spec.results, out)
			continue
		}
		if err := Servable(out); err != nil {
			return nil, fmt.Errorf("result %d: %w", i+1, err)
		}
		spec.results = append(spec.results, out)
	}
	return spec, nil
}

func (s *methodSpec) info() MethodInfo {
	mi := MethodInfo{Name: s.name, Stream: s.stream, Context: s.hasCtx, Args: []string{}, Results: []string{}}
	for _, a := range s.args {
		mi.Args = append(mi.Args, a.String())
	}
	if s.variadic && len(mi.Args) > 0 {
		mi.Args[len(mi.Args)-1] = "..." + s.args[len(s.args)-1].Elem().String()
	}
	for _, r := range s.results {
		mi.Results = append(mi.Results, r.String())
	}
	if s.hasErr {
		mi.Results = append(mi.Results, "error")
	}
	return mi
}
