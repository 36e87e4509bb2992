package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sentinel errors callers branch on.
var (
	// ErrServerDown: the server exited (or was stopped) before answering.
	ErrServerDown = errors.New("language server is not running")
	// ErrTimeout: the server did not answer within its timeout.
	ErrTimeout = errors.New("language server did not answer in time")
)

// Limits on what a server may make the client keep.
const (
	maxDiagsPerFile = 200
	maxFiles        = 2000
	stderrKeep      = 4096
)

// Severity of a diagnostic (LSP's numbers).
const (
	SeverityError   = 1
	SeverityWarning = 2
	SeverityInfo    = 3
	SeverityHint    = 4
)

// Diagnostic is one problem a server reports in a file.
type Diagnostic struct {
	Path     string `json:"path"` // workspace-relative, slash-separated
	Line     int    `json:"line"` // 1-based
	Col      int    `json:"col"`  // 1-based
	Severity int    `json:"severity"`
	Message  string `json:"message"`
	Source   string `json:"source,omitempty"`
}

// String formats as path:line:col: severity: message (source).
func (d Diagnostic) String() string {
	s := fmt.Sprintf("%s:%d:%d: %s: %s", d.Path, d.Line, d.Col, SeverityName(d.Severity), strings.TrimSpace(d.Message))
	if d.Source != "" {
		s += " (" + d.Source + ")"
	}
	return s
}

// SeverityName names a severity.
func SeverityName(s int) string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	}
	return "hint"
}

// File is a file's content as the client shows it to a server (the staged
// content, not the disk's).
type File struct {
	Path    string // workspace-relative, slash-separated
	Content string
}

// Options tune a client.
type Options struct {
	// Timeout bounds initialize and each wait for diagnostics.
	Timeout time.Duration
	// Settle is how long the client keeps listening once every file has
	// diagnostics, for a server that publishes in stages (0: none).
	Settle time.Duration
}

// fileState is what the client knows of one open document.
type fileState struct {
	version int
	diags   []Diagnostic
	seq     uint64 // publish sequence of the last diagnostics
}

// Client is one running language server.
type Client struct {
	spec ServerSpec
	root string // real path of the workspace root
	opts Options

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    chan []byte // frames to write
	done   chan struct{}
	stderr *tailBuffer

	mu      sync.Mutex
	nextID  int
	pending map[string]chan message
	files   map[string]*fileState // by URI
	seq     uint64
	changed chan struct{} // closed and replaced on every publish
	err     error         // why the session ended
	opened  map[string]bool
}

// Start starts the server and initializes it. A server that does not
// answer initialize within the timeout is killed (ErrTimeout).
func Start(ctx context.Context, spec ServerSpec, root string, opts Options) (*Client, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("lsp %s: %w", spec.Name, err)
	}
	rootReal, err = filepath.Abs(rootReal)
	if err != nil {
		return nil, fmt.Errorf("lsp %s: %w", spec.Name, err)
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir = rootReal
	cmd.Env = append(os.Environ(), spec.Env...)
	setGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("lsp %s: %w", spec.Name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("lsp %s: %w", spec.Name, err)
	}
	tail := &tailBuffer{max: stderrKeep}
	cmd.Stderr = tail
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("lsp %s: start %s: %w", spec.Name, spec.Path, err)
	}
	c := &Client{spec: spec, root: rootReal, opts: opts, cmd: cmd, stdin: stdin, out: make(chan []byte, 64),
		done: make(chan struct{}), stderr: tail, pending: map[string]chan message{}, files: map[string]*fileState{},
		changed: make(chan struct{}), opened: map[string]bool{}}
	go c.writeLoop()
	go c.readLoop(stdout)
	go func() {
		err := cmd.Wait()
		c.end(fmt.Errorf("%w: %s exited (%w)%s", ErrServerDown, spec.Name, err, c.stderrNote()))
	}()

	ictx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	rootURI := fileURI(rootReal)
	params := map[string]any{
		"processId": os.Getpid(),
		"rootUri":   rootURI,
		"rootPath":  rootReal,
		"clientInfo": map[string]any{
			"name": "nova",
		},
		"workspaceFolders": []map[string]any{{"uri": rootURI, "name": filepath.Base(rootReal)}},
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": false, "dynamicRegistration": false},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
			},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
			"window":    map[string]any{"workDoneProgress": false},
		},
	}
	if _, err := c.call(ictx, "initialize", params); err != nil {
		c.Close()
		return nil, fmt.Errorf("lsp %s: initialize: %w", spec.Name, err)
	}
	if err := c.notify(ictx, "initialized", map[string]any{}); err != nil {
		c.Close()
		return nil, fmt.Errorf("lsp %s: initialized: %w", spec.Name, err)
	}
	return c, nil
}

// Name is the server's name (gopls, pyright, …).
func (c *Client) Name() string { return c.spec.Name }

// Alive reports whether the session still runs.
func (c *Client) Alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// end ends the session once: pending calls and waits fail with err.
func (c *Client) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	close(c.done)
	killGroup(c.cmd)
}

func (c *Client) sessionErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return ErrServerDown
}

func (c *Client) stderrNote() string {
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		return ": " + clip(lastLine(s), 200)
	}
	return ""
}

func (c *Client) writeLoop() {
	for {
		select {
		case <-c.done:
			return
		case b := <-c.out:
			if _, err := c.stdin.Write(b); err != nil {
				c.end(fmt.Errorf("%w: write to %s: %w", ErrServerDown, c.spec.Name, err))
				return
			}
		}
	}
}

func (c *Client) readLoop(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		m, err := readMessage(br)
		if err != nil {
			if errors.Is(err, ErrProtocol) {
				c.end(fmt.Errorf("lsp %s: %w", c.spec.Name, err))
			} else {
				c.end(fmt.Errorf("%w: %s closed its output%s", ErrServerDown, c.spec.Name, c.stderrNote()))
			}
			return
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			c.answerServer(m)
		case m.Method == "textDocument/publishDiagnostics":
			c.publish(m.Params)
		case m.Method == "":
			c.mu.Lock()
			ch, ok := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
			if ok {
				ch <- m
			}
		}
	}
}

// answerServer answers a server's request: configuration with empty
// settings, everything else with null (nova registers nothing).
func (c *Client) answerServer(m message) {
	var result any
	if m.Method == "workspace/configuration" {
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(m.Params, &p)
		result = make([]any, min(len(p.Items), 100))
	}
	res, _ := json.Marshal(result)
	b, err := frame(message{ID: m.ID, Result: res})
	if err != nil {
		return
	}
	select {
	case c.out <- b:
	case <-c.done:
	default: // the writer is stuck: the next wait times out
	}
}

// publish records a file's diagnostics (the latest only, capped).
func (c *Client) publish(raw json.RawMessage) {
	var p struct {
		URI         string `json:"uri"`
		Version     *int   `json:"version"`
		Diagnostics []struct {
			Range struct {
				Start struct {
					Line      int `json:"line"`
					Character int `json:"character"`
				} `json:"start"`
			} `json:"range"`
			Severity int             `json:"severity"`
			Message  string          `json:"message"`
			Source   string          `json:"source"`
			Code     json.RawMessage `json:"code"`
		} `json:"diagnostics"`
	}
	if json.Unmarshal(raw, &p) != nil || p.URI == "" {
		return
	}
	rel, ok := c.relOf(p.URI)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	fs := c.files[p.URI]
	if fs == nil {
		if len(c.files) >= maxFiles {
			return // a flood of files nova never opened
		}
		fs = &fileState{}
		c.files[p.URI] = fs
	}
	if p.Version != nil && *p.Version < fs.version {
		return // about an older version
	}
	fs.diags = fs.diags[:0]
	for _, d := range p.Diagnostics {
		if len(fs.diags) >= maxDiagsPerFile {
			break
		}
		sev := d.Severity
		if sev == 0 {
			sev = SeverityError
		}
		fs.diags = append(fs.diags, Diagnostic{Path: rel, Line: d.Range.Start.Line + 1, Col: d.Range.Start.Character + 1,
			Severity: sev, Message: clip(d.Message, 500), Source: clip(d.Source, 40)})
	}
	c.seq++
	fs.seq = c.seq
	close(c.changed)
	c.changed = make(chan struct{})
}

// call sends a request and waits for its answer.
func (c *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.nextID++
	id := json.RawMessage(strconv.Itoa(c.nextID))
	ch := make(chan message, 1)
	c.pending[string(id)] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, string(id))
		c.mu.Unlock()
	}()
	b, err := frame(message{ID: id, Method: method, Params: raw})
	if err != nil {
		return nil, err
	}
	if err := c.send(ctx, b); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %w", method, m.Error)
		}
		return m.Result, nil
	case <-c.done:
		return nil, c.sessionErr()
	case <-ctx.Done():
		return nil, waitErr(ctx)
	}
}

func (c *Client) notify(ctx context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	b, err := frame(message{Method: method, Params: raw})
	if err != nil {
		return err
	}
	return c.send(ctx, b)
}

func (c *Client) send(ctx context.Context, b []byte) error {
	select {
	case c.out <- b:
		return nil
	case <-c.done:
		return c.sessionErr()
	case <-ctx.Done():
		return waitErr(ctx)
	}
}

// waitErr is ErrTimeout for a deadline, the context's error otherwise.
func waitErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ErrTimeout
	}
	return ctx.Err()
}

// Diagnose shows the server files (opening them the first time, changing
// them after) and waits, at most the timeout, for the diagnostics of each.
// The diagnostics are those of these files, sorted by path and line; a
// file the server said nothing about in time has none (partial is true).
func (c *Client) Diagnose(ctx context.Context, files []File) (diags []Diagnostic, partial bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	c.mu.Lock()
	start := c.seq
	uris := make([]string, 0, len(files))
	type send struct {
		method string
		params any
	}
	var sends []send
	for _, f := range files {
		uri := fileURI(filepath.Join(c.root, filepath.FromSlash(f.Path)))
		uris = append(uris, uri)
		fs := c.files[uri]
		if fs == nil {
			fs = &fileState{}
			c.files[uri] = fs
		}
		fs.version++
		if !c.opened[uri] {
			c.opened[uri] = true
			sends = append(sends, send{"textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": uri, "languageId": languageID(f.Path), "version": fs.version, "text": f.Content}}})
		} else {
			sends = append(sends, send{"textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": fs.version},
				"contentChanges": []map[string]any{{"text": f.Content}}}})
		}
	}
	c.mu.Unlock()
	for _, s := range sends {
		if err := c.notify(ctx, s.method, s.params); err != nil {
			return nil, true, err
		}
	}
	var settleUntil time.Time
	for {
		c.mu.Lock()
		all := true
		for _, u := range uris {
			if fs := c.files[u]; fs == nil || fs.seq <= start {
				all = false
				break
			}
		}
		changed := c.changed
		c.mu.Unlock()
		if all {
			if c.opts.Settle <= 0 {
				break
			}
			if settleUntil.IsZero() {
				settleUntil = time.Now().Add(c.opts.Settle)
			}
		}
		var settle <-chan time.Time
		var timer *time.Timer
		if !settleUntil.IsZero() {
			d := time.Until(settleUntil)
			if d <= 0 {
				break
			}
			timer = time.NewTimer(d)
			settle = timer.C
		}
		var stop error
		ended := false
		select {
		case <-changed:
		case <-settle:
		case <-c.done:
			ended, stop = true, c.sessionErr()
		case <-ctx.Done():
			ended = true
			if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
				stop = err
			}
		}
		if timer != nil {
			timer.Stop()
		}
		if ended {
			if stop != nil && !errors.Is(stop, ErrServerDown) {
				return nil, true, stop
			}
			return c.collect(uris), true, stop // what came in time
		}
		if !settleUntil.IsZero() && !time.Now().Before(settleUntil) {
			break
		}
	}
	return c.collect(uris), false, nil
}

func (c *Client) collect(uris []string) []Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Diagnostic
	for _, u := range uris {
		if fs := c.files[u]; fs != nil {
			out = append(out, fs.diags...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// Close asks the server to shut down (briefly) and kills it.
func (c *Client) Close() {
	if c.Alive() {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		if _, err := c.call(ctx, "shutdown", nil); err == nil {
			_ = c.notify(ctx, "exit", nil)
		}
		cancel()
	}
	c.end(fmt.Errorf("%w: %s was stopped", ErrServerDown, c.spec.Name))
}

// relOf maps a file URI to a workspace path.
func (c *Client) relOf(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	rel, err := filepath.Rel(c.root, filepath.FromSlash(u.Path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// languageID is the LSP language id of a file.
func languageID(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".go":
		return "go"
	case ".py", ".pyi":
		return "python"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".jsx":
		return "javascriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".rs":
		return "rust"
	case ".java":
		return "java"
	}
	return "plaintext"
}

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
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
