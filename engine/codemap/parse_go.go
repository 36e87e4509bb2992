package codemap

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// parseGo reads Go with go/parser: functions and methods (with their
// receiver type as parent), types, interface methods, top-level constants
// and variables; every identifier otherwise is a reference.
func parseGo(name string, src []byte, c *collector) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrParse, firstErr(err))
	}
	tf := fset.File(f.Pos())
	line := func(p token.Pos) int { return tf.Line(p) }
	text := func(from, to token.Pos) string {
		a, b := tf.Offset(from), tf.Offset(to)
		if a < 0 || b > len(src) || a > b {
			return ""
		}
		return string(src[a:b])
	}
	own := map[*ast.Ident]bool{}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			own[d.Name] = true
			def := Def{Name: d.Name.Name, Kind: "func", Line: line(d.Pos())}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				def.Kind, def.Parent = "method", recvName(d.Recv.List[0].Type)
			}
			end := d.End()
			if d.Body != nil {
				end = d.Body.Lbrace
			}
			def.Signature = text(d.Pos(), end)
			c.def(def)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					own[s.Name] = true
					kind, head := "type", text(s.Pos(), s.Type.Pos())
					switch t := s.Type.(type) {
					case *ast.StructType:
						kind, head = "struct", head+"struct"
						// Fields are definitions too: a name many structs
						// have (Name, ID) then counts as common, and x.Name
						// does not make one file look central.
						for _, fl := range t.Fields.List {
							for _, n := range fl.Names {
								own[n] = true
								c.def(Def{Name: n.Name, Kind: "field", Line: line(n.Pos()), Parent: s.Name.Name,
									Signature: text(fl.Pos(), fl.Type.End())})
							}
						}
					case *ast.InterfaceType:
						kind, head = "interface", head+"interface"
						for _, m := range t.Methods.List {
							for _, n := range m.Names {
								own[n] = true
								c.def(Def{Name: n.Name, Kind: "method", Line: line(n.Pos()), Parent: s.Name.Name,
									Signature: text(m.Pos(), m.End())})
							}
						}
					default:
						head = text(s.Pos(), s.End())
					}
					c.def(Def{Name: s.Name.Name, Kind: kind, Line: line(s.Pos()), Signature: "type " + head})
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					for _, n := range s.Names {
						own[n] = true
						c.def(Def{Name: n.Name, Kind: kind, Line: line(n.Pos()), Signature: kind + " " + text(s.Pos(), s.End())})
					}
				}
			}
		}
	}
	// Package names (strings.Join) and Go's predeclared identifiers refer
	// to no definition of the workspace, whatever a method is called.
	skip := map[string]bool{}
	for _, im := range f.Imports {
		if im.Name != nil {
			skip[im.Name.Name] = true
			continue
		}
		p := strings.Trim(im.Path.Value, "`\"")
		parts := strings.Split(p, "/")
		last := parts[len(parts)-1]
		if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
			last = parts[len(parts)-2] // example.com/pgx/v5 is package pgx
		}
		skip[strings.TrimPrefix(strings.TrimPrefix(last, "go-"), "go.")] = true
		skip[last] = true
	}
	for _, decl := range f.Decls {
		in := ""
		if fd, ok := decl.(*ast.FuncDecl); ok {
			in = fd.Name.Name
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && !own[id] && !skip[id.Name] && !goPredeclared[id.Name] {
				c.ref(id.Name, line(id.Pos()), in)
			}
			return true
		})
	}
	return nil
}

// goPredeclared are Go's predeclared identifiers.
var goPredeclared = map[string]bool{
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true, "float64": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true, "string": true, "uint": true,
	"uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "any": true, "comparable": true,
	"true": true, "false": true, "iota": true, "nil": true, "append": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true,
	"new": true, "panic": true, "print": true, "println": true, "real": true, "recover": true,
}

// recvName is the type name of a method receiver (*T, T[P] → T).
func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// firstErr is the first of a scanner.ErrorList (the rest repeat it).
func firstErr(err error) error {
	var l scanner.ErrorList
	if errors.As(err, &l) && len(l) > 0 {
		return l[0]
	}
	return err
}
