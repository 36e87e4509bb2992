// Package gen writes the remote client of an interface served by
// engine/rpc: a type whose every servable method calls the owning process
// (zz_generated_remote.go), and the wire registry of the sentinel errors and
// error types callers branch on (zz_generated_errors.go). It reads the Go
// declarations with go/packages and go/types, so embedded interfaces,
// aliases and types from other packages resolve exactly. The command is
// engine/rpc/rpcgen; the //go:generate line beside each generated file is
// the one place its arguments live (the freshness tests read it too).
package gen

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Config says what to generate.
type Config struct {
	// Iface is the interface: "import/path.Name".
	Iface string
	// Type is the generated type's name (its constructor is New+Type).
	Type string
	// Out is the remote client's file name, relative to Dir.
	Out string
	// Idempotent names methods that may be retried once when the
	// connection breaks after the request was sent. A method whose doc
	// comment in the interface's package has the line //rpc:idempotent is
	// idempotent too (embedded interfaces declared in that package
	// included: engine.Workspace embeds one interface per area; the
	// methods are the interface's method set, so the wire names do not
	// depend on how it is split).
	Idempotent []string
	// Local names methods the client implements itself (Close closes the
	// client, never the owner's workspace).
	Local []string
	// Errors are package patterns whose exported sentinel errors (package
	// variables named Err…) and error types are registered on the wire.
	Errors []string
	// ErrorsOut is the registry's file name, relative to Dir (required
	// with Errors).
	ErrorsOut string
	// ErrorsExclude are import paths (a trailing /... matches below) left
	// out of the registry.
	ErrorsExclude []string
	// Dir is the output package's directory (go generate runs there).
	Dir string
}

// ParseArgs reads rpcgen's command line (without the program name).
func ParseArgs(args []string) (Config, error) {
	var cfg Config
	fs := flag.NewFlagSet("rpcgen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var idem, local, errs, excl string
	fs.StringVar(&cfg.Iface, "iface", "", "interface to implement: import/path.Name")
	fs.StringVar(&cfg.Type, "type", "", "name of the generated type")
	fs.StringVar(&cfg.Out, "out", "zz_generated_remote.go", "output file")
	fs.StringVar(&idem, "idempotent", "", "comma-separated methods safe to retry after a lost connection")
	fs.StringVar(&local, "local", "", "comma-separated methods the client implements itself (Close)")
	fs.StringVar(&errs, "errors", "", "comma-separated package patterns whose sentinels and error types cross the wire")
	fs.StringVar(&cfg.ErrorsOut, "errors-out", "zz_generated_errors.go", "registry output file")
	fs.StringVar(&excl, "errors-exclude", "", "comma-separated import paths (…/... for below) left out of the registry")
	if err := fs.Parse(args); err != nil {
		return cfg, fmt.Errorf("rpcgen: %w", err)
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("rpcgen: unexpected arguments %q", fs.Args())
	}
	cfg.Idempotent, cfg.Local, cfg.Errors, cfg.ErrorsExclude = split(idem), split(local), split(errs), split(excl)
	if cfg.Iface == "" || cfg.Type == "" {
		return cfg, errors.New("rpcgen: -iface and -type are required")
	}
	return cfg, nil
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ConfigFromFile finds the //go:generate line that runs rpcgen in a Go file
// and parses its arguments, so that a test regenerates exactly what
// `go generate` would.
func ConfigFromFile(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:generate ")
		if !ok || !strings.Contains(rest, "/rpcgen") {
			continue
		}
		fields := strings.Fields(rest)
		for i, f := range fields {
			if strings.HasSuffix(f, "/rpcgen") {
				cfg, err := ParseArgs(fields[i+1:])
				cfg.Dir = filepath.Dir(path)
				return cfg, err
			}
		}
	}
	return Config{}, fmt.Errorf("%s: no //go:generate line running rpcgen", path)
}

// Result is the generated files (name relative to Dir → content) and the
// methods that were not generated, with the reason.
type Result struct {
	Files   map[string][]byte
	Skipped map[string]string
	Methods []string
}

// Generate loads the packages and writes the files in memory.
func Generate(cfg Config) (*Result, error) {
	dot := strings.LastIndex(cfg.Iface, ".")
	if dot <= 0 {
		return nil, fmt.Errorf("rpcgen: -iface %q: want import/path.Name", cfg.Iface)
	}
	ifacePath, ifaceName := cfg.Iface[:dot], cfg.Iface[dot+1:]
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	mode := packages.NeedName | packages.NeedTypes | packages.NeedImports
	self, err := packages.Load(&packages.Config{Mode: packages.NeedName, Dir: dir}, ".")
	if err != nil {
		return nil, fmt.Errorf("rpcgen: load %s: %w", dir, err)
	}
	if len(self) != 1 || self[0].PkgPath == "" {
		return nil, fmt.Errorf("rpcgen: %s is not one Go package", dir)
	}
	out := &outFile{self: self[0].PkgPath, name: self[0].Name}

	skip := func(path string) bool { return path == out.self || excluded(path, cfg.ErrorsExclude) }
	pkgs, err := load(dir, mode|packages.NeedSyntax, skip, ifacePath)
	if err != nil {
		return nil, err
	}
	var ifacePkg *packages.Package
	for _, p := range pkgs {
		if p.PkgPath == ifacePath {
			ifacePkg = p
		}
	}
	if ifacePkg == nil {
		return nil, fmt.Errorf("rpcgen: package %s not found", ifacePath)
	}
	obj, ok := ifacePkg.Types.Scope().Lookup(ifaceName).(*types.TypeName)
	if !ok {
		return nil, fmt.Errorf("rpcgen: %s has no type %s", ifacePath, ifaceName)
	}
	iface, ok := obj.Type().Underlying().(*types.Interface)
	if !ok {
		return nil, fmt.Errorf("rpcgen: %s is not an interface", cfg.Iface)
	}

	cfg.Idempotent = append(slices.Clone(cfg.Idempotent), directives(ifacePkg, "rpc:idempotent")...)
	res := &Result{Files: map[string][]byte{}, Skipped: map[string]string{}}
	src, err := out.remote(cfg, obj, iface, res)
	if err != nil {
		return nil, err
	}
	res.Files[cfg.Out] = src
	if len(cfg.Errors) > 0 {
		if cfg.ErrorsOut == "" {
			return nil, errors.New("rpcgen: -errors needs -errors-out")
		}
		scanned, err := load(dir, mode, skip, cfg.Errors...)
		if err != nil {
			return nil, err
		}
		src, err := registry(cfg, out.self, out.name, scanned)
		if err != nil {
			return nil, err
		}
		res.Files[cfg.ErrorsOut] = src
	}
	return res, nil
}

// load loads packages and fails when one of them does not compile, except
// those skip names (the generated package itself, whose stale files are
// being replaced, and excluded ones).
// directives lists the interface methods of pkg whose doc comment has the
// line //<name> (a Go directive: godoc hides it).
func directives(pkg *packages.Package, name string) []string {
	var out []string
	for _, f := range pkg.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			it, ok := n.(*ast.InterfaceType)
			if !ok {
				return true
			}
			for _, m := range it.Methods.List {
				if m.Doc == nil || len(m.Names) == 0 {
					continue
				}
				for _, c := range m.Doc.List {
					if strings.TrimSpace(c.Text) == "//"+name {
						for _, id := range m.Names {
							out = append(out, id.Name)
						}
					}
				}
			}
			return true
		})
	}
	return out
}

func load(dir string, mode packages.LoadMode, skip func(path string) bool, patterns ...string) ([]*packages.Package, error) {
	pkgs, err := packages.Load(&packages.Config{Mode: mode, Dir: dir}, patterns...)
	if err != nil {
		return nil, fmt.Errorf("rpcgen: load %s: %w", strings.Join(patterns, " "), err)
	}
	var loadErrs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if skip(p.PkgPath) {
			return
		}
		for _, e := range p.Errors {
			loadErrs = append(loadErrs, e.Error())
		}
	})
	if len(loadErrs) > 0 {
		return nil, fmt.Errorf("rpcgen: the packages do not compile:\n%s", strings.Join(loadErrs, "\n"))
	}
	return pkgs, nil
}

// Write generates and writes the files.
func Write(cfg Config) (*Result, error) {
	res, err := Generate(cfg)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(res.Files))
	for name := range res.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(cfg.Dir, name), res.Files[name], 0o644); err != nil {
			return nil, fmt.Errorf("rpcgen: %w", err)
		}
	}
	return res, nil
}

// outFile tracks the imports of one generated file.
type outFile struct {
	self, name string
	byPath     map[string]string
	used       map[string]bool
}

func (o *outFile) reset() {
	o.byPath = map[string]string{}
	o.used = map[string]bool{}
}

// qualifier names a package in the generated file, adding it to the
// imports; two packages with one name get a numbered alias.
func (o *outFile) qualifier(p *types.Package) string {
	if p.Path() == o.self {
		return ""
	}
	return o.importPath(p.Path(), p.Name())
}

func (o *outFile) importPath(path, name string) string {
	if n, ok := o.byPath[path]; ok {
		return n
	}
	n := name
	for i := 2; o.used[n]; i++ {
		n = fmt.Sprintf("%s%d", name, i)
	}
	o.byPath[path] = n
	o.used[n] = true
	return n
}

func (o *outFile) imports() string {
	paths := make([]string, 0, len(o.byPath))
	for p := range o.byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	b.WriteString("import (\n")
	// Standard library first, then the rest, as goimports groups them.
	for pass, std := range []bool{true, false} {
		wrote := false
		for _, p := range paths {
			first, _, _ := strings.Cut(p, "/")
			if strings.Contains(first, ".") == std {
				continue
			}
			if !wrote && pass == 1 && b.Len() > len("import (\n") {
				b.WriteString("\n")
			}
			wrote = true
			n := o.byPath[p]
			if n == p[strings.LastIndex(p, "/")+1:] {
				fmt.Fprintf(&b, "\t%q\n", p)
			} else {
				fmt.Fprintf(&b, "\t%s %q\n", n, p)
			}
		}
	}
	b.WriteString(")\n")
	return b.String()
}

const rpcPath = "github.com/nova-dev/nova/engine/rpc"

func (o *outFile) remote(cfg Config, obj *types.TypeName, iface *types.Interface, res *Result) ([]byte, error) {
	o.reset()
	o.used[o.name] = true
	rpcName := o.importPath(rpcPath, "rpc")
	ctxName := o.importPath("context", "context")
	ifaceRef := types.TypeString(obj.Type(), o.qualifier)
	typ := cfg.Type

	var body bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&body, format, args...) }
	p("// %s implements %s by calling the nova process that owns the\n", typ, ifaceRef)
	p("// workspace, over its socket (engine/rpc).\n")
	p("type %s struct{ c *%s.Client }\n\n", typ, rpcName)
	p("// New%s returns a %s that calls through c.\n", typ, typ)
	p("func New%s(c *%s.Client) *%s { return &%s{c: c} }\n\n", typ, rpcName, typ, typ)

	local := map[string]bool{}
	for _, n := range cfg.Local {
		local[n] = true
	}
	idem := map[string]bool{}
	for _, n := range cfg.Idempotent {
		idem[n] = true
	}
	seen := map[string]bool{}
	for i := range iface.NumMethods() {
		fn := iface.Method(i)
		seen[fn.Name()] = true
		if local[fn.Name()] {
			sig := fn.Type().(*types.Signature)
			if sig.Params().Len() != 0 || sig.Results().Len() != 1 || !isError(sig.Results().At(0).Type()) {
				return nil, fmt.Errorf("rpcgen: -local %s: only a method () error can be local", fn.Name())
			}
			p("// %s closes the client (never the owner's workspace).\n", fn.Name())
			p("func (r *%s) %s() error { return r.c.Close() }\n\n", typ, fn.Name())
			res.Methods = append(res.Methods, fn.Name())
			continue
		}
		m := classify(fn)
		if m.skip != "" {
			res.Skipped[m.name] = m.skip
			continue
		}
		o.method(&body, typ, rpcName, ctxName, m, idem[m.name])
		res.Methods = append(res.Methods, m.name)
	}
	for _, n := range append(slices.Clone(cfg.Local), cfg.Idempotent...) {
		if !seen[n] {
			return nil, fmt.Errorf("rpcgen: %s has no method %s (named by -local or -idempotent)", cfg.Iface, n)
		}
	}
	if len(res.Skipped) == 0 {
		p("var _ %s = (*%s)(nil)\n", ifaceRef, typ)
	} else {
		names := make([]string, 0, len(res.Skipped))
		for n := range res.Skipped {
			names = append(names, n)
		}
		sort.Strings(names)
		p("// Not generated: these methods of %s cannot cross the wire,\n", ifaceRef)
		p("// so %s does not implement the interface yet.\n", typ)
		for _, n := range names {
			p("//   - %s: %s\n", n, shortReason(res.Skipped[n]))
		}
	}

	var file bytes.Buffer
	fmt.Fprintf(&file, "// Code generated by rpcgen from %s; DO NOT EDIT.\n", cfg.Iface)
	fmt.Fprintf(&file, "// Regenerate with `go generate` in this package's directory.\n\n")
	fmt.Fprintf(&file, "package %s\n\n", o.name)
	file.WriteString(o.imports())
	file.WriteString("\n")
	file.Write(body.Bytes())
	src, err := format.Source(file.Bytes())
	if err != nil {
		return nil, fmt.Errorf("rpcgen: format the generated code: %w\n%s", err, file.Bytes())
	}
	return src, nil
}

var reserved = map[string]bool{"r": true, "err": true, "cancel": true, "ctx": true}

func (o *outFile) method(b *bytes.Buffer, typ, rpcName, ctxName string, m method, idempotent bool) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	ts := func(t types.Type) string { return types.TypeString(t, o.qualifier) }

	var params, argNames []string
	if m.hasCtx {
		params = append(params, "ctx "+ctxName+".Context")
	}
	for i, a := range m.args {
		name := a.Name()
		if name == "" || name == "_" || reserved[name] || strings.HasPrefix(name, "res") {
			name = fmt.Sprintf("a%d", i)
		}
		t := ts(a.Type())
		if m.variadic && i == len(m.args)-1 {
			t = "..." + ts(a.Type().(*types.Slice).Elem())
		}
		params = append(params, name+" "+t)
		argNames = append(argNames, name)
	}
	var results []string
	for _, r := range m.results {
		results = append(results, ts(r))
	}
	if m.hasErr {
		results = append(results, "error")
	}
	resultList := strings.Join(results, ", ")
	if len(results) > 1 {
		resultList = "(" + resultList + ")"
	}
	argsExpr := "nil"
	if len(argNames) > 0 {
		argsExpr = "[]any{" + strings.Join(argNames, ", ") + "}"
	}
	opts := rpcName + ".CallOptions{}"
	if idempotent {
		opts = rpcName + ".CallOptions{Idempotent: true}"
	}

	p("// %s calls %s in the owning nova process.\n", m.name, m.name)
	p("func (r *%s) %s(%s) %s {\n", typ, m.name, strings.Join(params, ", "), resultList)
	if m.stream {
		callArgs := append([]string{"ctx", "r.c", fmt.Sprintf("%q", m.name)}, argNames...)
		if m.hasErr {
			p("\treturn %s.Stream[%s](%s)\n}\n\n", rpcName, ts(m.elem), strings.Join(callArgs, ", "))
		} else {
			p("\treturn %s.Subscribe[%s](%s)\n}\n\n", rpcName, ts(m.elem), strings.Join(callArgs, ", "))
		}
		return
	}
	if !m.hasCtx {
		p("\tctx, cancel := r.c.Background()\n\tdefer cancel()\n")
	}
	var resNames, resPtrs []string
	for i, r := range m.results {
		n := fmt.Sprintf("res%d", i)
		p("\tvar %s %s\n", n, ts(r))
		resNames = append(resNames, n)
		resPtrs = append(resPtrs, "&"+n)
	}
	resExpr := "nil"
	if len(resPtrs) > 0 {
		resExpr = "[]any{" + strings.Join(resPtrs, ", ") + "}"
	}
	call := fmt.Sprintf("r.c.Call(ctx, %q, %s, %s, %s)", m.name, argsExpr, resExpr, opts)
	switch {
	case m.hasErr && len(resNames) == 0:
		p("\treturn %s\n", call)
	case m.hasErr:
		p("\terr := %s\n", call)
		p("\treturn %s, err\n", strings.Join(resNames, ", "))
	default:
		p("\tif err := %s; err != nil {\n\t\tr.c.Report(%q, err)\n\t}\n", call, m.name)
		if len(resNames) > 0 {
			p("\treturn %s\n", strings.Join(resNames, ", "))
		}
	}
	p("}\n\n")
}

// Stale regenerates in memory what the //go:generate line in goFile would
// write and returns the files whose content on disk differs (or that are
// missing). Freshness tests call it.
func Stale(goFile string) ([]string, error) {
	cfg, err := ConfigFromFile(goFile)
	if err != nil {
		return nil, err
	}
	res, err := Generate(cfg)
	if err != nil {
		return nil, err
	}
	var stale []string
	for name, want := range res.Files {
		have, err := os.ReadFile(filepath.Join(cfg.Dir, name))
		if err != nil || !bytes.Equal(have, want) {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	return stale, nil
}
