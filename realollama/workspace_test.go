package realollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/realollama/harness"
)

// wsConfig is what a test changes in a workspace's config.yaml.
type wsConfig struct {
	Small, Medium, Large, Embed string // models per tier (default nova-coder / nova-embed)
	NumCtx                      int    // ollama.numCtx (default 8192)
	Autonomy                    int
	Tier                        string // free | premium
	Extra                       string // more YAML, appended verbatim (top-level keys)
	Ollama                      string // more keys under ollama:, e.g. "idleTimeout: 2s"
	Host                        string // default: the test's recording proxy
}

// testWS is a nova workspace in a temporary directory whose model server is
// the shared real server behind a recording proxy.
type testWS struct {
	t     *testing.T
	dir   string
	home  string
	proxy *harness.Recorder
	srv   *harness.Server
	log0  int // length of the server log when the workspace was made
}

func newWS(t *testing.T, c wsConfig) *testWS {
	t.Helper()
	return newWSOn(t, suite.srv, c)
}

func newWSOn(t *testing.T, srv *harness.Server, c wsConfig) *testWS {
	t.Helper()
	proxy, err := harness.Record(srv.URL)
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	w := &testWS{t: t, dir: t.TempDir(), home: t.TempDir(), proxy: proxy, srv: srv, log0: len(srv.Log())}
	out, errOut, code := w.nova("init", w.dir)
	require.Equal(t, 0, code, "nova init: %s%s", out, errOut)

	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.Small, "nova-coder")
	def(&c.Medium, c.Small)
	def(&c.Large, c.Medium)
	def(&c.Embed, "nova-embed")
	def(&c.Tier, "free")
	def(&c.Host, proxy.URL())
	if c.NumCtx == 0 {
		c.NumCtx = 8192
	}
	if c.Autonomy == 0 {
		c.Autonomy = 2
	}
	cfg := fmt.Sprintf(`version: 1
tier: %s
autonomy: %d
ollama:
  host: %s
  timeout: 2m
  numCtx: %d
  retries: 2
%s
models:
  small: %s
  medium: %s
  large: %s
  embed: %s
%s
`, c.Tier, c.Autonomy, c.Host, c.NumCtx, indent(c.Ollama, "  "), c.Small, c.Medium, c.Large, c.Embed, c.Extra)
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, ".nova", "config.yaml"), []byte(cfg), 0o644))
	w.writeAgent("tester", "small", "small")
	return w
}

func indent(s, pre string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(pre + line + "\n")
	}
	return b.String()
}

// writeAgent adds a small test agent: three file tools, a short role.
func (w *testWS) writeAgent(id, tier, maxTier string) {
	spec := fmt.Sprintf(`schema: kb.specialist/1
id: %s
version: 1.0.0
display:
  name: Tester
  description: A small agent for the real-server suite.
domain: implementation
tier: %s
maxTier: %s
tools: [readFile, listFiles, writeFile]
limits:
  maxSteps: 6
  maxToolCalls: 6
  timeout: 3m
role: |
  You are the real-server suite's test agent. Do exactly what the task says
  with the tools you have, then answer with the files you changed.
`, id, tier, maxTier)
	require.NoError(w.t, os.WriteFile(filepath.Join(w.dir, ".nova", "agents", id+".yaml"), []byte(spec), 0o644))
}

// nova runs the nova binary in the workspace; it never waits on a terminal.
func (w *testWS) nova(args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite.nova, args...)
	cmd.Dir = w.dir
	cmd.Env = append(novaEnv(), "HOME="+w.home, "NOVA_HOME="+filepath.Join(w.home, "nova"), "XDG_DATA_HOME="+filepath.Join(w.home, "data"))
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		w.t.Fatalf("nova %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		w.t.Fatalf("nova %s did not finish within 4 minutes\nstdout: %s\nstderr: %s", strings.Join(args, " "), o.String(), e.String())
	}
	return o.String(), e.String(), code
}

// novaEnv is the environment without anything that would redirect nova.
func novaEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OLLAMA_") || strings.HasPrefix(kv, "NOVA") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// novaJSON runs nova with --json and decodes stdout into v.
func (w *testWS) novaJSON(v any, args ...string) (stderr string, code int) {
	w.t.Helper()
	out, errOut, code := w.nova(append(args, "--json")...)
	require.NoError(w.t, json.Unmarshal([]byte(out), v), "nova %s --json: stdout is not one JSON document:\n%s\nstderr:\n%s",
		strings.Join(args, " "), out, errOut)
	return errOut, code
}

// serverLog is what the server printed since the workspace was made.
func (w *testWS) serverLog() string { return w.srv.LogSince(w.log0) }

// writeFile writes a file in the workspace.
func (w *testWS) writeFile(rel, content string) string {
	p := filepath.Join(w.dir, filepath.FromSlash(rel))
	require.NoError(w.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(w.t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// readFile reads a workspace file ("" when absent).
func (w *testWS) readFile(rel string) string {
	b, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	return string(b)
}

// prdTask is one task of a generated PRD.
type prdTask struct {
	ID, Title, Description, Agent string
	Deps                          []string
}

// writePRD writes a JSON PRD and returns its path.
func (w *testWS) writePRD(name string, tasks ...prdTask) string {
	type jt struct {
		ID           string   `json:"id"`
		Title        string   `json:"title"`
		Description  string   `json:"description"`
		Agent        string   `json:"agent"`
		Status       string   `json:"status"`
		Dependencies []string `json:"dependencies"`
		Phase        int      `json:"phase"`
		Attempts     int      `json:"attempts"`
	}
	doc := struct {
		Meta  map[string]string `json:"meta"`
		Tasks []jt              `json:"tasks"`
	}{Meta: map[string]string{"name": name, "version": "1.0.0", "createdAt": "2026-11-24T00:00:00Z"}}
	for i, t := range tasks {
		status := "pending"
		if len(t.Deps) == 0 {
			status = "ready"
		}
		deps := t.Deps
		if deps == nil {
			deps = []string{}
		}
		doc.Tasks = append(doc.Tasks, jt{ID: t.ID, Title: t.Title, Description: t.Description, Agent: t.Agent,
			Status: status, Dependencies: deps, Phase: i})
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(w.t, err)
	return w.writeFile(name+".json", string(data))
}
