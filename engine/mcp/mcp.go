// Package mcp is nova's Model Context Protocol client: it starts the
// servers configured under mcp.servers on first use (a program over
// stdin/stdout, or a streamable HTTP endpoint), lists their tools and calls
// them, through the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Every failure names its server and ends in an error, never a hang: the
// initialize handshake and each call are bounded by the server's timeout; a
// server that exits mid-call is marked failed and started again on the next
// use; a result larger than MaxResult is cut with a note; a server that
// declares more than MaxTools tools is offered only the first MaxTools; a
// tool whose input schema nova cannot compile is skipped with a warning.
//
// Tools reach agents through the tool registry (engine/tools) as
// "server.tool" ([Registrar]); calling one needs an approval
// below autonomy 4, like runCommand.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nova-dev/nova/internal/lazyre"
)

// Limits applied to every server.
const (
	// DefaultTimeout bounds initialize and each call when a server sets none.
	DefaultTimeout = 30 * time.Second
	// MaxResult is how many bytes of one tool result nova keeps.
	MaxResult = 1 << 20
	// MaxTools is how many tools of one server nova offers.
	MaxTools = 64
	// maxListed bounds how many tools nova reads from tools/list at all.
	maxListed = 10000
	// stderrTail is how much of a stdio server's stderr is kept for errors.
	stderrTail = 2048
)

// ErrUnknownServer: the name is not under mcp.servers.
var ErrUnknownServer = errors.New("no such MCP server")

// ErrUnknownTool: the server does not offer a tool of that name.
var ErrUnknownTool = errors.New("no such MCP tool")

// ServerConfig is one configured server (workspace.MCPServerConfig plus its
// name).
type ServerConfig struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	Timeout time.Duration
	// Tools, when set, is the allowlist of the server's tools.
	Tools []string
}

// Transport returns the SDK transport for a server; Options.Transport
// replaces the default (tests connect in-process servers).
type Transport func(ctx context.Context, cfg ServerConfig) (sdk.Transport, error)

// Options tune a Manager.
type Options struct {
	// Dir is the working directory of stdio servers (the workspace root).
	Dir string
	// Getenv resolves ${VAR} in env and header values; nil is os.Getenv.
	Getenv func(string) string
	// Transport replaces the default transports (tests).
	Transport Transport
	// MaxResult and MaxTools replace the package limits when > 0.
	MaxResult, MaxTools int
	// Version is the client version nova announces.
	Version string
}

// State of a server.
type State string

// Server states.
const (
	StateIdle   State = "not started"
	StateReady  State = "ready"
	StateFailed State = "failed"
	StateClosed State = "closed"
)

// Tool is one tool a server offers.
type Tool struct {
	// Server is the server's name; Name the tool's name on the server.
	Server string `json:"server"`
	Name   string `json:"name"`
	// FullName is what agents call: server.tool with the tool's name
	// reduced to letters, digits, '_' and '-'.
	FullName    string          `json:"fullName"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"inputSchema"`
}

// Status describes one server.
type Status struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"` // "stdio" or "http"
	Target    string   `json:"target"`    // command line or URL
	State     State    `json:"state"`
	Tools     int      `json:"tools"`
	Warnings  []string `json:"warnings,omitempty"`
	Error     string   `json:"error,omitempty"`
	// ServerName and ServerVersion are what initialize reported.
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
}

// Result is the outcome of one tool call.
type Result struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Text is the result's content as text (images and other binary
	// content are described, not included), cut at MaxResult.
	Text string `json:"text"`
	// IsError: the tool reported failure.
	IsError bool `json:"isError,omitempty"`
	// Cut: the result was larger than MaxResult.
	Cut bool `json:"cut,omitempty"`
}

// Manager owns the configured servers of one workspace. It is safe for
// concurrent use.
type Manager struct {
	opts    Options
	order   []string
	servers map[string]*server
}

type server struct {
	cfg ServerConfig

	mu       sync.Mutex
	state    State
	err      error
	session  *sdk.ClientSession
	ended    chan struct{} // closed when the session's connection ends
	tools    []Tool
	warnings []string
	info     *sdk.Implementation
	stderr   *tailBuffer
}

// New returns a manager of cfgs; nothing is started.
func New(cfgs []ServerConfig, opts Options) *Manager {
	m := &Manager{opts: opts, servers: map[string]*server{}}
	for _, c := range cfgs {
		if c.Timeout <= 0 {
			c.Timeout = DefaultTimeout
		}
		if _, dup := m.servers[c.Name]; dup {
			continue
		}
		m.servers[c.Name] = &server{cfg: c, state: StateIdle}
		m.order = append(m.order, c.Name)
	}
	slices.Sort(m.order)
	return m
}

// Names lists the configured servers, sorted.
func (m *Manager) Names() []string {
	if m == nil {
		return nil
	}
	return slices.Clone(m.order)
}

// Has reports whether name is a configured server.
func (m *Manager) Has(name string) bool {
	if m == nil {
		return false
	}
	_, ok := m.servers[name]
	return ok
}

func (m *Manager) server(name string) (*server, error) {
	if m != nil {
		if s, ok := m.servers[name]; ok {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w %q (configured: %s)", ErrUnknownServer, name, m.namesOrNone())
}

func (m *Manager) namesOrNone() string {
	if m == nil || len(m.order) == 0 {
		return "none; add mcp.servers to .nova/config.yaml"
	}
	return strings.Join(m.order, ", ")
}

// Status describes every server without starting any.
func (m *Manager) Status() []Status {
	var out []Status
	for _, n := range m.Names() {
		out = append(out, m.servers[n].status())
	}
	return out
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, State: s.state, Tools: len(s.tools), Warnings: slices.Clone(s.warnings)}
	if s.cfg.URL != "" {
		st.Transport, st.Target = "http", s.cfg.URL
	} else {
		st.Transport, st.Target = "stdio", strings.TrimSpace(s.cfg.Command+" "+strings.Join(s.cfg.Args, " "))
	}
	if s.err != nil {
		st.Error = s.err.Error()
	}
	if s.info != nil {
		st.ServerName, st.ServerVersion = s.info.Name, s.info.Version
	}
	return st
}

// Start starts the server if it is not running (initialize, then
// tools/list), within its timeout, and returns its status.
func (m *Manager) Start(ctx context.Context, name string) (Status, error) {
	s, err := m.server(name)
	if err != nil {
		return Status{}, err
	}
	err = m.ensure(ctx, s, s.cfg.Timeout)
	return s.status(), err
}

// StartWithin is Start with a shorter bound (nova doctor).
func (m *Manager) StartWithin(ctx context.Context, name string, d time.Duration) (Status, error) {
	s, err := m.server(name)
	if err != nil {
		return Status{}, err
	}
	if d <= 0 || d > s.cfg.Timeout {
		d = s.cfg.Timeout
	}
	err = m.ensure(ctx, s, d)
	return s.status(), err
}

// ensure starts s unless it is ready; s.mu is not held on return.
func (m *Manager) ensure(ctx context.Context, s *server, timeout time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateReady && s.session != nil {
		select {
		case <-s.ended: // the server went away since: start it again
			_ = s.session.Close()
			s.session = nil
		default:
			return nil
		}
	}
	if s.state == StateClosed {
		return fmt.Errorf("mcp server %s: closed", s.cfg.Name)
	}
	err := m.start(ctx, s, timeout)
	if err != nil {
		s.state, s.err = StateFailed, err
		return err
	}
	s.state, s.err = StateReady, nil
	return nil
}

// start connects (initialize) and lists tools; s.mu is held.
func (m *Manager) start(ctx context.Context, s *server, timeout time.Duration) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("mcp server %s: client crashed while starting: %v", s.cfg.Name, p)
		}
	}()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var t sdk.Transport
	if m.opts.Transport != nil {
		t, err = m.opts.Transport(cctx, s.cfg)
	} else {
		t, err = m.transport(s)
	}
	if err != nil {
		return fmt.Errorf("mcp server %s: %w", s.cfg.Name, err)
	}
	// A failed start closes what the transport opened (a stdio server's
	// process is stopped, not left behind).
	tt := &trackedTransport{Transport: t}
	t = tt
	defer func() {
		if err != nil {
			tt.close()
		}
	}()
	version := m.opts.Version
	if version == "" {
		version = "dev"
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "nova", Version: version},
		&sdk.ClientOptions{Logger: slog.New(slog.DiscardHandler)})
	type conn struct {
		cs  *sdk.ClientSession
		err error
	}
	// Connect honours its context in the SDK, but a transport can still
	// block (a pipe nobody reads); the select makes the timeout certain.
	done := make(chan conn, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- conn{err: fmt.Errorf("client crashed: %v", p)}
			}
		}()
		cs, err := client.Connect(cctx, t, nil)
		done <- conn{cs, err}
	}()
	var c conn
	select {
	case c = <-done:
	case <-cctx.Done():
		go func() { // close whatever Connect returns late
			if late := <-done; late.cs != nil {
				_ = late.cs.Close()
			}
		}()
		c.err = cctx.Err()
	}
	if c.err != nil {
		if ctx.Err() == nil && cctx.Err() != nil {
			return fmt.Errorf("mcp server %s: no answer to initialize within %s%s", s.cfg.Name, timeout, s.stderrNote())
		}
		return fmt.Errorf("mcp server %s: initialize: %w%s", s.cfg.Name, c.err, s.stderrNote())
	}
	s.session = c.cs
	ended := make(chan struct{})
	s.ended = ended
	go func(cs *sdk.ClientSession) {
		_ = cs.Wait()
		close(ended)
	}(c.cs)
	if r := c.cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		s.info = r.ServerInfo
	}
	tools, warns, err := m.listTools(cctx, s)
	if err != nil {
		_ = c.cs.Close()
		s.session = nil
		if ctx.Err() == nil && cctx.Err() != nil {
			return fmt.Errorf("mcp server %s: no answer to tools/list within %s", s.cfg.Name, timeout)
		}
		return fmt.Errorf("mcp server %s: list tools: %w%s", s.cfg.Name, err, s.stderrNote())
	}
	s.tools, s.warnings = tools, warns
	return nil
}

func (s *server) stderrNote() string {
	if s.stderr == nil {
		return ""
	}
	if t := strings.TrimSpace(s.stderr.String()); t != "" {
		return "; its stderr ends: " + t
	}
	return ""
}

// transport builds the default transport of s.
func (m *Manager) transport(s *server) (sdk.Transport, error) {
	getenv := m.opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if s.cfg.URL != "" {
		h := http.Header{}
		for k, v := range s.cfg.Headers {
			h.Set(k, Expand(v, getenv))
		}
		return &sdk.StreamableClientTransport{
			Endpoint:     s.cfg.URL,
			HTTPClient:   &http.Client{Transport: headerTransport{h: h, rt: http.DefaultTransport}},
			MaxRetries:   1,
			MaxEventSize: MaxFrame,
		}, nil
	}
	if strings.TrimSpace(s.cfg.Command) == "" {
		return nil, errors.New("no command or url configured")
	}
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...) //nolint:gosec,noctx // the user's configured server; its lifetime is the session's
	cmd.Dir = m.opts.Dir
	cmd.Env = serverEnv(s.cfg.Env, getenv)
	s.stderr = &tailBuffer{max: stderrTail}
	cmd.Stderr = s.stderr
	return &commandTransport{cmd: cmd}, nil
}

// passEnv is what a stdio server gets from nova's environment besides its
// configured env: enough to find and run node, python or a binary.
var passEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TEMP", "TMP",
	"SYSTEMROOT", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"}

func serverEnv(env map[string]string, getenv func(string) string) []string {
	var out []string
	for _, k := range passEnv {
		if _, set := env[k]; set {
			continue
		}
		if v := getenv(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+Expand(env[k], getenv))
	}
	return out
}

var varPattern = lazyre.New(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Expand replaces ${VAR} in v with getenv(VAR); nothing else is expanded
// ($VAR and $(…) stay as they are).
func Expand(v string, getenv func(string) string) string {
	if !strings.Contains(v, "${") {
		return v
	}
	return varPattern.ReplaceAllStringFunc(v, func(m string) string {
		return getenv(m[2 : len(m)-1])
	})
}

// trackedTransport remembers the connection it made.
type trackedTransport struct {
	sdk.Transport
	mu   sync.Mutex
	conn sdk.Connection
}

func (t *trackedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	t.mu.Lock()
	t.conn = c
	t.mu.Unlock()
	return c, err
}

func (t *trackedTransport) close() {
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

type headerTransport struct {
	h  http.Header
	rt http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.rt.RoundTrip(r)
}

// listTools reads tools/list, applies the allowlist, the cap and the schema
// check; s.mu is held.
func (m *Manager) listTools(ctx context.Context, s *server) ([]Tool, []string, error) {
	limit := m.opts.MaxTools
	if limit <= 0 {
		limit = MaxTools
	}
	var tools []Tool
	var warns []string
	seen := map[string]string{}
	declared := 0
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, err
		}
		if t == nil {
			continue
		}
		declared++
		if declared > maxListed {
			break
		}
		if len(s.cfg.Tools) > 0 && !slices.Contains(s.cfg.Tools, t.Name) {
			continue
		}
		full := s.cfg.Name + "." + SanitizeName(t.Name)
		if prev, dup := seen[full]; dup {
			warns = append(warns, fmt.Sprintf("mcp server %s: tool %q skipped: its name reads as %s like tool %q", s.cfg.Name, t.Name, full, prev))
			continue
		}
		schema, err := compileSchema(full, t.InputSchema)
		if err != nil {
			warns = append(warns, fmt.Sprintf("mcp server %s: tool %q skipped: nova cannot compile its input schema: %v", s.cfg.Name, t.Name, err))
			continue
		}
		if len(tools) >= limit {
			continue
		}
		seen[full] = t.Name
		tools = append(tools, Tool{Server: s.cfg.Name, Name: t.Name, FullName: full,
			Description: clipText(t.Description, 1024), Schema: schema})
	}
	if declared > len(tools) && len(tools) == limit {
		warns = append(warns, fmt.Sprintf("mcp server %s declares %d tools; nova offers the first %d (list the ones you want in mcp.servers.%s.tools)", s.cfg.Name, declared, limit, s.cfg.Name))
	}
	for _, want := range s.cfg.Tools {
		if !slices.ContainsFunc(tools, func(t Tool) bool { return t.Name == want }) &&
			!slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, fmt.Sprintf("%q", want)) }) {
			warns = append(warns, fmt.Sprintf("mcp server %s: mcp.servers.%s.tools lists %q, which the server does not offer", s.cfg.Name, s.cfg.Name, want))
		}
	}
	return tools, warns, nil
}

var badNameChars = lazyre.New(`[^A-Za-z0-9_-]+`)

// SanitizeName reduces an MCP tool name to letters, digits, '_' and '-'
// (other runs become '_'), at most 64 characters.
func SanitizeName(name string) string {
	s := badNameChars.ReplaceAllString(name, "_")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "_"
	}
	return s
}

// compileSchema returns the schema as JSON after checking that nova's
// validator (the one engine/tools uses) compiles it.
func compileSchema(name string, v any) (json.RawMessage, error) {
	var raw []byte
	switch x := v.(type) {
	case nil:
		raw = []byte(`{"type":"object"}`)
	case json.RawMessage:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = []byte(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, errors.New("the schema is not a JSON object")
	}
	url := "mem:///nova/mcp/" + name + ".schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	if _, err := c.Compile(url); err != nil {
		return nil, err
	}
	return json.RawMessage(raw), nil
}

// Tools starts the server if needed and returns its offered tools and
// warnings (skipped tools, the cap).
func (m *Manager) Tools(ctx context.Context, name string) ([]Tool, []string, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, nil, err
	}
	if err := m.ensure(ctx, s, s.cfg.Timeout); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools), slices.Clone(s.warnings), nil
}

// Call calls a tool of a server (by its name on the server, or its
// sanitized name) with args (a JSON object; empty means {}), within the
// server's timeout.
func (m *Manager) Call(ctx context.Context, server, tool string, args json.RawMessage) (Result, error) {
	s, err := m.server(server)
	if err != nil {
		return Result{}, err
	}
	if err := m.ensure(ctx, s, s.cfg.Timeout); err != nil {
		return Result{}, err
	}
	s.mu.Lock()
	cs, ended := s.session, s.ended
	var t *Tool
	for i := range s.tools {
		if s.tools[i].Name == tool || s.tools[i].FullName == s.cfg.Name+"."+tool {
			t = &s.tools[i]
			break
		}
	}
	var known []string
	for _, x := range s.tools {
		known = append(known, x.Name)
	}
	s.mu.Unlock()
	if t == nil {
		return Result{}, fmt.Errorf("mcp server %s: %w %q (offered: %s)", server, ErrUnknownTool, tool, strings.Join(known, ", "))
	}
	var params map[string]any
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && string(trimmed) != "null" {
		if err := json.Unmarshal(trimmed, &params); err != nil {
			return Result{}, fmt.Errorf("mcp %s.%s: arguments must be a JSON object: %w", server, tool, err)
		}
	}
	if params == nil {
		params = map[string]any{}
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	type reply struct {
		r   *sdk.CallToolResult
		err error
	}
	done := make(chan reply, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- reply{err: fmt.Errorf("client crashed: %v", p)}
			}
		}()
		r, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: t.Name, Arguments: params})
		done <- reply{r, err}
	}()
	var rep reply
	select {
	case rep = <-done:
	case <-cctx.Done():
		rep.err = cctx.Err()
	case <-ended:
		select { // a reply that raced the close wins
		case rep = <-done:
		default:
			rep.err = sdk.ErrConnectionClosed
		}
	}
	if rep.err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if cctx.Err() != nil {
			return Result{}, fmt.Errorf("mcp %s.%s: no result within %s", server, t.Name, s.cfg.Timeout)
		}
		if errors.Is(rep.err, sdk.ErrConnectionClosed) || errors.Is(rep.err, io.EOF) || errors.Is(rep.err, io.ErrUnexpectedEOF) {
			m.fail(s, cs, rep.err)
			return Result{}, fmt.Errorf("mcp %s.%s: the server closed the connection during the call (it will be started again on next use): %w%s", server, t.Name, rep.err, s.stderrNote())
		}
		if strings.Contains(rep.err.Error(), "maximum line length") {
			return Result{}, fmt.Errorf("mcp %s.%s: the result is larger than %d MiB, more than nova reads: %w", server, t.Name, MaxFrame>>20, rep.err)
		}
		return Result{}, fmt.Errorf("mcp %s.%s: %w", server, t.Name, rep.err)
	}
	max := m.opts.MaxResult
	if max <= 0 {
		max = MaxResult
	}
	text, cut := resultText(rep.r, max)
	res := Result{Server: server, Tool: t.Name, Text: text, Cut: cut}
	if rep.r != nil {
		res.IsError = rep.r.IsError
	}
	return res, nil
}

// fail marks a server whose connection broke, so the next use starts it
// again.
func (m *Manager) fail(s *server, cs *sdk.ClientSession, cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != cs {
		return
	}
	_ = cs.Close()
	s.session, s.state, s.err = nil, StateFailed, cause
}

// resultText renders a result's content as text, cut at max bytes.
func resultText(r *sdk.CallToolResult, max int) (string, bool) {
	if r == nil {
		return "", false
	}
	w := &capWriter{max: max}
	for i, c := range r.Content {
		if i > 0 {
			w.WriteString("\n")
		}
		switch x := c.(type) {
		case *sdk.TextContent:
			w.WriteString(x.Text)
		case *sdk.ImageContent:
			_, _ = fmt.Fprintf(w, "[image %s, %d bytes, not shown]", x.MIMEType, len(x.Data))
		case *sdk.AudioContent:
			_, _ = fmt.Fprintf(w, "[audio %s, %d bytes, not shown]", x.MIMEType, len(x.Data))
		case *sdk.ResourceLink:
			_, _ = fmt.Fprintf(w, "[resource link %s %s]", x.URI, x.Name)
		case *sdk.EmbeddedResource:
			if x.Resource == nil {
				w.WriteString("[empty resource]")
				break
			}
			if x.Resource.Text != "" {
				_, _ = fmt.Fprintf(w, "[resource %s]\n%s", x.Resource.URI, x.Resource.Text)
			} else {
				_, _ = fmt.Fprintf(w, "[resource %s, %d bytes of %s, not shown]", x.Resource.URI, len(x.Resource.Blob), x.Resource.MIMEType)
			}
		default:
			b, _ := json.Marshal(c)
			_, _ = w.Write(b)
		}
	}
	if len(r.Content) == 0 && r.StructuredContent != nil {
		b, err := json.Marshal(r.StructuredContent)
		if err == nil {
			_, _ = w.Write(b)
		}
	}
	text := w.buf.String()
	if w.dropped > 0 {
		text = strings.ToValidUTF8(text, "")
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
		text += fmt.Sprintf("\n[result cut at %d bytes; %d more bytes dropped]", max, w.dropped)
	}
	return text, w.dropped > 0
}

// Close closes every started server; further use fails.
func (m *Manager) Close() error {
	if m == nil {
		return nil
	}
	var errs []error
	for _, n := range m.order {
		s := m.servers[n]
		s.mu.Lock()
		if s.session != nil {
			if err := s.session.Close(); err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
				errs = append(errs, fmt.Errorf("mcp server %s: close: %w", n, err))
			}
			s.session = nil
		}
		s.state = StateClosed
		s.mu.Unlock()
	}
	return errors.Join(errs...)
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

type capWriter struct {
	buf     strings.Builder
	max     int
	dropped int
}

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max - w.buf.Len()
	if room >= len(p) {
		w.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		w.buf.Write(p[:room])
	}
	w.dropped += len(p) - max(room, 0)
	return len(p), nil
}

func (w *capWriter) WriteString(s string) { _, _ = w.Write([]byte(s)) }

// tailBuffer keeps the last max bytes written (a server's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = slices.Clone(t.b[len(t.b)-t.max:])
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.b), "")
}

// Resource is one resource or prompt a server lists.
type Resource struct {
	Kind        string `json:"kind"` // "resource", "template" or "prompt"
	Name        string `json:"name"`
	URI         string `json:"uri,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
}

// maxResources bounds what Resources reads of each list.
const maxResources = 1000

// Resources starts the server if needed and lists its resources, resource
// templates and prompts (those it declares the capability for), at most
// 1000 of each; nova lists them for people, agents do not use them.
func (m *Manager) Resources(ctx context.Context, name string) ([]Resource, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, err
	}
	if err := m.ensure(ctx, s, s.cfg.Timeout); err != nil {
		return nil, err
	}
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	if cs == nil {
		return nil, fmt.Errorf("mcp server %s: not running", name)
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	var caps *sdk.ServerCapabilities
	if r := cs.InitializeResult(); r != nil {
		caps = r.Capabilities
	}
	var out []Resource
	wrap := func(what string, err error) error {
		return fmt.Errorf("mcp server %s: list %s: %w", name, what, err)
	}
	if caps != nil && caps.Resources != nil {
		n := 0
		for r, err := range cs.Resources(cctx, nil) {
			if err != nil {
				return out, wrap("resources", err)
			}
			if n++; n > maxResources {
				break
			}
			out = append(out, Resource{Kind: "resource", Name: r.Name, URI: r.URI, MIMEType: r.MIMEType, Description: clipText(r.Description, 200)})
		}
		n = 0
		for r, err := range cs.ResourceTemplates(cctx, nil) {
			if err != nil {
				break // templates are optional even with the capability
			}
			if n++; n > maxResources {
				break
			}
			out = append(out, Resource{Kind: "template", Name: r.Name, URI: r.URITemplate, MIMEType: r.MIMEType, Description: clipText(r.Description, 200)})
		}
	}
	if caps != nil && caps.Prompts != nil {
		n := 0
		for p, err := range cs.Prompts(cctx, nil) {
			if err != nil {
				return out, wrap("prompts", err)
			}
			if n++; n > maxResources {
				break
			}
			out = append(out, Resource{Kind: "prompt", Name: p.Name, Description: clipText(p.Description, 200)})
		}
	}
	return out, nil
}
