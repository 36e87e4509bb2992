package lsp

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/lsp/lsptest"
)

func langGo(p string) string {
	if strings.HasSuffix(p, ".go") {
		return "go"
	}
	return ""
}

// A well-behaved server's diagnostics come back for the files shown, for
// their staged content, version after version.
func TestDiagnoseReportsErrorsOfTheStagedContent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := NewPool(root, []ServerSpec{fakeSpec(t, "ok")}, Options{Timeout: 10 * time.Second}, langGo)
	defer p.Close()
	ctx := context.Background()
	rep, err := p.Diagnose(ctx, []File{{Path: "a.go", Content: "package a\nvar x = BROKEN\n"}, {Path: "notes.md", Content: "BROKEN"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"fake-ok"}, rep.Servers)
	require.Len(t, rep.Errors(), 1, "the markdown file has no server")
	assert.Equal(t, "a.go:2:9: error: BROKEN is not defined (fake)", rep.Errors()[0].String())

	rep, err = p.Diagnose(ctx, []File{{Path: "a.go", Content: "package a\nvar x = 1\n"}})
	require.NoError(t, err)
	assert.Empty(t, rep.Diagnostics, "the change fixed it")
	assert.Empty(t, rep.Problems)
}

// A server that crashes is a problem of the report, never an error, and
// is started again on the next call (a few times at most).
func TestCrashingServerIsAProblemAndRestarts(t *testing.T) {
	t.Parallel()
	p := NewPool(t.TempDir(), []ServerSpec{fakeSpec(t, "crash")}, Options{Timeout: 10 * time.Second}, langGo)
	defer p.Close()
	ctx := context.Background()
	for i := range maxRestarts + 2 {
		rep, err := p.Diagnose(ctx, []File{{Path: "a.go", Content: "package a\n"}})
		require.NoError(t, err)
		require.Len(t, rep.Problems, 1, "call %d", i)
		assert.Empty(t, rep.Servers)
		if i == maxRestarts+1 {
			assert.Contains(t, rep.Problems[0], "crashed")
		}
	}
}

// A server that hangs at initialize costs one timeout, is killed, and is
// left alone afterwards (the next call does not wait again).
func TestHangingServerTimesOutOnceAndIsLeftAlone(t *testing.T) {
	t.Parallel()
	p := NewPool(t.TempDir(), []ServerSpec{fakeSpec(t, "hang")}, Options{Timeout: 300 * time.Millisecond}, langGo)
	defer p.Close()
	ctx := context.Background()
	start := time.Now()
	rep, err := p.Diagnose(ctx, []File{{Path: "a.go", Content: "package a\n"}})
	require.NoError(t, err)
	require.Len(t, rep.Problems, 1)
	assert.Contains(t, rep.Problems[0], ErrTimeout.Error())
	assert.Less(t, time.Since(start), 5*time.Second)
	rep, err = p.Diagnose(ctx, []File{{Path: "a.go", Content: "package a\n"}})
	require.NoError(t, err)
	require.Len(t, rep.Problems, 1)
	assert.Contains(t, rep.Problems[0], "left alone")
}

// A flood of diagnostics (thousands of files nova never opened, thousands
// of diagnostics for one) is capped, and the real answer still arrives.
func TestFloodingServerIsCapped(t *testing.T) {
	t.Parallel()
	p := NewPool(t.TempDir(), []ServerSpec{fakeSpec(t, "flood")}, Options{Timeout: 10 * time.Second, Settle: 2 * time.Second}, langGo)
	defer p.Close()
	rep, err := p.Diagnose(context.Background(), []File{{Path: "a.go", Content: "package a\nvar x = BROKEN\n"}})
	require.NoError(t, err)
	require.Len(t, rep.Errors(), 1)
	assert.LessOrEqual(t, len(rep.Diagnostics), maxDiagsPerFile)
	c := p.clients["fake-flood"]
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.LessOrEqual(t, len(c.files), maxFiles)
}

// A server that breaks the protocol (a message past the limit, bytes that
// are not LSP) ends its session with a problem, not a hang.
func TestMalformedServerOutput(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"huge", "garbage"} {
		p := NewPool(t.TempDir(), []ServerSpec{fakeSpec(t, mode)}, Options{Timeout: 5 * time.Second}, langGo)
		rep, err := p.Diagnose(context.Background(), []File{{Path: "a.go", Content: "package a\n"}})
		require.NoError(t, err, mode)
		require.Len(t, rep.Problems, 1, mode)
		assert.Contains(t, rep.Problems[0], ErrProtocol.Error(), mode)
		p.Close()
	}
}

// A cancelled context is the caller's error.
func TestDiagnoseHonoursCancel(t *testing.T) {
	t.Parallel()
	p := NewPool(t.TempDir(), []ServerSpec{fakeSpec(t, "hang")}, Options{Timeout: time.Minute}, langGo)
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Diagnose(ctx, []File{{Path: "a.go", Content: "package a\n"}})
	require.ErrorIs(t, err, context.Canceled)
}

// Resolve lists the built-in servers with what the PATH holds, config
// servers replacing and adding to them, basedpyright standing in for
// pyright.
func TestResolve(t *testing.T) {
	t.Parallel()
	look := func(name string) (string, error) {
		if name == "gopls" || name == "basedpyright-langserver" || name == "pylsp" {
			return "/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	}
	got := Resolve(Config{Disabled: []string{"rust-analyzer"},
		Servers: map[string]ServerSpec{"pylsp": {Command: "pylsp", Languages: []string{"python"}}}}, look)
	paths := map[string]string{}
	for _, s := range got {
		paths[s.Name] = s.Path
	}
	assert.Equal(t, map[string]string{"gopls": "/bin/gopls", "pyright": "/bin/basedpyright-langserver",
		"pylsp": "/bin/pylsp", "typescript": ""}, paths)
	assert.Nil(t, Resolve(Config{Off: true}, look))
}

// Malformed framing never panics and is a protocol error.
func TestReadMessageMalformed(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"Content-Length: x\r\n\r\n", "Content-Length: -1\r\n\r\n", "no colon\r\n\r\n", "\r\n",
		"Content-Length: 5\r\n\r\n{nope", "Content-Length: 99999999999\r\n\r\n", strings.Repeat("X-A: b\r\n", 40)} {
		_, err := readMessage(bufio.NewReader(strings.NewReader(in)))
		require.Error(t, err, "%q", in)
	}
}

func FuzzReadMessage(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":1}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := readMessage(bufio.NewReader(strings.NewReader(string(b))))
		if err == nil && m.JSONRPC == "" && m.Method == "" && m.ID == nil && m.Result == nil && m.Error == nil && m.Params == nil {
			return // an empty object is a message nova ignores
		}
	})
}

// A real gopls (installed by the test set-up) reports a broken build on
// the staged content, and nothing once it is fixed.
func TestGoplsReportsABrokenBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: starts gopls")
	}
	bin := lsptest.Gopls(t)
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module demo\n\ngo 1.22\n"), 0o644))
	good := "package demo\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "add.go"), []byte(good), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "use.go"), []byte("package demo\n\nfunc Twice(a int) int { return Add(a, a) }\n"), 0o644))
	spec := ServerSpec{Name: "gopls", Command: bin, Path: bin, Languages: []string{"go"},
		Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local"}}
	p := NewPool(root, []ServerSpec{spec}, Options{Timeout: 60 * time.Second, Settle: 300 * time.Millisecond}, langGo)
	defer p.Close()
	ctx := context.Background()
	broken := "package demo\n\n// Add adds.\nfunc Add(a, b int) int { return a + c }\n"
	rep, err := p.Diagnose(ctx, []File{{Path: "add.go", Content: broken}})
	require.NoError(t, err)
	require.Empty(t, rep.Problems)
	require.NotEmpty(t, rep.Errors())
	assert.Equal(t, "add.go", rep.Errors()[0].Path)
	assert.Equal(t, 4, rep.Errors()[0].Line)
	assert.Contains(t, rep.Errors()[0].Message, "undefined: c")

	rep, err = p.Diagnose(ctx, []File{{Path: "add.go", Content: good}})
	require.NoError(t, err)
	assert.Empty(t, rep.Errors())
}
