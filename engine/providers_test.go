package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/llm"
	"github.com/nova-dev/nova/engine/llm/ollamatest"
	"github.com/nova-dev/nova/engine/llm/openaitest"
	"github.com/nova-dev/nova/engine/workspace"
)

func providersYAML(gpu1, gpu2, lms string) string {
	return fmt.Sprintf(`providers:
  local: {type: ollama, hosts: ["%s", "%s"]}
  lms:
    type: openai
    baseURL: %s
    apiKey: ${LMS_KEY}
    contextSize: 16384
models:
  small: local/coder:7b
  medium: local/coder:7b
  large: lms/big-coder
  embed: ""
`, gpu1, gpu2, lms)
}

func TestDoctorShowsEachHostOfEachProvider(t *testing.T) {
	t.Parallel()
	g1 := ollamatest.New(t, ollamatest.WithModel(ollamatest.Model{Name: "coder:7b", ContextLength: 32768, Capabilities: []string{"completion", "tools"}}))
	g2 := ollamatest.New(t, ollamatest.WithModel(ollamatest.Model{Name: "coder:7b", ContextLength: 32768, Capabilities: []string{"completion", "tools"}}))
	lms := openaitest.New(t, openaitest.WithAPIKey("k3y"), openaitest.WithModel(openaitest.Model{ID: "big-coder", Reported: 65536}))
	root := newWorkspace(t)
	writeConfig(t, root, providersYAML(g1.URL(), g2.URL(), lms.URL()))
	env := envOf(map[string]string{"LMS_KEY": "k3y", "OLLAMA_HOST": "http://127.0.0.1:1"})
	rep := engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: env})
	assert.True(t, rep.OK, "%+v", rep.Checks)
	require.Len(t, rep.Ollama.Hosts, 3, "the unused ollama: host is not listed")
	var lines []string
	for _, c := range rep.Checks {
		if c.Name == "host" {
			assert.Equal(t, "pass", c.Status, c.Detail)
			lines = append(lines, c.Detail)
		}
	}
	require.Len(t, lines, 3)
	assert.Contains(t, lines[0], "lms "+lms.URL()+": openai, 1 models")
	assert.Contains(t, lines[1], "local "+g1.URL()+": ollama 0.34.4, 1 models")
	assert.Contains(t, checkByName(t, rep, "models").Detail, "small=local/coder:7b (2 of 2 hosts)")
	assert.Contains(t, checkByName(t, rep, "models").Detail, "large=lms/big-coder (1 of 1 hosts)")
	assert.Contains(t, checkByName(t, rep, "context").Detail, "large=lms/big-coder 16384", "capped by contextSize")

	// One host down: a warning while the other serves.
	g2.Close()
	rep = engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: env})
	assert.True(t, rep.OK, "%+v", rep.Checks)
	var warned bool
	for _, c := range rep.Checks {
		if c.Name == "host" && c.Status == "warn" {
			warned = true
			assert.Contains(t, c.Detail, g2.Host())
			assert.Contains(t, c.Detail, "1 of 2 hosts of local serve meanwhile")
		}
	}
	assert.True(t, warned)

	// A wrong key: the openai host fails, naming the provider.
	rep = engine.Doctor(context.Background(), engine.DoctorOptions{Explicit: root, Getenv: envOf(map[string]string{"LMS_KEY": "nope"})})
	assert.False(t, rep.OK)
	assert.Contains(t, checkByName(t, rep, "models").Detail, "large=lms/big-coder (no host of lms is up)")
}

func TestWorkspaceWithoutProvidersUsesTheOllamaClient(t *testing.T) {
	t.Parallel()
	p, err := engine.NewLLMClient(workspace.Defaults(), nil)
	require.NoError(t, err)
	_, isClient := p.(*llm.Client)
	assert.True(t, isClient, "no providers: exactly the Ollama client of the ollama: section")
}

func TestProvidersConfigRoutesTiers(t *testing.T) {
	t.Parallel()
	g1 := ollamatest.New(t, ollamatest.WithModels("coder:7b"), ollamatest.WithDefaultReply(ollamatest.Text("native")))
	lms := openaitest.New(t, openaitest.WithAPIKey("k3y"), openaitest.WithModel(openaitest.Model{ID: "big-coder"}),
		openaitest.WithReplies(openaitest.Text("compat")))
	root := newWorkspace(t)
	writeConfig(t, root, providersYAML(g1.URL(), g1.URL(), lms.URL()))
	ws, err := workspace.Load(root, envOf(nil))
	require.NoError(t, err)
	p, err := engine.NewLLMClient(ws.Config, envOf(map[string]string{"LMS_KEY": "k3y"}))
	require.NoError(t, err)
	res, err := p.Chat(t.Context(), llm.ChatRequest{Model: ws.Config.Models.Large, Messages: []llm.Message{{Role: "user", Content: "hi"}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "compat", res.Content)
	res, err = p.Chat(t.Context(), llm.ChatRequest{Model: ws.Config.Models.Small, Messages: []llm.Message{{Role: "user", Content: "hi"}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "native", res.Content)
	w, err := p.Window(t.Context(), ws.Config.Models.Large, 0)
	require.NoError(t, err)
	assert.Equal(t, 16384, w.Tokens, "no size reported: the configured contextSize")
}

func TestProvidersConfigIsValidated(t *testing.T) {
	t.Parallel()
	for yaml, want := range map[string]string{
		"providers:\n  bad: {type: grpc, hosts: [x]}\n":             "providers.bad.type",
		"providers:\n  empty: {type: ollama}\n":                     "providers.empty: needs hosts",
		"providers:\n  lms: {type: openai, baseURL: 'ftp://x'}\n":   "providers.lms.hosts[0]",
		"providers:\n  o: {type: ollama, hosts: [a], apiKey: k}\n":  "providers.o.apiKey",
		"providers:\n  o: {type: ollama, hosts: [a], slots: 100}\n": "providers.o.slots",
	} {
		root := newWorkspace(t)
		writeConfig(t, root, yaml)
		_, err := workspace.Load(root, envOf(nil))
		require.Error(t, err, yaml)
		assert.Contains(t, err.Error(), want, "%s in %v", want, err)
	}
}

func writeConfig(t *testing.T, root, yaml string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(root, ".nova", "config.yaml"), []byte(yaml), 0o644))
}
