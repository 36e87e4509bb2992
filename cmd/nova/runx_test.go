package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"charm.land/fang/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/remote"
	"github.com/nova-dev/nova/engine/rpc"
	"github.com/nova-dev/nova/engine/vault"
)

// These tests call the runX functions directly, the way cli/cli tests its
// commands: options built by hand, an Env of buffers, the workspace from
// testWorkspace (the kind NOVA_CLI_WORKSPACE selects).

// nopClose keeps a shared test workspace open when a command closes it
// (as closing a remote client leaves its owner running).
type nopClose struct{ engine.Workspace }

func (nopClose) Close() error { return nil }

// testWorkspace initialises a workspace in a temp dir, opens it once, and
// returns an Env whose commands all work on it (stdin empty, not a
// terminal) with the buffers of stdout and stderr.
func testWorkspace(t *testing.T, env map[string]string) (*Env, engine.Workspace, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	e, so, se := newTestEnv(t, dir, env, "")
	require.NoError(t, runInit(t.Context(), &initOptions{Env: e, Dir: dir}))
	ws, err := e.Workspace(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	e.Workspace = func(context.Context) (engine.Workspace, error) { return nopClose{ws}, nil }
	so.Reset()
	se.Reset()
	return e, ws, so, se
}

// terminal makes the Env's stdin a terminal that answers with input.
func terminal(e *Env, input string) {
	e.IO.In, e.IO.InTTY = strings.NewReader(input), true
	e.stdin = nil
}

func TestConfirmAsksOnATerminalAndDefaultsToNo(t *testing.T) {
	t.Parallel()
	e, ws, so, se := testWorkspace(t, nil)
	ctx := t.Context()
	res, err := ws.LearnNode(ctx, vault.Node{Type: vault.Decision, Content: "Keep the session in a cookie"})
	require.NoError(t, err)
	id := res.Node.ID
	opts := &vaultForgetOptions{Env: e, ID: id}

	for _, answer := range []string{"n\n", "\n", "", "maybe\n"} {
		terminal(e, answer)
		se.Reset()
		err := runVaultForget(ctx, opts)
		require.Error(t, err, "answer %q", answer)
		assert.Equal(t, 1, exitCode(err), "a no is not bad usage")
		assert.Contains(t, se.String(), "[y/N]")
		assert.Contains(t, se.String(), "not forgotten: nothing changed")
		_, err = ws.GetNode(ctx, id)
		require.NoError(t, err, "answer %q keeps the node", answer)
	}
	terminal(e, "y\n")
	require.NoError(t, runVaultForget(ctx, opts))
	assert.Contains(t, so.String(), fmt.Sprintf("forgot node #%d", id))
	_, err = ws.GetNode(ctx, id)
	assert.ErrorIs(t, err, vault.ErrNotFound)
}

// TestDestructiveCommandsRefuseOffATerminal: every destructive command asks
// on a terminal and, without one, refuses as bad usage (exit 2) naming
// --yes, having changed nothing.
func TestDestructiveCommandsRefuseOffATerminal(t *testing.T) {
	t.Parallel()
	e, ws, _, _ := testWorkspace(t, nil)
	ctx := t.Context()
	a, err := ws.LearnNode(ctx, vault.Node{Type: vault.Strategy, Content: "Return early on failure"})
	require.NoError(t, err)
	b, err := ws.LearnNode(ctx, vault.Node{Type: vault.Pattern, Content: "Wrap errors with context"})
	require.NoError(t, err)
	edge, err := ws.LinkNodes(ctx, a.Node.ID, b.Node.ID, vault.Supports, 0.8)
	require.NoError(t, err)
	rule, err := ws.AddRule(ctx, "MARS", "Run go vet before finishing", nil, 0.8)
	require.NoError(t, err)
	batches, err := ws.ListImports(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, batches, "init imported the starter library")

	cases := map[string]func() error{
		"vault forget": func() error { return runVaultForget(ctx, &vaultForgetOptions{Env: e, ID: a.Node.ID}) },
		"vault unlink": func() error { return runVaultUnlink(ctx, &vaultUnlinkOptions{Env: e, ID: edge.ID}) },
		"playbook delete": func() error {
			return runPlaybookDelete(ctx, &playbookRuleOptions{Env: e, Agent: "mars", RuleID: rule.Rule.ID})
		},
		"import undo": func() error { return runImportUndo(ctx, &importUndoOptions{Env: e}) },
		"db compact":  func() error { return runDBCompact(ctx, &dbCompactOptions{Env: e}) },
	}
	for name, run := range cases {
		err := run()
		require.Error(t, err, name)
		assert.Equal(t, 2, exitCode(err), name)
		assert.Contains(t, err.Error(), "pass --yes", name)
	}
	_, err = ws.GetNode(ctx, a.Node.ID)
	assert.NoError(t, err, "the node is still there")
	_, err = ws.GetEdge(ctx, edge.ID)
	assert.NoError(t, err, "the edge is still there")
	pb, err := ws.GetPlaybook(ctx, "MARS")
	require.NoError(t, err)
	_, ok := pb.Rule(rule.Rule.ID)
	assert.True(t, ok, "the rule is still there")
	after, err := ws.ListImports(ctx)
	require.NoError(t, err)
	assert.Nil(t, after[0].UndoneAt, "the batch is not undone")

	// With --yes they go ahead.
	require.NoError(t, runVaultUnlink(ctx, &vaultUnlinkOptions{Env: e, ID: edge.ID, Yes: true}))
	_, err = ws.GetEdge(ctx, edge.ID)
	assert.ErrorIs(t, err, vault.ErrNotFound)
	require.NoError(t, runPlaybookDelete(ctx, &playbookRuleOptions{Env: e, Agent: "mars", RuleID: rule.Rule.ID, Yes: true}))
}

// hostile is untrusted text as a model, a PRD or a pattern file could
// carry it: a title rewrite (OSC), a screen clear (CSI), a bell, an 8-bit
// CSI and a raw carriage return.
const hostile = "Use \x1b]0;pwned\x07defaults\x1b[2J, not\x9b31m globals\r!"

func assertInert(t *testing.T, out, what string) {
	t.Helper()
	assert.True(t, utf8.ValidString(out), "%s: invalid UTF-8 (a raw 8-bit control byte) in %q", what, out)
	for _, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			assert.Fail(t, "control character", "%s: %U in %q", what, r, out)
			return
		}
	}
}

func TestHumanOutputIsSanitised(t *testing.T) {
	t.Parallel()
	e, ws, so, se := testWorkspace(t, nil)
	ctx := t.Context()

	// A PRD's name and titles reach the build commands as written.
	prdPath := filepath.Join(t.TempDir(), "hostile.json")
	name, _ := json.Marshal(hostile)
	prdJSON := `{"meta":{"name":` + string(name) + `},"tasks":[{"id":"t1","title":` + string(name) +
		`,"description":"x","agent":"MARS","status":"pending","dependencies":[],"phase":1,"attempts":0}]}`
	require.NoError(t, os.WriteFile(prdPath, []byte(prdJSON), 0o644))
	b, err := ws.CreateBuild(ctx, prdPath, engine.BuildOptions{})
	require.NoError(t, err)

	// Vault text: the engine cleans it on the way in; the output layer is
	// the second line of defence.
	res, err := ws.LearnNode(ctx, vault.Node{Type: vault.Pattern, Title: hostile, Content: hostile, Body: hostile, Tags: []string{"zz-hostile"}})
	require.NoError(t, err)
	id := res.Node.ID

	shown := map[string]func() error{
		"build list": func() error { return runBuildList(ctx, &buildListOptions{Env: e}) },
		"build show": func() error { return runBuildShow(ctx, &buildShowOptions{Env: e, ID: b.ID}) },
	}
	for what, run := range shown {
		so.Reset()
		require.NoError(t, run(), what)
		assert.Contains(t, so.String(), "^[]0;pwned^Gdefaults^[[2J", what+": the sequences are shown, inert")
		assertInert(t, so.String(), what)
	}
	inert := map[string]func() error{
		"vault show": func() error { return runVaultShow(ctx, &vaultShowOptions{Env: e, ID: id}) },
		"vault list": func() error {
			return runVaultList(ctx, &vaultListOptions{Env: e, List: vault.ListOptions{Tag: "zz-hostile"}})
		},
		"vault search": func() error {
			return runVaultSearch(ctx, &vaultSearchOptions{Env: e, Query: "globals defaults", Search: vault.SearchOptions{Limit: 5}})
		},
		"vault add": func() error {
			return runVaultAdd(ctx, &vaultAddOptions{Env: e, Node: vault.Node{Type: vault.Pattern, Content: hostile}})
		},
	}
	for what, run := range inert {
		so.Reset()
		se.Reset()
		require.NoError(t, run(), what)
		assertInert(t, so.String(), what)
		assertInert(t, se.String(), what+" (stderr)")
	}

	// JSON output is escaped by encoding/json and keeps the text as it is.
	so.Reset()
	require.NoError(t, runBuildShow(ctx, &buildShowOptions{Env: e, ID: b.ID, JSON: true}))
	assert.NotContains(t, so.String(), "\x1b")
	var got struct {
		Name string `json:"name"`
	}
	require.NoError(t, json.Unmarshal(so.Bytes(), &got))
	assert.Equal(t, strings.ToValidUTF8(hostile, "\uFFFD"), got.Name, "JSON keeps the text (valid UTF-8)")

	// Errors quoting untrusted text are sanitised too.
	var buf bytes.Buffer
	e.errorHandler(&buf, fang.Styles{}, fmt.Errorf("agent %q: unknown", hostile))
	assertInert(t, buf.String(), "error")
	buf.Reset()
	e.errorHandler(&buf, fang.Styles{}, errors.New(hostile))
	assertInert(t, buf.String(), "raw error")
	assert.Contains(t, buf.String(), "^[[2J")
}

func TestSanitize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text, ünïcode ✓":   "plain text, ünïcode ✓",
		"line one\n\tindented":    "line one\n\tindented",
		"\x1b[31mred\x1b[0m":      "^[[31mred^[[0m",
		"\x1b]8;;http://x\x07l":   "^[]8;;http://x^Gl",
		"nul\x00del\x7f":          "nul^@del^?",
		"c1 \u009b and \u0085":    `c1 \u009b and \u0085`,
		"bad \xff\x9b utf8":       "bad \ufffd\ufffd utf8",
		"cr\rover":                "cr^Mover",
		"":                        "",
		"emoji 🚀 and CJK 漢字 kept": "emoji 🚀 and CJK 漢字 kept",
	} {
		assert.Equal(t, want, Sanitize(in), "%q", in)
	}
}

func TestSanitizingWriterKeepsRunesSplitAcrossWrites(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := &sanitizingWriter{w: &out}
	text := "漢字 ✓ \x1b[2J done"
	for i := range len(text) { // one byte per write: every rune is split
		_, err := w.Write([]byte{text[i]})
		require.NoError(t, err)
	}
	assert.Equal(t, "漢字 ✓ ^[[2J done", out.String())
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "plain", hostile, "\x1b[31m", "\xff\xfe", "漢\x9b字"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		assertInert(t, out, "fuzz")
		for _, r := range out {
			assert.False(t, isControl(r), "%q", out)
		}
		assert.Equal(t, out, Sanitize(out), "sanitising twice changes nothing")
	})
}

// TestVaultListPagesThroughALargeVault: a listing bigger than a page is
// fetched page by page and written as one JSON array.
func TestVaultListPagesThroughALargeVault(t *testing.T) {
	t.Parallel()
	e, ws, so, _ := testWorkspace(t, map[string]string{"NOVA_TIER": "premium"})
	ctx := t.Context()
	before, err := ws.VaultStats(ctx)
	require.NoError(t, err)
	const extra = 2*listPage + 345
	var jsonl strings.Builder
	for i := range extra {
		fmt.Fprintf(&jsonl, `{"kind":"node","id":%d,"type":"Pattern","content":"generated pattern %d","confidence":0.5}`+"\n", 100_000+i, i)
	}
	path := filepath.Join(t.TempDir(), "many.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(jsonl.String()), 0o644))
	require.NoError(t, runVaultImport(ctx, &vaultFileOptions{Env: e, File: path}))
	total := before.Nodes + extra

	so.Reset()
	require.NoError(t, runVaultList(ctx, &vaultListOptions{Env: e, JSON: true}))
	var nodes []vault.Node
	require.NoError(t, json.Unmarshal(so.Bytes(), &nodes), "one JSON document")
	require.Len(t, nodes, total)
	seen := map[uint64]bool{}
	for _, n := range nodes {
		assert.False(t, seen[n.ID], "node %d listed twice", n.ID)
		seen[n.ID] = true
	}

	so.Reset()
	require.NoError(t, runVaultList(ctx, &vaultListOptions{Env: e, JSON: true, List: vault.ListOptions{Limit: listPage + 10, Offset: 5}}))
	require.NoError(t, json.Unmarshal(so.Bytes(), &nodes))
	assert.Len(t, nodes, listPage+10)

	so.Reset()
	require.NoError(t, runVaultList(ctx, &vaultListOptions{Env: e, List: vault.ListOptions{Limit: 3}}))
	assert.Contains(t, so.String(), "3 of "+strconv.Itoa(total)+" nodes")

	so.Reset()
	require.NoError(t, runVaultList(ctx, &vaultListOptions{Env: e, JSON: true, List: vault.ListOptions{Tag: "no-such-tag"}}))
	assert.Equal(t, "[]\n", so.String(), "an empty listing is [] not null")
}

// TestFlagsParseIntoOptions checks the cobra layer alone: runF receives the
// parsed options and nothing runs.
func TestFlagsParseIntoOptions(t *testing.T) {
	t.Parallel()
	e, _, _ := newTestEnv(t, t.TempDir(), nil, "")
	var got *vaultAddOptions
	cmd := newVaultAddCmd(e, func(_ context.Context, o *vaultAddOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--type", "mistake", "--content", "Forgot the timeout", "--tags", "net,http", "--confidence", "0"})
	require.NoError(t, cmd.Execute())
	require.NotNil(t, got)
	assert.Equal(t, vault.Mistake, got.Node.Type)
	assert.Equal(t, []string{"net", "http"}, got.Node.Tags)
	assert.True(t, got.ZeroConfidence, "an explicit 0 is kept apart from the default")

	var forget *vaultForgetOptions
	cmd = newVaultForgetCmd(e, func(_ context.Context, o *vaultForgetOptions) error { forget = o; return nil })
	cmd.SetArgs([]string{"#12", "-y"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, uint64(12), forget.ID)
	assert.True(t, forget.Yes)

	forget = nil
	cmd = newVaultForgetCmd(e, func(_ context.Context, o *vaultForgetOptions) error { forget = o; return nil })
	cmd.SetArgs([]string{"twelve"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	assert.Equal(t, 2, exitCode(err))
	assert.Nil(t, forget, "bad usage never reaches the command")
}

// TestCLIReachesTheEngineOnlyThroughTheFacade: cmd/nova and tui/ use
// engine.Workspace (and the engine's plain functions), never the database,
// the model client or the in-process engine, except where the workspace
// is opened.
func TestCLIReachesTheEngineOnlyThroughTheFacade(t *testing.T) {
	t.Parallel()
	banned := []string{"github.com/nova-dev/nova/storage", "github.com/nova-dev/nova/engine/llm", "github.com/nova-dev/nova/engine/events", "go.etcd.io/bbolt"}
	for _, dir := range []string{".", "../../tui"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			if strings.Contains(filepath.ToSlash(path), "/tuitest/") {
				return nil // test support
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				assert.NotContains(t, banned, p, "%s imports %s", path, p)
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if filepath.Base(path) != "open.go" || dir != "." {
				for _, s := range []string{"engine.Local", "engine.Open(", ".DB()", ".LLM()"} {
					assert.NotContains(t, string(src), s, "%s reaches past the facade", path)
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
}

// usageFault is a workspace whose VaultStats rejects its input as bad usage,
// as an engine verb that validates a user's argument does.
type usageFault struct{ engine.Workspace }

func (usageFault) VaultStats(context.Context) (vault.Stats, error) {
	return vault.Stats{}, fmt.Errorf("vault stats: %w: that is not how to ask", engine.ErrUsage)
}

// TestEngineUsageErrorsExitTwoThroughTheSocket: an engine.ErrUsage crosses
// the owner's socket as a sentinel, so a client exits 2 for it, with the
// owner's message, as a command that owns the workspace does.
func TestEngineUsageErrorsExitTwoThroughTheSocket(t *testing.T) {
	t.Parallel()
	e, ws, _, se := testWorkspace(t, nil)
	srv, err := rpc.NewServer[engine.Workspace](usageFault{ws}, rpc.ServerOptions{Version: "test"})
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", "usage") // short: a socket path has a length limit
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	c := rpc.NewClient(func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}, rpc.ClientOptions{Version: "test"})
	t.Cleanup(func() { _ = c.Close() })
	e.Workspace = func(context.Context) (engine.Workspace, error) { return nopClose{remote.NewWorkspace(c)}, nil }

	code := run(t.Context(), e, []string{"vault", "stats"})
	assert.Equal(t, 2, code)
	assert.Contains(t, se.String(), "vault stats: bad usage: that is not how to ask")
	assert.Contains(t, se.String(), "`nova vault stats --help`", "it points to the command's help")
	assert.Equal(t, 2, exitCode(fmt.Errorf("wrapped: %w", engine.ErrUsage)))
}
