package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/internal/hostile"
)

// project writes files (name -> content) into a new directory.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	return root
}

func TestDetectChecksByProjectKind(t *testing.T) {
	t.Parallel()
	const scripts = `{"name":"x","scripts":{"build":"tsc","test":"vitest run","lint":"eslint .","dev":"vite"}}`
	cases := []struct {
		name    string
		files   map[string]string
		checks  []string
		sources []string
	}{
		{"go", map[string]string{"go.mod": "module example.com/x\n\ngo 1.26\n"},
			[]string{"go build ./...", "go test ./..."}, []string{"go.mod -> go build, go test"}},
		{"npm without lockfile", map[string]string{"package.json": scripts},
			[]string{"npm run build", "npm test", "npm run lint"}, []string{"package.json -> npm run build, npm test, npm run lint"}},
		{"npm lockfile", map[string]string{"package.json": scripts, "package-lock.json": "{}"},
			[]string{"npm run build", "npm test", "npm run lint"}, []string{"package.json (package-lock.json) -> npm run build, npm test, npm run lint"}},
		{"pnpm", map[string]string{"package.json": scripts, "pnpm-lock.yaml": ""},
			[]string{"pnpm run build", "pnpm test", "pnpm run lint"}, []string{"package.json (pnpm-lock.yaml) -> pnpm run build, pnpm test, pnpm run lint"}},
		{"yarn", map[string]string{"package.json": `{"scripts":{"test":"jest"}}`, "yarn.lock": ""},
			[]string{"yarn test"}, []string{"package.json (yarn.lock) -> yarn test"}},
		{"bun binary lock", map[string]string{"package.json": `{"scripts":{"test":"bun test","lint":"x"}}`, "bun.lockb": "\x00"},
			[]string{"bun run test", "bun run lint"}, []string{"package.json (bun.lockb) -> bun run test, bun run lint"}},
		{"bun text lock", map[string]string{"package.json": `{"scripts":{"build":"b"}}`, "bun.lock": "{}"},
			[]string{"bun run build"}, []string{"package.json (bun.lock) -> bun run build"}},
		{"npm init placeholder test", map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`},
			[]string{}, nil},
		{"package.json without scripts", map[string]string{"package.json": `{"name":"x"}`}, []string{}, nil},
		{"pyproject", map[string]string{"pyproject.toml": "[project]\nname='x'\n"}, []string{"pytest"}, []string{"pyproject.toml -> pytest"}},
		{"pytest.ini", map[string]string{"pytest.ini": "[pytest]\n"}, []string{"pytest"}, []string{"pytest.ini -> pytest"}},
		{"setup.cfg with pytest", map[string]string{"setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n"},
			[]string{"pytest"}, []string{"setup.cfg [tool:pytest] -> pytest"}},
		{"setup.cfg without pytest", map[string]string{"setup.cfg": "[metadata]\nname = x\n"}, []string{}, nil},
		{"cargo", map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n"},
			[]string{"cargo build", "cargo test"}, []string{"Cargo.toml -> cargo build, cargo test"}},
		{"cargo workspace", map[string]string{"Cargo.toml": "[workspace] # all\nmembers = []\n"},
			[]string{"cargo build", "cargo test"}, []string{"Cargo.toml -> cargo build, cargo test"}},
		{"makefile test target", map[string]string{"Makefile": ".PHONY: test\nall:\n\techo\ntest: all\n\tgo test ./...\n"},
			[]string{"make test"}, []string{"Makefile test target -> make test"}},
		{"makefile without test target", map[string]string{"Makefile": "TEST := 1\ntest := x\nall:\n\t@echo test:\n"}, []string{}, nil},
		{"go and makefile", map[string]string{"go.mod": "module x\n", "Makefile": "lint test:\n\ttrue\n"},
			[]string{"go build ./...", "go test ./...", "make test"}, []string{"go.mod -> go build, go test", "Makefile test target -> make test"}},
		{"nothing", map[string]string{"README.md": "# hi\n"}, []string{}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := DetectChecks(project(t, tc.files))
			require.NoError(t, err)
			assert.Equal(t, tc.checks, d.Checks)
			assert.Equal(t, tc.sources, d.Sources)
			assert.Empty(t, d.Unreadable)
		})
	}
}

func TestDetectChecksUnreadableProjectWritesNone(t *testing.T) {
	t.Parallel()
	cases := map[string]map[string]string{
		"garbage package.json":  {"go.mod": "module x\n", "package.json": "{\"scripts\": {\"test\": "},
		"package.json array":    {"package.json": "[1,2]"},
		"scripts not strings":   {"package.json": `{"scripts":{"test":1}}`},
		"binary package.json":   {"package.json": "{\"a\":\"\x00\"}"},
		"go.mod without module": {"go.mod": "this is not a go.mod\n"},
		"garbage Cargo.toml":    {"Cargo.toml": "\xff\xfe junk"},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := DetectChecks(project(t, files))
			require.NoError(t, err)
			assert.Empty(t, d.Checks, "a project nova cannot read gets no checks")
			require.Len(t, d.Unreadable, 1)
			assert.Contains(t, d.Comment(), "# not detected: nova could not read ")
		})
	}

	// A directory named package.json, a FIFO and /dev/zero: refused, never
	// blocking or filling memory.
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "package.json"), 0o755))
	hostile.FIFO(t, filepath.Join(root, "Cargo.toml"))
	hostile.DevZeroLink(t, filepath.Join(root, "go.mod"))
	d, err := DetectChecks(root)
	require.NoError(t, err)
	assert.Empty(t, d.Checks)
	assert.Len(t, d.Unreadable, 3)
	assert.Contains(t, strings.Join(d.Unreadable, "\n"), "not a regular file")

	// Too large.
	root = project(t, map[string]string{"package.json": `{"scripts":{"test":"` + strings.Repeat("x", MaxManifestSize) + `"}}`})
	d, err = DetectChecks(root)
	require.NoError(t, err)
	assert.Empty(t, d.Checks)
	assert.Contains(t, strings.Join(d.Unreadable, "\n"), "too large")

	_, err = DetectChecks(filepath.Join(t.TempDir(), "missing"))
	assert.Error(t, err)
}

func TestParsePackageScriptsMalformed(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "{", "null", "[]", `"x"`, "1", `{"scripts": []}`, `{"scripts": "npm test"}`,
		`{"scripts": {"test": null, "build": ["x"]}}`, "{\"a\": 1}\n{\"b\": 2}", "\xef\xbb\xbf{}"} {
		_, err := ParsePackageScripts([]byte(in))
		assert.ErrorIs(t, err, ErrPackageJSON, "%q", in)
	}
	got, err := ParsePackageScripts([]byte(`{"scripts": null}`))
	require.NoError(t, err)
	assert.Empty(t, got)
	got, err = ParsePackageScripts([]byte(`{"scripts": {"lint": "x", "test": " ", "build": "y"}}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"build", "lint"}, got, "build, test, lint order; blank scripts skipped")
}

func FuzzParsePackageScripts(f *testing.F) {
	for _, s := range []string{`{"scripts":{"build":"tsc","test":"jest","lint":"eslint ."}}`, `{}`, `[`, `{"scripts":{"test":1}}`, "null"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParsePackageScripts(data)
		if err != nil {
			assert.Empty(t, got)
			return
		}
		for _, s := range got {
			assert.Contains(t, nodeScripts, s)
		}
		for _, pm := range []string{"npm", "pnpm", "yarn", "bun"} {
			assert.Len(t, NodeScriptCommands(pm, got), len(got))
		}
	})
}

func FuzzMakefileHasTarget(f *testing.F) {
	for _, s := range []string{"test:\n\tgo test\n", "test := 1\n", "a b test::\n", "\ttest:\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if MakefileHasTarget(data, "test") {
			assert.Contains(t, string(data), "test")
		}
		if HasINISection(data, "tool:pytest") {
			assert.Contains(t, string(data), "tool:pytest")
		}
	})
}

func TestWithChecksKeepsCommentsAndStaysValid(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", ".nova", "config.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(data), "\nchecks: []\n", "the shipped config has the line Init rewrites")

	d := Detected{Checks: []string{"go build ./...", "go test ./...", "echo a: b # c"}, Sources: []string{"go.mod -> go build, go test"}}
	out, ok := WithChecks(data, d)
	require.True(t, ok)
	cfg, err := ParseConfig("config.yaml", out)
	require.NoError(t, err)
	assert.Equal(t, d.Checks, cfg.Checks)
	assert.Contains(t, string(out), "# detected: go.mod -> go build, go test\nchecks:\n  - go build ./...\n  - go test ./...\n")
	assert.NotContains(t, string(out), "#  - go vet ./...", "the commented example goes once there is a list")
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "#  - ") {
			assert.Contains(t, string(out), line, "every comment stays")
		}
	}

	none := Detected{Checks: []string{}}
	out, ok = WithChecks(data, none)
	require.True(t, ok)
	assert.Contains(t, string(out), "# detected: nothing (")
	assert.Contains(t, string(out), "checks: []\n#  - go build ./...")
	cfg, err = ParseConfig("config.yaml", out)
	require.NoError(t, err)
	assert.Empty(t, cfg.Checks)

	bad := Detected{Checks: []string{}, Unreadable: []string{"package.json (not a valid package.json: unexpected end of JSON input)"}}
	out, ok = WithChecks(data, bad)
	require.True(t, ok)
	assert.Contains(t, string(out), "# not detected: nova could not read package.json (")
	_, err = ParseConfig("config.yaml", out)
	require.NoError(t, err)

	_, ok = WithChecks([]byte("tier: free\n"), d)
	assert.False(t, ok)
}

func TestInitWritesDetectedChecks(t *testing.T) {
	t.Parallel()
	shipped, err := os.ReadFile(filepath.Join("..", "..", ".nova", "config.yaml"))
	require.NoError(t, err)
	defaults := fstest.MapFS{".nova/config.yaml": {Data: shipped}}

	root := project(t, map[string]string{"go.mod": "module x\n"})
	rep, err := Init(root, defaults)
	require.NoError(t, err)
	require.NotNil(t, rep.Checks)
	assert.Equal(t, []string{"go build ./...", "go test ./..."}, rep.Checks.Checks)
	ws, err := Load(root, noEnv)
	require.NoError(t, err)
	assert.Equal(t, []string{"go build ./...", "go test ./..."}, ws.Config.Checks)

	// A second init keeps the file and detects nothing new.
	cfgPath := filepath.Join(root, ".nova", "config.yaml")
	before, err := os.ReadFile(cfgPath)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "Cargo.toml"), []byte("[package]\n"), 0o644))
	rep, err = Init(root, defaults)
	require.NoError(t, err)
	assert.Nil(t, rep.Checks)
	after, err := os.ReadFile(cfgPath)
	require.NoError(t, err)
	assert.Equal(t, before, after, "init never rewrites an existing config.yaml")

	// A project nova cannot read: no checks, and the file says why.
	root = project(t, map[string]string{"package.json": "{oops"})
	rep, err = Init(root, defaults)
	require.NoError(t, err)
	require.NotNil(t, rep.Checks)
	assert.Empty(t, rep.Checks.Checks)
	assert.NotEmpty(t, rep.Checks.Unreadable)
	data, err := os.ReadFile(filepath.Join(root, ".nova", "config.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "# not detected: nova could not read package.json")
}

func TestDetectedCommentIsOneLine(t *testing.T) {
	t.Parallel()
	d := Detected{Checks: []string{}, Unreadable: []string{"package.json (bad\nchecks: [rm -rf /]\r\n)"}}
	c := d.Comment()
	assert.NotContains(t, c, "\n")
	assert.NotContains(t, c, "\r")
	assert.True(t, strings.HasPrefix(c, "# not detected: "))
}
