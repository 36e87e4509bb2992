package codemap

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/tools"
)

func kindNames(fs FileSyms) []string {
	var out []string
	for _, d := range fs.Defs {
		out = append(out, d.Kind+" "+d.Name)
	}
	return out
}

func refNames(fs FileSyms) []string {
	var out []string
	for _, r := range fs.Refs {
		out = append(out, r.Name)
	}
	return out
}

// Every language's real parser yields its definitions (with signatures,
// not bodies) and the names the file refers to.
func TestParseEachLanguage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		defs      []string
		refs      []string
		sig       string
	}{
		{"a.go", "package a\n\ntype T struct{ X int }\n\nfunc (t *T) M(x int) error {\n\treturn helper(x)\n}\n\nfunc helper(x int) error { return nil }\n\ntype I interface{ Do(n int) error }\n\nconst K = 3\n",
			[]string{"field X", "struct T", "method M", "func helper", "method Do", "interface I", "const K"}, []string{"helper"}, "func (t *T) M(x int) error"},
		{"a.py", "class Foo(Base):\n    def bar(self, x: int) -> str:\n        return helper(x)\n\ndef helper(y):\n    return Foo()\n",
			[]string{"class Foo", "method bar", "func helper"}, []string{"Base", "helper", "Foo"}, "def bar(self, x: int) -> str"},
		{"a.js", "function hello(name) { return greet(name) }\nconst greet = function(n) { return 'hi ' + n }\nclass A { m() { hello('x') } }\n",
			[]string{"func hello", "func greet", "class A", "method m"}, []string{"greet", "hello"}, "function hello(name)"},
		{"a.ts", "export interface Shape { area(): number }\nexport class Circle implements Shape {\n  area(): number { return 1 }\n}\nexport const make = (r: number): Shape => new Circle();\n",
			[]string{"interface Shape", "method area", "class Circle", "method area", "func make"}, []string{"Shape", "Circle"}, "class Circle implements Shape"},
		{"a.tsx", "export function Button(p: { label: string }) { return <b>{p.label}</b> }\n",
			[]string{"func Button"}, []string{"label"}, "function Button(p: { label: string })"},
		{"a.rs", "pub struct Point { x: i32 }\nimpl Point {\n    pub fn new(x: i32) -> Self { Point { x } }\n}\npub trait Shape { fn area(&self) -> f64; }\nfn main() { let p = Point::new(1); }\n",
			[]string{"struct Point", "method new", "trait Shape", "method area", "func main"}, []string{"Point"}, "pub fn new(x: i32) -> Self"},
		{"A.java", "package a;\npublic class A extends B {\n  public int foo(String s) { return bar(s); }\n}\ninterface I { void run(); }\n",
			[]string{"class A", "method foo", "interface I", "method run"}, []string{"bar"}, "public int foo(String s)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fs, err := Parse(context.Background(), c.name, []byte(c.src))
			require.NoError(t, err)
			assert.ElementsMatch(t, c.defs, kindNames(fs))
			assert.Subset(t, refNames(fs), c.refs)
			var sigs []string
			for _, d := range fs.Defs {
				sigs = append(sigs, d.Signature)
				assert.NotContains(t, d.Signature, "return", "signatures carry no bodies")
			}
			assert.Contains(t, sigs, c.sig)
		})
	}
}

// Every bad input of the issue is refused by Parse with an error (never a
// panic): files that do not parse, a file past MaxFileBytes, minified
// JavaScript, non-UTF-8 and binary source.
func TestParseRefusesBadInput(t *testing.T) {
	t.Parallel()
	minified := "var a=" + strings.Repeat("function(){return 1}+", 2000) + "1;"
	cases := []struct {
		name, src string
		want      error
	}{
		{"bad.go", "package x\nfunc (\n", ErrParse},
		{"bad.py", "def broken(:\n", ErrParse},
		{"bad.ts", "export class {{{ ", ErrParse},
		{"bad.rs", "fn main( {", ErrParse},
		{"Bad.java", "class { void", ErrParse},
		{"bad.js", "function (", ErrParse},
		{"big.go", "package x\n" + strings.Repeat("// x\n", MaxFileBytes/5+1), ErrSkipped},
		{"app.js", minified, ErrSkipped},
		{"app.min.js", "var a=1;\n", ErrSkipped},
		{"latin1.py", "x = '\xe9t\xe9'\n", ErrSkipped},
		{"nul.go", "package x\x00\n", ErrSkipped},
		{"notes.txt", "hello", ErrSkipped},
	}
	for _, c := range cases {
		_, err := Parse(context.Background(), c.name, []byte(c.src))
		assert.ErrorIs(t, err, c.want, c.name)
	}
}

// The map keeps the files that parse and drops, with the reason, every one
// that does not: a syntax error, a 50 MB generated file (never read),
// minified JavaScript, non-UTF-8 source, and a symlink loop (never
// followed).
func TestUpdateDropsBrokenFilesOnly(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, shop)
	writeFiles(t, root, map[string]string{
		"broken/bad.go":  "package broken\nfunc (\n",
		"web/bundle.js":  "var a=" + strings.Repeat("f(1)+", 5000) + "1;",
		"tools/latin.py": "x = '\xe9t\xe9'\n",
	})
	big := filepath.Join(root, "gen", "huge.go")
	require.NoError(t, os.MkdirAll(filepath.Dir(big), 0o755))
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(50<<20)) // a 50 MB file, sparse
	require.NoError(t, f.Close())
	require.NoError(t, os.Symlink(root, filepath.Join(root, "loop")))
	require.NoError(t, os.Symlink(filepath.Join(root, "loop"), filepath.Join(root, "web", "loop2")))

	m := openMap(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := m.Update(ctx)
	require.NoError(t, err)
	assert.Equal(t, 6, st.Files, "the six good source files")
	assert.Equal(t, map[string]int{SkipParse: 1, SkipTooLarge: 1, SkipMinified: 1, SkipNotUTF8: 1}, st.Skipped)
	assert.Equal(t, map[string]int{LangGo: 3, LangTypeScript: 2, LangPython: 1}, st.Langs)

	o, err := m.Outline(ctx, "broken/bad.go")
	require.NoError(t, err)
	assert.Equal(t, SkipParse, o.Skipped)
	locs, err := m.FindSymbol(ctx, "SaveOrder")
	require.NoError(t, err)
	require.Len(t, locs, 1)
	assert.Equal(t, "store/store.go", locs[0].Path)
}

// A re-map after one file changed parses that file only; a removed file
// leaves the map; a file whose time changed but content did not is not
// parsed again.
func TestUpdateIsIncremental(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, shop)
	m := openMap(t, root)
	ctx := context.Background()
	st, err := m.Update(ctx)
	require.NoError(t, err)
	assert.Equal(t, 6, st.Parsed)

	st, err = m.Update(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Parsed, "nothing changed")

	writeFiles(t, root, map[string]string{"store/store.go": shop["store/store.go"] + "\n// DeleteOrder removes an order.\nfunc (s *Store) DeleteOrder(id int) { delete(s.orders, id) }\n"})
	st, err = m.Update(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Parsed)
	locs, err := m.FindSymbol(ctx, "Store.DeleteOrder")
	require.NoError(t, err)
	assert.Equal(t, "store/store.go", locs[0].Path)

	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(root, "web/fmt.ts"), later, later))
	require.NoError(t, os.Remove(filepath.Join(root, "tools/clean.py")))
	st, err = m.Update(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Parsed, "same content, new time: not parsed")
	assert.Equal(t, 1, st.Removed)
	assert.Equal(t, 5, st.Files)
	_, err = m.FindSymbol(ctx, "Cleaner")
	require.ErrorIs(t, err, ErrNoSymbol)

	// A second map over the same database (another process) reads what
	// the first stored and parses nothing.
	m2 := New(m.db, root, Options{})
	st, err = m2.Update(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Parsed)
	assert.Equal(t, 5, st.Files)
}

// A task that names a function gets, in the map block, the file defining
// it with its signature and the files that call it; the block fits its
// budget and records one provenance item per file shown.
func TestBlockHasTheNamedFunctionAndItsCallers(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, shop)
	m := openMap(t, root)
	ctx := context.Background()
	text, items, err := m.Block(ctx, "Make SaveOrder reject orders with a negative total.", 400)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(text, BlockTag))
	assert.LessOrEqual(t, estimate(text), 400)
	assert.Contains(t, text, "store/store.go\n")
	assert.Contains(t, text, "func (s *Store) SaveOrder(o Order) error")
	assert.Contains(t, text, "used by: api/handler.go:10 (CreateOrder)")
	assert.NotContains(t, text, "s.orders[o.ID] = o", "no bodies")
	require.NotEmpty(t, items)
	assert.Equal(t, "store/store.go", items[0].ID)
	assert.Equal(t, "codemap", items[0].Block)

	small, _, err := m.Block(ctx, "Make SaveOrder reject orders with a negative total.", 50)
	require.NoError(t, err)
	assert.LessOrEqual(t, estimate(small), 50)
	assert.Contains(t, small, "SaveOrder", "the named function comes first")

	none, items, err := m.Block(ctx, "anything", 0)
	require.NoError(t, err)
	assert.Empty(t, none)
	assert.Empty(t, items)
}

// Without mentions the ranking still puts the most referred-to files first.
func TestRankedPutsReferencedFilesFirst(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, shop)
	m := openMap(t, root)
	files, err := m.Ranked(context.Background(), "", 0)
	require.NoError(t, err)
	require.Len(t, files, 6)
	assert.Equal(t, "store/store.go", files[0].Path)
	assert.Greater(t, files[0].Rank, files[len(files)-1].Rank)

	files, err = m.Ranked(context.Background(), "fix web/app.ts checkout", 2)
	require.NoError(t, err)
	require.Len(t, files, 2)
	assert.Equal(t, "web/app.ts", files[0].Path)
}

// findSymbol, references and outline answer from the map; outline's path
// must stay inside the workspace.
func TestQueries(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, shop)
	m := openMap(t, root)
	ctx := context.Background()
	refs, err := m.References(ctx, "store.NewStore")
	require.NoError(t, err)
	require.Len(t, refs, 1)
	assert.Equal(t, "cmd/shop/main.go", refs[0].Path)
	assert.Equal(t, "main", refs[0].In)

	o, err := m.Outline(ctx, "./tools/clean.py")
	require.NoError(t, err)
	assert.Equal(t, []string{"func clean", "class Cleaner", "method run"}, kindNames(FileSyms{Defs: o.Defs}))

	_, err = m.Outline(ctx, "../etc/passwd")
	require.Error(t, err)
	_, err = m.Outline(ctx, "README.md")
	require.ErrorIs(t, err, ErrNotMapped)
	_, err = m.FindSymbol(ctx, "NoSuchThing")
	require.ErrorIs(t, err, ErrNoSymbol)
}

// The code-map tools answer through the registry: definitions with
// file:line and signature, references, an outline; an unknown name is an
// answer, a path outside the workspace is refused.
func TestTools(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, shop)
	m := openMap(t, root)
	reg := tools.NewRegistry()
	require.NoError(t, tools.RegisterCode(reg, m.Index()))
	ctx := context.Background()
	env := &tools.Env{Root: root}
	call := func(name, args string) tools.Result {
		return reg.Execute(ctx, env, tools.Call{Name: name, Args: json.RawMessage(args)})
	}
	r := call(tools.NameFindSymbol, `{"name":"SaveOrder"}`)
	require.True(t, r.OK(), r.Output)
	assert.Equal(t, "store/store.go:16: func (s *Store) SaveOrder(o Order) error", r.Output)

	r = call(tools.NameReferences, `{"symbol":"SaveOrder"}`)
	require.True(t, r.OK(), r.Output)
	assert.Contains(t, r.Output, "api/handler.go:10 (in CreateOrder)")

	r = call(tools.NameOutline, `{"path":"tools/clean.py"}`)
	require.True(t, r.OK(), r.Output)
	assert.Contains(t, r.Output, "1│ def clean(path)")
	assert.Contains(t, r.Output, "Cleaner: def run(self, p)")

	r = call(tools.NameFindSymbol, `{"name":"Nope"}`)
	require.True(t, r.OK(), r.Output)
	assert.Contains(t, r.Output, "no definition named Nope")

	r = call(tools.NameOutline, `{"path":"../../etc/passwd"}`)
	assert.Equal(t, tools.StatusDenied, r.Status, r.Output)
}
