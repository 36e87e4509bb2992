package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nova-dev/nova/engine/mcp"
	"github.com/nova-dev/nova/engine/workspace"
)

// MCPDoctorTimeout bounds each MCP server's start in `nova doctor`.
const MCPDoctorTimeout = 3 * time.Second

// mcpChecks starts every configured MCP server at once (each within
// MCPDoctorTimeout, whatever its own timeout), one check line each, then
// stops them.
func mcpChecks(ctx context.Context, root string, cfg workspace.MCPConfig, getenv func(string) string) []Check {
	servers := MCPServers(cfg)
	if len(servers) == 0 {
		return nil
	}
	m := mcp.New(servers, mcp.Options{Dir: root, Getenv: getenv})
	defer func() { _ = m.Close() }()
	checks := make([]Check, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			st, err := m.StartWithin(ctx, s.Name, MCPDoctorTimeout)
			name := "mcp " + s.Name
			if err != nil {
				checks[i] = Check{Name: name, OK: true, Status: "warn", Detail: fmt.Sprintf("%s: %v", st.Target, err),
					Hint: "check mcp.servers." + s.Name + " in .nova/config.yaml (`nova mcp list` shows every server)"}
				return
			}
			detail := fmt.Sprintf("%s: initialize ok (%s %s), %d tools", st.Target, st.ServerName, st.ServerVersion, st.Tools)
			if len(st.Warnings) > 0 {
				detail += fmt.Sprintf("; %d warnings (see `nova mcp tools %s`)", len(st.Warnings), s.Name)
			}
			checks[i] = Check{Name: name, OK: true, Detail: detail}
		})
	}
	wg.Wait()
	return checks
}
