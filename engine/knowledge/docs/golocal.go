package docs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// LocalDoc is documentation read from disk at the project's exact version.
type LocalDoc struct {
	// Library is the canonical name (a Go package path, an npm package).
	Library string
	// Topic is what is left of the request's topic after it chose a
	// subpackage ("" when it did).
	Topic string
	// Version is the exact version (go.mod, GOROOT/VERSION, package.json).
	Version string
	// Origin says where it was read ("module cache", "vendor", "GOROOT", …).
	Origin  string
	Title   string
	Content string
}

// errNotLocal: the library is not one of the project's dependencies; the
// fetcher moves on to the cache and the network. errLocalMissing: it is one,
// but its docs cannot be read (not downloaded, no Go files); the fetcher
// moves on too and says why.
var (
	errNotLocal     = errors.New("not a local dependency")
	errLocalMissing = errors.New("local docs missing")
)

// Bounds of what a local lookup reads.
const (
	maxGoFiles     = 300
	maxGoFileBytes = 2 << 20
	maxDeclLines   = 40
)

// goDocs finds Go packages of the project's modules (go.mod), its own
// module, and the standard library, and renders their documentation like
// `go doc`. It needs no network and runs no `go` command.
type goDocs struct {
	root     string
	modCache string
	goroot   string

	mu    sync.Mutex
	mtime time.Time
	size  int64
	mod   *modfile.File
}

// goEnv reads where the module cache and GOROOT are: GOMODCACHE, else
// GOPATH's first entry + /pkg/mod, else $HOME/go/pkg/mod; GOROOT, else the
// one this binary was built with.
func goEnv(getenv func(string) string) (modCache, goroot string) {
	modCache = getenv("GOMODCACHE")
	if modCache == "" {
		gp := getenv("GOPATH")
		if gp != "" {
			gp = filepath.SplitList(gp)[0]
		} else if home := getenv("HOME"); home != "" {
			gp = filepath.Join(home, "go")
		}
		if gp != "" {
			modCache = filepath.Join(gp, "pkg", "mod")
		}
	}
	goroot = getenv("GOROOT")
	if goroot == "" {
		goroot = runtime.GOROOT() //nolint:staticcheck // the toolchain's GOROOT is the best guess left
	}
	return modCache, goroot
}

// goModFile returns the parsed go.mod of the workspace (nil when there is
// none), re-read only when the file changed.
func (g *goDocs) goModFile() *modfile.File {
	p := filepath.Join(g.root, "go.mod")
	st, err := os.Stat(p)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		g.mod = nil
		return nil
	}
	if g.mod != nil && st.ModTime().Equal(g.mtime) && st.Size() == g.size {
		return g.mod
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	f, err := modfile.ParseLax(p, data, nil)
	if err != nil {
		return nil
	}
	g.mod, g.mtime, g.size = f, st.ModTime(), st.Size()
	return f
}

// goTarget is a resolved package directory.
type goTarget struct {
	importPath string
	dir        string // the package directory
	modRoot    string // the module (or GOROOT/src) root it must stay inside
	version    string
	origin     string
}

// resolve maps a library name to a module of go.mod (or the main module,
// or the standard library) and a directory on disk.
func (g *goDocs) resolve(library string) (goTarget, error) {
	lib := strings.TrimSuffix(strings.TrimSpace(library), "/")
	if module.CheckImportPath(lib) != nil {
		return goTarget{}, errNotLocal
	}
	f := g.goModFile()
	if f != nil {
		if t, ok, err := g.fromGoMod(f, lib); ok || err != nil {
			return t, err
		}
	}
	first, _, _ := strings.Cut(lib, "/")
	if !strings.Contains(first, ".") && g.goroot != "" {
		dir := filepath.Join(g.goroot, "src", filepath.FromSlash(lib))
		if isDir(dir) {
			return goTarget{importPath: lib, dir: dir, modRoot: filepath.Join(g.goroot, "src"),
				version: goVersion(g.goroot), origin: "GOROOT"}, nil
		}
	}
	return goTarget{}, errNotLocal
}

// fromGoMod finds lib among the main module and the required modules; a
// short name ("testify", "cobra") matches a required module's last path
// element.
func (g *goDocs) fromGoMod(f *modfile.File, lib string) (goTarget, bool, error) {
	if f.Module != nil {
		if mp := f.Module.Mod.Path; lib == mp || strings.HasPrefix(lib, mp+"/") {
			return g.target(lib, mp, g.root, "", "workspace"), true, nil
		}
	}
	var best *modfile.Require
	for _, r := range f.Require {
		if lib == r.Mod.Path || strings.HasPrefix(lib, r.Mod.Path+"/") {
			if best == nil || len(r.Mod.Path) > len(best.Mod.Path) {
				best = r
			}
		}
	}
	if best == nil && !strings.Contains(lib, "/") {
		for _, r := range f.Require {
			if strings.EqualFold(shortName(r.Mod.Path), lib) && (best == nil || best.Indirect && !r.Indirect) {
				best = r
			}
		}
		if best != nil {
			lib = best.Mod.Path
		}
	}
	if best == nil {
		return goTarget{}, false, nil
	}
	m := best.Mod
	for _, rep := range f.Replace {
		if rep.Old.Path != m.Path || (rep.Old.Version != "" && rep.Old.Version != m.Version) {
			continue
		}
		if rep.New.Version == "" { // a local directory
			dir := rep.New.Path
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(g.root, dir)
			}
			return g.target(lib, m.Path, dir, m.Version, "replace "+rep.New.Path), true, nil
		}
		m = rep.New
		lib = m.Path + strings.TrimPrefix(lib, best.Mod.Path)
	}
	if vdir := filepath.Join(g.root, "vendor", filepath.FromSlash(m.Path)); isFile(filepath.Join(g.root, "vendor", "modules.txt")) && isDir(vdir) {
		return g.target(lib, m.Path, vdir, m.Version, "vendor"), true, nil
	}
	if g.modCache == "" {
		return goTarget{}, true, fmt.Errorf("%w: %s@%s: no module cache (set GOMODCACHE or GOPATH)", errLocalMissing, m.Path, m.Version)
	}
	ep, err1 := module.EscapePath(m.Path)
	ev, err2 := module.EscapeVersion(m.Version)
	if err1 != nil || err2 != nil {
		return goTarget{}, true, errNotLocal
	}
	dir := filepath.Join(g.modCache, filepath.FromSlash(ep)+"@"+ev)
	if !isDir(dir) {
		return goTarget{}, true, fmt.Errorf("%w: %s@%s is not in the module cache (run `go mod download`)", errLocalMissing, m.Path, m.Version)
	}
	return g.target(lib, m.Path, dir, m.Version, "module cache"), true, nil
}

func (g *goDocs) target(lib, modPath, modDir, version, origin string) goTarget {
	rel := strings.TrimPrefix(strings.TrimPrefix(lib, modPath), "/")
	return goTarget{importPath: lib, dir: filepath.Join(modDir, filepath.FromSlash(rel)), modRoot: modDir,
		version: version, origin: origin}
}

// shortName is a module path's last element without a /vN suffix.
func shortName(p string) string {
	base := path.Base(p)
	if len(base) >= 2 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	return base
}

// goVersion reads GOROOT/VERSION ("go1.26.8").
func goVersion(goroot string) string {
	if f, err := os.Open(filepath.Join(goroot, "VERSION")); err == nil {
		defer func() { _ = f.Close() }()
		sc := bufio.NewScanner(f)
		if sc.Scan() {
			if v := strings.TrimSpace(sc.Text()); strings.HasPrefix(v, "go") {
				return v
			}
		}
	}
	return runtime.Version()
}

// Lookup returns the documentation of library (a package path of a module
// the project requires, or a short module name) for topic: a subpackage
// name selects that package, anything else selects the package's symbols
// whose names (then docs) match it.
func (g *goDocs) Lookup(library, topic string) (LocalDoc, error) {
	t, err := g.resolve(library)
	if err != nil {
		return LocalDoc{}, err
	}
	if topic != "" && !strings.ContainsAny(topic, " \\") {
		sub := strings.Trim(topic, "/")
		if module.CheckImportPath(t.importPath+"/"+sub) == nil {
			dir := filepath.Join(t.dir, filepath.FromSlash(sub))
			if within(t.modRoot, dir) && hasGoFiles(dir) {
				t.importPath += "/" + sub
				t.dir = dir
				topic = ""
			}
		}
	}
	if !within(t.modRoot, t.dir) {
		return LocalDoc{}, errNotLocal
	}
	text, title, rank, err := renderGoPackage(t.dir, t.importPath, topic)
	if err != nil && topic == "" {
		return LocalDoc{}, fmt.Errorf("%w: %s: %w", errLocalMissing, t.importPath, err)
	}
	if topic != "" && rank != rankExact {
		// "testify Equal": the symbol lives in a subpackage (assert, require).
		if sub, stext, stitle, ok := findInSubpackages(t, topic); ok {
			t.importPath, t.dir, text, title, err = t.importPath+"/"+sub, filepath.Join(t.dir, sub), stext, stitle, nil
		}
	}
	if err != nil {
		return LocalDoc{}, fmt.Errorf("%w: %s: %w", errLocalMissing, t.importPath, err)
	}
	where := "the version this project's go.mod requires, from the " + t.origin
	switch t.origin {
	case "GOROOT":
		where = "standard library of the installed Go toolchain"
	case "workspace":
		where = "this workspace's own code"
	}
	header := fmt.Sprintf("Go package %s %s (%s)\n\n", t.importPath, t.version, where)
	if t.version == "" {
		header = fmt.Sprintf("Go package %s (%s)\n\n", t.importPath, where)
	}
	return LocalDoc{Library: t.importPath, Topic: topic, Version: t.version, Origin: t.origin, Title: title,
		Content: header + text}, nil
}

// within reports whether dir is root or below it, after resolving symlinks
// (a package directory never leads outside its module).
func within(root, dir string) bool {
	r, err1 := filepath.EvalSymlinks(root)
	d, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(r, d)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func hasGoFiles(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			return true
		}
	}
	return false
}

// maxSubpackages bounds the subpackages searched for a topic's symbol.
const maxSubpackages = 40

// findInSubpackages looks for a symbol named like topic in the package's
// direct subpackages (not internal, testdata or vendor ones).
func findInSubpackages(t goTarget, topic string) (sub, text, title string, ok bool) {
	ents, err := os.ReadDir(t.dir)
	if err != nil {
		return "", "", "", false
	}
	n := 0
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || name == "internal" || name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		if n++; n > maxSubpackages {
			break
		}
		dir := filepath.Join(t.dir, name)
		if module.CheckImportPath(t.importPath+"/"+name) != nil || !within(t.modRoot, dir) || !hasGoFiles(dir) {
			continue
		}
		text, title, rank, err := renderGoPackage(dir, t.importPath+"/"+name, topic)
		if err == nil && rank == rankExact {
			return name, text, title, true
		}
	}
	return "", "", "", false
}

// renderGoPackage parses the package in dir (non-test files matching this
// platform's build constraints) and renders it like `go doc`: the package
// doc and a summary of its exported API, or, with a topic, the full
// declarations and docs of the matching symbols (rank says how well the
// best one matched; without a match the overview follows a note).
func renderGoPackage(dir, importPath, topic string) (text, title string, rank int, err error) {
	fset := token.NewFileSet()
	files, err := parseGoFiles(fset, dir)
	if err != nil {
		return "", "", rankNone, err
	}
	pkg, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		return "", "", rankNone, fmt.Errorf("read package docs: %w", err)
	}
	r := goRenderer{fset: fset, pkg: pkg}
	fmt.Fprintf(&r.b, "package %s // import %q\n\n", pkg.Name, importPath)
	title = importPath
	if topic != "" {
		if rank := r.symbols(topic); rank != rankNone {
			return r.b.String(), importPath + " " + topic, rank, nil
		}
		fmt.Fprintf(&r.b, "(no exported symbol matches %q; the package overview follows)\n\n", topic)
	}
	if pkg.Doc != "" {
		r.b.Write(pkg.Text(pkg.Doc))
		r.b.WriteByte('\n')
	}
	r.summary()
	return r.b.String(), title, rankNone, nil
}

// How well a topic matched a symbol.
const (
	rankExact = 0  // the symbol's name
	rankName  = 1  // part of its name
	rankDoc   = 2  // its doc comment
	rankNone  = -1 // nothing
)

// parseGoFiles parses the package's files; files of another package name
// than the majority (or "main" next to a library) are left out.
func parseGoFiles(fset *token.FileSet, dir string) ([]*ast.File, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read package: %w", err)
	}
	ctxt := build.Default
	ctxt.CgoEnabled = false
	byName := map[string][]*ast.File{}
	n := 0
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		if n++; n > maxGoFiles {
			break
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxGoFileBytes {
			continue
		}
		if ok, err := ctxt.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil || f.Name == nil {
			continue
		}
		byName[f.Name.Name] = append(byName[f.Name.Name], f)
	}
	best := ""
	for name, fs := range byName {
		switch {
		case best == "":
			best = name
		case (name == "main") != (best == "main"):
			if best == "main" {
				best = name
			}
		case len(fs) > len(byName[best]) || len(fs) == len(byName[best]) && name < best:
			best = name
		}
	}
	if best == "" {
		return nil, fmt.Errorf("no Go files in %s: %w", dir, fs.ErrNotExist)
	}
	return byName[best], nil
}

type goRenderer struct {
	fset *token.FileSet
	pkg  *doc.Package
	b    bytes.Buffer
}

// decl prints a declaration without its doc comment, cut to maxDeclLines.
func (r *goRenderer) decl(node ast.Node) string {
	switch d := node.(type) {
	case *ast.FuncDecl:
		c := *d
		c.Doc, c.Body = nil, nil
		node = &c
	case *ast.GenDecl:
		c := *d
		c.Doc = nil
		node = &c
	}
	var buf bytes.Buffer
	if err := (&printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}).Fprint(&buf, r.fset, node); err != nil {
		return ""
	}
	lines := strings.Split(buf.String(), "\n")
	if len(lines) > maxDeclLines {
		lines = append(lines[:maxDeclLines], "\t// … (declaration cut)")
	}
	return strings.Join(lines, "\n")
}

// oneLine summarises a type declaration: struct and interface bodies become
// "{ ... }".
func (r *goRenderer) typeLine(t *doc.Type) string {
	if t.Decl == nil || len(t.Decl.Specs) == 0 {
		return "type " + t.Name
	}
	for _, s := range t.Decl.Specs {
		ts, ok := s.(*ast.TypeSpec)
		if !ok || ts.Name.Name != t.Name {
			continue
		}
		c := *ts
		c.Doc, c.Comment = nil, nil
		switch ts.Type.(type) {
		case *ast.StructType:
			c.Type = ast.NewIdent("struct{ ... }")
		case *ast.InterfaceType:
			c.Type = ast.NewIdent("interface{ ... }")
		}
		var buf bytes.Buffer
		if printer.Fprint(&buf, r.fset, &c) == nil {
			return "type " + firstLine(buf.String())
		}
	}
	return "type " + t.Name
}

// summary lists the exported API like `go doc` without a symbol.
func (r *goRenderer) summary() {
	for _, group := range [][]*doc.Value{r.pkg.Consts, r.pkg.Vars} {
		for _, v := range group {
			r.b.WriteString(summariseValue(r.decl(v.Decl)))
			r.b.WriteByte('\n')
		}
	}
	for _, f := range r.pkg.Funcs {
		r.b.WriteString(r.decl(f.Decl) + "\n")
	}
	for _, t := range r.pkg.Types {
		r.b.WriteString(r.typeLine(t) + "\n")
		for _, f := range t.Funcs {
			r.b.WriteString("    " + r.decl(f.Decl) + "\n")
		}
	}
}

// summariseValue shortens a const/var block to its first lines.
func summariseValue(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 6 {
		lines = append(lines[:5], "\t...", lines[len(lines)-1])
	}
	return strings.Join(lines, "\n")
}

// symbols renders the symbols matching topic: exact names first, then
// names containing it, then symbols whose docs mention it. It returns the
// rank of what it rendered (rankNone: nothing matched).
func (r *goRenderer) symbols(topic string) int {
	type sym struct {
		name string
		node ast.Node
		doc  string
		typ  *doc.Type
	}
	var all []sym
	for _, group := range [][]*doc.Value{r.pkg.Consts, r.pkg.Vars} {
		for _, v := range group {
			for _, n := range v.Names {
				if token.IsExported(n) {
					all = append(all, sym{name: n, node: v.Decl, doc: v.Doc})
				}
			}
		}
	}
	for _, f := range r.pkg.Funcs {
		all = append(all, sym{name: f.Name, node: f.Decl, doc: f.Doc})
	}
	for _, t := range r.pkg.Types {
		all = append(all, sym{name: t.Name, node: t.Decl, doc: t.Doc, typ: t})
		for _, f := range t.Funcs {
			all = append(all, sym{name: f.Name, node: f.Decl, doc: f.Doc})
		}
		for _, m := range t.Methods {
			all = append(all, sym{name: t.Name + "." + m.Name, node: m.Decl, doc: m.Doc})
		}
		for _, v := range append(append([]*doc.Value{}, t.Consts...), t.Vars...) {
			for _, n := range v.Names {
				all = append(all, sym{name: n, node: v.Decl, doc: v.Doc})
			}
		}
	}
	low := strings.ToLower(topic)
	rank := func(s sym) int {
		name := strings.ToLower(s.name)
		short := name
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			short = name[i+1:]
		}
		switch {
		case name == low || short == low:
			return rankExact
		case strings.Contains(name, low):
			return rankName
		case strings.Contains(strings.ToLower(s.doc), low):
			return rankDoc
		}
		return rankNone
	}
	var hits []sym
	bestRank := rankDoc + 1
	for _, s := range all {
		if k := rank(s); k >= 0 && k <= bestRank {
			if k < bestRank {
				hits, bestRank = hits[:0], k
			}
			hits = append(hits, s)
		}
	}
	if len(hits) == 0 {
		return rankNone
	}
	sort.SliceStable(hits, func(i, j int) bool { return len(hits[i].name) < len(hits[j].name) })
	if len(hits) > 25 {
		hits = hits[:25]
	}
	seen := map[ast.Node]bool{}
	for _, s := range hits {
		if seen[s.node] {
			continue
		}
		seen[s.node] = true
		r.b.WriteString(r.decl(s.node) + "\n")
		if s.doc != "" {
			r.b.Write(indent(r.pkg.Text(s.doc)))
		}
		if s.typ != nil {
			for _, f := range s.typ.Funcs {
				r.b.WriteString("\n" + r.decl(f.Decl) + "\n")
			}
			for _, m := range s.typ.Methods {
				r.b.WriteString(r.decl(m.Decl) + "\n")
			}
		}
		r.b.WriteByte('\n')
	}
	return bestRank
}

func indent(text []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			out.WriteString("    ")
		}
		out.Write(line)
	}
	return out.Bytes()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
