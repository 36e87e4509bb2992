package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is one running `ollama serve` on a loopback port, with HOME and
// OLLAMA_MODELS of its own (the model store may be shared between servers).
type Server struct {
	URL    string // http://127.0.0.1:PORT
	Host   string // 127.0.0.1:PORT
	Models string // OLLAMA_MODELS
	Dir    string // HOME and the log

	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
	err  error
}

// StartOptions configure Start.
type StartOptions struct {
	// Binary is the built server.
	Binary string
	// Models is OLLAMA_MODELS (created when missing).
	Models string
	// Dir is the server's HOME; a temporary directory when empty.
	Dir string
	// Env adds environment variables (KEY=VALUE).
	Env []string
}

// Start runs the server and waits until it answers /api/version (up to a
// minute).
func Start(ctx context.Context, o StartOptions) (*Server, error) {
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "nova-realollama-*")
		if err != nil {
			return nil, err
		}
		o.Dir = d
	}
	for _, d := range []string{o.Dir, o.Models} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	host := fmt.Sprintf("127.0.0.1:%d", port)
	s := &Server{URL: "http://" + host, Host: host, Models: o.Models, Dir: o.Dir, log: &syncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(o.Binary, "serve")
	s.cmd.Env = append(cleanEnv(),
		"HOME="+o.Dir,
		"OLLAMA_HOST="+host,
		"OLLAMA_MODELS="+o.Models,
		"OLLAMA_NOPRUNE=1",           // the store is shared: never prune blobs
		"OLLAMA_KEEP_ALIVE=30m",      // keep the tiny models loaded between tests
		"OLLAMA_MAX_LOADED_MODELS=4", // a few models at once, each a few MB
		"OLLAMA_NUM_PARALLEL=2",
		"OLLAMA_NO_CLOUD=1",
	)
	s.cmd.Env = append(s.cmd.Env, o.Env...)
	s.cmd.Dir = o.Dir
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	// Own process group, so Stop ends the runners it spawns too.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", o.Binary, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/version", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("ollama serve exited: %v\n%s", s.err, s.Log())
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("ollama serve did not answer within a minute\n%s", s.Log())
		}
	}
}

// cleanEnv is the environment without OLLAMA_* variables of the caller.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OLLAMA_") {
			out = append(out, kv)
		}
	}
	return out
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Log is everything the server printed so far.
func (s *Server) Log() string { return s.log.String() }

// LogSince is what the server printed after offset (an earlier len(Log())).
func (s *Server) LogSince(offset int) string {
	l := s.Log()
	if offset > len(l) {
		return ""
	}
	return l[offset:]
}

// Pause stops the server's process group (SIGSTOP): connections are still
// accepted by the kernel, but nothing answers.
func (s *Server) Pause() error { return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGSTOP) }

// Resume continues a paused server.
func (s *Server) Resume() error { return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT) }

// Stop ends the server and its runners.
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	pgid := -s.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGCONT)
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-s.done
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Plan is the generator's models.json.
type Plan struct {
	Models []PlannedModel `json:"models"`
}

// PlannedModel is one model to create.
type PlannedModel struct {
	Name       string         `json:"name"`
	File       string         `json:"file"`
	Digest     string         `json:"digest"`
	Template   string         `json:"template,omitempty"`
	Parameters map[string]any `json:"parameters,omitempty"`
	Purpose    string         `json:"purpose"`
}

// GenerateModels runs the generator (realollama/upstream/cmd/tinymodels)
// into dir and reads its plan.
func GenerateModels(ctx context.Context, d Dirs, dir string) (Plan, error) {
	cmd := exec.CommandContext(ctx, "go", "run", "./cmd/tinymodels", "-out", dir)
	cmd.Dir = d.Upstream
	if out, err := cmd.CombinedOutput(); err != nil {
		return Plan{}, fmt.Errorf("generate models: %w\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "models.json"))
	if err != nil {
		return Plan{}, err
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return Plan{}, fmt.Errorf("models.json: %w", err)
	}
	return p, nil
}

// CreateModels uploads the plan's files and creates its models on s, the way
// `ollama create` does (POST /api/blobs/DIGEST, then /api/create).
func (s *Server) CreateModels(ctx context.Context, p Plan) error {
	uploaded := map[string]bool{}
	for _, m := range p.Models {
		if !uploaded[m.Digest] {
			f, err := os.Open(m.File)
			if err != nil {
				return err
			}
			err = s.post(ctx, "/api/blobs/"+m.Digest, "application/octet-stream", f, http.StatusCreated, http.StatusOK)
			_ = f.Close()
			if err != nil {
				return fmt.Errorf("upload %s: %w", m.File, err)
			}
			uploaded[m.Digest] = true
		}
		body := map[string]any{"model": m.Name, "files": map[string]string{filepath.Base(m.File): m.Digest}, "stream": false}
		if m.Template != "" {
			body["template"] = m.Template
		}
		if len(m.Parameters) > 0 {
			body["parameters"] = m.Parameters
		}
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		if err := s.post(ctx, "/api/create", "application/json", bytes.NewReader(data), http.StatusOK); err != nil {
			return fmt.Errorf("create %s: %w", m.Name, err)
		}
	}
	return nil
}

func (s *Server) post(ctx context.Context, path, ctype string, body io.Reader, ok ...int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	for _, code := range ok {
		if resp.StatusCode == code {
			return nil
		}
	}
	return errors.New(resp.Status + ": " + strings.TrimSpace(string(msg)))
}
