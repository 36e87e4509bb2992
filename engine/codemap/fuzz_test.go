package codemap

import (
	"context"
	"testing"
	"unicode/utf8"
)

// fuzzParse checks Parse's contract on any input: no panic, and a file it
// maps has named definitions at lines inside the file.
func fuzzParse(t *testing.T, name string, src []byte) {
	fs, err := Parse(context.Background(), name, src)
	if err != nil {
		return
	}
	lines := 1
	for _, c := range src {
		if c == '\n' {
			lines++
		}
	}
	for _, d := range fs.Defs {
		if d.Name == "" || d.Line < 1 || d.Line > lines {
			t.Fatalf("%s: bad definition %+v (file of %d lines)", name, d, lines)
		}
		if !utf8.ValidString(d.Signature) {
			t.Fatalf("%s: signature is not UTF-8: %q", name, d.Signature)
		}
	}
}

func FuzzParseGo(f *testing.F) {
	f.Add([]byte(shop["store/store.go"]))
	f.Add([]byte("package x\nfunc (\n"))
	f.Add([]byte("package x\ntype I interface{ M[T any](x T) }\n"))
	f.Fuzz(func(t *testing.T, src []byte) { fuzzParse(t, "f.go", src) })
}

func FuzzParsePython(f *testing.F) {
	f.Add([]byte(shop["tools/clean.py"]))
	f.Add([]byte("def broken(:\n"))
	f.Fuzz(func(t *testing.T, src []byte) { fuzzParse(t, "f.py", src) })
}

func FuzzParseTypeScript(f *testing.F) {
	f.Add([]byte(shop["web/app.ts"]))
	f.Add([]byte("export const make = (r: number): Shape => new Circle(r);\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fuzzParse(t, "f.ts", src)
		fuzzParse(t, "f.tsx", src)
		fuzzParse(t, "f.js", src)
	})
}

func FuzzParseRust(f *testing.F) {
	f.Add([]byte("impl Point { pub fn new(x: i32) -> Self { Point { x } } }\n"))
	f.Fuzz(func(t *testing.T, src []byte) { fuzzParse(t, "f.rs", src) })
}

func FuzzParseJava(f *testing.F) {
	f.Add([]byte("class A { int foo(String s) { return bar(s); } }\n"))
	f.Fuzz(func(t *testing.T, src []byte) { fuzzParse(t, "F.java", src) })
}
