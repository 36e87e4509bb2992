package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nova-dev/nova/engine/agents"
	"github.com/nova-dev/nova/engine/mcp"
	"github.com/nova-dev/nova/engine/workspace"
)

// mcpState is the MCP client of a Local, built on first use: servers start
// when an agent that lists their tools runs, or a `nova mcp` command asks.
type mcpState struct {
	once sync.Once
	mgr  *mcp.Manager
	mu   sync.Mutex
	reg  *mcp.Registrar // registers servers' tools into the runtime's registry
}

// MCPServers converts the mcp: section to the client's server list, sorted
// by name.
func MCPServers(c workspace.MCPConfig) []mcp.ServerConfig {
	var out []mcp.ServerConfig
	for _, name := range c.MCPServerNames() {
		s := c.Servers[name]
		out = append(out, mcp.ServerConfig{Name: name, Command: s.Command, Args: slices.Clone(s.Args),
			Env: s.Env, URL: s.URL, Headers: s.Headers, Timeout: s.Timeout.D(), Tools: slices.Clone(s.Tools)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// MCP is the workspace's MCP client (engine/mcp): the servers under
// mcp.servers, started on first use and closed with the workspace.
func (l *core) MCP() *mcp.Manager {
	l.mc.once.Do(func() {
		l.mc.mgr = mcp.New(MCPServers(l.Config().MCP), mcp.Options{Dir: l.ws.Root, Getenv: l.getenv})
	})
	return l.mc.mgr
}

func (l *core) closeMCP() {
	l.mc.once.Do(func() {}) // a manager built after Close would never close
	if l.mc.mgr != nil {
		_ = l.mc.mgr.Close()
	}
}

// expandMCPTools starts the MCP servers the spec's tools name
// ("server.tool", "server.*"), registers their tools and returns the spec
// with every "server.*" replaced by the server's tools. Warnings (tools
// skipped, the cap) are published as log lines on the run's topic.
func (l *core) expandMCPTools(ctx context.Context, spec agents.Spec, op string) (agents.Spec, error) {
	if !slices.ContainsFunc(spec.Tools, mcp.IsToolName) {
		return spec, nil
	}
	rt := l.runtime()
	mgr := l.MCP()
	l.mc.mu.Lock()
	if l.mc.reg == nil {
		l.mc.reg = &mcp.Registrar{M: mgr, Reg: rt.tools}
	}
	reg := l.mc.reg
	l.mc.mu.Unlock()
	names, err := reg.Expand(ctx, spec.Tools, func(w string) {
		l.Publish(Event{Type: EventLog, Topic: TopicAgent, Op: op, Text: w})
	})
	if err != nil {
		return spec, fmt.Errorf("agent %s: %w", spec.ID, err)
	}
	spec.Tools = names
	return spec, nil
}

// CheckMCPTools adds a problem to r for every MCP tool an agent lists
// ("server.tool", "server.*") whose server is not under mcp.servers. Whether
// the server offers the tool is known only once it runs (`nova mcp tools`).
func CheckMCPTools(r *Roster, cfg workspace.MCPConfig) {
	for _, s := range r.Agents {
		for i, t := range s.Tools {
			server, _, ok := mcp.SplitToolName(t)
			if !ok {
				continue
			}
			if _, configured := cfg.Servers[server]; configured {
				continue
			}
			known := "none configured"
			if names := cfg.MCPServerNames(); len(names) > 0 {
				known = "configured: " + strings.Join(names, ", ")
			}
			msg := fmt.Sprintf("tool %q names the MCP server %q, which is not under mcp.servers in .nova/config.yaml (%s)", t, server, known)
			field := fmt.Sprintf("tools[%d]", i)
			r.Problems = append(r.Problems, AgentProblem{File: s.Source, Field: field, Message: msg, Text: s.Source + ": " + field + ": " + msg})
		}
	}
}
