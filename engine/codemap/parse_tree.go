package codemap

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// grammar is one tree-sitter language with the node kinds the map reads,
// resolved to ids once.
type grammar struct {
	lang *sitter.Language
	// defs maps a node kind id to the definition kind it makes.
	defs map[uint16]string
	// refs are the kinds of identifier leaves.
	refs map[uint16]bool
	// funcValues are the kinds that make a variable a function
	// (const f = () => …).
	funcValues map[uint16]bool
	// declarator is the kind whose value decides (variable_declarator).
	declarator uint16
	// containers name the definitions inside them by their type field
	// (Rust's impl blocks).
	containers             map[uint16]bool
	name, body, value, typ uint16

	pool chan *sitter.Parser
}

// grammarSpec names a language's kinds.
type grammarSpec struct {
	lang       func() *sitter.Language
	defs       map[string]string
	refs       []string
	funcValues []string
	declarator string
	containers []string
}

var jsDefs = map[string]string{
	"function_declaration": "func", "generator_function_declaration": "func", "class_declaration": "class",
	"method_definition": "method",
}

func tsDefs() map[string]string {
	m := map[string]string{
		"interface_declaration": "interface", "type_alias_declaration": "type", "enum_declaration": "enum",
		"abstract_class_declaration": "class", "function_signature": "func", "method_signature": "method",
		"abstract_method_signature": "method", "internal_module": "module",
	}
	for k, v := range jsDefs {
		m[k] = v
	}
	return m
}

var grammarSpecs = map[string]grammarSpec{
	LangPython: {
		lang: func() *sitter.Language { return sitter.NewLanguage(tspy.Language()) },
		defs: map[string]string{"function_definition": "func", "class_definition": "class"},
		refs: []string{"identifier"},
	},
	LangJavaScript: {
		lang:       func() *sitter.Language { return sitter.NewLanguage(tsjs.Language()) },
		defs:       jsDefs,
		refs:       []string{"identifier", "property_identifier"},
		funcValues: []string{"arrow_function", "function_expression", "function", "generator_function"},
		declarator: "variable_declarator",
	},
	LangTypeScript: {
		lang:       func() *sitter.Language { return sitter.NewLanguage(tsts.LanguageTypescript()) },
		defs:       tsDefs(),
		refs:       []string{"identifier", "property_identifier", "type_identifier"},
		funcValues: []string{"arrow_function", "function_expression", "function", "generator_function"},
		declarator: "variable_declarator",
	},
	LangTSX: {
		lang:       func() *sitter.Language { return sitter.NewLanguage(tsts.LanguageTSX()) },
		defs:       tsDefs(),
		refs:       []string{"identifier", "property_identifier", "type_identifier"},
		funcValues: []string{"arrow_function", "function_expression", "function", "generator_function"},
		declarator: "variable_declarator",
	},
	LangRust: {
		lang: func() *sitter.Language { return sitter.NewLanguage(tsrust.Language()) },
		defs: map[string]string{
			"function_item": "func", "function_signature_item": "func", "struct_item": "struct", "enum_item": "enum",
			"trait_item": "trait", "type_item": "type", "const_item": "const", "static_item": "var",
			"mod_item": "module", "macro_definition": "macro", "union_item": "struct",
		},
		refs:       []string{"identifier", "type_identifier", "field_identifier"},
		containers: []string{"impl_item"},
	},
	LangJava: {
		lang: func() *sitter.Language { return sitter.NewLanguage(tsjava.Language()) },
		defs: map[string]string{
			"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
			"record_declaration": "class", "annotation_type_declaration": "interface",
			"method_declaration": "method", "constructor_declaration": "method",
		},
		refs: []string{"identifier", "type_identifier"},
	},
}

var (
	grammarsOnce sync.Once
	grammars     map[string]*grammar
)

func grammarFor(lang string) *grammar {
	grammarsOnce.Do(func() {
		grammars = map[string]*grammar{}
		n := max(2, runtime.GOMAXPROCS(0))
		for name, spec := range grammarSpecs {
			l := spec.lang()
			g := &grammar{lang: l, defs: map[uint16]string{}, refs: map[uint16]bool{}, funcValues: map[uint16]bool{},
				name: l.FieldIdForName("name"), body: l.FieldIdForName("body"), value: l.FieldIdForName("value"),
				typ: l.FieldIdForName("type"), pool: make(chan *sitter.Parser, n)}
			for kind, what := range spec.defs {
				if id := l.IdForNodeKind(kind, true); id != 0 {
					g.defs[id] = what
				}
			}
			for _, kind := range spec.refs {
				if id := l.IdForNodeKind(kind, true); id != 0 {
					g.refs[id] = true
				}
			}
			for _, kind := range spec.funcValues {
				if id := l.IdForNodeKind(kind, true); id != 0 {
					g.funcValues[id] = true
				}
			}
			g.containers = map[uint16]bool{}
			for _, kind := range spec.containers {
				if id := l.IdForNodeKind(kind, true); id != 0 {
					g.containers[id] = true
				}
			}
			if spec.declarator != "" {
				g.declarator = l.IdForNodeKind(spec.declarator, true)
			}
			grammars[name] = g
		}
	})
	return grammars[lang]
}

// parser takes a parser of the grammar from its pool (or makes one).
func (g *grammar) parser() (*sitter.Parser, error) {
	select {
	case p := <-g.pool:
		return p, nil
	default:
	}
	p := sitter.NewParser()
	if err := p.SetLanguage(g.lang); err != nil {
		p.Close()
		return nil, fmt.Errorf("tree-sitter: %w", err)
	}
	return p, nil
}

// release puts a parser back (or frees it when the pool is full).
func (g *grammar) release(p *sitter.Parser) {
	p.Reset()
	select {
	case g.pool <- p:
	default:
		p.Close()
	}
}

// frame is a definition the walk is inside.
type frame struct {
	depth uint32
	name  string
}

// parseTree reads a file with its tree-sitter grammar. A tree with an
// error node is a file that does not parse.
func parseTree(ctx context.Context, lang string, src []byte, c *collector) error {
	g := grammarFor(lang)
	if g == nil {
		return fmt.Errorf("no grammar for %s: %w", lang, ErrSkipped)
	}
	p, err := g.parser()
	if err != nil {
		return err
	}
	defer g.release(p)
	if err := ctx.Err(); err != nil {
		return err
	}
	// Parse, not ParseCtx: go-tree-sitter v0.25.0's ParseCtx may store to
	// a nil cancellation flag when the context ends as the parse does (a
	// crash). A file is at most MaxFileBytes; its parse is short.
	tree := p.Parse(src, nil)
	if tree == nil {
		return fmt.Errorf("%w: the parser gave up", ErrParse)
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.HasError() {
		return fmt.Errorf("%w: %s", ErrParse, firstErrorAt(root))
	}
	names := map[uint]bool{} // start bytes of definitions' name nodes
	var stack []frame
	cur := root.Walk()
	defer cur.Close()
	var depth uint32
	for {
		n := cur.Node()
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			stack = stack[:len(stack)-1]
		}
		id := n.KindId()
		if kind, ok := g.defs[id]; ok {
			if name := n.ChildByFieldId(g.name); name != nil {
				nm := string(src[name.StartByte():name.EndByte()])
				names[name.StartByte()] = true
				d := Def{Name: nm, Kind: kind, Line: int(n.StartPosition().Row) + 1, Signature: head(n, src, g)}
				if len(stack) > 0 {
					d.Parent = stack[len(stack)-1].name
					if kind == "func" {
						d.Kind = "method"
					}
				}
				c.def(d)
				stack = append(stack, frame{depth: depth, name: nm})
			}
		} else if g.containers[id] {
			if t := n.ChildByFieldId(g.typ); t != nil {
				stack = append(stack, frame{depth: depth, name: string(src[t.StartByte():t.EndByte()])})
			}
		} else if id == g.declarator && g.declarator != 0 {
			if v := n.ChildByFieldId(g.value); v != nil && g.funcValues[v.KindId()] {
				if name := n.ChildByFieldId(g.name); name != nil && g.refs[name.KindId()] {
					nm := string(src[name.StartByte():name.EndByte()])
					names[name.StartByte()] = true
					sig := string(src[n.StartByte():v.StartByte()]) + sigOf(v, src, g)
					c.def(Def{Name: nm, Kind: "func", Line: int(n.StartPosition().Row) + 1, Signature: sig})
					stack = append(stack, frame{depth: depth, name: nm})
				}
			}
		} else if g.refs[id] && !names[n.StartByte()] {
			in := ""
			if len(stack) > 0 {
				in = stack[len(stack)-1].name
			}
			c.ref(string(src[n.StartByte():n.EndByte()]), int(n.StartPosition().Row)+1, in)
		}
		if cur.GotoFirstChild() {
			depth++
			continue
		}
		for !cur.GotoNextSibling() {
			if !cur.GotoParent() {
				return nil
			}
			depth--
		}
	}
}

// head is a definition's text up to its body.
func head(n *sitter.Node, src []byte, g *grammar) string {
	if b := n.ChildByFieldId(g.body); b != nil && b.StartByte() > n.StartByte() {
		return string(src[n.StartByte():b.StartByte()])
	}
	return firstLineOf(src[n.StartByte():n.EndByte()])
}

// sigOf is the head of a function value (its parameters and arrow).
func sigOf(v *sitter.Node, src []byte, g *grammar) string {
	return head(v, src, g)
}

func firstLineOf(b []byte) string {
	for i, c := range b {
		if c == '\n' {
			return string(b[:i])
		}
	}
	return string(b)
}

// firstErrorAt says where a tree's first error is.
func firstErrorAt(root *sitter.Node) string {
	cur := root.Walk()
	defer cur.Close()
	for {
		n := cur.Node()
		if n.IsError() || n.IsMissing() {
			p := n.StartPosition()
			return fmt.Sprintf("syntax error at line %d", p.Row+1)
		}
		if n.HasError() && cur.GotoFirstChild() {
			continue
		}
		for !cur.GotoNextSibling() {
			if !cur.GotoParent() {
				return "syntax error"
			}
		}
	}
}
