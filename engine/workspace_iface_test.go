package engine_test

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/rpc"
)

var (
	ctxType   = reflect.TypeFor[context.Context]()
	errorType = reflect.TypeFor[error]()
	timeType  = reflect.TypeFor[time.Time]()
	marshaler = reflect.TypeFor[json.Marshaler]()
)

// secrets lists exported fields hidden from JSON on purpose: they stay in
// the process that owns the workspace and are never sent to a client.
var secrets = map[string]bool{
	"workspace.Context7Config.APIKey": true, // docs.context7.apiKey: used by the owner's docs fetcher only
	"workspace.ProviderConfig.APIKey": true, // providers.NAME.apiKey: sent by the owner to that provider only
}

// noCtx are the methods that do no I/O (documented as such).
var noCtx = map[string]bool{"Info": true, "Config": true, "Close": true}

// TestWorkspaceIsServable enforces the rules that let a generated client
// forward every verb over a socket: ctx first, plain JSON-serialisable
// values in and out, error last, at most one other result, Subscribe the
// only stream.
func TestWorkspaceIsServable(t *testing.T) {
	t.Parallel()
	it := reflect.TypeFor[engine.Workspace]()
	require.Greater(t, it.NumMethod(), 50)
	for i := range it.NumMethod() {
		m := it.Method(i)
		ft := m.Type
		t.Run(m.Name, func(t *testing.T) {
			if !noCtx[m.Name] {
				require.GreaterOrEqual(t, ft.NumIn(), 1, "ctx first")
				assert.Equal(t, ctxType, ft.In(0), "ctx first")
			}
			for j := range ft.NumIn() {
				in := ft.In(j)
				if in == ctxType {
					assert.Zero(t, j, "ctx only first")
					continue
				}
				assertPlain(t, in, m.Name+" arg", map[reflect.Type]bool{})
			}
			switch m.Name {
			case "Subscribe":
				require.Equal(t, 1, ft.NumOut())
				assert.Equal(t, reflect.TypeFor[<-chan engine.Event](), ft.Out(0))
				assertPlain(t, reflect.TypeFor[engine.Event](), "Event", map[reflect.Type]bool{})
				return
			case "Info", "Config":
				require.Equal(t, 1, ft.NumOut())
				assertPlain(t, ft.Out(0), m.Name, map[reflect.Type]bool{})
				return
			}
			require.GreaterOrEqual(t, ft.NumOut(), 1)
			require.LessOrEqual(t, ft.NumOut(), 2, "at most one result beside the error")
			assert.Equal(t, errorType, ft.Out(ft.NumOut()-1), "error last")
			if ft.NumOut() == 2 {
				assertPlain(t, ft.Out(0), m.Name+" result", map[reflect.Type]bool{})
			}
		})
	}
}

// assertPlain fails for a type that does not survive a JSON round trip
// unchanged: funcs, channels, interfaces (bar map[string]any values), and
// exported fields hidden from JSON.
func assertPlain(t *testing.T, typ reflect.Type, path string, seen map[reflect.Type]bool) {
	t.Helper()
	if seen[typ] {
		return
	}
	seen[typ] = true
	if typ == timeType || typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(marshaler) {
		// It defines its own wire form (prd keeps unknown fields that way),
		// which the socket's own rules check: both halves, no lost fields.
		assert.NoError(t, rpc.Servable(typ), path)
		return
	}
	switch typ.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return
	case reflect.Pointer, reflect.Slice, reflect.Array:
		assertPlain(t, typ.Elem(), path+"[]", seen)
	case reflect.Map:
		k := typ.Key().Kind()
		assert.True(t, k == reflect.String || (k >= reflect.Int && k <= reflect.Uint64), "%s: map key %s", path, typ.Key())
		if typ.Elem().Kind() == reflect.Interface && typ.Elem().NumMethod() == 0 {
			return // decoded JSON/YAML documents (front matter)
		}
		assertPlain(t, typ.Elem(), path+"{}", seen)
	case reflect.Struct:
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				assert.Fail(t, "unexported field", "%s.%s (%s) is not serialised", path, f.Name, typ)
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" && secrets[typ.String()+"."+f.Name] {
				continue
			}
			assert.NotEqual(t, "-", tag, "%s.%s (%s) is hidden from JSON: it would be lost in transit", path, f.Name, typ)
			assertPlain(t, f.Type, path+"."+f.Name, seen)
		}
	default:
		assert.Fail(t, "not plain data", "%s: %s (%s)", path, typ, typ.Kind())
	}
}

// TestWorkspaceMethodsDocumented: the generator of the remote client (and
// people) read the interface files; Workspace only embeds area interfaces,
// each declared in its own engine/area_<area>.go, and every verb has a doc
// comment starting with its name.
func TestWorkspaceMethodsDocumented(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	ifaces := map[string]*ast.InterfaceType{} // interface name → declaration
	declaredIn := map[string]string{}         // interface name → file
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					ifaces[ts.Name.Name] = it
					declaredIn[ts.Name.Name] = name
				}
			}
			return true
		})
	}
	ws, ok := ifaces["Workspace"]
	require.True(t, ok)
	documented := map[string]bool{}
	for _, field := range ws.Methods.List {
		id, ok := field.Type.(*ast.Ident)
		require.True(t, ok && len(field.Names) == 0, "Workspace embeds area interfaces only")
		area := id.Name
		require.True(t, strings.HasSuffix(area, "Verbs"), "%s: an area interface is named <Area>Verbs", area)
		it := ifaces[area]
		require.NotNil(t, it, area)
		assert.True(t, strings.HasPrefix(declaredIn[area], "area_"), "%s is declared in %s, not in its area file", area, declaredIn[area])
		for _, m := range it.Methods.List {
			require.NotEmpty(t, m.Names, "%s embeds nothing", area)
			name := m.Names[0].Name
			doc := ""
			if m.Doc != nil {
				doc = m.Doc.Text()
			}
			assert.True(t, strings.HasPrefix(doc, name+" "), "%s.%s needs a doc comment starting with its name", area, name)
			documented[name] = true
		}
	}
	it := reflect.TypeFor[engine.Workspace]()
	for i := range it.NumMethod() {
		assert.True(t, documented[it.Method(i).Name], "%s is not declared in an area interface", it.Method(i).Name)
	}
}

// TestAreaVerbsDocumented: the verbs an area declares in its own file
// (engine/area_<area>.go) have doc comments starting with their names too.
func TestAreaVerbsDocumented(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("area_*.go")
	require.NoError(t, err)
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !strings.HasSuffix(ts.Name.Name, "Verbs") {
				return true
			}
			for _, m := range ts.Type.(*ast.InterfaceType).Methods.List {
				if len(m.Names) == 0 {
					continue
				}
				name := m.Names[0].Name
				doc := ""
				if m.Doc != nil {
					doc = m.Doc.Text()
				}
				assert.True(t, strings.HasPrefix(doc, name+" "), "%s: %s needs a doc comment starting with its name", file, name)
			}
			return false
		})
	}
}

// TestEventsCrossAProcessBoundary: an event survives JSON unchanged.
func TestEventsCrossAProcessBoundary(t *testing.T) {
	t.Parallel()
	for _, topic := range engine.Topics() {
		ev := engine.Event{Type: engine.EventLog, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Topic: topic,
			BuildID: "1", TaskID: "t", RunID: "2", Op: "op", Status: "s", Text: "x", Done: 1, Total: 2}
		data, err := json.Marshal(ev)
		require.NoError(t, err)
		var back engine.Event
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, ev, back)
	}
}
