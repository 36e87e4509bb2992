// Package yamldoc reads the library's YAML files (skills, workflows,
// blueprints): one document, a mapping at the top, every unknown key
// reported with its line, decode errors naming their field, and every
// problem as an *Error formatted "file:line: field: message" like the
// agent loader's.
//
// The depth guard is the engine's one YAML guard (engine/internal/yamlguard);
// this package adds only what these formats need on top: the 1 MiB size
// limit and no anchors or aliases (none of the formats needs them, and
// refusing them rules out "billion laughs" expansion whatever the decoder
// does). When the hardened loader (size, depth and alias caps in one call)
// lands, Parse becomes a call to it.
package yamldoc

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/nova-dev/nova/engine/internal/yamlguard"
)

// MaxSize bounds one library file.
const MaxSize = 1 << 20

// ErrInvalid is wrapped by every *Error.
var ErrInvalid = errors.New("invalid file")

// Error is one problem with one file.
type Error struct {
	File  string
	Line  int    // 1-based; 0 when unknown
	Field string // YAML path such as "steps[2].agent"; "" for the whole file
	Msg   string
	Err   error
}

// Error formats as "file:line: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap exposes ErrInvalid and the cause.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// Doc is a parsed file whose top level is a mapping.
type Doc struct {
	name   string
	body   ast.Node
	fields map[[2]int]string
}

// Parse checks and parses one file. kind names the format in messages
// ("skill", "workflow", "blueprint"). It never panics on input.
func Parse(name, kind string, data []byte) (doc *Doc, err error) {
	fail := func(line int, msg string, cause error) (*Doc, error) {
		return nil, &Error{File: name, Line: line, Msg: msg, Err: cause}
	}
	if len(data) > MaxSize {
		return fail(0, fmt.Sprintf("file is %d bytes, larger than the %d-byte limit of a %s file", len(data), MaxSize, kind), nil)
	}
	if line := yamlguard.TooDeep(data); line > 0 {
		return fail(line, fmt.Sprintf("nesting is deeper than %d levels", yamlguard.MaxNesting), nil)
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, &Error{File: name, Msg: fmt.Sprintf("YAML could not be decoded: %v", r)}
		}
	}()
	file, perr := parser.ParseBytes(data, 0)
	if perr != nil {
		return nil, yamlError(name, perr, nil)
	}
	var body ast.Node
	docs := 0
	for _, d := range file.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		docs++
		if body == nil {
			body = d.Body
		}
	}
	switch {
	case docs == 0:
		return fail(0, "file is empty", nil)
	case docs > 1:
		return fail(0, fmt.Sprintf("file holds %d YAML documents, want exactly one %s", docs, kind), nil)
	}
	for _, typ := range []ast.NodeType{ast.AliasType, ast.AnchorType} {
		if ns := ast.Filter(typ, body); len(ns) > 0 {
			return fail(nodeLine(ns[0]), fmt.Sprintf("anchors and aliases (&name, *name) are not supported in a %s file; write the value out", kind), nil)
		}
	}
	if _, ok := unwrap(body).(ast.MapNode); !ok {
		return fail(nodeLine(body), fmt.Sprintf("the top level of a %s file must be a mapping of fields", kind), nil)
	}
	return &Doc{name: name, body: body, fields: map[[2]int]string{}}, nil
}

// Decode decodes the document into v (a pointer to a struct with yaml
// tags). It reports every key the struct does not declare, with its line,
// and a decode error naming its field. Fields of interface or map type are
// not checked below themselves.
func (d *Doc) Decode(v any) (errs []error) {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	errs = checkKeys(d.name, d.body, t, "", d.fields)
	defer func() {
		if r := recover(); r != nil {
			errs = append(errs, &Error{File: d.name, Msg: fmt.Sprintf("YAML could not be decoded: %v", r)})
		}
	}()
	if err := yaml.NodeToValue(d.body, v); err != nil {
		errs = append(errs, yamlError(d.name, err, d.fields))
	}
	return errs
}

// Line returns the line of a field path such as "steps[2].agent"; when the
// field is absent it falls back to its parent. 0 when nothing is found.
func (d *Doc) Line(field string) (line int) {
	defer func() {
		if recover() != nil {
			line = 0
		}
	}()
	for field != "" {
		if p, err := yaml.PathString("$." + quotePath(field)); err == nil {
			if n, err := p.FilterNode(d.body); err == nil && n != nil {
				if l := nodeLine(n); l > 0 {
					return l
				}
			}
		}
		i := strings.LastIndexAny(field, ".[")
		if i <= 0 {
			return 0
		}
		field = field[:i]
	}
	return 0
}

// Errorf builds an *Error for field, finding its line.
func (d *Doc) Errorf(field, format string, args ...any) *Error {
	return &Error{File: d.name, Line: d.Line(field), Field: field, Msg: fmt.Sprintf(format, args...)}
}

// quotePath quotes map keys that go-yaml's path syntax would misread.
func quotePath(field string) string {
	parts := strings.Split(field, ".")
	for i, p := range parts {
		name, rest, _ := strings.Cut(p, "[")
		if strings.ContainsAny(name, "-/ ") {
			name = "'" + name + "'"
		}
		if rest != "" {
			name += "[" + rest
		}
		parts[i] = name
	}
	return strings.Join(parts, ".")
}

// --- helpers (the agent loader's approach, for these formats) -------------------

func yamlError(file string, err error, fields map[[2]int]string) *Error {
	e := &Error{File: file, Msg: err.Error(), Err: err}
	var ye yaml.Error
	if errors.As(err, &ye) {
		e.Msg = ye.GetMessage()
		var te *yaml.TypeError
		if errors.As(err, &te) && te.SrcType != nil && te.DstType != nil {
			e.Msg = fmt.Sprintf("expected %s, got %s", typeName(te.DstType), te.SrcType)
		}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			e.Line = tk.Position.Line
			e.Field = fields[[2]int{tk.Position.Line, tk.Position.Column}]
		}
	}
	if e.Line == 0 && e.Field == "" {
		e.Msg = "invalid YAML: " + e.Msg
	}
	return e
}

// typeName names Go types the way a file's author thinks of them.
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "text"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64:
		return "a whole number"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return t.String()
}

func unwrap(n ast.Node) ast.Node {
	for range 64 {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		default:
			return n
		}
	}
	return n
}

func nodeLine(n ast.Node) int {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return 0
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line
	}
	return 0
}

func tokenPos(tk *token.Token) ([2]int, bool) {
	if tk == nil || tk.Position == nil {
		return [2]int{}, false
	}
	return [2]int{tk.Position.Line, tk.Position.Column}, true
}

func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		out[tag] = f.Type
	}
	return out
}

func checkKeys(file string, node ast.Node, t reflect.Type, prefix string, fields map[[2]int]string) []error {
	node = unwrap(node)
	if node == nil || reflect.ValueOf(node).IsNil() {
		return nil
	}
	if pos, ok := tokenPos(node.GetToken()); ok && prefix != "" {
		if _, seen := fields[pos]; !seen {
			fields[pos] = prefix
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := node.(ast.MapNode)
		if !ok {
			return nil // a type mismatch: the decoder reports it
		}
		known := yamlFields(t)
		var errs []error
		for it := m.MapRange(); it.Next(); {
			key := it.Key()
			name := strings.TrimSpace(key.String())
			if kv, ok := key.(*ast.StringNode); ok {
				name = kv.Value
			}
			field := name
			if prefix != "" {
				field = prefix + "." + name
			}
			if pos, ok := tokenPos(key.GetToken()); ok {
				fields[pos] = field
			}
			ft, ok := known[name]
			if !ok {
				errs = append(errs, &Error{File: file, Line: nodeLine(key), Field: field, Msg: fmt.Sprintf("unknown field %q", name)})
				continue
			}
			errs = append(errs, checkKeys(file, it.Value(), ft, field, fields)...)
		}
		return errs
	case reflect.Slice:
		seq, ok := node.(*ast.SequenceNode)
		if !ok {
			return nil
		}
		var errs []error
		for i, v := range seq.Values {
			errs = append(errs, checkKeys(file, v, t.Elem(), fmt.Sprintf("%s[%d]", prefix, i), fields)...)
		}
		return errs
	case reflect.Map:
		m, ok := node.(ast.MapNode)
		if !ok {
			return nil
		}
		var errs []error
		for it := m.MapRange(); it.Next(); {
			name := strings.TrimSpace(it.Key().String())
			if kv, ok := it.Key().(*ast.StringNode); ok {
				name = kv.Value
			}
			errs = append(errs, checkKeys(file, it.Value(), t.Elem(), prefix+"."+name, fields)...)
		}
		return errs
	}
	return nil
}
