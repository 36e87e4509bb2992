package lsp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// ServerSpec is one language server nova may start.
type ServerSpec struct {
	Name    string   `json:"name"`
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	// Languages it serves (codemap's names: go, python, javascript,
	// typescript, tsx, rust, java).
	Languages []string `json:"languages"`
	// Path is the program found on the PATH ("" when it is missing).
	Path string   `json:"path,omitempty"`
	Env  []string `json:"-"`
}

// Builtin are the servers nova looks for; alternatives (basedpyright for
// pyright) are tried in order under the same name.
func Builtin() []ServerSpec {
	return []ServerSpec{
		{Name: "gopls", Command: "gopls", Languages: []string{"go"}},
		{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Languages: []string{"python"}},
		{Name: "typescript", Command: "typescript-language-server", Args: []string{"--stdio"},
			Languages: []string{"typescript", "tsx", "javascript"}},
		{Name: "rust-analyzer", Command: "rust-analyzer", Languages: []string{"rust"}},
	}
}

// alternatives are other programs that stand in for a built-in one.
var alternatives = map[string][]string{"pyright-langserver": {"basedpyright-langserver"}}

// Config is what lsp: in the workspace config says (the engine converts).
type Config struct {
	Off     bool
	Timeout time.Duration
	Servers map[string]ServerSpec // by name; Off servers are in Disabled
	// Disabled names built-in servers turned off.
	Disabled []string
}

// Resolve is the list of servers for a config: the built-in ones (less the
// disabled) with the configured ones replacing or adding to them, each
// with its program looked up with lookPath (exec.LookPath when nil).
// Servers whose program is missing are listed with an empty Path.
func Resolve(cfg Config, lookPath func(string) (string, error)) []ServerSpec {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if cfg.Off {
		return nil
	}
	byName := map[string]ServerSpec{}
	for _, s := range Builtin() {
		if !slices.Contains(cfg.Disabled, s.Name) {
			byName[s.Name] = s
		}
	}
	for name, s := range cfg.Servers {
		if b, ok := byName[name]; ok {
			if s.Command == "" {
				s.Command, s.Args = b.Command, b.Args
			}
			if len(s.Languages) == 0 {
				s.Languages = b.Languages
			}
		}
		s.Name = name
		byName[name] = s
	}
	out := make([]ServerSpec, 0, len(byName))
	for _, s := range byName {
		if p, err := lookPath(s.Command); err == nil {
			s.Path = p
		} else {
			for _, alt := range alternatives[s.Command] {
				if p, err := lookPath(alt); err == nil {
					s.Command, s.Path = alt, p
					break
				}
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Report is what a Pool found in files.
type Report struct {
	// Servers are the servers that answered.
	Servers     []string     `json:"servers"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Problems say why a server gave no (or partial) answer.
	Problems []string `json:"problems,omitempty"`
}

// Errors are the report's error diagnostics.
func (r Report) Errors() []Diagnostic {
	var out []Diagnostic
	for _, d := range r.Diagnostics {
		if d.Severity == SeverityError {
			out = append(out, d)
		}
	}
	return out
}

// Pool runs the servers of one workspace, started on first use.
type Pool struct {
	root    string
	servers []ServerSpec
	opts    Options
	// LangOf names a file's language (codemap.LangOf).
	langOf func(string) string

	mu       sync.Mutex
	clients  map[string]*Client
	starting map[string]chan struct{}
	restarts map[string]int
	until    map[string]time.Time // a server that hung is left alone until then
	closed   bool
}

// Pool limits.
const (
	maxRestarts = 3
	hangBackoff = 5 * time.Minute
)

// NewPool returns a pool for the servers found (those with a Path).
func NewPool(root string, servers []ServerSpec, opts Options, langOf func(string) string) *Pool {
	var found []ServerSpec
	for _, s := range servers {
		if s.Path != "" {
			found = append(found, s)
		}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	return &Pool{root: root, servers: found, opts: opts, langOf: langOf, clients: map[string]*Client{},
		starting: map[string]chan struct{}{}, restarts: map[string]int{}, until: map[string]time.Time{}}
}

// Servers are the servers the pool may start.
func (p *Pool) Servers() []ServerSpec { return slices.Clone(p.servers) }

// serverFor is the server of a file's language.
func (p *Pool) serverFor(file string) (ServerSpec, bool) {
	lang := ""
	if p.langOf != nil {
		lang = p.langOf(file)
	}
	if lang == "" {
		lang = strings.TrimPrefix(path.Ext(file), ".")
	}
	for _, s := range p.servers {
		if slices.Contains(s.Languages, lang) {
			return s, true
		}
	}
	return ServerSpec{}, false
}

// Diagnose shows files to the servers of their languages and collects
// their diagnostics. Files no server covers are left out; a server that
// cannot start, crashed or timed out is a Problem, never an error: only a
// cancelled ctx is.
func (p *Pool) Diagnose(ctx context.Context, files []File) (Report, error) {
	groups := map[string][]File{}
	specs := map[string]ServerSpec{}
	for _, f := range files {
		if s, ok := p.serverFor(f.Path); ok {
			groups[s.Name] = append(groups[s.Name], f)
			specs[s.Name] = s
		}
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	var rep Report
	for _, name := range names {
		c, err := p.client(ctx, specs[name])
		if err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			rep.Problems = append(rep.Problems, err.Error())
			continue
		}
		diags, partial, err := c.Diagnose(ctx, groups[name])
		switch {
		case ctx.Err() != nil:
			return rep, ctx.Err()
		case err != nil:
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %v", name, err))
		case partial:
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: no diagnostics for some files within %s", name, p.opts.Timeout))
		}
		if err == nil || errors.Is(err, ErrServerDown) {
			rep.Diagnostics = append(rep.Diagnostics, diags...)
		}
		if err == nil {
			rep.Servers = append(rep.Servers, name)
		}
	}
	return rep, nil
}

// client returns the running client of a server, starting it when needed.
func (p *Pool) client(ctx context.Context, s ServerSpec) (*Client, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, fmt.Errorf("%w: the pool is closed", ErrServerDown)
		}
		if c := p.clients[s.Name]; c != nil && c.Alive() {
			p.mu.Unlock()
			return c, nil
		}
		if t, ok := p.until[s.Name]; ok && time.Now().Before(t) {
			p.mu.Unlock()
			return nil, fmt.Errorf("%s: left alone after it did not answer (until %s)", s.Name, t.Format("15:04:05"))
		}
		if wait, ok := p.starting[s.Name]; ok {
			p.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if _, ok := p.clients[s.Name]; ok {
			// It ran and died: start it again a few times at most.
			if p.restarts[s.Name] >= maxRestarts {
				p.mu.Unlock()
				return nil, fmt.Errorf("%s: %w (it crashed %d times)", s.Name, ErrServerDown, maxRestarts+1)
			}
			p.restarts[s.Name]++
		}
		wait := make(chan struct{})
		p.starting[s.Name] = wait
		p.mu.Unlock()

		c, err := Start(ctx, s, p.root, p.opts)
		p.mu.Lock()
		delete(p.starting, s.Name)
		close(wait)
		if err != nil {
			if errors.Is(err, ErrTimeout) {
				p.until[s.Name] = time.Now().Add(hangBackoff)
			}
			p.clients[s.Name] = nil
			p.mu.Unlock()
			return nil, err
		}
		if p.closed {
			p.mu.Unlock()
			c.Close()
			return nil, fmt.Errorf("%w: the pool is closed", ErrServerDown)
		}
		p.clients[s.Name] = c
		p.mu.Unlock()
		return c, nil
	}
}

// Close stops every server.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	cs := make([]*Client, 0, len(p.clients))
	for _, c := range p.clients {
		if c != nil {
			cs = append(cs, c)
		}
	}
	p.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}
