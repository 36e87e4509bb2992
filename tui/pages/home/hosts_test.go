package home

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"

	"github.com/nova-dev/nova/engine"
	"github.com/nova-dev/nova/engine/build"
	"github.com/nova-dev/nova/engine/mcp"
	"github.com/nova-dev/nova/engine/workspace"
	"github.com/nova-dev/nova/themes"
	"github.com/nova-dev/nova/tui/common"
	"github.com/nova-dev/nova/tui/keymap"
	"github.com/nova-dev/nova/tui/tuitest"
)

// hostsSource is a Source with a workspace of three model hosts.
type hostsSource struct{}

func (hostsSource) Info() engine.Info {
	return engine.Info{Root: "/work/demo", Dir: "/work/demo/.nova"}
}
func (hostsSource) Config() workspace.Config {
	return workspace.Defaults()
}
func (hostsSource) Summary(context.Context) (engine.Summary, error) { return engine.Summary{}, nil }
func (hostsSource) Ollama(context.Context) (engine.OllamaStatus, error) {
	return hostsStatus(), nil
}
func (hostsSource) ListBuilds(context.Context) ([]build.Build, error) { return nil, nil }
func (hostsSource) TeamStatus(context.Context) (engine.TeamStatus, error) {
	return engine.TeamStatus{}, nil
}
func (hostsSource) MCPServers(context.Context) ([]engine.MCPServerStatus, error) {
	return []engine.MCPServerStatus{
		{Name: "everything", Transport: "stdio", State: mcp.StateReady, Tools: 13},
		{Name: "docs", Transport: "http", State: mcp.StateIdle},
		{Name: "flaky", Transport: "stdio", State: mcp.StateFailed, Error: "initialize: no answer within 30s"},
	}, nil
}

func hostsStatus() engine.OllamaStatus {
	return engine.OllamaStatus{Reachable: true, Hosts: []engine.HostStatus{
		{Provider: "lms", Type: "openai", URL: "http://127.0.0.1:1234/v1", Up: true, Models: []string{"qwen2.5-coder-32b-instruct"}, Slots: 1},
		{Provider: "local", Type: "ollama", URL: "http://gpu1:11434", Up: true, Models: []string{"qwen2.5-coder:7b", "nomic-embed-text:latest"},
			Loaded: []string{"qwen2.5-coder:7b"}, InFlight: 1, Slots: 1},
		{Provider: "local", Type: "ollama", URL: "http://gpu2:11434", Error: "connection refused", Slots: 1},
	}, Tiers: []engine.TierModel{
		{Tier: "small", Model: "local/qwen2.5-coder:7b", Installed: true},
		{Tier: "medium", Model: "local/qwen2.5-coder:7b", Installed: true},
		{Tier: "large", Model: "lms/qwen2.5-coder-32b-instruct", Installed: true},
		{Tier: "embed", Model: "local/nomic-embed-text", Optional: true},
	}}
}

// Home shows each model host, its models, what it has loaded and its load,
// and the MCP servers with their state, in a panel that fits every size.
func TestGoldenHostsPanel(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}, {180, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			c := &common.Common{Ctx: context.Background(), Styles: themes.Build(themes.NovaDark), KeyMap: keymap.DefaultKeyMap()}
			m := New(c, hostsSource{})
			m.SetSize(size[0], size[1])
			_, _ = m.Update(common.SummaryMsg{Summary: engine.Summary{VaultNodes: 3, Builds: 1}})
			_, _ = m.Update(common.OllamaMsg{Status: hostsStatus()})
			servers, _ := hostsSource{}.MCPServers(context.Background())
			_, _ = m.Update(mcpMsg{servers: servers})
			view := m.View()
			plain := ansi.Strip(view)
			assert.Contains(t, plain, "gpu1:11434")
			assert.Contains(t, plain, "gpu2:11434")
			assert.Contains(t, plain, "down")
			if size[1] >= 30 {
				assert.Contains(t, plain, "Model hosts 2 of 3 up")
				assert.Contains(t, plain, "load 1/1 · qwen2.5-coder")
				assert.Contains(t, plain, "lms 127.0.0.1:1234/v1")
				assert.Contains(t, plain, "MCP  ● everything 13 tools  ○ docs not started")
			}
			if size[0] >= 180 {
				assert.Contains(t, plain, "✗ flaky failed")
			}
			for _, l := range strings.Split(plain, "\n") {
				assert.LessOrEqual(t, ansi.StringWidth(l), size[0])
			}
			golden.RequireEqual(t, tuitest.Pinned(view))
		})
	}
}
