package yamlguard

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// Strict decoding, shared by every loader that reports problems as
// "file:line: field: message" (agents, skills, workflows, blueprints):
// [CheckKeys] finds every key the target type does not declare and records
// the field path of every value, and [Locate] turns a decode error into the
// line and field the author should look at.

// Fields maps a value token's position (line, column) to its field path,
// such as "steps[2].agent". [CheckKeys] fills it; [Locate] reads it.
type Fields map[[2]int]string

// UnknownKey is one key of a mapping that the target type does not declare.
type UnknownKey struct {
	Line  int    // 1-based; 0 when unknown
	Field string // full path, such as "limits.tiemout"
	Name  string // the key as written
}

// CheckKeys walks node against t (a struct, slice, map or pointer to one)
// and returns every mapping key that t does not declare, in file order. It
// records the field path of every value token in fields so that decode
// errors can name their field. A type mismatch is left to the decoder.
// Merge keys ("<<") are left to the decoder too.
func CheckKeys(node ast.Node, t reflect.Type, prefix string, fields Fields) []UnknownKey {
	node = Unwrap(node)
	if isNil(node) {
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
	var out []UnknownKey
	switch t.Kind() {
	case reflect.Struct:
		m, ok := node.(ast.MapNode)
		if !ok {
			return nil
		}
		known := yamlFields(t)
		for it := m.MapRange(); it.Next(); {
			name := keyName(it.Key())
			field := name
			if prefix != "" {
				field = prefix + "." + name
			}
			if pos, ok := tokenPos(it.Key().GetToken()); ok {
				fields[pos] = field
			}
			ft, ok := known[name]
			switch {
			case ok:
				out = append(out, CheckKeys(it.Value(), ft, field, fields)...)
			case name != "<<":
				out = append(out, UnknownKey{Line: NodeLine(it.Key()), Field: field, Name: name})
			}
		}
	case reflect.Slice:
		seq, ok := node.(*ast.SequenceNode)
		if !ok {
			return nil
		}
		for i, v := range seq.Values {
			out = append(out, CheckKeys(v, t.Elem(), fmt.Sprintf("%s[%d]", prefix, i), fields)...)
		}
	case reflect.Map:
		m, ok := node.(ast.MapNode)
		if !ok {
			return nil
		}
		for it := m.MapRange(); it.Next(); {
			out = append(out, CheckKeys(it.Value(), t.Elem(), prefix+"."+keyName(it.Key()), fields)...)
		}
	}
	return out
}

// Located is where a decode error points: its line, the field there (from
// the Fields that [CheckKeys] filled), and a message for the file's author.
type Located struct {
	Line  int
	Field string
	Msg   string
}

// Locate reads a go-yaml error. A type mismatch says "expected X, got Y",
// with X named the way a file's author thinks of it ("a list", "text"). An
// error that points nowhere is prefixed "invalid YAML: ".
func Locate(err error, fields Fields) Located {
	loc := Located{Msg: err.Error()}
	var ye yaml.Error
	if errors.As(err, &ye) {
		loc.Msg = ye.GetMessage()
		var te *yaml.TypeError
		if errors.As(err, &te) && te.SrcType != nil && te.DstType != nil {
			loc.Msg = fmt.Sprintf("expected %s, got %s", authorType(te.DstType), te.SrcType)
		}
		if pos, ok := tokenPos(ye.GetToken()); ok {
			loc.Line = pos[0]
			loc.Field = fields[pos]
		}
	}
	if loc.Line == 0 && loc.Field == "" {
		loc.Msg = "invalid YAML: " + loc.Msg
	}
	return loc
}

// authorType names Go types the way a file's author thinks of them.
func authorType(t reflect.Type) string {
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

// FieldLine finds the line of a field path such as "limits.timeout" or
// "steps[2].agent" in body; when the field itself is absent it falls back
// to its parent. 0 when nothing is found.
func FieldLine(body ast.Node, field string) (line int) {
	defer func() {
		if recover() != nil { // go-yaml has panicked on fuzzed input
			line = 0
		}
	}()
	for field != "" {
		if p, err := yaml.PathString("$." + quotePath(field)); err == nil {
			if n, err := p.FilterNode(body); err == nil && n != nil {
				if l := NodeLine(n); l > 0 {
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

// Unwrap looks through anchors and tags to the node that holds the value.
func Unwrap(n ast.Node) ast.Node {
	for range 64 { // bounded: a node chain cannot loop, but fuzzed input should not spin
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

// NodeLine is the 1-based line of n, 0 when unknown.
func NodeLine(n ast.Node) int {
	if isNil(n) {
		return 0
	}
	if pos, ok := tokenPos(n.GetToken()); ok {
		return pos[0]
	}
	return 0
}

func isNil(n ast.Node) bool { return n == nil || reflect.ValueOf(n).IsNil() }

func tokenPos(tk *token.Token) ([2]int, bool) {
	if tk == nil || tk.Position == nil {
		return [2]int{}, false
	}
	return [2]int{tk.Position.Line, tk.Position.Column}, true
}

func keyName(key ast.Node) string {
	if kv, ok := key.(*ast.StringNode); ok {
		return kv.Value
	}
	return strings.TrimSpace(key.String())
}

// yamlFields maps the yaml tag names of a struct type to their field types.
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
