package codemap

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Caps per file, so that one huge file cannot crowd the map.
const (
	maxDefsPerFile = 2000
	maxRefsPerFile = 1500
	maxSigChars    = 160
)

// Parse reads one source file (name decides the language) into its
// definitions and references. It never panics: a file that is not valid
// source gives an error wrapping ErrParse, one that is screened out (too
// large, minified, binary, not UTF-8) an error wrapping ErrSkipped.
func Parse(ctx context.Context, name string, src []byte) (fs FileSyms, err error) {
	lang := LangOf(name)
	if lang == "" {
		return FileSyms{}, fmt.Errorf("%s: no parser for this language: %w", name, ErrSkipped)
	}
	if why := screen(name, src); why != "" {
		return FileSyms{}, fmt.Errorf("%s: %s: %w", name, why, ErrSkipped)
	}
	defer func() {
		if r := recover(); r != nil {
			fs, err = FileSyms{}, fmt.Errorf("%s: parser failed: %v: %w", name, r, ErrParse)
		}
	}()
	var c collector
	if lang == LangGo {
		err = parseGo(name, src, &c)
	} else {
		err = parseTree(ctx, lang, src, &c)
	}
	if err != nil {
		return FileSyms{}, fmt.Errorf("%s: %w", name, err)
	}
	return c.result(lang), nil
}

// collector gathers a file's definitions and references.
type collector struct {
	defs []Def
	refs map[string]*Ref
	// defNames are the definitions' names: a reference to one of the
	// file's own names is not an edge to another file, but still counts.
}

func (c *collector) def(d Def) {
	if d.Name == "" || d.Name == "_" || len(c.defs) >= maxDefsPerFile {
		return
	}
	d.Signature = oneLine(d.Signature, maxSigChars)
	c.defs = append(c.defs, d)
}

func (c *collector) ref(name string, line int, in string) {
	if len(name) < 2 || commonNames[name] {
		return
	}
	if r, ok := c.refs[name]; ok {
		r.Count++
		return
	}
	if c.refs == nil {
		c.refs = map[string]*Ref{}
	}
	if len(c.refs) >= maxRefsPerFile {
		return
	}
	c.refs[name] = &Ref{Name: name, Count: 1, Line: line, In: in}
}

func (c *collector) result(lang string) FileSyms {
	fs := FileSyms{Lang: lang, Defs: c.defs, Refs: make([]Ref, 0, len(c.refs))}
	if fs.Defs == nil {
		fs.Defs = []Def{}
	}
	for _, r := range c.refs {
		fs.Refs = append(fs.Refs, *r)
	}
	sort.Slice(fs.Refs, func(i, j int) bool { return fs.Refs[i].Name < fs.Refs[j].Name })
	return fs
}

// commonNames are names so common in every language that a reference to
// them says nothing about which file a task needs.
var commonNames = map[string]bool{
	"self": true, "this": true, "err": true, "nil": true, "true": true, "false": true, "None": true, "True": true,
	"False": true, "string": true, "int": true, "bool": true, "error": true, "byte": true, "len": true, "ctx": true,
	"fmt": true, "Println": true, "Sprintf": true, "Errorf": true, "append": true, "make": true, "new": true,
	"console": true, "log": true, "undefined": true, "null": true, "String": true, "Object": true, "Number": true,
	"print": true, "range": true, "str": true, "dict": true, "list": true, "Ok": true, "Err": true, "Some": true,
	"Vec": true, "Self": true, "super": true, "args": true, "kwargs": true, "require": true, "exports": true,
	"module": true, "int64": true, "uint64": true, "float64": true, "any": true, "interface": true,
}

// oneLine collapses whitespace runs to one space and cuts s to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimRight(s, " {:=")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
