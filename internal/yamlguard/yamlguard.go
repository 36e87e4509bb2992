// Package yamlguard is nova's one way to read YAML from a file a user, a
// model or a shared repository wrote. Every YAML entry point (config.yaml,
// themes, agents, PRDs, pattern front matter, skills, workflows,
// blueprints) calls [Unmarshal] or [Parse] (and [ReadFile] to get the
// bytes), never go-yaml directly.
//
// Three limits make a hostile file cost at most a few MB and a few ms:
//
//   - size: the input may hold at most Limits.MaxBytes bytes (checked on the
//     bytes read, see [ReadFile]);
//   - depth: flow collections and indentation may nest at most MaxNesting
//     levels, checked lexically before go-yaml sees the input (go-yaml
//     needs gigabytes for 100,000 nested '['), and the parsed tree, aliases
//     expanded, at most MaxExpandedDepth levels;
//   - aliases: expanding every alias may add at most Limits.MaxAliasNodes
//     nodes and Limits.MaxAliasBytes scalar bytes (a "billion laughs" file
//     of 428 bytes otherwise expands to gigabytes when decoded into a map,
//     or when re-encoded).
//
// The check walks the parsed tree once, with each anchor's expanded size
// memoised, so it is linear in the input. Errors are *[LimitError] and say
// which limit was hit, with the line when one is known.
package yamlguard

import (
	"errors"
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/nova-dev/nova/internal/safefile"
)

// Defaults of Limits.
const (
	DefaultMaxBytes      = 1 << 20
	DefaultMaxAliasNodes = 10_000
	DefaultMaxAliasBytes = 1 << 20
	// MaxExpandedDepth bounds the parsed tree's depth, aliases expanded.
	MaxExpandedDepth = 256
)

// Sentinel errors: which limit a document broke.
var (
	// ErrLimit is wrapped by every LimitError.
	ErrLimit = errors.New("YAML limit exceeded")
	// ErrTooLarge: the input is larger than Limits.MaxBytes.
	ErrTooLarge = errors.New("size limit")
	// ErrTooDeep: nesting is deeper than MaxNesting (or MaxExpandedDepth).
	ErrTooDeep = errors.New("depth limit")
	// ErrAliases: aliases expand past the alias limits, or an alias refers
	// to the anchor that contains it.
	ErrAliases = errors.New("alias expansion limit")
	// ErrPanic: go-yaml panicked on the input (it has, on fuzzed input).
	ErrPanic = errors.New("YAML could not be decoded")
)

// Limits bounds one document. Zero fields take the defaults.
type Limits struct {
	// MaxBytes bounds the input (default DefaultMaxBytes).
	MaxBytes int64
	// MaxAliasNodes bounds the nodes that alias expansion adds.
	MaxAliasNodes int
	// MaxAliasBytes bounds the scalar bytes that alias expansion adds.
	MaxAliasBytes int
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxAliasNodes <= 0 {
		l.MaxAliasNodes = DefaultMaxAliasNodes
	}
	if l.MaxAliasBytes <= 0 {
		l.MaxAliasBytes = DefaultMaxAliasBytes
	}
	return l
}

// LimitError is a document refused by a limit.
type LimitError struct {
	Name  string // file name, may be ""
	Line  int    // 1-based, 0 when unknown
	Limit error  // ErrTooLarge, ErrTooDeep, ErrAliases or ErrPanic
	Msg   string
}

func (e *LimitError) Error() string {
	s := ""
	if e.Name != "" {
		s = e.Name + ":"
	}
	if e.Line > 0 {
		s += fmt.Sprintf("%d:", e.Line)
	}
	if s != "" {
		s += " "
	}
	return s + e.Limit.Error() + ": " + e.Msg
}

// Unwrap exposes ErrLimit and the limit's own sentinel.
func (e *LimitError) Unwrap() []error { return []error{ErrLimit, e.Limit} }

// ReadFile reads a YAML file: a regular file only (never a FIFO or a
// device), at most lim.MaxBytes bytes actually read.
func ReadFile(path string, lim Limits) ([]byte, error) {
	lim = lim.withDefaults()
	data, err := safefile.ReadFile(path, lim.MaxBytes)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, &LimitError{Name: path, Limit: ErrTooLarge, Msg: fmt.Sprintf("the file is larger than %d bytes", lim.MaxBytes)}
	}
	return data, err
}

// Check applies the size and lexical depth limits without parsing.
func Check(name string, data []byte, lim Limits) error {
	lim = lim.withDefaults()
	if int64(len(data)) > lim.MaxBytes {
		return &LimitError{Name: name, Limit: ErrTooLarge, Msg: fmt.Sprintf("%d bytes, larger than the %d-byte limit", len(data), lim.MaxBytes)}
	}
	if line := TooDeep(data); line > 0 {
		return &LimitError{Name: name, Line: line, Limit: ErrTooDeep,
			Msg: fmt.Sprintf("nesting is deeper than %d levels (or indented past %d columns)", MaxNesting, MaxIndent)}
	}
	return nil
}

// Parse checks data against the limits, parses it and checks the parsed
// tree (depth and alias expansion). Go-yaml's own errors are returned as
// they are (they carry the token and line); a panic inside go-yaml becomes
// a LimitError wrapping ErrPanic.
func Parse(name string, data []byte, lim Limits, opts ...parser.Option) (file *ast.File, err error) {
	lim = lim.withDefaults()
	if err := Check(name, data, lim); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			file, err = nil, &LimitError{Name: name, Limit: ErrPanic, Msg: fmt.Sprint(r)}
		}
	}()
	file, err = parser.ParseBytes(data, 0, opts...)
	if err != nil {
		return nil, err
	}
	if err := CheckTree(name, file, lim); err != nil {
		return nil, err
	}
	return file, nil
}

// Decode converts a node of a checked tree into v, behind a recover.
func Decode(name string, node ast.Node, v any, opts ...yaml.DecodeOption) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &LimitError{Name: name, Limit: ErrPanic, Msg: fmt.Sprint(r)}
		}
	}()
	return yaml.NodeToValue(node, v, opts...)
}

// Unmarshal is Parse, then the first document decoded into v with opts
// (e.g. yaml.Strict()). An empty document leaves v as it is.
func Unmarshal(name string, data []byte, v any, lim Limits, opts ...yaml.DecodeOption) error {
	file, err := Parse(name, data, lim)
	if err != nil {
		return err
	}
	for _, d := range file.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		return Decode(name, d.Body, v, opts...)
	}
	return nil
}

// CheckTree checks a parsed tree: depth with aliases expanded, and what
// alias expansion adds.
func CheckTree(name string, file *ast.File, lim Limits) error {
	lim = lim.withDefaults()
	w := &walker{name: name, lim: lim, anchors: map[string]*anchorInfo{}}
	for _, d := range file.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		clear(w.anchors) // anchors are scoped to their document
		if _, err := w.walk(d.Body, 1); err != nil {
			return err
		}
	}
	return nil
}

// cost is what a subtree expands to.
type cost struct {
	nodes, bytes, depth int
}

func (c *cost) add(o cost) {
	c.nodes = satAdd(c.nodes, o.nodes)
	c.bytes = satAdd(c.bytes, o.bytes)
}

func satAdd(a, b int) int {
	if s := a + b; s >= a {
		return s
	}
	return int(^uint(0) >> 1)
}

type anchorInfo struct {
	busy bool // its value is being walked: an alias to it is a cycle
	cost cost
}

type walker struct {
	name     string
	lim      Limits
	anchors  map[string]*anchorInfo
	expanded cost // added by aliases so far
}

func (w *walker) fail(n ast.Node, limit error, msg string) error {
	line := 0
	if n != nil {
		if tk := n.GetToken(); tk != nil && tk.Position != nil {
			line = tk.Position.Line
		}
	}
	return &LimitError{Name: w.name, Line: line, Limit: limit, Msg: msg}
}

// walk returns the expanded cost of n at depth.
func (w *walker) walk(n ast.Node, depth int) (cost, error) {
	if n == nil {
		return cost{}, nil
	}
	if depth > MaxExpandedDepth {
		return cost{}, w.fail(n, ErrTooDeep, fmt.Sprintf("the document nests deeper than %d levels with its aliases expanded", MaxExpandedDepth))
	}
	c := cost{nodes: 1, depth: 1}
	child := func(m ast.Node) error {
		sub, err := w.walk(m, depth+1)
		if err != nil {
			return err
		}
		c.add(sub)
		c.depth = max(c.depth, sub.depth+1)
		return nil
	}
	switch v := n.(type) {
	case *ast.DocumentNode:
		return w.walk(v.Body, depth)
	case *ast.MappingNode:
		for _, mv := range v.Values {
			if err := child(mv); err != nil {
				return cost{}, err
			}
		}
	case *ast.MappingValueNode:
		if err := child(v.Key); err != nil {
			return cost{}, err
		}
		if err := child(v.Value); err != nil {
			return cost{}, err
		}
	case *ast.MappingKeyNode:
		if err := child(v.Value); err != nil {
			return cost{}, err
		}
	case *ast.SequenceNode:
		for _, el := range v.Values {
			if err := child(el); err != nil {
				return cost{}, err
			}
		}
	case *ast.TagNode:
		return w.walk(v.Value, depth)
	case *ast.AnchorNode:
		name := anchorName(v.Name)
		info := &anchorInfo{busy: true}
		w.anchors[name] = info
		sub, err := w.walk(v.Value, depth)
		if err != nil {
			return cost{}, err
		}
		info.busy, info.cost = false, sub
		return sub, nil
	case *ast.AliasNode:
		name := anchorName(v.Value)
		info, ok := w.anchors[name]
		if !ok {
			return c, nil // go-yaml reports unknown aliases itself
		}
		if info.busy {
			return cost{}, w.fail(n, ErrAliases, fmt.Sprintf("alias *%s refers to the anchor that contains it", name))
		}
		if depth+info.cost.depth-1 > MaxExpandedDepth {
			return cost{}, w.fail(n, ErrTooDeep, fmt.Sprintf("the document nests deeper than %d levels with its aliases expanded", MaxExpandedDepth))
		}
		w.expanded.add(info.cost)
		if w.expanded.nodes > w.lim.MaxAliasNodes || w.expanded.bytes > w.lim.MaxAliasBytes {
			return cost{}, w.fail(n, ErrAliases, fmt.Sprintf("aliases expand to more than %d nodes or %d bytes (alias *%s is used too often)",
				w.lim.MaxAliasNodes, w.lim.MaxAliasBytes, name))
		}
		return info.cost, nil
	case *ast.StringNode:
		c.bytes = len(v.Value)
	case *ast.LiteralNode:
		if v.Value != nil {
			c.bytes = len(v.Value.Value)
		}
	default:
		if tk := n.GetToken(); tk != nil {
			c.bytes = len(tk.Value)
		}
	}
	return c, nil
}

func anchorName(n ast.Node) string {
	if n == nil {
		return ""
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return n.String()
}
