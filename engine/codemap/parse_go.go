package codemap

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
)

// parseGo reads Go with go/parser: functions and methods (with their
// receiver type as parent), types, interface methods, top-level constants
// and variables; every identifier otherwise is a reference.
func parseGo(name string, src []byte, c *collector) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrParse, firstErr(err))
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
	for _, decl := range f.Decls {
		in := ""
		if fd, ok := decl.(*ast.FuncDecl); ok {
			in = fd.Name.Name
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && !own[id] {
				c.ref(id.Name, line(id.Pos()), in)
			}
			return true
		})
	}
	return nil
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
	if l, ok := err.(scanner.ErrorList); ok && len(l) > 0 {
		return l[0]
	}
	return err
}
