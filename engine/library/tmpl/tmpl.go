// Package tmpl renders nova's Jinja-style templates: `{{ name }}`,
// `{{ research.output | firstline }}`, `{% if tier == 'premium' %}…{% else %}…{% endif %}`,
// `{% for f in files %}…{% endfor %}`. Skills, workflows and blueprints all
// render through it.
//
// The engine is gonja v2 (github.com/nikolalohinski/gonja/v2, a maintained
// Go implementation of Jinja2, the syntax the seeds use), run in a sandbox:
//
//   - no file access and no recursion: include, import, from, extends,
//     block, macro, call, do and trans are not available, and the template
//     loader knows only the template itself;
//   - values are data: a value that contains "{{ … }}" is printed as it is,
//     never rendered (gonja renders the template text only; nova never
//     pastes values into template text);
//   - bounded work: `range` yields at most MaxRange numbers in all per
//     render, the output is capped at MaxOutput bytes, a render taking
//     longer than the timeout returns ErrLimit, text repetition with `*` is
//     refused, and filters or methods that pad to a width (center, ljust,
//     format, …) are left out;
//   - a name nobody defined is an error (StrictUndefined), so typos do not
//     render as empty strings; `{{ x | default('…') }}` is the way to say
//     "optional";
//   - a panic inside the engine becomes an error.
//
// Template text itself comes from the workspace's own files (skills,
// workflows, blueprints the user added); the limits make a bad template
// fail with a clear error, they are not a sandbox against a determined
// author (a loop can still build a large string before the timeout fires).
package tmpl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/builtins/methods"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/parser"

	"github.com/nova-dev/nova/internal/lazyre"
)

// Limits of one template and one render.
const (
	// MaxSource bounds a template's text.
	MaxSource = 64 << 10
	// MaxOutput bounds what one render writes.
	MaxOutput = 1 << 20
	// MaxRange bounds the numbers `range` yields in one render, in all.
	MaxRange = 10_000
	// MaxRepeat bounds the product of the literal factors of `*` in one
	// template (text repetition by a variable is bounded by it too).
	MaxRepeat = 10_000
	// DefaultTimeout bounds one render.
	DefaultTimeout = 2 * time.Second
)

// Sentinel errors callers branch on.
var (
	// ErrSyntax: the template does not parse, or uses something nova's
	// templates do not offer.
	ErrSyntax = errors.New("template syntax error")
	// ErrRender: the template parsed but could not render with these values
	// (an undefined name, a bad filter argument, …).
	ErrRender = errors.New("template render error")
	// ErrLimit: the template or its output is too large, or it ran too long.
	ErrLimit = errors.New("template limit exceeded")
)

// Error is a template problem. Line is 1-based within the template (0 when
// unknown).
type Error struct {
	Kind error // ErrSyntax, ErrRender or ErrLimit
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Unwrap exposes the kind.
func (e *Error) Unwrap() error { return e.Kind }

// Has reports whether s contains template syntax ("{{", "{%" or "{#").
// Strings without it are plain text and are never rendered.
func Has(s string) bool {
	return strings.Contains(s, "{{") || strings.Contains(s, "{%") || strings.Contains(s, "{#")
}

// Template is a parsed, checked template. It is safe for concurrent use.
type Template struct {
	src  string
	t    *exec.Template
	refs []Ref
}

// Source returns the template text.
func (t *Template) Source() string { return t.src }

// Refs returns the free names the template reads (see Ref), in order of
// first use (a copy: templates are shared).
func (t *Template) Refs() []Ref { return append([]Ref(nil), t.refs...) }

// cache keeps parsed templates by source: workflows and blueprints render
// the same few templates again and again, and parsing costs more than
// rendering (gonja's lexer compiles regular expressions per template).
// Templates are immutable, so sharing them is safe.
var cache = struct {
	sync.Mutex
	m map[string]*Template
}{m: map[string]*Template{}}

// maxCached bounds the cache; it is emptied when full.
const maxCached = 2048

// Parse checks and parses a template. It never panics on input.
func Parse(src string) (*Template, error) {
	cache.Lock()
	t, ok := cache.m[src]
	cache.Unlock()
	if ok {
		return t, nil
	}
	t, err := parse(src)
	if err != nil {
		return nil, err
	}
	cache.Lock()
	if len(cache.m) >= maxCached {
		clear(cache.m)
	}
	cache.m[src] = t
	cache.Unlock()
	return t, nil
}

func parse(src string) (tpl *Template, err error) {
	if len(src) > MaxSource {
		return nil, &Error{Kind: ErrLimit, Msg: fmt.Sprintf("template is %d bytes, larger than the %d-byte limit", len(src), MaxSource)}
	}
	refs, err := scan(src)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			tpl, err = nil, &Error{Kind: ErrSyntax, Msg: fmt.Sprintf("template could not be parsed: %v", r)}
		}
	}()
	loader := &oneLoader{src: src}
	t, perr := exec.NewTemplate(oneName, newConfig(), loader, sandbox())
	if perr != nil {
		msg := strings.TrimPrefix(perr.Error(), "failed to parse template '"+src+"': ")
		return nil, &Error{Kind: ErrSyntax, Line: lineOf(msg), Msg: cleanMessage(msg)}
	}
	return &Template{src: src, t: t, refs: refs}, nil
}

// Render renders the template with data (names → values). Values are
// strings, numbers, booleans, nil, []any, []string and map[string]any
// (nested freely). The timeout bounds the render (0: DefaultTimeout).
func (t *Template) Render(ctx context.Context, data map[string]any, timeout time.Duration) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	budget := &atomic.Int64{}
	budget.Store(MaxRange)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{err: &Error{Kind: ErrRender, Msg: fmt.Sprintf("template failed: %v", p)}}
			}
			done <- r
		}()
		vars := make(map[string]any, len(data)+1)
		for k, v := range data {
			vars[k] = v
		}
		vars["range"] = rangeFunc(budget)
		var buf bytes.Buffer
		w := &capWriter{w: &buf, left: MaxOutput}
		if err := t.t.Execute(w, exec.NewContext(vars)); err != nil {
			if w.over {
				r.err = &Error{Kind: ErrLimit, Msg: fmt.Sprintf("the output is larger than %d bytes", MaxOutput)}
				return
			}
			kind := ErrRender
			if budget.Load() < 0 {
				kind = ErrLimit
			}
			r.err = &Error{Kind: kind, Line: lineOf(err.Error()), Msg: cleanMessage(err.Error())}
			return
		}
		r.out = buf.String()
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	case <-timer.C:
		// The render goroutine cannot be stopped from outside; it ends on
		// its own (range and output are bounded) and its result is dropped.
		return "", &Error{Kind: ErrLimit, Msg: fmt.Sprintf("the template took longer than %s to render", timeout)}
	}
}

// Render parses src and renders it with data. Plain text (see Has) is
// returned as it is.
func Render(ctx context.Context, src string, data map[string]any) (string, error) {
	if !Has(src) {
		return src, nil
	}
	t, err := Parse(src)
	if err != nil {
		return "", err
	}
	return t.Render(ctx, data, 0)
}

// Expr is a parsed condition: a Jinja expression such as
// `test.status == 'failed'` or `not research.skipped`. A condition written
// as "{{ expr }}" is accepted too.
type Expr struct {
	src string
	t   *Template
}

// ParseExpr checks a condition expression.
func ParseExpr(expr string) (*Expr, error) {
	e := strings.TrimSpace(expr)
	if strings.HasPrefix(e, "{{") && strings.HasSuffix(e, "}}") && strings.Count(e, "{{") == 1 {
		e = strings.TrimSpace(e[2 : len(e)-2])
	}
	if e == "" {
		return nil, &Error{Kind: ErrSyntax, Msg: "the condition is empty"}
	}
	if Has(e) || strings.Contains(e, "}}") || strings.Contains(e, "%}") {
		return nil, &Error{Kind: ErrSyntax, Msg: "a condition is one expression, e.g. test.status == 'failed'; it may not contain {{ }} or {% %} inside"}
	}
	t, err := Parse("{% if " + e + " %}1{% endif %}")
	if err != nil {
		return nil, err
	}
	return &Expr{src: e, t: t}, nil
}

// Source returns the expression text.
func (x *Expr) Source() string { return x.src }

// Refs returns the free names the expression reads.
func (x *Expr) Refs() []Ref { return x.t.Refs() }

// Eval evaluates the expression's truth with data (Jinja truthiness: empty
// strings, 0, none, empty lists are false).
func (x *Expr) Eval(ctx context.Context, data map[string]any) (bool, error) {
	out, err := x.t.Render(ctx, data, 0)
	if err != nil {
		return false, err
	}
	return out == "1", nil
}

// --- sandbox -----------------------------------------------------------------

const oneName = "/template"

// oneLoader serves the one template and nothing else: include, import and
// extends (which are not registered anyway) could not read a file.
type oneLoader struct{ src string }

func (l *oneLoader) Read(p string) (io.Reader, error) {
	if p != oneName {
		return nil, fmt.Errorf("templates cannot load other files (%q)", p)
	}
	return strings.NewReader(l.src), nil
}

func (l *oneLoader) Resolve(p string) (string, error) {
	if p != oneName {
		return "", fmt.Errorf("templates cannot load other files (%q)", p)
	}
	return p, nil
}

func (l *oneLoader) Inherit(string) (loaders.Loader, error) { return l, nil }

func newConfig() *config.Config {
	c := config.New()
	c.StrictUndefined = true
	c.AutoEscape = false
	c.KeepTrailingNewline = true
	return c
}

// allowedStatements are the control structures nova templates offer.
var allowedStatements = map[string]bool{
	"if": true, "for": true, "set": true, "with": true, "filter": true,
	"raw": true, "break": true, "continue": true, "autoescape": true,
}

// bannedFilters pad to a caller-given width, print with printf widths,
// make arbitrary numbers of slices, or are not deterministic.
var bannedFilters = map[string]bool{
	"center": true, "indent": true, "format": true, "wordwrap": true,
	"batch": true, "slice": true, "random": true, "xmlattr": true,
}

// bannedStrMethods pad to a caller-given width.
var bannedStrMethods = map[string]bool{
	"center": true, "ljust": true, "rjust": true, "zfill": true,
	"expandtabs": true, "format": true, "format_map": true,
}

var strMethodNames = []string{
	"capitalize", "capwords", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find",
	"format", "format_map", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "islower", "isnumeric",
	"isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip", "partition",
	"removeprefix", "removesuffix", "replace", "rfind", "rjust", "rpartition", "rsplit", "rstrip", "split",
	"splitlines", "startswith", "strip", "swapcase", "title", "upper", "zfill",
}

// sandbox is the environment every nova template runs in, built on first
// use (about a millisecond a nova process that renders nothing should not pay).
var sandbox = sync.OnceValue(newSandbox)

func newSandbox() *exec.Environment {
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{})
	for name, fn := range novaFilters {
		_ = filters.Register(name, fn)
	}
	for _, name := range builtinFilterNames {
		if bannedFilters[name] {
			continue
		}
		if fn, ok := builtins.Filters.Get(name); ok && !filters.Exists(name) {
			_ = filters.Register(name, fn)
		}
	}
	structures := map[string]bool{}
	cs := exec.NewControlStructureSet(map[string]parser.ControlStructureParser{})
	for name := range allowedStatements {
		if p, ok := builtins.ControlStructures.Get(name); ok {
			_ = cs.Register(name, p)
			structures[name] = true
		}
	}
	str := map[string]exec.Method[string]{}
	for _, name := range strMethodNames {
		if bannedStrMethods[name] {
			continue
		}
		if m, ok := methods.All.Str.Get(name); ok {
			str[name] = m
		}
	}
	globals := map[string]any{}
	for _, name := range []string{"dict", "namespace", "cycler", "joiner"} {
		if v, ok := builtins.GlobalFunctions.Get(name); ok {
			globals[name] = v
		}
	}
	return &exec.Environment{
		Context:           exec.NewContext(globals),
		Filters:           filters,
		Tests:             builtins.Tests,
		ControlStructures: cs,
		Methods: exec.Methods{
			Bool: methods.All.Bool, Int: methods.All.Int, Float: methods.All.Float,
			Dict: methods.All.Dict, List: methods.All.List,
			Str: exec.NewMethodSet[string](str),
		},
	}
}

// builtinFilterNames are gonja's filters (FilterSet has no listing).
var builtinFilterNames = []string{
	"abs", "attr", "batch", "capitalize", "center", "default", "d", "dictsort", "e", "escape",
	"filesizeformat", "first", "float", "forceescape", "format", "groupby", "indent", "int", "join",
	"items", "last", "length", "count", "list", "lower", "map", "max", "min", "pprint", "random",
	"rejectattr", "reject", "replace", "reverse", "round", "safe", "selectattr", "select", "slice",
	"sort", "string", "striptags", "sum", "title", "tojson", "trim", "truncate", "unique", "upper",
	"urlencode", "urlize", "wordcount", "wordwrap", "xmlattr",
}

// rangeFunc is Jinja's range, returning a list (gonja's yields from a
// goroutine that leaks when a loop breaks early) within a per-render budget.
func rangeFunc(budget *atomic.Int64) func(*exec.Evaluator, *exec.VarArgs) (any, error) {
	return func(_ *exec.Evaluator, params *exec.VarArgs) (any, error) {
		start, stop, step := 0, 0, 1
		ints := make([]int, 0, 3)
		for _, a := range params.Args {
			if !a.IsInteger() {
				return nil, errors.New("range takes integers: range([start, ]stop[, step])")
			}
			ints = append(ints, a.Integer())
		}
		switch len(ints) {
		case 1:
			stop = ints[0]
		case 2:
			start, stop = ints[0], ints[1]
		case 3:
			start, stop, step = ints[0], ints[1], ints[2]
		default:
			return nil, errors.New("range takes one to three integers: range([start, ]stop[, step])")
		}
		if step == 0 {
			return nil, errors.New("range step cannot be 0")
		}
		n := 0
		if step > 0 && stop > start {
			n = int((int64(stop) - int64(start) + int64(step) - 1) / int64(step))
		} else if step < 0 && stop < start {
			n = int((int64(start) - int64(stop) - int64(step) - 1) / -int64(step))
		}
		if left := budget.Add(-int64(n)); left < 0 {
			return nil, fmt.Errorf("range yields more than %d numbers in one render", MaxRange)
		}
		out := make([]any, 0, n)
		for i, v := 0, start; i < n; i, v = i+1, v+step {
			out = append(out, v)
		}
		return out, nil
	}
}

// capWriter stops a render whose output passes its limit.
type capWriter struct {
	w    io.Writer
	left int
	over bool
}

var errOutputLimit = errors.New("output limit")

func (c *capWriter) Write(p []byte) (int, error) {
	if len(p) > c.left {
		c.over = true
		return 0, errOutputLimit
	}
	c.left -= len(p)
	return c.w.Write(p)
}

// --- nova's filters ------------------------------------------------------------

// novaFilters are small text helpers skills need to chain tool results.
var novaFilters = map[string]exec.FilterFunction{
	// firstline: the first non-blank line, trimmed.
	"firstline": func(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
		if in.IsError() {
			return in
		}
		for _, l := range strings.Split(in.String(), "\n") {
			if s := strings.TrimSpace(l); s != "" {
				return exec.AsValue(s)
			}
		}
		return exec.AsValue("")
	},
	// lines: the non-blank lines, trimmed, as a list.
	"lines": func(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
		if in.IsError() {
			return in
		}
		out := []any{}
		for _, l := range strings.Split(in.String(), "\n") {
			if s := strings.TrimSpace(l); s != "" {
				out = append(out, s)
			}
		}
		return exec.AsValue(out)
	},
	// firstpath: the path of the first "path:line: text" match of a
	// searchFiles result (or the first line when it has no such prefix).
	// Paths given as arguments are passed over unless nothing else matched.
	"firstpath": func(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
		if in.IsError() {
			return in
		}
		var skip []string
		for _, a := range params.Args {
			skip = append(skip, a.String())
		}
		return exec.AsValue(FirstPath(in.String(), skip...))
	},
	// basename, dirname, stem (path without its extension), ext.
	"basename": pathFilter(path.Base),
	"dirname":  pathFilter(path.Dir),
	"stem": pathFilter(func(p string) string {
		return strings.TrimSuffix(p, path.Ext(p))
	}),
	"ext": pathFilter(path.Ext),
	// regexquote: the text as a literal RE2 pattern (for searchFiles).
	"regexquote": func(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
		if in.IsError() {
			return in
		}
		return exec.AsValue(regexp.QuoteMeta(in.String()))
	},
}

func pathFilter(fn func(string) string) exec.FilterFunction {
	return func(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
		if in.IsError() {
			return in
		}
		p := strings.TrimSpace(strings.ReplaceAll(in.String(), "\\", "/"))
		if p == "" {
			return exec.AsValue("")
		}
		return exec.AsValue(fn(p))
	}
}

var searchHit = lazyre.New(`^(.+?):(\d+):`)

// FirstPath returns the path of the first "path:line: text" line of a
// searchFiles result whose path is not in skip (the first such path when
// every hit is skipped), or the first non-blank line when no line has that
// shape.
func FirstPath(s string, skip ...string) string {
	first, firstHit := "", ""
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if m := searchHit.FindStringSubmatch(l); m != nil {
			if !slices.Contains(skip, m[1]) {
				return m[1]
			}
			if firstHit == "" {
				firstHit = m[1]
			}
			continue
		}
		if first == "" {
			first = l
		}
	}
	if firstHit != "" {
		return firstHit
	}
	return first
}

// --- messages ------------------------------------------------------------------

var (
	lineRe      = lazyre.New(`[Ll]ine:? (\d+)`)
	undefinedRe = lazyre.New(`Unable to evaluate name "([^"]*)"`)
	prefixRe    = lazyre.New(`^(unable to execute template: )?((Unable to (render expression|execute controlStructure) at line \d+): )+`)
)

func lineOf(msg string) int {
	if m := lineRe.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// cleanMessage turns gonja's nested error text into one sentence.
func cleanMessage(msg string) string {
	if m := undefinedRe.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%q is not defined (write {{ %s | default('') }} when it is optional)", m[1], m[1])
	}
	msg = prefixRe.ReplaceAllString(msg, "")
	msg = strings.ReplaceAll(msg, oneName, "template")
	if len(msg) > 400 {
		msg = msg[:400] + "…"
	}
	return msg
}
