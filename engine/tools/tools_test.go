package tools_test

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

	"github.com/nova-dev/nova/engine/changes"
	"github.com/nova-dev/nova/engine/tools"
	"github.com/nova-dev/nova/storage"
)

// workspace makes a temporary workspace with files (path -> content).
func workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		require.NoError(t, os.WriteFile(abs, []byte(c), 0o644))
	}
	return root
}

// draft opens a real bbolt database in the test's temp dir and starts a
// changeset draft over root.
func draft(t testing.TB, root string) (*changes.Store, *changes.Draft) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "nova.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	s := changes.New(db, root, changes.Options{})
	return s, s.NewDraft(changes.Meta{RunID: 1, Agent: "MARS"})
}

func call(name string, args any) tools.Call {
	b, _ := json.Marshal(args)
	return tools.Call{Name: name, Args: b}
}

func TestConfine(t *testing.T) {
	t.Parallel()
	root := workspace(t, map[string]string{"a/b.go": "package a\n", "top.txt": "x"})
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "out")))                               // dir link pointing out
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "leak.txt"))) // file link pointing out
	require.NoError(t, os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "alias")))            // link inside
	require.NoError(t, os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "dangling")))
	realRoot, err := tools.RealRoot(root)
	require.NoError(t, err)

	ok := []struct{ in, rel string }{
		{"a/b.go", "a/b.go"},
		{"./a/b.go", "a/b.go"},
		{"a/../top.txt", "top.txt"},
		{"", "."},
		{".", "."},
		{filepath.Join(root, "a", "b.go"), "a/b.go"},
		{"alias/b.go", "a/b.go"},
		{"new/dir/file.go", "new/dir/file.go"},
	}
	for _, c := range ok {
		rel, abs, err := tools.ConfineRel(root, c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.rel, rel, c.in)
		assert.Equal(t, filepath.Join(realRoot, filepath.FromSlash(c.rel)), abs, c.in)
	}

	denied := []string{
		"../x", "a/../../x", "..", "/etc/passwd", filepath.Join(outside, "secret"),
		"out/secret", "out", "leak.txt", "out/new-file", "dangling", "a/\x00b",
	}
	for _, p := range denied {
		_, err := tools.Confine(root, p)
		require.Error(t, err, p)
		assert.ErrorIs(t, err, tools.ErrPolicyDenied, p)
		assert.Equal(t, tools.KindPolicyDenied, tools.KindOf(err), p)
	}
}

func TestConfineThroughSymlinkedRoot(t *testing.T) {
	t.Parallel()
	real := workspace(t, map[string]string{"f.go": "x"})
	link := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Symlink(real, link))
	rel, _, err := tools.ConfineRel(link, filepath.Join(link, "f.go"))
	require.NoError(t, err)
	assert.Equal(t, "f.go", rel)
	rel, _, err = tools.ConfineRel(link, filepath.Join(real, "f.go"))
	require.NoError(t, err)
	assert.Equal(t, "f.go", rel)
}

func TestIgnorer(t *testing.T) {
	t.Parallel()
	var ig tools.Ignorer
	ig.Add("", []byte("# comment\n\n*.log\n/build/\nnode_modules\n!keep.log\ndocs/**/*.tmp\n**/gen/\nsecret\\ \n"))
	ig.Add("sub", []byte("local.txt\n/anchored.txt\n"))
	cases := []struct {
		path  string
		dir   bool
		state bool
	}{
		{"app.log", false, true},
		{"deep/x/app.log", false, true},
		{"keep.log", false, false},
		{"build", true, true},
		{"build", false, false},  // dir-only pattern
		{"x/build", true, false}, // anchored to the root
		{"node_modules", true, true},
		{"a/node_modules", true, true},
		{"docs/a/b/c.tmp", false, true},
		{"docs/c.tmp", false, true},
		{"other/c.tmp", false, false},
		{"x/gen", true, true},
		{"gen", true, true},
		{"sub/local.txt", false, true},
		{"sub/deeper/local.txt", false, true},
		{"local.txt", false, false},
		{"sub/anchored.txt", false, true},
		{"sub/x/anchored.txt", false, false},
		{"main.go", false, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.state, ig.Ignored(c.path, c.dir), c.path)
	}
	var empty *tools.Ignorer
	assert.False(t, empty.Ignored("x", false))
}

func FuzzIgnorer(f *testing.F) {
	f.Add([]byte("*.log\n!keep.log\n/build/\n**/gen/**\n[a-"), "deep/gen/x.log", true)
	f.Add([]byte("\\!x\n\\#y\n a/**/**/b \n"), "a/b", false)
	f.Fuzz(func(t *testing.T, data []byte, p string, dir bool) {
		var ig tools.Ignorer
		ig.Add("", data)
		ig.Add("sub", data)
		_ = ig.Ignored(p, dir)
		_ = ig.Ignored("sub/"+p, dir)
	})
}

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	argv, err := tools.SplitCommand(`go test -run 'Test A' "./x y/..." a\ b`)
	require.NoError(t, err)
	assert.Equal(t, []string{"go", "test", "-run", "Test A", "./x y/...", "a b"}, argv)
	for _, bad := range []string{"go test | tee x", "go test; rm -rf /", "echo $HOME", "go test > out", "a && b", "`x`"} {
		_, err := tools.SplitCommand(bad)
		assert.ErrorIs(t, err, tools.ErrPolicyDenied, bad)
	}
	for _, bad := range []string{"", "  ", `go "test`, `go \`} {
		_, err := tools.SplitCommand(bad)
		assert.ErrorIs(t, err, tools.ErrInvalidArgs, bad)
	}
	// Quoted metacharacters are plain text.
	argv, err = tools.SplitCommand(`echo "a|b;c"`)
	require.NoError(t, err)
	assert.Equal(t, []string{"echo", "a|b;c"}, argv)
}

func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{`go test ./...`, `a "b c" 'd'`, `x\ y`, `"unterminated`, "|", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv, err := tools.SplitCommand(s)
		if err == nil && len(argv) == 0 {
			t.Fatalf("no error and no argv for %q", s)
		}
	})
}

func TestRegistryValidationAndPermissions(t *testing.T) {
	t.Parallel()
	root := workspace(t, map[string]string{"a.go": "package a\n"})
	reg := tools.Core()
	env := &tools.Env{Root: root, Agent: "MARS", Tools: []string{"readFile", "writeFile"}}
	ctx := context.Background()

	res := reg.Execute(ctx, env, call("readFile", map[string]any{"path": "a.go"}))
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Equal(t, "package a\n", res.Output)

	for _, bad := range []tools.Call{
		call("readFile", map[string]any{}),                            // missing required
		call("readFile", map[string]any{"path": 7}),                   // wrong type
		call("readFile", map[string]any{"path": "a.go", "offset": 0}), // below the minimum (an unknown argument is dropped: aliases_test.go)
		{Name: "readFile", Args: json.RawMessage(`{"path": "a.go"`)},  // not JSON
	} {
		res := reg.Execute(ctx, env, bad)
		assert.Equal(t, tools.StatusInvalid, res.Status, string(bad.Args))
		assert.Equal(t, tools.KindValidation, res.Kind)
		assert.ErrorIs(t, res.Err, tools.ErrInvalidArgs)
		assert.Contains(t, res.Output, "readFile")
	}
	res = reg.Execute(ctx, env, call("frobnicate", map[string]any{}))
	assert.Equal(t, tools.StatusInvalid, res.Status)
	assert.ErrorIs(t, res.Err, tools.ErrUnknownTool)
	assert.Contains(t, res.Output, "available: readFile, writeFile")

	// Not in the agent's tools: refused.
	res = reg.Execute(ctx, env, call("deleteFile", map[string]any{"path": "a.go"}))
	assert.Equal(t, tools.StatusDenied, res.Status)
	assert.Equal(t, tools.KindPolicyDenied, res.Kind)

	// allowedAgents / blockedAgents.
	r2 := tools.NewRegistry()
	require.NoError(t, r2.Register(tools.Tool{Name: "only", AllowedAgents: []string{"SUN"},
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) {
			return tools.Output{Text: "hi"}, nil
		}}))
	require.NoError(t, r2.Register(tools.Tool{Name: "open", BlockedAgents: []string{"mars"},
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) {
			return tools.Output{Text: "hi"}, nil
		}}))
	assert.ErrorIs(t, r2.Permit("MARS", nil, "only"), tools.ErrPolicyDenied)
	assert.NoError(t, r2.Permit("sun", nil, "only"))
	assert.ErrorIs(t, r2.Permit("MARS", nil, "open"), tools.ErrPolicyDenied)
	assert.NoError(t, r2.Permit("SUN", nil, "open"))
	assert.Len(t, r2.For("SUN", nil), 2)
	assert.Empty(t, r2.For("MARS", nil))
	assert.Error(t, r2.Register(tools.Tool{Name: "only", Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) { return tools.Output{}, nil }}))
	assert.Error(t, r2.Register(tools.Tool{Name: "bad", Schema: json.RawMessage(`{"type": 12}`),
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) { return tools.Output{}, nil }}))

	// A tool's own timeout.
	require.NoError(t, r2.Register(tools.Tool{Name: "slow", Timeout: 20 * time.Millisecond,
		Run: func(ctx context.Context, _ *tools.Env, _ json.RawMessage) (tools.Output, error) {
			<-ctx.Done()
			return tools.Output{}, ctx.Err()
		}}))
	res = r2.Execute(ctx, &tools.Env{Agent: "SUN"}, tools.Call{Name: "slow"})
	assert.Equal(t, tools.StatusTimeout, res.Status)
	assert.Equal(t, tools.KindTimeout, res.Kind)

	// Canonical args: key order and spacing do not matter.
	_, h1 := tools.CanonicalArgs(json.RawMessage(`{"b":1, "a":"x"}`))
	_, h2 := tools.CanonicalArgs(json.RawMessage(`{"a":"x","b":1}`))
	assert.Equal(t, h1, h2)
}

func TestFileToolsStageAndOverlay(t *testing.T) {
	t.Parallel()
	root := workspace(t, map[string]string{
		"main.go":           "package main\n\nfunc main() {}\n",
		"internal/x.go":     "package internal\n// TODO one\n// TODO two\n",
		"ignored/junk.go":   "TODO hidden\n",
		"app.log":           "TODO in a log\n",
		".gitignore":        "ignored/\n*.log\n",
		"internal/bin.dat":  "\x00\x01TODO",
		".nova/config.yaml": "TODO nova's own\n",
	})
	store, d := draft(t, root)
	reg := tools.Core()
	env := &tools.Env{Root: root, Agent: "MARS", Stage: d}
	ctx := context.Background()
	run := func(name string, args any) tools.Result {
		t.Helper()
		return reg.Execute(ctx, env, call(name, args))
	}

	res := run("writeFile", map[string]any{"path": "internal/health/health.go", "content": "package health\n// TODO health\n"})
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	require.Len(t, res.Evidence, 1)
	assert.Equal(t, "internal/health/health.go", res.Evidence[0].Path)
	assert.Equal(t, tools.SHA256([]byte("package health\n// TODO health\n")), res.Evidence[0].SHA256)
	assert.NoFileExists(t, filepath.Join(root, "internal/health/health.go"), "writes never reach the disk")

	res = run("readFile", map[string]any{"path": "internal/health/health.go"})
	assert.Equal(t, "package health\n// TODO health\n", res.Output, "reads see staged content")

	res = run("editFile", map[string]any{"path": "main.go", "search": "func main() {}", "replace": "func main() { serve() }"})
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	res = run("readFile", map[string]any{"path": "main.go", "offset": 3, "limit": 1})
	assert.Contains(t, res.Output, "func main() { serve() }")
	assert.Contains(t, res.Output, "lines 3-3 of 3")
	data, _ := os.ReadFile(filepath.Join(root, "main.go"))
	assert.Equal(t, "package main\n\nfunc main() {}\n", string(data))

	res = run("editFile", map[string]any{"path": "internal/x.go", "search": "TODO", "replace": "DONE"})
	assert.Equal(t, tools.StatusError, res.Status)
	assert.Contains(t, res.Output, "matches more than one place")
	assert.Contains(t, res.Output, "all: true replaces every")
	res = run("editFile", map[string]any{"path": "internal/x.go", "search": "absent", "replace": "x"})
	assert.Contains(t, res.Output, "matches nowhere")
	res = run("editFile", map[string]any{"path": "internal/x.go", "search": "TODO", "replace": "DONE", "all": true})
	require.Equal(t, tools.StatusOK, res.Status)

	res = run("deleteFile", map[string]any{"path": "app.log"})
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Equal(t, tools.Absent, res.Evidence[0].SHA256)
	res = run("readFile", map[string]any{"path": "app.log"})
	assert.Equal(t, tools.StatusError, res.Status)
	assert.ErrorIs(t, res.Err, tools.ErrFileNotFound)

	res = run("listFiles", map[string]any{})
	require.Equal(t, tools.StatusOK, res.Status)
	assert.Contains(t, res.Output, "internal/health/health.go", "staged new files are listed")
	assert.NotContains(t, res.Output, "ignored/junk.go", ".gitignore is honoured")
	assert.NotContains(t, res.Output, "app.log")
	assert.NotContains(t, res.Output, ".nova", "nova's own directory is not listed")
	res = run("listFiles", map[string]any{"recursive": false})
	assert.Contains(t, res.Output, "internal/\n")
	assert.Contains(t, res.Output, "main.go")
	assert.NotContains(t, res.Output, "internal/x.go")

	res = run("searchFiles", map[string]any{"pattern": "TODO|DONE"})
	require.Equal(t, tools.StatusOK, res.Status)
	assert.Contains(t, res.Output, "internal/health/health.go:2: // TODO health")
	assert.Contains(t, res.Output, "internal/x.go:2: // DONE one", "search sees staged edits")
	assert.NotContains(t, res.Output, "hidden")
	assert.NotContains(t, res.Output, "nova's own")
	assert.NotContains(t, res.Output, "bin.dat")
	res = run("searchFiles", map[string]any{"pattern": "DONE", "maxResults": 1})
	assert.Contains(t, res.Output, "capped at 1")
	res = run("searchFiles", map[string]any{"pattern": "([", "path": "."})
	assert.Equal(t, tools.StatusInvalid, res.Status)
	res = run("searchFiles", map[string]any{"pattern": "package", "glob": "*.go", "path": "internal"})
	assert.NotContains(t, res.Output, "main.go")
	assert.Contains(t, res.Output, "internal/x.go:1:")

	// Reserved directories and escapes.
	for _, p := range []string{".nova/config.yaml", ".git/config", "../outside.go", "/etc/hosts"} {
		res = run("writeFile", map[string]any{"path": p, "content": "x"})
		assert.Equal(t, tools.StatusDenied, res.Status, p)
	}
	res = run("readFile", map[string]any{"path": ".nova/nova.db"})
	assert.Equal(t, tools.StatusDenied, res.Status)

	cs, err := store.Get(ctx, d.ID())
	require.NoError(t, err)
	assert.Equal(t, []string{"app.log", "internal/health/health.go", "internal/x.go", "main.go"}, cs.Paths())

	// A staged-new file deleted again leaves nothing.
	res = run("deleteFile", map[string]any{"path": "internal/health/health.go"})
	require.Equal(t, tools.StatusOK, res.Status)
	cs, err = store.Get(ctx, d.ID())
	require.NoError(t, err)
	assert.NotContains(t, cs.Paths(), "internal/health/health.go")

	// Mutating tools need a stage.
	res = reg.Execute(ctx, &tools.Env{Root: root}, call("writeFile", map[string]any{"path": "x", "content": "y"}))
	assert.ErrorIs(t, res.Err, tools.ErrNoStage)
}

func TestRunCommand(t *testing.T) {
	t.Parallel()
	for _, bin := range []string{"echo", "sh", "env", "sleep"} {
		if _, err := os.Stat("/bin/" + bin); err != nil {
			if _, err := os.Stat("/usr/bin/" + bin); err != nil {
				t.Skipf("%s not available", bin)
			}
		}
	}
	root := workspace(t, map[string]string{"sub/f.txt": "x"})
	reg := tools.Core()
	ctx := context.Background()
	var asked []tools.ApprovalRequest
	answer := true
	env := &tools.Env{
		Root: root, Agent: "MARS", RunID: 9, Autonomy: 2,
		Commands: tools.CommandPolicy{
			Allow:   []string{"echo", "sh -c", "env", "sleep"},
			Timeout: 300 * time.Millisecond,
			Getenv: func(k string) string {
				return map[string]string{"PATH": os.Getenv("PATH"), "HOME": "/home/x", "SECRET_TOKEN": "hunter2"}[k]
			},
		},
		Approve: func(_ context.Context, req tools.ApprovalRequest) (bool, error) {
			asked = append(asked, req)
			return answer, nil
		},
	}
	cmd := func(c string, dir string) tools.Result {
		return reg.Execute(ctx, env, call("runCommand", map[string]any{"command": c, "dir": dir}))
	}

	res := cmd("echo hello", "sub")
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "exit code 0\nhello")
	require.Len(t, asked, 1)
	assert.Equal(t, "echo hello", asked[0].Command)
	assert.Equal(t, "sub", asked[0].Dir)
	assert.Equal(t, uint64(9), asked[0].RunID)
	require.Len(t, res.Evidence, 1)
	assert.Equal(t, 0, *res.Evidence[0].ExitCode)

	res = cmd("sh -c 'exit 3'", "")
	assert.Equal(t, tools.StatusFailed, res.Status)
	assert.Equal(t, 3, *res.Evidence[0].ExitCode)

	answer = false
	res = cmd("echo no", "")
	assert.Equal(t, tools.StatusDenied, res.Status)
	assert.Contains(t, res.Output, "declined")

	for _, c := range []string{"rm -rf /", "go test ./...", "echo x | sh", "echoo x"} {
		n := len(asked)
		res = cmd(c, "")
		assert.Equal(t, tools.StatusDenied, res.Status, c)
		assert.Len(t, asked, n, "refused commands never reach the approval prompt: %s", c)
	}
	res = cmd("echo x", "../..")
	assert.Equal(t, tools.StatusDenied, res.Status)

	// From autonomy 4 no one is asked about a command whose arguments are
	// all allowed.
	env.Autonomy = 4
	n := len(asked)
	res = cmd("echo quiet", "")
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Len(t, asked, n)
	// env runs other programs: allowlisted, it is still asked (issue 26).
	// The environment is minimal.
	answer = true
	res = cmd("env", "")
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	require.Len(t, asked, n+1)
	assert.Contains(t, asked[n].Unvetted, "`env` runs another program")
	assert.Contains(t, res.Output, "HOME=/home/x")
	assert.NotContains(t, res.Output, "hunter2")

	env.Commands.MaxOutput = 64
	res = cmd("sh -c 'yes | head -c 5000'", "")
	assert.Contains(t, res.Output, "output capped at 64 bytes")

	res = cmd("sleep 5", "")
	assert.Equal(t, tools.StatusTimeout, res.Status)
	assert.Less(t, res.Duration, 4*time.Second)

	// No approver below autonomy 4: denied.
	env.Autonomy, env.Approve = 1, nil
	res = cmd("echo x", "")
	assert.Equal(t, tools.StatusDenied, res.Status)
	assert.ErrorIs(t, res.Err, tools.ErrPolicyDenied)
	assert.Contains(t, res.Output, "needs approval")
}

func TestAllAgentsToolsAreOfferedWhateverTheSpecLists(t *testing.T) {
	t.Parallel()
	r := tools.NewRegistry()
	run := func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) {
		return tools.Output{Text: "ok"}, nil
	}
	require.NoError(t, r.Register(tools.Tool{Name: "listed", Run: run}))
	require.NoError(t, r.Register(tools.Tool{Name: "everyone", AllAgents: true, Run: run}))
	require.NoError(t, r.Register(tools.Tool{Name: "notPluto", AllAgents: true, BlockedAgents: []string{"PLUTO"}, Run: run}))

	offered := []string{"listed"}
	names := func(ts []tools.Tool) []string {
		var out []string
		for _, x := range ts {
			out = append(out, x.Name)
		}
		return out
	}
	assert.Equal(t, []string{"listed", "everyone", "notPluto"}, names(r.For("MARS", offered)))
	assert.Equal(t, []string{"everyone", "notPluto"}, names(r.For("MARS", []string{})), "an agent with no tools still gets them")
	assert.Equal(t, []string{"listed", "everyone"}, names(r.For("PLUTO", offered)), "BlockedAgents still applies")
	res := r.Execute(context.Background(), &tools.Env{Agent: "PLUTO", Tools: offered}, tools.Call{Name: "notPluto"})
	assert.Equal(t, tools.StatusDenied, res.Status)
}

// TestEditFileTolerantMatching: editFile finds search text written with
// spaces for tabs, trailing spaces or a leading blank line, says which
// rule matched, and fails with the precise error when nothing or several
// places match.
func TestEditFileTolerantMatching(t *testing.T) {
	t.Parallel()
	const src = "package main\n\nfunc main() {\n\tif ok {\n\t\tserve()\n\t}\n}\n\nfunc a() {\n\tx := 1\n}\n\nfunc b() {\n\tx := 1\n}\n"
	root := workspace(t, map[string]string{"main.go": src, "win.go": strings.ReplaceAll(src, "\n", "\r\n")})
	_, d := draft(t, root)
	reg := tools.Core()
	env := &tools.Env{Root: root, Agent: "MARS", Stage: d}
	ctx := context.Background()
	edit := func(path, search, replace string) tools.Result {
		t.Helper()
		return reg.Execute(ctx, env, call("editFile", map[string]any{"path": path, "search": search, "replace": replace}))
	}
	read := func(path string) string {
		t.Helper()
		return reg.Execute(ctx, env, call("readFile", map[string]any{"path": path})).Output
	}

	res := edit("main.go", "    if ok {\n        serve()\n    }\n", "    if ok {\n        serve()\n        log()\n    }\n")
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "matched by rule: indentation")
	assert.Contains(t, read("main.go"), "\t\tserve()\n\t\tlog()\n\t}\n", "re-indented with the file's tabs")

	res = edit("main.go", "func main() {   \n", "func main() { // entry\n")
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "matched by rule: trailing-whitespace")

	res = edit("main.go", "\n\tlog()\n", "\n\tlogf()\n")
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "matched by rule: indentation")

	res = edit("main.go", "\nfunc a() {\n", "\nfunc a2() {\n")
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "matched by rule: exact")

	res = edit("main.go", "\n\n\tx := 1\n", "\tx := 2\n")
	require.Equal(t, tools.StatusError, res.Status)
	assert.Contains(t, res.Output, "matches more than one place")
	assert.Contains(t, res.Output, "line 11 and line 15") // names both places

	res = edit("main.go", "func c() {\n\ty := 1\n}\n", "")
	require.Equal(t, tools.StatusError, res.Status)
	assert.Contains(t, res.Output, "editFile main.go: the search text matches nowhere")
	assert.Contains(t, res.Output, "the closest lines are")

	// CRLF: matched on normalised lines, line ends kept.
	res = edit("win.go", "\tif ok {  \n\t\tserve()\n", "\tif ok {\n\t\tserve(ctx)\n")
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	got := read("win.go")
	assert.Contains(t, got, "\t\tserve(ctx)\r\n")
	assert.NotContains(t, strings.ReplaceAll(got, "\r\n", ""), "\n")
}
