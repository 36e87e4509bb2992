// Package lazyre is a package-level regular expression compiled on first
// use instead of at init.
//
// Why (issue 16, the process floor): nova is one binary, so every process —
// `nova version`, every CLI call through an owner — ran the init of every
// package, and nova's ~70 package-level regexp.MustCompile calls were ~10 %
// of `nova version`'s CPU, and their ~1 MB of allocations the reason the GC
// ran once before main. Go's own cmd/go does the same for the same reason
// (cmd/go/internal/lazyregexp); no maintained public package offers it, so
// this is a small hand-written wrapper over the standard library.
//
// A pattern that does not compile panics on first use instead of at start-up;
// TestAllCompile in cmd/nova compiles every pattern the binary declares
// (CompileAll), so a bad one still fails the tests, not a user.
package lazyre

import (
	"regexp"
	"sync"
)

// RE is a regexp.Regexp compiled on first use. Its methods are those of
// *regexp.Regexp that nova uses; Re gives the compiled value for the rest.
type RE struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*RE
)

// New returns pattern as an RE; nothing is compiled until it is used.
// Use it for package-level variables only.
func New(pattern string) *RE {
	r := &RE{pattern: pattern}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// CompileAll compiles every RE made so far and reports the patterns that do
// not compile (for tests: New defers MustCompile's panic to first use).
func CompileAll() (bad []string) {
	mu.Lock()
	rs := append([]*RE(nil), all...)
	mu.Unlock()
	for _, r := range rs {
		if _, err := regexp.Compile(r.pattern); err != nil {
			bad = append(bad, r.pattern+": "+err.Error())
			continue
		}
		r.Re()
	}
	return bad
}

// Re is the compiled expression (compiled now if it was not yet).
func (r *RE) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.pattern) })
	return r.re
}

// String is the source text of the expression.
func (r *RE) String() string { return r.pattern }

func (r *RE) Match(b []byte) bool                  { return r.Re().Match(b) }
func (r *RE) MatchString(s string) bool            { return r.Re().MatchString(s) }
func (r *RE) Find(b []byte) []byte                 { return r.Re().Find(b) }
func (r *RE) FindIndex(b []byte) []int             { return r.Re().FindIndex(b) }
func (r *RE) FindString(s string) string           { return r.Re().FindString(s) }
func (r *RE) FindStringIndex(s string) []int       { return r.Re().FindStringIndex(s) }
func (r *RE) FindSubmatch(b []byte) [][]byte       { return r.Re().FindSubmatch(b) }
func (r *RE) FindSubmatchIndex(b []byte) []int     { return r.Re().FindSubmatchIndex(b) }
func (r *RE) FindStringSubmatch(s string) []string { return r.Re().FindStringSubmatch(s) }
func (r *RE) FindStringSubmatchIndex(s string) []int {
	return r.Re().FindStringSubmatchIndex(s)
}
func (r *RE) FindAll(b []byte, n int) [][]byte           { return r.Re().FindAll(b, n) }
func (r *RE) FindAllIndex(b []byte, n int) [][]int       { return r.Re().FindAllIndex(b, n) }
func (r *RE) FindAllString(s string, n int) []string     { return r.Re().FindAllString(s, n) }
func (r *RE) FindAllStringIndex(s string, n int) [][]int { return r.Re().FindAllStringIndex(s, n) }
func (r *RE) FindAllSubmatch(b []byte, n int) [][][]byte { return r.Re().FindAllSubmatch(b, n) }
func (r *RE) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return r.Re().FindAllSubmatchIndex(b, n)
}
func (r *RE) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}
func (r *RE) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Re().FindAllStringSubmatchIndex(s, n)
}
func (r *RE) ReplaceAll(src, repl []byte) []byte { return r.Re().ReplaceAll(src, repl) }
func (r *RE) ReplaceAllString(src, repl string) string {
	return r.Re().ReplaceAllString(src, repl)
}
func (r *RE) ReplaceAllLiteralString(src, repl string) string {
	return r.Re().ReplaceAllLiteralString(src, repl)
}
func (r *RE) ReplaceAllFunc(src []byte, repl func([]byte) []byte) []byte {
	return r.Re().ReplaceAllFunc(src, repl)
}
func (r *RE) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, repl)
}
func (r *RE) Split(s string, n int) []string { return r.Re().Split(s, n) }
func (r *RE) SubexpNames() []string          { return r.Re().SubexpNames() }
func (r *RE) SubexpIndex(name string) int    { return r.Re().SubexpIndex(name) }
func (r *RE) NumSubexp() int                 { return r.Re().NumSubexp() }
