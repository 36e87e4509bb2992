package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-dev/nova/internal/safefile"
)

// MaxManifestSize bounds every project file DetectChecks reads (go.mod,
// package.json, Makefile, …): a real one is a few KB.
const MaxManifestSize = 1 << 20

// Detected is what DetectChecks found in a project: the check command
// lines, where each came from, and the files it could not read.
type Detected struct {
	// Checks are shell command lines for config.yaml's checks:, in the
	// order they should run (build before test before lint).
	Checks []string `json:"checks"`
	// Sources say how the checks were found, one per project file:
	// "go.mod -> go build, go test".
	Sources []string `json:"sources,omitempty"`
	// Unreadable names the project files nova could not read, with why. When
	// any is set, Checks is empty: a half-understood project gets no checks
	// rather than wrong ones.
	Unreadable []string `json:"unreadable,omitempty"`
}

// Comment is the YAML comment line written above the checks list: how they
// were found, or why there are none.
func (d Detected) Comment() string {
	return strings.Join(strings.Fields(d.comment()), " ") // one line, whatever a file name holds
}

func (d Detected) comment() string {
	switch {
	case len(d.Unreadable) > 0:
		return "# not detected: nova could not read " + strings.Join(d.Unreadable, "; ") + " (add your checks below by hand)"
	case len(d.Checks) == 0:
		return "# detected: nothing (no go.mod, package.json, pyproject.toml, pytest.ini, setup.cfg, Cargo.toml or Makefile test target)"
	}
	return "# detected: " + strings.Join(d.Sources, "; ")
}

// DetectChecks looks at the project files in root (only root itself, never
// its parents or subdirectories) and names the commands that build and test
// it:
//
//   - go.mod: go build ./... and go test ./...
//   - package.json: its build, test and lint scripts (those present), run
//     with the package manager its lockfile names (pnpm, yarn, bun, else npm)
//   - pyproject.toml, pytest.ini, or setup.cfg with [tool:pytest]: pytest
//   - Cargo.toml: cargo build and cargo test
//   - a Makefile with a test target: make test
//
// A file that exists but cannot be read or understood lands in Unreadable
// and no checks are returned. The error is only for a root that cannot be
// listed. Files are read with internal/safefile, at most MaxManifestSize
// bytes each; nothing is executed.
func DetectChecks(root string) (Detected, error) {
	st, err := os.Stat(root)
	if err != nil {
		return Detected{}, fmt.Errorf("detect checks: %w", err)
	}
	if !st.IsDir() {
		return Detected{}, fmt.Errorf("detect checks: %s is not a directory", root)
	}
	var d Detected
	add := func(source string, checks ...string) {
		d.Checks = append(d.Checks, checks...)
		d.Sources = append(d.Sources, source+" -> "+shortNames(checks))
	}
	bad := func(name string, err error) {
		d.Unreadable = append(d.Unreadable, name+" ("+reasonOf(err)+")")
	}
	read := func(name string) ([]byte, bool) {
		data, err := safefile.ReadFile(filepath.Join(root, name), MaxManifestSize)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, false
		case err != nil:
			bad(name, err)
			return nil, false
		case bytes.IndexByte(data, 0) >= 0:
			bad(name, errors.New("not a text file"))
			return nil, false
		}
		return data, true
	}

	if data, ok := read("go.mod"); ok {
		if hasGoModule(data) {
			add("go.mod", "go build ./...", "go test ./...")
		} else {
			bad("go.mod", errors.New("no module line"))
		}
	}
	if data, ok := read("package.json"); ok {
		scripts, err := ParsePackageScripts(data)
		if err != nil {
			bad("package.json", err)
		} else if len(scripts) > 0 {
			pm, lock := packageManager(root)
			source := "package.json"
			if lock != "" {
				source += " (" + lock + ")"
			}
			add(source, NodeScriptCommands(pm, scripts)...)
		}
	}
	pytestFrom := ""
	for _, name := range []string{"pyproject.toml", "pytest.ini"} {
		if _, ok := read(name); ok && pytestFrom == "" {
			pytestFrom = name
		}
	}
	if data, ok := read("setup.cfg"); ok && pytestFrom == "" && HasINISection(data, "tool:pytest") {
		pytestFrom = "setup.cfg [tool:pytest]"
	}
	if pytestFrom != "" {
		add(pytestFrom, "pytest")
	}
	if data, ok := read("Cargo.toml"); ok {
		if HasINISection(data, "package") || HasINISection(data, "workspace") {
			add("Cargo.toml", "cargo build", "cargo test")
		} else {
			bad("Cargo.toml", errors.New("no [package] or [workspace] table"))
		}
	}
	// make's own lookup order; the first one present is the makefile.
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if !exists(filepath.Join(root, name)) {
			continue
		}
		if data, ok := read(name); ok && MakefileHasTarget(data, "test") {
			add(name+" test target", "make test")
		}
		break
	}
	if len(d.Unreadable) > 0 {
		d.Checks, d.Sources = nil, nil
	}
	if d.Checks == nil {
		d.Checks = []string{}
	}
	return d, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// reasonOf is the short cause of a read error, without the path (the caller
// names the file).
func reasonOf(err error) string {
	var se *safefile.Error
	if errors.As(err, &se) {
		return se.Err.Error() + ": " + se.Detail
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// shortNames turns check lines into the words a comment shows:
// "go build ./..." -> "go build", "npm run lint" -> "npm run lint".
func shortNames(checks []string) string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = strings.TrimSuffix(c, " ./...")
	}
	return strings.Join(out, ", ")
}

// hasGoModule reports whether go.mod data has a module directive.
func hasGoModule(data []byte) bool {
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return true
		}
	}
	return false
}

// packageManager names the package manager a project's lockfile implies,
// and the lockfile ("" for npm without one).
func packageManager(root string) (pm, lock string) {
	for _, c := range []struct{ lock, pm string }{
		{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lockb", "bun"}, {"bun.lock", "bun"},
		{"package-lock.json", "npm"}, {"npm-shrinkwrap.json", "npm"},
	} {
		if exists(filepath.Join(root, c.lock)) {
			return c.pm, c.lock
		}
	}
	return "npm", ""
}

// nodeScripts are the package.json scripts that make checks, in run order.
var nodeScripts = []string{"build", "test", "lint"}

// NodeScriptCommands are the command lines that run scripts (names from
// ParsePackageScripts) with the package manager pm (npm, pnpm, yarn, bun).
// "test" is `npm test` / `pnpm test` / `yarn test`; bun runs it as `bun run
// test` (`bun test` is bun's own test runner, not the script).
func NodeScriptCommands(pm string, scripts []string) []string {
	out := make([]string, 0, len(scripts))
	for _, s := range scripts {
		switch {
		case s == "test" && pm != "bun":
			out = append(out, pm+" test")
		case pm == "yarn":
			out = append(out, "yarn "+s)
		default:
			out = append(out, pm+" run "+s)
		}
	}
	return out
}

// ErrPackageJSON marks a package.json that is not a JSON object with an
// object of scripts.
var ErrPackageJSON = errors.New("not a valid package.json")

// npmNoTest is the body of the test script `npm init` writes, which only fails.
const npmNoTest = "no test specified"

// ParsePackageScripts returns which of the build, test and lint scripts a
// package.json defines (in that order), skipping empty ones and the failing
// placeholder test script of `npm init`. Malformed JSON, a top level that is
// not an object, or scripts that are not an object of strings are an error
// wrapping ErrPackageJSON. It never panics.
func ParsePackageScripts(data []byte) ([]string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrPackageJSON, jsonReason(err))
	}
	if top == nil {
		return nil, fmt.Errorf("%w: not an object", ErrPackageJSON)
	}
	raw, ok := top["scripts"]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var scripts map[string]string
	if err := json.Unmarshal(raw, &scripts); err != nil {
		return nil, fmt.Errorf("%w: scripts is not an object of command strings", ErrPackageJSON)
	}
	var out []string
	for _, name := range nodeScripts {
		body := strings.TrimSpace(scripts[name])
		if body == "" || name == "test" && strings.Contains(body, npmNoTest) {
			continue
		}
		out = append(out, name)
	}
	return out, nil
}

// jsonReason is a JSON error's message with its position, short.
func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "the top level is not an object"
	}
	return err.Error()
}

// HasINISection reports whether an INI or TOML file has the section header
// [name] on a line of its own (spaces and a trailing comment allowed).
func HasINISection(data []byte, name string) bool {
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if i := strings.IndexAny(line, "#;"); i > 0 {
			line = strings.TrimSpace(line[:i])
		}
		if len(line) >= 2 && line[0] == '[' && line[len(line)-1] == ']' &&
			strings.TrimSpace(line[1:len(line)-1]) == name {
			return true
		}
	}
	return false
}

// MakefileHasTarget reports whether a makefile defines target in a rule
// line ("test:", "test lint: deps", "test::"), not in a variable assignment
// ("test := x") or a recipe line (which starts with a tab).
func MakefileHasTarget(data []byte, target string) bool {
	for line := range strings.Lines(string(data)) {
		if line == "" || line[0] == '\t' || line[0] == ' ' || line[0] == '#' {
			continue
		}
		targets, rest, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":=") || strings.HasPrefix(rest, "::=") ||
			strings.ContainsAny(targets, "=$") {
			continue
		}
		for _, t := range strings.Fields(targets) {
			if t == target {
				return true
			}
		}
	}
	return false
}

// WithChecks rewrites the shipped config.yaml's `checks: []` line as the
// detected list, with d.Comment() above it, keeping every other line and
// comment; the commented example lines right below it go. Config data
// without a top-level `checks: []` line comes back unchanged (false).
func WithChecks(config []byte, d Detected) ([]byte, bool) {
	lines := strings.SplitAfter(string(config), "\n")
	for i, line := range lines {
		if strings.TrimRight(line, " \r\n") != "checks: []" {
			continue
		}
		var b strings.Builder
		for _, l := range lines[:i] {
			b.WriteString(l)
		}
		b.WriteString(d.Comment() + "\n")
		if len(d.Checks) == 0 {
			b.WriteString("checks: []\n")
		} else {
			b.WriteString("checks:\n")
			for _, c := range d.Checks {
				b.WriteString("  - " + yamlScalar(c) + "\n")
			}
		}
		j := i + 1
		for j < len(lines) && len(d.Checks) > 0 && strings.HasPrefix(lines[j], "#  - ") {
			j++
		}
		for _, l := range lines[j:] {
			b.WriteString(l)
		}
		return []byte(b.String()), true
	}
	return config, false
}

// yamlScalar writes s as a YAML flow scalar: plain when that reads back as
// the same string, double-quoted (JSON escaping is valid YAML) otherwise.
func yamlScalar(s string) string {
	plain := s != "" && s == strings.TrimSpace(s) && !strings.ContainsAny(s[:1], "!&*-?{}[],#|>@`\"'%:") &&
		!strings.Contains(s, ": ") && !strings.Contains(s, " #") && !strings.ContainsAny(s, "\n\r\t")
	if plain {
		return s
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// Stack is what a project is written in and with: its languages ("go",
// "typescript", "python", "rust", …) and the frameworks and libraries nova
// knows by name ("bbolt", "bubbletea", "zod", "react", …), plus every
// dependency its manifests name (module paths, package names). It decides
// which patterns reach a prompt (a Go project's prompts carry no Zod
// pattern) and which docs weigh more in a knowledge search.
type Stack struct {
	Languages  []string `yaml:"languages" json:"languages"`
	Frameworks []string `yaml:"frameworks" json:"frameworks"`
	// Dependencies are the module paths (go.mod) and package names
	// (package.json) of the project's direct dependencies.
	Dependencies []string `yaml:"-" json:"dependencies,omitempty"`
}

// StackConfig is the stack: section of config.yaml: the languages and
// frameworks the project uses, when the detected ones are wrong or
// incomplete. Empty lists keep the detected ones.
type StackConfig struct {
	Languages  []string `yaml:"languages" json:"languages,omitempty"`
	Frameworks []string `yaml:"frameworks" json:"frameworks,omitempty"`
}

// Merge is the stack with the configured languages or frameworks in place
// of the detected ones (each list replaced only when configured).
func (c StackConfig) Merge(detected Stack) Stack {
	out := detected
	if len(c.Languages) > 0 {
		out.Languages = normalizeNames(c.Languages)
	}
	if len(c.Frameworks) > 0 {
		out.Frameworks = normalizeNames(c.Frameworks)
	}
	return out
}

// knownLanguages are the tags that name a programming language, each
// mapped to the language it is (aliases folded).
var knownLanguages = map[string]string{
	"go": "go", "golang": "go", "typescript": "typescript", "ts": "typescript", "javascript": "javascript", "js": "javascript",
	"node": "javascript", "nodejs": "javascript", "python": "python", "py": "python", "rust": "rust", "ruby": "ruby",
	"java": "java", "kotlin": "kotlin", "csharp": "csharp", "c#": "csharp", "swift": "swift", "php": "php",
	"cpp": "cpp", "c++": "cpp", "elixir": "elixir", "scala": "scala", "dart": "dart",
}

// knownFrameworks maps a dependency (a Go module path prefix, an npm or a
// PyPI package name) to the name patterns tag the framework with.
var knownFrameworks = map[string]string{
	"go.etcd.io/bbolt": "bbolt", "github.com/boltdb/bolt": "bbolt",
	"github.com/charmbracelet/bubbletea": "bubbletea", "charm.land/bubbletea": "bubbletea",
	"github.com/charmbracelet/lipgloss": "lipgloss", "charm.land/lipgloss": "lipgloss",
	"github.com/stretchr/testify": "testify", "github.com/spf13/cobra": "cobra",
	"github.com/gin-gonic/gin": "gin", "github.com/labstack/echo": "echo", "github.com/gofiber/fiber": "fiber",
	"gorm.io/gorm": "gorm", "github.com/jackc/pgx": "pgx", "github.com/mattn/go-sqlite3": "sqlite", "modernc.org/sqlite": "sqlite",
	"google.golang.org/grpc": "grpc", "github.com/ollama/ollama": "ollama",
	"zod": "zod", "react": "react", "react-dom": "react", "next": "nextjs", "vue": "vue", "svelte": "svelte",
	"@angular/core": "angular", "express": "express", "fastify": "fastify", "jest": "jest", "vitest": "vitest",
	"tailwindcss": "tailwind", "prisma": "prisma", "@prisma/client": "prisma", "ollama": "ollama",
	"django": "django", "flask": "flask", "fastapi": "fastapi", "pytest": "pytest", "pydantic": "pydantic",
	"tokio": "tokio", "serde": "serde", "axum": "axum",
}

// FrameworkTag reports whether a pattern tag names a framework or library
// nova knows, and which.
func FrameworkTag(tag string) (string, bool) {
	tag = strings.ToLower(strings.TrimSpace(tag))
	for _, name := range knownFrameworks {
		if name == tag {
			return name, true
		}
	}
	return "", false
}

// LanguageTag reports whether a tag (or a node's language) names a
// programming language, and which.
func LanguageTag(tag string) (string, bool) {
	l, ok := knownLanguages[strings.ToLower(strings.TrimSpace(tag))]
	return l, ok
}

// Foreign reports whether a pattern with this code language and these tags
// is about another stack: its language, or a language or framework its tags
// name, is not the project's. A pattern that names no language nor known
// framework is never foreign; an empty stack (nothing detected) finds
// nothing foreign.
func (s Stack) Foreign(language string, tags []string) bool {
	if len(s.Languages) == 0 && len(s.Frameworks) == 0 {
		return false
	}
	has := func(list []string, x string) bool {
		for _, y := range list {
			if y == x {
				return true
			}
		}
		return false
	}
	lang := func(l string) bool {
		// A TypeScript project writes JavaScript too.
		return has(s.Languages, l) || l == "javascript" && has(s.Languages, "typescript")
	}
	if l, ok := LanguageTag(language); ok && !lang(l) {
		return true
	}
	for _, t := range tags {
		if l, ok := LanguageTag(t); ok && !lang(l) {
			return true
		}
		if f, ok := FrameworkTag(t); ok && !has(s.Frameworks, f) {
			return true
		}
	}
	return false
}

// DetectStack reads the project's manifests in root (go.mod, package.json,
// tsconfig.json, pyproject.toml, requirements.txt, setup.py, Cargo.toml) and
// names its languages, known frameworks and direct dependencies. Unreadable
// or malformed manifests are skipped (DetectChecks reports them); it never
// fails and never panics.
func DetectStack(root string) Stack {
	var s Stack
	read := func(name string) ([]byte, bool) {
		data, err := safefile.ReadFile(filepath.Join(root, name), MaxManifestSize)
		return data, err == nil && bytes.IndexByte(data, 0) < 0
	}
	addDep := func(dep string) {
		s.Dependencies = append(s.Dependencies, dep)
		for prefix, name := range knownFrameworks {
			if dep == prefix || strings.HasPrefix(dep, prefix+"/") {
				s.Frameworks = append(s.Frameworks, name)
			}
		}
	}
	if data, ok := read("go.mod"); ok && hasGoModule(data) {
		s.Languages = append(s.Languages, "go")
		for _, dep := range GoRequires(data) {
			addDep(dep)
		}
	}
	if data, ok := read("package.json"); ok && json.Valid(data) {
		s.Languages = append(s.Languages, "javascript")
		deps := PackageDependencies(data)
		for _, dep := range deps {
			addDep(dep)
			if dep == "typescript" {
				s.Languages = append(s.Languages, "typescript")
			}
		}
	}
	if exists(filepath.Join(root, "tsconfig.json")) {
		s.Languages = append(s.Languages, "typescript")
	}
	for _, name := range []string{"pyproject.toml", "requirements.txt", "setup.py", "setup.cfg", "pytest.ini"} {
		if exists(filepath.Join(root, name)) {
			s.Languages = append(s.Languages, "python")
			break
		}
	}
	if data, ok := read("requirements.txt"); ok {
		for line := range strings.Lines(string(data)) {
			name := strings.TrimSpace(line)
			if i := strings.IndexAny(name, "=<>!~[;# "); i >= 0 {
				name = name[:i]
			}
			if name != "" && !strings.HasPrefix(name, "-") {
				addDep(strings.ToLower(name))
			}
		}
	}
	if exists(filepath.Join(root, "Cargo.toml")) {
		s.Languages = append(s.Languages, "rust")
	}
	s.Languages, s.Frameworks = normalizeNames(s.Languages), normalizeNames(s.Frameworks)
	return s
}

// normalizeNames lowercases, trims, de-duplicates and sorts names.
func normalizeNames(in []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, n := range in {
		n = strings.ToLower(strings.TrimSpace(n))
		if l, ok := knownLanguages[n]; ok {
			n = l
		}
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// GoRequires returns the module paths a go.mod requires (single lines and
// require blocks, indirect ones included). It never panics.
func GoRequires(data []byte) []string {
	var out []string
	block := false
	for line := range strings.Lines(string(data)) {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case block && f[0] == ")":
			block = false
		case block:
			out = append(out, f[0])
		case f[0] == "require" && len(f) >= 2 && f[1] == "(":
			block = true
		case f[0] == "require" && len(f) >= 3:
			out = append(out, f[1])
		}
	}
	return out
}

// PackageDependencies returns the names in a package.json's dependencies,
// devDependencies and peerDependencies, sorted; nil for malformed JSON. It
// never panics.
func PackageDependencies(data []byte) []string {
	var pkg struct {
		Deps map[string]json.RawMessage `json:"dependencies"`
		Dev  map[string]json.RawMessage `json:"devDependencies"`
		Peer map[string]json.RawMessage `json:"peerDependencies"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return nil
	}
	var out []string
	for _, m := range []map[string]json.RawMessage{pkg.Deps, pkg.Dev, pkg.Peer} {
		for name := range m {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
