package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/tools"
)

// doctorWith runs doctor on a workspace whose config says yaml, against srv.
func doctorWith(t *testing.T, srv *ollamatest.Server, yaml string) engine.DoctorReport {
	t.Helper()
	root := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), []byte(yaml), 0o644))
	return engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
}

func tiersYAML(small, medium, embed string, extra string) string {
	return "models:\n  small: " + small + "\n  medium: " + medium + "\n  large: " + medium + "\n  embed: " + embed + "\n" + extra
}

func TestDoctorChecksCapabilitiesNotNames(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModel(
		ollamatest.Model{Name: "coder:7b", ContextLength: 32768, Capabilities: []string{"completion", "tools"}},
		ollamatest.Model{Name: "plain:7b", ContextLength: 32768, Capabilities: []string{"completion"}},
		ollamatest.Model{Name: "embedder", ContextLength: 2048, Capabilities: []string{"embedding"}},
	))
	rep := doctorWith(t, srv, tiersYAML("embedder", "coder:7b", "coder:7b", ""))
	assert.False(t, rep.OK)
	c := checkByName(t, rep, "capabilities")
	assert.Equal(t, "fail", c.Status)
	assert.Contains(t, c.Detail, "small=embedder does not support chat")
	assert.Contains(t, c.Detail, "embed=coder:7b is not an embedding model")
	assert.NotEmpty(t, c.Hint)
	assert.True(t, checkByName(t, rep, "models").OK, "the names are all installed: only capabilities tell")

	rep = doctorWith(t, srv, tiersYAML("plain:7b", "coder:7b", "embedder", ""))
	assert.True(t, rep.OK, "%+v", rep.Checks)
	c = checkByName(t, rep, "capabilities")
	assert.Equal(t, "warn", c.Status)
	assert.Contains(t, c.Detail, "no native tool calling")

	rep = doctorWith(t, srv, tiersYAML("coder:7b", "coder:7b", "embedder", ""))
	assert.True(t, rep.OK)
	assert.Equal(t, "pass", checkByName(t, rep, "capabilities").Status)
	assert.Equal(t, "pass", checkByName(t, rep, "context").Status)
}

func TestDoctorChecksTheContextAgainstTheBudget(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModel(
		ollamatest.Model{Name: "tight", ContextLength: 1536, Capabilities: []string{"completion", "tools"}},
		ollamatest.Model{Name: "roomy", ContextLength: 32768, Capabilities: []string{"completion", "tools"}},
		ollamatest.Model{Name: "embedder", ContextLength: 2048, Capabilities: []string{"embedding"}},
	))
	rep := doctorWith(t, srv, tiersYAML("tight", "roomy", "embedder", ""))
	c := checkByName(t, rep, "context")
	assert.Equal(t, "warn", c.Status)
	assert.Contains(t, c.Detail, "small=tight")
	assert.Contains(t, c.Detail, "1536")
	assert.Contains(t, c.Detail, "budgets.promptTokens 7168")
	assert.Contains(t, c.Detail, "trimmed to 512 tokens")

	rep = doctorWith(t, srv, tiersYAML("roomy", "roomy", "embedder", "ollama:\n  numCtx: 1024\n"))
	c = checkByName(t, rep, "context")
	assert.Equal(t, "fail", c.Status)
	assert.False(t, rep.OK)
	assert.Contains(t, c.Detail, "no room for any prompt")
	assert.Contains(t, c.Hint, "ollama.numCtx")
}

func TestDoctorWarnsWithoutChecks(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("coder"))
	rep := doctorWith(t, srv, "checks: []\n")
	c := checkByName(t, rep, "checks")
	assert.Equal(t, "warn", c.Status)
	assert.True(t, c.OK, "a warning, not a failure")
	assert.Contains(t, c.Detail, "done (unverified)")
	assert.Contains(t, c.Hint, "`checks: [go test ./...]`")
	assert.Contains(t, c.Hint, ".nova/config.yaml")

	rep = doctorWith(t, srv, "checks: [go vet ./..., go test ./...]\n")
	c = checkByName(t, rep, "checks")
	assert.Equal(t, "pass", c.Status)
	assert.Contains(t, c.Detail, "2 configured: go vet ./..., go test ./...")

	// The hint names what nova detects in the project.
	root := newWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, "Cargo.toml"), []byte("[package]\nname = \"x\"\n"), 0o644))
	rep = engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
	c = checkByName(t, rep, "checks")
	assert.Equal(t, "warn", c.Status)
	assert.Contains(t, c.Hint, "`checks: [cargo build, cargo test]`")
}

func TestDoctorSuggestsTheGitignore(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithModels("coder"))
	root := newWorkspace(t)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	doctor := func() engine.DoctorReport {
		return engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{"OLLAMA_HOST": srv.URL()})})
	}
	for _, c := range doctor().Checks {
		assert.NotEqual(t, "gitignore", c.Name, "a workspace made by init has its .gitignore")
	}
	require.NoError(t, os.Remove(filepath.Join(root, ".nova", ".gitignore")))
	c := checkByName(t, doctor(), "gitignore")
	assert.Equal(t, "warn", c.Status)
	assert.Contains(t, c.Hint, "nova init")
}

func TestDoctorSaysWhetherCommandsAreSandboxed(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	c := checkByName(t, doctorWith(t, srv, "version: 1\n"), "sandbox")
	assert.True(t, c.OK, "an unavailable sandbox is a warning, never a failure")
	st := tools.SandboxProbe(tools.SandboxPolicy{})
	if st.Active {
		assert.Equal(t, "pass", c.Status)
		assert.Regexp(t, `^landlock ABI v\d+, network (off|on) .*, writes confined \(workspace but \.git/ and \.nova/`, c.Detail)
	} else {
		assert.Equal(t, "warn", c.Status)
		assert.Contains(t, c.Detail, "not available: ")
	}
	c = checkByName(t, doctorWith(t, srv, "version: 1\ncommands:\n  sandbox: off\n"), "sandbox")
	assert.Equal(t, "warn", c.Status)
	assert.Equal(t, "off (commands.sandbox: off)", c.Detail)
	assert.Contains(t, c.Hint, "commands.sandbox: on")
}
