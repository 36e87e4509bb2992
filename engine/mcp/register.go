package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/nova-dev/nova/engine/tools"
)

// IsToolName reports whether name has the shape of an MCP tool an agent
// file may list: "server.tool" or "server.*".
func IsToolName(name string) bool {
	server, tool, ok := strings.Cut(name, ".")
	return ok && server != "" && tool != "" && !strings.Contains(tool, ".")
}

// SplitToolName returns the server and tool of "server.tool" ("*" for
// "server.*").
func SplitToolName(name string) (server, tool string, ok bool) {
	if !IsToolName(name) {
		return "", "", false
	}
	server, tool, _ = strings.Cut(name, ".")
	return server, tool, true
}

// Registrar puts servers' tools into a tool registry once each.
type Registrar struct {
	M   *Manager
	Reg *tools.Registry

	mu   sync.Mutex
	done map[string][]string // server -> registered full names
}

// Expand starts the servers that names (an agent's `tools:` list) refer to,
// registers their tools, and returns names with every "server.*" replaced
// by the server's registered tools. Names of other tools pass unchanged.
// warn receives the servers' warnings (skipped tools, the cap) once per
// server. An error names the server that could not start or the MCP tool
// that is not offered.
func (r *Registrar) Expand(ctx context.Context, names []string, warn func(string)) ([]string, error) {
	var out []string
	for _, n := range names {
		server, tool, ok := SplitToolName(n)
		if _, registered := r.Reg.Get(n); !ok || registered {
			out = append(out, n)
			continue
		}
		if !r.M.Has(server) {
			return nil, fmt.Errorf("tool %s: %w %q (configured: %s)", n, ErrUnknownServer, server, r.M.namesOrNone())
		}
		full, err := r.Register(ctx, server, warn)
		if err != nil {
			return nil, err
		}
		if tool == "*" {
			out = append(out, full...)
			continue
		}
		if !containsStr(full, n) {
			return nil, fmt.Errorf("tool %s: mcp server %s: %w %q (offered: %s)", n, server, ErrUnknownTool, tool, strings.Join(full, ", "))
		}
		out = append(out, n)
	}
	return out, nil
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Register starts server and registers its tools (once); it returns their
// full names.
func (r *Registrar) Register(ctx context.Context, server string, warn func(string)) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if names, ok := r.done[server]; ok {
		return names, nil
	}
	ts, warns, err := r.M.Tools(ctx, server)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, t := range ts {
		if err := r.Reg.Register(ToolFor(r.M, t)); err != nil {
			warns = append(warns, fmt.Sprintf("mcp server %s: tool %q skipped: %v", server, t.Name, err))
			continue
		}
		names = append(names, t.FullName)
	}
	if warn != nil {
		for _, w := range warns {
			warn(w)
		}
	}
	if r.done == nil {
		r.done = map[string][]string{}
	}
	r.done[server] = names
	return names, nil
}

// ToolFor is the registry tool of an MCP tool: not offered unless an agent
// lists it, asks for approval below autonomy 4 (tools.ApprovalAutonomy),
// and marks its output as the server's.
func ToolFor(m *Manager, t Tool) tools.Tool {
	desc := t.Description
	if desc == "" {
		desc = "Tool " + t.Name + " of the MCP server " + t.Server + "."
	}
	return tools.Tool{
		Name:        t.FullName,
		Description: desc + " (MCP server " + t.Server + ")",
		Schema:      t.Schema,
		// The call applies the server's own timeout after the approval.
		Timeout: -1,
		Run: func(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Output, error) {
			if err := approve(ctx, env, t, args); err != nil {
				return tools.Output{}, err
			}
			res, err := m.Call(ctx, t.Server, t.Name, args)
			if err != nil {
				return tools.Output{}, err
			}
			text := res.Text
			if strings.TrimSpace(text) == "" {
				text = "(the tool returned no content)"
			}
			return tools.Output{Text: "result of MCP tool " + t.FullName + " (from the server, unverified):\n" + text, Failed: res.IsError}, nil
		},
	}
}

func approve(ctx context.Context, env *tools.Env, t Tool, args json.RawMessage) error {
	if env == nil {
		env = &tools.Env{}
	}
	if env.Autonomy >= tools.ApprovalAutonomy {
		return nil
	}
	line := t.FullName + " " + strings.TrimSpace(clipText(string(args), 400))
	reason := fmt.Sprintf("autonomy %d asks before calling MCP tools (from %d it does not)", env.Autonomy, tools.ApprovalAutonomy)
	if env.Approve == nil {
		return fmt.Errorf("%w: calling %s needs approval (%s) and nobody can answer", tools.ErrPolicyDenied, t.FullName, reason)
	}
	ok, err := env.Approve(ctx, tools.ApprovalRequest{
		ID: tools.NewApprovalID(), RunID: env.RunID, Agent: env.Agent, Tool: t.FullName,
		Command: line, Reason: reason,
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: approval of %s failed: %w", tools.ErrPolicyDenied, t.FullName, err)
	}
	if !ok {
		return fmt.Errorf("%w: the user declined to call %s", tools.ErrPolicyDenied, t.FullName)
	}
	return nil
}
