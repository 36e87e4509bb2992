package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine/tools"
)

var objectSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"message": map[string]any{"type": "string"}},
	"required":   []any{"message"},
}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// addEcho adds the tool "echo" answering "echo: MESSAGE".
func addEcho(s *sdk.Server) {
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes its message.", InputSchema: objectSchema},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct {
				Message string `json:"message"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return textResult("echo: " + in.Message), nil
		})
}

// fake is an in-process server per connection, built by setup.
type fake struct {
	setup    func(*sdk.Server, func())
	connects atomic.Int32
}

func (f *fake) transport(t *testing.T) Transport {
	return func(ctx context.Context, cfg ServerConfig) (sdk.Transport, error) {
		f.connects.Add(1)
		ct, st, kill := pipeTransports()
		srv := sdk.NewServer(&sdk.Implementation{Name: "fake-" + cfg.Name, Version: "1.0.0"}, nil)
		f.setup(srv, kill)
		sess, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = sess.Close() })
		return ct, nil
	}
}

func newManager(t *testing.T, f *fake, cfgs ...ServerConfig) *Manager {
	t.Helper()
	if len(cfgs) == 0 {
		cfgs = []ServerConfig{{Name: "fake", Command: "unused"}}
	}
	m := New(cfgs, Options{Transport: f.transport(t)})
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func TestListAndCall(t *testing.T) {
	t.Parallel()
	f := &fake{setup: func(s *sdk.Server, _ func()) { addEcho(s) }}
	m := newManager(t, f)
	ctx := context.Background()

	st := m.Status()
	require.Len(t, st, 1)
	assert.Equal(t, StateIdle, st[0].State, "nothing starts before first use")
	assert.Zero(t, f.connects.Load())

	ts, warns, err := m.Tools(ctx, "fake")
	require.NoError(t, err)
	assert.Empty(t, warns)
	require.Len(t, ts, 1)
	assert.Equal(t, "fake.echo", ts[0].FullName)
	assert.Equal(t, "echo", ts[0].Name)
	assert.JSONEq(t, `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`, string(ts[0].Schema))

	res, err := m.Call(ctx, "fake", "echo", json.RawMessage(`{"message":"hi"}`))
	require.NoError(t, err)
	assert.Equal(t, "echo: hi", res.Text)
	assert.False(t, res.Cut)

	st = m.Status()
	assert.Equal(t, StateReady, st[0].State)
	assert.Equal(t, 1, st[0].Tools)
	assert.Equal(t, "fake-fake", st[0].ServerName)
	assert.EqualValues(t, 1, f.connects.Load(), "one connection serves every use")

	_, err = m.Call(ctx, "fake", "nope", nil)
	require.ErrorIs(t, err, ErrUnknownTool)
	assert.Contains(t, err.Error(), "offered: echo")
	_, err = m.Call(ctx, "other", "echo", nil)
	require.ErrorIs(t, err, ErrUnknownServer)

	require.NoError(t, m.Close())
	_, err = m.Call(ctx, "fake", "echo", nil)
	require.Error(t, err, "a closed manager does not start servers again")
}

func TestAllowlist(t *testing.T) {
	t.Parallel()
	f := &fake{setup: func(s *sdk.Server, _ func()) {
		addEcho(s)
		s.AddTool(&sdk.Tool{Name: "other", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return textResult("x"), nil })
	}}
	m := newManager(t, f, ServerConfig{Name: "fake", Command: "x", Tools: []string{"other", "missing"}})
	ts, warns, err := m.Tools(context.Background(), "fake")
	require.NoError(t, err)
	require.Len(t, ts, 1)
	assert.Equal(t, "fake.other", ts[0].FullName)
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], `"missing"`)
}

func TestRegisterNamespacedApprovedAndNotOfferedByDefault(t *testing.T) {
	t.Parallel()
	f := &fake{setup: func(s *sdk.Server, _ func()) {
		addEcho(s)
		s.AddTool(&sdk.Tool{Name: "get sum!", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return textResult("3"), nil })
	}}
	m := newManager(t, f)
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(tools.Tool{Name: "readFile", Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Output, error) {
		return tools.Output{}, nil
	}}))
	r := &Registrar{M: m, Reg: reg}
	ctx := context.Background()

	names, err := r.Expand(ctx, []string{"readFile", "fake.*"}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"readFile", "fake.echo", "fake.get_sum_"}, names)
	names, err = r.Expand(ctx, []string{"fake.echo"}, nil)
	require.NoError(t, err, "registering twice is a no-op")
	assert.Equal(t, []string{"fake.echo"}, names)

	_, err = r.Expand(ctx, []string{"fake.missing"}, nil)
	require.ErrorIs(t, err, ErrUnknownTool)
	_, err = r.Expand(ctx, []string{"nosuch.*"}, nil)
	require.ErrorIs(t, err, ErrUnknownServer)

	// An agent that does not list the tool is not offered it.
	assert.Error(t, reg.Permit("dev", []string{"readFile"}, "fake.echo"))
	offered := tools.LLMTools(reg.For("dev", []string{"readFile"}))
	assert.Len(t, offered, 1)

	// Below autonomy 4 the call asks; a refusal is a policy denial.
	var asked []tools.ApprovalRequest
	env := &tools.Env{Agent: "dev", Tools: []string{"fake.echo"}, Autonomy: 2,
		Approve: func(_ context.Context, req tools.ApprovalRequest) (bool, error) {
			asked = append(asked, req)
			return len(asked) == 1, nil
		}}
	res := reg.Execute(ctx, env, tools.Call{Name: "fake.echo", Args: json.RawMessage(`{"message":"yo"}`)})
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	assert.Contains(t, res.Output, "echo: yo")
	assert.Contains(t, res.Output, "MCP tool fake.echo (from the server")
	require.Len(t, asked, 1)
	assert.Equal(t, "fake.echo", asked[0].Tool)
	assert.Contains(t, asked[0].Command, `fake.echo {"message":"yo"}`)
	assert.Contains(t, asked[0].Reason, "autonomy 2")

	res = reg.Execute(ctx, env, tools.Call{Name: "fake.echo", Args: json.RawMessage(`{"message":"no"}`)})
	assert.Equal(t, tools.StatusDenied, res.Status)
	assert.Contains(t, res.Output, "declined")

	// Schema validation happens before the call.
	res = reg.Execute(ctx, env, tools.Call{Name: "fake.echo", Args: json.RawMessage(`{}`)})
	assert.Equal(t, tools.StatusInvalid, res.Status)
	assert.Len(t, asked, 2, "an invalid call is not put to the user")

	// From autonomy 4 nobody is asked.
	env.Autonomy, env.Approve = 4, nil
	res = reg.Execute(ctx, env, tools.Call{Name: "fake.echo", Args: json.RawMessage(`{"message":"auto"}`)})
	require.Equal(t, tools.StatusOK, res.Status, res.Output)
	// Below 4 with nobody to answer: denied.
	env.Autonomy = 1
	res = reg.Execute(ctx, env, tools.Call{Name: "fake.echo", Args: json.RawMessage(`{"message":"x"}`)})
	assert.Equal(t, tools.StatusDenied, res.Status)
}

// pipeTransports connect nova's client to an in-process server; unlike
// sdk.NewInMemoryTransports the client side reads frames up to MaxFrame,
// like nova's stdio transport.
// kill closes the server's ends, like a server process dying.
func pipeTransports() (client, server sdk.Transport, kill func()) {
	r1, w1 := io.Pipe()
	r2, w2 := io.Pipe()
	kill = func() {
		_ = w1.Close()
		_ = r2.Close()
	}
	return &sdk.IOTransport{Reader: r1, Writer: w2, MaxLineLength: MaxFrame}, &sdk.IOTransport{Reader: r2, Writer: w1}, kill
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func TestInitializeTimeoutNamesServer(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	m := New([]ServerConfig{{Name: "sleepy", Command: "x", Timeout: 300 * time.Millisecond}}, Options{
		Transport: func(context.Context, ServerConfig) (sdk.Transport, error) {
			// Reads everything nova sends, never answers.
			return &sdk.IOTransport{Reader: pr, Writer: nopWriteCloser{io.Discard}}, nil
		}})
	t.Cleanup(func() { _ = m.Close() })
	start := time.Now()
	_, _, err := m.Tools(context.Background(), "sleepy")
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Contains(t, err.Error(), "mcp server sleepy")
	assert.Contains(t, err.Error(), "initialize")
	st := m.Status()
	assert.Equal(t, StateFailed, st[0].State)
	assert.Contains(t, st[0].Error, "sleepy")
}

func TestHugeResultIsCut(t *testing.T) {
	t.Parallel()
	const size = 50 << 20
	f := &fake{setup: func(s *sdk.Server, _ func()) {
		s.AddTool(&sdk.Tool{Name: "flood", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return textResult(strings.Repeat("x", size)), nil
			})
	}}
	m := newManager(t, f)
	res, err := m.Call(context.Background(), "fake", "flood", nil)
	require.NoError(t, err)
	assert.True(t, res.Cut)
	assert.LessOrEqual(t, len(res.Text), MaxResult+200)
	assert.Contains(t, res.Text, fmt.Sprintf("[result cut at %d bytes; %d more bytes dropped]", MaxResult, size-MaxResult))
}

func TestManyToolsAreCapped(t *testing.T) {
	t.Parallel()
	f := &fake{setup: func(s *sdk.Server, _ func()) {
		for i := range 500 {
			s.AddTool(&sdk.Tool{Name: fmt.Sprintf("t%03d", i), InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return textResult("ok"), nil })
		}
	}}
	m := newManager(t, f)
	ts, warns, err := m.Tools(context.Background(), "fake")
	require.NoError(t, err)
	assert.Len(t, ts, MaxTools)
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], fmt.Sprintf("mcp server fake declares 500 tools; nova offers the first %d", MaxTools))
}

func TestBadSchemaIsSkipped(t *testing.T) {
	t.Parallel()
	f := &fake{setup: func(s *sdk.Server, _ func()) {
		addEcho(s)
		s.AddTool(&sdk.Tool{Name: "broken", InputSchema: map[string]any{"type": "object",
			"properties": map[string]any{"x": map[string]any{"type": "nonsense"}}}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return textResult("x"), nil })
	}}
	m := newManager(t, f)
	var warned []string
	r := &Registrar{M: m, Reg: tools.NewRegistry()}
	names, err := r.Expand(context.Background(), []string{"fake.*"}, func(w string) { warned = append(warned, w) })
	require.NoError(t, err)
	assert.Equal(t, []string{"fake.echo"}, names)
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0], `mcp server fake: tool "broken" skipped: nova cannot compile its input schema`)
}

func TestCrashMidCallIsAnErrorAndRestarts(t *testing.T) {
	t.Parallel()
	f := &fake{setup: func(s *sdk.Server, kill func()) {
		addEcho(s)
		s.AddTool(&sdk.Tool{Name: "crash", InputSchema: map[string]any{"type": "object"}},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				kill()
				<-ctx.Done()
				return nil, ctx.Err()
			})
	}}
	m := newManager(t, f, ServerConfig{Name: "fake", Command: "x", Timeout: 5 * time.Second})
	ctx := context.Background()
	start := time.Now()
	_, err := m.Call(ctx, "fake", "crash", nil)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second, "the broken connection ends the call, not the timeout")
	assert.Contains(t, err.Error(), "mcp fake.crash")
	res, err := m.Call(ctx, "fake", "echo", json.RawMessage(`{"message":"again"}`))
	require.NoError(t, err)
	assert.Equal(t, "echo: again", res.Text)
	assert.EqualValues(t, 2, f.connects.Load(), "the server was started again")
}

func TestCallTimeout(t *testing.T) {
	t.Parallel()
	f := &fake{setup: func(s *sdk.Server, _ func()) {
		s.AddTool(&sdk.Tool{Name: "stall", InputSchema: map[string]any{"type": "object"}},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})
	}}
	m := newManager(t, f, ServerConfig{Name: "fake", Command: "x", Timeout: 300 * time.Millisecond})
	_, err := m.Call(context.Background(), "fake", "stall", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mcp fake.stall: no result within 300ms")
}

func TestResultContentKinds(t *testing.T) {
	t.Parallel()
	r := &sdk.CallToolResult{IsError: true, Content: []sdk.Content{
		&sdk.TextContent{Text: "a"},
		&sdk.ImageContent{MIMEType: "image/png", Data: []byte("1234")},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///x", Text: "body"}},
	}}
	text, cut := resultText(r, 1000)
	assert.False(t, cut)
	assert.Equal(t, "a\n[image image/png, 4 bytes, not shown]\n[resource file:///x]\nbody", text)
	text, cut = resultText(&sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, 1000)
	assert.False(t, cut)
	assert.JSONEq(t, `{"n":1}`, text)
	text, cut = resultText(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "héllo"}}}, 2)
	assert.True(t, cut)
	assert.True(t, strings.HasPrefix(text, "h\n[result cut"), text)
}

func TestNames(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "get_sum_", SanitizeName("get sum!"))
	assert.Equal(t, "echo", SanitizeName("echo"))
	assert.Equal(t, "_", SanitizeName(""))
	assert.Len(t, SanitizeName(strings.Repeat("a", 100)), 64)
	for name, want := range map[string]bool{"a.b": true, "a.*": true, "a": false, ".b": false, "a.": false, "a.b.c": false} {
		assert.Equal(t, want, IsToolName(name), name)
	}
	env := map[string]string{"TOKEN": "s3cret"}
	get := func(k string) string { return env[k] }
	assert.Equal(t, "Bearer s3cret", Expand("Bearer ${TOKEN}", get))
	assert.Equal(t, "$TOKEN ${} ", Expand("$TOKEN ${} ${MISSING}", get))
	assert.Equal(t, []string{"PATH=/bin", "A=s3cret"}, serverEnv(map[string]string{"A": "${TOKEN}"},
		func(k string) string { return map[string]string{"PATH": "/bin", "TOKEN": "s3cret"}[k] }))
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "${A}", "${", "$${A}}", "${A}${B}", "x${1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Expand(s, func(string) string { return "" })
		if !strings.Contains(s, "${") && out != s {
			t.Fatalf("changed %q without a ${", s)
		}
		_ = SanitizeName(s)
		_ = IsToolName(s)
	})
}
