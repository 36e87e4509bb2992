package engine

import (
	"context"

	"github.com/nova-dev/nova/engine/mcp"
)

// MCPServerStatus is one configured MCP server and its state (stopped,
// running, failed), its tool count and its last error.
type MCPServerStatus = mcp.Status

// MCPVerbs are the facade's verbs about MCP servers.
type MCPVerbs interface {
	// MCPServers lists the configured MCP servers and their state, without
	// starting any (the TUI shows them; `nova mcp list` starts them).
	//rpc:idempotent
	MCPServers(ctx context.Context) ([]MCPServerStatus, error)
}

// mcpArea implements MCPVerbs over the workspace's MCP client.
type mcpArea struct{ *core }

// MCPServers implements MCPVerbs.
func (a mcpArea) MCPServers(ctx context.Context) ([]MCPServerStatus, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st := a.MCP().Status()
	if st == nil {
		st = []MCPServerStatus{}
	}
	return st, nil
}
